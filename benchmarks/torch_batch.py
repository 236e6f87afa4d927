"""Rollouts per second through softgrad.torch.simulate, forward and backward, for a batch of B
rollouts in one call (batch=B: side by side on the batch runner, each rollout's element loops on
one thread) against the same B rollouts as B separate calls (each on OpenMP's `threads`
threads), for B = 1, 2, 8, 32 on 1 and 2 threads.

The scenes are the locomotion creatures biped_2d (29 vertices) and quadruped_3d (82 vertices)
with their controllers dropped: each rollout gets its own per-step muscle activations (a
tensor), and the loss is the mean forward position at the end, so the backward runs one adjoint
per rollout. Each thread count runs in a process of its own (OMP_NUM_THREADS
is read when OpenMP loads); in it, each round times both ways `--tries` times in turn and keeps
each one's fastest, and the ratio is the median of the rounds' ratios. The batch's results are
checked to equal the separate calls bit for bit.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/torch_batch.py \\
        [--rounds 7] [--tries 3] [--steps 20] [--out benchmarks/results/torch_batch.json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine_info import cpu_name, machine, write_result  # noqa: E402

BATCHES = (1, 2, 8, 32)
SCENES = ("biped_2d", "quadruped_3d")


def measure(threads, rounds, tries, steps, batches, scenes):
    """This process's measurements of every scene (OMP_NUM_THREADS already set)."""
    return [run for name in scenes
            for run in measure_scene(name, threads, rounds, tries, steps, batches)]


def measure_scene(name, threads, rounds, tries, steps, batches):
    """This process's measurements on `threads` threads (OMP_NUM_THREADS already set)."""
    import torch

    import softgrad
    import softgrad.torch as sgt

    torch.set_num_threads(1)
    scene = softgrad.load(os.path.join(ROOT, "scenes", name + ".json"))
    rollout = scene.rollout(steps=steps)
    rollout.clear_controller()
    size = rollout.get("muscles.activation").size
    runs = []
    for B in batches:
        gen = torch.Generator().manual_seed(B)
        # A gait of its own per rollout: each muscle's activation a sine of the step with a
        # random phase (a rough random signal stalls quadruped_3d's Newton solves in contact).
        phase = 2 * torch.pi * torch.rand(B, 1, size // steps, generator=gen, dtype=torch.float64)
        step = torch.arange(steps, dtype=torch.float64).reshape(1, steps, 1)
        activations = (0.3 * torch.sin(2 * torch.pi * step / steps + phase)).reshape(B, size)

        def serial():
            x_all, g_all = [], []
            for b in range(B):
                a = activations[b].clone().requires_grad_()
                x, _ = sgt.simulate(scene, rollout, {"muscles.activation": a})
                x[-1, :, 0].mean().backward()
                x_all.append(x)
                g_all.append(a.grad)
            return torch.stack(x_all), torch.stack(g_all)

        def batched():
            a = activations.clone().requires_grad_()
            x, _ = sgt.simulate(scene, rollout, {"muscles.activation": a}, batch=B,
                                threads=threads)
            x[:, -1, :, 0].mean(dim=1).sum().backward()
            return x, a.grad

        xs, gs = serial()
        xb, gb = batched()
        equal = bool(torch.equal(xs, xb) and torch.equal(gs, gb))
        serial_s, batch_s, ratios = [], [], []
        for _ in range(rounds):
            s_t, b_t = [], []
            for _ in range(tries):
                t0 = time.perf_counter()
                serial()
                t1 = time.perf_counter()
                batched()
                t2 = time.perf_counter()
                s_t.append(t1 - t0)
                b_t.append(t2 - t1)
            serial_s.append(min(s_t))
            batch_s.append(min(b_t))
            ratios.append(serial_s[-1] / batch_s[-1])
        runs.append({"scene": scene.name, "vertices": scene.n_vertices,
                     "muscles": scene.n_muscles, "threads": threads, "batch": B, "steps": steps,
                     "serial_rollouts_per_second": B / min(serial_s),
                     "batch_rollouts_per_second": B / min(batch_s),
                     "ratio_to_serial": statistics.median(ratios),
                     "bitwise_equal_to_serial": equal,
                     "load_average_1min": os.getloadavg()[0]})
        print(f"{scene.name}, {threads} thread(s), B = {B:2d}: {runs[-1]['batch_rollouts_per_second']:7.1f} "
              f"rollouts/s batched, {runs[-1]['serial_rollouts_per_second']:7.1f} serial, "
              f"ratio {runs[-1]['ratio_to_serial']:.2f}, bit for bit: {equal}", flush=True)
    return runs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--tries", type=int, default=3)
    p.add_argument("--steps", type=int, default=20, help="steps per rollout")
    p.add_argument("--batches", default=",".join(map(str, BATCHES)))
    p.add_argument("--threads", default="1,2", help="thread counts, each in its own process")
    p.add_argument("--scenes", default=",".join(SCENES))
    p.add_argument("--worker", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results",
                                                 "torch_batch.json"))
    args = p.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    if args.worker:
        json.dump(measure(args.worker, args.rounds, args.tries, args.steps, batches,
                          args.scenes.split(",")), sys.stdout)
        return
    results = {"benchmark": "torch_batch", "cpu": cpu_name(), "machine": machine(),
               "hardware_threads": os.cpu_count(),
               "rounds": args.rounds, "tries": args.tries, "target": {"ratio": 1.7, "batch": 8,
                                                                      "threads": 2}, "runs": []}
    for threads in [int(t) for t in args.threads.split(",")]:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", str(threads),
                              "--rounds", str(args.rounds), "--tries", str(args.tries),
                              "--steps", str(args.steps), "--batches", args.batches,
                              "--scenes", args.scenes],
                             env=env, check=True, stdout=subprocess.PIPE, text=True)
        lines = out.stdout.strip().splitlines()
        print("\n".join(lines[:-1]))
        results["runs"] += json.loads(lines[-1])
    write_result(args.out, results, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
