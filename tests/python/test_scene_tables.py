"""Scene values from array files (.npy or text): per-vertex masses, per-element material fields,
per-step force tables."""

import os

import numpy as np
import pytest

import softgrad
from scenes import box_3d, modified


def free_box(steps=5):
    """box_3d without its clamp or gravity: only what the test puts on it moves it."""
    scene = modified(box_3d(steps), boundary=[])
    scene["gravity"] = [0, 0, 0]
    return scene


def load(scene, folder):
    return softgrad.load(scene, origin=os.path.join(folder, "scene.json"))


def test_vertex_masses_and_a_force_table_move_the_centre_of_mass_as_momentum_says(tmp_path):
    # Backward Euler conserves momentum under internal forces: sum_v m_v (v_n+1 - v_n) is dt times
    # the step's total external force, whatever the elasticity does, so the centre of mass with
    # the file's masses follows the forces exactly.
    steps, dt = 5, 0.01
    base = load(free_box(steps), tmp_path)
    n = base.n_vertices
    rng = np.random.default_rng(3)
    masses = base.masses * rng.uniform(0.5, 2.0, n)
    np.save(tmp_path / "masses.npy", masses)
    forces = rng.normal(0.0, 0.05, (steps, n, 3))
    np.savetxt(tmp_path / "forces.csv", forces.reshape(steps, -1), delimiter=",")
    scene = free_box(steps)
    scene["bodies"][0]["vertex_masses"] = "masses.npy"
    scene["forces"] = [{"type": "steps", "region": {"box": {"min": [-1, -1, -1],
                                                            "max": [1, 1, 1]}},
                        "file": "forces.csv"}]
    s = load(scene, tmp_path)
    assert np.array_equal(s.masses, masses)
    x = s.simulate(s.rollout()).positions
    M = masses.sum()
    com = (masses[:, None] * x).sum(axis=1) / M
    momentum = np.zeros(3)
    expected = [com[0]]
    for k in range(steps):
        momentum = momentum + dt * forces[k].sum(axis=0)
        expected.append(expected[-1] + dt * momentum / M)
    np.testing.assert_allclose(com, np.array(expected), rtol=0, atol=1e-12)
    # Lumped masses would put the centre of mass elsewhere: the file's masses are the ones used.
    lumped = (base.masses[:, None] * x[-1]).sum(axis=0) / base.masses.sum()
    assert np.abs(lumped - com[-1]).max() > 1e-6


def test_a_one_step_force_table_applies_to_every_step(tmp_path):
    scene = free_box(4)
    force = np.zeros((1, 1, 3))
    force[0, 0] = [0.0, 0.0, 0.3]
    np.save(tmp_path / "one.npy", force)
    scene["forces"] = [{"type": "steps", "region": {"indices": [0]}, "file": "one.npy"}]
    with_file = load(scene, tmp_path)
    scene["forces"] = [{"type": "steps", "region": {"indices": [0]}, "force": [0, 0, 0.3]}]
    with_force = load(scene, tmp_path)
    a = with_file.simulate(with_file.rollout()).positions
    b = with_force.simulate(with_force.rollout()).positions
    assert np.array_equal(a, b)


def test_material_fields_replace_the_scalar_values(tmp_path):
    scene = box_3d(4)
    s = load(scene, tmp_path)
    m = s.n_elements
    np.save(tmp_path / "youngs.npy", np.full(m, 5e4))
    np.savetxt(tmp_path / "stiff.txt", np.full(m, 1e5))
    same = modified(scene)
    same["bodies"][0]["material"]["fields"] = {"youngs": "youngs.npy"}
    stiff = modified(scene)
    stiff["bodies"][0]["material"]["fields"] = {"youngs": "stiff.txt"}
    stiff_scalar = modified(scene)
    stiff_scalar["bodies"][0]["material"]["youngs"] = 1e5
    x = {name: (lambda t: t.simulate(t.rollout()).positions)(load(d, tmp_path))
         for name, d in [("scalar", scene), ("same", same), ("stiff", stiff),
                         ("stiff_scalar", stiff_scalar)]}
    assert np.array_equal(x["same"], x["scalar"])
    assert np.array_equal(x["stiff"], x["stiff_scalar"])
    assert not np.array_equal(x["stiff"], x["scalar"])


def test_a_mapped_material_takes_youngs_and_poisson_fields(tmp_path):
    # Mooney-Rivlin's own keys are c10, c01, kappa: youngs and poisson fields are mapped to them
    # element by element, as the scalar keys are.
    scene = box_3d(4)
    scene["bodies"][0]["material"] = {"model": "mooney_rivlin", "youngs": 8e4, "poisson": 0.4}
    m = load(scene, tmp_path).n_elements
    np.save(tmp_path / "youngs.npy", np.full(m, 8e4))
    np.save(tmp_path / "poisson.npy", np.full(m, 0.4))
    fields = modified(scene)
    fields["bodies"][0]["material"] = {"model": "mooney_rivlin",
                                       "fields": {"youngs": "youngs.npy",
                                                  "poisson": "poisson.npy"}}
    a, b = load(scene, tmp_path), load(fields, tmp_path)
    assert np.array_equal(a.simulate(a.rollout()).positions, b.simulate(b.rollout()).positions)


def test_a_stiffer_half_sags_less(tmp_path):
    # The field is per element in mesh order: a beam whose clamped half is 100x stiffer sags
    # less than the uniformly soft one and more than the uniformly stiff one.
    scene = box_3d(10)
    scene["bodies"][0]["mesh"]["resolution"] = [8, 2, 2]
    s = load(scene, tmp_path)
    X, elements = s.rest_positions, s.elements
    centre_x = X[elements].mean(axis=1)[:, 0]
    youngs = np.where(centre_x < 0.1, 5e6, 5e4)
    np.save(tmp_path / "half.npy", youngs)
    tip = np.argmax(X[:, 0])
    sag = {}
    for name, field in [("soft", None), ("half", "half.npy")]:
        d = box_3d(10)
        d["bodies"][0]["mesh"]["resolution"] = [8, 2, 2]
        if field:
            d["bodies"][0]["material"]["fields"] = {"youngs": field}
        t = load(d, tmp_path)
        sag[name] = -t.simulate(t.rollout()).positions[-1, tip, 1] + X[tip, 1]
    assert 0.0 < sag["half"] < 0.5 * sag["soft"]


@pytest.mark.parametrize("case, message", [
    ("count", "expected 12 values, the file holds 3"),
    ("nan", "line 2, column 1: 'nan' is not a finite number"),
    ("mass", "vertex 1's mass -1"),
    ("missing", "no such file"),
    ("fortran", "Fortran order"),
    ("poisson", "element 0: material 'neo_hookean' parameter 'poisson' = 0.7"),
    ("mapped", "element 0: youngs 100000 Pa and poisson 0.7 are outside"),
    ("mixed", "give either youngs and poisson or the parameters of 'mooney_rivlin'"),
    ("key", "'density' is not a numeric key of material 'neo_hookean'"),
    ("both", "give 'force' or 'file', not both"),
    ("point", "'file' does not apply to type 'point'"),
    ("steps", "expected 12 values (4 steps x 3 dofs of the region) or one step's 3"),
])
def test_bad_tables_are_refused_naming_the_key_and_the_file(tmp_path, case, message):
    scene = box_3d(4)
    body = scene["bodies"][0]
    n = load(scene, tmp_path).n_vertices
    np.save(tmp_path / "short.npy", np.ones(3))
    (tmp_path / "nan.csv").write_text("1, 2\nnan, 4\n")
    masses = np.ones(n)
    masses[1] = -1
    np.save(tmp_path / "negative.npy", masses)
    np.save(tmp_path / "fortran.npy", np.asfortranarray(np.ones((n, 2))))
    np.save(tmp_path / "poisson.npy", np.full(2 * 6, 0.7))
    np.save(tmp_path / "five.npy", np.ones(5))
    region = {"indices": [0]}
    if case == "count":
        body["material"]["fields"] = {"youngs": "short.npy"}
    elif case == "nan":
        body["vertex_masses"] = "nan.csv"
    elif case == "mass":
        body["vertex_masses"] = "negative.npy"
    elif case == "missing":
        body["vertex_masses"] = "absent.npy"
    elif case == "fortran":
        body["vertex_masses"] = "fortran.npy"
    elif case == "poisson":
        body["material"]["fields"] = {"poisson": "poisson.npy"}
    elif case in ("mapped", "mixed"):
        body["material"] = {"model": "mooney_rivlin", "fields": {"poisson": "poisson.npy"}}
        if case == "mixed":
            body["material"]["c10"] = 1e4
    elif case == "key":
        body["material"]["fields"] = {"density": "short.npy"}
    elif case == "both":
        scene["forces"] = [{"type": "steps", "region": region, "force": [0, 0, 1],
                            "file": "short.npy"}]
    elif case == "point":
        scene["forces"] = [{"type": "point", "region": region, "force": [0, 0, 1],
                            "file": "short.npy"}]
    elif case == "steps":
        scene["forces"] = [{"type": "steps", "region": region, "file": "five.npy"}]
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load(scene, tmp_path)
