"""What the benchmarks record about the machine and the build they ran on (issue 49, item 6):
the CPU, its hardware threads, softgrad's compiler and the BLAS library the process loaded."""

import json
import os
import platform


def cpu_name():
    """The CPU's model name (/proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def blas_libraries():
    """The BLAS libraries mapped into this process, Debian's alternatives resolved (the real
    files, e.g. 'openblas-pthread/libblas.so.3'), comma-separated; call after importing the
    modules that load it (softgrad's CHOLMOD, numpy, torch)."""
    found = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line[line.find("/"):].strip() if "/" in line else ""
                name = os.path.basename(path)
                if "blas" in name or "mkl" in name:
                    found.add(os.path.join(os.path.basename(os.path.dirname(path)), name))
    except OSError:
        return "unknown"
    return ", ".join(sorted(found)) or "none loaded"


def machine():
    """{cpu, hardware_threads, compiler, blas, python} with softgrad's build_info() when
    softgrad is imported."""
    out = {"cpu": cpu_name(), "hardware_threads": os.cpu_count(),
           "python": platform.python_version()}
    try:
        import softgrad
        out["softgrad_build"] = softgrad.build_info()
        out["compiler"] = out["softgrad_build"]["compiler"]
    except (ImportError, AttributeError):
        out["compiler"] = "unknown (softgrad not importable)"
    out["blas"] = blas_libraries()
    return out


def write_result(path, result, indent=1):
    """Writes a benchmark's result to `path` as JSON (its folder made if missing), with the
    machine it ran on under "machine" where the result is a dict that does not say yet."""
    if isinstance(result, dict) and "machine" not in result:
        result = {**result, "machine": machine()}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f, indent=indent)
        f.write("\n")
