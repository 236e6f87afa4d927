"""What mesh contact costs when a step's motion is far beyond its activation distance, measured
in one run: a soft beam (40 x 6 x 6 cells, 1e-3 m activation distance) thrown end-on at another
one at 2, 20, 200 and 2000 m/s, 2 steps of 5 ms, `softgrad run` with one thread. At 2 m/s the
beams meet after a few steps; at 200 m/s one step moves the beam 1 m, three times its length,
through the other one, and the contact's swept collision check once covered most of both
surfaces (68 s for the run). Each run's wall time, Newton iterations and seconds per iteration
go to the JSON, with the ratio of seconds per iteration to the 2 m/s run's. Faster throws may
end in a Newton failure (exit 2: the barrier cannot stop 1 m of overlap in one step); the cost
of trying is what is measured.

With --base-exe the same runs are made with another build's program (e.g. the last commit's,
built in a git worktree) and both are written, so before and after come from one machine and
one run:

    /usr/bin/python3 benchmarks/contact_cliffs.py [--exe build/softgrad] [--base-exe PATH] \\
        [--out benchmarks/results/contact_cliffs.json]
"""

import argparse
import json
import os
import re
import subprocess
import tempfile
import time

from machine_info import cpu_name, machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEEDS = (2.0, 20.0, 200.0, 2000.0)


def beam(name, origin):
    return {"name": name,
            "mesh": {"generator": "box", "resolution": [40, 6, 6], "size": [0.3, 0.05, 0.05],
                     "origin": origin},
            "material": {"model": "stable_neo_hookean", "youngs": 1e5, "poisson": 0.4},
            "density": 1000}


def scene(speed):
    return {"name": "throw", "dim": 3, "time": {"dt": 0.005, "duration": 0.01},
            "gravity": [0, 0, 0], "solver": {"newton_tolerance": 1e-6},
            "bodies": [beam("left", [-0.31, -0.025, -0.025]), beam("right", [0.01, -0.015, -0.02])],
            "initial": {"velocity": [speed, 0, 0],
                        "region": {"body": "left", "box": {"min": [-1, -1, -1], "max": [1, 1, 1]}}},
            "contact": {"between_bodies": True, "stiffness": 1e4, "activation_distance": 1e-3},
            "output": {"every": 0}}


def run(exe, speed, work):
    path = os.path.join(work, f"throw_{speed:g}.json")
    with open(path, "w") as f:
        json.dump(scene(speed), f)
    out = os.path.join(work, f"out_{speed:g}")
    start = time.perf_counter()
    done = subprocess.run([exe, "run", path, "--out", out, "--quiet", "--threads", "1"],
                          capture_output=True, text=True,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 2):
        raise SystemExit(f"contact_cliffs: {exe} at {speed} m/s: exit {done.returncode}: "
                         f"{done.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    iterations = sum(summary["newton_iterations"])
    failed = re.search(r"did not converge in (\d+) iterations", summary.get("message") or "")
    iterations += int(failed.group(1)) if failed else 0  # the failed step's
    return {"speed_m_per_s": speed, "wall_s": seconds, "status": summary["status"],
            "newton_iterations": iterations,
            "s_per_iteration": seconds / iterations if iterations else None}


def measure(exe):
    with tempfile.TemporaryDirectory() as work:
        runs = [run(exe, v, work) for v in SPEEDS]
    slow = runs[0]["s_per_iteration"]
    for r in runs:
        r["per_iteration_vs_2_m_per_s"] = (r["s_per_iteration"] / slow
                                           if r["s_per_iteration"] and slow else None)
    return {"exe": exe, "runs": runs}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exe", default=os.path.join(ROOT, "build", "softgrad"))
    parser.add_argument("--base-exe", help="another build's program, measured the same way")
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results",
                                                      "contact_cliffs.json"))
    args = parser.parse_args()
    result = {"benchmark": "contact_cliffs", "cpu": cpu_name(), "machine": machine(), "threads": 1,
              "this_build": measure(args.exe)}
    if args.base_exe:
        result["base_build"] = measure(args.base_exe)
    for label in ("base_build", "this_build"):
        if label in result:
            for r in result[label]["runs"]:
                print(f"{label:10} {r['speed_m_per_s']:6g} m/s: {r['wall_s']:7.2f} s, "
                      f"{r['newton_iterations']:3d} Newton iterations, {r['status']}")
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
