"""The seed paper's method in PyTorch (Rojas et al., "Differentiable Implicit Soft-Body Physics",
2021), the peer that benchmarks/peers/run_peer_benchmark.py times against softgrad.

A backward-Euler step minimises the incremental potential

    E(x) = 1/(2 dt^2) (x - x_pred)^T M (x - x_pred) + Psi(x; youngs) - f_ext . x,
    x_pred = x_n + dt v_n,

by inexact Newton whose directions come from matrix-free CG on Hessian-vector products, with a
backtracking line search on E (newton_cg.py). By default the peer follows softgrad's CG
backends: Eisenstat-Walker forcing terms (at most max_forcing), a direction below the Newton
tolerance re-solved to refine_tolerance before convergence is judged, Newton started from the
accelerated guess, and Jacobi-preconditioned CG (its diagonal from the rest state); the seed
paper's fixed relative residual is the policy "fixed" with jacobi off. The products come from
double backward through the energy (the seed paper's), functorch's forward over reverse, or
element Hessians by functorch.vmap(functorch.hessian) of the element energy ("element_hessians":
the same exact H, its element blocks formed once per Newton iteration). CG is truncated at
negative curvature (Newton-CG, Nocedal and Wright Alg. 7.1), the peer's counterpart of
softgrad's PSD projection. The gradient of a loss on the trajectory with respect to Young's
modulus is the adjoint of the step equations (implicit function theorem): per step, backwards,
CG solves H lambda = dL/dx_{n+1}, warm-started from the later step's lambda (as softgrad's CG
backends), and autograd pulls lambda through the mixed second derivatives to x_n, v_n and youngs.

Psi is softgrad's stable Neo-Hookean (include/softgrad/materials/stable_neo_hookean.hpp) with
its Lame parameters from (youngs, poisson) (include/softgrad/material.hpp); mass is lumped, a
quarter of each tet's mass on each of its vertices; fixed vertices are eliminated by masking.
Everything is float64; the element computations are batched 3x3 tensors.
"""

import math
import time

import functorch
import torch

from newton_cg import HVP_MODES, NewtonPolicy, conjugate_gradient, newton_minimise, second_order

f64 = torch.float64
PEER_HVP_MODES = HVP_MODES + ("element_hessians",)


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
    bounding-box diagonal), softgrad's own criterion; forcing, max_forcing, refine_tolerance:
    the Newton directions' CG policy (newton_cg.NewtonPolicy; the defaults are softgrad's);
    adjoint_cg_tolerance: relative residual of the adjoint solves, adjoint_warm_start: whether
    each starts from the later step's lambda; hvp: how H p is computed (PEER_HVP_MODES);
    accelerated_guess: Newton starts from softgrad's second-order guess (step) where it is
    better than the inertial prediction; jacobi: CG (forward and adjoint) preconditioned by the
    inverse diagonal of the rest state's H, formed once from vmap'd element Hessians (softgrad's
    CG backends use Jacobi too, from each iterate's H; the beam stays near its rest shape)."""

    def __init__(self, X, tets, fixed, youngs, poisson, density, gravity, dt,
                 newton_tolerance=1e-9, forcing="ew2", max_forcing=0.1, refine_tolerance=1e-10,
                 adjoint_cg_tolerance=1e-10, adjoint_warm_start=True, hvp="double_backward",
                 accelerated_guess=True, jacobi=True, newton_max_iterations=50,
                 cg_max_iterations=10000):
        if hvp not in PEER_HVP_MODES:
            raise ValueError(f"unknown Hessian-vector product mode {hvp!r}")
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
        self.policy = NewtonPolicy(forcing, max_forcing, refine_tolerance)
        self.adjoint_cg_tolerance = adjoint_cg_tolerance
        self.adjoint_warm_start = adjoint_warm_start
        self.hvp = hvp
        self.accelerated_guess = accelerated_guess
        self.jacobi = jacobi
        self._inverse_diagonal = None
        self.newton_max_iterations = newton_max_iterations
        self.cg_max_iterations = cg_max_iterations

    def settings(self):
        """The solver settings, for reports."""
        return {"forcing": self.policy.forcing, "max_forcing": self.policy.max_forcing,
                "refine_tolerance": self.policy.refine_tolerance,
                "adjoint_cg_tolerance": self.adjoint_cg_tolerance,
                "adjoint_warm_start": self.adjoint_warm_start, "hvp": self.hvp,
                "accelerated_guess": self.accelerated_guess, "jacobi": self.jacobi}

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

    def element_hessians(self, x, youngs):
        """The elastic energy's element Hessians (m, 12, 12) at x, by functorch.vmap of
        functorch.hessian of one element's energy."""
        def element(xe, grad_N_T, volume):
            Ft = grad_N_T @ xe
            J = torch.dot(Ft[0], torch.linalg.cross(Ft[1], Ft[2]))
            return volume * stable_neo_hookean(Ft.square().sum(), J, youngs, self.poisson)

        H = functorch.vmap(functorch.hessian(element))(x[self.tets], self.grad_N_T,
                                                        self.rest_volume)
        return H.reshape(-1, 12, 12)

    def inverse_diagonal(self):
        """With jacobi, free / diag H at the rest state (H = M / dt^2 + the elastic energy's
        Hessian), formed at the first call (inside the timed simulate); else None."""
        if not self.jacobi or self._inverse_diagonal is not None:
            return self._inverse_diagonal
        H = self.element_hessians(self.X, self.youngs)
        diagonal = (self.mass / self.dt ** 2).index_add(
            0, self.tets.reshape(-1), torch.diagonal(H, dim1=1, dim2=2).reshape(-1, 3))
        self._inverse_diagonal = self.free / diagonal
        return self._inverse_diagonal

    def local_model(self, x, x_pred, youngs):
        """(E, free * grad E, p -> free * H p) at x for a step predicted at x_pred (the HVP by
        self.hvp)."""
        def energy(y):
            return self.energy(y, x_pred, youngs)

        if self.hvp != "element_hessians":
            return second_order(energy, x, self.free, self.hvp)
        x = x.detach().requires_grad_(True)
        e = energy(x)
        (g,) = torch.autograd.grad(e, x)
        H = self.element_hessians(x.detach(), float(youngs))
        inertia = self.mass / self.dt ** 2
        index = self.tets.reshape(-1)

        def hvp(p):
            He_p = torch.bmm(H, p[self.tets].reshape(-1, 12, 1)).reshape(-1, 3)
            return self.free * (inertia * p).index_add_(0, index, He_p)

        return float(e), self.free * g, hvp

    def step(self, x_n, v_n, youngs=None, a_n=None):
        """One backward-Euler step from (x_n, v_n): (x_next, v_next, report), report a dict of
        Newton iterations, CG iterations and the convergence status. a_n: the acceleration of
        the step that ended at x_n, for the accelerated guess (None: this step's forces)."""
        youngs = self.youngs if youngs is None else youngs
        x_pred = x_n + self.dt * v_n

        def energy(x):
            return self.energy(x, x_pred, youngs)

        # Start at the prediction with the fixed vertices where they are held ...
        x0 = self.free * x_pred + (1.0 - self.free) * x_n
        if self.accelerated_guess:
            x0 = self.guess(energy, x0, x_n, a_n)
        x, report = newton_minimise(energy, lambda x: self.local_model(x, x_pred, youngs), x0,
                                    self.free, self.step_tolerance, self.policy,
                                    self.newton_max_iterations, self.cg_max_iterations,
                                    self.inverse_diagonal())
        return x, (x - x_n) / self.dt, report

    def guess(self, energy, x_pred, x_n, a_n):
        """... or at softgrad's accelerated guess x_pred + dt^2 a_n where that lowers E (a
        second-order extrapolation). Without a_n (the first step) a_n = M^-1 f(x_n), from
        dE/dx(x_n) = -M v_n / dt - f(x_n): the guess is x_n - dt^2 M^-1 dE/dx(x_n)."""
        if a_n is None:
            x = x_n.detach().requires_grad_(True)
            (g,) = torch.autograd.grad(energy(x), x)
            guess = x_n - self.dt ** 2 * self.free * g / self.mass
        else:
            guess = x_pred + self.dt ** 2 * self.free * a_n
        with torch.no_grad():
            return guess if float(energy(guess)) < float(energy(x_pred)) else x_pred

    def simulate(self, steps, x0=None, v0=None):
        """(positions, velocities, reports): states 0..steps, each (steps + 1, n, 3)."""
        xs = [self.X.clone() if x0 is None else torch.as_tensor(x0, dtype=f64)]
        vs = [torch.zeros_like(xs[0]) if v0 is None else torch.as_tensor(v0, dtype=f64)]
        reports = []
        a = None
        for _ in range(steps):
            x, v, r = self.step(xs[-1], vs[-1], a_n=a)
            if not r["converged"]:
                raise RuntimeError(f"step {len(reports)}: Newton did not converge: {r['message']}")
            a = (v - vs[-1]) / self.dt
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
        lam = None
        for n in range(T - 1, -1, -1):
            t0 = time.perf_counter()
            # v_{n+1} = (x_{n+1} - x_n) / dt: its cotangent goes to both positions.
            xbar = xbar + vbar / self.dt
            xbar_prev = dl_dx[n] - vbar / self.dt
            x_next = positions[n + 1].detach().requires_grad_(True)
            x_n = positions[n].detach().requires_grad_(True)
            v_n = velocities[n].detach().requires_grad_(True)
            youngs = torch.tensor(self.youngs, dtype=f64, requires_grad=True)
            x_pred = x_n + self.dt * v_n
            e = self.energy(x_next, x_pred, youngs)
            (g,) = torch.autograd.grad(e, x_next, create_graph=True)
            if self.hvp == "double_backward":  # the graph the mixed derivatives need anyway
                def hvp(p):
                    (Hp,) = torch.autograd.grad(g, x_next, p, retain_graph=True)
                    return self.free * Hp
            else:
                hvp = self.local_model(x_next.detach(), x_pred.detach(), self.youngs)[2]

            # Fixed vertices are held: their cotangent reaches nothing. The later step's lambda
            # is the warm start (consecutive steps' systems and right-hand sides are close).
            t1 = time.perf_counter()
            warm = lam if self.adjoint_warm_start else None
            lam, r = conjugate_gradient(hvp, self.free * xbar, self.adjoint_cg_tolerance,
                                        self.cg_max_iterations, warm, self.inverse_diagonal())
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
