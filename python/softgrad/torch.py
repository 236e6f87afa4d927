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


def _tensor_values(where, params):
    """The names and tensors of `params`, checked to be tensors."""
    names = tuple(params)
    for name in names:
        if not isinstance(params[name], _torch.Tensor):
            raise TypeError(f"softgrad.torch.{where}: params[{name!r}] must be a torch tensor, "
                            f"got {type(params[name]).__name__}")
    return names, [params[name] for name in names]


def _numpy(tensor):
    return tensor.detach().cpu().double().numpy()


def _cotangent(d):
    return None if d is None else _numpy(d)


def _input_gradients(gradient, inputs):
    """Torch gradients of the inputs (shape, dtype, device, values set) from softgrad's flat
    gradient in the same order; a one-value input set into all of a parameter's values gets the
    sum of theirs."""
    grads, offset = [], 0
    for shape, dtype, device, size in inputs:
        block = gradient[offset:offset + size]
        offset += size
        if int(_np.prod(shape)) == 1 and size > 1:
            block = _np.array(block.sum())
        grads.append(_torch.from_numpy(_np.ascontiguousarray(block)).reshape(shape).to(
            dtype=dtype, device=device))
    return grads


class _Simulate(_torch.autograd.Function):
    @staticmethod
    def forward(ctx, scene, rollout, names, *values):
        run = rollout.copy()
        for name, value in zip(names, values):
            run.set(name, _numpy(value))
        trajectory = scene.simulate(run)
        ctx.scene, ctx.trajectory, ctx.names = scene, trajectory, names
        ctx.inputs = [(v.shape, v.dtype, v.device, run.get(name).size)
                      for name, v in zip(names, values)]
        return (_torch.from_numpy(trajectory.positions), _torch.from_numpy(trajectory.velocities))

    @staticmethod
    def backward(ctx, dx, dv):
        _, gradient = ctx.scene.gradient(ctx.trajectory, list(ctx.names),
                                         loss=(_cotangent(dx), _cotangent(dv)))
        return (None, None, None, *_input_gradients(gradient, ctx.inputs))


class _SimulateBatch(_torch.autograd.Function):
    @staticmethod
    def forward(ctx, scene, rollout, batch, threads, names, *values):
        runs = []
        for b in range(batch):
            run = rollout.copy()
            for name, value in zip(names, values):
                try:
                    run.set(name, _numpy(value[b]))
                except ValueError as e:
                    raise ValueError(f"rollout {b}: {e}") from None
            runs.append(run)
        trajectories = scene.simulate_batch(runs, threads)
        ctx.scene, ctx.trajectories, ctx.names, ctx.threads = scene, trajectories, names, threads
        ctx.inputs = [(v.shape[1:], v.dtype, v.device, runs[0].get(name).size)
                      for name, v in zip(names, values)]
        return (_torch.from_numpy(_np.stack([t.positions for t in trajectories])),
                _torch.from_numpy(_np.stack([t.velocities for t in trajectories])))

    @staticmethod
    def backward(ctx, dx, dv):
        losses = [(None if dx is None else _numpy(dx[b]), None if dv is None else _numpy(dv[b]))
                  for b in range(len(ctx.trajectories))]
        results = ctx.scene.gradient_batch(ctx.trajectories, list(ctx.names), losses,
                                           threads=ctx.threads)
        per_rollout = [_input_gradients(gradient, ctx.inputs) for _, gradient in results]
        grads = [_torch.stack([g[i] for g in per_rollout]) for i in range(len(ctx.inputs))]
        return (None, None, None, None, None, *grads)


def simulate(scene, rollout=None, params=None, batch=None, threads=0):
    """(positions, velocities) of a rollout, each (steps + 1, n_vertices, dim) float64, as a
    differentiable function of the tensors in `params` ({name: tensor}, names as
    scene.parameters() lists them; a tensor holds all of a parameter's values, any shape, or
    one value for all). `rollout` defaults to scene.rollout(); it is not changed.

    batch=B runs B rollouts side by side (Scene.simulate_batch on `threads` threads, 0: one per
    hardware thread): every tensor in `params` then has a leading dimension B (rollout b gets
    tensor[b]; expand a shared one, e.g. E.expand(B)), and positions and velocities are
    (B, steps + 1, n_vertices, dim). Its backward runs the B adjoints side by side. Both equal
    B separate calls bit for bit."""
    rollout = scene.rollout() if rollout is None else rollout
    names, values = _tensor_values("simulate", {} if params is None else params)
    if batch is None:
        return _Simulate.apply(scene, rollout, names, *values)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError(f"softgrad.torch.simulate: batch must be a positive int (the number of "
                         f"rollouts) or None, got {batch!r}")
    for name, value in zip(names, values):
        if value.dim() == 0 or value.shape[0] != batch:
            raise ValueError(f"softgrad.torch.simulate: with batch={batch}, params[{name!r}] "
                             f"needs a leading dimension of {batch}, got shape "
                             f"{tuple(value.shape)}")
    return _SimulateBatch.apply(scene, rollout, batch, int(threads), names, *values)


class _Step(_torch.autograd.Function):
    """One step of B environments (x, v: (B, n, dim), action: (B, action size), t: B times)."""

    @staticmethod
    def forward(ctx, stepper, times, x, v, action):
        runs = []
        names = ["x0", "v0"] + ([stepper.control] if stepper.control is not None else [])
        for b, t in enumerate(times):
            run = stepper.template.copy()
            run.t0 = t
            run.x0 = _numpy(x[b])
            run.v0 = _numpy(v[b])
            if stepper.control is not None:
                values = _np.zeros(stepper.control_size)
                values[:stepper.action_size] = _numpy(action[b]).reshape(-1)
                run.set(stepper.control, values)
            runs.append(run)
        trajectories = stepper.scene.simulate_batch(runs, stepper.threads)
        ctx.stepper, ctx.trajectories, ctx.names = stepper, trajectories, names
        ctx.dtype = x.dtype
        return (_torch.from_numpy(_np.stack([t.positions[1] for t in trajectories])),
                _torch.from_numpy(_np.stack([t.velocities[1] for t in trajectories])))

    @staticmethod
    def backward(ctx, dx, dv):
        stepper = ctx.stepper
        shape = (stepper.scene.n_vertices, stepper.scene.dim)
        losses = []
        for b in range(len(ctx.trajectories)):
            cx, cv = _np.zeros((2, *shape)), _np.zeros((2, *shape))
            if dx is not None:
                cx[1] = _numpy(dx[b])
            if dv is not None:
                cv[1] = _numpy(dv[b])
            losses.append((cx, cv))
        results = stepper.scene.gradient_batch(ctx.trajectories, ctx.names, losses,
                                               threads=stepper.threads)
        n = shape[0] * shape[1]
        g = _np.stack([gradient for _, gradient in results])
        gx = _torch.from_numpy(g[:, :n].reshape(-1, *shape).copy()).to(ctx.dtype)
        gv = _torch.from_numpy(g[:, n:2 * n].reshape(-1, *shape).copy()).to(ctx.dtype)
        ga = None
        if stepper.control is not None:
            ga = _torch.from_numpy(g[:, 2 * n:2 * n + stepper.action_size].copy()).to(ctx.dtype)
        return None, None, gx, gv, ga


class Stepper:
    """One implicit step of a scene as a torch function: stepper(x, v, action, t) -> (x', v'),
    each (n_vertices, dim), differentiable in x, v and the action.

    `control` names the per-step parameter group the action sets for the step (default: the
    muscle activations "muscles.activation" of a creature, one value per muscle in (-1, 1));
    None: no action. Another per-step group needs `action_size`, its values per step (the
    first step's values are the action). The scene's own controller is not used. `t` is the time
    at x, v (scripted motions and loads follow it). `threads` runs a batch of environments (x of
    shape (B, n_vertices, dim)) on that many threads (0: one per hardware thread)."""

    def __init__(self, scene, control="muscles.activation", action_size=None, threads=0):
        self.scene = scene
        self.threads = int(threads)
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
        """(x', v') after one step from (x, v) at time t under `action`. x and v of shape
        (B, n_vertices, dim) step B environments side by side (Scene.simulate_batch): the action
        is then (B, action size) and t one time or B times; the results are (B, n_vertices, dim)
        and equal B separate calls bit for bit."""
        shape = (self.scene.n_vertices, self.scene.dim)
        batched = x.dim() == 3
        if tuple(x.shape[-2:]) != shape or x.dim() not in (2, 3) or v.shape != x.shape:
            raise ValueError(f"Stepper: x and v must both be {shape} or (B, *{shape}), got "
                             f"{tuple(x.shape)} and {tuple(v.shape)}")
        size = x.shape[0] if batched else 1
        if size == 0:
            raise ValueError("Stepper: a batch of environments needs at least one (x has B = 0)")
        if self.control is not None:
            if action is None or action.numel() != size * self.action_size:
                raise ValueError(f"Stepper: expected an action of {self.action_size} values"
                                 + (f" for each of {size} environments" if batched else ""))
            action = action.reshape(size, self.action_size)
        else:
            action = _torch.zeros(size, 0, dtype=x.dtype)
        times = _np.broadcast_to(_np.asarray(t, dtype=float), (size,)).tolist()
        if batched:
            return _Step.apply(self, times, x, v, action)
        x1, v1 = _Step.apply(self, times, x.unsqueeze(0), v.unsqueeze(0), action)
        return x1[0], v1[0]

    def initial_state(self):
        """The scene's initial (x, v) as float64 tensors."""
        return (_torch.from_numpy(self.template.x0), _torch.from_numpy(self.template.v0))
