#!/usr/bin/python3
"""locomotion_training: the README's locomotion training figures, measured. Runs `softgrad train`
on the 2D quadruped (40 Adam iterations) and on DiffPD's 3D quadruped (the scene's 10), one
thread each, and keeps each run's summary.json; then runs `examples/locomotion` (a sine gait
trained at dt = 0.01 s, run for 10 s at dt and with dt halved three times) and keeps the
distances it prints. scripts/readme_tables.py writes the README's sentences and dt table from
the JSON.

    /usr/bin/python3 benchmarks/locomotion_training.py [--build build]
        [--out benchmarks/results/locomotion_training.json]

About a minute on one core of the 2-core machine.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from machine_info import write_result  # noqa: E402

# (scene, Adam iterations; None: the scene's own)
TRAINING_RUNS = [("quadruped_2d", 40), ("quadruped_3d", None)]

DT_LINE = re.compile(r"10 s episode with the trained gait, dt = ([0-9.e-]+) s: ([-0-9.e]+) m")
BEST_LINE = re.compile(r"best ([0-9.e-]+) s episode: ([-0-9.e]+) m")


def train(exe, scene, iterations, tmp):
    """One `softgrad train` run; its summary.json with the command and the wall time."""
    out = os.path.join(tmp, scene)
    command = [exe, "train", os.path.join(ROOT, "scenes", scene + ".json"), "--threads", "1",
               "--out", out, "--quiet"]
    if iterations is not None:
        command += ["--iterations", str(iterations)]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    wall = time.perf_counter() - start
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    summary["command"] = (f"softgrad train scenes/{scene}.json --threads 1"
                          + ("" if iterations is None else f" --iterations {iterations}"))
    summary["total_wall_time_s"] = wall
    return summary


def dt_study(exe):
    """examples/locomotion with its defaults: the trained reward and the 10 s distances per dt."""
    start = time.perf_counter()
    run = subprocess.run([exe], check=True, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    wall = time.perf_counter() - start
    best = BEST_LINE.search(run.stdout)
    rows = [{"dt_s": float(dt), "distance_10s_m": float(d)}
            for dt, d in DT_LINE.findall(run.stdout)]
    if best is None or len(rows) < 2:
        raise SystemExit(f"examples/locomotion printed no dt study:\n{run.stdout}")
    return {"command": "build/examples/locomotion (defaults: 12 iterations, 100-step episodes, "
                       "3 refinements; OMP_NUM_THREADS=1)",
            "episode_s": float(best.group(1)), "best_reward_m": float(best.group(2)),
            "rows": rows, "wall_time_s": wall}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=os.path.join(HERE, "results",
                                                      "locomotion_training.json"))
    args = parser.parse_args(argv)
    exe = os.path.join(args.build, "softgrad")
    with tempfile.TemporaryDirectory() as tmp:
        runs = [train(exe, scene, iterations, tmp) for scene, iterations in TRAINING_RUNS]
    result = {"what": __doc__.split("\n\n")[0], "training": runs,
              "dt_study": dt_study(os.path.join(args.build, "examples", "locomotion"))}
    write_result(args.out, result)
    for r in runs:
        print(f"{r['scene']}: {r['initial_reward_m']:.4f} -> {r['best_reward_m']:.4f} m in "
              f"{r['total_iterations']} iterations, {r['simulated_steps']} steps, "
              f"{r['wall_time_s']:.1f} s")
    for row in result["dt_study"]["rows"]:
        print(f"dt {row['dt_s']}: {row['distance_10s_m']:.2f} m in 10 s")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
