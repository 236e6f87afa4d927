"""Identify Young's modulus and damping from a shipped recording with scipy.optimize.least_squares
and softgrad's Jacobians (forward sensitivities of the marker residuals).

The cantilever of scenes/cantilever_sysid.json swings with a marker at its free end recorded
with 0.5 mm noise (scenes/data/cantilever_noisy.csv; truth E = 6000 Pa, alpha = 4 1/s). The fit
starts from the scene's sysid guesses (3000 Pa, 2 1/s), in log space as `softgrad sysid` does,
and reports standard deviations from (J^T J)^-1 scaled by the residual variance.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/sysid_least_squares.py
"""

import argparse
import os

import numpy as np
from scipy.optimize import least_squares

import softgrad


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scene", default=os.path.join(root, "scenes", "cantilever_sysid.json"))
    p.add_argument("--data", default=os.path.join(root, "scenes", "data", "cantilever_noisy.csv"))
    args = p.parse_args(argv)

    scene = softgrad.load(args.scene)
    names = ["youngs", "damping.alpha"]
    rollout = scene.rollout()
    evaluations = {"n": 0}

    def at(phi):  # theta = exp(phi)
        r = rollout.copy()
        for name, value in zip(names, np.exp(phi)):
            r.set(name, value)
        return r

    def residuals(phi):
        evaluations["n"] += 1
        return scene.marker_residuals(at(phi), args.data, names, jacobian=False)[0]

    def jacobian(phi):
        _, J = scene.marker_residuals(at(phi), args.data, names)
        return J * np.exp(phi)  # d r / d phi

    fit = least_squares(residuals, np.log([3000.0, 2.0]), jac=jacobian, method="lm")
    theta = np.exp(fit.x)
    J = jacobian(fit.x) / theta  # d r / d theta at the estimate
    dof = fit.fun.size - theta.size
    covariance = np.linalg.inv(J.T @ J) * (fit.fun @ fit.fun) / dof
    stddev = np.sqrt(np.diag(covariance))
    for name, value, sd in zip(names, theta, stddev):
        print(f"{name:14s} {value:.6g} +- {sd:.3g}")
    rms = np.sqrt((fit.fun @ fit.fun) / (fit.fun.size / 2))
    print(f"marker rms {rms * 1e3:.3f} mm; {evaluations['n']} residual evaluations, "
          f"{fit.njev} Jacobians; {fit.message}")
    return theta, stddev


if __name__ == "__main__":
    main()
