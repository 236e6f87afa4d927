"""Gymnasium-style environments for softgrad's locomotion scenes (the gymnasium package is not
in Debian; these follow its API: reset(seed, options) -> (obs, info), step(action) -> (obs,
reward, terminated, truncated, info), observation_space / action_space, render()).

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

import numpy as _np

from . import _softgrad
from . import load as _load


class Box:
    """A box of real vectors, as gymnasium.spaces.Box: low, high, shape, dtype, sample(),
    contains()."""

    def __init__(self, low, high, shape, dtype=_np.float64, seed=None):
        self.shape = tuple(shape)
        self.dtype = _np.dtype(dtype)
        self.low = _np.full(self.shape, low, dtype=self.dtype)
        self.high = _np.full(self.shape, high, dtype=self.dtype)
        self._rng = _np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = _np.random.default_rng(seed)

    def sample(self):
        """Uniform in a bounded box; standard normal along unbounded axes."""
        bounded = _np.isfinite(self.low) & _np.isfinite(self.high)
        x = self._rng.standard_normal(self.shape)
        x[bounded] = self._rng.uniform(self.low[bounded], self.high[bounded])
        return x.astype(self.dtype)

    def contains(self, x):
        x = _np.asarray(x)
        return x.shape == self.shape and bool(_np.all((x >= self.low) & (x <= self.high)))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


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


class VectorLocomotionEnv:
    """num_envs episodes of one locomotion scene stepped together (threads: workers, default
    one per environment up to the cores). step(actions (num_envs, m)) returns arrays; an
    environment whose episode ended is reset on the next step (Gymnasium's next-step autoreset),
    that step's reward 0."""

    metadata = {"render_modes": ["rgb_array"], "autoreset_mode": "next_step"}

    def __init__(self, scene, num_envs, episode_steps=None, threads=None, render_mode=None):
        import os

        self.scene = _scene(scene)
        self.num_envs = int(num_envs)
        threads = min(self.num_envs, os.cpu_count() or 1) if threads is None else threads
        self._batch = _softgrad._EnvBatch(self.scene, self.num_envs, episode_steps or 0, threads)
        self.render_mode = render_mode
        o, m = self._batch.observation_size, self._batch.action_size
        self.single_observation_space = Box(-_np.inf, _np.inf, (o,))
        self.single_action_space = Box(-_np.inf, _np.inf, (m,))
        self.observation_space = Box(-_np.inf, _np.inf, (self.num_envs, o))
        self.action_space = Box(-_np.inf, _np.inf, (self.num_envs, m))
        self._needs_reset = _np.ones(self.num_envs, dtype=bool)
        self._steps = _np.zeros(self.num_envs, dtype=int)

    @property
    def episode_steps(self):
        return self._batch.episode_steps

    @property
    def simulated_steps(self):
        return self._batch.simulated_steps

    def reset(self, seed=None, options=None):
        """Starts every episode; (observations (num_envs, o), info). The episodes start from
        the scene's rest state: `seed` only seeds the action spaces' sample()."""
        if seed is not None:
            self.action_space.seed(seed)
            self.single_action_space.seed(seed)
        obs = _np.stack([self._batch.reset(i) for i in range(self.num_envs)])
        self._needs_reset[:] = False
        self._steps[:] = 0
        return obs, {}

    def step(self, actions):
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
        return [_render(self.scene, self._batch.positions(i), self._batch.time(i))
                for i in range(self.num_envs)]

    def close(self):
        pass


class LocomotionEnv:
    """One episode at a time, Gymnasium's Env API (see the module's docstring)."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, scene, episode_steps=None, render_mode=None):
        self._vector = VectorLocomotionEnv(scene, 1, episode_steps, threads=1)
        self.scene = self._vector.scene
        self.render_mode = render_mode
        self.observation_space = self._vector.single_observation_space
        self.action_space = self._vector.single_action_space
        self._done = True

    @property
    def episode_steps(self):
        return self._vector.episode_steps

    def reset(self, seed=None, options=None):
        obs, info = self._vector.reset(seed=seed, options=options)
        self._done = False
        return obs[0], info

    def step(self, action):
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
        pass
