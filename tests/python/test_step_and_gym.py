"""softgrad.torch.Stepper (one implicit step, differentiable in state and action) against
central differences and against whole rollouts; the Gymnasium-style locomotion environments:
API, spaces, autoreset, and a batch equal to environments stepped one by one."""

import json
import os
import sys

import numpy as np
import pytest
import torch

import softgrad
import softgrad.gym
import softgrad.torch as sgt
from scenes import box_3d

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIPED = os.path.join(ROOT, "scenes", "biped_2d.json")
f64 = torch.float64


def test_steps_with_a_constant_action_reproduce_the_rollout_with_those_activations():
    scene = softgrad.load(BIPED)
    stepper = sgt.Stepper(scene)
    m = stepper.action_size
    assert m == scene.n_muscles > 0
    action = torch.linspace(-0.5, 0.5, m, dtype=f64)
    x, v = stepper.initial_state()
    for n in range(8):
        x, v = stepper(x, v, action, t=n * scene.dt)
    rollout = scene.rollout(steps=8)
    rollout.clear_controller()
    per_step = rollout.get("muscles.activation").reshape(-1, m)
    per_step[:] = action.numpy()
    rollout.set("muscles.activation", per_step)
    traj = scene.simulate(rollout)
    assert np.allclose(x.numpy(), traj.positions[-1], rtol=0, atol=1e-12)
    assert np.allclose(v.numpy(), traj.velocities[-1], rtol=0, atol=1e-9)
    assert np.abs(traj.positions[-1] - traj.positions[0]).max() > 1e-4  # the muscles act


def biped(**solver):
    with open(BIPED) as f:
        scene = json.load(f)
    scene.setdefault("solver", {}).update(solver)
    return softgrad.load(scene, origin=BIPED)


def test_gradcheck_of_three_steps_of_the_biped_on_the_ground():
    # The feet rest at y = dhat, where lagged friction switches on: C1 there, not C2, so
    # differences straddling it err by O(eps). Pressed 0.3 mm into the contact band instead.
    scene = biped(newton_tolerance=1e-12)
    stepper = sgt.Stepper(scene)
    x0, v0 = stepper.initial_state()
    x0 = x0.clone()
    x0[:, 1] -= 3e-4

    def rollout(x, v, a):
        for n in range(3):
            x, v = stepper(x, v, a * (n + 1) / 3, t=n * scene.dt)
        return x, v

    a = torch.linspace(-0.4, 0.4, stepper.action_size, dtype=f64).requires_grad_()
    # The stiff penalty ground curves the map sharply: eps = 1e-7 keeps the differences'
    # truncation error (O(eps^2): 6e-6 at 1e-6, 6e-8 at 1e-7) below the tolerance.
    assert torch.autograd.gradcheck(rollout, (x0.requires_grad_(), v0.clone().requires_grad_(), a),
                                    eps=1e-7, atol=1e-6, rtol=1e-4)


def test_gradcheck_of_a_3d_step_without_action():
    scene = softgrad.load(box_3d())
    stepper = sgt.Stepper(scene, control=None)
    x0, v0 = stepper.initial_state()
    v0 = v0.clone()
    v0[:, 1] = 0.1
    assert torch.autograd.gradcheck(lambda x, v: stepper(x, v), (x0.clone().requires_grad_(),
                                                                 v0.requires_grad_()),
                                    eps=1e-6, atol=1e-6, rtol=1e-4)


def test_a_stepper_refuses_what_it_cannot_apply():
    scene = softgrad.load(BIPED)
    with pytest.raises(ValueError, match="no parameter 'muscle.act'"):
        sgt.Stepper(scene, control="muscle.act")
    stepper = sgt.Stepper(scene)
    x, v = stepper.initial_state()
    with pytest.raises(ValueError, match=f"expected an action of {stepper.action_size} values"):
        stepper(x, v, torch.zeros(3, dtype=f64))
    with pytest.raises(ValueError, match="no parameter 'muscles.activation'"):
        sgt.Stepper(softgrad.load(box_3d()))
    with pytest.raises(ValueError, match="give action_size"):
        sgt.Stepper(softgrad.load(box_3d()), control="kinematic")


def test_the_environment_follows_gymnasium_s_api():
    env = softgrad.gym.LocomotionEnv(BIPED, episode_steps=6)
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape and isinstance(info, dict)
    assert env.action_space.shape == (env.scene.n_muscles,)
    total, steps = 0.0, 0
    while True:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert obs.shape == env.observation_space.shape and np.isfinite(obs).all()
        total += reward
        steps += 1
        if terminated or truncated:
            break
    assert steps == 6 and truncated and not terminated and np.isfinite(total)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(env.action_space.shape))
    with pytest.raises(ValueError, match="expected an action of shape"):
        env.reset()
        env.step(np.zeros(3))
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    assert image.std() > 0  # something is drawn
    with pytest.raises(ValueError, match="not a locomotion scene"):
        softgrad.gym.LocomotionEnv(softgrad.load(box_3d()))


def test_threads_sharing_one_environment_take_turns_and_never_crash():
    # The C++ side runs without the GIL; several threads stepping one environment crashed the
    # interpreter. Now they take turns (the batch's mutex): every step returns finite values,
    # and the episode ends as one thread alone would end it, after episode_steps steps in all.
    import threading

    T = 40
    env = softgrad.gym.LocomotionEnv(BIPED, episode_steps=T)
    env.reset(seed=0)
    results, errors = [], []

    def stepper():
        try:
            for _ in range(T):
                obs, reward, terminated, truncated, _ = env.step(np.zeros(env.action_space.shape))
                results.append((np.isfinite(obs).all() and np.isfinite(reward), truncated))
        except (RuntimeError, ValueError) as e:  # the episode ended in another thread
            errors.append(str(e))

    threads = [threading.Thread(target=stepper) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == T and all(finite for finite, _ in results)
    assert sum(truncated for _, truncated in results) == 1
    assert len(errors) in (3, 4) and all("reset()" in e for e in errors)


def test_a_vector_env_equals_its_environments_stepped_one_by_one_and_autoresets():
    n, T = 3, 4
    rng = np.random.default_rng(5)
    actions = rng.normal(size=(T + 2, n, softgrad.load(BIPED).n_muscles))
    venv = softgrad.gym.VectorLocomotionEnv(BIPED, n, episode_steps=T, threads=2)
    obs, _ = venv.reset()
    batch = []
    for k in range(T + 2):
        batch.append(venv.step(actions[k]))
    # Steps 0..T-1 run the episodes; step T-1 truncates them; step T restarts them (reward 0,
    # the first observation), step T+1 is the new episode's first step.
    assert batch[T - 1][3].all() and not batch[T - 1][2].any()
    assert (batch[T][1] == 0).all() and np.array_equal(batch[T][0], obs)
    for i in range(n):
        env = softgrad.gym.LocomotionEnv(BIPED, episode_steps=T)
        env.reset()
        for k in range(T):
            o, r, _, _, _ = env.step(actions[k, i])
            assert np.array_equal(o, batch[k][0][i]) and r == batch[k][1][i]
        env.reset()
        o, r, _, _, _ = env.step(actions[T + 1, i])
        assert np.array_equal(o, batch[T + 1][0][i]) and r == batch[T + 1][1][i]
    assert venv.simulated_steps == n * (T + 1)


def test_the_bptt_example_runs_and_improves_its_reward(tmp_path):
    # A CI-sized run of examples/python/biped_bptt.py: 6 iterations of 30-step episodes.
    sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
    import biped_bptt

    rows, replayed = biped_bptt.main(["--iterations", "6", "--steps", "30", "--out",
                                      str(tmp_path)])
    assert len(rows) == 6 and all(np.isfinite(r[2]) for r in rows)
    assert max(r[2] for r in rows[1:]) > rows[0][2]  # the gradient steps raise the reward
    # The best episode's activations replayed by softgrad's own rollout give its reward.
    assert replayed == pytest.approx(max(r[2] for r in rows), rel=1e-9, abs=1e-12)
    assert (tmp_path / "curve.csv").read_text().startswith("iteration,simulated_steps,reward")
    assert (tmp_path / "softgrad_train" / "loss.csv").is_file()  # softgrad.train's curve beside
    for figure in ("curve.png", "gait.png"):
        assert (tmp_path / figure).stat().st_size > 1000


def test_the_overhead_benchmark_runs_and_writes_its_json(tmp_path):
    import subprocess

    out = tmp_path / "python_overhead.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "python_overhead.py"),
                    "--rounds", "1", "--tries", "1", "--steps", "10", "--out", str(out)],
                   check=True, capture_output=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    runs = json.loads(out.read_text())["runs"]
    assert [r["what"] for r in runs] == ["closed loop", "layer call"]
    assert all(r["ratio"] > 0 for r in runs)
