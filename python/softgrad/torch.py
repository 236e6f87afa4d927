"""softgrad as PyTorch layers.

step(x, v, action) (a Stepper) takes one implicit step as a differentiable function of the
state and the action (the implicit-function theorem on that step), so a torch policy can drive
a creature in closed loop and be trained by backpropagation through time; each step keeps
only its own one-step trajectory, so memory grows linearly with the horizon.

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


class _Step(_torch.autograd.Function):
    @staticmethod
    def forward(ctx, stepper, t, x, v, action):
        run = stepper.template.copy()
        run.t0 = t
        run.x0 = x.detach().cpu().double().numpy()
        run.v0 = v.detach().cpu().double().numpy()
        names = ["x0", "v0"]
        if stepper.control is not None:
            values = _np.zeros(stepper.control_size)
            values[:stepper.action_size] = action.detach().cpu().double().numpy().reshape(-1)
            run.set(stepper.control, values)
            names.append(stepper.control)
        trajectory = stepper.scene.simulate(run)
        ctx.stepper, ctx.trajectory, ctx.names = stepper, trajectory, names
        ctx.dtype = x.dtype
        return (_torch.from_numpy(trajectory.positions[1].copy()),
                _torch.from_numpy(trajectory.velocities[1].copy()))

    @staticmethod
    def backward(ctx, dx, dv):
        stepper = ctx.stepper
        zero = _np.zeros((2, stepper.scene.n_vertices, stepper.scene.dim))
        cx, cv = zero.copy(), zero.copy()
        if dx is not None:
            cx[1] = dx.detach().cpu().double().numpy()
        if dv is not None:
            cv[1] = dv.detach().cpu().double().numpy()
        _, g = stepper.scene.gradient(ctx.trajectory, ctx.names, loss=(cx, cv))
        n = stepper.scene.n_vertices * stepper.scene.dim
        shape = (stepper.scene.n_vertices, stepper.scene.dim)
        gx = _torch.from_numpy(g[:n].reshape(shape).copy()).to(ctx.dtype)
        gv = _torch.from_numpy(g[n:2 * n].reshape(shape).copy()).to(ctx.dtype)
        ga = None
        if stepper.control is not None:
            ga = _torch.from_numpy(g[2 * n:2 * n + stepper.action_size].copy()).to(ctx.dtype)
        return None, None, gx, gv, ga


class Stepper:
    """One implicit step of a scene as a torch function: stepper(x, v, action, t) -> (x', v'),
    each (n_vertices, dim), differentiable in x, v and the action.

    `control` names the per-step parameter group the action sets for the step (default: the
    muscle activations "muscles.activation" of a creature, one value per muscle in (-1, 1));
    None: no action. Another per-step group needs `action_size`, its values per step (the
    first step's values are the action). The scene's own controller is not used. `t` is the time at x, v (scripted
    motions and loads follow it)."""

    def __init__(self, scene, control="muscles.activation", action_size=None):
        self.scene = scene
        self.template = scene.rollout(steps=1)
        self.template.clear_controller()
        self.control = control
        if control is not None and control not in scene.parameters():
            raise ValueError(f"Stepper: the scene has no parameter {control!r}; it offers "
                             f"{', '.join(scene.parameters())}")
        self.control_size = self.template.get(control).size if control is not None else 0
        if control is None:
            self.action_size = 0
        elif action_size is not None:
            self.action_size = int(action_size)
        elif control == "muscles.activation" and scene.n_muscles > 0:
            self.action_size = scene.n_muscles
        else:
            raise ValueError("Stepper: give action_size, the values of `control` per step")

    def __call__(self, x, v, action=None, t=0.0):
        if self.control is not None:
            if action is None or action.numel() != self.action_size:
                raise ValueError(f"Stepper: expected an action of {self.action_size} values")
        else:
            action = _torch.zeros(0, dtype=x.dtype)
        return _Step.apply(self, float(t), x, v, action)

    def initial_state(self):
        """The scene's initial (x, v) as float64 tensors."""
        return (_torch.from_numpy(self.template.x0), _torch.from_numpy(self.template.v0))
