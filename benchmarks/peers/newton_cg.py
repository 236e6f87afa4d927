"""Newton-CG by autograd for the PyTorch peer (torch_backward_euler.py): truncated CG on
Hessian-vector products from double backward, and Newton's method with a backtracking line
search. Vectors are tensors of the shape of x; `free` (same shape, 1 or 0) masks the held dofs.
"""

import time

import torch


def dot(a, b):
    return float(torch.dot(a.reshape(-1), b.reshape(-1)))


def conjugate_gradient(hvp, b, rtol, max_iterations):
    """Solves H d = b by CG from d = 0 until |r| <= rtol |b|, stopping at negative curvature
    (p^T H p <= 0). Returns (d, report); d = b if the first direction already has negative
    curvature (steepest descent for a Newton system b = -g)."""
    d = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rr = dot(r, r)
    b_norm = rr ** 0.5
    report = {"iterations": 0, "converged": b_norm == 0.0, "negative_curvature": False,
              "relative_residual": 0.0}
    if b_norm == 0.0:
        return d, report
    for k in range(max_iterations):
        Hp = hvp(p)
        pHp = dot(p, Hp)
        report["iterations"] = k + 1
        if not pHp > 0.0:
            report["negative_curvature"] = True
            return (b.clone() if k == 0 else d), report
        a = rr / pHp
        d.add_(p, alpha=a)
        r.add_(Hp, alpha=-a)
        rr_next = dot(r, r)
        report["relative_residual"] = rr_next ** 0.5 / b_norm
        if rr_next ** 0.5 <= rtol * b_norm:
            report["converged"] = True
            return d, report
        p.mul_(rr_next / rr).add_(r)
        rr = rr_next
    return d, report


def newton_minimise(energy, x, free, step_tolerance, cg_tolerance, max_iterations,
                    cg_max_iterations, max_halvings=40):
    """Minimises energy(x) over the free dofs from x. Converged when a Newton step has
    |dx|_inf <= step_tolerance (the step is taken). Returns (x, report); report["seconds"]
    splits the time into building the gradient's graph, CG (its products) and line search."""
    report = {"converged": False, "iterations": 0, "cg_iterations": 0,
              "negative_curvature": 0, "message": "",
              "seconds": {"graph": 0.0, "cg": 0.0, "line_search": 0.0}}
    seconds = report["seconds"]
    eps = torch.finfo(x.dtype).eps
    for it in range(max_iterations):
        t0 = time.perf_counter()
        x = x.detach().requires_grad_(True)
        e = energy(x)
        (g,) = torch.autograd.grad(e, x, create_graph=True)
        e = float(e)
        g_free = (free * g).detach()

        def hvp(p):
            (Hp,) = torch.autograd.grad(g, x, p, retain_graph=True)
            return free * Hp

        t1 = time.perf_counter()
        dx, cg = conjugate_gradient(hvp, -g_free, cg_tolerance, cg_max_iterations)
        t2 = time.perf_counter()
        seconds["graph"] += t1 - t0
        seconds["cg"] += t2 - t1
        report["iterations"] = it + 1
        report["cg_iterations"] += cg["iterations"]
        report["negative_curvature"] += int(cg["negative_curvature"])
        g = hvp = None  # frees the double-backward graph before the line search
        x = x.detach()
        step = float(dx.abs().max())
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
