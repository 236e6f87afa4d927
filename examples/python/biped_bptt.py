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

writes curve.csv (iteration, simulated steps, reward), curve.png, and gait.png: the best
episode's activations replayed open loop by softgrad's own rollout (its reward must equal the
one the training saw).
"""

import argparse
import csv
import math
import os
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
        # Running mean and variance of the observations (constants to the gradient), used when
        # normalising: every input then has unit spread, whatever its scale.
        self.normalise, self.clip = False, 0.0
        self.count, self.mean = 0, torch.zeros(sizes[0], dtype=f64)
        self.m2 = torch.zeros(sizes[0], dtype=f64)

    def observe(self, n, x, v):
        phase = 2 * math.pi * n * self.dt / self.period
        clock = torch.tensor([math.sin(phase), math.cos(phase)], dtype=f64)
        return torch.cat([((x - x.mean(0)) / self.length_scale).reshape(-1),
                          ((v - v.mean(0)) / self.velocity_scale).reshape(-1), clock])

    def update_statistics(self, observations):
        """Welford's update of the running mean and variance by one episode's observations."""
        for o in observations:
            self.count += 1
            d = o - self.mean
            self.mean += d / self.count
            self.m2 += d * (o - self.mean)

    def forward(self, n, x, v, u_prev):
        o = self.observe(n, x, v)
        self.seen.append(o.detach())
        if self.normalise and self.count > 1:
            o = (o - self.mean) / torch.sqrt(self.m2 / (self.count - 1) + 1e-8)
            if self.clip > 0:
                o = torch.clamp(o, -self.clip, self.clip)
        y = self.net(o)
        z = torch.atanh(u_prev / self.a_max) + self.delta * torch.tanh(y)
        return self.a_max * torch.tanh(z)


def episode(scene, stepper, policy, steps, mass, direction, truncate=0):
    """The reward of one episode (a differentiable torch scalar) and its activations. With
    `truncate` = K > 0 the gradient flows back at most K steps: the state is cut from the graph
    every K steps, and the reward is the sum of the windows' progress (the same value)."""
    policy.seen = []
    x, v = stepper.initial_state()
    u = torch.zeros(scene.n_muscles, dtype=f64)
    centre = lambda x: (mass @ x) / mass.sum()
    start, reward = centre(x), 0.0
    actions = []
    for n in range(steps):
        if truncate > 0 and n > 0 and n % truncate == 0:
            reward = reward + (centre(x) - start) @ direction
            x, v, u = x.detach(), v.detach(), u.detach()
            start = centre(x)
        u = policy(n, x, v, u)
        actions.append(u.detach().numpy().copy())
        x, v = stepper(x, v, u, t=n * scene.dt)
    return reward + (centre(x) - start) @ direction, np.array(actions)


def replay(scene, actions, mass, direction):
    """The activations played open loop by softgrad's own rollout (no torch, no Stepper): its
    trajectory and reward, an independent check of the reward the training saw."""
    rollout = scene.rollout(steps=len(actions))
    rollout.clear_controller()
    per_step = np.zeros_like(rollout.get("muscles.activation")).reshape(-1, actions.shape[1])
    per_step[:len(actions)] = actions  # the group spans the scene's duration; the rest is unused
    rollout.set("muscles.activation", per_step)
    trajectory = scene.simulate(rollout)
    x = trajectory.positions
    m = mass.numpy()
    return x, float(((m @ x[-1]) - (m @ x[0])) / m.sum() @ direction.numpy())


def train_curve_of_softgrad_train(scene_path, iterations, out):
    """`softgrad train`'s curve on the same scene (softgrad.train runs what the command runs):
    (simulated steps, reward) per iteration."""
    folder = os.path.join(out, "softgrad_train")
    softgrad.train(scene_path, out=folder, iterations=iterations, quiet=True)
    with open(os.path.join(folder, "loss.csv")) as f:
        rows = list(csv.DictReader(f))
    return [(int(r["simulated_steps"]), float(r["reward"])) for r in rows]


def parse_arguments(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scene", default=os.path.join(root, "scenes", "biped_2d.json"))
    p.add_argument("--iterations", type=int, default=88,
                   help="default: 8,800 steps, a tenth of what PPO took to its best")
    p.add_argument("--steps", type=int, default=100, help="episode length")
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--clip", type=float, default=1.0, help="gradient norm clip")
    p.add_argument("--schedule", choices=["none", "cosine"], default="none",
                   help="learning-rate schedule")
    p.add_argument("--truncate", type=int, default=0,
                   help="truncated BPTT: gradients flow back at most this many steps (0: all)")
    p.add_argument("--normalise", action=argparse.BooleanOptionalAction, default=True,
                   help="normalise observations by their running mean and deviation")
    p.add_argument("--observation-clip", type=float, default=0.0,
                   help="clip normalised observations to +-this (0: no clipping)")
    p.add_argument("--output-scale", type=float, default=1.0,
                   help="scales the output layer's initial weights (small: a calm start)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--train-curve", action=argparse.BooleanOptionalAction, default=True,
                   help="also run softgrad.train (the open-loop gait) for its curve")
    p.add_argument("--ppo-best", type=float, default=None,
                   help="PPO's best reward [m] from softgrad compare, drawn as a line")
    p.add_argument("--out", default="out/biped_bptt")
    return p.parse_args(argv)


def main(argv=None):
    """Trains and draws; returns the curve [(iteration, simulated steps, reward)] and the best
    episode's reward as softgrad's rollout replays it."""
    args = parse_arguments(argv)
    os.makedirs(args.out, exist_ok=True)

    scene = softgrad.load(args.scene)
    stepper = sgt.Stepper(scene)
    policy = Policy(scene, args.seed)
    policy.normalise, policy.clip = args.normalise, args.observation_clip
    with torch.no_grad():
        policy.net[-1].weight.mul_(args.output_scale)
        policy.net[-1].bias.mul_(args.output_scale)
    mass = torch.from_numpy(scene.masses)
    direction = torch.from_numpy(scene.policy_options()["direction"])
    optimiser = torch.optim.Adam(policy.parameters(), lr=args.lr)
    schedule = (torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, max(args.iterations, 1))
                if args.schedule == "cosine" else None)
    rows, best, best_actions = [], -math.inf, None
    for it in range(args.iterations):
        optimiser.zero_grad()
        try:
            reward, actions = episode(scene, stepper, policy, args.steps, mass, direction,
                                      args.truncate)
        except softgrad.ConvergenceError as e:  # keep the policy, take a smaller step
            print(f"iteration {it + 1}: {e}", file=sys.stderr)
            for g in optimiser.param_groups:
                g["lr"] *= 0.5
            continue
        (-reward).backward()
        policy.update_statistics(policy.seen)
        torch.nn.utils.clip_grad_norm_(policy.parameters(), args.clip)
        optimiser.step()
        if schedule:
            schedule.step()
        if reward.item() > best:
            best, best_actions = reward.item(), actions
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
    if args.train_curve:
        train = train_curve_of_softgrad_train(args.scene, args.iterations, args.out)
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
    replayed = float("nan")
    if best_actions is not None:
        x, replayed = replay(scene, best_actions, mass, direction)
        fig, ax = plt.subplots(figsize=(6, 2.5), dpi=100)
        for k in np.linspace(0, len(x) - 1, 8).astype(int):
            ax.scatter(x[k, :, 0], x[k, :, 1], s=4, color=plt.cm.viridis(k / (len(x) - 1)))
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_aspect("equal")
        ax.set_title(f"best episode, replayed by softgrad: {replayed:.3f} m")
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "gait.png"))
    print(f"reward {first:.4f} -> best {best:.4f} m over {len(rows)} iterations "
          f"(replayed open loop by softgrad: {replayed:.4f} m); "
          f"{args.out}/curve.csv, curve.png, gait.png")
    return rows, replayed


if __name__ == "__main__":
    main()
