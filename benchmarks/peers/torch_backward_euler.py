"""The seed paper's method in PyTorch (Rojas et al., "Differentiable Implicit Soft-Body Physics",
2021), the peer that benchmarks/peers/run_peer_benchmark.py times against softgrad.

A backward-Euler step minimises the incremental potential

    E(x) = 1/(2 dt^2) (x - x_pred)^T M (x - x_pred) + Psi(x; youngs) - f_ext . x,
    x_pred = x_n + dt v_n,

by Newton's method whose direction comes from matrix-free CG on Hessian-vector products taken
by double backward through the energy (torch.autograd.grad with create_graph=True), with a
backtracking line search on E. CG is truncated at negative curvature (Newton-CG, Nocedal and
Wright Alg. 7.1), the peer's counterpart of softgrad's PSD projection. The gradient of a loss
on the trajectory with respect to Young's modulus is the adjoint of the step equations
(implicit function theorem): per step, backwards, CG solves H lambda = dL/dx_{n+1} and autograd
pulls lambda through the mixed second derivatives to x_n, v_n and youngs.

Psi is softgrad's stable Neo-Hookean (include/softgrad/materials/stable_neo_hookean.hpp) with
its Lame parameters from (youngs, poisson) (include/softgrad/material.hpp); mass is lumped, a
quarter of each tet's mass on each of its vertices; fixed vertices are eliminated by masking.
Everything is float64; the element computations are batched 3x3 tensors.
"""

import math
import time

import torch

from newton_cg import conjugate_gradient, newton_minimise

f64 = torch.float64


def det3(F):
    """det of a batch of 3x3 matrices (m, 3, 3), written out (rest shapes only)."""
    return (F[:, 0, 0] * (F[:, 1, 1] * F[:, 2, 2] - F[:, 1, 2] * F[:, 2, 1]) -
            F[:, 0, 1] * (F[:, 1, 0] * F[:, 2, 2] - F[:, 1, 2] * F[:, 2, 0]) +
            F[:, 0, 2] * (F[:, 1, 0] * F[:, 2, 1] - F[:, 1, 1] * F[:, 2, 0]))


def stable_neo_hookean(I_C, J, youngs, poisson):
    """psi per element from I_C = tr(F^T F) and J = det F: softgrad's formula, including the
    constants that make psi(I) = 0."""
    mu = youngs / (2.0 * (1.0 + poisson))
    lam = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson))
    mu_s = (4.0 / 3.0) * mu
    lam_s = lam + (5.0 / 6.0) * mu
    alpha = 1.0 + mu / lam_s
    return (0.5 * mu_s * (I_C - 3.0) + 0.5 * lam_s * (J - alpha) ** 2 -
            0.5 * mu_s * torch.log(I_C + 1.0) + 0.5 * mu_s * math.log(4.0) -
            0.5 * mu * mu / lam_s)


class TorchBackwardEuler:
    """A tet mesh (rest positions X (n, 3), tets (m, 4)) with fixed vertices, gravity and
    stable Neo-Hookean elasticity, stepped and differentiated by the seed paper's method.

    newton_tolerance: a step converges when |dx|_inf <= newton_tolerance * L * dt (L the rest
    bounding-box diagonal), softgrad's own criterion; cg_tolerance: relative residual of the
    Newton directions' CG; adjoint_cg_tolerance: that of the adjoint solves."""

    def __init__(self, X, tets, fixed, youngs, poisson, density, gravity, dt,
                 newton_tolerance=1e-9, cg_tolerance=1e-6, adjoint_cg_tolerance=1e-10,
                 newton_max_iterations=50, cg_max_iterations=10000):
        self.X = torch.as_tensor(X, dtype=f64).clone()
        self.tets = torch.as_tensor(tets, dtype=torch.long)
        self.youngs = float(youngs)
        self.poisson = float(poisson)
        self.dt = float(dt)
        n = self.X.shape[0]
        # Dm has the rest edges x1 - x0, x2 - x0, x3 - x0 as columns; F = Ds Dm^-1.
        Xe = self.X[self.tets]
        Dm = (Xe[:, 1:, :] - Xe[:, :1, :]).transpose(1, 2)
        Dm_inv = torch.linalg.inv(Dm)
        # The shape-function gradients as rows (m, 3, 4): F = Ds Dm^-1 = sum_a x_a grad N_a^T.
        self.grad_N_T = torch.cat([-Dm_inv.sum(dim=1, keepdim=True), Dm_inv], dim=1)
        self.grad_N_T = self.grad_N_T.transpose(1, 2).contiguous()
        self.rest_volume = det3(Dm).abs() / 6.0
        mass = torch.zeros(n, dtype=f64)
        mass.index_add_(0, self.tets.reshape(-1),
                        (density * self.rest_volume / 4.0).repeat_interleave(4))
        self.mass = mass[:, None].expand(n, 3).contiguous()
        self.f_ext = self.mass * torch.as_tensor(gravity, dtype=f64)
        self.free = torch.ones(n, 3, dtype=f64)
        self.free[torch.as_tensor(fixed, dtype=torch.long)] = 0.0
        extent = self.X.max(dim=0).values - self.X.min(dim=0).values
        self.step_tolerance = newton_tolerance * float(extent.norm()) * self.dt
        self.cg_tolerance = cg_tolerance
        self.adjoint_cg_tolerance = adjoint_cg_tolerance
        self.newton_max_iterations = newton_max_iterations
        self.cg_max_iterations = cg_max_iterations

    def elastic_energy(self, x, youngs):
        # F^T = sum_a grad N_a x_a^T: one gather and one batched product (slices would each
        # cost a zero-filled tensor in every backward); J as a triple product of F^T's rows.
        Ft = torch.bmm(self.grad_N_T, x[self.tets])
        I_C = Ft.square().sum(dim=(1, 2))
        J = (Ft[:, 0] * torch.linalg.cross(Ft[:, 1], Ft[:, 2])).sum(dim=1)
        return (self.rest_volume * stable_neo_hookean(I_C, J, youngs, self.poisson)).sum()

    def energy(self, x, x_pred, youngs):
        """The incremental potential E(x) of a step predicted at x_pred."""
        d = x - x_pred
        return (0.5 / self.dt ** 2 * (self.mass * d * d).sum() + self.elastic_energy(x, youngs) -
                (self.f_ext * x).sum())

    def step(self, x_n, v_n, youngs=None):
        """One backward-Euler step from (x_n, v_n): (x_next, v_next, report), report a dict of
        Newton iterations, CG iterations and the convergence status."""
        youngs = self.youngs if youngs is None else youngs
        x_pred = x_n + self.dt * v_n
        # Start at the prediction with the fixed vertices where they are held.
        x0 = self.free * x_pred + (1.0 - self.free) * x_n
        x, report = newton_minimise(lambda x: self.energy(x, x_pred, youngs), x0, self.free,
                                    self.step_tolerance, self.cg_tolerance,
                                    self.newton_max_iterations, self.cg_max_iterations)
        return x, (x - x_n) / self.dt, report

    def simulate(self, steps, x0=None, v0=None):
        """(positions, velocities, reports): states 0..steps, each (steps + 1, n, 3)."""
        xs = [self.X.clone() if x0 is None else torch.as_tensor(x0, dtype=f64)]
        vs = [torch.zeros_like(xs[0]) if v0 is None else torch.as_tensor(v0, dtype=f64)]
        reports = []
        for _ in range(steps):
            x, v, r = self.step(xs[-1], vs[-1])
            if not r["converged"]:
                raise RuntimeError(f"step {len(reports)}: Newton did not converge: {r['message']}")
            xs.append(x)
            vs.append(v)
            reports.append(r)
        return torch.stack(xs), torch.stack(vs), reports

    def gradient(self, positions, velocities, dl_dx, dl_dv=None):
        """dL/dyoungs by the adjoint of the step equations, for cotangents dl_dx (and dl_dv) of
        the states 0..T, each (T + 1, n, 3). Returns (dl_dyoungs, report) with the CG
        iterations, the worst relative residual of the adjoint solves and the seconds spent
        building graphs, in CG and in the mixed derivatives."""
        T = positions.shape[0] - 1
        dl_dv = torch.zeros_like(dl_dx) if dl_dv is None else dl_dv
        xbar, vbar = dl_dx[T].clone(), dl_dv[T].clone()
        dl_dyoungs, cg_iterations, worst = 0.0, 0, 0.0
        seconds = {"graph": 0.0, "cg": 0.0, "mixed": 0.0}
        for n in range(T - 1, -1, -1):
            t0 = time.perf_counter()
            # v_{n+1} = (x_{n+1} - x_n) / dt: its cotangent goes to both positions.
            xbar = xbar + vbar / self.dt
            xbar_prev = dl_dx[n] - vbar / self.dt
            x_next = positions[n + 1].detach().requires_grad_(True)
            x_n = positions[n].detach().requires_grad_(True)
            v_n = velocities[n].detach().requires_grad_(True)
            youngs = torch.tensor(self.youngs, dtype=f64, requires_grad=True)
            e = self.energy(x_next, x_n + self.dt * v_n, youngs)
            (g,) = torch.autograd.grad(e, x_next, create_graph=True)

            def hvp(p):
                (Hp,) = torch.autograd.grad(g, x_next, p, retain_graph=True)
                return self.free * Hp

            # Fixed vertices are held: their cotangent reaches nothing.
            t1 = time.perf_counter()
            lam, r = conjugate_gradient(hvp, self.free * xbar, self.adjoint_cg_tolerance,
                                        self.cg_max_iterations)
            if r["negative_curvature"] or not r["converged"]:
                raise RuntimeError(f"adjoint step {n}: CG failed ({r})")
            t2 = time.perf_counter()
            cg_iterations += r["iterations"]
            worst = max(worst, r["relative_residual"])
            # x_{n+1} solves g(x_{n+1}; x_n, v_n, youngs) = 0: d/dtheta = -lambda^T dg/dtheta.
            gx, gv, gE = torch.autograd.grad((g * self.free * lam).sum(), [x_n, v_n, youngs])
            xbar = xbar_prev - gx
            vbar = dl_dv[n] - gv
            dl_dyoungs -= float(gE)
            seconds["graph"] += t1 - t0
            seconds["cg"] += t2 - t1
            seconds["mixed"] += time.perf_counter() - t2
        return dl_dyoungs, {"cg_iterations": cg_iterations, "worst_relative_residual": worst,
                            "seconds": seconds}
