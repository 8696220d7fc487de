"""Canaries: a tripwire test that always fails, planted in every run next to the hidden tests.

Code under test runs inside the test process (pytest imports the buggy module; a TAP script calls it;
``node --test`` loads it in the test file's process). Such code can patch the test framework, rewrite the
report it writes, or print a forged result and exit. No sandbox separates it from the tool that reports
on it. What the harness can do is plant a test whose honest outcome is known: the canary raises an
assertion error, so

* a canary reported **passing** means the results were tampered with (the framework or the assertions
  were patched, or every outcome was rewritten) — the run is ``unresolved``;
* a canary **missing** from a report that holds other tests means the report did not come from the run
  (forged, or rewritten afterwards) — unless this task's own test command never runs injected tests, which
  the harness finds out once per task by a *calibration* run of the untouched buggy workspace (then the
  gold patch); the answer is cached (see :func:`patchbench.harness.run`).

The canary's name carries a fresh random nonce each run, so a forgery prepared in advance cannot name it.
It runs in the same process as the hidden tests (same module, same test binary, same node test file), so
in-process patching hits it too; it is planted after the hidden tests are injected, so the candidate
cannot touch it; its result is removed from the verdict's tests, so validation and grading see only the
task's own tests. Code that reads its own process's canary and special-cases it can still defeat it:
the canary is a tripwire, not a proof (see docs/design/integrity.md).

How the canary is planted, per runner:

==============  ==========================================================================================
pytest          a test module beside the hidden tests plus a harness plugin (``-p``) that adds the module
                when the command would not collect it, and always runs the canary last (``-x`` safe)
tap (Python)    a ``test_pb_canary_<nonce>`` function appended to the last hidden ``test_*.py`` module
node-test       a ``node:test`` test appended to a hidden test file the command runs (``.js``: through
                ``import()``, which CommonJS and ES modules both accept; TypeScript: static imports)
go-test         a ``zz_pb_canary_<nonce>_test.go`` file in the hidden tests' package
cargo-test      a ``#[test]`` function appended to a hidden ``.rs`` test file
junit           a failing ``@Test`` method (JUnit 5 or 4) added to the primary class of a hidden test file;
                none in a multi-module Maven build (a failing module stops the modules after it)
==============  ==========================================================================================

Other runners (Jest/Vitest/Mocha, SQL case files, script verifiers) get no canary yet. Planting never
touches test data (fixtures, snapshots, compile-fail cases) and never a file that does not belong to
the runner's framework.

The Python canary also consults a process-integrity snapshot taken before any code under test ran
(:data:`PYTEST_PLUGIN` at pytest's collection start; :data:`TAP_SITECUSTOMIZE` + :data:`TAP_INTEGRITY` at a
TAP script's interpreter start) and *passes* when outcome machinery was replaced since: that catches
tampering aimed at the listed tests only, which leaves the canary itself alone.
"""

from __future__ import annotations

import json
import posixpath
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .sandboxed import script
from .task import FileEntry, Task
from .verdict import CanaryState

__all__ = ["Canary", "CanaryState", "new_nonce", "plan_canary"]

#: Bumped whenever planting changes, so cached calibrations are not reused across versions.
CANARY_VERSION = "2"
_MESSAGE = "patchbench canary: this test always fails"
_GO_PACKAGE = re.compile(r"^package\s+(\w+)", re.MULTILINE)

#: The pytest plugin: collect the canary when the command would not, and run it last.
PYTEST_PLUGIN = script("canary_pytest.py")
PYTEST_PLUGIN_MODULE = "_patchbench_canary"

#: Python TAP scripts: a harness ``sitecustomize`` imports the integrity snapshot at interpreter start,
#: before any code under test, then hands over to any other ``sitecustomize`` on the path.
TAP_SITECUSTOMIZE = script("canary_tap_sitecustomize.py")

#: What a TAP script's results travel through: standard output (the object, its buffer, fd 1) and print.
TAP_INTEGRITY = script("canary_tap_integrity.py")


def _py_body(name: str) -> str:
    """A test that fails only when assertions work: a patched unittest, a swallowed AssertionError or
    assert statements stripped from test code (compiled with optimize=1 behind the interpreter's back) let
    it pass, which reads as tampering. Under ``python -O`` itself (no assert works for any test) it
    raises instead."""
    return (
        f"def {name}():\n"
        "    import sys\n"
        "    import unittest\n\n"
        "    case = unittest.TestCase()\n"
        "    checks = (\n"
        "        lambda: case.assertEqual(1, 2),\n"
        "        lambda: case.assertTrue(False),\n"
        "        lambda: case.assertIn(1, ()),\n"
        "        lambda: case.assertRaises(ValueError, int, 1),\n"
        "        lambda: case.fail('x'),\n"
        "    )\n"
        "    raised = 0\n"
        "    for check in checks:\n"
        "        try:\n"
        "            check()\n"
        "        except AssertionError:\n"
        "            raised += 1\n"
        "    try:\n"
        "        from _patchbench_canary import tampered\n"
        "    except ImportError:  # no pytest plugin (a TAP script): the checks above stand alone\n"
        "        tampered = list\n"
        "    if tampered():\n"
        "        return  # the test process was altered: passing says so\n"
        "    if raised == len(checks) and sys.flags.optimize:\n"
        f"        raise AssertionError({_MESSAGE!r})\n"
        f"    assert raised != len(checks), {_MESSAGE!r}\n"
    )


def _js_body(name: str, assert_ref: str, test_ref: str) -> str:
    """A node:test test that fails only when node:assert works (a patched assert lets it pass)."""
    # Every check carries a message: without one, assert.ok() reads and parses the caller's source file.
    checks = (
        "() => a(false, 'x')",
        "() => a.ok(false, 'x')",
        "() => a.equal(1, 2, 'x')",
        "() => a.strictEqual(1, 2, 'x')",
        "() => a.deepEqual({ x: 1 }, { x: 2 }, 'x')",
        "() => a.deepStrictEqual({ x: 1 }, { x: 2 }, 'x')",
        "() => a.notStrictEqual(1, 1, 'x')",
        "() => a.throws(() => {}, Error, 'x')",
        "() => a.match('a', /b/, 'x')",
        "() => a.fail('x')",
        "() => a.strict.equal(1, 2, 'x')",
        "() => a.strict.deepEqual({ x: 1 }, { x: 2 }, 'x')",
    )
    return (
        f"{test_ref}({json.dumps(name)}, () => {{\n"
        f"  const a = {assert_ref};\n"
        f"  const checks = [{', '.join(checks)}];\n"
        "  let raised = 0;\n"
        "  for (const check of checks) { try { check(); } catch { raised += 1; } }\n"
        "  if (raised !== checks.length) return;\n"
        # no stack trace: a failure's stack is symbolicated through source maps (costly under tsx)
        "  const limit = Error.stackTraceLimit;\n"
        "  Error.stackTraceLimit = 0;\n"
        f"  const failure = new Error({json.dumps(_MESSAGE)});\n"
        "  Error.stackTraceLimit = limit;\n"
        "  throw failure;\n"
        "});\n"
    )


@dataclass(frozen=True)
class Canary:
    """A canary planted in one run.

    Attributes:
        token: a fragment (with the nonce) of the canary test's reported id, and of no other test's.
        files: workspace-relative path -> full text, written after the hidden tests are injected.
        harness_files: file name -> text, for a read-only harness directory mounted in the sandbox.
        env: variables for the test command; ``PYTEST_ADDOPTS`` is appended to the runner's own,
            ``PYTHONPATH`` is put in front of the environment's.
    """

    token: str
    files: dict[str, str] = field(default_factory=dict)
    harness_files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def matches(self, test_id: str) -> bool:
        """Whether a reported test id is the canary's."""
        return self.token in test_id


def new_nonce() -> str:
    """A fresh random nonce (12 hex digits)."""
    return secrets.token_hex(6)


def plan_canary(
    runner: str,
    task: Task,
    tests: Sequence[FileEntry],
    nonce: str,
    *,
    workspace_dst: str,
    harness_dst: str,
    read: Callable[[str], str | None] | None = None,
) -> Canary | None:
    """The canary for one run, or None when this runner/task gets none.

    Args:
        runner: the runner's name.
        task: the task (its language and test commands).
        tests: the hidden tests as injected (their paths and contents).
        nonce: the run's nonce.
        workspace_dst: the workspace's path inside the sandbox.
        harness_dst: where the harness directory is mounted inside the sandbox.
        read: reads a workspace file (relative path) as text, None when absent (JUnit: the pom).
    """
    commands = " ".join(c.display() for c in task.test.commands)
    if runner == "pytest":
        return _pytest(task, tests, nonce, commands, workspace_dst, harness_dst)
    if runner == "tap" and task.language == "python":
        return _tap_python(tests, nonce, harness_dst)
    if runner == "node-test":
        return _node(tests, nonce, commands)
    if runner == "go-test":
        return _go(tests, nonce)
    if runner == "cargo-test":
        return _cargo(tests, nonce)
    if runner == "junit":
        pom = read(posixpath.join(task.test.workdir.strip("/") or ".", "pom.xml")) if read else None
        return _junit(tests, nonce, commands, pom)
    return None


def _text(f: FileEntry) -> str | None:
    try:
        return f.data().decode("utf-8")
    except UnicodeDecodeError:
        return None


#: Directories whose files are test *data* (inputs, expected outputs, compile-fail cases), never a place to
#: plant a canary: changing such a file would change what the real tests compare against.
_DATA_DIRS = frozenset(
    {"fixtures", "fixture", "__fixtures__", "testdata", "test-data", "test_data", "data", "snapshots",
     "__snapshots__", "ui", "compile-fail", "compile_fail", "run-pass", "resources", "golden", "expected",
     "samples", "examples", "vendor", "node_modules"}
)  # fmt: skip


def _data_path(path: str) -> bool:
    return any(part.lower() in _DATA_DIRS for part in path.split("/")[:-1])


def _pick(tests: Sequence[FileEntry], ok: tuple[str, ...], commands: str = "") -> FileEntry | None:
    """The hidden test file to plant into: one the command names, else the last by path; never a file
    in a test-data directory."""
    cands = sorted(
        (f for f in tests if f.path.endswith(ok) and not _data_path(f.path) and _text(f) is not None),
        key=lambda f: f.path,
    )
    named = [f for f in cands if f.path in commands]
    pool = named or cands
    return pool[-1] if pool else None


def _is_py_test_module(path: str) -> bool:
    base = posixpath.basename(path)
    return base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py"))


def _pytest(
    task: Task, tests: Sequence[FileEntry], nonce: str, commands: str, ws: str, harness: str
) -> Canary | None:
    if re.search(r"(^|\s)-[a-zA-Z]*[IE]", commands.split("pytest", 1)[0]):
        return None  # python -I/-E ignores PYTHONPATH: the plugin could not load
    py = sorted(f.path for f in tests if _is_py_test_module(f.path) and not _data_path(f.path))
    named = [p for p in py if p in commands]
    folder = posixpath.dirname((named or py)[0]) if py else "tests"
    name = f"test_pb_canary_{nonce}"
    rel = posixpath.join(folder, f"{name}.py")
    return Canary(
        token=f"pb_canary_{nonce}",
        files={rel: _py_body(name)},
        harness_files={f"{PYTEST_PLUGIN_MODULE}.py": PYTEST_PLUGIN},
        env={
            "PYTEST_ADDOPTS": f"-p {PYTEST_PLUGIN_MODULE}",
            "PYTHONPATH": harness,
            "PATCHBENCH_CANARY_NAME": name,
            "PATCHBENCH_CANARY_FILE": posixpath.join(ws, rel),
        },
    )


def _tap_python(tests: Sequence[FileEntry], nonce: str, harness: str) -> Canary | None:
    host = _pick([f for f in tests if _is_py_test_module(f.path)], (".py",))
    if host is None:
        return None
    name = f"test_pb_canary_{nonce}"
    text = (_text(host) or "").rstrip("\n")
    return Canary(
        token=f"pb_canary_{nonce}",
        files={host.path: f"{text}\n\n\n{_py_body(name)}"},
        harness_files={"sitecustomize.py": TAP_SITECUSTOMIZE, f"{PYTEST_PLUGIN_MODULE}.py": TAP_INTEGRITY},
        env={"PYTHONPATH": harness},
    )


def _node(tests: Sequence[FileEntry], nonce: str, commands: str) -> Canary | None:
    exts = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
    uses_node_test = re.compile(r"""(['"])(node:)?test\1""")
    host = _pick([f for f in tests if uses_node_test.search(_text(f) or "")], exts, commands)
    if host is None:
        return None
    text = (_text(host) or "").rstrip("\n")
    name = f"pb_canary_{nonce}"
    if host.path.endswith((".ts", ".mts", ".cts")):
        # tsx compiles static imports for either module kind, and they load faster than import() there
        a, t = f"__pbCanaryAssert{nonce}", f"__pbCanaryTest{nonce}"
        code = f"import {a} from 'node:assert';\nimport {{ test as {t} }} from 'node:test';\n"
        return Canary(token=name, files={host.path: f"{text}\n\n{code}{_js_body(name, a, t)}"})
    # import() is valid in CommonJS and ES modules alike: no guessing the module kind of a .js file.
    code = (
        "import('node:test').then(({ test: t }) =>\n"
        "  import('node:assert').then(({ default: assertion }) => {\n"
        + _js_body(name, "assertion", "t")
        + "}));\n"
    )
    return Canary(token=name, files={host.path: f"{text}\n\n{code}"})


def _go(tests: Sequence[FileEntry], nonce: str) -> Canary | None:
    for f in sorted(tests, key=lambda f: f.path):
        text = _text(f) if f.path.endswith("_test.go") else None
        m = _GO_PACKAGE.search(text or "")
        if m is None:
            continue
        folder = posixpath.dirname(f.path)
        rel = (
            posixpath.join(folder, f"zz_pb_canary_{nonce}_test.go")
            if folder
            else f"zz_pb_canary_{nonce}_test.go"
        )
        body = (
            f'package {m.group(1)}\n\nimport "testing"\n\n'
            f"func TestPbCanary{nonce}(t *testing.T) {{\n\tt.Fatal({json.dumps(_MESSAGE)})\n}}\n"
        )
        return Canary(token=f"TestPbCanary{nonce}", files={rel: body})
    return None


def _cargo(tests: Sequence[FileEntry], nonce: str) -> Canary | None:
    rs = [f for f in tests if f.path.endswith(".rs")]
    # crate/tests/<name>.rs is an integration test target; deeper files under tests/ are modules or data
    integration = [f for f in rs if posixpath.basename(posixpath.dirname(f.path)) == "tests"]
    with_tests = [
        f for f in rs if "/src/" in f"/{f.path}" and "#[test]" in (_text(f) or "") and not _data_path(f.path)
    ]
    host = _pick(integration or with_tests, (".rs",))
    if host is None:
        return None
    name = f"pb_canary_{nonce}"
    text = (_text(host) or "").rstrip("\n")
    body = f'{text}\n\n#[test]\nfn {name}() {{\n    panic!("{_MESSAGE}");\n}}\n'
    return Canary(token=name, files={host.path: body})


_SUREFIRE_CLASS = re.compile(r"(^Test\w*|\w*(Test|Tests|TestCase))\.java$")
_JUNIT4 = re.compile(r"^\s*import\s+org\.junit\.(Test|\*)\s*;", re.MULTILINE)


def _junit(tests: Sequence[FileEntry], nonce: str, commands: str, pom: str | None) -> Canary | None:
    """A failing ``@Test`` method added to a hidden test class (JUnit 5 or 4, by its imports).

    Not in a multi-module Maven build: a failing module stops the reactor before the modules after it,
    whose tests would then be missing (a gold patch lost).
    """
    if pom is not None and "<modules>" in pom:
        return None
    java = [f for f in tests if _SUREFIRE_CLASS.search(posixpath.basename(f.path))]
    host = _pick(java, (".java",), commands)
    text = _text(host) if host is not None else None
    if host is None or text is None or "}" not in text:
        return None
    if "org.junit.jupiter" in text:
        annotation = "@org.junit.jupiter.api.Test"
    elif _JUNIT4.search(text):
        annotation = "@org.junit.Test"
    else:
        return None
    cut = _java_class_end(text, posixpath.basename(host.path).removesuffix(".java"))
    if cut is None:
        return None
    name = f"pbCanary{nonce}"
    method = (
        f"\n    {annotation}\n    public void {name}() {{\n"
        f"        throw new AssertionError({json.dumps(_MESSAGE)});\n    }}\n"
    )
    return Canary(token=name, files={host.path: text[:cut] + method + text[cut:]})


def _java_class_end(text: str, name: str) -> int | None:
    """The index of the ``}`` that closes class (or record) ``name``, skipping comments, strings, text
    blocks and char literals; None when there is no such class (an interface, an enum) or it is unbalanced.
    """
    m = re.search(rf"\b(class|record)\s+{re.escape(name)}\b", text)
    if m is None:
        return None
    i, depth, n = text.find("{", m.end()), 0, len(text)
    if i < 0:
        return None
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return None
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            if i < 0:
                return None
            i += 1
        elif text.startswith('"""', i):
            i = text.find('"""', i + 3)
            if i < 0:
                return None
            i += 2
        elif c in "\"'":
            i += 1
            while i < n and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None
