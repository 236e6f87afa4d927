#!/usr/bin/python3
"""locomotion_compare: `softgrad compare` on the shipped 2D creatures (gradients through the
simulator against PPO and OpenAI-ES on the same episodes and budget of simulated steps), one
thread each; writes every run's compare.json (without its learning curves' raw samples, which
the README does not use beyond the steps at which PPO's best is reached) and wall time.
scripts/readme_tables.py writes the README's comparison table from it.

    /usr/bin/python3 benchmarks/locomotion_compare.py [--exe build/softgrad] [--budget 100000]
        [--scenes biped_2d,quadruped_2d] [--out benchmarks/results/locomotion_compare.json]

About 11 minutes on one core of the 2-core machine (3.7 and 6.6 minutes).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from machine_info import write_result  # noqa: E402


def first_steps_reaching(curve, threshold):
    """Simulated steps at which a curve of [steps, reward] first reaches `threshold`, or None."""
    for steps, reward in curve:
        if reward is not None and reward >= threshold:
            return steps
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exe", default=os.path.join(ROOT, "build", "softgrad"))
    parser.add_argument("--budget", type=int, default=100000)
    parser.add_argument("--scenes", default="biped_2d,quadruped_2d")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "locomotion_compare.json"))
    args = parser.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.scenes.split(","):
            out = os.path.join(tmp, name)
            command = [args.exe, "compare", os.path.join(ROOT, "scenes", name + ".json"),
                       "--budget", str(args.budget), "--threads", "1", "--out", out, "--quiet"]
            start = time.perf_counter()
            subprocess.run(command, check=True)
            wall = time.perf_counter() - start
            with open(os.path.join(out, "compare.json")) as f:
                result = json.load(f)
            ppo_best = result.get("ppo_best_reward_m")
            for method in result["methods"]:
                # Steps at which this method first reaches PPO's best (PPO's own included).
                method["steps_to_ppo_best"] = (None if ppo_best is None else
                                               first_steps_reaching(method["curve"], ppo_best))
                method["curve_points"] = len(method.pop("curve"))
            result["scene_name"] = name
            result["command"] = (f"softgrad compare scenes/{name}.json --budget {args.budget} "
                                 "--threads 1")
            result["total_wall_time_s"] = wall
            runs.append(result)
            print(f"{name}: {wall:.0f} s", flush=True)
    write_result(args.out, {"benchmark": "locomotion_compare",
                            "command": "/usr/bin/python3 benchmarks/locomotion_compare.py",
                            "runs": runs})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
