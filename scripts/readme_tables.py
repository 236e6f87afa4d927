"""Writes the documentation's benchmark tables from the benchmarks' JSON (never typed by hand).

    /usr/bin/python3 scripts/readme_tables.py          # rewrites the tables in place
    /usr/bin/python3 scripts/readme_tables.py --check  # exits 1 if a table is out of date

Each table sits between `<!-- NAME:begin ... -->` and `<!-- NAME:end -->` markers, in whichever
file holds them: README.md or any page under docs/. Every table has a generator here (TABLES),
each generator's markers must appear exactly once, and a marker without a generator is an error.
Every table names the CPU its numbers were measured on (`cpu_of`).
"""
import glob
import hashlib
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
RESULTS = os.path.join(ROOT, "benchmarks", "results")


def load(name):
    with open(os.path.join(RESULTS, name + ".json")) as f:
        return json.load(f)


# JSONs written before their benchmark recorded the CPU: the commit that wrote each, and what is
# known about its machine (the project's 2-core VMs were Intel Xeons and AMD EPYCs, alternating
# between sessions, so the date alone does not tell). Keyed by the file's SHA-1 prefix, so that a
# rerun JSON (which then carries a `cpu` field, or else is reported as unknown) never inherits a
# note about an older run.
UNRECORDED_CPU = {
    "thread_policy": ("9c76ac9b8a6f", "f1cff0a", "AMD EPYC",
                      "named in the message of commit f1cff0a, which wrote the JSON"),
    "locomotion_training": ("bc54a5c28422", "f1c95c9", "AMD EPYC",
                            "the runs of commit f1c95c9, which wrote the JSON, that record "
                            "their CPU were on an AMD EPYC"),
    "biped_bptt": ("6ece559855ba", "1ee05e9", None, None),
    "rigid_robots": ("ba03427439b3", "20af68a", None, None),
    "big_mesh": ("7bbf54d9f1ba", "3d4b1aa", None, None),
    "sysid_cantilever": ("06e8b8a79fd2", "57ac5f3", None, None),
    "locomotion_compare": ("6bbb0b6f475c", "836bbaf", None, None),
    "sysid_scenes": ("2fb769bc6d9d", "836bbaf", None, None),
    "locomotion_speed": ("3256a2c33a94", "ae77c20", None, None),
    "mesh_contact": ("18584df386d5", "dbbb5e4", None, None),
}


def cpu_of(name):
    """The CPU a benchmark's JSON was measured on, as text for the table."""
    d = load(name)
    if isinstance(d, dict):
        cpu = d.get("cpu") or (d.get("machine") or {}).get("cpu")
        if cpu:
            return f"CPU: {cpu}"
    with open(os.path.join(RESULTS, name + ".json"), "rb") as f:
        digest = hashlib.sha1(f.read()).hexdigest()
    known = UNRECORDED_CPU.get(name)
    if known and digest.startswith(known[0]):
        _, commit, cpu, why = known
        if cpu:
            return f"CPU: {cpu} (not recorded in the JSON; {why})"
        return (f"CPU: not recorded in the JSON (commit {commit}; one of the project's 2-core "
                f"Intel Xeon or AMD EPYC machines)")
    return "CPU: not recorded in the JSON"


def locomotion_speed():
    runs = load("locomotion_speed")
    rows = [f"One thread, {runs[0]['steps']:,} steps per run, {runs[0]['repeats']} runs per "
            f"invocation; {cpu_of('locomotion_speed')}.",
            "",
            "| creature | vertices | muscles | forward steps/s, fastest run | median run | "
            "Newton iterations / step | factorisations / step | backward / forward |",
            "|---|---|---|---|---|---|---|---|"]
    for r in load("locomotion_speed"):
        rows.append(f"| {r['creature']}_2d | {r['n_verts']} | {r['n_muscles']} | "
                    f"{r['forward_steps_per_second']:,.0f} | "
                    f"{r['forward_steps_per_second_median_run']:,.0f} | "
                    f"{r['newton_iterations_per_step']:.2f} | {r['factorizations_per_step']:.2f} | "
                    f"{r['backward_over_forward']:.2f} |")
    return rows


def batch_rollouts():
    b = load("batch_rollouts")
    runs = b["runs"]
    first = runs[0]
    rows = [f"{first['episodes']} episodes x {first['steps_per_episode']} steps, "
            f"{b['hardware_threads']} hardware threads ({b['cpu']}); fastest of "
            f"{b['repeats']} rounds (median in brackets), each round running every column once; "
            f"the ratio is the median of the rounds' ratios; batches equal serial bit for bit: "
            f"{'yes' if b['bitwise_equal_to_serial'] else 'NO'}.",
            "",
            "| machine | work | one by one, 1 thread | batch, 1 thread | batch, 2 threads | "
            "batch 2 threads / one by one |",
            "|---|---|---|---|---|---|"]
    for machine in ("idle", "loaded"):
        for work in ("rollouts", "rollouts + gradients"):
            cells = {}
            for r in runs:
                if r["machine"] == machine and r["work"] == work:
                    key = "serial" if r["how"].startswith("serial") else f"batch{r['threads']}"
                    cells[key] = r
            text = lambda r: (f"{r['rollout_steps_per_second']:,.0f} steps/s "
                              f"({r['rollout_steps_per_second_median_run']:,.0f})")
            label = "idle" if machine == "idle" else "one core busy"
            rows.append(f"| {label} | {work} | {text(cells['serial'])} | {text(cells['batch1'])} | "
                        f"{text(cells['batch2'])} | {cells['batch2']['ratio_to_serial']:.2f} |")
    return rows


def python_overhead():
    b = load("python_overhead")
    rows = [f"{b['cpu']}, one thread; each of {b['rounds']} rounds keeps the fastest of "
            f"{b['tries']} tries of each side; the ratio is the median of the rounds' ratios.",
            "",
            "| what | scene | Python | C++ | Python / C++ | target |",
            "|---|---|---|---|---|---|"]
    for r in b["runs"]:
        if r["what"] == "closed loop":
            what = f"closed loop, {r['steps']}-step episode (per step)"
            py, cpp = r["python_seconds_per_step"], r["cpp_seconds_per_step"]
        else:
            what = f"simulate layer, forward + backward, {r['steps']} steps (per call)"
            py, cpp = r["python_seconds_per_call"], r["cpp_seconds_per_call"]
        rows.append(f"| {what} | {r['scene']} ({r['vertices']} vertices) | {py * 1e3:.3f} ms | "
                    f"{cpp * 1e3:.3f} ms | {r['ratio']:.3f} | <= {r['target']} |")
    return rows


def torch_batch():
    b = load("torch_batch")
    rows = [f"{b['cpu']}, {b['hardware_threads']} hardware threads; each of {b['rounds']} rounds "
            f"keeps the fastest of {b['tries']} tries of each side; the ratio is the median of "
            f"the rounds' ratios; rollouts of {b['runs'][0]['steps']} steps, forward and "
            f"backward; batches equal the separate calls bit for bit: "
            f"{'yes' if all(r['bitwise_equal_to_serial'] for r in b['runs']) else 'NO'}.",
            "",
            "| scene | threads | B | B calls (rollouts/s) | one call, batch=B (rollouts/s) | "
            "ratio |",
            "|---|---|---|---|---|---|"]
    for r in b["runs"]:
        rows.append(f"| {r['scene']} ({r['vertices']} vertices) | {r['threads']} | {r['batch']} | "
                    f"{r['serial_rollouts_per_second']:,.1f} | "
                    f"{r['batch_rollouts_per_second']:,.1f} | {r['ratio_to_serial']:.2f} |")
    return rows


def biped_bptt():
    b = load("biped_bptt")
    ppo, bptt = b["ppo"], b["bptt"]
    schedule = "constant" if bptt["schedule"] == "none" else bptt["schedule"]
    rows = [f"PPO (`softgrad.compare`, {ppo['budget_steps']:,} steps, {ppo['policy']}): best "
            f"{ppo['best_reward_m']:.3f} m after {ppo['steps_to_its_best']:,} steps. BPTT: "
            f"{bptt['iterations']} episodes of {b['episode_steps']} steps per seed, Adam "
            f"(learning rate {bptt['learning_rate']:g}, {schedule}), gradient norm clipped at "
            f"{bptt['clip']:g}, observations {'normalised' if bptt['normalise'] else 'raw'}. "
            f"{b['seeds_reaching_ppo_best_10x_sooner']} of {len(b['seeds'])} seeds reach PPO's "
            f"best with at least 10x fewer simulated steps.",
            "",
            "| seed | first reward | best reward | best, replayed by softgrad's rollout | "
            "steps to PPO's best | PPO's steps / BPTT's |",
            "|---|---|---|---|---|---|"]
    for r in b["seeds"]:
        steps, ratio = r["steps_to_ppo_best"], r["ppo_over_bptt_steps"]
        reached = "not reached" if steps is None else f"{steps:,}"
        times = "-" if ratio is None else f"{ratio:.1f}x"
        rows.append(f"| {r['seed']} | {r['first_reward_m']:.3f} m | {r['best_reward_m']:.3f} m | "
                    f"{r['replayed_reward_m']:.3f} m | {reached} | {times} |")
    best = sorted(r["best_reward_m"] for r in b["seeds"])
    steps = sorted(r["steps_to_ppo_best"] for r in b["seeds"] if r["steps_to_ppo_best"] is not None)
    rows += ["", f"Spread over the {len(best)} seeds: best reward {best[0]:.3f} to {best[-1]:.3f} m "
             f"(median {median(best):.3f} m); steps to PPO's best {steps[0]:,} to {steps[-1]:,} "
             f"(median {median(steps):,.0f}) for the {len(steps)} seeds that reach it. "
             f"{cpu_of('biped_bptt')}; one thread. Training results vary between CPUs as well "
             f"(round-off changes each seed's gait); the JSON holds one run per seed on one "
             f"machine, so it cannot tell by how much beyond the spread over seeds."]
    return rows


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


def material_throughput():
    d = load("material_throughput")
    ns = {}
    for r in d["results"]:
        ns.setdefault(r["material"], {})[r["mode"]] = r["ns_per_element"]
    names = {"neo_hookean": "neo_hookean (AD) `*`",
             "neo_hookean_closed_form": "neo_hookean, hand-derived (in the benchmark)",
             "stable_neo_hookean": "stable_neo_hookean `*`", "mooney_rivlin": "mooney_rivlin `*`",
             "stvk": "stvk `*`", "neural": "neural (8 x 8 network, hand-derived)"}
    order = ["neo_hookean", "neo_hookean_closed_form", "stable_neo_hookean", "mooney_rivlin",
             "stvk", "corotated", "fixed_corotated", "linear", "mass_spring", "neural"]
    fmt = lambda x: f"{x:.3g}" if x < 100 else f"{x:.0f}"
    rows = [f"{d['n_elems']:,} random tets, one thread, best of up to {d['max_repetitions']} runs "
            f"({d['machine']['cpu']}, {d['machine']['compiler']}); ns per element:",
            "",
            "| material | value | value+grad | value+grad+Hessian | + PSD projection | "
            "projection / Hessian |",
            "|---|---|---|---|---|---|"]
    for m in order:
        t = ns[m]
        rows.append(f"| {names.get(m, m)} | {fmt(t['value'])} | {fmt(t['gradient'])} | "
                    f"{fmt(t['hessian'])} | {fmt(t['hessian_projected'])} | "
                    f"{t['hessian_projected'] / t['hessian']:.2f} |")
    r = d["neo_hookean_ratio_ad_over_hand"]
    nn, nh = ns["neural"], ns["neo_hookean"]
    rows += ["", "The neural material over Neo-Hookean (its network's softplus units cost an "
                 "exponential and a logarithm each): " +
             ", ".join(f"{label} {nn[k] / nh[k]:.1f}x" for k, label in
                       (("value", "value"), ("gradient", "value+gradient"),
                        ("hessian", "value+gradient+Hessian"),
                        ("hessian_projected", "with the projection"))) + "."]
    rows += ["", f"AD / hand-derived time for Neo-Hookean, the two kernels interleaved in one run: "
                 f"value+gradient+Hessian **{r['hessian']:.2f}x** (the project's target is 1.5x), "
                 f"value+gradient {r['gradient']:.2f}x, value {r['value']:.2f}x, with the PSD "
                 f"projection {r['hessian_projected']:.2f}x (the same projection code, fed by "
                 f"hand-derived invariant derivatives, one element at a time where the library "
                 f"projects eight side by side)."]
    return rows


def hessian_projection():
    d = load("hessian_projection")
    rows = [f"The benchmark cantilever ({d['size']} tets, E = {d['youngs']:.0e} Pa, "
            f"nu = {d['poisson']}) swinging down from rest, dt = {d['dt']} s; one thread, "
            f"{d['repetitions']} alternating runs of each (times: the best; ratios: the "
            f"{d['ratio']}); elastic term only; {cpu_of('hessian_projection')}:",
            "",
            "| material | step | tip deflection | elements projected | kernels exact / projected "
            "[ns per element] | ratio | with assembly [ms] | ratio |",
            "|---|---|---|---|---|---|---|---|"]
    for m in d["results"]:
        for s in m["states"]:
            rows.append(f"| {m['material']} | {s['step']} | {s['tip_deflection_m']:.3f} m | "
                        f"{100 * s['indefinite_fraction']:.0f}% | "
                        f"{s['kernel_exact_ns_per_element']:.0f} / "
                        f"{s['kernel_projected_ns_per_element']:.0f} | {s['kernel_ratio']:.2f} | "
                        f"{s['assembled_exact_ms']:.2f} / {s['assembled_projected_ms']:.2f} | "
                        f"{s['assembled_ratio']:.2f} |")
    return rows


def thread_policy():
    d = load("thread_policy")
    p = d["problem"]
    rows = [f"The benchmark cantilever ({p['tets']:,} tets, {p['material']}, E = {p['youngs']:.0e} "
            f"Pa), {p['steps']} steps of `softgrad run`; {d['machine']['cores']} cores "
            f"({cpu_of('thread_policy')}); "
            f"{d['repeats']} repeats, each with the 1-thread and 2-thread runs back to back; "
            f"times: medians; speedup = time on 1 thread / time on 2 threads, the median of the "
            f"repeats' ratios with its 90% bootstrap interval (lowest with softgrad's waiting: "
            f"{d['min_default_speedup']:.2f}):",
            "",
            "| solver | machine | OpenMP waiting | 1 thread [s] | 2 threads [s] | speedup | "
            "90% interval |",
            "|---|---|---|---|---|---|---|"]
    for r in d["results"]:
        machine = "idle" if r["load"] == "idle" else "one core busy"
        waiting = {"default": "softgrad's (short spin, load-aware team)",
                   "passive": "passive (OMP_WAIT_POLICY=PASSIVE)",
                   "active": "spinning (ACTIVE)"}[r["waiting"]]
        low, high = r["speedup_interval_90"]
        rows.append(f"| {r['solver']} | {machine} | {waiting} | {r['one_thread_s']:.2f} | "
                    f"{r['two_threads_s']:.2f} | {r['speedup']:.2f} | {low:.2f}-{high:.2f} |")
    default = [r for r in d["results"] if r["waiting"] == "default"]
    slower = [f"{r['solver']} {'idle' if r['load'] == 'idle' else 'beside the busy process'} "
              f"({r['speedup']:.2f})" for r in default if r["speedup"] < 1.0]
    if slower:
        verdict = ("With softgrad's waiting, the median speedup is below 1 for " +
                   ", ".join(slower) + "; " +
                   ("every such interval reaches 1 (not measurably slower)."
                    if d["two_threads_not_measurably_slower"]
                    else "not every such interval reaches 1 (measurably slower)."))
    else:
        verdict = "With softgrad's waiting, two threads are never slower than one (median)."
    return rows + ["", verdict]


def peer_pytorch():
    d = load("peer_pytorch")
    p = d["problem"]
    rows = [f"A {' x '.join(f'{v:g}' for v in p['beam_m'])} m beam clamped at x = 0 bending under "
            f"gravity ({p['material']}, E = {p['youngs_pa']:.0e} Pa, nu = {p['poisson']}, "
            f"dt = {p['dt_s']} s), the same mesh on both sides; one thread each "
            f"({machine_text(d)}); fastest round. "
            f"ratio = PyTorch's time / softgrad's (median over rounds); targets at 10k tets: "
            f"forward {d['targets']['softgrad_forward']:g}x, backward "
            f"{d['targets']['softgrad_backward']:g}x, matfree {d['targets']['matfree']:g}x:",
            "",
            "| tets | steps | side | forward s / step | backward s / step | Newton / step | "
            "CG / step | ratio forward | ratio backward | final positions, dL/dE vs PyTorch |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for size in d["sizes"]:
        for name in ("cholmod", "pcg", "matfree", "pytorch"):
            v = size["variants"][name]
            ratio = size["ratios"].get(name)
            agree = v.get("agreement_with_pytorch")
            cg = f"{v['cg_per_step']:.0f}" if v["cg_per_step"] else "–"
            fwd = f"{ratio['forward']:.1f}" if ratio else ""
            bwd = f"{ratio['backward']:.1f}" if ratio else ""
            agreement = (f"{agree['final_position_max_abs_m']:.0e} m, "
                         f"{agree['dl_dyoungs_relative']:.0e}" if agree else "")
            side = "PyTorch" if name == "pytorch" else "softgrad " + name
            rows.append(f"| {size['tets']:,} | {size['steps']} | {side} | "
                        f"{v['forward_s_per_step']:.3g} | {v['backward_s_per_step']:.3g} | "
                        f"{v['newton_per_step']:.2f} | {cg} | {fwd} | {bwd} | {agreement} |")
    t = d["target_summary"]
    verdicts = []
    for key, what in (("softgrad_forward", "forward"), ("softgrad_backward", "backward"),
                      ("matfree_forward", "matfree forward"),
                      ("matfree_backward", "matfree backward")):
        g = t[key]
        side = f" ({g['backend']})" if "backend" in g else ""
        verdicts.append(f"{what}{side} {g['ratio']:.1f}x of {g['target']:g}x "
                        f"({'met' if g['meets'] else 'not met'})")
    rows += ["", f"At {t['tets']:,} tets, the best backend in each direction: "
             + "; ".join(verdicts) + "."]
    shares = [f"{k[len('backward_share_'):]} {g['ratio']:.2f} ({'met' if g['meets'] else 'not met'})"
              for k, g in t.items() if k.startswith("backward_share_")]
    if shares:
        rows[-1] += (f" A backward step over a forward step (at most "
                     f"{d['targets']['backward_share_at_most']:g} wanted): " + ", ".join(shares) + ".")
    large = [f"{what} ({t[k]['backend']}) {t[k]['ratio']:.1f}x of {t[k]['target']:g}x "
             f"({'met' if t[k]['meets'] else 'not met'})"
             for what in ("forward", "backward") for k in [f"softgrad_{what}_at_100000"] if k in t]
    if large:
        rows[-1] += " At about 100k tets, the best backend: " + "; ".join(large) + "."
    return rows + peer_step_cost(d)


def machine_text(d):
    """'CPU; compiler, BLAS' from a benchmark's machine record (the CPU alone for older ones)."""
    m = d.get("machine")
    if not m:
        return d.get("cpu", "unknown CPU")
    return f"{m['cpu']}; softgrad by {m['compiler']}, BLAS {m['blas']}"


def peer_sweep():
    """The peer's settings swept (benchmarks/peers/peer_sweep.py) and those the benchmark ran."""
    d = load("peer_sweep")
    used = load("peer_pytorch").get("peer_settings", {})
    bars = d["accuracy_bars"]

    def describe(s):
        refine = "none" if s["refine_tolerance"] is None else f"{s['refine_tolerance']:g}"
        return (f"{s['forcing']} {s['max_forcing']:g}, refine {refine}, adjoint "
                f"{s['adjoint_cg_tolerance']:g} {'warm' if s['adjoint_warm_start'] else 'cold'}, "
                f"{s['hvp'].replace('_', ' ')}{', Jacobi' if s['jacobi'] else ''}")

    rows = [f"{d['tets']:,} tets, {d['steps']} steps, one thread ({d['cpu']}); accuracy bars: "
            f"final positions within {bars['position_bar_m']:.1e} m, dL/dE within "
            f"{bars['gradient_bar_relative']:.0e} of a tight reference. Times are the fastest "
            f"of three interleaved rounds:", "",
            "| settings | Newton / step | CG / step | forward s / step | backward s / step | "
            "position error | dL/dE error | within the bars |",
            "|---|---|---|---|---|---|---|---|"]
    for name, c in d["candidates"].items():
        r = c
        label = {"softgrad_policy": "softgrad's policy: ", "old_settings": "former: "}.get(name, "")
        rows.append(f"| {label}{describe(c['settings'])} | {r['newton_per_step']:.1f} | "
                    f"{r['cg_per_step']:.1f} | {r['forward_s_per_step']:.3f} | "
                    f"{r['backward_s_per_step']:.3f} | "
                    f"{r['error']['final_position_max_abs_m']:.1e} m | "
                    f"{r['error']['dl_dyoungs_relative']:.1e} | "
                    f"{'yes' if r['within_bars'] else 'no'} |")
    bar = d["cg_per_step_bar"]
    chosen = describe(d["chosen"]["settings"])
    v = d.get("validation")
    if v:
        rows += ["", f"The fastest, checked in turn over the benchmark's {v['steps']} steps "
                     f"(bars {v['accuracy_bars']['position_bar_m']:.1e} m, "
                     f"{v['accuracy_bars']['gradient_bar_relative']:.0e}):", "",
                 "| settings | CG / step | position error | dL/dE error | within the bars |",
                 "|---|---|---|---|---|"]
        for r in v["records"]:
            rows.append(f"| {describe(r['settings'])} | {r['cg_per_step']:.1f} | "
                        f"{r['error']['final_position_max_abs_m']:.1e} m | "
                        f"{r['error']['dl_dyoungs_relative']:.1e} | "
                        f"{'yes' if r['within_bars'] else 'no'} |")
    rows += ["", f"Chosen: {chosen}, {bar['chosen']:.1f} CG products per step at "
                 f"{d['steps']} steps"
                 + (f", {bar['chosen_at_validation_steps']:.1f} at {v['steps']}" if v else "")
                 + f" (an independent implementation: {bar['independent_implementation']:g}; "
                   f"at most {bar['at_most']:g} wanted: "
                   f"{'met' if bar['meets'] else 'not met'})."]
    if used and {k: used.get(k) for k in d["chosen"]["settings"]} != d["chosen"]["settings"]:
        at = next(e for e in load("peer_pytorch")["sizes"] if e["tets_target"] == 10000)
        rows.append(f"The benchmark above ran the peer with {describe(used)} ({used['source']}; "
                    f"{at['variants']['pytorch']['cg_per_step']:.1f} CG products per step at "
                    f"{at['tets']:,} tets over {at['steps']} steps): see the text for why.")
    return rows


def diffpd_armadillo():
    """DiffPD against softgrad on DiffPD's Armadillo (benchmarks/peers/run_diffpd_benchmark.py)."""
    d = load("diffpd_armadillo")
    p = d["problem"]
    rows = [f"DiffPD's Armadillo ({p['tets']:,} tets, neo-Hookean E = {p['youngs']:.0e} Pa, "
            f"nu = {p['poisson']}, {p['fixed']} vertices fixed, {p['held_in_z']} held in z, "
            f"{p['loaded']} under twisting point forces, dt = {p['dt']:g} s, no gravity, DiffPD's "
            f"mean-volume weighting and equal vertex masses), {d['steps']} steps, one thread each "
            f"({machine_text(d)}). Error: the largest distance of a final vertex from softgrad's "
            f"at Newton tolerance {d['reference']['solver']['newton_tolerance']:g}.", "",
            "| side | tolerance | forward s / step | iterations / step | backward s | "
            "final error | note |", "|---|---|---|---|---|---|---|"]

    def number(v, fmt):
        return format(v, fmt) if isinstance(v, (int, float)) else "–"

    def error(v):
        e = v.get("final_error_m")
        return f"{e:.1e} m" if isinstance(e, float) else "–"

    for name, v in d["softgrad"].items():
        solver = v["solver"]
        label = solver["linear"] + (f" ({solver['preconditioner']})" if "preconditioner" in
                                    solver else "")
        iterations = (f"{v['newton_iterations_mean']:.1f} Newton, "
                      f"{sum(v['factorizations_per_step']) / len(v['factorizations_per_step']):.1f}"
                      f" Hessians" if v.get("converged") else "–")
        if v.get("cg_per_hessian"):
            iterations += f", {v['cg_per_hessian']:.0f} CG per Hessian"
        adjoint = v.get("adjoint", {})
        note = []
        if sum(v.get("direct_fallbacks_per_step", [])):
            note.append(f"{sum(v['direct_fallbacks_per_step'])} Newton directions by CHOLMOD")
        if adjoint:
            note.append("gradient " + ("trusted" if adjoint.get("trustworthy") else "NOT trusted"))
            if adjoint.get("direct_fallback_steps"):
                note.append(f"{len(adjoint['direct_fallback_steps'])} adjoint steps by CHOLMOD")
            if adjoint.get("linear_iterations"):
                note.append(f"{adjoint['linear_iterations']} adjoint CG")
        if not v.get("converged"):
            note.append(v.get("error", "failed")[:80])
        rows.append(f"| softgrad {label} | default | {number(v.get('forward_s_per_step'), '.3g')} | "
                    f"{iterations} | {number(v.get('backward_s'), '.3g')} | "
                    f"{error(v)} | {'; '.join(note)} |")
    for v in d["diffpd"]:
        its = v.get("forward_iterations_per_step")
        note = []
        if v.get("backward_failed"):
            note.append("backward failed: " + str(v.get("backward_error") or "")[:60])
        elif v.get("backward_s") is None and not v.get("error"):
            note.append("forward only")
        if v.get("forward_failed") or (v.get("error") and not v.get("backward_failed")):
            note.append(str(v.get("forward_error") or v.get("error"))[:80])
        rows.append(f"| DiffPD {v['method']} | {v['rel_tol']:g} | "
                    f"{number(v.get('forward_s_per_step'), '.3g')} | "
                    f"{number(its, '.1f')} | {number(v.get('backward_s'), '.3g')} | "
                    f"{error(v)} | {'; '.join(note)} |")
    s = d["summary"]
    t = s["targets"]
    verdicts = []
    if "forward_ratio_at_diffpd_tolerance" in s:
        r = s["forward_ratio_at_diffpd_tolerance"]
        verdicts.append(f"softgrad's forward {r:.1f}x DiffPD's {s['diffpd_own_tolerance_run']['method']}"
                        f" at its tolerance {s['diffpd_own_tolerance_run']['rel_tol']:g} "
                        f"({t['forward_at_diffpd_tolerance']:g}x wanted: "
                        f"{'met' if r >= t['forward_at_diffpd_tolerance'] else 'not met'})")
    if "forward_ratio_at_equal_accuracy" in s:
        r = s["forward_ratio_at_equal_accuracy"]
        e = s["equal_accuracy_run"]
        verdicts.append(f"{r:.1f}x against its rel_tol {e['rel_tol']:g} run "
                        f"({number(e['diffpd_error_m'], '.1e')} m against softgrad's "
                        f"{number(e['softgrad_error_m'], '.1e')} m; "
                        f"{t['forward_at_equal_accuracy']:g}x wanted at equal accuracy: "
                        f"{'met' if r >= t['forward_at_equal_accuracy'] and e['diffpd_at_least_as_accurate'] else 'not met'})")
    if "forward_and_backward_ratio_at_diffpd_tolerance" in s:
        verdicts.append(f"the gradient {s['backward_ratio_at_diffpd_tolerance']:.1f}x faster than "
                        f"DiffPD's ({s['diffpd_gradient_run']}), forward and backward together "
                        f"{s['forward_and_backward_ratio_at_diffpd_tolerance']:.1f}x")
    n = s.get("softgrad_newton_iterations_per_loaded_step")
    if n is not None:
        verdicts.append(f"softgrad's Newton {n:.1f} iterations per loaded step, chord steps "
                        f"included ({t['newton_iterations_per_step']:g} wanted: "
                        f"{'met' if n <= t['newton_iterations_per_step'] else 'not met'})")
    return rows + ["", "; ".join(verdicts) + "."]


def peer_step_cost(d):
    """The forward step against one Newton iteration's work (newton_step_cost), per size."""
    if not any(size.get("step_cost") for size in d["sizes"]):
        return []
    target = d["targets"]["step_cost_at_most"]
    rows = ["", "A forward step against one exact-Hessian Newton iteration at its start "
            "(`benchmarks/newton_step_cost`, run by the same command: the gradient and the exact "
            "Hessian assembled at the inertial prediction, the factorization or preconditioner, "
            "one solve from zero to the solver's tolerance; the two interleaved step by step; "
            f"median over rounds); target at 10k tets: at most {target:g}x:", "",
            "| tets | backend | step s | one iteration s | ratio | Newton / step | "
            "CG / step | CG, one solve |",
            "|---|---|---|---|---|---|---|---|"]
    for size in d["sizes"]:
        for backend, c in size.get("step_cost", {}).items():
            cg = (f"{c['linear_iterations_per_step']:.0f} | "
                  f"{c['reference_linear_iterations_per_step']:.0f}"
                  if c["reference_linear_iterations_per_step"] else "– | –")
            rows.append(f"| {size['tets']:,} | {backend} | {c['forward_s_per_step']:.3g} | "
                        f"{c['reference_s_per_step']:.3g} | {c['ratio']:.2f} | "
                        f"{c['newton_per_step']:.2f} | {cg} |")
    t = d["target_summary"]
    verdicts = [f"{key[len('step_cost_'):]} {g['ratio']:.2f}x "
                f"({'met' if g['meets'] else 'not met'})"
                for key, g in t.items() if key.startswith("step_cost_")]
    if verdicts:
        rows += ["", f"At {t['tets']:,} tets, step / one iteration: " + "; ".join(verdicts) + "."]
    return rows


def rigid_robots():
    r = load("rigid_robots")
    q = r["quadruped"]
    rows = [f"The rigid quadruped ({q['bodies']} bodies, {q['joints']} hinges, {q['motors']} servos, "
            f"{q['dofs']} dofs; its {q['controller']} gait, {q['controller_parameters']} parameters; "
            f"{cpu_of('rigid_robots')}), "
            f"{q['simulated_s']:g} s of {q['steps']} steps, one thread, fastest of the runs:",
            "",
            "| simulation | softgrad [s] | the seed paper's engine [s] |",
            "|---|---|---|",
            f"| forward | {q['forward_s']:.2f} | |",
            f"| forward and gradient | {q['forward_and_gradient_s']:.2f} | "
            f"{q['seed_paper_with_gradient_s']:.2f} |",
            "",
            f"The gradient costs {q['gradient_over_forward']:.2f}x the forward pass (the seed: 5.5-8x); "
            f"Newton takes {q['newton_iterations_per_step']:.1f} iterations per step.",
            "",
            "Gradient training against CMA-ES on the same evaluations (`softgrad compare` with CMA-ES "
            "as the only baseline; an evaluation simulates every episode of the task once, the "
            "gradient method's adjoint pass not counted):",
            "",
            "| task | trained | episodes x steps | budget [steps] | best loss: gradient / CMA-ES | "
            "evaluations to an error of | gradient | CMA-ES | gradient's evaluations to CMA-ES's best "
            "(CMA-ES's own) |",
            "|---|---|---|---|---|---|---|---|---|"]
    text = lambda v: "not reached" if v is None else f"{v:,}"
    for key in ("ball_throw", "arm_reach"):
        t = r[key]
        rows.append(f"| {t['scene']} | {t['parameters']} | {t['episodes_per_evaluation']} x "
                    f"{t['episode_steps']} | {t['budget_steps']:,} | {t['gradient_best_loss']:.2e} / "
                    f"{t['cmaes_best_loss']:.2e} | {t['error_m'] * 100:g} cm | "
                    f"{text(t['gradient_simulations_to_error'])} | "
                    f"{text(t['cmaes_simulations_to_error'])} | "
                    f"{text(t['gradient_simulations_to_cmaes_best'])} "
                    f"({text(t['cmaes_simulations_to_its_best'])}) |")
    rows += ["", "One training run per method and task: the losses reached and the evaluations to "
             "reach them vary between CPUs (round-off changes the optimisers' paths), by an amount "
             "this JSON, from one machine, cannot tell."]
    return rows


def length(metres):
    """A small length with its unit: nm below a micrometre, um below a millimetre."""
    if metres < 1e-6:
        return f"{metres * 1e9:.3g} nm"
    if metres < 1e-3:
        return f"{metres * 1e6:.3g} um"
    return f"{metres * 1e3:.3g} mm"


def mesh_contact():
    r = load("mesh_contact")
    rows = [f"One thread; {cpu_of('mesh_contact')}.", "",
            "| ball on block | vertices | tetrahedra | surface triangles | s / step | Newton / step | "
            "contact pairs (mean, max) | broad phase [ms / call] | CCD sweep [ms / call] | "
            "one of each per Newton iteration, share of the step |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for b in r["ball_on_block"]:
        rows.append(f"| {b['refine']}x cells | {b['n_verts']:,} | {b['n_elems']:,} | "
                    f"{b['surface_faces']:,} | {b['forward_s_per_step']:.3g} | "
                    f"{b['newton_iterations_per_step']:.2f} | {b['contact_pairs_mean']:.0f}, "
                    f"{b['contact_pairs_max']:.0f} | {b['broad_phase_ms_per_call']:.3g} | "
                    f"{b['ccd_ms_per_call']:.3g} | "
                    f"{b['newton_iterations_per_step'] * (b['broad_phase_ms_per_call'] + b['ccd_ms_per_call']) / (1e3 * b['forward_s_per_step']):.0%} |")
    g = r["impact_gradient"]
    rows += ["", f"Gradient through the impact of `{g['scene']}` ({g['steps']} steps; "
             f"{g['parameter']} -> where the struck beam is and how fast it moves): adjoint "
             f"{g['adjoint']:.6e}, central difference {g['central_difference']:.6e} (relative "
             f"difference {g['relative_error']:.1e}); forward {g['forward_s'] * 1e3:.1f} ms, adjoint "
             f"{g['backward_s'] * 1e3:.1f} ms."]
    fixed, adaptive = r["weak_barrier"]
    rows += ["", f"Adaptive stiffness: the ball dropped on a {fixed['stiffness']:g} N/m barrier "
             f"rests at a gap of {length(fixed['gap_at_rest_m'])} with the stiffness fixed "
             f"({fixed['newton_iterations_per_step']:.2f} Newton iterations per step), and at "
             f"{length(adaptive['gap_at_rest_m'])} adapted (stiffness "
             f"x{adaptive['final_scale']:g}; {adaptive['newton_iterations_per_step']:.2f} "
             f"Newton iterations per step)."]
    return rows


SIZE_ORDER = {"1k": 0, "10k": 1, "50k": 2}
SOLVER_NAMES = {"cholmod": "cholmod", "pcg": "pcg (Jacobi)", "pcg-jacobi": "pcg (Jacobi)",
                "pcg-ichol": "pcg (IC)", "matfree": "matfree"}


def rank(names, name):
    return names.index(name) if name in names else len(names)


def cantilever_solvers():
    b = load("cantilever_solvers")
    rows = ["| tets | dofs | solver | steps run | s / step | Newton / step | CG / step | "
            "steps whose Newton failed | peak RSS MB |",
            "|---|---|---|---|---|---|---|---|---|"]
    order = ["cholmod", "pcg-jacobi", "pcg-ichol", "matfree"]
    results = sorted(b["results"], key=lambda r: (SIZE_ORDER.get(r["size"], 9),
                                                  rank(order, r["solver"])))
    for r in results:
        cg = "–" if r["linear_per_step"] == 0 else f"{r['linear_per_step']:.0f}"
        failed = r.get("failed_steps", 0)
        rows.append(f"| {r['n_tets']:,} | {r['n_dofs']:,} | {SOLVER_NAMES[r['solver']]} | "
                    f"{r['steps_run']} | {r['mean_step_s']:.3g} | {r['newton_per_step']:.2f} | "
                    f"{cg} | {'**' + str(failed) + '**' if failed else '0'} | "
                    f"{r['peak_rss_mb']:.0f} |")
    # Agreement among the runs whose every step converged, at the last step they all ran.
    spread, failures = 0.0, []
    for size in sorted({r["size"] for r in results}, key=lambda s: SIZE_ORDER.get(s, 9)):
        ok = [r for r in results if r["size"] == size and r.get("all_converged", True)]
        failures += [f"{SOLVER_NAMES[r['solver']]} at {r['n_tets']:,} tets ({r['first_failure']})"
                     for r in results if r["size"] == size and not r.get("all_converged", True)]
        if len(ok) > 1:
            n = min(len(r["tip_deflection_per_step_m"]) for r in ok)
            tips = [r["tip_deflection_per_step_m"][n - 1] for r in ok]
            spread = max(spread, max(tips) - min(tips))
    rows += ["", f"The runs whose every step converged compute the same trajectory: at the last "
             f"step they share, their tip deflections differ by at most {spread:.1e} m "
             f"({b['threads']} thread, {b['max_seconds_per_configuration']:.0f} s per "
             f"configuration, {b['total_s'] / 60:.0f} min in all, {b['machine']['cpu']})."]
    if failures:
        rows += ["", "Newton failed (and the run went on, off the others' trajectory) for "
                 + "; ".join(failures) + "."]
    return rows


def backward(r, recompute=False):
    """A run's backward seconds (with its recomputation in brackets), or a dash."""
    if r is None:
        return "–"
    text = f"{r['backward_s']:.3g}"
    return text + (f" ({r['recompute_s']:.3g})" if recompute else "")


def ratio(r):
    return "–" if r is None else f"**{r['ratio']:.2f}**"


def stored(r):
    return "–" if r is None else f"{r['trajectory_bytes'] / 2.0 ** 20:.3g}"


def rss(r):
    return "–" if r is None else f"{r['peak_rss_mb']:.0f}"


def adjoint_cantilever():
    runs = {}
    for r in load("adjoint_cantilever")["results"]:
        runs.setdefault((r["size"], r["backend"], r["adjoint_cg_rel_tol"]), {})[r["checkpoints"]] = r
    order = ["cholmod", "pcg", "matfree"]
    keys = sorted(runs, key=lambda k: (SIZE_ORDER.get(k[0], 9), rank(order, k[1]), k[2]))
    rows = [f"One thread per process; {cpu_of('adjoint_cantilever')}.", "",
            "| tets | backend | steps | forward s | Newton / step | backward s, all | "
            "backward / forward | backward s, √T | backward / forward | adjoint CG / step | "
            "stored MB, all / √T | peak RSS MB, all / √T |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in keys:
        size, backend, tol = key
        one, sq = runs[key].get("1"), runs[key].get("sqrt")
        first = one or sq
        label = SOLVER_NAMES[backend] + ("" if tol == 1e-12 else f", adjoint CG {tol:g}")
        if not all(r["forward_converged"] for r in (one, sq) if r):
            label += " (**a forward step's Newton failed**)"
        tets = f"{first['n_tets']:,}" + (f" ({size} cells)" if size not in SIZE_ORDER else "")
        cg = "–"
        if first["adjoint_linear_per_step"] > 0:
            cg = f"{first['adjoint_linear_per_step']:,.0f}"
            capped = first["adjoint_solves_unconverged"]
            for w in first.get("first_warnings", []):
                m = re.match(r"(\d+) adjoint linear solves did not converge", w)
                capped = max(capped, int(m.group(1))) if m else capped
            if capped:
                cg += (" (cap, every step)" if capped >= first["steps_run"]
                       else f" (cap at {capped} of {first['steps_run']} steps)")
        rows.append(
            f"| {tets} | {label} | {first['steps_run']} | {first['forward_s']:.3g} | "
            f"{first['newton_per_step']:.2f} | {backward(one)} | {ratio(one)} | "
            f"{backward(sq, True)} | {ratio(sq)} | {cg} | "
            f"{stored(one)} / {stored(sq)} | {rss(one)} / {rss(sq)} |")
    b = load("adjoint_cantilever")
    stored_all = [(k, runs[k]["1"]) for k in keys if "1" in runs[k]]
    met = [f"{SOLVER_NAMES[k[1]]} at {r['n_tets']:,} tets" + ("" if k[2] == 1e-12 else
                                                                f" (adjoint CG {k[2]:g})")
           for k, r in stored_all if r["ratio"] <= 0.5]
    missed = [f"{SOLVER_NAMES[k[1]]} at {r['n_tets']:,} tets" + ("" if k[2] == 1e-12 else
                                                                   f" (adjoint CG {k[2]:g})")
              + f" ({r['ratio']:.2f})" for k, r in stored_all if r["ratio"] > 0.5]
    spread = max(a[f"{q}_rel_spread"] for a in b["agreement"]
                 for q in ("dl_dyoungs", "dl_dpoisson", "dl_dv0_norm"))
    rows += ["", f"Target, a backward pass at most 0.5x the forward pass with every state stored: "
             f"met by {', '.join(met) if met else 'none'}; missed by "
             f"{', '.join(missed) if missed else 'none'}. Gradients of every backend and both "
             f"storage modes agree, size by size, to a relative spread of at most {spread:.1e}."]
    long_runs = {r["checkpoints"]: r for r in b["long_runs"]}
    if "1" in long_runs and "sqrt" in long_runs:
        a, q = long_runs["1"], long_runs["sqrt"]
        rows += ["", f"Memory, measured on {a['steps']:,} steps of the {a['size']}-cell beam: "
                 f"every state stored, {a['stored_states']:,} states "
                 f"({a['trajectory_bytes'] / 2 ** 20:.3g} MB; peak RSS {a['peak_rss_mb']:.0f} MB); "
                 f"√T checkpoints, {q['stored_states']:,} states plus a recomputed segment of "
                 f"{q['segment_states']:.0f} ({q['trajectory_bytes'] / 2 ** 20:.2g} + "
                 f"{q['segment_bytes'] / 2 ** 20:.2g} MB; peak RSS {q['peak_rss_mb']:.0f} MB, "
                 f"{q['peak_rss_delta_mb']:.2g} MB above the process before the run)."]
    return rows


def sysid_cantilever():
    b = load("sysid_cantilever")
    truth_youngs, truth_alpha = 5e4, 0.5

    def errors(r):
        return (f"{abs(r['youngs'] / truth_youngs - 1):.0e}, "
                f"{abs(r['alpha'] / truth_alpha - 1):.0e}")

    sg, central, forward = b["softgrad"], b["ceres_numeric_central"], b["ceres_numeric_forward"]
    rows = [f"One thread; {cpu_of('sysid_cantilever')}.", "",
            "| method | iterations | simulations | wall [s] | relative error E, alpha |",
            "|---|---|---|---|---|",
            f"| softgrad: Levenberg-Marquardt, Jacobians from forward sensitivities | "
            f"{sg['iterations']} | {sg['simulations']} (each with 2 tangent solves per step) | "
            f"{sg['seconds']:.2g} | {errors(sg)} |"]
    for name, r in (("central", central), ("forward", forward)):
        rows.append(f"| Ceres Levenberg-Marquardt, {name} numeric differences | "
                    f"{r['iterations']} | {r['simulations']} | {r['seconds']:.2g} | {errors(r)} |")
    rows += ["", f"{central['simulations'] / sg['simulations']:.1f}x fewer simulations than "
             f"central differences (the target is 5x), "
             f"{forward['simulations'] / sg['simulations']:.1f}x fewer than forward differences; "
             f"{central['seconds'] / sg['seconds']:.1f}x and "
             f"{forward['seconds'] / sg['seconds']:.1f}x less wall time (a sensitivity "
             f"simulation costs more than a plain one)."]
    return rows


def sysid_scenes():
    b = {c["case"]: c for c in load("sysid_scenes")["cases"]}
    labels = {
        "cantilever_clean": "cantilever released from a bent pose, same model, noiseless",
        "cantilever_noisy": "the same, 0.5 mm marker noise",
        "cantilever_two_experiments": "the same, plus a second noisy recording bent the other "
                                      "way (the scene's two experiments)",
        "cantilever_fine": "the same, recorded on a 2x finer mesh with a 4x smaller step",
        "block_sliding": "soft block sliding on the ground (penalty contact, lagged friction)",
        "block_bouncing": "soft block bouncing on the ground",
        "ball_bouncing": "soft ball (a disk, Rayleigh damping) bouncing on the ground",
        "beam_two_material": "two-material beam (4 MPa and 1 MPa halves)",
    }
    short = {"youngs": "E", "damping.alpha": "alpha", "mu": "mu"}

    def name(p):
        n = p["name"]
        if n in short:
            return short[n]
        if "friction" in n:
            return "mu"
        return "contact stiffness" if "stiffness" in n else ("damping" if "alpha" in n else n)

    def cost(c):
        return (f"{c['iterations']} iterations, {c['simulations']} simulations, "
                f"{c['seconds']:.2g} s")

    rows = [f"{cpu_of('sysid_scenes')}.", "",
            "| scene, recording | identified | result | cost |", "|---|---|---|---|"]
    for case, label in labels.items():
        c = b[case]
        if case == "beam_two_material":
            means = "; ".join(f"{r['geometric_mean'] / 1e6:.2f} MPa over {r['region']} "
                              f"(truth {r['truth'] / 1e6:g})" for r in c["regions"])
            result = (f"geometric means {means}; rms {c['rms_before_m'] * 1e3:.1f} -> "
                      f"{c['rms_after_m'] * 1e3:.2f} mm")
            identified = f"{c['field_values']} per-element moduli, L-BFGS with smoothness"
        else:
            ps = c["parameters"]
            identified = ", ".join(name(p) for p in ps)
            worst = max(abs(p["relative_error"]) for p in ps)
            if worst < 1e-6:
                result = f"exact to {worst:.0e}"
            else:
                def one(p):
                    sd = p["stddev"]
                    spread = f" (+-{sd / p['estimate'] * 100:.1f}%)" if sd else ""
                    return f"{name(p)} {p['relative_error'] * 100:+.1f}%{spread}"
                result = ", ".join(one(p) for p in ps)
        rows.append(f"| {label} | {identified} | {result} | {cost(c)} |")
    return rows


def locomotion_compare():
    b = load("locomotion_compare")

    def steps(n):
        return "not reached" if n is None else f"{n:,}"

    rows = ["| scene | method | policy | steps used | best reward | steps to 90% of the best "
            "(any method) | steps to PPO's best | wall time |",
            "|---|---|---|---|---|---|---|---|"]
    for run in b["runs"]:
        for m in run["methods"]:
            reward = m["best_reward_m"]
            rows.append(f"| {run['scene_name']} | {m['method']} | {m['policy']} | "
                        f"{m['steps_used']:,} | "
                        f"{'-' if reward is None else f'{reward:.3f} m'} | "
                        f"{steps(m['steps_to_90_percent'])} | {steps(m['steps_to_ppo_best'])} | "
                        f"{m['wall_time_s']:.0f} s |")
    parts = []
    for run in b["runs"]:
        g, p, r = (run["gradient_steps_to_ppo_best"], run["ppo_steps_to_its_best"],
                   run["ppo_over_gradient_steps"])
        parts.append(f"after {steps(g)} steps on {run['scene_name']} (PPO: {steps(p)}"
                     + ("" if r is None else f", {r:.0f}x more") + ")")
    ratios = [run["ppo_over_gradient_steps"] for run in b["runs"]]
    verdict = ("past the bar of 10x" if all(r is not None and r >= 10 for r in ratios)
               else "short of the bar of 10x")
    rows += ["", "The gradient method reaches PPO's best reward " + " and ".join(parts) +
             f", {verdict}. Commands: " +
             "; ".join(f"`{run['command']}` ({run['total_wall_time_s'] / 60:.1f} min wall)"
                       for run in b["runs"]) + "."]
    seeds = sorted({run["seed"] for run in b["runs"]})
    rows += ["", f"{cpu_of('locomotion_compare')}; one thread. Every method ran once per scene, "
             f"with seed {', '.join(map(str, seeds))}: rewards and step counts vary between "
             f"seeds and between CPUs (round-off changes the trained gaits and policies), and "
             f"this JSON, one seed on one machine, cannot tell by how much (the BPTT table "
             f"below gives a spread over ten seeds for one method)."]
    return rows


def armadillo():
    d = load("armadillo")
    a = d["shipped"]
    verdict = "meets" if a["stepping_s_per_step"] <= a["target_s_per_step"] else "misses"
    lines = [f"`softgrad run scenes/armadillo.json` ({a['elements']:,} tets, {a['dofs']:,} dofs, "
             f"E = {a['youngs_pa'] / 1e6:g} MPa) on {d['threads']} threads of {d['cores']} cores "
             f"({cpu_of('armadillo')}): "
             f"{a['status']}, {a['steps']} of {a['steps_requested']} steps, at most "
             f"{a['max_inverted_elements']} inverted elements; {a['stepping_s_per_step']:.3f} s per "
             f"step ({verdict} the target of {a['target_s_per_step']} s), "
             f"{a['wall_s_per_step_with_frames']:.3f} s with its frames written, "
             f"{a['newton_per_step']:.2f} Newton iterations per step (chord steps included) "
             f"with {a['factorizations_per_step']:.2f} factorisations, set-up "
             f"{a['setup_s']:.2f} s, peak memory {a['peak_rss_mb']:.0f} MB.", ""]
    for v in d["softer"]:
        falls = ", ".join(f"{f:.2f} m after {k} steps" for k, f in v["head_fall_m"].items())
        end = (f"Newton fails at step {v['failed_step']}" if v["status"] != "completed"
               else f"all {v['steps_completed']} steps converge")
        lines.append(f"- E = {v['youngs_pa'] / 1e6:g} MPa: the head falls {falls}; the first "
                     f"inverted element appears at step {v['first_inverted_step']} (up to "
                     f"{v['max_inverted_elements']}); {end}.")
    return lines


def big_mesh():
    d = load("big_mesh")
    names = {"amg": "amg (BoomerAMG CG)", "pcg": "pcg (Jacobi CG)", "cholmod": "cholmod"}
    rows = ["| tets | dofs | solver | forward s / step | backward s / step | Newton / step | "
            "CG / step | one-time set-up | peak memory MB | amg faster by (forward / backward) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        faster = ("–" if r["solver"] == "amg" else
                  f"{r['forward_speedup_of_amg']:.2f}x / {r['backward_speedup_of_amg']:.2f}x")
        cg = "–" if r["solver"] == "cholmod" else f"{r['cg_per_step']:.0f}"
        rows.append(f"| {r['tets']:,} | {r['dofs']:,} | {names[r['solver']]} | "
                    f"{r['forward_s_per_step']:.3g} | {r['backward_s_per_step']:.3g} | "
                    f"{r['newton_per_step']:.2f} | {cg} | "
                    f"{r['setup_s'] + r['first_step_extra_s']:.2f} s "
                    f"({100 * r['one_time_fraction']:.1f}%) | {r['peak_memory_mb']:.0f} | "
                    f"{faster} |")
    steps = d["rows"][0]["steps"]
    rows += ["", f"{steps} steps each, {d['threads']} thread; {cpu_of('big_mesh')}. One-time set-up: loading, the "
             "sparsity patterns and the first step's extra time (the multigrid hierarchy, "
             f"MPI's start), as a share of the {steps}-step run."]
    return rows


def locomotion_training():
    d = load("locomotion_training")
    lines = []
    for r in d["training"]:
        files = " and ".join(f"`{f}`" for f in ("rollout.pvd", "gait.svg") if f in r["files"])
        lines.append(
            f"- `{r['command']}`: {r['total_iterations']} {r['optimizer'].capitalize()} "
            f"iterations on {r['episode_s']:g} s episodes take the `{r['creature']}` creature "
            f"from {r['initial_reward_m']:.4f} m to {r['best_reward_m']:.3f} m "
            f"({r['best_body_lengths']:.2f} body lengths; the best controller's rollout, "
            f"replayed: {r['rollout_reward_m']:.3f} m) with {r['simulated_steps']:,} simulated "
            f"steps in {r['wall_time_s']:.1f} s" + (f", and write {files}." if files else "."))
    lines += ["", f"One thread; {cpu_of('locomotion_training')}. The distances vary between CPUs "
              f"(round-off changes the trained gait); the JSON holds one run per creature on one "
              f"machine and no seeds, so it cannot tell by how much."]
    return lines


def locomotion_dt():
    s = load("locomotion_training")["dt_study"]
    rows = s["rows"]
    lines = ["| dt [s] | " + " | ".join(f"{r['dt_s']:g}" for r in rows) + " |",
             "|---" * (len(rows) + 1) + "|",
             "| distance in 10 s [m] | " + " | ".join(f"{r['distance_10s_m']:.1f}" for r in rows)
             + " |"]
    distances = [r["distance_10s_m"] for r in rows]
    falls = all(b < a for a, b in zip(distances, distances[1:]))
    lines += ["", f"The gait trained on {s['episode_s']:g} s episodes reached "
              f"{s['best_reward_m']:.3f} m in training; over 10 s its distance "
              + ("falls at every halving of dt" if falls else "does not fall at every halving of dt")
              + f", from {distances[0]:.1f} m to {distances[-1]:.1f} m ({s['command']}, "
              f"{s['wall_time_s']:.0f} s). {cpu_of('locomotion_training')}. The distances "
              f"vary between CPUs: a different summation order in the linear solver moves the "
              f"finer steps' distances by metres; the JSON holds one run on one machine, so it "
              f"cannot tell by how much."]
    return lines


def startup():
    """The front page's install and start-up times (benchmarks/startup.py)."""
    s = load("startup")
    setup = s.get("setup")
    t = s["targets"]
    ms = lambda key: f"{s[key]['median_s'] * 1000:.0f} ms"
    rows = [f"Measured on {s['cpu']} ({s['cores']} cores) by `benchmarks/startup.py` "
            "(medians):", ""]
    if setup and setup["packages_installed"]:
        total = setup.get("total_seconds",
                          setup["packages_seconds"] + setup["build_and_install_seconds"])
        rows.append(f"- set-up from a fresh machine, `bash scripts/setup.sh`: "
                    f"{total / 60:.1f} min ({setup['packages_installed']} Debian packages; "
                    f"{setup['packages_seconds']:.0f} s installing those the build needs, then "
                    f"build and `pip install` {setup['build_and_install_seconds']:.0f} s with "
                    f"matplotlib and meshio installing beside it, "
                    f"{setup.get('render_packages_wait_seconds', 0):.0f} s waiting for them "
                    f"after it; target {t['setup_s'] / 60:.0f} min)")
    elif setup:
        rows.append(f"- set-up, `bash scripts/setup.sh`: build and `pip install` "
                    f"{setup['build_and_install_seconds'] / 60:.1f} min (the Debian packages "
                    f"were already installed; target {t['setup_s'] / 60:.0f} min with them)")
    help_line = (f"- `softgrad --help`: {ms('help')}, {s['help']['max_rss_mib']:.0f} MiB "
                 f"(target {t['help_s'] * 1000:.0f} ms, {t['help_mib']} MiB)")
    if "help_console_script" in s:
        help_line += f"; the venv's `softgrad` {ms('help_console_script')}"
    rows.append(help_line)
    rows.append(f"- `import softgrad`: {s['import_over_bare_s'] * 1000:.0f} ms over the "
                f"interpreter's own start ({ms('import')} in all; target {t['import_s']} s)")
    rows.append(f"- a one-step scene, `softgrad run scenes/cantilever.json --steps 1`: "
                f"{ms('one_step_scene')} (target {t['one_step_scene_s']} s)")
    cuda = s["cuda_libraries_in_cpu_run"] + s["cuda_libraries_in_python_run"]
    rows.append("- CUDA libraries mapped into a CPU run: " + (", ".join(cuda) if cuda else "none"))
    return rows


def neural_material():
    d = load("neural_material")
    models = d["models"]
    names = {"neo_hookean": "Neo-Hookean", "mooney_rivlin": "Mooney-Rivlin",
             "neural": f"neural ({' x '.join(map(str, d['hidden']))} network)"}
    train = d["train"]
    rows = [f"Truth: Yeoh (c1 = {d['truth']['c1']:g}, c2 = {d['truth']['c2']:g}, "
            f"c3 = {d['truth']['c3']:g}, kappa = {d['truth']['kappa']:g} Pa), a "
            f"{d['resolution'][0]} x {d['resolution'][1]} x {d['resolution'][2]}-cell bar, "
            f"{d['steps']} steps per recording ({d['cpu']}). RMS vertex error over every state, mm:",
            "",
            "| model | parameters | " + " | ".join(f"{k} (trained)" for k in train) +
            f" | {d['test']} | uniaxial stress, worst error 0.7-1.6 | fit time |",
            "|---|---|" + "---|" * (len(train) + 3)]
    fmt = lambda e: "failed" if e != e else f"{e * 1e3:.3f}"
    for key in ("neo_hookean", "mooney_rivlin", "neural"):
        m = models[key]
        rows.append(f"| {names[key]} | {m['n_parameters']} | " +
                    " | ".join(fmt(m["rms_m"][k]) for k in train) +
                    f" | {fmt(m['rms_m'][d['test']])} | {100 * m['worst_uniaxial_error']:.1f}% | "
                    f"{m['fit_seconds']:.0f} s |")
    ratio = d["held_out_ratio_neural_to_best_analytic"]
    rows += ["", f"Held-out error of the neural material over the best analytic fit's: "
                 f"**{ratio:.3f}** (goal: at most 0.2, {'met' if ratio <= 0.2 else 'not met'}); "
                 f"its uniaxial stress within 5% of the truth over stretches 0.7-1.6: "
                 f"{'met' if models['neural']['worst_uniaxial_error'] <= 0.05 else 'not met'} "
                 f"(worst {100 * models['neural']['worst_uniaxial_error']:.1f}%)."]
    return rows


TABLES = {"neural_material": neural_material, "startup": startup, "sysid_cantilever": sysid_cantilever, "armadillo": armadillo, "big_mesh": big_mesh, "locomotion_compare": locomotion_compare, "sysid_scenes": sysid_scenes, "cantilever_solvers": cantilever_solvers, "adjoint_cantilever": adjoint_cantilever,
          "mesh_contact": mesh_contact, "rigid_robots": rigid_robots, "peer_pytorch": peer_pytorch, "peer_sweep": peer_sweep, "diffpd_armadillo": diffpd_armadillo, "thread_policy": thread_policy, "material_throughput": material_throughput,
          "hessian_projection": hessian_projection,
          "locomotion_speed": locomotion_speed, "batch_rollouts": batch_rollouts,
          "python_overhead": python_overhead, "biped_bptt": biped_bptt, "torch_batch": torch_batch,
          "locomotion_training": locomotion_training, "locomotion_dt": locomotion_dt}


def doc_files():
    """README.md and every Markdown page under docs/."""
    files = [os.path.join(ROOT, "README.md")]
    files += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    return [f for f in files if os.path.isfile(f)]


# Marked blocks that another script writes (not benchmark tables): left alone here.
OTHER_GENERATORS = {}

MARKER = re.compile(r"<!-- ([A-Za-z0-9_]+):begin[^\n]*-->\n")


def main():
    check = "--check" in sys.argv
    texts = {path: open(path).read() for path in doc_files()}
    where = {}
    for path, text in texts.items():
        for m in MARKER.finditer(text):
            if m.group(1) in OTHER_GENERATORS:
                continue
            where.setdefault(m.group(1), []).append(os.path.relpath(path, ROOT))
    errors = [f"{name}: markers in {', '.join(paths)}" for name, paths in where.items()
              if len(paths) > 1]
    errors += [f"{name}: markers without a generator in {', '.join(paths)}"
               for name, paths in where.items() if name not in TABLES]
    errors += [f"{name}: no markers in README.md or docs/" for name in TABLES if name not in where]
    if errors:
        sys.exit("scripts/readme_tables.py:\n  " + "\n  ".join(errors))
    stale = []
    for path, text in texts.items():
        new = text
        for name in (n for n, paths in where.items() if os.path.relpath(path, ROOT) in paths):
            pattern = re.compile(r"(<!-- %s:begin[^\n]*-->\n)(.*?)(<!-- %s:end -->)" % (name, name),
                                 re.S)
            if not pattern.search(new):
                sys.exit(f"{os.path.relpath(path, ROOT)}: {name}:begin without {name}:end")
            body = "\n".join(TABLES[name]()) + "\n"
            new = pattern.sub(lambda m: m.group(1) + body + m.group(3), new)
        if new != text:
            stale.append(os.path.relpath(path, ROOT))
            if not check:
                with open(path, "w") as f:
                    f.write(new)
    if check and stale:
        sys.exit("benchmark tables out of date in " + ", ".join(stale) +
                 ": run /usr/bin/python3 scripts/readme_tables.py")
    if not check:
        print("rewrote " + (", ".join(stale) if stale else "nothing (all tables up to date)"))


if __name__ == "__main__":
    main()
