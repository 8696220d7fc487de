"""patchbench (harness-owned): snapshot the test process before any code under test runs."""

import importlib.machinery
import importlib.util
import os
import sys

try:
    import _patchbench_canary  # noqa: F401
except Exception:
    pass

_here = os.path.dirname(os.path.abspath(__file__))
_rest = [p for p in sys.path if os.path.abspath(p or ".") != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
if _spec is not None and _spec.loader is not None and _spec.origin != __file__:
    _mod = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_mod)
