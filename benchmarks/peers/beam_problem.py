"""The peer benchmark's problem, shared by both sides: a 0.8 x 0.2 x 0.2 m stable Neo-Hookean
beam (E = 1e5 Pa, nu = 0.3, 1000 kg/m^3) clamped at x = 0, bending under gravity from rest,
dt = 0.01 s, no damping; softgrad's box mesh (6 tets per cell). The loss is the mean over the
tip vertices (x = 0.8) of |x_tip(T)|^2 displacement from rest, written as softgrad's scene
loss (weight 2 / n_tip on w/2 |x - target|^2) and evaluated the same way for the peer.
"""

import numpy as np
import torch

from torch_backward_euler import TorchBackwardEuler

SIZE = (0.8, 0.2, 0.2)
YOUNGS, POISSON, DENSITY = 1e5, 0.3, 1000.0
GRAVITY = (0.0, -9.81, 0.0)
DT = 0.01

# Cells (nx, ny, nz) of about 2.5k, 10k, 20k and 100k tets, cells within 25% of cubic.
CELLS = {2500: (17, 5, 5), 10000: (26, 8, 8), 20000: (41, 9, 9), 100000: (64, 16, 16)}


def cells_for(tets):
    """The table's cells, or near-cubic cells (ny = nz, nx = 4 ny) of about `tets` tets."""
    if tets in CELLS:
        return CELLS[tets]
    k = max(1, round((tets / 24.0) ** (1.0 / 3.0)))
    return (max(1, round(tets / (6.0 * k * k))), k, k)


def scene(cells, steps, linear="cholmod", newton_tolerance=1e-9, cg_tolerance=None):
    """softgrad's scene dict for the beam with `cells`, `steps` steps and a linear solver."""
    n_tip = (cells[1] + 1) * (cells[2] + 1)
    solver = {"linear": linear, "newton_tolerance": newton_tolerance}
    if cg_tolerance is not None:
        solver["cg_tolerance"] = cg_tolerance
    return {
        "name": "peer_beam",
        "dim": 3,
        "time": {"dt": DT, "duration": DT * steps},
        "gravity": list(GRAVITY),
        "damping": {"alpha": 0.0, "beta": 0.0},
        "solver": solver,
        "bodies": [{"mesh": {"generator": "box", "resolution": list(cells), "size": list(SIZE)},
                    "material": {"model": "stable_neo_hookean", "youngs": YOUNGS,
                                 "poisson": POISSON},
                    "density": DENSITY}],
        "boundary": [{"name": "clamp",
                      "region": {"plane": {"point": [0, 0, 0], "normal": [-1, 0, 0]}}}],
        "loss": [{"type": "position",
                  "region": {"plane": {"point": [SIZE[0], 0, 0], "normal": [1, 0, 0]}},
                  "offset": [0, 0, 0], "weight": 2.0 / n_tip}],
        "parameters": ["youngs"],
        "output": {"every": 0, "vtu": False},
    }


def selections(X):
    """(clamped, tip) vertex indices, with softgrad's plane test (within 1e-6 L)."""
    L = np.linalg.norm(X.max(axis=0) - X.min(axis=0))
    return np.nonzero(X[:, 0] <= 1e-6 * L)[0], np.nonzero(X[:, 0] >= SIZE[0] - 1e-6 * L)[0]


def peer(sg_scene, **options):
    """The PyTorch peer on softgrad's own mesh (its rest positions and tets)."""
    X = np.asarray(sg_scene.rest_positions)
    clamped, _ = selections(X)
    return TorchBackwardEuler(X, np.asarray(sg_scene.elements), clamped, YOUNGS, POISSON,
                              DENSITY, GRAVITY, DT, **options)


def loss(X, positions):
    """(L, dL/dpositions) for positions (T + 1, n, 3): the mean squared tip displacement."""
    _, tip = selections(np.asarray(X))
    d = positions[-1, tip] - torch.as_tensor(X, dtype=positions.dtype)[tip]
    dl_dx = torch.zeros_like(positions)
    dl_dx[-1, tip] = 2.0 * d / len(tip)
    return float((d * d).sum()) / len(tip), dl_dx
