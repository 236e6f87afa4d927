"""The neural material from Python: fitted by torch.optim through softgrad.torch.simulate to
recordings of a Neo-Hookean bar (pulled by two ramps of end forces), it recovers the
Neo-Hookean uniaxial stress within 5% over the stretches the recordings reach; its file
round-trips."""

import json
import os
import sys

import numpy as np
import pytest
import scipy.optimize
import torch

import softgrad
import softgrad.torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STEPS = 25
YOUNGS, POISSON = 1e5, 0.3


def bar(material):
    """A 10 cm bar clamped at x = 0, loaded by a per-step force on its free end."""
    return softgrad.load({
        "dim": 3,
        "time": {"dt": 0.02, "duration": STEPS * 0.02},
        "gravity": [0, 0, 0],
        "damping": {"alpha": 20.0},
        "bodies": [{"name": "bar", "material": material, "density": 1000,
                    "mesh": {"generator": "box", "resolution": [4, 1, 1],
                             "size": [0.1, 0.02, 0.02]}}],
        "boundary": [{"name": "clamp",
                      "region": {"plane": {"point": [0, 0, 0], "normal": [-1, 0, 0]}}}],
        "forces": [{"type": "steps",
                    "region": {"plane": {"point": [0.1, 0, 0], "normal": [1, 0, 0]}}}],
    })


def ramp(scene, peak):
    """A rollout whose end force on each loaded vertex ramps linearly to `peak` [N] along x."""
    rollout = scene.rollout()
    forces = np.zeros_like(np.asarray(rollout.get("forces:0.force"), dtype=float))
    per_step = forces.reshape(STEPS, -1, 3)
    per_step[:, :, 0] = peak * np.linspace(1.0 / STEPS, 1.0, STEPS)[:, None]
    rollout.set("forces:0.force", forces)
    return rollout


def uniaxial_stress(scene, stretch, params=None):
    """P_11 under uniaxial stress: the lateral stretch found so that P_22 = P_33 = 0."""
    def stress(lateral):
        F = np.diag([stretch, lateral, lateral])
        return scene.material_stress("bar", F, params)
    lateral = scipy.optimize.brentq(lambda l: stress(l)[1, 1], 0.3, 1.5, xtol=1e-14)
    return stress(lateral)[0, 0]


LOADS = (3.0, 1.5)  # N per end vertex: about 1.4 and 1.2 of the length


def test_a_neural_material_fitted_to_neo_hookean_recordings_recovers_its_uniaxial_stress():
    truth = bar({"model": "neo_hookean", "youngs": YOUNGS, "poisson": POISSON})
    recordings = []
    for peak in LOADS:
        trajectory = truth.simulate(ramp(truth, peak))
        assert trajectory.converged
        recordings.append(torch.tensor(trajectory.positions))
    stretch = [r[-1, :, 0].max().item() / 0.1 for r in recordings]
    assert stretch[0] > 1.35 and stretch[1] > 1.1

    scene = bar({"model": "neural", "hidden": [4, 4], "youngs": 0.6 * YOUNGS,
                 "poisson": POISSON})
    start = scene.material("bar")
    rollouts = [ramp(scene, peak) for peak in LOADS]
    # Fitted: log youngs, split and the weights (Poisson's ratio is known here).
    log_e = torch.tensor(np.log(start["values"][0]), requires_grad=True)
    split = torch.tensor(start["values"][2], requires_grad=True)
    weights = torch.tensor(start["values"][3:], requires_grad=True)
    optimiser = torch.optim.LBFGS([log_e, split, weights], lr=1.0, max_iter=100,
                                  line_search_fn="strong_wolfe", tolerance_grad=1e-12,
                                  tolerance_change=1e-14)

    def loss():
        optimiser.zero_grad()
        params = {"youngs": log_e.exp(), "split": split, "elastic:bar.weights": weights}
        total = 0.0
        for rollout, recorded in zip(rollouts, recordings):
            x, _ = softgrad.torch.simulate(scene, rollout, params)
            total = total + ((x - recorded) ** 2).sum() / 1e-8
        total.backward()
        return total

    first = loss().item()
    optimiser.step(loss)
    final = loss().item()
    assert final < 1e-3 * first, (first, final)

    fitted = np.concatenate([[log_e.exp().item(), POISSON, split.item()],
                             weights.detach().numpy()])
    for s in np.linspace(1.05, 1.4, 8):  # what the recordings reach (at 1.0 the stress is 0)
        expected = uniaxial_stress(truth, s)
        got = uniaxial_stress(scene, s, fitted)
        assert abs(got - expected) <= 0.05 * abs(expected), (s, got, expected)


def test_a_neural_material_file_round_trips_and_loads_in_a_scene(tmp_path):
    scene = bar({"model": "neural", "hidden": [3], "youngs": 2e5, "poisson": 0.4})
    material = scene.material("bar")
    assert material["model"] == "neural" and material["hidden"] == [3]
    assert [g[0] for g in material["groups"]] == ["youngs", "poisson", "split", "weights"]
    params = material["values"].copy()
    params[3:] += np.linspace(-0.5, 0.5, params.size - 3)
    path = tmp_path / "material.json"
    scene.write_material("bar", str(path), params)
    on_file = json.loads(path.read_text())
    assert on_file["hidden"] == [3] and on_file["weights"] == list(params[3:])
    again = bar({"model": "neural", "network": str(path)})
    np.testing.assert_array_equal(again.material("bar")["values"], params)
    F = np.diag([1.3, 0.9, 0.95])
    np.testing.assert_array_equal(again.material_stress("bar", F), scene.material_stress("bar", F, params))
    # The scene's keys override the file's.
    stiffer = bar({"model": "neural", "network": str(path), "youngs": 4e5})
    assert stiffer.material("bar")["values"][0] == 4e5


def test_bad_neural_materials_are_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="'network' goes with model \"neural\""):
        bar({"model": "neo_hookean", "network": "x.json"})
    with pytest.raises(ValueError, match="network.*cannot open"):
        bar({"model": "neural", "network": str(tmp_path / "missing.json")})
    with pytest.raises(ValueError, match="1 to 64 are allowed"):
        bar({"model": "neural", "hidden": [65]})
    # The scene's keys change the file's values: the result is checked as a file is.
    with pytest.raises(ValueError, match="the neural material stiffens"):
        bar({"model": "neural", "hidden": [1], "weights[0]": 1.0, "weights[1]": 1.0,
             "weights[2]": 1.0, "weights[3]": -2.0, "weights[4]": 1e9})
    scene = bar({"model": "neo_hookean"})
    with pytest.raises(ValueError, match="not a neural material"):
        scene.write_material("bar", str(tmp_path / "m.json"))
    with pytest.raises(ValueError, match="no body 'beam'"):
        scene.material("beam")
    with pytest.raises(ValueError, match="inverted"):
        scene.material_stress("bar", np.diag([1.0, 1.0, -1.0]))


PLUGIN = os.environ.get("SOFTGRAD_TEST_PLUGIN", "")


@pytest.mark.skipif(not os.path.isfile(PLUGIN), reason="SOFTGRAD_TEST_PLUGIN (ctest sets it)")
def test_the_learned_material_showcase_runs_to_its_end_at_ci_size(tmp_path):
    """benchmarks/neural_material.py --quick: the Yeoh truth's recordings, three fits, the
    held-out errors and the stress curves, written as the full run writes them."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import neural_material
    out = tmp_path / "neural_material.json"
    neural_material.main(["--quick", "--plugin", PLUGIN, "--out", str(out)])
    report = json.loads(out.read_text())
    assert set(report["models"]) == {"neo_hookean", "mooney_rivlin", "neural"}
    for model in report["models"].values():
        assert set(model["rms_m"]) == set(neural_material.LOADINGS)
        assert all(np.isfinite(e) and e > 0 for e in model["rms_m"].values())
        assert model["loss_history"] and len(model["stress"]["uniaxial"]) == 19
    # Large deformations (the pulled tip moves 3 cm or more), each fit within a centimetre.
    assert report["tip_displacement_m"]["pull"][0] > 0.03
    for model in report["models"].values():
        assert max(model["rms_m"].values()) < 1e-2


LEARNED = os.path.join(ROOT, "scenes", "data", "learned_yeoh.json")


@pytest.mark.parametrize("name, steps", [("cantilever", None), ("colliding_beams", None),
                                         ("armadillo", 5)])
def test_the_learned_material_runs_the_shipped_kinds_of_motion(name, steps):
    """The material learned by benchmarks/neural_material.py (a Yeoh truth) in every body of a
    shipped scene, at the scene's own youngs and poisson: a swinging cantilever, beams in
    contact, the armadillo's 10k-tet mesh. Every Newton step converges (so no element inverts:
    the line search rejects inverted states)."""
    with open(os.path.join(ROOT, "scenes", name + ".json")) as f:
        scene = json.load(f)
    for body in scene["bodies"]:
        old = body["material"]
        body["material"] = {"model": "neural", "network": LEARNED, "youngs": old["youngs"],
                            "poisson": old["poisson"]}
        if "file" in body["mesh"]:
            body["mesh"]["file"] = os.path.join(ROOT, "scenes", body["mesh"]["file"])
    loaded = softgrad.load(scene)
    trajectory = loaded.simulate(loaded.rollout(steps=steps) if steps else loaded.rollout())
    assert trajectory.converged
    assert trajectory.steps == (steps or loaded.steps)
    assert loaded.material(scene["bodies"][0]["name"])["model"] == "neural"


@pytest.mark.skipif(not os.path.isfile(PLUGIN), reason="SOFTGRAD_TEST_PLUGIN (ctest sets it)")
def test_the_learned_material_scene_ends_where_the_yeoh_truth_does():
    """scenes/learned_material.json to its end, against the same scene in the Yeoh solid the
    material was learned from: under this oblique load (never trained on) the bar comes to rest
    within a millimetre of the truth, after moving centimetres."""
    softgrad.load_plugin(PLUGIN)
    with open(os.path.join(ROOT, "scenes", "learned_material.json")) as f:
        description = json.load(f)
    learned = softgrad.load(os.path.join(ROOT, "scenes", "learned_material.json"))
    description["bodies"][0]["material"] = {"model": "yeoh", "c1": 1.5e4, "c2": 2.0e4,
                                            "c3": 1.5e4, "kappa": 3e5}
    truth = softgrad.load(description)
    x = learned.simulate(learned.rollout())
    x_truth = truth.simulate(truth.rollout())
    assert x.converged and x_truth.converged
    moved = np.linalg.norm(x_truth.positions[-1] - x_truth.positions[0], axis=1).max()
    error = np.linalg.norm(x.positions[-1] - x_truth.positions[-1], axis=1).max()
    assert moved > 0.02
    assert error < 1e-3, (error, moved)
