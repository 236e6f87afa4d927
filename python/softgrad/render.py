"""Pictures of a run without ParaView: PNG images, an animated GIF or an MP4 of the frames that
``softgrad run`` writes (OUT_DIR/<name>.pvd, one .vtu per frame, summary.json).

    from softgrad.render import render
    render("out/cantilever")                        # out/cantilever/cantilever.png and .gif
    render("out/cantilever", png="beam.png", field="strain_energy_density")
    render("out/cantilever", video="beam.mp4", size=(640, 480), view=(30, -40))

or from a shell: ``python3 -m softgrad.render OUT_DIR [--png FILE] [--gif FILE | --mp4 FILE]``.

Tetrahedral bodies are drawn as their boundary surface, shaded by one light; 2D runs flat, with
their elements' edges; rigid bodies (the frames' second part) in grey; the scene's obstacles
(ground, half-spaces, spheres, boxes, capsules, cylinders, height fields), which the frames do
not hold, from the
scene file that summary.json names, when it can still be read. The camera is fixed and frames
every frame of the run, so that pictures of different frames line up.

meshio reads the frames (python3-meshio: 2 MB, where VTK would add 85 packages to the set-up);
matplotlib (Agg, no display needed) paints them: the surface's triangles are projected
orthographically, sorted back to front and drawn as one PolyCollection. PIL
writes the GIF, ffmpeg the MP4. This module does not need the softgrad extension: it also runs
as ``python3 python/softgrad/render.py``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence, Union

import numpy as np

__all__ = ["RenderError", "render", "main"]

log = logging.getLogger("softgrad")

PathLike = Union[str, "os.PathLike[str]"]
FrameSpec = Union[None, str, int, Sequence[int], slice]

_BODY_COLOURS = ["#5b8db8", "#e39a3b", "#6aa86a", "#c8605e", "#9a7bbf", "#b8a04a", "#5fb0b0"]
_RIGID_COLOUR = "#8d9296"
_OBSTACLE_COLOUR = "#b9b4ab"
_FLOOR_COLOURS = ("#dedbd5", "#cfcbc3")
_BACKGROUND = "#ffffff"


class RenderError(ValueError):
    """Bad input to :func:`render`: a missing folder or file, an unknown field, a frame index out
    of range, an unreadable frame. The message names the problem and the path."""


# ---- reading a run --------------------------------------------------------------------------


@dataclass
class _Piece:
    """One part of one frame: a tet or triangle mesh, or the rigid bodies' triangle surfaces."""

    points: np.ndarray  # (n, 3) float64, metres
    cells: np.ndarray  # (m, 3 or 4) int
    rigid: bool
    body: np.ndarray  # (m,) body index of each cell
    values: Optional[np.ndarray] = None  # (n,) or (m,): the chosen field as scalars
    on_points: bool = False


@dataclass
class _Run:
    """A run's .pvd: its name, dimension, frame times and each frame's .vtu files."""

    pvd: Path
    name: str
    times: list = dataclass_field(default_factory=list)
    files: list = dataclass_field(default_factory=list)  # per frame, a list of Paths
    summary: dict = dataclass_field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.files)


def _open_run(out: PathLike) -> _Run:
    """The run in folder `out` (its only .pvd, or the scene's), or the .pvd file `out` itself."""
    path = Path(out)
    if not path.exists():
        raise RenderError(f"no such folder: '{path}'")
    if path.is_dir():
        pvds = sorted(path.glob("*.pvd"))
        summary = _read_json(path / "summary.json")
        if len(pvds) > 1 and f"{summary.get('scene')}.pvd" in {p.name for p in pvds}:
            pvds = [path / f"{summary['scene']}.pvd"]
        if not pvds:
            raise RenderError(f"no .pvd file in '{path}' (is it the --out folder of a "
                              "`softgrad run` with frames?)")
        if len(pvds) > 1:
            raise RenderError(f"several .pvd files in '{path}' "
                              f"({', '.join(p.name for p in pvds)}); name one of them instead")
        path = pvds[0]
    run = _Run(pvd=path, name=path.stem, summary=_read_json(path.parent / "summary.json"))
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise RenderError(f"cannot read '{path}': {e}") from None
    last_part = math.inf
    for ds in root.iter("DataSet"):
        part = int(ds.get("part", "0") or 0)
        if part <= last_part:  # part 0 (or a repeat) starts the next frame
            run.times.append(float(ds.get("timestep", "nan")))
            run.files.append([])
        run.files[-1].append(path.parent / ds.get("file", ""))
        last_part = part
    if not run.files:
        raise RenderError(f"'{path}' lists no frames")
    return run


def _read_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def _read_vtu(path: Path):
    """Points (n, 3), cells (m, k) and the point and cell data of one .vtu (read by meshio)."""
    import meshio

    if not path.is_file():
        raise RenderError(f"frame file '{path}' is missing")
    try:
        # The VTU reader itself: meshio.read() prints its failures and exits the interpreter.
        mesh = meshio.vtu.read(str(path))
    # A damaged file fails in the XML parser, zlib, NumPy or meshio itself, each with its own
    # exception; any of them means the same here.
    except Exception as e:  # noqa: BLE001
        why = str(e).strip().splitlines()[-1] if str(e).strip() else "not a readable VTU file"
        raise RenderError(f"cannot read frame '{path}': {why}") from None
    kinds = {block.type for block in mesh.cells}
    if len(mesh.points) == 0:
        raise RenderError(f"cannot read frame '{path}': no points")
    if len(kinds) != 1 or not kinds <= {"triangle", "tetra"}:
        raise RenderError(f"cannot read frame '{path}': expected only triangles or tetrahedra")
    points = np.asarray(mesh.points, dtype=np.float64)
    if points.shape[1] < 3:
        points = np.hstack([points, np.zeros((len(points), 3 - points.shape[1]))])
    cells = np.concatenate([block.data for block in mesh.cells]).astype(np.int64)
    if cells.size and (cells.min() < 0 or cells.max() >= len(points)):
        raise RenderError(f"cannot read frame '{path}': a cell names a point that does not exist")
    point_data = {k: np.asarray(v, dtype=np.float64) for k, v in mesh.point_data.items()}
    cell_data = {k: np.concatenate([np.asarray(b, dtype=np.float64) for b in v])
                 for k, v in mesh.cell_data.items()}
    return points, cells, point_data, cell_data


def _scalar(values: np.ndarray) -> np.ndarray:
    """One number per tuple: the value, a vector's length, or a 3x3 tensor's von Mises value."""
    if values.ndim == 1:
        return values
    if values.shape[1] == 1:
        return values[:, 0]
    if values.shape[1] == 9:
        s = values.reshape(-1, 3, 3)
        dev = s - np.trace(s, axis1=1, axis2=2)[:, None, None] * np.eye(3) / 3.0
        return np.sqrt(1.5 * np.einsum("kij,kij->k", dev, dev))
    return np.linalg.norm(values, axis=1)


def _field_label(name: str, values: np.ndarray) -> str:
    if values.ndim == 1 or values.shape[1] == 1:
        return name
    return f"{name} (von Mises)" if values.shape[1] == 9 else f"|{name}|"


def _read_frame(run: _Run, k: int, field: Optional[str]):
    """The pieces of frame k, and the field's label (None without a field)."""
    pieces, label, names = [], None, set()
    for path in run.files[k]:
        points, cells, point_data, cell_data = _read_vtu(path)
        rigid = "rigid_body" in cell_data
        body = cell_data.get("rigid_body" if rigid else "body", np.zeros(len(cells)))
        piece = _Piece(points, cells, rigid, body.astype(np.int64).ravel())
        names |= set(point_data) | set(cell_data)
        for data, on_points in ((cell_data, False), (point_data, True)):
            if field is not None and field in data:
                piece.values, piece.on_points = _scalar(data[field]), on_points
                label = _field_label(field, data[field])
        pieces.append(piece)
    if field is not None and label is None:
        raise RenderError(f"no field '{field}' in '{run.files[k][0]}'; the frames carry: "
                          f"{', '.join(sorted(names))}")
    return pieces, label


def _select(spec: FrameSpec, run: _Run) -> list:
    """Frame indices from 'last', 'first', 'all', an index, 'i,j,k', a slice 'start:stop:step'
    or a list or slice object (negative: from the end)."""
    n = len(run)
    if isinstance(spec, str):
        words = {"last": [n - 1], "first": [0], "all": list(range(n))}
        if spec.strip() in words:
            return words[spec.strip()]
        try:
            if ":" in spec:
                spec = slice(*(int(s) if s.strip() else None for s in spec.split(":")))
            else:
                spec = [int(s) for s in spec.split(",")]
        except (ValueError, TypeError):
            raise RenderError(f"bad frame list '{spec}': use last, first, all, indices like "
                              "0,5,-1 or a slice like ::2") from None
    if isinstance(spec, slice):
        if spec.step == 0:
            raise RenderError("a frame slice's step must not be 0")
        spec = list(range(n))[spec]
    indices = [spec] if isinstance(spec, (int, np.integer)) else list(spec)
    if not indices:
        raise RenderError(f"no frames chosen: '{run.pvd}' has {n} frames")
    chosen = []
    for i in indices:
        if not isinstance(i, (int, np.integer)) or not -n <= i < n:
            raise RenderError(f"frame {i} is out of range: '{run.pvd}' has {n} frames "
                              f"(0 to {n - 1}, or -{n} to -1 from the end)")
        chosen.append(int(i) % n)
    return chosen


# ---- geometry -------------------------------------------------------------------------------


def _boundary(cells: np.ndarray, points: np.ndarray):
    """The boundary triangles of a tet mesh, outward (f, 3), and the tet of each (f,)."""
    e = points[cells[:, 1:]] - points[cells[:, :1]]
    flip = np.einsum("ki,ki->k", np.cross(e[:, 0], e[:, 1]), e[:, 2]) < 0.0
    tets = cells.copy()
    tets[flip, 0], tets[flip, 1] = cells[flip, 1], cells[flip, 0]
    faces = tets[:, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]].reshape(-1, 3)
    owner = np.repeat(np.arange(len(cells)), 4)
    _, first, count = np.unique(np.sort(faces, axis=1), axis=0, return_index=True,
                                return_counts=True)
    keep = np.sort(first[count == 1])
    return faces[keep], owner[keep]


def _outward(faces: np.ndarray, points: np.ndarray, body: np.ndarray) -> np.ndarray:
    """Triangle surfaces (one closed surface per body) turned to face outward."""
    faces = faces.copy()
    p = points[faces]
    volume = np.einsum("ki,ki->k", np.cross(p[:, 0], p[:, 1]), p[:, 2])
    for b in np.unique(body):
        mine = body == b
        if volume[mine].sum() < 0.0:
            faces[mine] = faces[mine][:, ::-1]
    return faces


# ---- obstacles (from the scene file; the frames do not hold them) ----------------------------


def _scene_obstacles(run: _Run) -> list:
    """The obstacles of the scene file that summary.json names; none if it cannot be read."""
    scene_file = run.summary.get("scene_file")
    if not scene_file:
        return []
    for candidate in (Path(scene_file), run.pvd.parent / scene_file):
        scene = _read_json(candidate)
        if scene:
            obstacles = (scene.get("contact") or {}).get("obstacles") or []
            if "creature" in scene:  # a creature scene builds its own ground, y = 0
                obstacles = [{"type": "ground", "height": 0.0}]
            return [o for o in obstacles if isinstance(o, dict) and "type" in o]
    log.info("render: the scene file '%s' is gone; obstacles are not drawn", scene_file)
    return []


def _vec3(values) -> np.ndarray:
    """A 2- or 3-vector as a 3-vector (z = 0 in 2D)."""
    v = np.asarray(values, dtype=np.float64).ravel()[:3]
    return np.concatenate([v, np.zeros(3 - len(v))])


def _plane(o: dict):
    """Point and unit normal of a 'ground' or 'half_space' obstacle."""
    if o["type"] == "ground":
        return np.array([0.0, float(o.get("height", 0.0)), 0.0]), np.array([0.0, 1.0, 0.0])
    normal = _vec3(o["normal"])
    return _vec3(o["point"]), normal / np.linalg.norm(normal)


def _grid(corner, du, dv, nu: int, nv: int):
    """A parallelogram cut into nu x nv cells, two triangles each (t, 3, len(corner)) wound
    counter-clockwise about du x dv, and the parity (i + j) % 2 of each triangle's cell (t,)."""
    i, j = (a.ravel() for a in np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij"))
    p = np.asarray(corner, float) + i[:, None] * np.asarray(du) + j[:, None] * np.asarray(dv)
    q = [p, p + du, p + du + dv, p + dv]
    tris = np.concatenate([np.stack([q[0], q[1], q[2]], 1), np.stack([q[0], q[2], q[3]], 1)])
    return tris, np.tile((i + j) % 2, 2)


def _revolve(centre: np.ndarray, profile: Sequence, segments: int = 32) -> np.ndarray:
    """Outward triangles (t, 3, 3) of a solid of revolution about the y axis through `centre`:
    `profile` is its outline as (y, radius) from the top pole down to the bottom pole."""
    a = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    ring = np.stack([np.cos(a), np.zeros_like(a), np.sin(a)], -1)
    tris = []
    for (y0, r0), (y1, r1) in zip(profile[:-1], profile[1:]):
        top = centre + r0 * ring + [0.0, y0, 0.0]
        low = centre + r1 * ring + [0.0, y1, 0.0]
        for k in range(segments):  # (A, B, C) and (A, C, D), wound outward
            tris += [[top[k], top[k + 1], low[k + 1]], [top[k], low[k + 1], low[k]]]
    tris = np.asarray(tris)
    area = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1)
    return tris[area > 1e-12 * max(float(area.max()), 1e-300)]


def _round_profile(radius: float, length: float, steps: int = 8) -> list:
    """(y, radius) from the top pole down of a capsule (two hemispheres `length` apart)."""
    b = np.linspace(0.0, np.pi / 2, steps + 1)
    top = [(0.5 * length + radius * np.cos(t), radius * np.sin(t)) for t in b]
    return top + [(-y, r) for y, r in reversed(top)]


def _obstacle_3d(o: dict, centre: np.ndarray, extent: float):
    """Outward triangles (t, 3, 3), colours (t,) and whether it is a plane of one obstacle. A
    half-space is a checked patch of side 3 `extent` about `centre`'s projection onto it."""
    kind = o["type"]
    if kind in ("ground", "half_space"):
        point, n = _plane(o)
        t1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
        t1 /= np.linalg.norm(t1)
        t2 = np.cross(n, t1)  # t1 x t2 = n
        c = centre - np.dot(centre - point, n) * n
        side = 3.0 * extent
        tris, parity = _grid(c - side / 2 * (t1 + t2), side / 12 * t1, side / 12 * t2, 12, 12)
        return tris, [_FLOOR_COLOURS[k] for k in parity], True
    if kind == "sphere":
        # (azimuth, polar angle) cells mapped onto the sphere; azimuth x polar points outward.
        angles, _ = _grid([0.0, 0.0], [np.pi / 16, 0.0], [0.0, np.pi / 12], 32, 12)
        a, b = angles[..., 0], angles[..., 1]
        unit = np.stack([np.sin(b) * np.cos(a), np.cos(b), np.sin(b) * np.sin(a)], -1)
        return _vec3(o["center"]) + float(o["radius"]) * unit, [_OBSTACLE_COLOUR] * len(unit), False
    if kind in ("capsule", "cylinder"):
        r, length = float(o["radius"]), float(o["length"])
        h = 0.5 * length
        profile = (_round_profile(r, length) if kind == "capsule"
                   else [(h, 0.0), (h, r), (-h, r), (-h, 0.0)])
        tris = _revolve(_vec3(o["center"]), profile)
        return tris, [_OBSTACLE_COLOUR] * len(tris), False
    if kind == "box":
        c, h = _vec3(o["center"]), np.abs(_vec3(o["half_extents"]))
        faces = []
        for axis in range(3):
            for sign in (-1.0, 1.0):
                n, a, b = (np.eye(3)[(axis + k) % 3] for k in range(3))  # a x b = n
                n, a, b = (sign * n, a, b) if sign > 0 else (sign * n, b, a)
                faces.append(_grid(c + h * (n - a - b), 2 * h * a / 4, 2 * h * b / 4, 4, 4)[0])
        tris = np.concatenate(faces)
        return tris, [_OBSTACLE_COLOUR] * len(tris), False
    if kind == "height_field":
        heights = np.asarray(o["heights"], float)
        nx = int(o.get("nx", len(heights)))
        rows = heights.reshape(-1, nx)
        s, x0, z0 = float(o["spacing"]), float(o.get("x0", 0.0)), float(o.get("z0", 0.0))
        cells, _ = _grid([0, 0], [1, 0], [0, 1], nx - 1, rows.shape[0] - 1)
        ix, iz = cells[..., 0].astype(int), cells[..., 1].astype(int)
        tris = np.stack([x0 + s * ix, rows[iz, ix], z0 + s * iz], -1)[:, ::-1]  # x cross z = -y
        return tris, [_OBSTACLE_COLOUR] * len(tris), False
    return np.zeros((0, 3, 3)), [], False


def _obstacle_2d(o: dict, centre: np.ndarray, extent: float) -> Optional[np.ndarray]:
    """The outline (k, 2) of one obstacle in 2D; a half-space as a band 20 `extent` wide."""
    kind = o["type"]
    if kind in ("ground", "half_space"):
        point, n = _plane(o)
        n, t = n[:2] / np.linalg.norm(n[:2]), np.array([-n[1], n[0]]) / np.linalg.norm(n[:2])
        c = centre[:2] - np.dot(centre[:2] - point[:2], n) * n
        side = 10.0 * extent
        return np.array([c - side * t, c + side * t, c + side * (t - n), c - side * (t + n)])
    if kind == "sphere":
        a = np.linspace(0.0, 2.0 * np.pi, 97)[:-1]
        return _vec3(o["center"])[:2] + float(o["radius"]) * np.stack([np.cos(a), np.sin(a)], 1)
    if kind == "box":
        c, h = _vec3(o["center"])[:2], np.abs(_vec3(o["half_extents"])[:2])
        return c + h * np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    if kind in ("capsule", "cylinder"):  # a stadium or a rectangle, its axis along y
        r, h = float(o["radius"]), 0.5 * float(o["length"])
        if kind == "cylinder":
            outline = [(r, -h), (r, h), (-r, h), (-r, -h)]
        else:
            a = np.linspace(0.0, np.pi, 25)
            outline = [(r * np.cos(t), h + r * np.sin(t)) for t in a]
            outline += [(-r * np.cos(t), -h - r * np.sin(t)) for t in a]
        return _vec3(o["center"])[:2] + np.asarray(outline)
    if kind == "height_field":
        h = np.asarray(o["heights"], float)
        x = float(o.get("x0", 0.0)) + float(o["spacing"]) * np.arange(len(h))
        low = h.min() - 10.0 * extent
        return np.concatenate([np.stack([x, h], 1), [[x[-1], low], [x[0], low]]])
    return None


# ---- painting -------------------------------------------------------------------------------


def _camera(dim: int, view: Sequence[float]) -> np.ndarray:
    """Rows: the screen's right and up and the direction to the eye (3, 3), world y up; for 2D,
    the identity. `view` = (elevation, azimuth) in degrees; azimuth 0 looks along -z."""
    if dim == 2:
        return np.eye(3)
    elevation, azimuth = np.radians(np.asarray(view, dtype=np.float64))
    to_eye = np.array([np.cos(elevation) * np.sin(azimuth), np.sin(elevation),
                       np.cos(elevation) * np.cos(azimuth)])
    right = np.array([np.cos(azimuth), 0.0, -np.sin(azimuth)])
    return np.stack([right, np.cross(to_eye, right), to_eye])


def _colours(names: Iterable[str]) -> np.ndarray:
    from matplotlib.colors import to_rgb

    return np.array([to_rgb(c) for c in names], dtype=np.float64).reshape(-1, 3)


class _Painter:
    """One matplotlib figure of a fixed size and camera that paints frames into RGB arrays."""

    def __init__(self, dim, size, camera, screen_box, obstacles, colour_map, label, name):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.dim, self.camera, self.colour_map, self.name = dim, camera, colour_map, name
        width, height = size
        dpi = height / 7.2  # fonts and lines scale with the picture, text less below 540 pixels
        scale = max(1.0, 540 / height)
        self.figure = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, facecolor=_BACKGROUND)
        self.canvas = FigureCanvasAgg(self.figure)
        # A title line on top, the colour bar on the right, the axes fill the rest.
        right, top = 0.84 if colour_map else 1.0, 1.0 - 1.7 * 11 * scale / (7.2 * 72)
        self.axes = self.figure.add_axes([0.0, 0.0, right, top])
        self.axes.set_axis_off()
        _frame_axes(self.axes, screen_box, right * width / (top * height))
        if colour_map:
            bar = self.figure.add_axes([0.87, 0.08, 0.025, top - 0.16])
            self.figure.colorbar(colour_map, cax=bar)
            bar.tick_params(labelsize=9 * scale)
            bar.yaxis.set_label_position("left")
            bar.set_ylabel(label, fontsize=10 * scale)
        self.text = self.figure.text(0.015, (1.0 + top) / 2, "", ha="left", va="center",
                                     fontsize=11 * scale, color="#333333")
        # The light: from the upper left, behind the eye.
        self.light = camera.T @ (np.array([-0.3, 0.5, 0.8]) / np.linalg.norm([-0.3, 0.5, 0.8]))
        self.obstacles = self._static(obstacles)
        self.bodies = None
        self.surfaces = {}

    def _static(self, obstacles):
        """3D obstacle triangles as screen polygons, depths and shaded colours; 2D outlines drawn
        once, under the bodies."""
        from matplotlib.collections import PolyCollection

        if self.dim == 2:
            if obstacles:
                self.axes.add_collection(PolyCollection(
                    obstacles, facecolors=_FLOOR_COLOURS[0], edgecolors="#8f8a80",
                    linewidths=1.0, zorder=1))
            return None
        if not obstacles:
            return np.zeros((0, 3, 2)), np.zeros(0), np.zeros((0, 3))
        tris = np.concatenate([t for t, _, _ in obstacles])
        colours = _colours([c for _, cs, _ in obstacles for c in cs])
        plane = np.concatenate([np.full(len(t), flat) for t, _, flat in obstacles])
        polygons, depths, colours = self._project(tris, colours, two_sided=False)
        # Nothing above a half-space is behind it: planes are painted first.
        facing = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]) @ self.camera[2] > 0
        depths[plane[facing]] = -np.inf
        return polygons, depths, colours

    def _project(self, tris, colours, two_sided):
        """Screen polygons (f, 3, 2), depths (f,) and shaded colours (f, 3) of the triangles
        (f, 3, 3) that face the eye."""
        normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
        length = np.linalg.norm(normal, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            normal /= length[:, None]
        facing = normal @ self.camera[2]
        keep = (length > 0.0) & ((facing > 0.0) | two_sided)
        normal = np.where((facing < 0.0)[:, None], -normal, normal)[keep]
        shade = 0.42 + 0.58 * np.clip(normal @ self.light, 0.0, 1.0)
        screen = tris[keep] @ self.camera.T
        return screen[..., :2], screen[..., 2].mean(1), colours[keep] * shade[:, None]

    def _surface(self, index: int, piece: _Piece):
        """A piece's drawn triangles (f, 3), the cell of each (f,) and whether their back faces
        show (a triangle surface not consistently wound), worked out once."""
        key = (index, piece.cells.shape, piece.rigid)
        if key not in self.surfaces:
            cells, owner, two_sided = piece.cells, np.arange(len(piece.cells)), False
            if self.dim == 2:
                faces = cells
            elif cells.shape[1] == 4:
                faces, owner = _boundary(cells, piece.points)
            else:
                faces = _outward(cells, piece.points, piece.body)
                # Wound consistently, each directed edge is in one triangle.
                edges = faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
                two_sided = len(np.unique(edges, axis=0)) < len(edges)
            self.surfaces[key] = faces, owner, two_sided
        return self.surfaces[key]

    def _piece_colours(self, piece: _Piece, faces, owner) -> np.ndarray:
        if self.colour_map is not None and piece.values is not None:
            values = piece.values[faces].mean(1) if piece.on_points else piece.values[owner]
            return self.colour_map.to_rgba(values)[:, :3]
        if piece.rigid:
            return np.tile(_colours([_RIGID_COLOUR]), (len(faces), 1))
        palette = _colours(_BODY_COLOURS)
        return palette[piece.body[owner] % len(palette)]

    def paint(self, pieces, time: float) -> np.ndarray:
        """The picture (height, width, 3) uint8 of one frame's pieces."""
        from matplotlib.collections import PolyCollection

        polygons, depths, colours = [], [], []
        for index, piece in enumerate(pieces):
            faces, owner, two_sided = self._surface(index, piece)
            rgb = self._piece_colours(piece, faces, owner)
            if self.dim == 2:
                polygons.append(piece.points[faces][..., :2])
                depths.append(np.full(len(faces), float(index)))
                colours.append(rgb)
            else:
                p, d, c = self._project(piece.points[faces], rgb, two_sided)
                polygons.append(p)
                depths.append(d)
                colours.append(c)
        if self.obstacles is not None:
            polygons.append(self.obstacles[0])
            depths.append(self.obstacles[1])
            colours.append(self.obstacles[2])
        order = np.argsort(np.concatenate(depths), kind="stable")  # back to front
        polygons, colours = np.concatenate(polygons)[order], np.concatenate(colours)[order]
        # 3D: edges in the face's colour close the seams; 2D: darker edges show the elements.
        edges = colours if self.dim == 3 else colours * 0.7
        if self.bodies is not None:
            self.bodies.remove()
        self.bodies = PolyCollection(polygons, facecolors=colours, edgecolors=edges,
                                     linewidths=0.7 if self.dim == 3 else 0.4, zorder=2)
        self.axes.add_collection(self.bodies)
        self.text.set_text(f"{self.name}   t = {time:.3g} s" if math.isfinite(time) else self.name)
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()


def _frame_axes(axes, box, aspect: float) -> None:
    """Limits that show `box` ((x0, y0), (x1, y1)) with a margin, at the axes' aspect."""
    (x0, y0), (x1, y1) = box
    width, height = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
    width, height = max(width, height * aspect) * 1.08, max(height, width / aspect) * 1.08
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    axes.set_xlim(cx - width / 2, cx + width / 2)
    axes.set_ylim(cy - height / 2, cy + height / 2)


# ---- the run's frames, the camera and the files ---------------------------------------------


def _dimension(run: _Run, pieces) -> int:
    if run.summary.get("dim") in (2, 3):
        return int(run.summary["dim"])
    soft = [p for p in pieces if not p.rigid]
    if soft:
        return 2 if soft[0].cells.shape[1] == 3 else 3
    return 2 if all(np.all(p.points[:, 2] == 0.0) for p in pieces) else 3


def _scan(run: _Run, field: Optional[str], wanted: set, camera_of: Callable):
    """Every frame read once: the frames in `wanted` ({index: pieces}) while they take less than
    256 MB, the dimension, camera, world and screen boxes of the bodies over all frames, the
    field's range and label."""
    kept, world, screen, low, high, budget = {}, [], [], math.inf, -math.inf, 256e6
    dim = camera = label = None
    for k in range(len(run)):
        pieces, label = _read_frame(run, k, field)
        if dim is None:
            dim = _dimension(run, pieces)
            camera = camera_of(dim)
        for p in pieces:
            world += [p.points.min(0), p.points.max(0)]
            s = p.points @ camera[:2].T
            screen += [s.min(0), s.max(0)]
            if p.values is not None and np.isfinite(p.values).any():
                low, high = min(low, np.nanmin(p.values)), max(high, np.nanmax(p.values))
        if k in wanted and budget > 0:
            kept[k] = pieces
            budget -= sum(p.points.nbytes + p.cells.nbytes + p.body.nbytes for p in pieces)
    world, screen = np.array(world), np.array(screen)
    boxes = (world.min(0), world.max(0)), (screen.min(0), screen.max(0))
    return kept, dim, camera, boxes, (low, high), label


def _colour_map(field, value_range, clim, cmap: str):
    """A matplotlib ScalarMappable over `clim`, or the field's range over the run."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    if field is None:
        return None
    low, high = clim if clim is not None else value_range
    if not math.isfinite(low) or not math.isfinite(high):
        low, high = 0.0, 1.0  # no finite value anywhere
    if not high > low:
        pad = abs(low) * 1e-3 or 1.0
        low, high = low - pad, high + pad
    try:
        return ScalarMappable(Normalize(low, high), colormaps[cmap])
    except KeyError:
        raise RenderError(f"unknown colour map '{cmap}' (matplotlib's names, e.g. viridis, "
                          "plasma, coolwarm)") from None


def _placed_obstacles(obstacles, dim, world_box, camera):
    """The obstacles' geometry for the painter, and the screen points of the bounded ones."""
    low, high = world_box
    centre, extent = (low + high) / 2, max(float(np.max(high - low)), 1e-3)
    shapes, bounded = [], []
    for o in obstacles:
        try:
            shape = _obstacle_2d(o, centre, extent) if dim == 2 else _obstacle_3d(o, centre, extent)
        except (KeyError, TypeError, ValueError, IndexError) as e:
            log.warning("render: obstacle %s is not drawn (%s)", o.get("name", o["type"]), e)
            continue
        if shape is None or len(shape[0] if dim == 3 else shape) == 0:
            continue
        shapes.append(shape)
        if o["type"] in ("sphere", "box"):
            points = shape if dim == 2 else shape[0].reshape(-1, 3) @ camera[:2].T
            bounded += [points.min(0), points.max(0)]
        elif o["type"] in ("ground", "half_space"):
            # A plane within reach: the bodies' footprint on it is in the picture.
            point, n = _plane(o)
            if abs(np.dot(centre - point, n)) < 1.5 * extent:
                corners = np.array(np.meshgrid(*zip(low, high))).reshape(3, -1).T
                points = (corners - np.outer((corners - point) @ n, n)) @ camera[:2].T
                bounded += [points.min(0), points.max(0)]
    return shapes, bounded


def _fps(run: _Run, frames: Sequence[int], fps: Optional[float]) -> float:
    """`fps`, or real time (frames per simulated second) between 2 and 50 frames a second."""
    if fps is not None:
        if not fps > 0:
            raise RenderError(f"fps must be positive, got {fps}")
        return float(fps)
    span = run.times[frames[-1]] - run.times[frames[0]]
    if not (len(frames) > 1 and span > 0):
        return 10.0
    return float(min(50.0, max(2.0, (len(frames) - 1) / span)))


def _png_paths(png: Path, frames: Sequence[int]) -> list:
    if len(frames) == 1:
        return [png]
    return [png.with_name(f"{png.stem}_{k:04d}{png.suffix}") for k in frames]


def _write_gif(path: Path, pictures: Iterable[np.ndarray], sample, fps: float) -> None:
    """An animated GIF, every picture in one palette of 255 colours made from `sample`, the
    background exact (PIL's mapping to a given palette is approximate)."""
    from PIL import Image

    none = getattr(Image, "Dither", Image).NONE
    palette = Image.fromarray(np.concatenate(sample)).quantize(colors=255)
    colours = np.array(palette.getpalette()[:765], dtype=np.int64).reshape(-1, 3)
    background = np.round(_colours([_BACKGROUND])[0] * 255).astype(np.uint8)
    white = int(np.argmin(np.abs(colours - background).sum(1)))
    colours[white] = background
    palette.putpalette(colours.ravel().tolist())
    images = []
    for p in pictures:
        index = np.array(Image.fromarray(p).quantize(palette=palette, dither=none))
        index[np.all(p == background, axis=2)] = white
        image = Image.fromarray(index, mode="P")
        image.putpalette(colours.ravel().tolist())
        images.append(image)
    images[0].save(path, save_all=True, append_images=images[1:], loop=0,
                   duration=max(20, round(1000.0 / fps)), disposal=1)


def _write_mp4(path: Path, pictures: Iterable[np.ndarray], size, fps: float) -> None:
    """An H.264 MP4 by ffmpeg (dimensions padded to even numbers)."""
    command = [shutil.which("ffmpeg") or "ffmpeg", "-y", "-loglevel", "error", "-f", "rawvideo",
               "-pix_fmt", "rgb24", "-s", f"{size[0]}x{size[1]}", "-r", f"{fps:g}", "-i", "-",
               "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
               "-movflags", "+faststart", str(path)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE) as ffmpeg:
        try:
            for p in pictures:
                ffmpeg.stdin.write(np.ascontiguousarray(p).tobytes())
        except BrokenPipeError:
            pass
        ffmpeg.stdin.close()
        error = ffmpeg.stderr.read().decode(errors="replace").strip()
        if ffmpeg.wait() != 0:
            raise RenderError(f"ffmpeg could not write '{path}': {error.splitlines()[-1:]}")


def _check_size(size) -> tuple:
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise RenderError(f"size must be (width, height) in pixels, got {size!r}") from None
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        raise RenderError(f"size {width}x{height} is out of range (16 to 8192 pixels a side)")
    return width, height


def _video_path(video: Optional[PathLike]) -> Optional[Path]:
    if video is None:
        return None
    path = Path(video)
    if path.suffix.lower() not in (".gif", ".mp4"):
        raise RenderError(f"video '{path}' must end in .gif or .mp4")
    if path.suffix.lower() == ".mp4" and shutil.which("ffmpeg") is None:
        raise RenderError(f"writing '{path}' needs ffmpeg on the PATH (Debian: apt-get install "
                          "ffmpeg); write a .gif instead")
    return path


def render(out_dir: PathLike, frames: FrameSpec = None, png: Optional[PathLike] = None,
           video: Optional[PathLike] = None, *, field: Optional[str] = None,
           size: Sequence[int] = (960, 720), view: Sequence[float] = (20.0, 30.0),
           fps: Optional[float] = None, clim: Optional[Sequence[float]] = None,
           cmap: str = "viridis", obstacles: bool = True,
           progress: Optional[Callable[[int, int], None]] = None) -> list:
    """Render a run's frames to PNG images and an animated GIF or MP4.

    Parameters
    ----------
    out_dir : path
        The ``--out`` folder of ``softgrad run`` (with one .pvd, or the scene's), or a .pvd file.
    frames : {"last", "first", "all"}, int, "i,j,k", "start:stop:step", sequence or slice
        Frame indices into the .pvd (0 is the initial state; negative counts from the end).
        Default: the last frame for `png`, all frames for `video`.
    png : path, optional
        The PNG to write. With several frames, one PNG per frame: ``<stem>_<index:04d>.png``.
    video : path, optional
        An animated ``.gif`` (PIL) or ``.mp4`` (H.264, needs ffmpeg). With neither `png` nor
        `video`, writes ``out_dir/<name>.png`` (last frame) and ``out_dir/<name>.gif`` (all).
    field : str, optional
        Colour the parts that carry it by a point or cell field of the frames, e.g.
        ``"strain_energy_density"`` (J/m^3), ``"cauchy_stress"`` (Pa; von Mises value),
        ``"velocity"`` (m/s; length), ``"rigid_body"`` (the rigid bodies' index); the others keep
        their colours. Without it, each soft body has its own colour, rigid bodies are grey.
    size : (int, int)
        (width, height) of each picture in pixels.
    view : (float, float)
        Camera (elevation, azimuth) in degrees for 3D runs, y up; azimuth 0 looks along -z.
    fps : float, optional
        Video frames per second; default real time, kept between 2 and 50.
    clim : (float, float), optional
        Colour range of `field`; default its range over every frame of the run.
    cmap : str
        A matplotlib colour map name.
    obstacles : bool
        Draw the obstacles of the scene file that summary.json names, if it can be read.
    progress : callable(done, total), optional
        Called after each picture is painted.

    Returns
    -------
    list of pathlib.Path
        The files written, PNGs first.

    Raises
    ------
    RenderError
        A missing folder or .pvd, an unreadable frame, an unknown field (the message lists the
        frames' fields), a frame index out of range, a bad size or video name.
    """
    run = _open_run(out_dir)
    size = _check_size(size)
    if png is None and video is None:
        png, video = run.pvd.parent / f"{run.name}.png", run.pvd.parent / f"{run.name}.gif"
    video = _video_path(video)
    if png is not None and Path(png).suffix.lower() != ".png":
        raise RenderError(f"picture '{png}' must end in .png")
    png_frames = _select(frames if frames is not None else "last", run) if png is not None else []
    video_frames = _select(frames if frames is not None else "all", run) if video else []
    wanted = set(png_frames) | set(video_frames)
    kept, dim, camera, (world_box, screen_box), value_range, label = _scan(
        run, field, wanted, lambda d: _camera(d, view))
    shapes, bounded = _placed_obstacles(_scene_obstacles(run) if obstacles else [], dim,
                                        world_box, camera)
    if bounded:
        points = np.concatenate([np.array(screen_box), np.array(bounded)])
        screen_box = points.min(0), points.max(0)
    painter = _Painter(dim, size, camera, screen_box, shapes,
                       _colour_map(field, value_range, clim, cmap), label, run.name)
    total, done = len(png_frames) + len(video_frames), [0]

    def paint(k: int) -> np.ndarray:
        pieces = kept[k] if k in kept else _read_frame(run, k, field)[0]
        picture = painter.paint(pieces, run.times[k])
        if picture.shape[:2] != (size[1], size[0]):  # matplotlib rounds the figure's size
            from PIL import Image
            picture = np.asarray(Image.fromarray(picture).resize(size))
        done[0] += 1
        if progress:
            progress(done[0], total)
        return picture

    written = []
    for k, path in zip(png_frames, _png_paths(Path(png), png_frames) if png is not None else []):
        from PIL import Image
        Image.fromarray(paint(k)).save(path, optimize=True)
        written.append(path)
    if video is not None:
        rate = _fps(run, video_frames, fps)
        if video.suffix.lower() == ".gif":
            picks = sorted({video_frames[round(i * (len(video_frames) - 1) / 4)] for i in range(5)})
            sample = {k: paint(k) for k in picks}
            _write_gif(video, (sample[k] if k in sample else paint(k) for k in video_frames),
                       list(sample.values()), rate)
        else:
            _write_mp4(video, (paint(k) for k in video_frames), size, rate)
        written.append(video)
    return written


# ---- command line ---------------------------------------------------------------------------


def _pair(text: str, what: str, hint: str, kind=float, separator=",") -> tuple:
    parts = text.split(separator)
    try:
        if len(parts) == 2:
            return kind(parts[0]), kind(parts[1])
    except ValueError:
        pass
    raise RenderError(f"bad {what} '{text}': use {hint}")


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Render a run's frames (softgrad run --out DIR) to a PNG and an "
        "animated GIF or MP4. Without --png, --gif or --mp4: DIR/<name>.png (the last frame) "
        "and DIR/<name>.gif (all frames).")
    parser.add_argument("out_dir", metavar="OUT_DIR", help="the run's --out folder, or its .pvd")
    parser.add_argument("--frames", metavar="SPEC",
                        help="last, first, all, indices i,j,k (negative: from the end) or a "
                        "slice start:stop:step; "
                        "default: the last for the PNG, all for the GIF or MP4")
    parser.add_argument("--png", metavar="FILE", help="write the frame(s) as PNG")
    video = parser.add_mutually_exclusive_group()
    video.add_argument("--gif", metavar="FILE", help="write an animated GIF")
    video.add_argument("--mp4", metavar="FILE", help="write an H.264 MP4 (needs ffmpeg)")
    parser.add_argument("--field", metavar="NAME",
                        help="colour by a point or cell field, e.g. strain_energy_density, "
                        "cauchy_stress (von Mises), velocity (length)")
    parser.add_argument("--size", metavar="WxH", default="960x720", help="pixels (960x720)")
    parser.add_argument("--view", metavar="ELEV,AZIM", default="20,30",
                        help="3D camera elevation and azimuth in degrees (20,30)")
    parser.add_argument("--fps", type=float, help="video frames per second (real time)")
    parser.add_argument("--clim", metavar="LO,HI", help="colour range of --field")
    parser.add_argument("--cmap", default="viridis", help="matplotlib colour map (viridis)")
    parser.add_argument("--no-obstacles", action="store_true",
                        help="do not draw the scene file's obstacles")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return parser


def main(argv: Optional[Sequence[str]] = None, prog: str = "softgrad render") -> int:
    """The command line: ``softgrad render OUT_DIR [options]``. Returns the exit status: 0, 1 on
    bad input (one line on stderr), 130 on Ctrl-C."""
    args = _parser(prog).parse_args(argv)
    tty = sys.stderr.isatty() and not args.quiet

    def progress(done: int, total: int) -> None:
        print(f"\rpainting {done}/{total}", end="" if done < total else "\n", file=sys.stderr)

    try:
        written = render(
            args.out_dir, frames=args.frames, png=args.png, video=args.gif or args.mp4,
            field=args.field, size=_pair(args.size.lower(), "size", "WxH, e.g. 960x720", int, "x"),
            view=_pair(args.view, "view", "ELEV,AZIM in degrees, e.g. 20,30"), fps=args.fps,
            clim=_pair(args.clim, "colour range", "LO,HI") if args.clim else None,
            cmap=args.cmap, obstacles=not args.no_obstacles, progress=progress if tty else None)
    except (RenderError, OSError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    if not args.quiet:
        for path in written:
            print(path)
    return 0


if __name__ == "__main__":
    # Run as a file, this folder is first on sys.path; its torch.py and gym.py would shadow the
    # real packages for anything imported later.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.exit(main(prog="softgrad render" if __package__ else "render.py"))
