"""pytest set-up: the package from the build tree (build/python) unless PYTHONPATH has one."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
if not any(os.path.isdir(os.path.join(p, "softgrad")) for p in sys.path if p):
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
