#!/usr/bin/python3
"""armadillo: `softgrad run scenes/armadillo.json` to its end on 2 threads (s/step, Newton
iterations, inverted elements, set-up, peak memory), and the same scene in softer materials, in
which the Armadillo cannot carry its weight, run until Newton fails (how far the head falls, when
the first element inverts). Writes JSON for scripts/readme_tables.py.

    /usr/bin/python3 benchmarks/armadillo.py [--exe build/softgrad] [--threads 2]
        [--out benchmarks/results/armadillo.json]

About 5 minutes on the 2-core machine. Frames are written every `output.every` steps in the
shipped run (as `softgrad run` does by default), and the stepping time excludes them.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENE = os.path.join(ROOT, "scenes", "armadillo.json")
sys.path.insert(0, HERE)
from machine_info import cpu_name, machine, write_result  # noqa: E402


def run(exe, scene_file, out, threads, steps=None, every=None):
    command = [exe, "run", scene_file, "--out", out, "--threads", str(threads), "--quiet"]
    if steps is not None:
        command += ["--steps", str(steps)]
    if every is not None:
        command += ["--every", str(every)]
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # largest child so far
    return summary, wall, result.returncode, peak_kb


def head_drop(scene, steps):
    """The head's fall (m) after each of `steps` steps, through the Python module."""
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import numpy as np
    import softgrad
    s = softgrad.load(scene)
    trajectory = s.simulate(s.rollout(steps=steps))
    X = np.asarray(s.rest_positions)
    top = int(np.argmax(X[:, 1]))
    return [float(X[top, 1] - x[top, 1]) for x in trajectory.positions]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exe", default=os.path.join(ROOT, "build", "softgrad"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "armadillo.json"))
    args = parser.parse_args(argv)
    with open(SCENE) as f:
        scene = json.load(f)
    scene["bodies"][0]["mesh"]["file"] = os.path.join(ROOT, "scenes",
                                                      scene["bodies"][0]["mesh"]["file"])
    result = {"benchmark": "armadillo", "command": "/usr/bin/python3 benchmarks/armadillo.py",
              "cpu": cpu_name(), "machine": machine(), "cores": os.cpu_count(),
              "threads": args.threads}
    with tempfile.TemporaryDirectory() as tmp:
        summary, wall, code, peak_kb = run(args.exe, SCENE, os.path.join(tmp, "shipped"),
                                           args.threads)
        steps = summary["steps_completed"]
        stepping = sum(summary["wall_time_s"])
        result["shipped"] = {
            "youngs_pa": scene["bodies"][0]["material"]["youngs"],
            "elements": summary["n_elems"], "dofs": summary["n_dofs"],
            "status": summary["status"], "exit_code": code, "steps": steps,
            "steps_requested": summary["steps_requested"],
            "max_inverted_elements": summary["max_inverted_elements"],
            "newton_per_step": summary["mean_newton_iterations"],
            "factorizations_per_step": sum(summary["factorizations"]) / max(steps, 1),
            "stepping_s_per_step": stepping / max(steps, 1),
            "wall_s_per_step_with_frames": wall / max(steps, 1),
            "setup_s": summary["setup_time_s"], "peak_rss_mb": peak_kb / 1024.0,
            "target_s_per_step": 0.3}
        print(f"shipped: {summary['status']}, {steps} steps, "
              f"{stepping / max(steps, 1):.3f} s/step", flush=True)
        softer = []
        for youngs in (1e5, 1e6):
            variant = json.loads(json.dumps(scene))
            variant["bodies"][0]["material"]["youngs"] = youngs
            path = os.path.join(tmp, f"armadillo_{youngs:g}.json")
            with open(path, "w") as f:
                json.dump(variant, f)
            # Until Newton fails, or 140 steps (the 1 MPa body has toppled by then).
            summary, _, code, _ = run(args.exe, path, os.path.join(tmp, f"{youngs:g}"),
                                      args.threads, steps=140, every=0)
            inverted = summary["inverted_elements"]
            first = next((k + 1 for k, n in enumerate(inverted) if n > 0), None)
            fall = head_drop(variant, summary["steps_completed"])
            softer.append({"youngs_pa": youngs, "status": summary["status"],
                           "failed_step": summary.get("failed_step"),
                           "steps_completed": summary["steps_completed"],
                           "first_inverted_step": first,
                           "max_inverted_elements": summary["max_inverted_elements"],
                           "head_fall_m": {str(k): fall[k] for k in (20, 44, 100, 140)
                                           if k < len(fall)},
                           "exit_code": code,
                           "largest_head_fall_m": max(fall)})
            print(f"E = {youngs:g}: {summary['status']} after {summary['steps_completed']} "
                  f"steps, head falls up to {max(fall):.2f} m", flush=True)
        result["softer"] = softer
    write_result(args.out, result)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
