"""Peer benchmark (issue 15, item 1): softgrad against the seed paper's method written in
PyTorch (torch_backward_euler.py: inexact Newton-CG on Hessian-vector products and the adjoint
by CG), float64 and one thread each, on the same mesh, energy and settings: beam_problem.py's
clamped beam bending under gravity, at about 2.5k, 10k, 20k and 100k tets.

The peer runs with the settings that minimise its time at softgrad's accuracy, chosen by
peer_sweep.py (benchmarks/results/peer_sweep.json; softgrad's own inexact-Newton policy,
sides.SOFTGRAD_POLICY, if that file is absent), each overridable by a --peer-* option; the
JSON records them and where they came from.

For each size, every round runs each softgrad backend (cholmod, pcg, matfree; the adjoint uses
the simulator's backend) and then the peer, forward and backward, in turn. It reports seconds
per step (fastest round), Newton and CG iterations per step, the agreement of final positions
and dL/dyoungs between the sides and against a tight reference (softgrad cholmod, Newton
tolerance 1e-12), and the ratios PyTorch / softgrad (median over rounds) with the issue's
targets at 10k tets: softgrad forward >= 30x, backward >= 50x; matfree >= 5x. Each round also
runs benchmarks/newton_step_cost for the assembled backends: a forward step's time against one
exact-Hessian assembly and one linear solve at its start (target at 10k tets: at most 1.5x;
build it with -DSOFTGRAD_BUILD_BENCHMARKS=ON). Extra rounds run
while the size's time budget allows (at 10k tets a larger one, for three rounds). Writes JSON
and prints a table.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/peers/run_peer_benchmark.py \\
        [--sizes 2500,10000,20000,100000] [--steps 50] [--steps-at 20000=20,100000=3] \\
        [--rounds 3] [--size-budget 150] [--target-size-budget 400] \\
        [--step-cost-backends cholmod,pcg] [--out benchmarks/results/peer_pytorch.json] \\
        [--peer-sweep benchmarks/results/peer_sweep.json] [--peer-forcing ew2|sqrt|fixed] \\
        [--peer-max-forcing F] [--peer-refine-tolerance TOL|none] \\
        [--peer-adjoint-cg-tolerance TOL] [--peer-adjoint-warm-start on|off] \\
        [--peer-hvp double_backward|functorch|element_hessians] \\
        [--peer-accelerated-guess on|off] [--peer-jacobi on|off]
"""

import os

# One thread everywhere, set before softgrad (OpenMP, CHOLMOD's BLAS) and torch load.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

import softgrad  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import beam_problem  # noqa: E402
from machine_info import cpu_name, machine  # noqa: E402
import peer_report  # noqa: E402
import sides  # noqa: E402
from torch_backward_euler import PEER_HVP_MODES  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET_TETS = 10000


def parse_arguments(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="2500,10000,20000,100000", help="tets, about")
    p.add_argument("--steps", type=int, default=50, help="steps from rest at every size ...")
    p.add_argument("--steps-at", default="20000=20,100000=3",
                   help="... except these (SIZE=STEPS,...), to fit the run in ~25 min")
    p.add_argument("--backends", default="cholmod,pcg,matfree")
    p.add_argument("--rounds", type=int, default=3, help="at most, per size")
    p.add_argument("--size-budget", type=float, default=150.0,
                   help="seconds per size after which no further round starts")
    p.add_argument("--target-size-budget", type=float, default=400.0,
                   help="the same at the size the targets are judged at (10k tets): enough "
                        "for 3 rounds, whose medians the ratios take (one round's ratio moves "
                        "by 20%% with PyTorch's run-to-run spread)")
    p.add_argument("--peer-sweep", default=os.path.join(ROOT, "benchmarks", "results",
                                                       "peer_sweep.json"),
                   help="the peer's settings are this sweep's chosen ones if the file exists "
                        "('' or missing: softgrad's policy, sides.SOFTGRAD_POLICY); the options "
                        "below override single settings")
    # Absent unless given (SUPPRESS): refine tolerance None ('none') is a value.
    unset = argparse.SUPPRESS
    p.add_argument("--peer-forcing", choices=("ew2", "sqrt", "fixed"), default=unset)
    p.add_argument("--peer-max-forcing", type=float, default=unset)
    p.add_argument("--peer-refine-tolerance", type=optional_float, default=unset,
                   help="a number or 'none'")
    p.add_argument("--peer-adjoint-cg-tolerance", type=float, default=unset,
                   help="relative")
    p.add_argument("--peer-adjoint-warm-start", type=on_off, default=unset, help="on or off")
    p.add_argument("--peer-hvp", choices=PEER_HVP_MODES, default=unset)
    p.add_argument("--peer-accelerated-guess", type=on_off, default=unset, help="on or off")
    p.add_argument("--peer-jacobi", type=on_off, default=unset, help="on or off")
    p.add_argument("--newton-tolerance", type=float, default=1e-9, help="both sides")
    p.add_argument("--no-reference", action="store_true", help="skip the tight reference run")
    p.add_argument("--step-cost-backends", default="cholmod,pcg",
                   help="assembled backends newton_step_cost measures ('' for none)")
    p.add_argument("--step-cost-binary",
                   default=os.path.join(ROOT, "build", "benchmarks", "newton_step_cost"))
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results",
                                                 "peer_pytorch.json"))
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.steps_at = dict(tuple(int(v) for v in item.split("=")) for item in
                         args.steps_at.split(",") if item)
    args.backends = args.backends.split(",")
    args.step_cost_backends = [b for b in args.step_cost_backends.split(",") if b]
    args.peer_settings, args.peer_settings_source = peer_settings(args)
    if args.step_cost_backends and not os.access(args.step_cost_binary, os.X_OK):
        p.error(f"{args.step_cost_binary} is missing: build it with cmake -S . -B build "
                "-DSOFTGRAD_BUILD_BENCHMARKS=ON && cmake --build build --target "
                "newton_step_cost (or pass --step-cost-backends '')")
    return args


def optional_float(text):
    return None if text.lower() == "none" else float(text)


def on_off(text):
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError("on or off")
    return text == "on"


def peer_settings(args):
    """(settings, where they came from): the sweep's chosen settings or softgrad's policy, with
    the command line's overrides."""
    settings, source = dict(sides.SOFTGRAD_POLICY), "softgrad's policy (no sweep file)"
    if args.peer_sweep and os.path.exists(args.peer_sweep):
        with open(args.peer_sweep) as f:
            settings.update(json.load(f)["chosen"]["settings"])
        path = os.path.abspath(args.peer_sweep)
        source = f"{os.path.relpath(path, ROOT) if path.startswith(ROOT) else path}: chosen"
    overrides = {key: getattr(args, "peer_" + key) for key in sides.SOFTGRAD_POLICY
                 if hasattr(args, "peer_" + key)}
    if overrides:
        settings.update(overrides)
        source += f", overridden: {sorted(overrides)}"
    return settings, source


def one_round(args, cells, steps, mesh_scene):
    """Every softgrad backend, then the peer: {variant: result}; and the step costs of the
    assembled backends: {backend: newton_step_cost's result}."""
    out = {}
    for backend in args.backends:
        out[backend] = sides.run_softgrad(cells, steps, backend, args.newton_tolerance)
    out["pytorch"] = sides.run_peer(mesh_scene, steps, args.newton_tolerance,
                                    **args.peer_settings)
    costs = {backend: sides.run_step_cost(args.step_cost_binary, cells, steps, backend,
                                          args.newton_tolerance)
             for backend in args.step_cost_backends}
    return out, costs


def run_size(args, tets):
    cells = beam_problem.cells_for(tets)
    steps = args.steps_at.get(tets, args.steps)
    start = time.perf_counter()
    reference = None
    if not args.no_reference:
        reference = sides.run_softgrad(cells, steps, "cholmod", 1e-12)
        mesh_scene = reference.pop("scene")
    else:
        mesh_scene = softgrad.load(beam_problem.scene(cells, steps))
    rounds, cost_rounds = [], []
    while len(rounds) < args.rounds:
        round_start = time.perf_counter()
        variants, costs = one_round(args, cells, steps, mesh_scene)
        rounds.append(variants)
        cost_rounds.append(costs)
        for result in rounds[-1].values():
            result.pop("scene", None)
            result.pop("trajectory", None)
        took = time.perf_counter() - round_start
        print(f"  {tets} tets: round {len(rounds)} took {took:.0f} s", flush=True)
        budget = args.target_size_budget if tets == TARGET_TETS else args.size_budget
        if time.perf_counter() - start + took > budget:
            break
    return peer_report.size_entry(args, tets, cells, steps, mesh_scene, rounds, cost_rounds,
                                  reference, time.perf_counter() - start)


def resummarize(path):
    """Recomputes the targets' verdicts of an existing JSON (the rounds' times as they were)."""
    with open(path) as f:
        result = json.load(f)
    for entry in result["sizes"]:
        entry["backward_share"] = peer_report.backward_share(entry)
        for backend, r in entry["ratios"].items():
            for what in ("forward", "backward"):
                target = peer_report.TARGETS["matfree" if backend == "matfree"
                                             else "softgrad_" + what]
                r[what + "_target"] = target
                r[what + "_meets_target"] = r[what] >= target
    result["targets"] = dict(peer_report.TARGETS, step_cost_at_most=peer_report.STEP_COST_TARGET,
                             backward_share_at_most=peer_report.BACKWARD_SHARE_TARGET,
                             best_backend_at_100000_tets=peer_report.LARGE_TARGET)
    result["target_summary"] = peer_report.target_summary(result["sizes"],
                                                          result["targets_at_tets"])
    with open(path, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    peer_report.print_targets(result["target_summary"])


def main(argv=None):
    if argv is None and len(sys.argv) == 3 and sys.argv[1] == "--resummarize":
        resummarize(sys.argv[2])
        return
    args = parse_arguments(argv)
    sides.configure_threads()
    started = time.perf_counter()
    print(f"peer settings ({args.peer_settings_source}): {args.peer_settings}", flush=True)
    entries = []
    for tets in args.sizes:
        entries.append(run_size(args, tets))
        peer_report.print_size(entries[-1])
    result = {
        "what": "softgrad against the seed paper's method in PyTorch (issue 15, item 1)",
        "command": " ".join(["PYTHONPATH=build/python /usr/bin/python3",
                             "benchmarks/peers/run_peer_benchmark.py"] + sys.argv[1:]),
        "cpu": cpu_name(),
        "hardware_threads": os.cpu_count(),
        "threads": {"softgrad": "OMP_NUM_THREADS=1 and OPENBLAS_NUM_THREADS=1 before import "
                                "(the Python API has no threads option for simulate/gradient)",
                    "torch": torch.get_num_threads()},
        "versions": {"softgrad": softgrad.__version__, "torch": torch.__version__,
                     "python": platform.python_version()},
        "peer_settings": dict(args.peer_settings, source=args.peer_settings_source,
                              torch_compile_available=hasattr(torch, "compile")),
        "problem": peer_report.problem_description(args),
        "targets_at_tets": TARGET_TETS,
        "machine": machine(),
        "targets": dict(peer_report.TARGETS, step_cost_at_most=peer_report.STEP_COST_TARGET,
                        backward_share_at_most=peer_report.BACKWARD_SHARE_TARGET,
                        best_backend_at_100000_tets=peer_report.LARGE_TARGET),
        "target_summary": peer_report.target_summary(entries, TARGET_TETS),
        "api_gaps": peer_report.API_GAPS,
        "sizes": entries,
        "total_seconds": time.perf_counter() - started,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    peer_report.print_targets(result["target_summary"])
    print(f"wrote {args.out} ({result['total_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
