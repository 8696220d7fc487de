"""Minimal TAP (version 13) runner for this task's hidden test suite.

Usage: ``python tests/run_tests.py`` from the workspace root.

Every ``test_*.py`` module next to this file is imported and every module-level
function whose name starts with ``test_`` is called with no arguments, in the
order the functions are defined.  A test passes when it returns without raising.
The result of each test is printed as a TAP line; failures carry a YAML
diagnostic block.  Exit status: 0 when every test passed, 1 otherwise, 2 when
the suite itself could not be loaded.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE.parent

# The package under test lives in the workspace root, not in site-packages.
if str(WORKSPACE) not in sys.path:
    sys.path.insert(0, str(WORKSPACE))


def _yaml_str(text: str) -> str:
    """A double-quoted YAML scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=True)


def _collect() -> list[tuple[str, object]]:
    tests: list[tuple[str, object]] = []
    seen: set[str] = set()
    for path in sorted(HERE.glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"_tap_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path.name}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        funcs = [
            obj
            for name, obj in vars(module).items()
            if name.startswith("test_") and inspect.isfunction(obj) and obj.__module__ == module.__name__
        ]
        funcs.sort(key=lambda f: f.__code__.co_firstlineno)
        for func in funcs:
            if func.__name__ in seen:
                raise ImportError(f"duplicate test name {func.__name__}")
            seen.add(func.__name__)
            tests.append((func.__name__, func))
    return tests


def _test_frames(exc: BaseException) -> list[str]:
    """``file:line in function`` for each traceback frame inside the tests directory."""
    return [
        f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
        for frame in traceback.extract_tb(exc.__traceback__)
        if Path(frame.filename).resolve().parent == HERE and Path(frame.filename).name != Path(__file__).name
    ]


def main() -> int:
    try:
        tests = _collect()
    except Exception as exc:  # the suite itself is broken (e.g. the package does not import)
        print("TAP version 13")
        print(f"Bail out! {type(exc).__name__}: {exc}".replace("\n", " "))
        return 2

    print("TAP version 13")
    print(f"1..{len(tests)}")
    failed = 0
    for number, (name, func) in enumerate(tests, start=1):
        try:
            func()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit and CancelledError count as failures too
            failed += 1
            message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            print(f"not ok {number} - {name}")
            print("  ---")
            print(f"  message: {_yaml_str(message)}")
            print("  severity: fail")
            frames = _test_frames(exc)
            if frames:
                print("  traceback:")
                for frame in frames:
                    print(f"    - {_yaml_str(frame)}")
            print("  ...")
        else:
            print(f"ok {number} - {name}")
        sys.stdout.flush()
    if failed:
        print(f"# failed {failed} of {len(tests)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
