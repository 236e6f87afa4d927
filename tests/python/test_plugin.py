"""A material plugin loaded from Python: the plugin calls libsoftgrad's functions, which the
extension module loaded privately (the library is promoted to global scope before a plugin is
opened, src/core/plugin.cpp)."""

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


def _short_yeoh(steps=5):
    softgrad.load_plugin(PLUGIN)
    scene, scene_file = _yeoh_scene()
    scene["time"] = {"dt": 0.01, "duration": 0.01 * steps}
    scene["solver"] = {"newton_tolerance": 1e-12}
    return softgrad.load(scene, origin=scene_file)


@pytest.mark.skipif(not os.path.isfile(PLUGIN), reason="SOFTGRAD_TEST_PLUGIN (ctest sets it)")
def test_a_plugin_material_is_differentiated_by_the_torch_layer_gradcheck():
    import torch

    import softgrad.torch as sgt

    s = _short_yeoh(steps=3)
    rollout = s.rollout()

    def f(log_c1, log_c2):
        return sgt.simulate(s, rollout, {"elastic:block.c1": 2e4 * torch.exp(log_c1),
                                         "elastic:block.c2": 2e3 * torch.exp(log_c2)})[0][-1]

    args = (torch.tensor(0.0, dtype=torch.float64, requires_grad=True),
            torch.tensor(0.1, dtype=torch.float64, requires_grad=True))
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-8, rtol=1e-4)
    # The adjoint and forward sensitivities agree on the plugin's parameters.
    t = s.simulate(rollout)
    w = np.random.default_rng(0).normal(size=t.positions.shape)
    _, adjoint = s.gradient(t, ["elastic:block.c1", "elastic:block.kappa"], loss=(w, None))
    _, forward = s.tangent(rollout, ["elastic:block.c1", "elastic:block.kappa"], loss=(w, None))
    assert np.allclose(adjoint, forward, rtol=1e-7, atol=0)


@pytest.mark.skipif(not os.path.isfile(PLUGIN), reason="SOFTGRAD_TEST_PLUGIN (ctest sets it)")
def test_a_plugin_material_s_parameter_is_fitted_from_python():
    from scipy.optimize import minimize

    s = _short_yeoh(steps=5)
    truth = s.rollout()
    truth.set("elastic:block.c1", 2.5e4)
    target = s.simulate(truth).positions[-1]

    def loss_and_gradient(log_c1):
        r = s.rollout()
        r.set("elastic:block.c1", 2e4 * np.exp(log_c1[0]))
        t = s.simulate(r)

        def loss(x, v):
            d = np.zeros_like(x)
            d[-1] = x[-1] - target
            return 0.5 * float(np.sum(d[-1] ** 2)) * 1e6, d * 1e6, None

        value, g = s.gradient(t, ["elastic:block.c1"], loss=loss)
        return value, g * 2e4 * np.exp(log_c1)  # chain rule through c1 = 2e4 exp(log_c1)

    result = minimize(loss_and_gradient, [np.log(1.5)], jac=True, method="L-BFGS-B",
                      options={"gtol": 1e-12, "ftol": 1e-20})
    c1 = 2e4 * np.exp(result.x[0])
    assert c1 == pytest.approx(2.5e4, rel=1e-5), result
