#!/usr/bin/python3
"""sysid_scenes: `softgrad sysid` on every shipped system-identification scene and recording
(scenes/data/, made by the commands in scenes/README.md, "Recorded data"), from the scenes'
guesses. Writes each fit's estimates, standard deviations, the parameters the recording was made
with, simulations, iterations, seconds and marker rms to JSON; scripts/readme_tables.py writes
the README's table from it.

    /usr/bin/python3 benchmarks/sysid_scenes.py [--exe build/softgrad]
        [--out benchmarks/results/sysid_scenes.json]

The per-element fit (two-material beam) is summarised by the geometric mean of the fitted
modulus over x-ranges of the element centroids (the mesh comes from the Python module, which
must be built).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from machine_info import write_result  # noqa: E402

# (case, scene, recording or None for the scene's own experiments, the values the recording was
# made with, in the order of the scene's sysid parameters; None for the per-element field).
CASES = [
    ("cantilever_clean", "cantilever_sysid.json", "cantilever_clean.csv", [6000.0, 4.0]),
    ("cantilever_noisy", "cantilever_sysid.json", "cantilever_noisy.csv", [6000.0, 4.0]),
    ("cantilever_two_experiments", "cantilever_sysid.json", None, [6000.0, 4.0]),
    ("cantilever_fine", "cantilever_sysid.json", "cantilever_fine.csv", [6000.0, 4.0]),
    ("block_sliding", "block_sliding_sysid.json", "block_sliding.csv", [0.4]),
    ("block_bouncing", "block_bouncing_sysid.json", "block_bouncing.csv", [2e5, 2e4]),
    ("ball_bouncing", "ball_bouncing_sysid.json", "ball_bouncing.csv", [1e5, 3e4, 2.0]),
    ("beam_two_material", "beam_two_material_sysid.json", "beam_two_material.csv", None),
]
# The two-material beam: 4 MPa for x < 0.15 m, 1 MPa beyond; 12 x 2 cells of 0.3 x 0.05 m.
BEAM_REGIONS = [("x < 0.1 m", 0.0, 0.1, 4e6), ("x < 0.15 m", 0.0, 0.15, 4e6),
                ("0.15-0.25 m", 0.15, 0.25, 1e6)]


def fit(exe, scene, data, out):
    command = [exe, "sysid", os.path.join(ROOT, "scenes", scene), "--out", out, "--quiet"]
    if data:
        command += ["--data", os.path.join(ROOT, "scenes", "data", data)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f), command


def beam_centroids_x():
    """x of the element centroids of beam_two_material_sysid's mesh, in the model's order."""
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import numpy as np
    import softgrad
    scene = softgrad.load(os.path.join(ROOT, "scenes", "beam_two_material_sysid.json"))
    X = np.asarray(scene.rest_positions)
    return X[np.asarray(scene.elements)].mean(axis=1)[:, 0].tolist()


def summarise(case, report, truth):
    parameters = report["parameters"]
    entry = {"case": case, "method": report["method"], "iterations": report["iterations"],
             "simulations": report["simulations"], "seconds": report["seconds"],
             "converged": report["converged"], "rms_before_m": report["rms_before"],
             "rms_after_m": report["rms_after"], "warnings": report.get("warnings", [])}
    if case == "beam_two_material":
        xs = beam_centroids_x()
        values = [p["estimate"] for p in parameters]
        regions = []
        for name, lo, hi, true in BEAM_REGIONS:
            inside = [v for x, v in zip(xs, values) if lo <= x < hi]
            regions.append({"region": name, "truth": true, "elements": len(inside),
                            "geometric_mean": math.exp(sum(map(math.log, inside)) / len(inside))})
        entry.update({"field_values": len(values), "regions": regions,
                      "field_max": max(values), "field_min": min(values)})
        return entry
    truths = truth
    assert len(truths) == len(parameters), f"{case}: {len(parameters)} parameters"
    entry["parameters"] = [
        {"name": p["name"], "initial": p["initial"], "estimate": p["estimate"],
         "stddev": p.get("stddev"), "truth": t, "relative_error": p["estimate"] / t - 1.0}
        for p, t in zip(parameters, truths)]
    return entry


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exe", default=os.path.join(ROOT, "build", "softgrad"))
    parser.add_argument("--out", default=os.path.join(HERE, "results", "sysid_scenes.json"))
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, scene, data, truth in CASES:
            report, command = fit(args.exe, scene, data, os.path.join(tmp, case))
            entry = summarise(case, report, truth)
            entry["command"] = f"softgrad sysid scenes/{scene}" + (
                f" --data scenes/data/{data}" if data else "")
            results.append(entry)
            print(f"{case}: {report['simulations']} simulations, {report['seconds']:.2f} s",
                  flush=True)
    result = {"benchmark": "sysid_scenes",
              "command": "/usr/bin/python3 benchmarks/sysid_scenes.py",
              "cases": results}
    write_result(args.out, result)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
