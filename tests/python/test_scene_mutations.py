"""Every shipped scene, mutated, through `softgrad run` (issue 51, item 9: the campaign in the
project).

Each scene's JSON is changed in generic ways (type swaps, extreme and non-finite numbers, unknown
names and keys, special files in place of its file paths) and run for two steps under a time and
a memory limit. softgrad must answer each with exit 0, 1 or 2, and a refusal with a message that
is not an internal error: never a crash, a hang or exit 3. A plain run of the scene, with links
planted in its output folder, must not write through them.
"""

import copy
import glob
import json
import os
import random
import resource
import signal
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = os.environ.get("SOFTGRAD_EXE", os.path.join(ROOT, "build", "softgrad"))
SCENES = os.path.join(ROOT, "scenes")
SEED = int(os.environ.get("SOFTGRAD_MUTATION_SEED", "51"))
MUTATIONS = 6  # per scene, besides the special files: the whole test takes about a minute
TIME_LIMIT = 20  # seconds a mutated run may take, plus three times the plain run's
PLAIN_TIME_LIMIT = 120  # seconds for the plain run (long_beam's two steps take 12 s)
MEMORY_LIMIT = 4 << 30  # bytes of address space

FILE_SUFFIXES = (".msh", ".node", ".ele", ".obj", ".off", ".stl", ".csv", ".json")
EXTREMES = (1e300, -1e300, 0, -1, 5e-324, 1e-310, 2**31, 2**63, 10**12)
NON_FINITE = (float("nan"), float("inf"), float("-inf"))  # json.dumps writes NaN and Infinity
SWAPS = {"number": ("12", [1], {"x": 1}, None, True), "string": (7, None, ["x"]),
         "bool": ("true", 1), "null": (0, "null"), "list": ({}, 1)}

pytestmark = pytest.mark.skipif(not os.path.isfile(EXE), reason=f"no softgrad binary at {EXE}")


def kind(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "list", dict: "object", type(None): "null"}[type(value)]


def nodes(tree, path=()):
    """(path, value) of every node below `tree`, depth first; a path is a tuple of keys and
    indices."""
    if isinstance(tree, dict):
        items = tree.items()
    elif isinstance(tree, list):
        items = enumerate(tree)
    else:
        return
    for key, value in items:
        yield path + (key,), value
        yield from nodes(value, path + (key,))


def key_of(path):
    return next((p for p in reversed(path) if isinstance(p, str)), "")


def describe(path):
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return text or "the top"


def names_a_file(path, value):
    return isinstance(value, str) and (key_of(path).endswith(("mesh", "file", "path"))
                                       or value.lower().endswith(FILE_SUFFIXES))


def replaced(tree, path, value):
    out = copy.deepcopy(tree)
    parent = out
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return out


def numbers(scene):
    return [p for p, v in nodes(scene) if kind(v) == "number"]


def type_swap(scene, rng):
    path, value = rng.choice(list(nodes(scene)))
    new = list(value.values()) if kind(value) == "object" else rng.choice(SWAPS[kind(value)])
    return f"type swap: {describe(path)} = {json.dumps(new)}", replaced(scene, path, new)


def extreme_number(scene, rng):
    path, new = rng.choice(numbers(scene)), rng.choice(EXTREMES)
    return f"extreme number: {describe(path)} = {new!r}", replaced(scene, path, new)


def non_finite(scene, rng):
    path, new = rng.choice(numbers(scene)), rng.choice(NON_FINITE)
    return f"non-finite number: {describe(path)} = {json.dumps(new)}", replaced(scene, path, new)


def unknown_name(scene, rng):
    """A type, model, mode or reference (not a free name) replaced by one that is none."""
    path = rng.choice([p for p, v in nodes(scene)
                       if kind(v) == "string" and key_of(p) not in ("name", "description")])
    return f'unknown name: {describe(path)} = "no_such_name"', replaced(scene, path, "no_such_name")


def unknown_key(scene, rng):
    path = rng.choice([()] + [p for p, v in nodes(scene) if kind(v) == "object"])
    out = copy.deepcopy(scene)
    target = out
    for p in path:
        target = target[p]
    target["no_such_key"] = 1
    return f'unknown key: {describe(path)} gets "no_such_key": 1', out


CLASSES = (type_swap, extreme_number, non_finite, unknown_name, unknown_key)


def sampled_mutations(scene, rng):
    """MUTATIONS mutations, the classes in turn from one the seed picks."""
    first = rng.randrange(len(CLASSES))
    return [CLASSES[(first + i) % len(CLASSES)](scene, rng) for i in range(MUTATIONS)]


def special_file_mutations(scene, folder):
    """Each file path of the scene replaced by a FIFO, /dev/zero (as it is, and through a link
    with the path's suffix), a folder and a missing file."""
    for path, value in nodes(scene):
        if not names_a_file(path, value):
            continue
        suffix = os.path.splitext(value)[1]
        fifo, zero, directory, missing = (os.path.join(folder, stem + suffix)
                                          for stem in ("fifo", "zero", "dir", "missing"))
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
            os.symlink("/dev/zero", zero)
            os.mkdir(directory)
        for special in (fifo, "/dev/zero", zero, directory, missing):
            yield f"special file: {describe(path)} = {special}", replaced(scene, path, special)


def with_absolute_paths(scene):
    """The scene with its relative file paths made absolute (they are relative to scenes/)."""
    for path, value in list(nodes(scene)):
        if names_a_file(path, value) and not os.path.isabs(value):
            scene = replaced(scene, path, os.path.join(SCENES, value))
    return scene


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(scene_file, out, seconds):
    """softgrad run for two steps under the limits: (exit code, or what stopped it, and stderr).
    On the time limit its whole process group (a TetGen child too) is killed."""
    command = [EXE, "run", scene_file, "--steps", "2", "--out", out, "--quiet"]
    with subprocess.Popen(command, cwd=os.path.dirname(scene_file), stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, encoding="utf-8",
                          errors="replace", start_new_session=True,
                          preexec_fn=limit_memory) as proc:
        try:
            _, err = proc.communicate(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            return f"no answer in {seconds:.0f} s", err
    if proc.returncode < 0:
        return f"killed by {signal.Signals(-proc.returncode).name}", err
    return proc.returncode, err


def problem(code, err, expected=(0, 1, 2)):
    """What is wrong with a run's answer, or None."""
    if code not in expected:
        return code if isinstance(code, str) else f"exit {code}"
    if code != 0 and not err.strip():
        return f"exit {code} without a message"
    if "internal error" in err.lower():
        return f"exit {code} with an internal error"
    return None


def listing(folder):
    return sorted(os.path.join(d, f) for d, dirs, files in os.walk(folder) for f in dirs + files)


def plain_run_with_planted_links(scene, tmp_path):
    """Runs the unmutated scene with links to a sentinel outside its output folder planted at the
    names a writer uses: (its seconds, what went wrong)."""
    outside, out = tmp_path / "outside", tmp_path / "plain"
    outside.mkdir()
    out.mkdir()
    sentinel = outside / "sentinel.txt"
    sentinel.write_text("sentinel\n")
    name = scene.get("name", "scene")
    planted = ["summary.json", "summary.json.tmp", ".softgrad-write-check.tmp", "frames",
               f"{name}.pvd", f"{name}.pvd.tmp"]
    planted += [f"{name}{part}_{step:06d}.vtu" for part in ("", "_rigid") for step in range(3)]
    for link in planted:
        os.symlink(sentinel, out / link)
    scene_file = tmp_path / "plain.json"
    scene_file.write_text(json.dumps(scene))
    before = listing(SCENES)
    start = time.monotonic()
    code, err = run(str(scene_file), str(out), PLAIN_TIME_LIMIT)
    seconds = time.monotonic() - start
    failures = []
    if problem(code, err):
        failures.append(f"plain run with planted links: {problem(code, err)}\n    {err[-800:]}")
    if sentinel.read_text() != "sentinel\n" or os.listdir(outside) != ["sentinel.txt"]:
        failures.append(f"plain run wrote through a planted link: {os.listdir(outside)}, "
                        f"sentinel {sentinel.read_text()[:80]!r}")
    if listing(SCENES) != before:
        failures.append("plain run wrote into scenes/")
    return seconds, failures


@pytest.mark.parametrize("scene_file", sorted(glob.glob(os.path.join(SCENES, "*.json"))),
                         ids=os.path.basename)
def test_a_mutated_scene_is_run_or_refused_never_crashes_or_hangs(scene_file, tmp_path):
    with open(scene_file) as f:
        scene = with_absolute_paths(json.load(f))
    seconds, failures = plain_run_with_planted_links(scene, tmp_path)
    special = tmp_path / "special"
    special.mkdir()
    rng = random.Random(f"{SEED}:{os.path.basename(scene_file)}")
    cases = sampled_mutations(scene, rng) + list(special_file_mutations(scene, str(special)))
    for i, (mutation, mutated) in enumerate(cases):
        mutated_file = tmp_path / f"mutant{i}.json"
        mutated_file.write_text(json.dumps(mutated, indent=1))
        code, err = run(str(mutated_file), str(tmp_path / f"out{i}"), TIME_LIMIT + 3 * seconds)
        not_json = mutation.startswith("non-finite")  # NaN, Infinity: refused as bad input
        wrong = problem(code, err, (1,) if not_json else (0, 1, 2))
        if wrong:
            failures.append(f"{mutation}: {wrong}\n    {err[-800:].strip()}")
    assert not failures, f"{os.path.basename(scene_file)}:\n" + "\n".join(failures)
