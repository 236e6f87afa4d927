"""A material plugin loaded from Python: the plugin calls libsoftgrad's functions, which the
extension module loaded privately (the library is promoted to global scope before a plugin is
opened, src/core/plugins.cpp)."""

import json
import os
import shutil

import numpy as np
import pytest

import softgrad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.environ.get("SOFTGRAD_TEST_PLUGIN", "")


def _yeoh_scene():
    scene_file = os.path.join(ROOT, "examples", "plugin", "yeoh_block.json")
    with open(scene_file) as f:
        scene = json.load(f)
    scene["plugins"] = [PLUGIN]
    return scene, scene_file


@pytest.mark.skipif(not os.path.isfile(PLUGIN), reason="SOFTGRAD_TEST_PLUGIN (ctest sets it)")
def test_a_scene_with_a_plugin_material_loads_and_sags_under_gravity(tmp_path):
    scene, scene_file = _yeoh_scene()
    # A scene file runs no code by itself: its plugin must be loaded by the user first (a copy
    # of the plugin is a file this process has certainly not loaded).
    copy = tmp_path / "copy_of_yeoh_plugin.so"
    shutil.copy(PLUGIN, copy)
    with pytest.raises(ValueError, match="A scene file runs no code by itself"):
        softgrad.load(dict(scene, plugins=[str(copy)]), origin=scene_file)
    assert softgrad.load_plugin(PLUGIN) in (["yeoh"], [])
    assert softgrad.load_plugin(PLUGIN) == []  # once per file
    assert "yeoh" in [m["name"] for m in softgrad.materials()]
    s = softgrad.load(scene, origin=scene_file)
    t = s.simulate(s.rollout(steps=10))
    assert t.positions.shape == (11, 112, 3)
    # Clamped at its top, the Yeoh block sags: its lowest point moves down, and nothing is NaN.
    assert np.all(np.isfinite(t.positions))
    assert t.positions[-1, :, 1].min() < t.positions[0, :, 1].min() - 1e-5


@pytest.mark.skipif(not os.path.isfile(PLUGIN), reason="SOFTGRAD_TEST_PLUGIN (ctest sets it)")
def test_allow_plugins_lets_a_scene_load_its_plugin(tmp_path):
    scene, scene_file = _yeoh_scene()
    s = softgrad.load(scene, origin=scene_file, allow_plugins=True)
    assert s.n_vertices == 112
    path = tmp_path / "yeoh_block.json"
    path.write_text(json.dumps(scene))
    assert softgrad.load(path, allow_plugins=True).n_vertices == 112


def test_load_plugin_refuses_a_file_that_is_no_plugin(tmp_path):
    text = tmp_path / "text.so"
    text.write_text("not an ELF file")
    with pytest.raises(ValueError, match="not an ELF file"):
        softgrad.load_plugin(str(text))
    with pytest.raises(ValueError, match="no such file"):
        softgrad.load_plugin(str(tmp_path / "missing.so"))
