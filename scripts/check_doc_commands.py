"""Runs the commands the documentation shows, as a user would after the set-up.

    python3 scripts/check_doc_commands.py            # run them all; exit 1 if any fails
    python3 scripts/check_doc_commands.py --list     # only list what would run
    python3 scripts/check_doc_commands.py FILE.md    # only the commands of these files

Every line of a ```bash block in README.md and docs/**/*.md that starts with `softgrad `,
`python3 `, `mpirun ` or `bash ` is a command. Skipped: lines marked with a trailing `# long`,
the set-up command (`bash scripts/setup.sh ...`) and the test suite (`bash scripts/test.sh`).
The commands run in order, each with a timeout of 120 s, in a temporary copy of the repository
(its tracked and untracked files, without build output, out/ or site/), so outputs land in the
copy's out/ and the repository is left alone.

`softgrad` and `python3` are taken from the environment: run this with .venv activated (or with
.venv present, whose bin/ is then put first on PATH). Without .venv, a build folder serves:
build/softgrad is put on PATH under the name `softgrad`, and build/python on PYTHONPATH.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PREFIXES = ("softgrad ", "python3 ", "mpirun ", "bash ")
SKIP = (re.compile(r"^bash scripts/setup\.sh\b"), re.compile(r"^bash scripts/test\.sh\b"))
TIMEOUT_S = 120
# Not copied into the temporary repository: outputs and build products.
IGNORED = {".git", "build", "out", "site", ".venv", "__pycache__", ".pytest_cache", ".cache"}


def doc_files(args):
    named = [a for a in args if a.endswith(".md")]
    if named:
        return [os.path.abspath(a) for a in named]
    files = [os.path.join(ROOT, "README.md")]
    return files + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def commands(path):
    """(line number, command) of each runnable line of the file's ```bash blocks."""
    found, in_bash, fence = [], False, None
    lines = open(path).read().splitlines()
    for number, line in enumerate(lines, 1):
        m = re.match(r"^\s*(`{3,})\s*(\S*)", line)
        if m and fence is None:
            fence, in_bash = m.group(1), m.group(2) in ("bash", "sh", "shell", "console")
            continue
        if m and fence is not None and m.group(1) == fence and not m.group(2):
            fence, in_bash = None, False
            continue
        if not in_bash:
            continue
        command = line.strip()
        if not command.startswith(PREFIXES):
            continue
        # A command continued over several lines with backslashes.
        k = number
        while command.endswith("\\") and k < len(lines):
            command = command[:-1].rstrip() + " " + lines[k].strip()
            k += 1
        if re.search(r"#\s*long\s*$", command) or any(p.match(command) for p in SKIP):
            continue
        found.append((number, command))
    return found


def environment(tmp):
    env = dict(os.environ)
    venv = os.path.join(ROOT, ".venv")
    if os.path.isdir(os.path.join(venv, "bin")) and not env.get("VIRTUAL_ENV"):
        env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
        env["VIRTUAL_ENV"] = venv
    if not shutil.which("softgrad", path=env["PATH"]):
        program = os.path.join(ROOT, "build", "softgrad")
        if not os.path.exists(program):
            sys.exit("no softgrad: run the set-up (bash scripts/setup.sh) or build into build/")
        tools = os.path.join(tmp, "bin")
        os.makedirs(tools, exist_ok=True)
        os.symlink(program, os.path.join(tools, "softgrad"))
        # The build folder's package is built for Debian's Python.
        os.symlink("/usr/bin/python3", os.path.join(tools, "python3"))
        env["PATH"] = tools + os.pathsep + env["PATH"]
        env["PYTHONPATH"] = os.path.join(ROOT, "build", "python") + (
            os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def copy_repository(dest):
    def ignore(folder, names):
        top = os.path.normpath(folder) == ROOT
        return [n for n in names if n in IGNORED and (top or n in ("__pycache__",
                                                                  ".pytest_cache"))]
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    os.makedirs(os.path.join(dest, "out"), exist_ok=True)


def main():
    args = sys.argv[1:]
    todo = [(os.path.relpath(f, ROOT), n, c) for f in doc_files(args) for n, c in commands(f)]
    if "--list" in args:
        for f, n, c in todo:
            print(f"{f}:{n}: {c}")
        return
    failures = []
    with tempfile.TemporaryDirectory(prefix="softgrad-doc-commands-") as tmp:
        repo = os.path.join(tmp, "repo")
        copy_repository(repo)
        env = environment(tmp)
        for f, n, c in todo:
            start = time.monotonic()
            try:
                r = subprocess.run(["bash", "-c", c], cwd=repo, env=env, capture_output=True,
                                   text=True, timeout=TIMEOUT_S)
                status = r.returncode
                tail = (r.stdout + r.stderr).strip().splitlines()[-8:]
            except subprocess.TimeoutExpired as e:
                status = "timeout"
                out = (e.stdout or b"") + (e.stderr or b"")
                tail = out.decode(errors="replace").strip().splitlines()[-8:] if isinstance(
                    out, bytes) else str(out).splitlines()[-8:]
            seconds = time.monotonic() - start
            ok = status == 0
            print(f"{'ok  ' if ok else 'FAIL'} {seconds:6.1f} s  {f}:{n}: {c}", flush=True)
            if not ok:
                failures.append((f, n, c, status, tail))
                for line in tail:
                    print(f"        {line}")
    if failures:
        print(f"\n{len(failures)} of {len(todo)} commands failed:")
        for f, n, c, status, _ in failures:
            why = f"timed out after {TIMEOUT_S} s (mark it '# long')" if status == "timeout" \
                else f"exit {status}"
            print(f"  {f}:{n}: {c}: {why}")
        sys.exit(1)
    print(f"all {len(todo)} commands passed")


if __name__ == "__main__":
    main()
