"""patchbench repair: does one test file collect? (run inside the sandbox, in the task's environment)"""

import json
import sys
import types

out_path, module, test_file = sys.argv[1:4]
result = {"import_ok": True, "import_error": None, "stubbed": False}


class _Anything:
    """Stands in for whatever the test takes from a solution that does not import."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Anything()

    def __mro_entries__(self, bases):
        return (object,)

    def __iter__(self):
        return iter(())


def _module_getattr(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return _Anything()


try:
    __import__(module)
except BaseException as e:  # SystemExit and KeyboardInterrupt from a broken module too
    result["import_ok"] = False
    result["import_error"] = (type(e).__name__ + ": " + str(e))[:500]
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        del sys.modules[name]
    stub = types.ModuleType(module)
    stub.__getattr__ = _module_getattr
    sys.modules[module] = stub
    result["stubbed"] = True

# pytest is imported only now: the solution is imported (or stubbed) first, on its own.
import pytest  # noqa: E402


class _Plugin:
    def __init__(self):
        self.items = []
        self.errors = []

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(str(report.longreprtext)[-1500:])

    def pytest_collection_finish(self, session):
        self.items = [item.nodeid for item in session.items]


plugin = _Plugin()
try:
    rc = int(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", test_file], plugins=[plugin]))
except BaseException as e:
    rc = -1
    plugin.errors.append(type(e).__name__ + ": " + str(e))
result.update(rc=rc, items=plugin.items, errors=plugin.errors)
with open(out_path, "w") as fh:
    json.dump(result, fh)
