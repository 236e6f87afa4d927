"""`python3 -m softgrad`: runs the C++ program that belongs to the package.

(A pip install also puts the program itself on PATH as `softgrad`.) `render ...` runs the Python
renderer (softgrad.render) here; every other command replaces this process with the program
(softgrad/bin/softgrad in a wheel, build/softgrad beside the build tree's package).
"""

import os
import sys


def program_path() -> str:
    """The softgrad program that belongs to this package (wheel or build tree)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "bin", "softgrad"),
                      os.path.join(here, "..", "..", "softgrad")):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    raise FileNotFoundError(f"softgrad: the program is missing beside the package in {here}; "
                            "reinstall with `pip install --no-build-isolation .`")


def main(argv=None) -> int:
    """Runs `softgrad ARGS...` (argv without the program name; default sys.argv[1:])."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "render":
        from .render import main as render_main
        return render_main(args[1:])
    try:
        program = program_path()
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(program, ["softgrad"] + args)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
