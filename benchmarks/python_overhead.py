"""What driving softgrad from Python costs over the same work in C++, measured in one run:

  closed loop: a quadruped_2d episode stepped from Python (softgrad.gym.LocomotionEnv.step,
      one call per step, a NumPy MLP choosing each action from the observation) against the
      same environment running the same actions in C++ (one call for the episode);
  layer call:  softgrad.torch.simulate forward and backward (cantilever_gradient, Young's
      modulus) against simulate and the adjoint with the same cotangents timed in C++.

Each round times every variant `--tries` times in turn and keeps each one's fastest (a shared
machine's slow spells fall on all alike); the ratio is the median of the rounds' ratios.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_overhead.py \\
        [--rounds 9] [--tries 5] [--out benchmarks/results/python_overhead.json]
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch

import softgrad
import softgrad.gym
import softgrad.torch as sgt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine_info import cpu_name, machine, write_result  # noqa: E402


def closed_loop(rounds, tries, steps):
    scene = softgrad.load(os.path.join(ROOT, "scenes", "quadruped_2d.json"))
    env = softgrad.gym.LocomotionEnv(scene, episode_steps=steps)
    rng = np.random.default_rng(1)
    o, m = env.observation_space.shape[0], env.action_space.shape[0]
    W1, W2 = rng.normal(0, 1 / np.sqrt(o), (32, o)), rng.normal(0, 0.1, (m, 32))

    def python_episode():
        obs, _ = env.reset()
        actions, total = [], 0.0
        for _ in range(steps):
            a = W2 @ np.tanh(W1 @ obs)
            actions.append(a)
            obs, reward, terminated, truncated, _ = env.step(a)
            total += reward
        return np.array(actions), total

    batch = env._vector._batch
    python_s, cpp_s, ratios = [], [], []
    for _ in range(rounds):
        py, cpp = [], []
        for _ in range(tries):
            t0 = time.perf_counter()
            actions, total = python_episode()
            t1 = time.perf_counter()
            rewards = batch.run_actions(0, actions)
            t2 = time.perf_counter()
            assert abs(rewards.sum() - total) <= 1e-12 * max(1.0, abs(total)), "not the same episode"
            py.append((t1 - t0) / steps)
            cpp.append((t2 - t1) / steps)
        python_s.append(min(py))
        cpp_s.append(min(cpp))
        ratios.append(python_s[-1] / cpp_s[-1])
    return {"what": "closed loop", "scene": scene.name, "vertices": scene.n_vertices,
            "steps": steps, "python_seconds_per_step": min(python_s),
            "cpp_seconds_per_step": min(cpp_s), "ratio": statistics.median(ratios),
            "target": 1.3}


def layer_call(rounds, tries):
    scene = softgrad.load(os.path.join(ROOT, "scenes", "cantilever_gradient.json"))
    rollout = scene.rollout()
    E0 = rollout.get("youngs")[0]
    python_s, cpp_s, ratios = [], [], []
    for _ in range(rounds):
        py = []
        for _ in range(tries):
            t0 = time.perf_counter()
            E = torch.tensor(E0, dtype=torch.float64, requires_grad=True)
            x, v = sgt.simulate(scene, rollout, {"youngs": E})
            (x.sum() + v.sum()).backward()
            py.append(time.perf_counter() - t0)
        cpp = min(scene._time_simulate_and_gradient(rollout, ["youngs"], tries))
        python_s.append(min(py))
        cpp_s.append(cpp)
        ratios.append(python_s[-1] / cpp)
    return {"what": "layer call", "scene": scene.name, "vertices": scene.n_vertices,
            "steps": scene.steps, "python_seconds_per_call": min(python_s),
            "cpp_seconds_per_call": min(cpp_s), "ratio": statistics.median(ratios),
            "target": 1.05}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--tries", type=int, default=5)
    p.add_argument("--steps", type=int, default=100, help="closed-loop episode length")
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results",
                                                 "python_overhead.json"))
    args = p.parse_args()
    torch.set_num_threads(1)
    results = {"cpu": cpu_name(), "machine": machine(), "rounds": args.rounds, "tries": args.tries,
               "runs": [closed_loop(args.rounds, args.tries, args.steps),
                        layer_call(args.rounds, args.tries)]}
    for r in results["runs"]:
        print(f"{r['what']}: Python / C++ = {r['ratio']:.3f} (target <= {r['target']})")
    write_result(args.out, results, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
