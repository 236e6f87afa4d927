#!/usr/bin/python3
"""The docs' pictures: every shipped scene (scenes/*.json) run briefly with `softgrad run` and its
last frame rendered by softgrad.render into docs/gallery/<scene>.png, listed in docs/gallery.md;
and the README's first picture, the whole cantilever run, as docs/images/cantilever.gif and .png.

    scripts/gallery.py                      # everything (a few minutes on 2 cores)
    scripts/gallery.py cantilever armadillo # only these scenes; gallery.md lists what exists
    scripts/gallery.py --no-readme          # the gallery, not the README's cantilever

Each scene runs at most --max-steps steps, or --max-seconds of wall time, whichever ends first
(a run cut short keeps its frames). A scene that writes no frames (a static solve
without output, a sysid or training set-up `softgrad run` cannot step) is listed with the reason.
The PNGs are palette images (256 colours) to keep the repository small.
"""

import argparse
import glob
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
EXE = os.environ.get("SOFTGRAD_EXE", os.path.join(ROOT, "build", "softgrad"))


def load_render():
    """softgrad/render.py from the source tree (it does not need the compiled extension)."""
    path = os.path.join(ROOT, "python", "softgrad", "render.py")
    spec = importlib.util.spec_from_file_location("softgrad_render", path)
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shrink_png(path):
    """Rewrite a PNG as a 256-colour palette PNG (about a third of the size)."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256)
    small.save(path, optimize=True)


def run_scene(scene_file, out, max_steps, max_seconds):
    """`softgrad run` for at most max_steps steps, stopped (SIGTERM: it keeps what it wrote) after
    max_seconds; (None, steps done) when it wrote frames, else (the reason, None)."""
    with open(scene_file, encoding="utf-8") as f:
        scene = json.load(f)
    duration = (scene.get("time") or {}).get("duration")
    dt = (scene.get("time") or {}).get("dt")
    steps = max(1, min(max_steps, round(duration / dt))) if duration and dt else max_steps
    command = [EXE, "run", scene_file, "--steps", str(steps), "--out", out, "--quiet"]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True) as run:
        try:
            _, err = run.communicate(timeout=max_seconds)
        except subprocess.TimeoutExpired:
            run.terminate()
            _, err = run.communicate()
    if glob.glob(os.path.join(out, "*.pvd")) and glob.glob(os.path.join(out, "*.vtu")):
        try:
            with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
                return None, json.load(f).get("steps_completed", steps)
        except (OSError, ValueError):
            return None, steps
    message = (err.strip().splitlines() or [f"exit code {run.returncode}"])[-1]
    return f"`softgrad run` writes no frames: {message.removeprefix('softgrad: error: ')}", None


def description(scene_file):
    """The first sentence of the scene's description ("" without one)."""
    with open(scene_file, encoding="utf-8") as f:
        text = " ".join(str(json.load(f).get("description", "")).split())
    return re.split(r"(?<=[\w)][.!?])\s+(?=[\w(])", text)[0]


def write_page(entries, path):
    """docs/gallery.md: each scene's picture, name and description; the skipped ones and why."""
    lines = ["# Gallery", "",
             "The last frame of a short run of each scene in `scenes/`, drawn by "
             "[`softgrad render`](#how-these-pictures-are-made). Regenerate with "
             "`scripts/gallery.py`.", ""]
    shown = [e for e in entries if e["picture"]]
    skipped = [e for e in entries if not e["picture"]]
    for e in shown:
        lines += [f"## {e['name']}", ""]
        if e["description"]:
            lines += [e["description"], ""]
        lines += [f"![{e['name']}](gallery/{e['name']}.png)", "",
                  f"`softgrad run scenes/{e['name']}.json --steps {e['steps']}`", ""]
    if skipped:
        lines += ["## Scenes without a picture", ""]
        lines += [f"* `{e['name']}`: {e['reason']}" for e in skipped]
        lines += [""]
    lines += ["## How these pictures are made", "",
              "`softgrad run SCENE --out DIR` writes the frames (`DIR/<name>.pvd` and one .vtu "
              "per frame); `softgrad render DIR` (or `python3 -m softgrad.render DIR`) paints "
              "them with matplotlib: `DIR/<name>.png` for the last frame and `DIR/<name>.gif` "
              "for all of them. `--field strain_energy_density` colours the bodies by a field of "
              "the frames, `--mp4 FILE` writes a video (ffmpeg), `--frames first|last|all|i,j,k` "
              "(or a slice such as `::2`) picks frames, `--size WxH` and `--view ELEV,AZIM` set "
              "the picture. The obstacles come from the scene file that `summary.json` names.",
              ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def gallery(render, names, args, work):
    """Run and render each scene; the entries of docs/gallery.md."""
    os.makedirs(os.path.join(DOCS, "gallery"), exist_ok=True)
    entries = []
    for scene_file in sorted(glob.glob(os.path.join(ROOT, "scenes", "*.json"))):
        name = os.path.splitext(os.path.basename(scene_file))[0]
        png = os.path.join(DOCS, "gallery", f"{name}.png")
        if names and name not in names:
            if os.path.exists(png):
                entries.append(dict(name=name, picture=True, description=description(scene_file),
                                    steps=previous_steps(name)))
            continue
        out = os.path.join(work, name)
        start = time.monotonic()
        reason, steps = run_scene(scene_file, out, args.max_steps, args.max_seconds)
        seconds = time.monotonic() - start
        entry = dict(name=name, description=description(scene_file), picture=False,
                     reason=reason, steps=steps)
        if reason is None:
            start = time.monotonic()
            try:
                render.render(out, png=png, size=(480, 360))
                shrink_png(png)
                entry["picture"] = True
            except render.RenderError as e:
                entry["reason"] = f"not rendered: {e}"
            print(f"{name}: {steps} steps in {seconds:.1f} s, rendered in "
                  f"{time.monotonic() - start:.1f} s", flush=True)
        else:
            print(f"{name}: skipped ({reason})", flush=True)
            if os.path.exists(png):
                os.remove(png)
        entries.append(entry)
    return entries


def previous_steps(name):
    """The step count docs/gallery.md gave for a scene not rerun this time."""
    try:
        with open(os.path.join(DOCS, "gallery.md"), encoding="utf-8") as f:
            for line in f:
                if line.startswith(f"`softgrad run scenes/{name}.json --steps "):
                    return int(line.split("--steps ")[1].rstrip("`\n"))
    except (OSError, ValueError):
        pass
    return None


def readme_pictures(render, work):
    """docs/images/cantilever.gif (the whole 2 s run, every other frame: 51 frames at 25 a
    second, real time) and cantilever.png (its last frame)."""
    images = os.path.join(DOCS, "images")
    os.makedirs(images, exist_ok=True)
    out = os.path.join(work, "cantilever_full")
    subprocess.run([EXE, "run", os.path.join(ROOT, "scenes", "cantilever.json"), "--out", out,
                    "--quiet"], check=True, stdout=subprocess.DEVNULL)
    start = time.monotonic()
    render.render(out, png=os.path.join(images, "cantilever.png"), size=(640, 400))
    shrink_png(os.path.join(images, "cantilever.png"))
    render.render(out, frames="::2", video=os.path.join(images, "cantilever.gif"),
                  size=(640, 400))
    print(f"cantilever (README): rendered in {time.monotonic() - start:.1f} s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", nargs="*", help="only these scenes (names without .json)")
    parser.add_argument("--max-steps", type=int, default=60, help="steps per scene (60)")
    parser.add_argument("--max-seconds", type=float, default=8.0,
                        help="wall time per scene run (8 s)")
    parser.add_argument("--no-readme", action="store_true", help="skip the README's cantilever")
    args = parser.parse_args()
    if not os.access(EXE, os.X_OK):
        sys.exit(f"gallery.py: no softgrad command at '{EXE}' (build it, or set SOFTGRAD_EXE)")
    render = load_render()
    with tempfile.TemporaryDirectory(prefix="softgrad-gallery-") as work:
        entries = gallery(render, set(args.scenes), args, work)
        write_page(entries, os.path.join(DOCS, "gallery.md"))
        if not args.no_readme and (not args.scenes or "cantilever" in args.scenes):
            readme_pictures(render, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
