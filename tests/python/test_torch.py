"""softgrad.torch.simulate: an autograd Function whose backward is softgrad's adjoint, checked
by torch.autograd.gradcheck (central differences) in float64 on small 2D and 3D scenes, with
and without contact; errors inside backward; memory over many rollouts."""

import os

import numpy as np
import pytest
import torch

import softgrad
import softgrad.torch as sgt
from scenes import beam_2d, box_3d

f64 = torch.float64


def gradcheck(f, inputs):
    # eps on inputs of order one; the Newton tolerance (1e-12 L) keeps the differences clean.
    return torch.autograd.gradcheck(f, inputs, eps=1e-6, atol=1e-7, rtol=1e-4)


def test_gradcheck_2d_clamped_beam_modulus_field_and_damping_free_initial_state():
    scene = softgrad.load(beam_2d(steps=5))
    rollout = scene.rollout()
    n = scene.n_elements

    def f(log_field, v0):
        x, v = sgt.simulate(scene, rollout, {"youngs[]": 2e4 * torch.exp(log_field), "v0": v0})
        return x, v

    log_field = torch.linspace(-0.2, 0.2, n, dtype=f64).requires_grad_()
    v0 = torch.zeros(scene.n_vertices, 2, dtype=f64)
    v0[:, 1] = 0.05
    assert gradcheck(f, (log_field, v0.requires_grad_()))


def test_gradcheck_2d_with_contact_and_friction():
    scene = softgrad.load(beam_2d(steps=6, contact=True, loss=False))
    rollout = scene.rollout()
    x = scene.simulate(rollout).positions
    assert x[-1, :, 1].min() < -0.002 + 1e-3  # the beam reaches the ground and slides on it

    def f(log_youngs, mu, v0):
        return sgt.simulate(scene, rollout, {"youngs": 2e4 * torch.exp(log_youngs),
                                             "contact.friction": mu, "v0": v0})

    v0 = torch.from_numpy(rollout.v0).requires_grad_()
    assert gradcheck(f, (torch.tensor(0.0, dtype=f64, requires_grad=True),
                         torch.tensor(0.3, dtype=f64, requires_grad=True), v0))


def test_gradcheck_3d_box_modulus_and_initial_positions():
    scene = softgrad.load(box_3d(steps=3))
    rollout = scene.rollout()

    def f(log_youngs, x0):
        x, _ = sgt.simulate(scene, rollout, {"youngs": 5e4 * torch.exp(log_youngs), "x0": x0})
        return x[-1]

    x0 = torch.from_numpy(rollout.x0).requires_grad_()
    assert gradcheck(f, (torch.tensor(0.1, dtype=f64, requires_grad=True), x0))


def test_any_torch_loss_gets_the_adjoint_gradient_of_the_scene_loss():
    # The scene's loss written in torch gives the gradient softgrad computes for it directly.
    scene = softgrad.load(beam_2d())
    rollout = scene.rollout()
    E = torch.tensor(2e4, dtype=f64, requires_grad=True)
    x, _ = sgt.simulate(scene, rollout, {"youngs": E})
    loss = 0.5 * 10 * ((x[-1, 4] - torch.tensor([0.2, 0.0], dtype=f64)) ** 2).sum()
    loss.backward()
    value, grad = scene.gradient(scene.simulate(rollout), ["youngs"])
    assert loss.item() == pytest.approx(value, rel=1e-12)
    assert E.grad.item() == pytest.approx(grad[0], rel=1e-10)


def test_an_error_inside_backward_is_raised_by_backward():
    scene = softgrad.load(beam_2d())
    E = torch.tensor(2e4, dtype=f64, requires_grad=True)
    x, _ = sgt.simulate(scene, scene.rollout(), {"youngs": E})
    with pytest.raises(ValueError, match="d/dpositions: value .* is NaN"):
        (x * float("nan")).sum().backward()
    with pytest.raises(TypeError, match="must be a torch tensor"):
        sgt.simulate(scene, scene.rollout(), {"youngs": 2e4})


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_thousand_rollouts_and_gradients_keep_memory_bounded():
    scene = softgrad.load(beam_2d(steps=2))
    E = torch.tensor(2e4, dtype=f64, requires_grad=True)

    def one():
        x, v = sgt.simulate(scene, scene.rollout(), {"youngs": E})
        (x.sum() + v.sum()).backward()

    for _ in range(100):
        one()
    before = resident_bytes()
    for _ in range(1000):
        one()
    grown = resident_bytes() - before
    assert grown < 8 * 2**20, f"resident memory grew by {grown / 2**20:.1f} MiB"
    assert np.isfinite(E.grad.item())


def test_the_stiffness_field_example_fits_its_two_halves():
    # A CI-sized run of examples/python/fit_stiffness_field.py (the full run: 4.06 and 0.98 MPa).
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, os.path.join(root, "examples", "python"))
    import fit_stiffness_field

    history = fit_stiffness_field.main(["--iterations", "120", "--steps", "40"])
    assert history[-1][0] < 0.2 * history[0][0]  # the loss falls
    stiff, soft = history[-1][1], history[-1][2]
    assert stiff > 1.5 * soft  # the fit tells the halves apart (truth 4 and 1 MPa)


def pushed_beam(steps, clamped):
    """The 2D beam with a per-step force on every vertex ("steps"), without gravity."""
    scene = beam_2d(steps=steps, loss=False)
    scene["gravity"] = [0, 0]
    scene["forces"] = [{"type": "steps", "region": {"box": {"min": [-1, -1], "max": [1, 1]}}}]
    if not clamped:
        del scene["boundary"]
    return softgrad.load(scene)


def test_per_step_forces_give_a_free_body_their_impulse():
    # No gravity, no support: the internal forces cancel, so the momentum after the rollout is
    # dt times the sum of the applied forces, whatever they do to the body's shape.
    scene = pushed_beam(steps=5, clamped=False)
    rollout = scene.rollout()
    assert "forces:0.force" in scene.parameters()
    forces = torch.from_numpy(np.random.default_rng(3).normal(0, 0.5, (5, scene.n_vertices, 2)))
    x, v = sgt.simulate(scene, rollout, {"forces:0.force": forces})
    mass = torch.from_numpy(scene.masses)
    momentum = mass @ v[-1]
    assert torch.allclose(momentum, scene.dt * forces.sum(dim=(0, 1)), rtol=1e-9, atol=1e-12)
    assert not torch.allclose(v[-1], v[-1].mean(0))  # the body deformed as well


def test_gradcheck_2d_per_step_forces_and_modulus():
    scene = pushed_beam(steps=4, clamped=True)
    rollout = scene.rollout()

    def f(forces, log_youngs):
        return sgt.simulate(scene, rollout, {"forces:0.force": forces,
                                             "youngs": 2e4 * torch.exp(log_youngs)})

    forces = torch.from_numpy(np.random.default_rng(4).normal(0, 0.2, (4, scene.n_vertices, 2)))
    assert gradcheck(f, (forces.requires_grad_(),
                         torch.tensor(0.0, dtype=f64, requires_grad=True)))


def test_gradcheck_2d_density_tied_and_per_element_with_contact():
    # The masses follow the density (inertia, gravity, mass damping, contact against them): the
    # adjoint through softgrad.torch against central differences.
    scene = softgrad.load(beam_2d(steps=6, contact=True, loss=False))
    rollout = scene.rollout()
    name = next(p for p in scene.parameters() if "density:" in p and not p.endswith("[]"))
    field = name + "[]"
    assert field in scene.parameters()

    def f(log_rho, log_field):
        return sgt.simulate(scene, rollout, {name: 1000.0 * torch.exp(log_rho)})[0] + \
            sgt.simulate(scene, rollout, {field: 1000.0 * torch.exp(log_field)})[0]

    n = scene.n_elements
    assert gradcheck(f, (torch.tensor(0.1, dtype=f64, requires_grad=True),
                         torch.linspace(-0.2, 0.2, n, dtype=f64).requires_grad_()))
