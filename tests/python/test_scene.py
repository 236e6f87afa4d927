"""softgrad's Python API over the C++ objects: loading, parameters, rollouts, single steps,
gradients (adjoint and tangent) against central differences, and the errors of bad input."""

import json
import os
import warnings

import numpy as np
import pytest

import softgrad
from scenes import beam_2d, box_3d, modified

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_scene_from_a_file_and_from_its_dict_simulate_alike():
    path = os.path.join(ROOT, "scenes", "cantilever_gradient.json")
    with open(path) as f:
        as_dict = json.load(f)
    a, b = softgrad.load(path), softgrad.load(as_dict, origin=path)
    assert (a.name, a.dim, a.n_vertices, a.n_elements) == ("cantilever_gradient", 3, 36, 48)
    assert a.rest_positions.shape == (36, 3)
    ta, tb = a.simulate(a.rollout(steps=3)), b.simulate(b.rollout(steps=3))
    assert ta.positions.shape == (4, 36, 3) and ta.velocities.shape == (4, 36, 3)
    assert np.array_equal(ta.positions, tb.positions)
    assert ta.converged and len(ta.newton) == 3 and ta.newton[0]["converged"]
    # CHOLMOD (the default) factorises at least once a step, at most once an iteration.
    assert all(1 <= r["factorizations"] <= r["iterations"] for r in ta.newton)
    # The clamped end stays at rest; the free end moves.
    x = ta.positions[-1]
    clamped = np.isclose(a.rest_positions[:, 0], 0.0)
    assert np.array_equal(x[clamped], a.rest_positions[clamped])
    assert (np.abs(x[~clamped] - a.rest_positions[~clamped]).max(axis=1) > 1e-4).all()


def test_parameters_by_name_get_set_and_describe():
    scene = softgrad.load(beam_2d())
    names = scene.parameters()
    assert "youngs" in " ".join(names) and "x0" in names and "v0" in names
    rollout = scene.rollout()
    assert rollout.get("youngs")[0] == 2e4
    rollout.set("youngs", 3e4)
    assert rollout.get("youngs")[0] == 3e4
    field = rollout.get("youngs[]")
    assert field.shape == (scene.n_elements,) and (field == 3e4).all()
    rollout.set("youngs[]", np.linspace(1e4, 2e4, scene.n_elements))
    assert rollout.get("youngs[]")[-1] == 2e4
    copy = rollout.copy()
    copy.set("youngs", 5e4)
    assert rollout.get("youngs[]")[-1] == 2e4  # copies do not share values
    # The scene (its model) is not changed by any rollout.
    assert scene.rollout().get("youngs")[0] == 2e4


def test_bad_arrays_and_values_name_the_expected_shape():
    scene = softgrad.load(beam_2d())
    rollout = scene.rollout()
    n = scene.n_vertices
    with pytest.raises(ValueError, match=rf"x0: expected shape \({n}, 2\) \({2 * n} values\), got an array of shape \(3, 2\)"):
        rollout.x0 = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"v0: expected .* got an array of dtype complex128"):
        rollout.v0 = np.zeros((n, 2), dtype=complex)
    with pytest.raises(ValueError, match=r"v0: expected .* got an array of dtype <U4"):
        rollout.v0 = "fast"
    with pytest.raises(ValueError, match="youngs: value 0 is NaN"):
        rollout.set("youngs", float("nan"))
    with pytest.raises(ValueError, match="youngs: expected 1 values, got an array of shape"):
        rollout.set("youngs", [1.0, 2.0])
    with pytest.raises(ValueError, match="yungs"):
        rollout.get("yungs")
    with pytest.raises(ValueError):
        rollout.set("youngs", -1.0)  # outside the material's range
    with pytest.raises(ValueError, match="steps must be >= 1"):
        scene.rollout(steps=0)


def test_bad_scenes_are_value_errors_naming_the_key():
    with pytest.raises(ValueError, match="/time/dt"):
        softgrad.load(modified(beam_2d(), time={"dt": -1, "duration": 1}))
    with pytest.raises(ValueError, match="scene file not found"):
        softgrad.load("no/such/scene.json")
    with pytest.raises(ValueError, match="unknown key 'bodys'"):
        softgrad.load({"dim": 2, "bodys": []})
    with pytest.raises(TypeError):
        softgrad.load(3)


def test_a_newton_failure_is_a_convergence_error_with_step_and_residual():
    failing = modified(beam_2d(), solver={"newton_max_iterations": 1, "newton_tolerance": 1e-14})
    scene = softgrad.load(failing)
    with pytest.raises(softgrad.ConvergenceError, match="step 0") as error:
        scene.simulate(scene.rollout())
    assert error.value.step == 0
    assert np.isfinite(error.value.residual) and error.value.residual > 0
    assert isinstance(error.value, RuntimeError)


def test_single_steps_give_simulate_s_trajectory_and_rollouts_interleave():
    scene = softgrad.load(beam_2d())
    soft, stiff = scene.rollout(), scene.rollout()
    stiff.set("youngs", 8e4)
    runs = [scene.start(soft), scene.start(stiff)]
    while not runs[0].done:
        for run in runs:  # one step of each, alternately, on the scene's one simulator
            report = run.step()
            assert report["converged"]
    assert runs[0].t == pytest.approx(scene.steps * scene.dt)
    for run, rollout in zip(runs, (soft, stiff)):
        assert np.array_equal(run.trajectory().positions, scene.simulate(rollout).positions)
        # The same trajectory on every call (a second call returned an empty one).
        assert np.array_equal(run.trajectory().positions, scene.simulate(rollout).positions)
    with pytest.raises(ValueError, match="every step is taken"):
        runs[0].step()


def test_a_rollout_or_trajectory_runs_only_in_its_own_scene():
    beam, box = softgrad.load(beam_2d()), softgrad.load(box_3d())
    other_beam = softgrad.load(beam_2d())  # the same file, another Scene: other materials may be set
    for scene in (box, other_beam):
        with pytest.raises(ValueError, match="made by another Scene"):
            scene.simulate(beam.rollout())
        with pytest.raises(ValueError, match="made by another Scene"):
            scene.start(beam.rollout())
        with pytest.raises(ValueError, match="made by another Scene"):
            scene.tangent(beam.rollout(), ["v0"])
    with pytest.raises(ValueError, match="simulated by another Scene"):
        other_beam.gradient(beam.simulate(beam.rollout()), ["v0"])


def central_difference(f, theta, h):
    return (f(theta + h) - f(theta - h)) / (2 * h)


def test_adjoint_and_tangent_gradients_match_central_differences():
    scene = softgrad.load(beam_2d())
    rollout = scene.rollout()
    traj = scene.simulate(rollout)
    _, grad = scene.gradient(traj, ["youngs"])
    _, field = scene.gradient(traj, ["youngs[]"])
    _, tangent = scene.tangent(rollout, ["youngs"])
    assert tangent[0] == pytest.approx(grad[0], rel=1e-8)

    def loss_at(E):
        r = rollout.copy()
        r.set("youngs", E)
        return scene.gradient(scene.simulate(r), ["youngs"])[0]

    fd = central_difference(loss_at, 2e4, 1.0)
    assert grad[0] == pytest.approx(fd, rel=1e-6)
    assert field.shape == (scene.n_elements,)
    assert field.sum() == pytest.approx(grad[0], rel=1e-10)  # the field sums to the tied value


def test_the_adjoint_reports_its_solves_and_warns_when_the_gradient_is_not_exact():
    scene = softgrad.load(modified(beam_2d(), solver={"linear": "pcg",
                                                      "newton_tolerance": 1e-12}))
    traj = scene.simulate(scene.rollout())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a trustworthy gradient warns nothing
        loss, grad, report = scene.gradient(traj, ["youngs"], report=True)
    plain_loss, plain_grad = scene.gradient(traj, ["youngs"])
    assert plain_loss == loss and np.array_equal(plain_grad, grad)  # the report changes nothing
    assert report["trustworthy"] and report["steps"] == scene.steps
    assert report["backend"] == "pcg(jacobi)" and report["linear_iterations"] > scene.steps
    assert 0 < report["worst_relative_residual"] <= 1e-10  # the adjoint's CG tolerance
    assert report["warnings"] == [] and report["unsolved_steps"] == []

    # One Newton iteration per step, going on after each failure: no step converges, and the
    # gradient says so rather than passing for exact.
    sloppy = beam_2d()
    sloppy["solver"].update(newton_max_iterations=1, on_failure="continue")
    scene = softgrad.load(sloppy)
    traj = scene.simulate(scene.rollout())
    assert not traj.converged
    with pytest.warns(softgrad.GradientWarning, match="6 forward steps did not converge"):
        _, _, report = scene.gradient(traj, ["youngs"], report=True)
    assert not report["trustworthy"]
    assert report["unconverged_steps"] == list(range(6))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a filter that makes the warning an error raises it
        with pytest.raises(softgrad.GradientWarning):
            scene.gradient(traj, ["youngs"])


def test_a_python_loss_and_its_cotangents_give_the_same_gradient():
    scene = softgrad.load(beam_2d(loss=False))
    rollout = scene.rollout()
    weights = np.random.default_rng(3).normal(size=(scene.steps + 1, scene.n_vertices, 2))

    def loss(x, v):  # a function of the whole trajectory with its derivatives
        value = 0.5 * np.sum(weights * x**2) + np.sum(v[-1] ** 2)
        return value, weights * x, np.concatenate([np.zeros_like(v[:-1]), 2 * v[-1:]])

    traj = scene.simulate(rollout)
    value, grad = scene.gradient(traj, ["v0"], loss=loss)
    assert value == pytest.approx(loss(traj.positions, traj.velocities)[0], rel=1e-15)
    _, by_tangent = scene.tangent(rollout, ["v0"], loss=loss)
    assert np.allclose(grad, by_tangent, rtol=1e-7, atol=1e-12)
    # Against central differences on two initial velocities of the free end.
    for dof in (2 * 9, 2 * 9 + 1):
        def at(vi):
            r = rollout.copy()
            v0 = r.v0.reshape(-1)
            v0[dof] = vi
            r.v0 = v0
            t = scene.simulate(r)
            return loss(t.positions, t.velocities)[0]

        assert grad[dof] == pytest.approx(central_difference(at, 0.0, 1e-4), rel=1e-6)
    with pytest.raises(ValueError, match="the loss function must return"):
        scene.gradient(traj, ["v0"], loss=lambda x, v: 1.0)
    # A NaN loss is an error, not replaced by a number computed from the cotangents.
    with pytest.raises(ValueError, match="returned the value nan, not a finite number"):
        scene.gradient(traj, ["v0"], loss=lambda x, v: (float("nan"),) + loss(x, v)[1:])
    with pytest.raises(ValueError, match=r"loss: d/dpositions: expected shape \(7, 10, 2\)"):
        scene.gradient(traj, ["v0"], loss=(np.zeros((3, 3)), None))
    with pytest.raises(ValueError, match="the scene declares no \"loss\""):
        scene.gradient(traj, ["v0"])


def test_materials_and_scene_keys_are_listed():
    names = [m["name"] for m in softgrad.materials()]
    assert "neo_hookean" in names
    neo = next(m for m in softgrad.materials() if m["name"] == "neo_hookean")
    assert {"youngs", "poisson"} <= {p["key"] for p in neo["params"]}
    assert "/solver" in softgrad.scene_reference()


def test_a_3d_rollout_returns_steps_by_vertices_by_dim():
    scene = softgrad.load(box_3d())
    traj = scene.simulate(scene.rollout())
    assert traj.positions.shape == (scene.steps + 1, scene.n_vertices, 3)
    assert traj.steps == scene.steps


def test_the_least_squares_example_matches_softgrad_sysid(tmp_path):
    # scipy.optimize.least_squares on softgrad's Jacobians against the CLI's Ceres fit.
    import subprocess
    import sys

    sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
    import sysid_least_squares

    theta, stddev = sysid_least_squares.main([])
    for value, sd, truth in zip(theta, stddev, (6000.0, 4.0)):
        assert 0 < sd and abs(value - truth) < 3 * sd
    exe = os.environ.get("SOFTGRAD_EXE", os.path.join(ROOT, "build", "softgrad"))
    if not os.path.exists(exe):
        pytest.skip("no softgrad program to compare with")
    subprocess.run([exe, "sysid", os.path.join(ROOT, "scenes", "cantilever_sysid.json"), "--data",
                    os.path.join(ROOT, "scenes", "data", "cantilever_noisy.csv"), "--out",
                    str(tmp_path), "--quiet"], check=True)
    with open(tmp_path / "report.json") as f:
        report = json.load(f)
    for i, p in enumerate(report["parameters"]):
        assert theta[i] == pytest.approx(p["estimate"], rel=1e-5)
        assert stddev[i] == pytest.approx(p["stddev"], rel=1e-3)


def test_cotangents_give_the_same_gradient_by_tangent_and_adjoint():
    scene = softgrad.load(beam_2d(loss=False))
    rollout = scene.rollout()
    rng = np.random.default_rng(8)
    shape = (scene.steps + 1, scene.n_vertices, 2)
    cotangents = (rng.normal(size=shape), rng.normal(size=shape))
    value, grad = scene.gradient(scene.simulate(rollout), ["youngs", "v0"], loss=cotangents)
    by_tangent_value, by_tangent = scene.tangent(rollout, ["youngs", "v0"], loss=cotangents)
    assert by_tangent_value == pytest.approx(value, rel=1e-12)
    assert np.allclose(by_tangent, grad, rtol=1e-7, atol=1e-12 * np.abs(grad).max())


def test_build_info_names_the_version_and_the_compiler():
    info = softgrad.build_info()
    assert info["version"] == softgrad.__version__
    assert info["compiler"].split()[0] in ("gcc", "clang")
    assert [int(p) for p in info["eigen"].split(".")] >= [3, 4, 0]
    assert info["openmp"] >= 201511  # OpenMP 4.5
    assert isinstance(info["optimised"], bool)
