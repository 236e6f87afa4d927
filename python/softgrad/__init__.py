"""softgrad: a differentiable implicit soft-body simulator.

    import softgrad
    scene = softgrad.load("scenes/cantilever_gradient.json")
    rollout = scene.rollout(steps=20)
    rollout.set("youngs", 2e5)
    trajectory = scene.simulate(rollout)       # positions: (steps + 1, n_vertices, dim)
    loss, dL = scene.gradient(trajectory, ["youngs"])

Arrays in are checked and copied; arrays out are NumPy copies (the simulator keeps its own
states). Bad input raises ValueError with softgrad's message; a Newton step that does not
converge raises softgrad.ConvergenceError (with .step and .residual). A gradient that is not
exact (unconverged steps, adjoint solves short of their tolerance) warns with
softgrad.GradientWarning; scene.gradient(..., report=True) also returns the adjoint's report.
softgrad.torch holds the PyTorch layers (batches of rollouts side by side with batch=B),
softgrad.io reads and writes meshes through meshio, softgrad.gym holds Gymnasium environments.
train, compare and sysid run what the command line's subcommands run: the same files, and the
summary they write returned as a dict. Every function has a signature (inspect.signature, the
stubs in _softgrad.pyi); the C++ core's log records go to logging.getLogger("softgrad").
"""

import json as _json
import os as _os

# OpenMP threads that spin long while they wait make softgrad's loops 20-40x slower beside
# another busy process; softgrad's programs spin 3000 iterations, then sleep (kSpinCount in
# openmp_waiting.hpp). libgomp reads its settings once, when it loads: with this import, unless
# PyTorch or NumPy loaded it first (import softgrad first, or set GOMP_SPINCOUNT yourself).
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "3000"

from . import _softgrad  # noqa: E402
from . import _typed  # noqa: E402

# Signatures and type hints for the C++ functions (inspect.signature, help(), IDEs).
_typed.attach(_softgrad)

from ._softgrad import (  # noqa: E402, F401
    ConvergenceError,
    GradientWarning,
    RigidBody,
    Rollout,
    Run,
    Scene,
    Trajectory,
    __version__,
    build_info,
    load_plugin,
    materials,
    scene_reference,
)


from . import rigid as _rigid  # noqa: E402

Trajectory.rigid_body = _rigid.trajectory_rigid_body
Trajectory.rigid_body.__qualname__ = "Trajectory.rigid_body"
Trajectory.joint = _rigid.trajectory_joint
Trajectory.joint.__qualname__ = "Trajectory.joint"

__all__ = ["ConvergenceError", "GradientWarning", "RigidBody", "Rollout", "Run", "Scene",
           "Trajectory",
           "__version__", "build_info", "compare", "load", "load_plugin", "materials", "scene_reference",
           "sysid", "train"]


def _json_value(value):
    """A NumPy array or scalar in a scene dict as JSON: arrays flattened in C order (a mesh's
    (n, dim) vertices and (m, dim + 1) elements are the flat lists the scene keys take)."""
    import numpy

    if isinstance(value, numpy.ndarray):
        return value.ravel().tolist()
    if isinstance(value, numpy.generic):
        return value.item()
    raise TypeError(f"softgrad.load: a {type(value).__name__} in the scene is not JSON data")


def _inline_arrays(mesh, where, dim):
    """A mesh dict's "vertices" and "elements" as flat arrays, their rows checked to hold dim
    coordinates and dim + 1 indices (an (n, 3) array in a 2D scene is refused, not read as
    1.5 n vertices), the coordinates finite."""
    import numpy

    for key, width, dtype in (("vertices", dim, float), ("elements", dim + 1, None)):
        value = mesh.get(key)
        if not isinstance(value, (list, tuple, numpy.ndarray)):
            continue  # absent, or not an array: the scene reader names what it is
        try:
            array = numpy.asarray(value, dtype=dtype)
        except (TypeError, ValueError):
            continue
        if array.dtype == object:
            continue
        if array.ndim == 2 and array.shape[1] != width:
            raise ValueError(f"{where}/{key}: an array of shape {array.shape}; a {dim}D scene's "
                             f"{key} take {width} values per row")
        if array.ndim > 2:
            raise ValueError(f"{where}/{key}: an array of shape {array.shape}, not (rows, "
                             f"{width})")
        if key == "vertices" and array.size and not numpy.isfinite(array).all():
            k = int(numpy.flatnonzero(~numpy.isfinite(array.ravel()))[0])
            raise ValueError(f"{where}/vertices: value {k} (vertex {k // dim}) is "
                             f"{array.ravel()[k]!r}, not a finite number")
        mesh[key] = array.ravel()
    return mesh


def _inline_meshes(scene):
    """The scene with each body's meshio.Mesh, or nested vertex and element lists, as the flat
    "vertices" and "elements" keys."""
    bodies = scene.get("bodies") if isinstance(scene, dict) else None
    if not isinstance(bodies, list):
        return scene
    out = []
    for body in bodies:
        mesh = body.get("mesh") if isinstance(body, dict) else None
        if mesh is not None and type(mesh).__name__ == "Mesh" and hasattr(mesh, "cells"):
            from . import io

            vertices, elements = io.from_meshio(mesh)
            body = dict(body, mesh={"vertices": vertices, "elements": elements})
        elif isinstance(mesh, dict):
            mesh = _inline_arrays(dict(mesh), f"/bodies/{len(out)}/mesh", scene.get("dim", 3))
            body = dict(body, mesh=mesh)
        out.append(body)
    return dict(scene, bodies=out)


def load(scene, origin=None, allow_plugins=False):
    """A Scene from a file path, or from a dict (relative mesh paths against `origin`'s folder,
    default the working directory). In a dict, a body's mesh may be arrays:
    {"vertices": V, "elements": T} with V (n, dim) and T (m, dim + 1) NumPy arrays (or a
    meshio.Mesh), read as a mesh file's would be. The plugins a scene names must be loaded first
    with `load_plugin`, unless `allow_plugins` lets the scene load them (a plugin is code: allow
    it only for scenes you trust)."""
    if isinstance(scene, dict):
        try:
            text = _json.dumps(_inline_meshes(scene), default=_json_value, allow_nan=False)
        except ValueError as e:
            raise ValueError(f"softgrad.load: {e} (a scene's numbers are finite)") from None
        return Scene.from_json(text, origin or _os.path.join(_os.getcwd(), "<dict>"),
                               allow_plugins)
    if isinstance(scene, (str, _os.PathLike)):
        return Scene(_os.fspath(scene), allow_plugins)
    raise TypeError(f"softgrad.load: expected a path or a dict, got {type(scene).__name__}")


def _scene(scene):
    return scene if isinstance(scene, Scene) else load(scene)


def train(scene, out=None, iterations=None, resume=False, solver=None, threads=0, quiet=False,
          verbose=False):
    """`softgrad train`: the control scene's controller (or launch) trained by gradients through the
    simulator. Writes loss.csv, loss.svg, best_controller.json, best_parameters.txt, the rollout
    and summary.json into `out` (default: the scene's output folder); returns summary.json.
    `scene` is a Scene, a path or a dict. `resume` continues the run in `out`. Ctrl-C stops
    after the current iteration: the files are written, then KeyboardInterrupt is raised."""
    return _softgrad._train(_scene(scene), out, iterations, resume, solver, threads, quiet,
                            verbose)


def compare(scene, budget=None, out=None, solver=None, threads=0, quiet=False, verbose=False):
    """`softgrad compare`: gradient training against PPO and OpenAI-ES on the same episodes,
    `budget` simulated steps each (default: the scene's compare.budget). Writes compare.csv,
    compare.json and compare.svg into `out`; returns compare.json."""
    return _softgrad._compare(_scene(scene), budget, out, solver, threads, quiet, verbose)


def sysid(scene, data=(), out="out/sysid", params=(), method=None, max_iterations=0, starts=0,
          threads=0, quiet=False, verbose=False):
    """`softgrad sysid`: the scene's parameters identified from recordings of its markers
    (`data`: CSV paths of the scene; none: the recordings its sysid.experiments list). `params`
    replaces the scene's sysid block, `method` is "lm" or "lbfgs". Writes report.json and fit.svg
    into `out`; returns report.json (estimates, standard deviations, residuals)."""
    if isinstance(data, (str, _os.PathLike)):
        data = [data]
    if isinstance(params, str):
        params = [params]
    return _softgrad._sysid(_scene(scene), [_os.fspath(d) for d in data], _os.fspath(out),
                            list(params), method, max_iterations, starts, threads, quiet, verbose)
