"""The biped's closed-loop MLP policy trained by backpropagation through time
(examples/python/biped_bptt.py, softgrad.torch.Stepper) against PPO with the same policy class
(softgrad.compare, the command's own code), measured in one run:

  PPO: its best reward within `--budget` simulated steps and the steps it took to get there;
  BPTT: for each seed, the reward curve over `--iterations` episodes, the simulated steps to
      PPO's best, and the ratio of PPO's steps to those (the bar: >= 10x fewer); the best
      episode replayed open loop by softgrad's own rollout as a check of its reward.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/biped_bptt.py \\
        [--seeds 1,...,10] [--budget 100000] [--out benchmarks/results/biped_bptt.json]
"""

import argparse
import os
import sys
import time

import softgrad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
import biped_bptt  # noqa: E402  (examples/python's, found first)

sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from machine_info import write_result  # noqa: E402


def steps_to(rows, reward):
    """The simulated steps after which the curve first reaches `reward` (None: never)."""
    for _, steps, r in rows:
        if r >= reward:
            return steps
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scene", default=os.path.join(ROOT, "scenes", "biped_2d.json"))
    p.add_argument("--seeds", default="1,2,3,4,5,6,7,8,9,10")
    p.add_argument("--iterations", type=int, default=88, help="BPTT episodes per seed")
    p.add_argument("--budget", type=int, default=100000, help="PPO's simulated steps")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--work", default="out/biped_bptt_benchmark", help="the runs' own files")
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results",
                                                 "biped_bptt.json"))
    args = p.parse_args(argv)

    start = time.perf_counter()
    compare = softgrad.compare(args.scene, budget=args.budget, threads=args.threads,
                               out=os.path.join(args.work, "compare"), quiet=True)
    ppo = next(m for m in compare["methods"] if m["method"] == "PPO")
    ppo_best, ppo_steps = compare["ppo_best_reward_m"], compare["ppo_steps_to_its_best"]
    ppo_seconds = time.perf_counter() - start

    defaults = biped_bptt.parse_arguments([])
    seeds = []
    for seed in [int(s) for s in args.seeds.split(",")]:
        start = time.perf_counter()
        rows, replayed = biped_bptt.main([
            "--scene", args.scene, "--seed", str(seed), "--iterations", str(args.iterations),
            "--no-train-curve", "--ppo-best", str(ppo_best),
            "--out", os.path.join(args.work, f"seed{seed}")])
        steps = steps_to(rows, ppo_best)
        best = max(r[2] for r in rows)
        seeds.append({
            "seed": seed, "first_reward_m": rows[0][2], "best_reward_m": best,
            "final_reward_m": rows[-1][2], "replayed_reward_m": replayed,
            "simulated_steps": rows[-1][1], "steps_to_ppo_best": steps,
            "ppo_over_bptt_steps": None if steps is None else ppo_steps / steps,
            "wall_seconds": time.perf_counter() - start,
            "curve": [[r[1], r[2]] for r in rows]})
        print(f"seed {seed}: best {best:.4f} m, PPO's best after "
              f"{steps if steps is not None else 'never'} steps", file=sys.stderr)

    result = {
        "scene": os.path.basename(args.scene),
        "episode_steps": defaults.steps,
        "ppo": {"budget_steps": args.budget, "best_reward_m": ppo_best,
                "steps_to_its_best": ppo_steps, "policy": ppo["policy"],
                "wall_seconds": ppo_seconds},
        "bptt": {"iterations": args.iterations, "learning_rate": defaults.lr,
                 "schedule": defaults.schedule, "clip": defaults.clip,
                 "normalise": defaults.normalise},
        "seeds": seeds,
        "seeds_reaching_ppo_best_10x_sooner": sum(
            1 for s in seeds if s["ppo_over_bptt_steps"] is not None
            and s["ppo_over_bptt_steps"] >= 10),
    }
    write_result(args.out, result)
    print(f"PPO: {ppo_best:.4f} m after {ppo_steps} steps; BPTT reaches it 10x sooner with "
          f"{result['seeds_reaching_ppo_best_10x_sooner']} of {len(seeds)} seeds; {args.out}")
    return result


if __name__ == "__main__":
    main()
