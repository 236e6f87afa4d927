"""softgrad's PEP 517 build backend: `pip install .` and `pip wheel .` drive CMake.

It needs nothing outside the standard library and the Debian packages the set-up installs, so
it works with `pip install --no-build-isolation .` where no package index is reachable. It
configures and builds the library, the `softgrad` program and the Python module in `build/`
(the same folder the tests use, so one compile serves both; SOFTGRAD_BUILD_DIR or
`--config-settings build-dir=DIR` choose another; SOFTGRAD_CMAKE_ARGS or
`--config-settings cmake-args="-DX=Y ..."` add CMake options), then packs a wheel:

    softgrad/               the package, its extension module _softgrad
    softgrad/libsoftgrad.so.0, libsoftgrad_tetgen.so, libsoftgrad_cuda.so (when built)
    softgrad/bin/softgrad   the program, for `python3 -m softgrad`
    softgrad-V.data/scripts/softgrad
                            the same program, installed as the environment's `softgrad`
                            command (bin/ of a venv, /usr/local/bin, ~/.local/bin)

The `softgrad` command is the program itself rather than a Python console script: a console
script starts an interpreter and imports the package before the program starts (0.15-0.23 s for
`softgrad --help` against 0.04 s). The binaries find libsoftgrad through $ORIGIN-relative run
paths only: the command from the scripts folder reaches the package in the same prefix's
lib/pythonX.Y/site-packages (venvs, --user, --prefix) or dist-packages (Debian's system Python).
"""

import base64
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    with open(os.path.join(_SOURCE, "CMakeLists.txt")) as f:
        return re.search(r"project\(softgrad VERSION ([0-9.]+)", f.read()).group(1)


def _tag():
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{python}-{python}-{platform}"


def _setting(config_settings, key, env):
    value = (config_settings or {}).get(key) or os.environ.get(env)
    return value or None


def _run(command):
    print("softgrad build:", " ".join(shlex.quote(c) for c in command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, stdout=sys.stderr)


def _build(config_settings):
    build = os.path.abspath(_setting(config_settings, "build-dir", "SOFTGRAD_BUILD_DIR") or
                            os.path.join(_SOURCE, "build"))
    configure = ["cmake", "-S", _SOURCE, "-B", build, "-DSOFTGRAD_WITH_PYTHON=ON",
                 f"-DPython_EXECUTABLE={sys.executable}"]
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        # A new build folder builds what the package needs; scripts/test.sh adds the rest.
        configure += ["-DCMAKE_BUILD_TYPE=Release", "-DSOFTGRAD_BUILD_TESTS=OFF",
                      "-DSOFTGRAD_BUILD_EXAMPLES=OFF"]
        # Ninja compiles a target's files while the libraries it links are still compiling;
        # with Makefiles each library waits for the last unit of the one before it (the set-up
        # took 289 s with Makefiles, ~240 s with Ninja, on 2 cores).
        if shutil.which("ninja") and not os.environ.get("CMAKE_GENERATOR"):
            configure += ["-G", "Ninja"]
    configure += shlex.split(_setting(config_settings, "cmake-args", "SOFTGRAD_CMAKE_ARGS") or "")
    _run(configure)
    _run(["cmake", "--build", build, "--target", "softgrad_package", "-j", str(os.cpu_count() or 1)])
    return build


def _set_runpath(path, runpath):
    script = f'file(RPATH_SET FILE "{path}" NEW_RPATH "{runpath}")'
    with tempfile.NamedTemporaryFile("w", suffix=".cmake", delete=False) as f:
        f.write(script)
    try:
        _run(["cmake", "-P", f.name])
    finally:
        os.unlink(f.name)


def _stage(build, stage, data):
    package = os.path.join(stage, "softgrad")
    shutil.copytree(os.path.join(build, "python", "softgrad"), package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    lib = os.path.join(build, "lib")
    shutil.copy2(os.path.join(lib, "libsoftgrad.so.0"), package)  # follows the link to the file
    with open(os.path.join(build, "package_modules.txt")) as f:
        for module in f.read().split():  # the modules this configuration builds
            shutil.copy2(os.path.join(lib, module), package)
    os.makedirs(os.path.join(package, "bin"))
    shutil.copy2(os.path.join(build, "softgrad"), os.path.join(package, "bin", "softgrad"))
    # Each binary finds libsoftgrad where the wheel puts it, and nowhere else.
    _set_runpath(os.path.join(package, "bin", "softgrad"), "$ORIGIN/..")
    scripts = os.path.join(stage, data, "scripts")
    os.makedirs(scripts)
    shutil.copy2(os.path.join(build, "softgrad"), os.path.join(scripts, "softgrad"))
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    _set_runpath(os.path.join(scripts, "softgrad"),
                 f"$ORIGIN/../lib/{python}/site-packages/softgrad:"
                 f"$ORIGIN/../lib/{python}/dist-packages/softgrad")
    for name in os.listdir(package):
        if name.startswith("_softgrad") and name.endswith(".so"):
            _set_runpath(os.path.join(package, name), "$ORIGIN")
    # The modules keep theirs: $ORIGIN (libsoftgrad beside them) and CUDA's library folder.


def _metadata(version):
    return "\n".join([
        "Metadata-Version: 2.1",
        "Name: softgrad",
        f"Version: {version}",
        "Summary: Differentiable implicit soft-body simulation: energies by reverse-mode AD, "
        "Newton's backward Euler, exact adjoint gradients",
        "License: MIT",
        "Requires-Python: >=3.9",
        "Requires-Dist: numpy",
        "Provides-Extra: torch",
        "Requires-Dist: torch; extra == \"torch\"",
        "", ""])


def _wheel_text():
    return (f"Wheel-Version: 1.0\nGenerator: softgrad pip_backend\nRoot-Is-Purelib: false\n"
            f"Tag: {_tag()}\n")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: builds with CMake and writes the wheel into `wheel_directory`."""
    version = _version()
    build = _build(config_settings)
    dist_info = f"softgrad-{version}.dist-info"
    name = f"softgrad-{version}-{_tag()}.whl"
    with tempfile.TemporaryDirectory() as stage:
        _stage(build, stage, f"softgrad-{version}.data")
        files = {}
        for root, _, names in os.walk(stage):
            for n in sorted(names):
                path = os.path.join(root, n)
                files[os.path.relpath(path, stage)] = path
        extra = {
            f"{dist_info}/METADATA": _metadata(version).encode(),
            f"{dist_info}/WHEEL": _wheel_text().encode(),
            f"{dist_info}/LICENSE": open(os.path.join(_SOURCE, "LICENSE"), "rb").read(),
        }
        record = []
        with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                             zipfile.ZIP_DEFLATED) as wheel:
            for arcname, path in sorted(files.items()):
                with open(path, "rb") as f:
                    data = f.read()
                info = zipfile.ZipInfo(arcname)
                info.external_attr = (os.stat(path).st_mode & 0o777 | 0o100000) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                wheel.writestr(info, data)
                record.append(_record_line(arcname, data))
            for arcname, data in extra.items():
                wheel.writestr(arcname, data)
                record.append(_record_line(arcname, data))
            record.append(f"{dist_info}/RECORD,,")
            wheel.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return name


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """PEP 517: the wheel's metadata without compiling anything."""
    dist_info = f"softgrad-{_version()}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for name, text in (("METADATA", _metadata(_version())), ("WHEEL", _wheel_text())):
        with open(os.path.join(metadata_directory, dist_info, name), "w") as f:
            f.write(text)
    return dist_info


def get_requires_for_build_wheel(config_settings=None):
    """PEP 517: nothing from a package index (CMake, a compiler and pybind11 come from Debian)."""
    return []
