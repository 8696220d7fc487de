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

Issue 12 added (docs/design/integrity.md, "Round two"): checks at every report and at the session's end
(pytest), an audit hook on trace/profile functions and code swaps, the integrity stream and JUnit seal
(:func:`stream_problems`), the environment's pytest plugins by ``-p`` with auto-loading off
(:func:`env_pytest_plugins`), node's ``--import`` integrity module, fd-1 ownership (Go, Rust), the JUnit
daemon check, and semantic decoys (:func:`plan_decoys`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import json
import posixpath
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .sandboxed import script
from .task import FileEntry, Task
from .verdict import CanaryState

__all__ = ["Canary", "CanaryState", "env_pytest_plugins", "new_nonce", "plan_canary", "stream_problems"]

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


def _py_body(name: str, harness: str | None = None) -> str:
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
        + (
            # a module of that name from anywhere but the harness's read-only directory is a stand-in
            "    import os\n"
            f"    origin = getattr(sys.modules.get(tampered.__module__), '__file__', None) or ''\n"
            f"    if tampered is not list and os.path.dirname(origin) != {harness!r}:\n"
            "        return\n"
            if harness
            else ""
        )
        + "    if tampered():\n"
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
        # the integrity module (--import) remembers replaced result machinery: then passing says so
        "  const integrity = globalThis[Symbol.for('patchbench.integrity')];\n"
        "  if (typeof integrity === 'function' && integrity().length) return;\n"
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
        stream: the name, in each command's report directory, of the integrity stream the pytest plugin
            writes (see :func:`stream_problems`); None when there is none.
        decoys: fragments of the reported ids of decoy tests (semantic canaries): they fail on correct
            code, so one reported passing is tampering, like the canary.
    """

    token: str
    files: dict[str, str] = field(default_factory=dict)
    harness_files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    stream: str | None = None
    decoys: tuple[str, ...] = ()

    def matches(self, test_id: str) -> bool:
        """Whether a reported test id is the canary's (or one of its decoys')."""
        return self.token in test_id or any(d in test_id for d in self.decoys)


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
    reports_dst: str | None = None,
    env_plugins: Sequence[str] | None = None,
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
        reports_dst: the report directory's path inside the sandbox (pytest: the integrity stream).
        env_plugins: the modules of the environment's ``pytest11`` entry points (:func:`env_pytest_plugins`):
            given, pytest's plugin auto-loading is turned off and these are loaded by ``-p`` instead; None
            leaves auto-loading on (the environment could not be read).
    """
    commands = " ".join(c.display() for c in task.test.commands)
    if runner == "pytest":
        return _pytest(task, tests, nonce, commands, workspace_dst, harness_dst, reports_dst, env_plugins)
    if runner == "tap" and task.language == "python":
        return _tap_python(tests, nonce, harness_dst, workspace_dst, task)
    if runner == "node-test":
        return _node(tests, nonce, commands, harness_dst, workspace_dst)
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
    task: Task,
    tests: Sequence[FileEntry],
    nonce: str,
    commands: str,
    ws: str,
    harness: str,
    reports: str | None = None,
    env_plugins: Sequence[str] | None = None,
) -> Canary | None:
    if re.search(r"(^|\s)-[a-zA-Z]*[IE]", commands.split("pytest", 1)[0]):
        return None  # python -I/-E ignores PYTHONPATH: the plugin could not load
    py = sorted(f.path for f in tests if _is_py_test_module(f.path) and not _data_path(f.path))
    named = [p for p in py if p in commands]
    folder = posixpath.dirname((named or py)[0]) if py else "tests"
    name = f"test_pb_canary_{nonce}"
    rel = posixpath.join(folder, f"{name}.py")
    env = {
        "PYTEST_ADDOPTS": f"-p {PYTEST_PLUGIN_MODULE}",
        "PYTHONPATH": harness,
        "PATCHBENCH_CANARY_NAME": name,
        "PATCHBENCH_CANARY_FILE": posixpath.join(ws, rel),
        "PATCHBENCH_WORKSPACE": ws,
    }
    hidden = ":".join(posixpath.join(ws, f.path) for f in tests if f.path.endswith(".py"))
    if len(hidden) < 64 << 10:  # the plugin tells the hidden test modules from program source by path
        env["PATCHBENCH_TESTS"] = hidden
    if env_plugins is not None:
        # Only the environment's own plugins, by module: nothing in the workspace (a *.dist-info with a
        # [pytest11] entry point, on sys.path through the cwd) is loaded by itself.
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        env["PYTEST_ADDOPTS"] = " ".join([*(f"-p {m}" for m in env_plugins), env["PYTEST_ADDOPTS"]])
    stream = f"pb_stream_{nonce}.jsonl" if reports else None
    if reports and stream:
        env["PATCHBENCH_CANARY_STREAM"] = posixpath.join(reports, stream)
    decoys = plan_decoys(task, tests)
    if decoys.names:
        env["PATCHBENCH_CANARY_DECOYS"] = ",".join(decoys.names)  # the plugin runs them after real tests
    return Canary(
        token=f"pb_canary_{nonce}",
        files={**decoys.files, rel: _py_body(name, harness)},
        harness_files={f"{PYTEST_PLUGIN_MODULE}.py": PYTEST_PLUGIN},
        env=env,
        stream=stream,
        decoys=decoys.names,
    )


def _tap_python(
    tests: Sequence[FileEntry], nonce: str, harness: str, ws: str = "", task: Task | None = None
) -> Canary | None:
    host = _pick([f for f in tests if _is_py_test_module(f.path)], (".py",))
    if host is None:
        return None
    name = f"test_pb_canary_{nonce}"
    # decoys (a TAP script calls module-level functions only), then the canary after the last test
    decoys = plan_decoys(task, tests, methods=False) if task is not None else Decoys({}, (), 0, 0)
    text = (decoys.files.get(host.path) or _text(host) or "").rstrip("\n")
    return Canary(
        token=f"pb_canary_{nonce}",
        decoys=decoys.names,
        files={**decoys.files, host.path: f"{text}\n\n\n{_py_body(name, harness)}"},
        harness_files={"sitecustomize.py": TAP_SITECUSTOMIZE, f"{PYTEST_PLUGIN_MODULE}.py": TAP_INTEGRITY},
        env={
            "PYTHONPATH": harness,
            # the integrity module's audit hook watches code of the workspace that is not a hidden test
            "PATCHBENCH_WORKSPACE": ws,
            "PATCHBENCH_TESTS": ":".join(posixpath.join(ws, f.path) for f in tests if f.path.endswith(".py")),
        }
        if ws
        else {"PYTHONPATH": harness},
    )


#: node: loaded by ``--import`` before any code under test; watches what node:test's results pass through.
NODE_INTEGRITY = script("canary_node_integrity.mjs")
NODE_INTEGRITY_FILE = "pb_node_integrity.mjs"


def _node_env(tests: Sequence[FileEntry], harness: str, ws: str) -> tuple[dict[str, str], dict[str, str]]:
    """The harness files and variables of node's integrity module (none without a harness directory)."""
    if not harness or not ws:
        return {}, {}
    env = {
        "NODE_OPTIONS": f"--import=file://{posixpath.join(harness, NODE_INTEGRITY_FILE)}",
        "PATCHBENCH_WORKSPACE": ws,
        "PATCHBENCH_TESTS": json.dumps([posixpath.join(ws, f.path) for f in tests]),
    }
    return {NODE_INTEGRITY_FILE: NODE_INTEGRITY}, env


def _node(
    tests: Sequence[FileEntry], nonce: str, commands: str, harness: str = "", ws: str = ""
) -> Canary | None:
    exts = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
    uses_node_test = re.compile(r"""(['"])(node:)?test\1""")
    host = _pick([f for f in tests if uses_node_test.search(_text(f) or "")], exts, commands)
    if host is None:
        return None
    text = (_text(host) or "").rstrip("\n")
    name = f"pb_canary_{nonce}"
    hfiles, henv = _node_env(tests, harness, ws)
    if host.path.endswith((".ts", ".mts", ".cts")):
        # tsx compiles static imports for either module kind, and they load faster than import() there
        a, t = f"__pbCanaryAssert{nonce}", f"__pbCanaryTest{nonce}"
        code = f"import {a} from 'node:assert';\nimport {{ test as {t} }} from 'node:test';\n"
        return Canary(
            token=name,
            files={host.path: f"{text}\n\n{code}{_js_body(name, a, t)}"},
            harness_files=hfiles,
            env=henv,
        )
    # import() is valid in CommonJS and ES modules alike: no guessing the module kind of a .js file.
    code = (
        "import('node:test').then(({ test: t }) =>\n"
        "  import('node:assert').then(({ default: assertion }) => {\n"
        + _js_body(name, "assertion", "t")
        + "}));\n"
    )
    return Canary(token=name, files={host.path: f"{text}\n\n{code}"}, harness_files=hfiles, env=henv)


#: Go and Rust test binaries write their results to fd 1, a pipe (or file) their parent (``go test``,
#: cargo) also holds. A filter forked by code under test puts a pipe of its own there, which the parent
#: does not hold: then the canary passes (tampering). Unreadable /proc: nothing is concluded.
_GO_FD1_CHECK = """\tif out, err := os.Readlink("/proc/self/fd/1"); err == nil {
\t\tif entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", os.Getppid())); err == nil {
\t\t\theld := false
\t\t\tfor _, e := range entries {
\t\t\t\tl, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", os.Getppid(), e.Name()))
\t\t\t\tif err == nil && l == out {
\t\t\t\t\theld = true
\t\t\t\t\tbreak
\t\t\t\t}
\t\t\t}
\t\t\tif !held {
\t\t\t\treturn // fd 1 is not what the parent handed over: passing says so
\t\t\t}
\t\t}
\t}
"""
_RUST_FD1_CHECK = """    if let Ok(out) = std::fs::read_link("/proc/self/fd/1") {
        let parent = std::os::unix::process::parent_id();
        if let Ok(entries) = std::fs::read_dir(format!("/proc/{}/fd", parent)) {
            let held = entries
                .filter_map(|e| e.ok())
                .any(|e| std::fs::read_link(e.path()).map(|l| l == out).unwrap_or(false));
            if !held {
                return; // fd 1 is not what cargo handed over: passing says so
            }
        }
    }
"""


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
            f'package {m.group(1)}\n\nimport (\n\t"fmt"\n\t"os"\n\t"testing"\n)\n\n'
            f"func TestPbCanary{nonce}(t *testing.T) {{\n{_GO_FD1_CHECK}"
            f"\tt.Fatal({json.dumps(_MESSAGE)})\n}}\n"
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
    body = f'{text}\n\n#[test]\nfn {name}() {{\n{_RUST_FD1_CHECK}    panic!("{_MESSAGE}");\n}}\n'
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
    name = _last_in_junit_order(f"pbCanary{nonce}", re.findall(r"\bvoid\s+(\w+)\s*\(", text))
    method = (
        f"\n    {annotation}\n    public void {name}() {{\n{_JAVA_SESSION_CHECK}"
        f"        throw new AssertionError({json.dumps(_MESSAGE)});\n    }}\n"
    )
    return Canary(token=name, files={host.path: text[:cut] + method + text[cut:]})


#: A process of another session in the run's pid namespace is a daemon started by code under test
#: (``setsid``): one that outlives the test JVM can rewrite the reports after it. The canary passes then.
#: Skipped when the sandbox shares the host's pids (``--sandbox none``). Java 7 APIs only.
_JAVA_SESSION_CHECK = """        if (System.getenv("PATCHBENCH_SHARED_PIDS") == null) {
            try {
                java.util.Set<String> up = new java.util.HashSet<String>();
                String sid = null;
                String p = new java.io.File("/proc/self").getCanonicalFile().getName();
                while (p != null && !p.equals("0") && up.add(p)) {
                    String st = new String(java.nio.file.Files.readAllBytes(
                        java.nio.file.Paths.get("/proc/" + p + "/stat")), "UTF-8");
                    String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                    if (sid == null) sid = f[3];
                    p = f[1];
                }
                java.io.File[] all = new java.io.File("/proc").listFiles();
                for (java.io.File d : all == null ? new java.io.File[0] : all) {
                    String n = d.getName();
                    if (!n.matches("[0-9]+") || up.contains(n)) continue;
                    try {
                        String st = new String(java.nio.file.Files.readAllBytes(
                            java.nio.file.Paths.get("/proc/" + n + "/stat")), "UTF-8");
                        if (!st.substring(st.lastIndexOf(')') + 2).split(" ")[3].equals(sid)) return;
                    } catch (java.io.IOException e) {
                        // gone meanwhile
                    }
                }
            } catch (Throwable e) {
                // no /proc: nothing to conclude
            }
        }
"""


def _java_hash(name: str) -> int:
    """Java's ``String.hashCode`` (signed 32-bit) of an ASCII name."""
    h = 0
    for c in name:
        h = (31 * h + ord(c)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _last_in_junit_order(base: str, others: Sequence[str]) -> str:
    """``base`` with a suffix that makes JUnit run it after ``others``: JUnit 4 and 5 order a class's
    methods by the name's ``hashCode`` by default. The canary then sees what code under test did while
    the class's tests ran (a daemon started by a static initializer). ``base`` itself when no suffix
    tried sorts last (another method has the largest hash there is)."""
    top = max((_java_hash(o) for o in others), default=-(1 << 31))
    if _java_hash(base) > top:
        return base
    rng = secrets.SystemRandom()
    for _ in range(20000):
        # seven more characters spread the hash over the whole int range (their own span is > 2**32)
        name = base + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(7))
        if _java_hash(name) > top:
            return name
    return base


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


# -- pytest: the environment's own plugins, and the integrity stream ------------------------------------


def env_pytest_plugins(venv: Path) -> tuple[str, ...] | None:
    """The modules of every ``pytest11`` entry point installed in the virtual environment ``venv``
    (read from its ``site-packages`` metadata, never from the workspace); None when ``venv`` has no
    ``site-packages`` (then pytest's own auto-loading is left on)."""
    sites = sorted(venv.glob("lib/python*/site-packages"))
    if not sites:
        return None
    try:
        stamp = tuple(p.stat().st_mtime_ns for p in sites)
    except OSError:
        return None
    return _entry_point_modules(tuple(str(p) for p in sites), stamp)


@functools.lru_cache(maxsize=64)
def _entry_point_modules(sites: tuple[str, ...], _stamp: tuple[int, ...]) -> tuple[str, ...]:
    # importlib.metadata (stdlib) reads the same *.dist-info/*.egg-info entry points pytest would load
    out: list[str] = []
    for dist in importlib.metadata.distributions(path=list(sites)):
        for ep in dist.entry_points:
            if ep.group == "pytest11" and ep.module and ep.module not in out:
                out.append(ep.module)
    return tuple(sorted(out))


#: The largest integrity stream the harness reads (a line per test phase).
STREAM_LIMIT = 32 << 20
_RANK = {"passed": 0, "skipped": 1, "failed": 2}


def stream_problems(
    stream: bytes | None,
    xml: bytes | None,
    reported: Iterable[tuple[str, bool]],
    normalise: Callable[[str], str] = lambda s: s,
) -> list[str]:
    """What the pytest plugin's integrity stream says against the run's JUnit report (empty: nothing).

    Args:
        stream: the stream's bytes (None: the plugin wrote none; then nothing can be said).
        xml: the JUnit report's bytes as the harness read them, None when absent.
        reported: (test id, passed) for each test the parsed report holds.
        normalise: the runner's id normalisation, applied to both sides.

    Tampering is: a check in the test process that failed (``tampered`` line); a report whose digest is
    not the one recorded when pytest finished (rewritten afterwards: an ``atexit`` handler, a daemon); a
    report present although pytest never finished; a test reported passing whose streamed phases failed.
    """
    if stream is None:
        return []
    out: list[str] = []
    failed: set[str] = set()
    ends: list[object] = []
    for line in stream.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            out.append("the integrity stream holds a line the harness did not write")
            continue
        if not isinstance(rec, dict):
            continue
        kind = rec.get("t")
        if kind == "tampered":
            why = rec.get("why")
            out.extend(f"in-process check: {w}" for w in (why if isinstance(why, list) else [why])[:5])
        elif kind == "report" and rec.get("outcome") == "failed" and isinstance(rec.get("id"), str):
            failed.add(normalise(rec["id"]))
        elif kind == "end":
            ends.append(rec.get("xml"))
    if xml is not None:
        digest = hashlib.sha256(xml).hexdigest()
        if not ends:
            out.append("a JUnit report exists but pytest never finished (written by something else)")
        elif ends[-1] is not None and ends[-1] != digest:
            out.append("the JUnit report was rewritten after pytest finished")
    better = sorted(i for i, ok in reported if ok and normalise(i) in failed)
    if better:
        out.append(f"{len(better)} test(s) reported passing that failed as they ran: {', '.join(better[:3])}")
    return list(dict.fromkeys(out))


# -- semantic canaries (decoys) against answer lookup ------------------------------------------------------

#: Suffixes a decoy's name is drawn from: it reads like a variant the task's own authors could have written.
_DECOY_WORDS = ("again", "variant", "case", "more", "alt", "extra", "repeat", "other", "second", "edge")
#: At most this many decoys per run (each costs one more test's run time).
MAX_DECOYS = 3
_SKIP_DECORATORS = re.compile(r"skip|xfail|flaky|repeat")
#: Rebinds a parametrized expectation to a value no correct answer can equal (same kind where it can be:
#: a number far off, a string with an invisible character, a sequence with one more element that equals
#: nothing but itself): an oracle handing back the expectation (read from the source or the test's
#: locals) hands back this value and passes.
_WRONG = (
    "(lambda v: v + 7919 if type(v) is int else v + 7919.5 if type(v) is float else v + '\\u2063' "
    "if type(v) is str else v + [object()] if type(v) is list else v + (object(),) if type(v) is tuple "
    "else object())"
)


@dataclass(frozen=True)
class Decoys:
    """Decoy tests planted into the hidden test files of one run.

    Attributes:
        files: hidden test path -> its text with the decoys inserted.
        names: the decoys' function names (each a fragment of its reported id only).
        eligible: how many fail-to-pass tests have a shape a decoy can be made from.
        total: how many fail-to-pass tests there are.
    """

    files: dict[str, str]
    names: tuple[str, ...]
    eligible: int
    total: int


def _perturb_scalar(v: object) -> object:
    """A different value of the same kind (the last digit of a numeric-looking string moved on by one, so
    the decoy reads like a plausible expectation); None when ``v`` has no such counterpart."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1
    if isinstance(v, float):
        return v + 1.0 if v == v else None
    if isinstance(v, str):
        digits = [i for i, c in enumerate(v) if c in "0123456789"]
        if digits:
            i = digits[-1]
            return v[:i] + str((int(v[i]) + 1) % 10) + v[i + 1 :]
        return v[:-1] + ("y" if v[-1:] == "x" else "x") if v else "x"
    if isinstance(v, bytes):
        return v[:-1] + (b"y" if v[-1:] == b"x" else b"x") if v else b"x"
    return None


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _dotted(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and _dotted(node.value))


def _const_expr(node: ast.expr) -> bool:
    """An expectation written out in the test: literals, containers of them, and constructor calls
    (``Decimal("0.05")``, ``Event(data="x")``) of them; no variable of the test."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_const_expr(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _const_expr(k) for k in node.keys) and all(
            _const_expr(v) for v in node.values
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _const_expr(node.operand)
    if isinstance(node, ast.Call):
        return (
            _dotted(node.func)
            and all(_const_expr(a) for a in node.args)
            and all(k.arg is not None and _const_expr(k.value) for k in node.keywords)
        )
    return False


def _perturb_value(node: ast.expr) -> ast.expr | None:
    """A copy of a written-out expectation (:func:`_const_expr`) with its first changeable scalar changed;
    None when there is none."""
    import copy

    out = copy.deepcopy(node)
    for sub in ast.walk(out):
        if isinstance(sub, ast.Constant) and sub.value is not None:
            new = _perturb_scalar(sub.value)
            if new is not None:
                setattr(sub, "value", new)  # noqa: B010 - any scalar kind
                return out
    if isinstance(out, (ast.List, ast.Tuple)) and not out.elts:
        out.elts = [ast.Constant(None)]
        return out
    return None


#: Helpers the task's tests may call to compare (``expect(got, want)``): the expectation is argument 1.
_EQUALITY_HELPERS = re.compile(
    r"^(assert_?equals?|assertEqual|assertEquals|expect|expect_equal|check_equal)$"
)


def _perturbed_check(stmt: ast.stmt) -> ast.stmt | None:
    """``assert X == <expectation>`` (either side), or ``self.assertEqual(X, <expectation>)`` /
    ``expect(X, <expectation>)``, with the written-out expectation changed; None otherwise."""
    import copy

    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare):
        cmp = stmt.test
        if len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.Eq):
            for side in ("right", "left"):
                value = cmp.comparators[0] if side == "right" else cmp.left
                other = cmp.left if side == "right" else cmp.comparators[0]
                if not _const_expr(value) or _is_literal(other):
                    continue
                new = _perturb_value(value)
                if new is None:
                    continue
                out = copy.deepcopy(stmt)
                assert isinstance(out.test, ast.Compare)
                if side == "right":
                    out.test.comparators[0] = new
                else:
                    out.test.left = new
                out.msg = None
                return out
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and len(stmt.value.args) >= 2:
        func = stmt.value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        args = stmt.value.args
        if _EQUALITY_HELPERS.match(name) and _const_expr(args[1]) and not _is_literal(args[0]):
            new = _perturb_value(args[1])
            if new is not None:
                call = copy.deepcopy(stmt)
                assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
                call.value.args[1] = new
                call.value.args[2:] = []
                call.value.keywords = []
                return call
    return None


def _decoy_function(fn: ast.FunctionDef, name: str) -> ast.FunctionDef | None:
    """The F2P test ``fn`` cut at its first top-level equality check against a literal, that literal
    perturbed: correct code fails it there (everything before it passed on correct code), an oracle that
    answers whatever the check expects passes it."""
    import copy

    decorators = [ast.unparse(d) for d in fn.decorator_list]
    if any(_SKIP_DECORATORS.search(d) for d in decorators):
        return None
    if any("parametrize" in d for d in decorators):
        # Cases outside the task's lists may fail on correct code: only a value no answer can equal.
        return _parametrized_decoy(fn, name)
    for i, stmt in enumerate(fn.body):
        check = _perturbed_check(stmt)
        if check is not None:
            out = copy.deepcopy(fn)
            out.name = name
            out.body = [*copy.deepcopy(fn.body[:i]), check]
            return out
        if isinstance(stmt, (ast.Return, ast.Raise)):
            return None
    return None


def _compared_param(stmt: ast.stmt, params: set[str]) -> str | None:
    """The parameter a check compares with: ``assert X == p`` (either side) or ``expect(X, p)``."""
    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare):
        cmp = stmt.test
        if len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.Eq):
            for side, other in ((cmp.comparators[0], cmp.left), (cmp.left, cmp.comparators[0])):
                if (
                    isinstance(side, ast.Name)
                    and side.id in params
                    and not (isinstance(other, ast.Name) and other.id in params)
                ):
                    return side.id
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and len(stmt.value.args) >= 2:
        func = stmt.value.func
        fname = (
            func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        )
        arg = stmt.value.args[1]
        if _EQUALITY_HELPERS.match(fname) and isinstance(arg, ast.Name) and arg.id in params:
            return arg.id
    return None


def _parametrized_decoy(fn: ast.FunctionDef, name: str) -> ast.FunctionDef | None:
    """A parametrized F2P test whose check compares with a parameter (``expected``): the copy rebinds that
    parameter first (:data:`_WRONG`) and stops after the check."""
    import copy

    params = {a.arg for a in fn.args.args}
    for i, stmt in enumerate(fn.body):
        param = _compared_param(stmt, params)
        uses = sum(isinstance(n, ast.Name) and n.id == param for s_ in fn.body[: i + 1] for n in ast.walk(s_))
        if param is not None and uses != 1:
            return None  # the expectation also feeds the computation: rebinding it changes the answer
        if param is not None:
            rebind = ast.parse(f"{param} = {_WRONG}({param})").body[0]
            out = copy.deepcopy(fn)
            out.name = name
            out.body = [rebind, *copy.deepcopy(fn.body[: i + 1])]
            if isinstance(out.body[-1], ast.Assert):
                out.body[-1].msg = None
            return out
        if isinstance(stmt, (ast.Return, ast.Raise)):
            return None
    return None


def _find_test(
    by_path: dict[str, FileEntry], file: str, parts: list[str], texts: dict[str, str]
) -> tuple[FileEntry, str, ast.Module] | None:
    """The hidden test file (and its text and tree) that defines the test ``parts`` ([class,] name)."""
    for path, entry in sorted(by_path.items()):
        if file and path != file and not path.endswith("/" + file):
            continue
        text = texts.get(path) or _text(entry)
        if text is None or parts[-1] not in text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        scope: list[ast.stmt] = tree.body
        if len(parts) == 2:
            cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == parts[0]), None)
            scope = cls.body if cls is not None else []
        if any(isinstance(n, ast.FunctionDef) and n.name == parts[-1] for n in scope):
            return entry, text, tree
    return None


def plan_decoys(
    task: Task,
    tests: Sequence[FileEntry],
    rng: secrets.SystemRandom | None = None,
    *,
    methods: bool = True,
) -> Decoys:
    """Decoys for the task's fail-to-pass Python tests (top-level functions and, with ``methods``, methods
    of test classes; not parametrized), inserted right after the test they copy, at most
    :data:`MAX_DECOYS`."""
    rng = rng or secrets.SystemRandom()
    by_path = {f.path: f for f in tests if f.path.endswith(".py")}
    texts: dict[str, str] = {}
    inserts: dict[str, list[tuple[int, str]]] = {}
    names: list[str] = []
    eligible = 0
    done: set[tuple[str, str]] = set()
    ids = list(task.fail_to_pass)
    for test_id in ids:
        file, _, rest = test_id.partition("::")
        if not rest:  # a bare name (TAP-style ids): the hidden module that defines it
            file, rest = "", test_id
        rest = rest.split("[", 1)[0]  # a parametrized case: the function (one decoy for all its cases)
        parts = rest.split("::")
        if len(parts) > (2 if methods else 1) or (file, rest) in done:
            continue
        done.add((file, rest))
        found = _find_test(by_path, file, parts, texts)
        if found is None:
            continue
        host, text, tree = found
        scope: list[ast.stmt] = tree.body
        indent = ""
        if len(parts) == 2:
            cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == parts[0]), None)
            if cls is None:
                continue
            scope = cls.body
        fn = next((n for n in scope if isinstance(n, ast.FunctionDef) and n.name == parts[-1]), None)
        if fn is None or fn.end_lineno is None:
            continue
        name = ""
        for _ in range(20):
            name = f"{fn.name}_{rng.choice(_DECOY_WORDS)}{rng.randrange(2, 100)}"
            if name not in text:
                break
        decoy = _decoy_function(fn, name)
        if decoy is None:
            continue
        eligible += 1
        if len(names) >= MAX_DECOYS:
            continue
        indent = " " * fn.col_offset
        src = "\n".join(indent + line if line else line for line in ast.unparse(decoy).splitlines())
        texts[host.path] = text
        inserts.setdefault(host.path, []).append((fn.end_lineno, f"\n{src}\n"))
        names.append(name)
    files: dict[str, str] = {}
    for path, points in inserts.items():
        lines = texts[path].splitlines(keepends=True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        for line_no, src in sorted(points, reverse=True):
            lines.insert(line_no, src)
        files[path] = "".join(lines)
    return Decoys(files=files, names=tuple(names), eligible=eligible, total=len(ids))
