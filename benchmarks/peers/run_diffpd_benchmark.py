"""DiffPD against softgrad on DiffPD's own Armadillo showcase (issue 49, item 2), same machine,
same problem, one thread each, back to back.

The problem is DiffPD's python/example/armadillo_3d.py (54,855 tets; diffpd_armadillo_scene.py
writes it as a softgrad scene file, with DiffPD's discretisation copied). softgrad runs that
scene file with each of its backends (`--backends`), forward and backward; DiffPD runs its PD
(`pd_eigen`, with BFGS as in the example) at its example's tolerance and tighter ones, and its
Newton (`newton_cholesky`), through diffpd_armadillo.py on a DiffPD build made by
diffpd_build.sh (outside this tree and outside CI). The backward pass on both sides is the
example's loss: fixed random vectors (seed 42) dotted with the final positions and velocities,
differentiated by the initial state and the forces. Every final shape is compared with a tight
reference (softgrad, CHOLMOD, Newton tolerance `--reference-tolerance`).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/peers/run_diffpd_benchmark.py \\
        --diffpd /tmp/diffpd [--steps 5] [--backends cholmod,amg,pcg] \\
        [--diffpd-runs pd_eigen@1e-4,pd_eigen_pcg@1e-4:forward,pd_eigen@1e-7,newton_cholesky@1e-4] \\
        [--diffpd-timeout 1200] [--out benchmarks/results/diffpd_armadillo.json] \\
        [--resummarize benchmarks/results/diffpd_armadillo.json]

Targets (issue 49): softgrad's forward >= 10x DiffPD's PD at DiffPD's own tolerance, >= 30x at
equal accuracy, with its gradient; <= 6 Newton iterations per step; pcg and amg forward and
adjoint converge. Without --diffpd only softgrad's side runs.
"""

import os

# One thread everywhere, set before softgrad (OpenMP, CHOLMOD's BLAS) loads.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import softgrad  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import diffpd_armadillo_scene as problem_scene  # noqa: E402
from machine_info import machine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
SEED = 42  # the example's loss vectors (numpy's legacy generator, as DiffPD's env draws them)
SOLVERS = {
    "cholmod": {"linear": "cholmod"},
    "amg": {"linear": "amg"},
    "pcg": {"linear": "pcg", "preconditioner": "block_jacobi"},
}


def loss_vectors(n):
    """DiffPD's env: np.random.seed(seed), then two normal vectors of its dofs, in its axes."""
    rng = np.random.RandomState(SEED)
    return rng.normal(size=3 * n).reshape(n, 3), rng.normal(size=3 * n).reshape(n, 3)


def scene_variant(folder, solver):
    """scene.json in `folder` with `solver`; returns the loaded scene."""
    with open(os.path.join(folder, "scene.json")) as f:
        scene = json.load(f)
    scene["solver"] = solver
    return softgrad.load(scene, origin=os.path.join(folder, "scene.json"))


def run_softgrad(folder, solver, steps, gradient=True):
    """Forward (and backward) of the scene with `solver`: times, Newton counts, final state."""
    scene = scene_variant(folder, solver)
    rollout = scene.rollout(steps=steps)
    start = time.perf_counter()
    out = {"solver": solver}
    try:
        traj = scene.simulate(rollout)
    except softgrad.ConvergenceError as e:
        out.update(converged=False, error=str(e), forward_s=time.perf_counter() - start)
        return out, None
    out["forward_s"] = time.perf_counter() - start
    newton = traj.newton[1:]  # the first step has no load: its rest state is the answer
    out.update(
        converged=True, forward_s_per_step=out["forward_s"] / steps,
        newton_iterations_per_step=[n["iterations"] for n in traj.newton],
        factorizations_per_step=[n["factorizations"] for n in traj.newton],
        linear_iterations_per_step=[n["linear_iterations"] for n in traj.newton],
        direct_fallbacks_per_step=[n.get("direct_fallbacks", 0) for n in traj.newton],
        newton_iterations_mean_loaded=float(np.mean([n["iterations"] for n in newton])),
        newton_iterations_mean=float(np.mean([n["iterations"] for n in traj.newton])))
    solves = sum(n["factorizations"] for n in traj.newton)
    if solves:
        out["cg_per_hessian"] = sum(n["linear_iterations"] for n in traj.newton) / solves
    x_final = traj.positions[-1]
    if gradient:
        a, b = loss_vectors(scene.n_vertices)
        # The loss is in DiffPD's axes: q . a + v . b, q and v turned into them (the turn is
        # its own inverse and orthogonal, so the cotangents turn back the same way).
        turn = problem_scene.from_diffpd_vectors

        def loss(x, v):
            dx = np.zeros_like(x)
            dv = np.zeros_like(v)
            dx[-1], dv[-1] = turn(a), turn(b)
            q = problem_scene.to_diffpd_frame(x[-1])
            return float(np.sum(q * a) + np.sum(turn(v[-1]) * b)), dx, dv

        params = ["x0", "v0", "forces:0.force", "forces:1.force"]
        start = time.perf_counter()
        value, grad, report = scene.gradient(traj, params, loss=loss, report=True)
        out["backward_s"] = time.perf_counter() - start
        out["backward_s_per_step"] = out["backward_s"] / steps
        out["loss"] = value
        out["gradient_norm"] = float(np.linalg.norm(grad))
        out["adjoint"] = {k: report[k] for k in ("trustworthy", "linear_iterations",
                                                 "worst_relative_residual", "factorizations",
                                                 "direct_fallback_steps", "unsolved_steps")
                          if k in report}
    return out, x_final


def run_diffpd(args, method, rel_tol, backward, work):
    """DiffPD's forward (and backward) by diffpd_armadillo.py in a child process (its own time
    limit); returns its record and final positions (DiffPD's axes) or None."""
    # A folder per run: the driver names its .npy files by method only.
    folder = os.path.join(work, f"diffpd_{method}_{rel_tol:g}")
    os.makedirs(folder, exist_ok=True)
    out_json = os.path.join(folder, "run.json")
    command = [sys.executable, os.path.join(HERE, "diffpd_armadillo.py"), "--diffpd", args.diffpd,
               "--steps", str(args.steps), "--methods", method, "--rel-tol", str(rel_tol),
               "--threads", "1", "--out", out_json] + ([] if backward else ["--no-backward"])
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.diffpd_timeout)
    except subprocess.TimeoutExpired:
        return {"method": method, "rel_tol": rel_tol, "error":
                f"did not finish in {args.diffpd_timeout} s"}, None
    if done.returncode != 0 or not os.path.exists(out_json):
        return {"method": method, "rel_tol": rel_tol, "error": done.stderr[-2000:],
                "wall_s": time.perf_counter() - start}, None
    with open(out_json) as f:
        record = json.load(f)
    entry = record["methods"][method]
    entry.update(method=method, rel_tol=rel_tol, diffpd_commit=record.get("diffpd_commit"))
    final = entry.get("final_positions_file")
    return entry, (np.load(final) if final and os.path.exists(final) else None)


def summarize(sides, diffpd, steps):
    """The targets' figures from both sides' records (softgrad's CHOLMOD against DiffPD's PD)."""
    best = sides.get("cholmod", {})
    summary = {"softgrad_newton_iterations_per_loaded_step": best.get(
        "newton_iterations_mean_loaded"), "newton_target": 6}
    own = [d for d in diffpd if d.get("method", "").startswith("pd_")
           and d.get("forward_s_per_step") and not d.get("forward_failed")]
    if own and best.get("forward_s_per_step"):
        # DiffPD's own tolerance: its faster PD backend there.
        loose = max(d["rel_tol"] for d in own)
        fastest = min((d for d in own if d["rel_tol"] == loose),
                      key=lambda d: d["forward_s_per_step"])
        summary["forward_ratio_at_diffpd_tolerance"] = (
            fastest["forward_s_per_step"] / best["forward_s_per_step"])
        summary["diffpd_own_tolerance_run"] = {"method": fastest["method"], "rel_tol": loose,
                                               "diffpd_error_m": fastest.get("final_error_m")}
        with_gradient = [d for d in own if d["rel_tol"] == loose and d.get("backward_s")
                         and not d.get("backward_failed")]
        if with_gradient and best.get("backward_s"):
            g = min(with_gradient, key=lambda d: d["forward_s_per_step"] * steps + d["backward_s"])
            summary["forward_and_backward_ratio_at_diffpd_tolerance"] = (
                (g["forward_s_per_step"] * steps + g["backward_s"])
                / (best["forward_s"] + best["backward_s"]))
            summary["backward_ratio_at_diffpd_tolerance"] = g["backward_s"] / best["backward_s"]
            summary["diffpd_gradient_run"] = g["method"]
        # Equal accuracy: DiffPD's PD runs at least as accurate as softgrad's (else its
        # tightest), against softgrad's default tolerance.
        accurate = [d for d in own if d.get("final_error_m") is not None
                    and d["final_error_m"] <= best.get("final_error_m", 0.0)]
        tight = min(accurate or own, key=lambda d: d["rel_tol"])
        summary["forward_ratio_at_equal_accuracy"] = (
            tight["forward_s_per_step"] / best["forward_s_per_step"])
        summary["equal_accuracy_run"] = {"rel_tol": tight["rel_tol"],
                                         "diffpd_error_m": tight.get("final_error_m"),
                                         "softgrad_error_m": best.get("final_error_m"),
                                         "diffpd_at_least_as_accurate": bool(accurate)}
    summary["targets"] = {"forward_at_diffpd_tolerance": 10, "forward_at_equal_accuracy": 30,
                          "newton_iterations_per_step": 6}
    return summary


def error_m(x, reference):
    return float(np.max(np.linalg.norm(x - reference, axis=1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--diffpd", help="a DiffPD build folder (diffpd_build.sh)")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--backends", default="cholmod,amg,pcg")
    parser.add_argument("--diffpd-runs", default="pd_eigen@1e-4,pd_eigen_pcg@1e-4:forward,"
                        "pd_eigen@1e-7,newton_cholesky@1e-4")
    parser.add_argument("--diffpd-timeout", type=float, default=1200.0)
    parser.add_argument("--reference-tolerance", type=float, default=1e-12)
    parser.add_argument("--work", default="/tmp/softgrad_diffpd_armadillo")
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results",
                                                      "diffpd_armadillo.json"))
    parser.add_argument("--resummarize", metavar="JSON",
                        help="recompute a result file's summary from its records and exit")
    args = parser.parse_args()
    if args.resummarize:
        with open(args.resummarize) as f:
            result = json.load(f)
        result["summary"] = summarize(result["softgrad"], result["diffpd"], result["steps"])
        with open(args.resummarize, "w") as f:
            json.dump(result, f, indent=1)
        print(json.dumps(result["summary"], indent=1))
        return
    folder = os.path.join(args.work, "scene")
    scene_file, p = problem_scene.write_scene(folder, args.steps)
    print(f"scene: {scene_file}", flush=True)

    ref_solver = {"linear": "cholmod", "newton_tolerance": args.reference_tolerance}
    ref, x_ref = run_softgrad(folder, ref_solver, args.steps, gradient=False)
    if x_ref is None:
        raise SystemExit(f"the reference did not converge: {ref['error']}")
    x_ref_diffpd = problem_scene.to_diffpd_frame(x_ref)
    print(f"reference: {ref['forward_s']:.1f} s", flush=True)

    sides = {}
    for name in args.backends.split(","):
        record, x = run_softgrad(folder, SOLVERS[name], args.steps)
        if x is not None:
            record["final_error_m"] = error_m(x, x_ref)
        sides[name] = record
        print(f"softgrad {name}: {json.dumps({k: v for k, v in record.items() if 'per_step' not in k or k.startswith(('forward', 'backward'))})}",
              flush=True)

    diffpd = []
    if args.diffpd:
        for run in args.diffpd_runs.split(","):
            method, rel_tol = run.split("@")
            backward = not rel_tol.endswith(":forward")
            entry, q = run_diffpd(args, method, float(rel_tol.split(":")[0]), backward, args.work)
            if q is not None:
                entry["final_error_m"] = error_m(q.reshape(-1, 3), x_ref_diffpd)
            diffpd.append(entry)
            print(f"diffpd {run}: {json.dumps(entry)}", flush=True)

    summary = summarize(sides, diffpd, args.steps)
    result = {
        "benchmark": "diffpd_armadillo",
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        "machine": machine(), "threads": 1, "steps": args.steps,
        "problem": {"tets": int(len(p["tets"])), "vertices": int(len(p["rest"])),
                    "fixed": int(len(p["sets"]["bottom"])), "held_in_z": int(len(p["sets"]["top"])),
                    "loaded": int(len(p["sets"]["min_x"]) + len(p["sets"]["max_x"])),
                    "dt": problem_scene.DT, "youngs": problem_scene.YOUNGS,
                    "poisson": problem_scene.POISSON, "density": problem_scene.DENSITY,
                    "mean_tet_volume_m3": p["mean_volume"],
                    "volume_spread": float(p["volumes"].max() / p["volumes"].min()),
                    "scene": "benchmarks/peers/diffpd_armadillo_scene.py"},
        "reference": {"solver": ref_solver, "forward_s": ref["forward_s"]},
        "softgrad": sides, "diffpd": diffpd, "summary": summary,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
