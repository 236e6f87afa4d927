"""Writes python/softgrad/_softgrad.pyi, the type stubs of the C++ module, from the signatures
pybind11 gives its functions, methods and properties (the same ones softgrad._typed attaches at
import); --check fails when the file differs from what the built module gives (CI runs it, so
the stubs never drift from the runtime).

    PYTHONPATH=build/python /usr/bin/python3 scripts/python_stubs.py [--check]
"""

import argparse
import inspect
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUBS = os.path.join(ROOT, "python", "softgrad", "_softgrad.pyi")


def _parameters(params, drop_self):
    out = []
    for k, (name, annotation, default, kind) in enumerate(params):
        if k == 0 and drop_self:
            name, annotation = "self", None
        if kind == "keyword" and "*" not in out:
            out.append("*")
        text = name + (f": {annotation}" if annotation else "")
        if default is not None:
            text += " = ..."
        out.append(text)
    return ", ".join(out)


def _function(name, builtin, indent, method, parse):
    parsed = parse(builtin.__doc__)
    if parsed is None:  # overloaded, or a class without a constructor
        return [] if name == "__init__" else [
            f"{indent}def {name}(*args: Any, **kwargs: Any) -> Any: ..."]
    params, returns, _ = parsed
    lines = []
    if isinstance(method, str):
        lines.append(f"{indent}@{method}")
    return lines + [f"{indent}def {name}({_parameters(params, method is True)}) -> "
                    f"{returns or 'None'}: ..."]


def stubs():
    from softgrad import _softgrad, _typed

    def builtin(f):
        return getattr(f, "__softgrad_builtin__", f)

    lines = ['"""Type stubs of softgrad._softgrad (written by scripts/python_stubs.py)."""', "",
             "from typing import Any, Callable, Dict, List, Optional, Tuple, Union", "",
             "import numpy", "", "__version__: str", ""]
    for name, value in vars(_softgrad).items():
        if name.startswith("__") or name.startswith("_") and not isinstance(value, type):
            continue
        if isinstance(value, type) and issubclass(value, BaseException):
            base = "RuntimeError" if issubclass(value, RuntimeError) else "Exception"
            base = "RuntimeWarning" if issubclass(value, RuntimeWarning) else base
            lines += [f"class {name}({base}):"]
            lines += ["    step: int", "    residual: float", ""] if name == "ConvergenceError" \
                else ["    ...", ""]
            continue
        if isinstance(value, type):
            lines.append(f"class {name}:")
            for member, item in vars(value).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if isinstance(item, property):
                    parsed = _typed.parse(item.fget.__doc__)
                    kind = "property" if item.fset is None else "attr"
                    returns = parsed[1] if parsed else "Any"
                    if kind == "property":
                        lines += ["    @property", f"    def {member}(self) -> {returns}: ..."]
                    else:
                        lines.append(f"    {member}: {returns}")
                elif isinstance(item, staticmethod):
                    lines += _function(member, builtin(item.__func__), "    ", "staticmethod",
                                       _typed.parse)
                elif inspect.isfunction(item) and not hasattr(item, "__softgrad_builtin__"):
                    # A method the package adds in Python (softgrad.rigid's).
                    params = ", ".join(inspect.signature(item).parameters)
                    lines.append(f"    def {member}({params}) -> Any: ...")
                elif callable(item):
                    lines += _function(member, builtin(item), "    ", True, _typed.parse)
            lines.append("")
        elif callable(value):
            lines += _function(name, builtin(value), "", False, _typed.parse) + [""]
    return "\n".join(lines).replace("softgrad._softgrad.", "").replace("softgrad.", "") \
        .rstrip() + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="fail if the stubs are out of date")
    args = p.parse_args()
    text = stubs()
    if args.check:
        with open(STUBS) as f:
            if f.read() != text:
                sys.exit(f"{STUBS} is out of date: run scripts/python_stubs.py")
        print(f"{STUBS} matches the module")
        return
    with open(STUBS, "w") as f:
        f.write(text)
    print(f"wrote {STUBS}")


if __name__ == "__main__":
    main()
