"""Python signatures for the C++ module's functions and methods.

pybind11 writes each function's signature into the first line of its docstring, but its
functions are builtins without __text_signature__, so inspect.signature, IDEs and help() cannot
read them. attach() parses those lines (types shown as softgrad.Scene, not the C++ module's
name) and puts each function behind a plain Python function of the same name with that
__signature__, the docstring's text and type hints in __annotations__; after each call it hands
the C++ log records the call made to logging.getLogger("softgrad"). The stubs
(softgrad/_softgrad.pyi) are written from the same signatures (scripts/python_stubs.py).
"""

import ast
import functools
import inspect
import typing

import numpy

_MODULE = "softgrad._softgrad."
_PUBLIC = "softgrad."


def _annotation_text(node):
    return ast.unparse(node).replace(_MODULE, _PUBLIC) if node is not None else None


def _evaluated(text, namespace):
    """A type hint from its text, or the text when it does not evaluate (a forward name)."""
    if text is None:
        return inspect.Parameter.empty
    try:
        return eval(text, namespace)  # noqa: S307 (pybind11's own type names, not user input)
    except Exception:
        return text


def parse(doc):
    """(parameters, return text, description) of a pybind11 docstring whose first line is one
    signature: parameters as (name, annotation text, default text or None, kind). None when the
    docstring holds no single signature (an overloaded function)."""
    if not doc:
        return None
    head, _, rest = doc.partition("\n")
    if head.endswith("(*args, **kwargs)") or "Overloaded function" in rest:
        return None
    if head.startswith("("):  # a property's getter or setter: no name
        head = "f" + head
    try:
        tree = ast.parse(f"def {head}: pass")
    except SyntaxError:
        return None
    fn = tree.body[0]
    args = fn.args
    params = []
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for a, d in zip(positional, defaults):
        params.append((a.arg, _annotation_text(a.annotation),
                       None if d is None else ast.unparse(d), "positional"))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        params.append((a.arg, _annotation_text(a.annotation),
                       None if d is None else ast.unparse(d), "keyword"))
    return params, _annotation_text(fn.returns), rest.strip()


def _default(text):
    if text is None:
        return inspect.Parameter.empty
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text  # shown as written (pybind11's repr of a C++ default)


def _namespace(module):
    names = {name: getattr(typing, name) for name in typing.__all__}
    names.update(numpy=numpy, softgrad=_Names(module))
    return names


class _Names:
    """softgrad.X in a type hint: the C++ module's class X."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name)


def signature(doc, namespace):
    """(inspect.Signature, description) from a pybind11 docstring, or None."""
    parsed = parse(doc)
    if parsed is None:
        return None
    params, returns, description = parsed
    out = []
    for name, annotation, default, kind in params:
        out.append(inspect.Parameter(
            name, inspect.Parameter.POSITIONAL_OR_KEYWORD if kind == "positional"
            else inspect.Parameter.KEYWORD_ONLY,
            default=_default(default), annotation=_evaluated(annotation, namespace)))
    return (inspect.Signature(out, return_annotation=_evaluated(returns, namespace)),
            description)


def _typed_function(f, name, qualname, sig, description, module_name, flush_log):
    @functools.wraps(f, assigned=(), updated=())
    def call(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        finally:
            flush_log()  # the C++ log records of the call, to logging.getLogger("softgrad")

    call.__name__, call.__qualname__, call.__module__ = name, qualname, module_name
    call.__doc__ = description
    call.__signature__ = sig
    call.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()
                            if p.annotation is not inspect.Parameter.empty}
    if sig.return_annotation is not inspect.Signature.empty:
        call.__annotations__["return"] = sig.return_annotation
    call.__softgrad_builtin__ = f  # the C++ function it calls (for the stubs' check)
    return call


def attach(module, public_module="softgrad"):
    """Gives every function of `module` (the C++ extension) and every method of its classes a
    Python signature; the classes are shown as members of `public_module`."""
    namespace = _namespace(module)
    flush_log = module._flush_log
    for name, value in list(vars(module).items()):
        if name.startswith("_flush"):
            continue
        if isinstance(value, type) and issubclass(value, BaseException):
            value.__module__ = public_module  # softgrad.ConvergenceError in tracebacks
        elif isinstance(value, type) and hasattr(value, "__dict__"):
            _attach_class(value, namespace, public_module, flush_log)
        elif callable(value) and type(value).__name__ == "builtin_function_or_method":
            sig = signature(value.__doc__, namespace)
            if sig is not None:
                setattr(module, name, _typed_function(value, name, name, sig[0], sig[1],
                                                      public_module, flush_log))


def _attach_class(cls, namespace, public_module, flush_log):
    cls.__module__ = public_module
    for name, value in list(vars(cls).items()):
        static = isinstance(value, staticmethod)
        f = value.__func__ if static else value
        if type(f).__name__ not in ("instancemethod", "builtin_function_or_method"):
            continue
        sig = signature(f.__doc__, namespace)
        if sig is None:
            continue
        typed = _typed_function(f, name, f"{cls.__name__}.{name}", sig[0], sig[1], public_module,
                                flush_log)
        setattr(cls, name, staticmethod(typed) if static else typed)
