"""softgrad.render paints the frames of `softgrad run` into PNGs, GIFs and MP4s: pictures of the
asked size that show something, one GIF frame per output frame, and one-line errors naming the
problem and the path. The module is loaded from the source tree: it needs no extension."""

import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="python3-matplotlib is not installed")
pytest.importorskip("meshio", reason="python3-meshio is not installed (scripts/setup.sh does)")
Image = pytest.importorskip("PIL.Image", reason="python3-pil is not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = os.environ.get("SOFTGRAD_EXE", os.path.join(ROOT, "build", "softgrad"))
SOURCE = os.path.join(ROOT, "python", "softgrad", "render.py")

spec = importlib.util.spec_from_file_location("softgrad_render_under_test", SOURCE)
render = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(render)


def simulate(out, scene, steps):
    if not os.access(EXE, os.X_OK):
        pytest.skip(f"no softgrad command at {EXE}")
    subprocess.run([EXE, "run", os.path.join(ROOT, "scenes", scene), "--steps", str(steps),
                    "--out", str(out), "--quiet"], check=True, stdout=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="module")
def cantilever(tmp_path_factory):
    """A 6-step cantilever run: frames 0, 2, 4, 6 (output.every = 2)."""
    return simulate(tmp_path_factory.mktemp("cantilever"), "cantilever.json", 6)


def pixels(path):
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB")).astype(int)


def assert_shows_something(picture, size):
    height, width = picture.shape[:2]
    assert (width, height) == size
    drawn = np.any(picture != picture[0, -1], axis=2)  # the top-right corner is background
    assert drawn.mean() > 0.03, f"only {drawn.mean():.1%} of the pixels are drawn"
    shades = np.unique(picture[drawn].reshape(-1, 3) // 8, axis=0)
    assert len(shades) > 5, f"{len(shades)} shades: not shaded"


def frame_count(run_dir):
    with open(run_dir / "cantilever.pvd") as f:
        return f.read().count("<DataSet")


def test_a_png_of_the_last_frame_has_its_size_and_shows_the_beam(cantilever, tmp_path):
    written = render.render(cantilever, png=tmp_path / "beam.png", size=(320, 240))
    assert written == [tmp_path / "beam.png"]
    assert_shows_something(pixels(tmp_path / "beam.png"), (320, 240))


def test_a_gif_has_one_frame_per_output_frame(cantilever, tmp_path):
    calls = []
    render.render(cantilever, video=tmp_path / "beam.gif", size=(200, 150),
                  progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    with Image.open(tmp_path / "beam.gif") as gif:
        assert gif.n_frames == frame_count(cantilever) == 4
        assert gif.size == (200, 150)
        gif.seek(0)
        first = np.asarray(gif.convert("RGB")).astype(int)
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB")).astype(int)
    assert_shows_something(last, (200, 150))
    assert np.any(first != last), "the beam does not move"


def test_the_command_line_defaults_write_the_run_s_png_and_gif(cantilever, capsys):
    assert render.main([str(cantilever), "--size", "160x120"]) == 0
    out = capsys.readouterr().out.split()
    assert out == [str(cantilever / "cantilever.png"), str(cantilever / "cantilever.gif")]
    with Image.open(cantilever / "cantilever.gif") as gif:
        assert gif.n_frames == 4


def test_chosen_frames_give_one_png_each_and_a_field_colours_them(cantilever, tmp_path):
    written = render.render(cantilever, frames="0,-1", png=tmp_path / "f.png", size=(160, 120),
                            field="strain_energy_density")
    assert written == [tmp_path / "f_0000.png", tmp_path / "f_0003.png"]
    plain = render.render(cantilever, frames=-1, png=tmp_path / "plain.png", size=(160, 120))
    coloured = pixels(written[1])
    assert_shows_something(coloured, (160, 120))
    assert np.any(coloured != pixels(plain[0]))


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_an_mp4_is_written_by_ffmpeg(cantilever, tmp_path):
    render.render(cantilever, video=tmp_path / "beam.mp4", size=(161, 121), field="velocity")
    assert (tmp_path / "beam.mp4").stat().st_size > 1000


def test_a_2d_run_is_drawn_flat(tmp_path):
    run = simulate(tmp_path / "sheet", "hanging_sheet.json", 1)
    render.render(run, png=tmp_path / "sheet.png", size=(160, 120))
    assert_shows_something(pixels(tmp_path / "sheet.png"), (160, 120))


def test_rigid_bodies_and_obstacles_are_drawn(tmp_path):
    run = simulate(tmp_path / "paddle", "paddle_push.json", 1)
    with open(next(run.glob("*.pvd"))) as f:
        assert 'part="1"' in f.read(), "the rigid paddle is a second part"
    render.render(run, png=tmp_path / "with.png", size=(160, 120))
    render.render(run, png=tmp_path / "without.png", size=(160, 120), obstacles=False)
    assert np.any(pixels(tmp_path / "with.png") != pixels(tmp_path / "without.png"))


@pytest.mark.parametrize("kind", ["capsule", "cylinder"])
def test_capsules_and_cylinders_are_drawn_on_their_surface_facing_out(kind):
    centre, r, length = np.array([0.3, -0.2, 0.1]), 0.1, 0.4
    o = {"type": kind, "center": list(centre), "radius": r, "length": length}
    tris, colours, plane = render._obstacle_3d(o, np.zeros(3), 1.0)
    assert len(tris) == len(colours) > 0 and not plane
    q = tris - centre
    if kind == "cylinder":  # |y| - L/2 and rho - r: each point on a face or the side
        off = np.minimum(np.abs(np.abs(q[..., 1]) - length / 2),
                         np.abs(np.hypot(q[..., 0], q[..., 2]) - r))
        off = np.where(np.hypot(q[..., 0], q[..., 2]) <= r + 1e-12, off, np.inf)
    else:  # distance to the segment along y, minus r
        y = np.clip(q[..., 1], -length / 2, length / 2)
        off = np.abs(np.linalg.norm(q - np.stack([0 * y, y, 0 * y], -1), axis=-1) - r)
    assert off.max() < 1e-12
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    assert np.all(np.einsum("ij,ij->i", normals, tris.mean(axis=1) - centre) > 0)
    outline = render._obstacle_2d(o, np.zeros(3), 1.0)
    half = np.array([r, length / 2 + (r if kind == "capsule" else 0.0)])
    assert np.allclose(outline.min(axis=0), centre[:2] - half)
    assert np.allclose(outline.max(axis=0), centre[:2] + half)


def corrupt_copy(cantilever, tmp_path):
    copy = tmp_path / "corrupt"
    shutil.copytree(cantilever, copy)
    frame = copy / "cantilever_000004.vtu"
    frame.write_bytes(frame.read_bytes()[:300])
    return copy, frame


@pytest.mark.parametrize("case", ["missing folder", "no pvd", "unknown field", "bad frame",
                                  "frame list", "corrupt vtu", "video suffix", "png suffix",
                                  "size"])
def test_bad_input_is_one_line_naming_the_problem_and_path(cantilever, tmp_path, capsys, case):
    empty = tmp_path / "empty"
    empty.mkdir()
    args, expected = {
        "missing folder": ([str(tmp_path / "nowhere")], ["no such folder", "nowhere"]),
        "no pvd": ([str(empty)], ["no .pvd file", str(empty)]),
        "unknown field": ([str(cantilever), "--field", "stres"],
                          ["no field 'stres'", "cantilever_000000.vtu", "cauchy_stress, displ"]),
        "bad frame": ([str(cantilever), "--frames", "4"],
                      ["frame 4 is out of range", "cantilever.pvd", "4 frames"]),
        "frame list": ([str(cantilever), "--frames", "1,x"], ["bad frame list '1,x'"]),
        "corrupt vtu": None,
        "video suffix": ([str(cantilever), "--gif", "a.avi"], ["'a.avi' must end in .gif"]),
        "png suffix": ([str(cantilever), "--png", "a.jpg"], ["'a.jpg' must end in .png"]),
        "size": ([str(cantilever), "--size", "big"], ["bad size 'big'"]),
    }[case] or ([str(corrupt_copy(cantilever, tmp_path)[0]), "--png", str(tmp_path / "c.png"),
                 "--frames", "0"], ["cannot read frame", "cantilever_000004.vtu"])
    assert render.main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("softgrad render: error: "), err
    for text in expected:
        assert text in err, err


def test_the_file_runs_as_a_script_without_the_extension(tmp_path):
    done = subprocess.run([sys.executable, SOURCE, str(tmp_path / "nowhere")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 1
    assert "no such folder" in done.stderr and "Traceback" not in done.stderr
