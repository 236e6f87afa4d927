"""One timed forward and backward run of the beam (beam_problem.py) by each side: softgrad with
one linear backend (its Python module; the adjoint uses the simulator's backend), and the
PyTorch peer. Both return a dict of seconds per step, counts per step, the final positions
(n, 3) and dL/dyoungs.
"""

import json
import os
import subprocess
import tempfile
import time

import numpy as np
import torch

import beam_problem
import softgrad

# The peer's settings (TorchBackwardEuler's keyword arguments). SOFTGRAD_POLICY mirrors softgrad's
# CG backends (Eisenstat-Walker forcing at most 0.1, the last direction refined to cg_tolerance
# 1e-10, the adjoint to 1e-10 warm-started, the accelerated guess, Jacobi); OLD_SETTINGS are the
# peer's before the sweep (every direction to 1e-6, cold adjoint, inertial start, plain CG).
SOFTGRAD_POLICY = {"forcing": "ew2", "max_forcing": 0.1, "refine_tolerance": 1e-10,
                   "adjoint_cg_tolerance": 1e-10, "adjoint_warm_start": True,
                   "hvp": "double_backward", "accelerated_guess": True, "jacobi": True}
OLD_SETTINGS = {"forcing": "fixed", "max_forcing": 1e-6, "refine_tolerance": None,
                "adjoint_cg_tolerance": 1e-10, "adjoint_warm_start": False,
                "hvp": "double_backward", "accelerated_guess": False, "jacobi": False}


def run_softgrad(cells, steps, linear, newton_tolerance=1e-9):
    """softgrad's forward (Scene.simulate) and backward (Scene.gradient by "youngs" on the
    scene's loss) timed separately; the adjoint's CG count from its report."""
    scene = softgrad.load(beam_problem.scene(cells, steps, linear, newton_tolerance))
    rollout = scene.rollout()
    t0 = time.perf_counter()
    trajectory = scene.simulate(rollout)
    t1 = time.perf_counter()
    loss, gradient, report = scene.gradient(trajectory, ["youngs"], report=True)
    t2 = time.perf_counter()
    newton = trajectory.newton
    return {
        "forward_s_per_step": (t1 - t0) / steps,
        "backward_s_per_step": (t2 - t1) / steps,
        "newton_per_step": sum(r["iterations"] for r in newton) / steps,
        "cg_per_step": sum(r["linear_iterations"] for r in newton) / steps,
        "factorizations_per_step": sum(r["factorizations"] for r in newton) / steps,
        "backward_cg_per_step": report["linear_iterations"] / steps,
        "converged": bool(trajectory.converged),
        "loss": float(loss),
        "dl_dyoungs": float(gradient[0]),
        "final_positions": trajectory.positions[-1],
        "scene": scene,
    }


def run_peer(scene, steps, newton_tolerance=1e-9, **settings):
    """The PyTorch peer on softgrad's mesh of `scene` with `settings` (TorchBackwardEuler's
    keyword arguments): simulate, the loss, and the adjoint."""
    peer = beam_problem.peer(scene, newton_tolerance=newton_tolerance, **settings)
    out = peer_forward(peer, steps)
    out.update(peer_backward(peer, scene, out))
    return out


def peer_forward(peer, steps):
    """The peer's timed simulate from rest; the trajectory is kept for peer_backward."""
    t0 = time.perf_counter()
    positions, velocities, reports = peer.simulate(steps)
    t1 = time.perf_counter()
    return {
        "settings": peer.settings(),
        "forward_s_per_step": (t1 - t0) / steps,
        "newton_per_step": sum(r["iterations"] for r in reports) / steps,
        "cg_per_step": sum(r["cg_iterations"] for r in reports) / steps,
        "refine_cg_per_step": sum(r["refine_cg_iterations"] for r in reports) / steps,
        "negative_curvature_cg_exits": sum(r["negative_curvature"] for r in reports),
        "forward_split_s_per_step": {k: sum(r["seconds"][k] for r in reports) / steps
                                     for k in reports[0]["seconds"]},
        "converged": all(r["converged"] for r in reports),
        "final_positions": positions[-1].numpy(),
        "trajectory": (positions, velocities),
    }


def peer_backward(peer, scene, forward):
    """The loss and the peer's timed adjoint on peer_forward's trajectory."""
    positions, velocities = forward["trajectory"]
    steps = positions.shape[0] - 1
    t0 = time.perf_counter()
    loss, dl_dx = beam_problem.loss(scene.rest_positions, positions)
    dl_dyoungs, adjoint = peer.gradient(positions, velocities, dl_dx)
    t1 = time.perf_counter()
    return {
        "backward_s_per_step": (t1 - t0) / steps,
        "backward_cg_per_step": adjoint["cg_iterations"] / steps,
        "adjoint_worst_relative_residual": adjoint["worst_relative_residual"],
        "backward_split_s_per_step": {k: v / steps for k, v in adjoint["seconds"].items()},
        "loss": loss,
        "dl_dyoungs": dl_dyoungs,
    }


def run_step_cost(binary, cells, steps, linear, newton_tolerance=1e-9):
    """benchmarks/newton_step_cost on the beam with `linear`: a forward step's time against one
    exact-Hessian assembly and one linear solve at its start, interleaved step by step in one
    process (one thread)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "beam.json")
        with open(path, "w") as f:
            json.dump(beam_problem.scene(cells, steps, linear, newton_tolerance), f)
        out = os.path.join(folder, "cost.json")
        subprocess.run([binary, path, "--threads", "1", "--out", out], check=True,
                       stdout=subprocess.DEVNULL)
        with open(out) as f:
            result = json.load(f)
    result.pop("scene", None)
    return result


def agreement(a, b):
    """Max abs difference of the final positions [m] and relative difference of dL/dyoungs
    (where both have one)."""
    dx = float(np.abs(np.asarray(a["final_positions"]) - np.asarray(b["final_positions"])).max())
    out = {"final_position_max_abs_m": dx}
    if "dl_dyoungs" in a and "dl_dyoungs" in b:
        ga, gb = a["dl_dyoungs"], b["dl_dyoungs"]
        out["dl_dyoungs_relative"] = abs(ga - gb) / max(abs(ga), abs(gb), 1e-300)
    return out


def configure_threads():
    """One thread for torch (softgrad's come from OMP_NUM_THREADS, set before the import)."""
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # allowed once per process, before any inter-op work
        pass
