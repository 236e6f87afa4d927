"""A material plugin loaded from Python: the plugin calls libsoftgrad's functions, which the
extension module loaded privately (the library is promoted to global scope before a plugin is
opened, src/core/plugins.cpp)."""

import json
import os

import numpy as np
import pytest

import softgrad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.environ.get("SOFTGRAD_TEST_PLUGIN", "")


@pytest.mark.skipif(not os.path.isfile(PLUGIN), reason="SOFTGRAD_TEST_PLUGIN (ctest sets it)")
def test_a_scene_with_a_plugin_material_loads_and_sags_under_gravity():
    scene_file = os.path.join(ROOT, "examples", "plugin", "yeoh_block.json")
    with open(scene_file) as f:
        scene = json.load(f)
    scene["plugins"] = [PLUGIN]
    s = softgrad.load(scene, origin=scene_file)
    t = s.simulate(s.rollout(steps=10))
    assert t.positions.shape == (11, 112, 3)
    # Clamped at its top, the Yeoh block sags: its lowest point moves down, and nothing is NaN.
    assert np.all(np.isfinite(t.positions))
    assert t.positions[-1, :, 1].min() < t.positions[0, :, 1].min() - 1e-5
