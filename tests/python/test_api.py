"""The public API is documented and typed: every public name of the package and its modules has
a docstring, inspect.signature works on every public callable, and the shipped stubs
(softgrad/_softgrad.pyi) are what the built module's signatures give."""

import ast
import importlib
import inspect
import os
import sys
import types

import contextlib
import re

import pytest

import softgrad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = ["softgrad", "softgrad.torch", "softgrad.gym", "softgrad.io", "softgrad.render",
           "softgrad.rigid"]


def public_members(module):
    """(qualified name, object) of a module's public names defined in softgrad, and of the
    public methods and properties of its classes."""
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            continue
        home = getattr(value, "__module__", None) or ""
        if not home.startswith("softgrad"):
            continue  # imported from elsewhere (numpy, torch, typing)
        yield f"{module.__name__}.{name}", value
        if isinstance(value, type):
            for member, item in vars(value).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if not (callable(item) or isinstance(item, (property, staticmethod,
                                                            classmethod))):
                    continue  # data (a class's metadata dict): documented by its class
                yield f"{module.__name__}.{name}.{member}", item


def all_members():
    for module in MODULES:
        yield from public_members(importlib.import_module(module))


@contextlib.contextmanager
def _nothing():
    yield


def doc_of(item):
    if isinstance(item, (staticmethod, classmethod)):
        item = item.__func__
    return inspect.getdoc(item) if not isinstance(item, property) else item.__doc__


@pytest.mark.parametrize("name, item", list(all_members()), ids=lambda x: x
                         if isinstance(x, str) else "")
def test_every_public_name_has_a_docstring_and_every_callable_a_signature(name, item):
    doc = doc_of(item)
    if name.endswith(".__init__"):
        # A constructor's text may be its class's; the class must have one.
        return
    # pybind11's own text for an undocumented function is its signature line alone.
    assert doc and doc.strip() and not re.match(r"^[\w.]*\([^)]*\)\s*->", doc), \
        f"{name} has no docstring"
    if isinstance(item, property):
        return
    if isinstance(item, (staticmethod, classmethod)):
        item = item.__func__
    if isinstance(item, type) and (issubclass(item, BaseException) or not hasattr(
            item.__init__, "__signature__")):
        # Exceptions; classes only the library makes (Rollout, Trajectory, Run: no constructor).
        with pytest.raises(TypeError) if not issubclass(item, BaseException) else _nothing():
            item()
        return
    if callable(item):
        inspect.signature(item)  # raises ValueError or TypeError where none can be found


def test_signatures_name_python_types_and_keep_defaults():
    sig = inspect.signature(softgrad.Scene.rollout)
    assert sig.parameters["steps"].default is None
    assert sig.return_annotation is softgrad.Rollout
    sig = inspect.signature(softgrad.Scene.gradient)
    assert list(sig.parameters) == ["self", "trajectory", "params", "loss", "report", "progress"]
    assert sig.parameters["report"].default is False
    assert "softgrad::" not in (softgrad.Scene.simulate.__doc__ or "") + str(sig)
    assert softgrad.Scene.__module__ == "softgrad"
    assert list(inspect.signature(softgrad.Scene).parameters) == ["path", "allow_plugins"]


def test_the_shipped_stubs_match_the_runtime():
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import python_stubs
    finally:
        sys.path.pop(0)
    with open(python_stubs.STUBS) as f:
        shipped = f.read()
    assert shipped == python_stubs.stubs(), "run scripts/python_stubs.py"
    # And the stubs' functions take the parameters the runtime's do.
    tree = ast.parse(shipped)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    checked = 0
    for cls_name, node in classes.items():
        runtime = getattr(softgrad._softgrad, cls_name)
        for fn in node.body:
            if isinstance(fn, ast.FunctionDef) and not any(
                    isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
                params = [a.arg for a in fn.args.args]
                real = list(inspect.signature(getattr(runtime, fn.name)).parameters)
                if params and params[0] == "self" and fn.name != "__init__":
                    assert real[0] == "self", (cls_name, fn.name)
                assert params == real, (cls_name, fn.name, params, real)
                checked += 1
    assert checked > 20


def scene_whose_newton_fails():
    """A beam allowed one Newton iteration per step: its first step fails, with a warning."""
    from scenes import beam_2d

    scene = dict(beam_2d(steps=2))
    scene["solver"] = dict(scene.get("solver", {}), newton_max_iterations=1)
    return softgrad.load(scene)


def test_cpp_log_records_reach_python_logging(caplog):
    s = scene_whose_newton_fails()
    with caplog.at_level("WARNING", logger="softgrad"):
        with pytest.raises(softgrad.ConvergenceError):
            s.simulate(s.rollout())
    records = [r for r in caplog.records if r.name == "softgrad"]
    assert records and records[0].levelname == "WARNING"
    assert "Newton did not converge in 1 iterations" in records[0].getMessage()
    # Records of worker threads (a batch) arrive too, when the call returns.
    caplog.clear()
    with caplog.at_level("WARNING", logger="softgrad"):
        with pytest.raises(softgrad.ConvergenceError, match="rollout 0"):
            s.simulate_batch([s.rollout(), s.rollout()], threads=2)
    assert any("Newton did not converge" in r.getMessage() for r in caplog.records)


def test_progress_reaches_a_function_and_a_tqdm_bar():
    import io

    import tqdm

    from scenes import beam_2d

    s = softgrad.load(beam_2d(steps=5))
    calls = []
    t = s.simulate(s.rollout(), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 5) for k in range(1, 6)]
    with tqdm.tqdm(file=io.StringIO()) as bar:
        s.gradient(t, ["youngs"], progress=bar)
        assert bar.total == 5 and bar.n == 5
    calls.clear()
    s.gradient(t, ["youngs"], progress=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 5) for k in range(1, 6)]

    def stop(done, total):
        if done == 2:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):  # a callback's error propagates
        s.simulate(s.rollout(), progress=stop)
    with pytest.raises(ValueError, match="progress must be None, a function"):
        s.simulate(s.rollout(), progress=3)


def test_log_records_still_reach_python_logging_after_a_command(tmp_path, caplog):
    softgrad.train(os.path.join(ROOT, "scenes", "ball_throw.json"), out=str(tmp_path),
                   iterations=1, quiet=True)
    s = scene_whose_newton_fails()
    with caplog.at_level("WARNING", logger="softgrad"):
        with pytest.raises(softgrad.ConvergenceError):
            s.simulate(s.rollout())
    assert any("Newton did not converge" in r.getMessage() for r in caplog.records
               if r.name == "softgrad")
