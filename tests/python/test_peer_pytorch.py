"""The PyTorch peer of benchmarks/peers (the seed paper's method) solves softgrad's problem: on
a tiny beam its trajectory, step energies and dL/dyoungs equal softgrad's, its inexact-Newton
policy takes softgrad's matrix-free backend's iterations, and its own energy gradient,
Hessian-vector products and dL/dyoungs match central differences; its Eisenstat-Walker forcing
and warm-started CG give the answer of its old fixed-tolerance mode."""

import os
import sys

import numpy as np
import pytest
import torch

import softgrad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "peers"))
import beam_problem  # noqa: E402
from newton_cg import Forcing, NewtonPolicy, conjugate_gradient  # noqa: E402
import sides  # noqa: E402

f64 = torch.float64
CELLS, STEPS = (2, 1, 1), 3


@pytest.fixture(scope="module")
def both():
    """softgrad's and the peer's rollouts of the tiny beam at Newton tolerance 1e-12."""
    torch.set_num_threads(1)
    scene = softgrad.load(beam_problem.scene(CELLS, STEPS, newton_tolerance=1e-12))
    trajectory = scene.simulate(scene.rollout())
    _, gradient = scene.gradient(trajectory, ["youngs"])
    peer = beam_problem.peer(scene, newton_tolerance=1e-12)
    x, v, reports = peer.simulate(STEPS)
    return scene, trajectory, gradient[0], peer, x, v, reports


def close(a, b, rtol, atol=0.0):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert np.abs(a).max() > 0 and np.abs(b).max() > 0, (a, b)
    err = np.abs(a - b).max()
    assert err <= rtol * max(np.abs(a).max(), np.abs(b).max()) + atol, (a, b, err)


def test_the_peer_has_softgrads_mesh_masses_and_clamp(both):
    scene, trajectory, _, peer, _, _, _ = both
    assert scene.n_elements == 6 * 2 and peer.tets.shape == (12, 4)
    close(peer.mass[:, 0].numpy(), scene.masses, 1e-14)
    clamped = peer.free[:, 0] == 0
    assert int(clamped.sum()) == 4
    assert np.array_equal(trajectory.positions[-1][clamped.numpy()],
                          scene.rest_positions[clamped.numpy()])


def test_trajectory_step_energies_and_gradient_equal_softgrads(both):
    scene, trajectory, dl_dyoungs, peer, x, v, reports = both
    X = scene.rest_positions
    # Displacements, which are small against the positions, agree to 1e-8 relative.
    close(x.numpy() - X, trajectory.positions - X, 1e-8)
    close(v.numpy(), trajectory.velocities, 1e-8)
    assert all(r["converged"] for r in reports)
    # The peer's default policy is softgrad's CG backends' (forcing, refinement, guess,
    # Jacobi): the matrix-free backend's Newton iterations, and its CG count within 10%.
    matfree = softgrad.load(beam_problem.scene(CELLS, STEPS, "matfree", newton_tolerance=1e-12))
    for mine, theirs in zip(reports, matfree.simulate(matfree.rollout()).newton):
        assert mine["iterations"] == theirs["iterations"]
        assert mine["cg_iterations"] == pytest.approx(theirs["linear_iterations"], rel=0.1)
    # The incremental potential at each step's solution is softgrad's, constants included.
    for n, r in enumerate(trajectory.newton):
        e = peer.energy(x[n + 1], x[n] + peer.dt * v[n], peer.youngs)
        assert float(e) == pytest.approx(r["energy"], rel=1e-10)
    _, dl_dx = beam_problem.loss(X, x)
    peer_dl_dyoungs, report = peer.gradient(x, v, dl_dx)
    assert report["cg_iterations"] > 0
    close(peer_dl_dyoungs, dl_dyoungs, 1e-8)


def test_energy_gradient_and_hessian_vector_products_match_central_differences(both):
    _, _, _, peer, _, _, _ = both
    gen = torch.Generator().manual_seed(7)
    x = peer.X + 0.02 * torch.randn(peer.X.shape, generator=gen, dtype=f64)
    x_pred = peer.X + 0.01 * torch.randn(peer.X.shape, generator=gen, dtype=f64)
    d = torch.randn(peer.X.shape, generator=gen, dtype=f64)
    h = 1e-6

    def gradient(y, create_graph=False):
        y = y.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(peer.energy(y, x_pred, peer.youngs), y,
                                   create_graph=create_graph)
        return y, g

    with torch.no_grad():
        fd = (peer.energy(x + h * d, x_pred, peer.youngs) -
              peer.energy(x - h * d, x_pred, peer.youngs)) / (2 * h)
    y, g = gradient(x, create_graph=True)
    close(float((g * d).sum()), float(fd), 1e-7)
    (Hd,) = torch.autograd.grad(g, y, d)
    fd_Hd = (gradient(x + h * d)[1] - gradient(x - h * d)[1]) / (2 * h)
    close(Hd.numpy(), fd_Hd.numpy(), 1e-6)


def test_dl_dyoungs_matches_central_differences_of_the_peers_loss(both):
    scene, _, _, peer, x, v, _ = both
    X = scene.rest_positions

    def loss(youngs):
        p = beam_problem.peer(scene, newton_tolerance=1e-12)
        p.youngs = youngs
        return beam_problem.loss(X, p.simulate(STEPS)[0])[0]

    h = 1e-4 * peer.youngs
    fd = (loss(peer.youngs + h) - loss(peer.youngs - h)) / (2 * h)
    adjoint, _ = peer.gradient(x, v, beam_problem.loss(X, x)[1])
    close(adjoint, fd, 1e-6)


def test_warm_started_cg_and_forcing_terms():
    gen = torch.Generator().manual_seed(3)
    A = torch.randn(30, 30, generator=gen, dtype=f64)
    A = A @ A.T + 30.0 * torch.eye(30, dtype=f64)
    b = torch.randn(30, generator=gen, dtype=f64)
    exact = torch.linalg.solve(A, b)
    rough, r = conjugate_gradient(lambda p: A @ p, b, 0.1, 100)
    assert r["converged"] and r["relative_residual"] <= 0.1
    # From a rough guess on to the tight tolerance: the exact solution, the residual's product
    # counted; from the solution itself: that product alone.
    d, r = conjugate_gradient(lambda p: A @ p, b, 1e-12, 100, x0=rough)
    close(d.numpy(), exact.numpy(), 1e-10)
    _, r = conjugate_gradient(lambda p: A @ p, b, 1e-8, 100, x0=exact)
    assert r["converged"] and r["iterations"] == 1
    # Eisenstat-Walker choice 2 as softgrad's ForcingSequence: max_forcing first, then
    # 0.9 (|g| / |g_prev|)^2, raised to 0.9 eta_prev^2 where that exceeds 0.1, capped.
    ew = Forcing(NewtonPolicy("ew2", 0.5))
    assert [ew.next(g) for g in (1.0, 0.5, 0.05, 0.005)] == pytest.approx(
        [0.5, 0.225, 0.009, 0.009])
    capped = Forcing(NewtonPolicy("ew2", 0.5))
    assert [capped.next(g) for g in (1.0, 0.1)] == pytest.approx([0.5, 0.225])  # safeguard
    root = Forcing(NewtonPolicy("sqrt", 0.1))
    assert [root.next(g) for g in (4.0, 1.0, 1e-4)] == pytest.approx([0.1, 0.1, 0.005])


def test_forcing_and_warm_starts_give_the_fixed_tolerance_answer():
    """Softgrad's policy (Eisenstat-Walker forcing, refined last directions, warm-started
    adjoint, Jacobi) and a loose fixed forcing without refinement against the peer's old mode
    (every direction to 1e-6, cold adjoint, plain CG) on a small beam."""
    torch.set_num_threads(1)
    steps = 5
    scene = softgrad.load(beam_problem.scene((8, 2, 2), steps))
    old = sides.run_peer(scene, steps, **sides.OLD_SETTINGS)
    step_tolerance = beam_problem.peer(scene).step_tolerance
    loose = dict(sides.SOFTGRAD_POLICY, forcing="fixed", max_forcing=0.3, refine_tolerance=None)
    for settings in (sides.SOFTGRAD_POLICY, loose):
        new = sides.run_peer(scene, steps, **settings)
        assert new["converged"] and new["cg_per_step"] < old["cg_per_step"]
        agree = sides.agreement(new, old)
        assert agree["final_position_max_abs_m"] <= step_tolerance
        assert agree["dl_dyoungs_relative"] <= 1e-8
