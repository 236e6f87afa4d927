"""How long softgrad takes to start, and what a CPU run loads, measured in one run:

  help:     `softgrad --help` (the program in build/, and the console script of a venv when
            --venv is given): wall time and peak memory (max RSS) of the process;
  import:   `python -c "import softgrad"` against `python -c "pass"` in the same interpreter;
  one step: `softgrad run scenes/cantilever.json --steps 1` (load, one step, frames, summary);
  CUDA:     whether any CUDA library is mapped into a CPU run (/proc/PID/maps of the program
            during a run, and /proc/self/maps of Python after a simulation);
  setup:    the times scripts/setup.sh wrote to build/setup_times.json, when present.

Each command runs `--repeats` times; the JSON has the median and the fastest.

    /usr/bin/python3 benchmarks/startup.py [--venv .venv] [--repeats 11] \\
        [--out benchmarks/results/startup.json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from machine_info import cpu_name, machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA_NAMES = ("libcuda", "libcudart", "libcublas", "libcusparse", "libsoftgrad_cuda")


def timed(command, env=None):
    """Wall seconds and max RSS (MiB) of one run of `command` (which must exit 0)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env, cwd=ROOT)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"startup: {' '.join(command)} failed: {process.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024.0


def measure(command, repeats, env=None):
    runs = [timed(command, env) for _ in range(repeats)]
    seconds = [r[0] for r in runs]
    return {"command": " ".join(command), "median_s": statistics.median(seconds),
            "fastest_s": min(seconds), "max_rss_mib": max(r[1] for r in runs)}


def cuda_maps_of_run(program):
    """The CUDA libraries mapped into a running `softgrad run` (read from /proc/PID/maps)."""
    with tempfile.TemporaryDirectory() as out:
        process = subprocess.Popen([program, "run", "scenes/cantilever.json", "--out", out,
                                    "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL)
        maps = ""
        while process.poll() is None:
            try:
                with open(f"/proc/{process.pid}/maps") as f:
                    text = f.read()
                if "libsoftgrad" in text:
                    maps = text  # the library is loaded: the run is under way
            except OSError:
                break
            time.sleep(0.02)
        if process.wait() != 0 or not maps:
            raise SystemExit("startup: could not watch a run of the cantilever")
    return sorted({line.split()[-1] for line in maps.splitlines()
                   if any(n in line for n in CUDA_NAMES)})


def cuda_maps_of_python(python, env):
    code = ("import softgrad, sys; s = softgrad.load(sys.argv[1]); "
            "s.simulate(s.rollout(steps=1)); "
            "print('\\n'.join(sorted({l.split()[-1] for l in open('/proc/self/maps') "
            f"if any(n in l for n in {CUDA_NAMES!r})}})))")
    result = subprocess.run([python, "-c", code, "scenes/cantilever.json"], cwd=ROOT, env=env,
                            check=True, capture_output=True, text=True)
    return [line for line in result.stdout.splitlines() if line]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--venv", help="a venv softgrad is pip-installed in (its console script)")
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "startup.json"))
    args = parser.parse_args()

    program = os.path.join(args.build, "softgrad")
    env = dict(os.environ, PYTHONPATH=os.path.join(args.build, "python"))
    python = "/usr/bin/python3"
    if args.venv:  # the installed package, not the build tree's
        python = os.path.join(args.venv, "bin", "python")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory() as out:
        result = {
            "cpu": cpu_name(), "machine": machine(), "cores": os.cpu_count(),
            "help": measure([program, "--help"], args.repeats),
            "python_bare": measure([python, "-c", "pass"], args.repeats, env),
            "import": measure([python, "-c", "import softgrad"], args.repeats, env),
            "one_step_scene": measure([program, "run", "scenes/cantilever.json", "--steps", "1",
                                       "--out", out, "--quiet"], args.repeats),
        }
        if args.venv:
            result["help_console_script"] = measure(
                [os.path.join(args.venv, "bin", "softgrad"), "--help"], args.repeats, env)
    result["import_over_bare_s"] = result["import"]["median_s"] - result["python_bare"]["median_s"]
    result["cuda_libraries_in_cpu_run"] = cuda_maps_of_run(program)
    result["cuda_libraries_in_python_run"] = cuda_maps_of_python(python, env)
    setup_times = os.path.join(args.build, "setup_times.json")
    if os.path.exists(setup_times):
        with open(setup_times) as f:
            result["setup"] = json.load(f)
    result["targets"] = {"help_s": 0.1, "help_mib": 40, "import_s": 0.3, "one_step_scene_s": 0.2,
                         "setup_s": 300}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    for key in ("help", "help_console_script", "import", "one_step_scene"):
        if key in result:
            r = result[key]
            print(f"{key:20s} median {r['median_s'] * 1000:7.1f} ms, fastest "
                  f"{r['fastest_s'] * 1000:7.1f} ms, max RSS {r['max_rss_mib']:6.1f} MiB")
    print(f"CUDA libraries mapped: CPU run {result['cuda_libraries_in_cpu_run'] or 'none'}, "
          f"Python {result['cuda_libraries_in_python_run'] or 'none'}")
    print(f"wrote {args.out}")
    if result["cuda_libraries_in_cpu_run"] or result["cuda_libraries_in_python_run"]:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
