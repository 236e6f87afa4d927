"""Small scenes for the Python tests, as dicts (softgrad.load takes them as it takes files)."""

import copy


def beam_2d(steps=6, contact=False, loss=True):
    """A 0.2 x 0.05 m neo-Hookean beam of 4 x 1 cells clamped at x = 0, sagging under gravity;
    with `contact`, unclamped and dropped onto penalty ground with friction, sliding."""
    scene = {
        "name": "beam_2d",
        "dim": 2,
        "time": {"dt": 0.01, "duration": 0.01 * steps},
        "bodies": [{"mesh": {"generator": "rectangle", "resolution": [4, 1], "size": [0.2, 0.05]},
                    "material": {"model": "neo_hookean", "youngs": 2e4, "poisson": 0.3},
                    "density": 1000}],
        "solver": {"newton_tolerance": 1e-12},
        "boundary": [{"name": "clamp",
                      "region": {"plane": {"point": [0, 0], "normal": [-1, 0]}}}],
    }
    if contact:
        del scene["boundary"]
        scene["contact"] = {"model": "penalty", "stiffness": 2e4, "friction": 0.3,
                            "obstacles": [{"type": "ground", "height": -0.002}]}
        scene["initial"] = {"velocity": [0.5, -0.1]}
    if loss:
        scene["loss"] = [{"type": "position", "vertex": 4, "target": [0.2, 0.0], "weight": 10}]
    return scene


def box_3d(steps=4):
    """A 0.2 x 0.1 x 0.1 m box of 2 x 1 x 1 cells clamped at x = 0, sagging under gravity."""
    return {
        "name": "box_3d",
        "dim": 3,
        "time": {"dt": 0.01, "duration": 0.01 * steps},
        "bodies": [{"mesh": {"generator": "box", "resolution": [2, 1, 1], "size": [0.2, 0.1, 0.1]},
                    "material": {"model": "neo_hookean", "youngs": 5e4, "poisson": 0.3}}],
        "solver": {"newton_tolerance": 1e-12},
        "boundary": [{"name": "clamp",
                      "region": {"plane": {"point": [0, 0, 0], "normal": [-1, 0, 0]}}}],
    }


def modified(scene, **changes):
    out = copy.deepcopy(scene)
    out.update(changes)
    return out
