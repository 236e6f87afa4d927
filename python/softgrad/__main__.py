"""`python3 -m softgrad ARGS...`: the softgrad command (see `python3 -m softgrad --help`)."""

import sys

from ._cli import main

sys.exit(main())
