"""Inexact Newton-CG by autograd for the PyTorch peer (torch_backward_euler.py): truncated CG on
Hessian-vector products (Jacobi-preconditioned where a diagonal is given), and Newton's method
with a backtracking line search whose directions are solved only as accurately as the
gradient's convergence can use (softgrad's policy, from src/integrator/newton.cpp). Vectors
are tensors of the shape of x; `free` (same shape, 1 or 0) masks the held dofs.

The policy (NewtonPolicy):
  - forcing "ew2": Eisenstat and Walker's choice 2 (gamma 0.9, exponent 2, their safeguard
    gamma eta_prev^2 where that exceeds 0.1), capped at max_forcing and starting there:
    softgrad's ForcingSequence. "sqrt": eta = min(max_forcing, sqrt(|g| / |g_0|)), |g_0| the
    step's first gradient norm (so eta starts at max_forcing too). "fixed": eta = max_forcing
    for every direction (the peer's old policy was fixed 1e-6 without refinement).
  - A direction's CG stops at |r| <= max(eta, refine_tolerance) |b|.
  - refine_tolerance: a direction that is below the Newton tolerance is re-solved by CG
    warm-started from itself down to this relative residual before it judges convergence
    (softgrad's refine_direction); None: no re-solve, the step is taken and Newton stops.
"""

import dataclasses
import math
import time
from typing import Optional

import functorch
import torch

HVP_MODES = ("double_backward", "functorch")


@dataclasses.dataclass
class NewtonPolicy:
    forcing: str = "ew2"  # "ew2", "sqrt" or "fixed"
    max_forcing: float = 0.1
    refine_tolerance: Optional[float] = 1e-10

    def __post_init__(self):
        if self.forcing not in ("ew2", "sqrt", "fixed"):
            raise ValueError(f"unknown forcing policy {self.forcing!r}")


class Forcing:
    """The forcing terms eta_k of one Newton solve, from the gradient norms |g_k|."""

    def __init__(self, policy):
        self.policy = policy
        self.eta = policy.max_forcing
        self.g_prev = 0.0
        self.g_first = 0.0

    def next(self, g_norm):
        p = self.policy
        if p.forcing == "ew2" and self.g_prev > 0.0:
            ratio = g_norm / self.g_prev
            eta = 0.9 * ratio * ratio
            safeguard = 0.9 * self.eta * self.eta  # against dropping too fast
            if safeguard > 0.1:
                eta = max(eta, safeguard)
            self.eta = min(p.max_forcing, eta)
        elif p.forcing == "sqrt":
            self.g_first = self.g_first or g_norm
            self.eta = min(p.max_forcing, math.sqrt(g_norm / self.g_first))
        self.g_prev = g_norm
        return self.eta


def dot(a, b):
    return float(torch.dot(a.reshape(-1), b.reshape(-1)))


def conjugate_gradient(hvp, b, rtol, max_iterations, x0=None, inverse_diagonal=None):
    """Solves H d = b by CG from d = x0 (or 0) until |r| <= rtol |b|, stopping at negative
    curvature (p^T H p <= 0); preconditioned by diag(inverse_diagonal) if given (Jacobi).
    Returns (d, report); report["iterations"] counts the products with H, the warm start's
    residual b - H x0 included. Negative curvature on the first direction of a cold start gives
    d = b (steepest descent for a Newton system b = -g)."""
    b_norm = dot(b, b) ** 0.5
    report = {"iterations": 0, "converged": b_norm == 0.0, "negative_curvature": False,
              "relative_residual": 0.0}
    if b_norm == 0.0:
        return torch.zeros_like(b), report
    if x0 is None:
        d, r = torch.zeros_like(b), b.clone()
    else:
        d, r = x0.clone(), b - hvp(x0)
        report["iterations"] = 1
    r_norm = dot(r, r) ** 0.5
    report["relative_residual"] = r_norm / b_norm
    if r_norm <= rtol * b_norm:  # the guess is good enough already
        report["converged"] = True
        return d, report
    z = r if inverse_diagonal is None else inverse_diagonal * r
    p = z.clone()
    rz = dot(r, z)
    for k in range(max_iterations):
        Hp = hvp(p)
        pHp = dot(p, Hp)
        report["iterations"] += 1
        if not pHp > 0.0:
            report["negative_curvature"] = True
            return (b.clone() if k == 0 and x0 is None else d), report
        a = rz / pHp
        d.add_(p, alpha=a)
        r.add_(Hp, alpha=-a)
        r_norm = dot(r, r) ** 0.5
        report["relative_residual"] = r_norm / b_norm
        if r_norm <= rtol * b_norm:
            report["converged"] = True
            return d, report
        z = r if inverse_diagonal is None else inverse_diagonal * r
        rz_next = dot(r, z)
        p.mul_(rz_next / rz).add_(z)
        rz = rz_next
    return d, report


def second_order(energy, x, free, mode):
    """(E(x), free * grad E(x), p -> free * H(x) p) of a scalar energy of x, the products by
    `mode`: "double_backward" (reverse over reverse through a gradient graph built once here)
    or "functorch" (forward over reverse, functorch.jvp of functorch.grad, per product)."""
    x = x.detach()
    if mode == "double_backward":
        x.requires_grad_(True)
        e = energy(x)
        (g,) = torch.autograd.grad(e, x, create_graph=True)

        def hvp(p):
            (Hp,) = torch.autograd.grad(g, x, p, retain_graph=True)
            return free * Hp

        return float(e), (free * g).detach(), hvp
    if mode == "functorch":
        gradient = functorch.grad(energy)
        with torch.no_grad():
            e = energy(x)

        def hvp(p):
            return free * functorch.jvp(gradient, (x,), (p,))[1]

        return float(e), free * gradient(x), hvp
    raise ValueError(f"unknown Hessian-vector product mode {mode!r}")


def newton_minimise(energy, local_model, x, free, step_tolerance, policy, max_iterations,
                    cg_max_iterations, inverse_diagonal=None, max_halvings=40):
    """Minimises energy(x) over the free dofs from x; local_model(x) gives (E, free * g, hvp)
    (second_order's triple); inverse_diagonal: CG's Jacobi preconditioner (None: plain CG).
    Converged when a Newton step (refined, see NewtonPolicy) has |dx|_inf <= step_tolerance
    (the step is taken). Returns (x, report); report["seconds"] splits the time into building
    the local model, CG (its products) and line search."""
    report = {"converged": False, "iterations": 0, "cg_iterations": 0,
              "refine_cg_iterations": 0, "negative_curvature": 0, "message": "",
              "seconds": {"graph": 0.0, "cg": 0.0, "line_search": 0.0}}
    seconds = report["seconds"]
    eps = torch.finfo(x.dtype).eps
    forcing = Forcing(policy)
    floor = policy.refine_tolerance or 0.0
    for it in range(max_iterations):
        t0 = time.perf_counter()
        e, g_free, hvp = local_model(x)
        t1 = time.perf_counter()
        eta = max(forcing.next(dot(g_free, g_free) ** 0.5), floor)
        dx, cg = conjugate_gradient(hvp, -g_free, eta, cg_max_iterations,
                                    inverse_diagonal=inverse_diagonal)
        report["cg_iterations"] += cg["iterations"]
        report["negative_curvature"] += int(cg["negative_curvature"])
        step = float(dx.abs().max())
        # A loose direction below the tolerance may be short of the exact one: re-solve it,
        # warm-started from itself, before judging convergence on it (softgrad's refinement).
        if step <= step_tolerance and policy.refine_tolerance is not None and \
                eta > policy.refine_tolerance:
            dx, refine = conjugate_gradient(hvp, -g_free, policy.refine_tolerance,
                                            cg_max_iterations, dx, inverse_diagonal)
            report["cg_iterations"] += refine["iterations"]
            report["refine_cg_iterations"] += refine["iterations"]
            step = float(dx.abs().max())
        t2 = time.perf_counter()
        seconds["graph"] += t1 - t0
        seconds["cg"] += t2 - t1
        report["iterations"] = it + 1
        hvp = None  # frees the double-backward graph before the line search
        x = x.detach()
        if step <= step_tolerance:
            report["converged"] = True
            return x + dx, report
        slope = dot(g_free, dx)
        if not slope < 0.0:  # no descent (CG cannot give that on a PSD system): steepest descent
            dx, slope = -g_free, -dot(g_free, g_free)
            step = float(dx.abs().max())
        # A predicted decrease below E's round-off cannot be seen by a line search: take it.
        if -slope <= 64.0 * eps * abs(e):
            x = x + dx
            continue
        alpha = 1.0
        with torch.no_grad():
            for _ in range(max_halvings):
                # Backtracked below the tolerance near convergence: round-off hides the decrease.
                if alpha * step <= step_tolerance and step <= 1e3 * step_tolerance:
                    alpha = 1.0
                    break
                if float(energy(x + alpha * dx)) <= e + 1e-4 * alpha * slope:
                    break
                alpha *= 0.5
            else:
                report["message"] = f"line search failed (|dx|_inf = {step:.3g})"
                return x, report
        x = x + alpha * dx
        seconds["line_search"] += time.perf_counter() - t2
    report["message"] = f"no convergence in {max_iterations} iterations"
    return x, report
