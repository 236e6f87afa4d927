"""softgrad.gym with and without Gymnasium: where the gymnasium package imports, LocomotionEnv
subclasses gymnasium.Env, VectorLocomotionEnv gymnasium.vector.VectorEnv and the spaces are
gymnasium.spaces.Box; where it does not, they are plain classes with softgrad.gym.Box. Either
way they have spec, np_random (seeded by reset), unwrapped, metadata and render_mode, and give
the same numbers.

Gymnasium is not in Debian, so the subclassing path is tested with a minimal stand-in: a fake
`gymnasium` package (gymnasium, gymnasium.spaces, gymnasium.vector as types.ModuleType objects
with bare Env, VectorEnv and spaces.Box classes) put into sys.modules while softgrad.gym is
reloaded, then taken out and softgrad.gym reloaded again, so other tests see the module as it
was. The stand-in's constructors of Env and VectorEnv raise: softgrad must set the attributes
itself (Gymnasium's VectorEnv.__init__ differs between its versions)."""

import contextlib
import enum
import importlib
import os
import sys
import types

import numpy as np
import pytest

import softgrad
import softgrad.gym

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIPED = os.path.join(ROOT, "scenes", "biped_2d.json")
T = 4  # steps per episode: short episodes keep the tests quick
GYMNASIUM_MODULES = ("gymnasium", "gymnasium.spaces", "gymnasium.vector")


def stand_in_gymnasium():
    """A fake gymnasium package: {module name: module}. Only what softgrad.gym may rely on."""
    gymnasium = types.ModuleType("gymnasium")
    gymnasium.__path__ = []  # a package, so that "gymnasium.spaces" can be imported
    spaces = types.ModuleType("gymnasium.spaces")
    vector = types.ModuleType("gymnasium.vector")

    class Env:
        def __init__(self, *args, **kwargs):
            raise AssertionError("softgrad.gym must not call gymnasium.Env.__init__")

    class VectorEnv:
        def __init__(self, *args, **kwargs):
            raise AssertionError("softgrad.gym must not call gymnasium.vector.VectorEnv.__init__")

    class AutoresetMode(enum.Enum):
        NEXT_STEP = "NextStep"
        SAME_STEP = "SameStep"

    class Box:
        def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
            self.shape = tuple(shape)
            self.dtype = np.dtype(dtype)
            self.low = np.full(self.shape, low, dtype=self.dtype)
            self.high = np.full(self.shape, high, dtype=self.dtype)
            self.seed(seed)

        def seed(self, seed=None):
            self.np_random = np.random.default_rng(seed)
            return [seed]

        def sample(self):
            return self.np_random.standard_normal(self.shape).astype(self.dtype)

    gymnasium.Env, gymnasium.spaces, gymnasium.vector = Env, spaces, vector
    spaces.Box = Box
    vector.VectorEnv, vector.AutoresetMode = VectorEnv, AutoresetMode
    return dict(zip(GYMNASIUM_MODULES, (gymnasium, spaces, vector)))


@contextlib.contextmanager
def gymnasium_as(modules):
    """softgrad.gym reloaded with sys.modules' gymnasium entries set to `modules` (None for
    each: gymnasium does not import); on exit the entries are restored and softgrad.gym
    reloaded as it was."""
    saved = {name: sys.modules[name] for name in GYMNASIUM_MODULES if name in sys.modules}
    try:
        for name in GYMNASIUM_MODULES:
            sys.modules[name] = modules[name] if modules else None
        yield importlib.reload(softgrad.gym)
    finally:
        for name in GYMNASIUM_MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
        importlib.reload(softgrad.gym)


def run(gym):
    """A short run of both environments with fixed actions: everything they return."""
    m = softgrad.load(BIPED).n_muscles
    actions = np.random.default_rng(11).normal(size=(T + 2, 2, m))
    out = []
    env = gym.LocomotionEnv(BIPED, episode_steps=T)
    out.append(env.reset(seed=1)[0])
    for k in range(T):
        out += env.step(actions[k, 0])[:4]
    venv = gym.VectorLocomotionEnv(BIPED, 2, episode_steps=T, threads=2)
    out.append(venv.reset(seed=1)[0])
    for k in range(T + 2):  # through the autoreset
        out += venv.step(actions[k])[:4]
    return out


def check_gymnasium_s_attributes(env, gym):
    assert env.spec is None and env.unwrapped is env and env.render_mode is None
    assert env.metadata["render_modes"] == ["rgb_array"] and env.metadata["render_fps"] == 100
    env.reset(seed=123)
    assert isinstance(env.np_random, np.random.Generator) and env.np_random_seed == 123
    assert env.np_random.random() == np.random.default_rng(123).random()
    env.reset()  # no seed: the generator goes on
    assert env.np_random.random() == pytest.approx(np.random.default_rng(123).random(2)[1])
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        type(env)(BIPED, **({"num_envs": 1} if hasattr(env, "num_envs") else {}),
                  render_mode="human")


def test_without_gymnasium_the_environments_are_plain_classes_with_gymnasium_s_attributes():
    with gymnasium_as(None) as gym:
        env = gym.LocomotionEnv(BIPED, episode_steps=T)
        venv = gym.VectorLocomotionEnv(BIPED, 2, episode_steps=T, render_mode="rgb_array")
        assert type(env).__mro__[-2:] == (gym._Common, object)
        assert type(env.action_space) is gym.Box and type(venv.action_space) is gym.Box
        assert type(venv.single_observation_space) is gym.Box
        check_gymnasium_s_attributes(env, gym)
        check_gymnasium_s_attributes(gym.VectorLocomotionEnv(BIPED, 2, episode_steps=T), gym)
        assert venv.render_mode == "rgb_array"
        assert venv.metadata["autoreset_mode"] == "next_step"


def test_with_gymnasium_the_environments_subclass_its_classes_and_give_the_same_numbers():
    with gymnasium_as(None) as gym:
        plain = run(gym)
    fake = stand_in_gymnasium()
    gymnasium, spaces, vector = (fake[name] for name in GYMNASIUM_MODULES)
    with gymnasium_as(fake) as gym:
        env = gym.LocomotionEnv(BIPED, episode_steps=T)
        venv = gym.VectorLocomotionEnv(BIPED, 3, episode_steps=T)
        assert isinstance(env, gymnasium.Env) and not isinstance(env, vector.VectorEnv)
        assert isinstance(venv, vector.VectorEnv)
        m, o = env.scene.n_muscles, env.observation_space.shape[0]
        for space, shape in ((env.action_space, (m,)), (env.observation_space, (o,)),
                             (venv.single_action_space, (m,)),
                             (venv.single_observation_space, (o,)),
                             (venv.action_space, (3, m)), (venv.observation_space, (3, o))):
            assert type(space) is spaces.Box and space.shape == shape
            assert space.dtype == np.float64 and np.isinf(space.low).all()
        assert venv.num_envs == 3 and venv.closed is False
        assert venv.metadata["autoreset_mode"] is vector.AutoresetMode.NEXT_STEP
        check_gymnasium_s_attributes(env, gym)
        check_gymnasium_s_attributes(venv, gym)
        assert env.action_space.sample().shape == (m,)  # the stand-in's sample()
        venv.close()
        assert venv.closed
        with_gymnasium = run(gym)
    assert len(with_gymnasium) == len(plain)
    for a, b in zip(with_gymnasium, plain):
        assert np.array_equal(a, b)
    # Restored: the module as it was before, its classes not the stand-in's.
    assert not issubclass(softgrad.gym.LocomotionEnv, gymnasium.Env)
    assert "gymnasium" not in sys.modules or sys.modules["gymnasium"] is not gymnasium
