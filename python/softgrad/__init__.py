"""softgrad: a differentiable implicit soft-body simulator.

    import softgrad
    scene = softgrad.load("scenes/cantilever_gradient.json")
    rollout = scene.rollout(steps=20)
    rollout.set("youngs", 2e5)
    trajectory = scene.simulate(rollout)       # positions: (steps + 1, n_vertices, dim)
    loss, dL = scene.gradient(trajectory, ["youngs"])

Arrays in are checked and copied; arrays out are NumPy copies (the simulator keeps its own
states). Bad input raises ValueError with softgrad's message; a Newton step that does not
converge raises softgrad.ConvergenceError (with .step and .residual). softgrad.torch holds the
PyTorch layers.
"""

import json as _json
import os as _os

from ._softgrad import (  # noqa: F401
    ConvergenceError,
    Rollout,
    Run,
    Scene,
    Trajectory,
    __version__,
    materials,
    scene_reference,
)


def load(scene, origin=None):
    """A Scene from a file path, or from a dict (relative mesh paths against `origin`'s folder,
    default the working directory)."""
    if isinstance(scene, dict):
        return Scene.from_json(_json.dumps(scene), origin or _os.path.join(_os.getcwd(), "<dict>"))
    if isinstance(scene, (str, _os.PathLike)):
        return Scene(_os.fspath(scene))
    raise TypeError(f"softgrad.load: expected a path or a dict, got {type(scene).__name__}")
