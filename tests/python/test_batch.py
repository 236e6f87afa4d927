"""Batches through the PyTorch layer: softgrad.torch.simulate(batch=B) and a Stepper on B
environments run the rollouts side by side (Scene.simulate_batch / gradient_batch) and equal B
separate calls bit for bit, forward and backward; their gradients pass gradcheck."""

import os

import numpy as np
import pytest
import torch

import softgrad
import softgrad.torch as sgt
from scenes import beam_2d

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIPED = os.path.join(ROOT, "scenes", "biped_2d.json")
f64 = torch.float64


def batch_inputs(scene, batch):
    E = (2e4 * torch.exp(torch.linspace(-0.3, 0.3, batch, dtype=f64))).requires_grad_()
    v0 = torch.zeros(batch, scene.n_vertices, 2, dtype=f64)
    v0[:, :, 1] = torch.linspace(-0.05, 0.1, batch, dtype=f64)[:, None]
    return E, v0.requires_grad_()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_batched_simulate_equals_separate_calls_bit_for_bit(threads):
    scene = softgrad.load(beam_2d(steps=5))
    rollout = scene.rollout()
    B = 5
    E, v0 = batch_inputs(scene, B)
    x, v = sgt.simulate(scene, rollout, {"youngs": E, "v0": v0}, batch=B, threads=threads)
    assert x.shape == (B, 6, scene.n_vertices, 2) and v.shape == x.shape
    wx, wv = torch.randn_like(x), torch.randn_like(v)
    ((x * wx).sum() + (v * wv).sum()).backward()
    for b in range(B):
        Eb, vb = E[b].detach().clone().requires_grad_(), v0[b].detach().clone().requires_grad_()
        xb, vb_out = sgt.simulate(scene, rollout, {"youngs": Eb, "v0": vb})
        assert torch.equal(xb, x[b]) and torch.equal(vb_out, v[b])
        ((xb * wx[b]).sum() + (vb_out * wv[b]).sum()).backward()
        assert torch.equal(Eb.grad, E.grad[b])
        assert torch.equal(vb.grad, v0.grad[b])
    assert (x[0] - x[-1]).abs().max() > 1e-4  # the rollouts differ


def test_gradcheck_of_a_batched_simulate():
    scene = softgrad.load(beam_2d(steps=4))
    rollout = scene.rollout()

    def f(log_youngs, v0):
        return sgt.simulate(scene, rollout, {"youngs": 2e4 * torch.exp(log_youngs), "v0": v0},
                            batch=3)

    log_youngs = torch.tensor([-0.1, 0.0, 0.2], dtype=f64, requires_grad=True)
    v0 = torch.zeros(3, scene.n_vertices, 2, dtype=f64)
    v0[:, :, 1] = torch.tensor([0.0, 0.05, -0.05], dtype=f64)[:, None]
    assert torch.autograd.gradcheck(f, (log_youngs, v0.requires_grad_()), eps=1e-6, atol=1e-7,
                                    rtol=1e-4)


def test_a_shared_parameter_is_expanded_and_its_gradient_summed():
    scene = softgrad.load(beam_2d(steps=3))
    E = torch.tensor(2e4, dtype=f64, requires_grad=True)
    x, _ = sgt.simulate(scene, scene.rollout(), {"youngs": E.expand(4)}, batch=4)
    x[:, -1, :, 1].sum().backward()
    E1 = torch.tensor(2e4, dtype=f64, requires_grad=True)
    x1, _ = sgt.simulate(scene, scene.rollout(), {"youngs": E1})
    x1[-1, :, 1].sum().backward()
    assert E.grad.item() == pytest.approx(4 * E1.grad.item(), rel=1e-14)


def test_a_batch_refuses_tensors_without_its_leading_dimension_and_names_a_failing_rollout():
    scene = softgrad.load(beam_2d(steps=3))
    with pytest.raises(ValueError, match=r"params\['youngs'\] needs a leading dimension of 3"):
        sgt.simulate(scene, None, {"youngs": torch.ones(2, dtype=f64)}, batch=3)
    with pytest.raises(ValueError, match="batch must be a positive int"):
        sgt.simulate(scene, None, {}, batch=0)
    other = softgrad.load(beam_2d(steps=2))
    with pytest.raises(ValueError, match="rollout 1: this rollout was made by another Scene"):
        scene.simulate_batch([scene.rollout(), other.rollout()])
    # A rollout whose material is out of range fails; the error names it.
    E = torch.tensor([2e4, -1.0, 2e4], dtype=f64)
    with pytest.raises(ValueError, match="rollout 1: "):
        sgt.simulate(scene, None, {"youngs": E}, batch=3)


def test_a_stepper_on_a_batch_of_environments_equals_one_by_one():
    scene = softgrad.load(BIPED)
    stepper = sgt.Stepper(scene, threads=2)
    B, m = 4, stepper.action_size
    x0, v0 = stepper.initial_state()
    x = x0.expand(B, -1, -1).clone().requires_grad_()
    v = v0.expand(B, -1, -1).clone().requires_grad_()
    action = torch.linspace(-0.6, 0.6, B * m, dtype=f64).reshape(B, m).requires_grad_()
    times = [0.0, scene.dt, 2 * scene.dt, 0.0]
    x1, v1 = stepper(x, v, action, t=times)
    assert x1.shape == (B, scene.n_vertices, 2)
    w = torch.randn_like(x1)
    ((x1 * w).sum() + v1.sum()).backward()
    for b in range(B):
        xb = x0.clone().requires_grad_()
        vb = v0.clone().requires_grad_()
        ab = action[b].detach().clone().requires_grad_()
        xb1, vb1 = stepper(xb, vb, ab, t=times[b])
        assert torch.equal(xb1, x1[b]) and torch.equal(vb1, v1[b])
        ((xb1 * w[b]).sum() + vb1.sum()).backward()
        assert torch.equal(xb.grad, x.grad[b]) and torch.equal(vb.grad, v.grad[b])
        assert torch.equal(ab.grad, action.grad[b])
    assert (x1[0] - x1[-1]).abs().max() > 0  # the actions differ
    with pytest.raises(ValueError, match=f"for each of {B} environments"):
        stepper(x, v, torch.zeros(B, m + 1, dtype=f64))


def test_scene_gradient_batch_takes_each_trajectory_s_loss():
    scene = softgrad.load(beam_2d(steps=3))
    runs = [scene.rollout() for _ in range(3)]
    for k, r in enumerate(runs):
        r.set("youngs", 2e4 * (1 + 0.1 * k))
    trajectories = scene.simulate_batch(runs)
    results = scene.gradient_batch(trajectories, ["youngs"])  # the scene's loss
    for t, (value, grad) in zip(trajectories, results):
        alone = scene.gradient(t, ["youngs"])
        assert value == alone[0] and np.array_equal(grad, alone[1])
    weights = [np.full(t.positions.shape, k + 1.0) for k, t in enumerate(trajectories)]
    results = scene.gradient_batch(trajectories, ["youngs"], [(w, None) for w in weights],
                                   report=True)
    assert results[0][2]["trustworthy"]
    for t, w, (value, grad, _) in zip(trajectories, weights, results):
        assert np.array_equal(grad, scene.gradient(t, ["youngs"], loss=(w, None))[1])
    with pytest.raises(ValueError, match="3 trajectories need 3 losses"):
        scene.gradient_batch(trajectories, ["youngs"], [(weights[0], None)])
