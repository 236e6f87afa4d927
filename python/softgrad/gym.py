"""Gymnasium environments for softgrad's locomotion scenes: reset(seed, options) -> (obs,
info), step(action) -> (obs, reward, terminated, truncated, info), observation_space /
action_space, render(), close().

With the gymnasium package importable, LocomotionEnv is a gymnasium.Env, VectorLocomotionEnv a
gymnasium.vector.VectorEnv (single_observation_space / single_action_space for one environment,
observation_space / action_space for the batch) and the spaces are gymnasium.spaces.Box, so
Gymnasium's wrappers and the libraries built on it take them as they are. Without it (Gymnasium
is not in Debian) they are plain classes with the same API and softgrad.gym.Box as the space.
Either way they have spec (None unless gymnasium.make made them), np_random (a NumPy Generator,
seeded by reset(seed=...)), unwrapped (the environment itself), metadata (render_modes) and
render_mode. The Gymnasium path is tested against a minimal stand-in gymnasium module
(tests/python/test_gymnasium.py), because Gymnasium is not in Debian.

An episode is the scene's creature from rest for `episode_steps` steps (default: the scene's
train.episode_steps); the action y (one value per muscle, unbounded) drives the activations
as softgrad's MLP controller does, u_n = a_max tanh(atanh(u_{n-1} / a_max) + delta tanh(y_n));
the observation is that controller's (relative positions, velocities, clock); the reward is
the centre of mass's progress along the scene's direction [m]. A step whose Newton solve fails
ends the episode as terminated with the failure reward; the time limit is truncated.

    env = softgrad.gym.LocomotionEnv("scenes/biped_2d.json")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

VectorLocomotionEnv steps N episodes at once on worker threads (the same results as N
environments stepped one by one) with Gymnasium's vector API and autoreset.
"""

import importlib as _importlib

import numpy as _np

from . import _softgrad
from . import load as _load


def _import_gymnasium():
    """(gymnasium, gymnasium.spaces, gymnasium.vector), or None where it does not import."""
    try:
        return tuple(_importlib.import_module(name) for name in
                     ("gymnasium", "gymnasium.spaces", "gymnasium.vector"))
    except ImportError:
        return None


class Box:
    """A box of real vectors, as gymnasium.spaces.Box: low, high, shape, dtype, sample(),
    contains(). The space of the environments when Gymnasium is not installed."""

    def __init__(self, low, high, shape, dtype=_np.float64, seed=None):
        self.shape = tuple(shape)
        self.dtype = _np.dtype(dtype)
        self.low = _np.full(self.shape, low, dtype=self.dtype)
        self.high = _np.full(self.shape, high, dtype=self.dtype)
        self._rng = _np.random.default_rng(seed)

    def seed(self, seed=None):
        """Restarts sample()'s random generator from `seed` (None: fresh entropy)."""
        self._rng = _np.random.default_rng(seed)

    def sample(self):
        """Uniform in a bounded box; standard normal along unbounded axes."""
        bounded = _np.isfinite(self.low) & _np.isfinite(self.high)
        x = self._rng.standard_normal(self.shape)
        x[bounded] = self._rng.uniform(self.low[bounded], self.high[bounded])
        return x.astype(self.dtype)

    def contains(self, x):
        """Whether `x` has the box's shape and lies within its bounds."""
        x = _np.asarray(x)
        return x.shape == self.shape and bool(_np.all((x >= self.low) & (x <= self.high)))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


# The base classes and the space, chosen once: Gymnasium's where it imports, else plain ones.
_gymnasium = _import_gymnasium()
if _gymnasium is not None:
    _EnvBase = _gymnasium[0].Env
    _VectorEnvBase = _gymnasium[2].VectorEnv
    _Box = _gymnasium[1].Box
    # Gymnasium >= 1.1 names the autoreset modes with an enum; older ones read the string.
    _NEXT_STEP = getattr(getattr(_gymnasium[2], "AutoresetMode", None), "NEXT_STEP", "next_step")
else:
    _EnvBase = _VectorEnvBase = object
    _Box = Box
    _NEXT_STEP = "next_step"


def _unbounded(shape):
    return _Box(low=-_np.inf, high=_np.inf, shape=shape, dtype=_np.float64)


class _Common:
    """What Gymnasium's Env and VectorEnv have, defined here so that the environments behave
    the same with Gymnasium or without it: spec, np_random, unwrapped, the render mode's
    check."""

    spec = None  # gymnasium.make sets an EnvSpec here
    _np_random = None
    _np_random_seed = None

    def _set_up(self, scene, render_mode, **metadata):
        modes = type(self).metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")
        self.render_mode = render_mode
        # Gymnasium's checker asks for the frames per second of rendered episodes: 1 / dt.
        self.metadata = {**type(self).metadata, "render_fps": max(1, round(1.0 / scene.dt)),
                         **metadata}

    def _seed(self, seed):
        if seed is not None or self._np_random is None:
            self._np_random = _np.random.default_rng(seed)
            self._np_random_seed = seed

    @property
    def np_random(self):
        """The environment's random generator (numpy.random.Generator), seeded by
        reset(seed=...), else from fresh entropy on first use. The episodes themselves are
        deterministic: it is there for the code around the environment, as in Gymnasium."""
        self._seed(None)
        return self._np_random

    @np_random.setter
    def np_random(self, generator):
        self._np_random, self._np_random_seed = generator, -1

    @property
    def np_random_seed(self):
        """The seed np_random was seeded with (None: fresh entropy; -1: a generator set by
        hand), as Gymnasium reports it."""
        self._seed(None)
        return self._np_random_seed

    @property
    def unwrapped(self):
        """The environment itself (Gymnasium's wrappers return the environment they wrap)."""
        return self


def _scene(scene):
    return scene if isinstance(scene, _softgrad.Scene) else _load(scene)


def _render(scene, x, t):
    """An RGB array (H, W, 3) of the creature's mesh at positions x (side view in 3D)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3), dpi=80)
    if scene.dim == 2:
        ax.triplot(x[:, 0], x[:, 1], scene.elements, lw=0.6)
    else:
        ax.plot(x[:, 0], x[:, 1], ".", ms=2)
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_aspect("equal")
    ax.set_title(f"{scene.name}, t = {t:.2f} s", fontsize=8)
    fig.canvas.draw()
    image = _np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    plt.close(fig)
    return image


class VectorLocomotionEnv(_Common, _VectorEnvBase):
    """num_envs episodes of one locomotion scene stepped together (threads: workers, default
    one per environment up to the cores). step(actions (num_envs, m)) returns arrays; an
    environment whose episode ended is reset on the next step (Gymnasium's next-step autoreset),
    that step's reward 0. A gymnasium.vector.VectorEnv where Gymnasium is installed."""

    metadata = {"render_modes": ["rgb_array"], "autoreset_mode": _NEXT_STEP}

    def __init__(self, scene, num_envs, episode_steps=None, threads=None, render_mode=None):
        import os

        # Gymnasium's VectorEnv.__init__ differs between its versions (0.29 takes the spaces,
        # 1.x nothing): the attributes it would set are set here instead.
        self.scene = _scene(scene)
        self._set_up(self.scene, render_mode)
        self.num_envs = int(num_envs)
        threads = min(self.num_envs, os.cpu_count() or 1) if threads is None else threads
        self._batch = _softgrad._EnvBatch(self.scene, self.num_envs, episode_steps or 0, threads)
        o, m = self._batch.observation_size, self._batch.action_size
        self.single_observation_space = _unbounded((o,))
        self.single_action_space = _unbounded((m,))
        self.observation_space = _unbounded((self.num_envs, o))
        self.action_space = _unbounded((self.num_envs, m))
        self.closed = False
        self._needs_reset = _np.ones(self.num_envs, dtype=bool)
        self._steps = _np.zeros(self.num_envs, dtype=int)

    @property
    def episode_steps(self):
        """The steps of an episode before it is truncated."""
        return self._batch.episode_steps

    @property
    def simulated_steps(self):
        """The simulator's steps taken by all the environments so far."""
        return self._batch.simulated_steps

    def reset(self, seed=None, options=None):
        """Starts every episode; (observations (num_envs, o), info). The episodes start from
        the scene's rest state: `seed` only seeds np_random and the action spaces'
        sample()."""
        if seed is not None:
            self.action_space.seed(seed)
            self.single_action_space.seed(seed)
        self._seed(seed)
        obs = _np.stack([self._batch.reset(i) for i in range(self.num_envs)])
        self._needs_reset[:] = False
        self._steps[:] = 0
        return obs, {}

    def step(self, actions):
        """One step of every environment: (observations (num_envs, o), rewards, terminated,
        truncated, info), arrays of num_envs; an environment whose episode ended on the step
        before restarts instead (its first observation, reward 0)."""
        actions = _np.asarray(actions, dtype=_np.float64)
        if actions.shape != self.action_space.shape:
            raise ValueError(f"step: expected actions of shape {self.action_space.shape}, "
                             f"got {actions.shape}")
        restarting = self._needs_reset.copy()
        obs, rewards, done, terminal = self._batch.step(actions, list(~restarting))
        for i in _np.flatnonzero(restarting):  # autoreset: the finished episode starts again
            obs[i] = self._batch.reset(i)
            rewards[i], done[i], terminal[i] = 0.0, False, False
            self._steps[i] = 0
        self._steps[~restarting] += 1
        terminated = terminal.copy()
        truncated = done & ~terminal
        self._needs_reset = done.copy()
        return obs, rewards, terminated, truncated, {"simulated_steps": self.simulated_steps}

    def render(self):
        """A list of num_envs RGB arrays (H, W, 3), the creatures now."""
        return [_render(self.scene, self._batch.positions(i), self._batch.time(i))
                for i in range(self.num_envs)]

    def close(self, **kwargs):
        """Marks the environments closed (they hold no resources beyond memory)."""
        self.closed = True


class LocomotionEnv(_Common, _EnvBase):
    """One episode at a time, Gymnasium's Env API (see the module's docstring); a
    gymnasium.Env where Gymnasium is installed."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, scene, episode_steps=None, render_mode=None):
        self._vector = VectorLocomotionEnv(scene, 1, episode_steps, threads=1)
        self.scene = self._vector.scene
        self._set_up(self.scene, render_mode)
        self.observation_space = self._vector.single_observation_space
        self.action_space = self._vector.single_action_space
        self._done = True

    @property
    def episode_steps(self):
        """The steps of an episode before it is truncated."""
        return self._vector.episode_steps

    def reset(self, seed=None, options=None):
        """Starts an episode from the scene's rest state: (observation (o,), info). `seed`
        only seeds np_random and the action space's sample()."""
        obs, info = self._vector.reset(seed=seed, options=options)
        self._seed(seed)
        self._done = False
        return obs[0], info

    def step(self, action):
        """One step with `action` (m,): (observation (o,), reward [m], terminated, truncated,
        info). After the episode's end, call reset() first."""
        if self._done:
            raise RuntimeError("step: the episode is over (or not started): call reset()")
        action = _np.asarray(action, dtype=_np.float64)
        if action.shape != self.action_space.shape:
            raise ValueError(f"step: expected an action of shape {self.action_space.shape}, "
                             f"got {action.shape}")
        obs, reward, done, terminal = self._vector._batch.step_one(0, action)
        self._done = done
        return obs, reward, terminal, done and not terminal, {}

    def render(self):
        """An RGB array (H, W, 3) of the creature now (render_mode "rgb_array")."""
        return self._vector.render()[0]

    def close(self):
        """Closes the environment (it holds no resources beyond memory)."""
        self._vector.close()
