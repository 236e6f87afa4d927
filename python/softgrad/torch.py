"""softgrad as PyTorch layers.

simulate(scene, rollout, params) runs a rollout from named parameter tensors (material values
or fields, "x0", "v0", per-step forces or activations, ...) and returns the whole trajectory as
tensors. Its backward is softgrad's adjoint, run once for every output (one linear solve per
step), not a torch graph of the rollout, so any torch loss of the positions and velocities
gets exact gradients:

    import torch, softgrad, softgrad.torch
    scene = softgrad.load("scenes/cantilever_gradient.json")
    E = torch.tensor(2e5, dtype=torch.float64, requires_grad=True)
    x, v = softgrad.torch.simulate(scene, scene.rollout(steps=20), {"youngs": E})
    x[-1, :, 1].mean().backward()      # E.grad: d(mean final height)/dE
"""

import numpy as _np
import torch as _torch


class _Simulate(_torch.autograd.Function):
    @staticmethod
    def forward(ctx, scene, rollout, names, *values):
        run = rollout.copy()
        for name, value in zip(names, values):
            run.set(name, value.detach().cpu().double().numpy())
        trajectory = scene.simulate(run)
        ctx.scene, ctx.trajectory, ctx.names = scene, trajectory, names
        ctx.inputs = [(v.shape, v.dtype, v.device, run.get(name).size)
                      for name, v in zip(names, values)]
        return (_torch.from_numpy(trajectory.positions), _torch.from_numpy(trajectory.velocities))

    @staticmethod
    def backward(ctx, dx, dv):
        cotangent = (None if dx is None else dx.detach().cpu().double().numpy(),
                     None if dv is None else dv.detach().cpu().double().numpy())
        _, gradient = ctx.scene.gradient(ctx.trajectory, list(ctx.names), loss=cotangent)
        grads, offset = [], 0
        for shape, dtype, device, size in ctx.inputs:
            block = gradient[offset:offset + size]
            offset += size
            if int(_np.prod(shape)) == 1 and size > 1:  # one value set into all of them
                block = _np.array(block.sum())
            grads.append(_torch.from_numpy(_np.ascontiguousarray(block)).reshape(shape).to(
                dtype=dtype, device=device))
        return (None, None, None, *grads)


def simulate(scene, rollout=None, params=None):
    """(positions, velocities) of a rollout, each (steps + 1, n_vertices, dim) float64, as a
    differentiable function of the tensors in `params` ({name: tensor}, names as
    scene.parameters() lists them; a tensor holds all of a parameter's values, any shape, or
    one value for all). `rollout` defaults to scene.rollout(); it is not changed."""
    rollout = scene.rollout() if rollout is None else rollout
    params = {} if params is None else params
    names = tuple(params)
    values = []
    for name in names:
        value = params[name]
        if not isinstance(value, _torch.Tensor):
            raise TypeError(f"softgrad.torch.simulate: params[{name!r}] must be a torch tensor, "
                            f"got {type(value).__name__}")
        values.append(value)
    return _Simulate.apply(scene, rollout, names, *values)
