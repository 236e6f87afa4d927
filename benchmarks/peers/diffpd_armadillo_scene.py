"""DiffPD's Armadillo showcase (its python/example/armadillo_3d.py) as a softgrad scene file.

The problem: the project's Armadillo (scenes/meshes/armadillo_10k.*, the mesh DiffPD ships),
scaled from millimetres to metres; DiffPD's Neo-Hookean (the same density as softgrad's
neo_hookean) with E = 5e5 Pa, nu = 0.45, density 1e3; no gravity; the vertices within 1 mm of
the lowest point fixed, those within 1 mm of the highest held in the vertical; and twisting
point forces on the vertices within 1 mm of either side, turning over the 30 frames of DiffPD's
schedule; dt = 3e-2.

DiffPD discretises it in two ways of its own, which the scene copies so that both sides solve
the same equations (cpp/core/src/fem/deformable.cpp, InitializeAfterMesh): every tetrahedron's
energy is weighted by the mesh's mean tet volume V (element_volume_ = average_element_volume()),
which a per-element Young's modulus E V / V_e reproduces (the energy is linear in the Lame
parameters at fixed nu), and every vertex has the same mass: V times the density.

The scene is written in the mesh file's own axes (y up); DiffPD's are the same turned so that z
is up: (x, y, z)_DiffPD = (-x, z, y) here, after the scale and a shift of the lowest point to
z = 0 (to_diffpd_frame). Regions are the vertex sets DiffPD's rules select, by index.

    /usr/bin/python3 benchmarks/peers/diffpd_armadillo_scene.py OUT_DIR [--steps 5]
"""

import argparse
import functools
import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MESH = os.path.join(ROOT, "scenes", "meshes", "armadillo_10k")
SCALE = 1e-3  # DiffPD divides the mesh's millimetres by 1000
YOUNGS = 5e5
POISSON = 0.45
DENSITY = 1e3
DT = 3e-2
FRAMES = 30  # the length of DiffPD's force schedule
BAND = 1e-3  # DiffPD's selection tolerance [m]


def read_tetgen(base):
    """Vertices (n x 3, the file's units) and tetrahedra (m x 4, 0-based) of a TetGen pair."""
    with open(base + ".node") as f:
        n = int(f.readline().split()[0])
        nodes = np.loadtxt(f, max_rows=n)
    with open(base + ".ele") as f:
        m = int(f.readline().split()[0])
        eles = np.loadtxt(f, max_rows=m, dtype=np.int64)
    first = int(nodes[0, 0])  # TetGen ids start at 0 or 1 (1 in this mesh)
    order = np.argsort(nodes[:, 0])
    return nodes[order, 1:4], eles[:, 1:5] - first


def tet_volumes(x, tets):
    a, b, c, d = (x[tets[:, k]] for k in range(4))
    return np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0


@functools.lru_cache(maxsize=1)
def lowest_rest_height():
    return float(np.min(read_tetgen(MESH)[0][:, 1]) * SCALE)


def to_diffpd_frame(x):
    """Positions (n x 3, metres, this scene's axes) in DiffPD's axes (its lowest rest z is 0)."""
    min_z = lowest_rest_height()
    return np.stack([-x[:, 0], x[:, 2], x[:, 1] - min_z], axis=1)


def from_diffpd_vectors(v):
    """Vectors (... x 3) in DiffPD's axes, in this scene's (and back: the turn is its own
    inverse)."""
    return np.stack([-v[..., 0], v[..., 2], v[..., 1]], axis=-1)


def problem(steps):
    """The arrays of the problem in this scene's axes: rest positions, tets, masses, the
    per-element Young's moduli, the selected vertex sets and each step's forces."""
    nodes, tets = read_tetgen(MESH)
    x = nodes * SCALE
    volumes = tet_volumes(x, tets)
    if np.any(volumes <= 0):
        raise SystemExit(f"{MESH}.ele: {np.sum(volumes <= 0)} tetrahedra with volume <= 0")
    mean_volume = float(np.mean(volumes))
    d = to_diffpd_frame(x)
    lo, hi = d.min(axis=0), d.max(axis=0)
    sets = {
        "bottom": np.flatnonzero(d[:, 2] - lo[2] < BAND),  # fixed
        "top": np.flatnonzero(hi[2] - d[:, 2] < BAND),  # held in DiffPD's z
        "min_x": np.flatnonzero(d[:, 0] - lo[0] < BAND),
        "max_x": np.flatnonzero(hi[0] - d[:, 0] < BAND),
    }
    # DiffPD: f_min_x(t) = [cos(-pi/4 + t/30 pi/2), sin(...), 0] t/30 on the min-x vertices, its
    # opposite on the max-x ones, at step t (armadillo_3d.py).
    t = np.arange(steps, dtype=float)
    angle = -np.pi / 4 + t / FRAMES * np.pi / 2
    f_min_x = np.stack([np.cos(angle), np.sin(angle), np.zeros(steps)], axis=1)
    f_min_x *= (t / FRAMES)[:, None]
    return {
        "rest": x, "tets": tets, "volumes": volumes, "mean_volume": mean_volume,
        "vertex_mass": mean_volume * DENSITY,
        "youngs": YOUNGS * mean_volume / volumes, "sets": sets,
        "force_min_x": from_diffpd_vectors(f_min_x), "force_max_x": -from_diffpd_vectors(f_min_x),
    }


def write_scene(out_dir, steps, solver=None):
    """Writes scene.json and its tables into out_dir; returns the scene's path and the problem."""
    p = problem(steps)
    os.makedirs(out_dir, exist_ok=True)
    n = len(p["rest"])
    np.save(os.path.join(out_dir, "vertex_masses.npy"), np.full(n, p["vertex_mass"]))
    np.save(os.path.join(out_dir, "youngs.npy"), p["youngs"])
    forces = []
    for side in ("min_x", "max_x"):
        count = len(p["sets"][side])
        table = np.repeat(p["force_" + side][:, None, :], count, axis=1)  # steps x vertices x 3
        np.save(os.path.join(out_dir, f"force_{side}.npy"), table)
        forces.append({"type": "steps", "region": {"indices": p["sets"][side].tolist()},
                       "file": f"force_{side}.npy"})
    scene = {
        "name": "diffpd_armadillo",
        "description": "DiffPD's Armadillo showcase (python/example/armadillo_3d.py): twisted by "
                       "point forces on its sides, feet fixed, top held vertically, no gravity; "
                       "DiffPD's mean-volume weighting and equal vertex masses copied "
                       "(benchmarks/peers/diffpd_armadillo_scene.py).",
        "dim": 3,
        "gravity": [0, 0, 0],
        "time": {"dt": DT, "duration": DT * steps},
        "bodies": [{
            "name": "armadillo",
            "mesh": {"file": os.path.relpath(MESH + ".node", out_dir), "scale": SCALE},
            "material": {"model": "neo_hookean", "youngs": YOUNGS, "poisson": POISSON,
                         "fields": {"youngs": "youngs.npy"}},
            "density": DENSITY,
            "vertex_masses": "vertex_masses.npy",
        }],
        "boundary": [
            {"name": "feet", "region": {"indices": p["sets"]["bottom"].tolist()}},
            {"name": "top", "region": {"indices": p["sets"]["top"].tolist()}, "axes": ["y"]},
        ],
        "forces": forces,
        "solver": solver or {},
        "output": {"every": steps},
    }
    path = os.path.join(out_dir, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f, indent=1)
    return path, p


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    path, p = write_scene(args.out_dir, args.steps)
    print(f"{path}: {len(p['rest'])} vertices, {len(p['tets'])} tets, "
          f"{len(p['sets']['bottom'])} fixed, {len(p['sets']['top'])} held in z, "
          f"{len(p['sets']['min_x'])} + {len(p['sets']['max_x'])} loaded")


if __name__ == "__main__":
    main()
