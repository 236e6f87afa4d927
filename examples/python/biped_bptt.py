"""Train the 2D biped's closed-loop MLP policy in PyTorch through softgrad.torch.Stepper
(backpropagation through time with softgrad's exact step derivatives), and put its reward
curve beside `softgrad train` (the scene's open-loop gait) and PPO's best from `softgrad
compare` when given.

The policy is the baselines' class (softgrad compare, softgrad.gym): an MLP with the scene's
hidden sizes and tanh units on the observation (every vertex's position and velocity relative
to the mean, scaled, and the clock phase), whose outputs y change the activations by
u_n = a_max tanh(atanh(u_{n-1} / a_max) + delta tanh(y_n)). The reward is the centre of mass's
progress along the scene's direction over an episode [m].

    PYTHONPATH=build/python /usr/bin/python3 examples/python/biped_bptt.py --out out/biped_bptt

writes curve.csv (iteration, simulated steps, reward) and curve.png.
"""

import argparse
import csv
import math
import os
import subprocess
import sys

import numpy as np
import torch

import softgrad
import softgrad.torch as sgt

f64 = torch.float64


class Policy(torch.nn.Module):
    def __init__(self, scene, seed):
        super().__init__()
        o = scene.policy_options()
        self.a_max, self.delta, self.period = o["a_max"], o["delta"], o["period"]
        self.length_scale, self.velocity_scale = o["length_scale"], o["velocity_scale"]
        self.dt = scene.dt
        torch.manual_seed(seed)
        sizes = [2 * scene.n_vertices * scene.dim + 2] + list(o["hidden"]) + [scene.n_muscles]
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [torch.nn.Linear(a, b, dtype=f64), torch.nn.Tanh()]
        self.net = torch.nn.Sequential(*layers[:-1])  # tanh hidden units, linear outputs

    def observe(self, n, x, v):
        phase = 2 * math.pi * n * self.dt / self.period
        clock = torch.tensor([math.sin(phase), math.cos(phase)], dtype=f64)
        return torch.cat([((x - x.mean(0)) / self.length_scale).reshape(-1),
                          ((v - v.mean(0)) / self.velocity_scale).reshape(-1), clock])

    def forward(self, n, x, v, u_prev):
        y = self.net(self.observe(n, x, v))
        z = torch.atanh(u_prev / self.a_max) + self.delta * torch.tanh(y)
        return self.a_max * torch.tanh(z)


def episode(scene, stepper, policy, steps, mass, direction):
    """The reward of one episode (a differentiable torch scalar)."""
    x, v = stepper.initial_state()
    u = torch.zeros(scene.n_muscles, dtype=f64)
    start = (mass @ x) / mass.sum()
    for n in range(steps):
        u = policy(n, x, v, u)
        x, v = stepper(x, v, u, t=n * scene.dt)
    return ((mass @ x) / mass.sum() - start) @ direction


def train_curve_of_softgrad_train(softgrad_exe, scene_path, iterations, out):
    """`softgrad train`'s curve on the same scene: (simulated steps, reward) per iteration."""
    folder = os.path.join(out, "softgrad_train")
    subprocess.run([softgrad_exe, "train", scene_path, "--iterations", str(iterations),
                    "--out", folder, "--quiet"], check=True)
    with open(os.path.join(folder, "loss.csv")) as f:
        rows = list(csv.DictReader(f))
    return [(int(r["simulated_steps"]), float(r["reward"])) for r in rows]


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scene", default=os.path.join(root, "scenes", "biped_2d.json"))
    p.add_argument("--iterations", type=int, default=88,
                   help="default: 8,800 steps, a tenth of what PPO took to its best")
    p.add_argument("--steps", type=int, default=100, help="episode length")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--clip", type=float, default=1.0, help="gradient norm clip")
    p.add_argument("--schedule", choices=["none", "cosine"], default="none",
                   help="learning-rate schedule")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--softgrad", default=os.path.join(root, "build", "softgrad"),
                   help="the softgrad program, for the softgrad train curve ('' to skip)")
    p.add_argument("--ppo-best", type=float, default=None,
                   help="PPO's best reward [m] from softgrad compare, drawn as a line")
    p.add_argument("--out", default="out/biped_bptt")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    scene = softgrad.load(args.scene)
    stepper = sgt.Stepper(scene)
    policy = Policy(scene, args.seed)
    mass = torch.from_numpy(scene.masses)
    direction = torch.from_numpy(scene.policy_options()["direction"])
    optimiser = torch.optim.Adam(policy.parameters(), lr=args.lr)
    schedule = (torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, max(args.iterations, 1))
                if args.schedule == "cosine" else None)
    rows, best = [], -math.inf
    for it in range(args.iterations):
        optimiser.zero_grad()
        try:
            reward = episode(scene, stepper, policy, args.steps, mass, direction)
        except softgrad.ConvergenceError as e:  # keep the policy, take a smaller step
            print(f"iteration {it + 1}: {e}", file=sys.stderr)
            for g in optimiser.param_groups:
                g["lr"] *= 0.5
            continue
        (-reward).backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), args.clip)
        optimiser.step()
        if schedule:
            schedule.step()
        best = max(best, reward.item())
        rows.append((it + 1, (it + 1) * args.steps, reward.item()))
        print(f"iteration {it + 1}/{args.iterations}: reward {reward.item():.4f} m")
    with open(os.path.join(args.out, "curve.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["iteration", "simulated_steps", "reward"])
        w.writerows(rows)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    ax.plot([r[1] for r in rows], [r[2] for r in rows], label="MLP policy, torch BPTT (Stepper)")
    if args.softgrad and os.path.exists(args.softgrad):
        train = train_curve_of_softgrad_train(args.softgrad, args.scene, args.iterations, args.out)
        ax.plot([t[0] for t in train], [t[1] for t in train], label="softgrad train (open-loop gait)")
    if args.ppo_best is not None:
        ax.axhline(args.ppo_best, color="k", ls="--", lw=0.8, label="PPO's best (softgrad compare)")
    ax.set_xlabel("simulated steps")
    ax.set_ylabel("reward: centre-of-mass progress [m]")
    ax.set_title(f"{scene.name}: {args.steps}-step episodes")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "curve.png"))
    first = rows[0][2] if rows else float("nan")
    print(f"reward {first:.4f} -> best {best:.4f} m over {len(rows)} iterations; "
          f"{args.out}/curve.csv, {args.out}/curve.png")
    return rows


if __name__ == "__main__":
    main()
