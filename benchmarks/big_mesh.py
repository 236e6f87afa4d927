#!/usr/bin/python3
"""big_mesh: the linear solvers on big meshes, forward and backward, one thread. The peer
benchmark's beam (0.8 x 0.2 x 0.2 m, stable Neo-Hookean, E = 1e5 Pa, nu = 0.3, clamped, under
gravity, dt = 0.01 s) at 98,304 and 331,776 tets, with the multigrid solver ("amg", hypre's
BoomerAMG as CG's preconditioner), Jacobi CG ("pcg") and CHOLMOD (at 98k tets only: at 332k it
takes 24 s a step).

For each: `softgrad run` (s/step after the first, the first step's extra time and the set-up
before it, CG iterations and Newton iterations per step) and `softgrad grad` (forward and
backward seconds, peak memory). Writes JSON for scripts/readme_tables.py.

    /usr/bin/python3 benchmarks/big_mesh.py [--exe build/softgrad] [--steps 10]
        [--out benchmarks/results/big_mesh.json]

About 8 minutes on the 2-core machine.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))

from beam_problem import scene  # noqa: E402  (the peer benchmark's beam)
from machine_info import write_result  # noqa: E402

CASES = [((64, 16, 16), ["amg", "pcg", "cholmod"]), ((96, 24, 24), ["amg", "pcg"])]


def softgrad(exe, command, scene_file, out, steps, linear):
    args = [exe, command, scene_file, "--out", out, "--threads", "1", "--steps", str(steps),
            "--solver", linear, "--quiet"]
    result = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{result.stderr}")
    path = os.path.join(out, "summary.json") if command == "run" else out
    with open(path) as f:
        return json.load(f)


def measure(exe, cells, linear, steps, work):
    scene_file = os.path.join(work, f"beam_{linear}.json")
    with open(scene_file, "w") as f:
        json.dump(scene(cells, steps, linear), f)
    run = softgrad(exe, "run", scene_file, os.path.join(work, "run"), steps, linear)
    grad = softgrad(exe, "grad", scene_file, os.path.join(work, "grad.json"), steps, linear)
    walls = run["wall_time_s"]
    later = sum(walls[1:]) / (len(walls) - 1)
    adjoint = grad["adjoint"]
    one_time = run["setup_time_s"] + max(0.0, walls[0] - later)
    return {
        "solver": linear,
        "tets": run["n_elems"],
        "dofs": run["n_dofs"],
        "steps": steps,
        "status": run["status"],
        "forward_s_per_step": later,
        "first_step_extra_s": max(0.0, walls[0] - later),
        "setup_s": run["setup_time_s"],
        "one_time_fraction": one_time / (run["setup_time_s"] + sum(walls)),
        "newton_per_step": run["mean_newton_iterations"],
        "cg_per_step": sum(run["linear_iterations"]) / steps,
        "grad_forward_s": adjoint["forward_seconds"],
        "backward_s_per_step": adjoint["backward_seconds"] / steps,
        "adjoint_cg": adjoint["linear_iterations"],
        "peak_memory_mb": adjoint["peak_rss_bytes"] / 1e6,
        "loss": grad["loss"],
        "dloss_dyoungs": grad["parameters"][0]["gradient"][0],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exe", default=os.path.join(ROOT, "build", "softgrad"))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "big_mesh.json"))
    parser.add_argument("--quick", action="store_true", help="a 10k-tet beam only (smoke test)")
    args = parser.parse_args()
    cases = [((26, 8, 8), ["amg", "pcg"])] if args.quick else CASES
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for cells, solvers in cases:
            for linear in solvers:
                row = measure(args.exe, cells, linear, args.steps, work)
                rows.append(row)
                print(f"{row['tets']:>8} tets {linear:8} forward {row['forward_s_per_step']:.3f} "
                      f"s/step (first +{row['first_step_extra_s']:.2f} s, set-up "
                      f"{row['setup_s']:.2f} s: {100 * row['one_time_fraction']:.1f}%), "
                      f"backward {row['backward_s_per_step']:.3f} s/step, CG/step "
                      f"{row['cg_per_step']:.0f}, peak {row['peak_memory_mb']:.0f} MB",
                      flush=True)
    for size in sorted({r["tets"] for r in rows}):
        amg = next(r for r in rows if r["tets"] == size and r["solver"] == "amg")
        for r in rows:
            if r["tets"] == size:
                r["forward_speedup_of_amg"] = r["forward_s_per_step"] / amg["forward_s_per_step"]
                r["backward_speedup_of_amg"] = r["backward_s_per_step"] / amg["backward_s_per_step"]
    write_result(args.out, {"benchmark": "big_mesh", "threads": 1, "rows": rows}, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
