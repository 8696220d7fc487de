"""The canary: a test that always fails, planted in every run (patchbench.canary, patchbench.harness)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

import patchbench as pb
from patchbench import FileEntry, Task, TestCommand, TestSpec
from patchbench.canary import PYTEST_PLUGIN_MODULE, CanaryState, plan_canary
from patchbench.grading import grade
from patchbench.results import Outcome, TestResult, TestResults


def _builtin(task_id: str) -> Task:
    return next(t for t in pb.load("builtin").tasks if t.id == task_id)


def _plan(task: Task, runner: str) -> object:
    return plan_canary(runner, task, task.hidden_tests, "abc123", workspace_dst="/w", harness_dst="/h")


# -- planting -------------------------------------------------------------------------------------------


def test_pytest_canary_is_a_module_beside_the_hidden_tests_plus_a_harness_plugin() -> None:
    c = plan_canary(
        "pytest",
        _builtin("py-interval-touching-merge"),
        _builtin("py-interval-touching-merge").hidden_tests,
        "abc123",
        workspace_dst="/w",
        harness_dst="/h",
    )
    assert c is not None
    # the canary module, and a decoy copied from an F2P test into the hidden file (see the decoy tests)
    assert sorted(c.files) == ["tests/test_freebusy.py", "tests/test_pb_canary_abc123.py"]
    assert len(c.decoys) == 2  # the parametrized test_merge_blocks and the TestCalendar method
    assert f"def {c.decoys[1]}(self):" in c.files["tests/test_freebusy.py"]
    assert "def test_pb_canary_abc123():" in c.files["tests/test_pb_canary_abc123.py"]
    assert list(c.harness_files) == [f"{PYTEST_PLUGIN_MODULE}.py"]
    assert c.env["PYTEST_ADDOPTS"] == f"-p {PYTEST_PLUGIN_MODULE}"
    assert c.env["PYTHONPATH"] == "/h"
    assert c.env["PATCHBENCH_CANARY_FILE"] == "/w/tests/test_pb_canary_abc123.py"
    assert c.matches("tests/test_pb_canary_abc123.py::test_pb_canary_abc123")
    assert not c.matches("tests/test_x.py::test_pb_canary_other")


@pytest.mark.parametrize(
    ("task_id", "runner", "host", "token"),
    [
        ("py-unicode-tag-accent-folding", "tap", "tests/test_tags.py", "pb_canary_abc123"),
        ("js-lru-numeric-key-eviction", "node-test", None, "pb_canary_abc123"),
        ("ts-aggregate-replay-field-reset", "node-test", "tests/aggregates.test.ts", "pb_canary_abc123"),
        ("rs-feed-scrollback-short-page", "cargo-test", None, "pb_canary_abc123"),
    ],
)
def test_appended_canaries_keep_the_hidden_test_file(
    task_id: str, runner: str, host: str | None, token: str
) -> None:
    task = _builtin(task_id)
    c = plan_canary(runner, task, task.hidden_tests, "abc123", workspace_dst="/w", harness_dst="/h")
    assert c is not None and c.token == token
    # Python TAP scripts and node get harness files (integrity modules loaded before code under test)
    assert bool(c.harness_files) == (runner in ("tap", "node-test"))
    [(path, text)] = [(p, t) for p, t in c.files.items() if token in t]
    if host is not None:
        assert path == host
    original = next(f.content for f in task.hidden_tests if f.path == path)
    # decoys (semantic canaries) may be inserted between the tests: every line of the file stays, in order
    assert _kept_in_order(original, text), "the hidden tests must stay as they are"
    assert _kept_in_order(original, text[: text.index(token)]), "the canary comes after every test"


def _kept_in_order(original: str, text: str) -> bool:
    """Every line of ``original`` is in ``text`` in the same order (lines may be inserted between them;
    a Rust file's first line may gain ``#![allow(unused)]`` in front)."""
    rest = iter(text.removeprefix("#![allow(unused)] ").splitlines())
    return all(any(line == got for got in rest) for line in original.splitlines())


def test_go_canary_is_a_test_file_in_the_hidden_tests_package() -> None:
    task = _builtin("go-logger-derived-fields-clobbered")
    c = plan_canary("go-test", task, task.hidden_tests, "abc123", workspace_dst="/w", harness_dst="/h")
    assert c is not None
    [(path, text)] = [(p, t) for p, t in c.files.items() if "zz_pb_canary" in p]
    assert path.endswith("zz_pb_canary_abc123_test.go")
    hidden_pkg = next(f.content for f in task.hidden_tests if f.path.endswith("_test.go")).split("\n")[0]
    assert text.startswith(hidden_pkg + "\n")
    assert "func TestPbCanaryabc123(t *testing.T)" in text


def test_node_canary_uses_dynamic_import_valid_in_commonjs_and_esm() -> None:
    test = FileEntry(
        path="test/a.test.js", content="const test = require('node:test');\ntest('a', () => {});\n"
    )
    task = Task(
        id="cjs",
        language="javascript",
        workspace=(FileEntry(path="a.js", content="module.exports = 1;\n"),),
        hidden_tests=(test,),
        test=TestSpec(commands=(TestCommand(argv=("node", "--test", "test/a.test.js")),)),
    )
    c = plan_canary("node-test", task, task.hidden_tests, "n1", workspace_dst="/w", harness_dst="/h")
    assert c is not None
    added = c.files["test/a.test.js"][len(test.content) :]
    assert "import('node:test')" in added and "require(" not in added and "\nimport " not in added


def test_sql_case_files_get_a_canary_case_only_when_the_file_is_understood() -> None:
    task = _builtin("sql-activity-report-missing-members")
    c = plan_canary("tap", task, task.hidden_tests, "n", workspace_dst="/w", harness_dst="/h")
    assert c is not None and set(c.files) == {"tests/cases.json"} and c.token in c.files["tests/cases.json"]
    odd = task.model_copy(
        update={
            "hidden_tests": tuple(
                f
                if not f.path.endswith(".json")
                else f.model_copy(update={"content": '{"cases": [{"id": 1}]}'})
                for f in task.hidden_tests
            )
        }
    )
    assert plan_canary("tap", odd, odd.hidden_tests, "n", workspace_dst="/w", harness_dst="/h") is None


def test_junit_canary_is_a_method_of_the_hidden_test_class_but_not_in_a_multi_module_build() -> None:
    task = _builtin("java-reconcile-fractional-quantity")
    pom = task.workspace_map()["pom.xml"]

    def plan(pom_text: str) -> object:
        return plan_canary(
            "junit",
            task,
            task.hidden_tests,
            "n1",
            workspace_dst="/w",
            harness_dst="/h",
            read=lambda rel: pom_text if rel in ("pom.xml", "./pom.xml") else None,
        )

    c = plan(pom)
    assert c is not None
    [(path, text)] = c.files.items()  # type: ignore[attr-defined]
    original = next(f.content for f in task.hidden_tests if f.path == path)
    assert c.token.startswith("pbCanaryn1")  # plus a suffix that makes it run last (see below)
    assert f"@org.junit.jupiter.api.Test\n    public void {c.token}()" in text
    # the method goes inside the class, before its closing brace (decoys may come before it)
    assert _kept_in_order(original, text) and text.endswith("}\n") and len(text) > len(original)
    assert text.index(c.token) > text.index(original.rstrip().splitlines()[-2])
    multi = pom.replace("</project>", "<modules><module>core</module></modules></project>")
    assert plan(multi) is None


def test_python_isolated_mode_gets_no_pytest_canary() -> None:
    task = _builtin("py-interval-touching-merge")
    spec = task.test.model_copy(update={"commands": (TestCommand(argv=("python", "-I", "-m", "pytest")),)})
    task = task.model_copy(update={"test": spec})
    assert plan_canary("pytest", task, task.hidden_tests, "n", workspace_dst="/w", harness_dst="/h") is None


# -- grading --------------------------------------------------------------------------------------------


def _results(*outcomes: Outcome) -> TestResults:
    tests = tuple(TestResult(id=f"t{i}", outcome=o) for i, o in enumerate(outcomes))
    return TestResults(runner="tap", tests=tests, complete=True)


def _grade(canary: CanaryState | None, *, required: bool = False, exit_code: int = 0) -> pb.Status:
    res = _results(Outcome.PASSED)
    return grade(
        res,
        {"t0": res.tests[0]},
        {},
        exit_codes=[exit_code],
        canary=canary,
        canary_required=required,
    ).status


def test_a_passing_canary_is_tampering() -> None:
    assert _grade(CanaryState.PASSED) is pb.Status.UNRESOLVED
    res = _results(Outcome.PASSED)
    g = grade(res, {"t0": res.tests[0]}, {}, exit_codes=[0], canary=CanaryState.PASSED)
    assert "tampering" in g.reason


def test_a_missing_canary_fails_only_when_the_command_is_known_to_run_it() -> None:
    assert _grade(CanaryState.MISSING, required=True) is pb.Status.UNRESOLVED
    assert _grade(CanaryState.MISSING, required=False) is pb.Status.RESOLVED


def test_the_failing_canary_explains_a_non_zero_exit() -> None:
    assert _grade(CanaryState.FAILED, exit_code=1) is pb.Status.RESOLVED
    assert _grade(None, exit_code=1) is pb.Status.UNRESOLVED


# -- in real runs -----------------------------------------------------------------------------------------


def _pytest_task(argv: tuple[str, ...]) -> Task:
    return Task(
        id="canary-pytest",
        language="python",
        workspace=(FileEntry(path="calc.py", content="def add(a, b):\n    return a - b\n"),),
        hidden_tests=(
            FileEntry(
                path="tests/test_calc.py",
                content="from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\n"
                "def test_zero():\n    assert add(0, 0) == 0\n",
            ),
        ),
        test=TestSpec(commands=(TestCommand(argv=argv),), time_limit_s=60),
        fail_to_pass=("tests/test_calc.py::test_add",),
        pass_to_pass=("tests/test_calc.py::test_zero",),
        gold_patch="--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n"
        "+    return a + b\n",
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("python", "-m", "pytest", "-q", "tests"),
        # node ids that do not name the canary, and stop at the first failure: the plugin still adds
        # the canary, and runs it last
        ("python", "-m", "pytest", "-x", "tests/test_calc.py::test_add", "tests/test_calc.py::test_zero"),
    ],
)
def test_pytest_runs_the_canary_last_and_keeps_it_out_of_the_verdict(argv: tuple[str, ...]) -> None:
    task = _pytest_task(argv)
    gold = pb.run(task, pb.Candidate.gold())
    assert gold.status is pb.Status.RESOLVED, gold.reason
    assert gold.canary == "failed"
    assert all("canary" not in t.id for t in gold.tests)
    assert len(gold.tests) == 2
    empty = pb.run(task, pb.Candidate.empty())
    assert empty.status is pb.Status.UNRESOLVED
    # with -x pytest stops at the first real failure, before the canary (which always runs last)
    assert empty.canary == ("missing" if "-x" in argv else "failed")


def _tap_listing_task(tmp_files: dict[str, str] | None = None) -> Task:
    """A Python TAP task whose runner lists its tests by name: an appended canary is never run."""
    runner = (
        "import sys\nsys.path.insert(0, '.')\nfrom tests.test_calc import test_add\n"
        "try:\n    test_add()\n    print('1..1\\nok 1 - test_add')\nexcept AssertionError:\n"
        "    print('1..1\\nnot ok 1 - test_add')\n    sys.exit(1)\n"
    )
    return Task(
        id="canary-tap-listing",
        language="python",
        workspace=(FileEntry(path="calc.py", content="def add(a, b):\n    return a - b\n"),),
        hidden_tests=(
            FileEntry(path="tests/__init__.py", content=""),
            FileEntry(path="tests/run.py", content=runner),
            FileEntry(
                path="tests/test_calc.py",
                content="from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
            ),
        ),
        test=TestSpec(commands=(TestCommand(argv=("python", "tests/run.py")),), time_limit_s=60),
        fail_to_pass=("test_add",),
        gold_patch="--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n"
        "+    return a + b\n",
    )


def test_a_command_that_never_runs_the_canary_is_calibrated_once_and_noted(tmp_path: Path) -> None:
    task = _tap_listing_task()
    cache = tmp_path / "cache"
    gold = pb.run(task, pb.Candidate.gold(), cache_dir=cache)
    assert gold.status is pb.Status.RESOLVED, gold.reason
    assert gold.canary == "missing"
    assert any("does not run an injected canary" in n for n in gold.notes)
    [calibration] = [p for p in (cache / "canary").glob("*.json") if not p.name.startswith("controls-")]
    assert '"runs_canary": false' in calibration.read_text()


def test_a_forged_tap_report_without_the_canary_is_caught_once_calibrated(tmp_path: Path) -> None:
    task = _builtin("py-unicode-tag-accent-folding")
    names = task.fail_to_pass + task.pass_to_pass
    forged = f"TAP version 13\n1..{len(names)}\n" + "".join(f"ok {i} - {n}\n" for i, n in enumerate(names, 1))
    code = f"import sys\nsys.stdout.write({forged!r})\nsys.exit(0)\n"
    target = next(p for p in task.workspace_map() if p.endswith(".py") and "test" not in p)
    cand = pb.Candidate.files({target: task.workspace_map()[target] + "\n" + code})
    v = pb.run(task, cand, cache_dir=tmp_path / "cache")
    assert v.status is pb.Status.UNRESOLVED
    assert v.canary == "missing" and "canary test is missing" in v.reason
    calibrations = [
        p for p in (tmp_path / "cache" / "canary").glob("*.json") if not p.name.startswith("controls-")
    ]
    assert len(calibrations) == 1


# -- real datasets: never plant where it could change what the real tests compare against ----------------


def _entry(path: str, text: str) -> FileEntry:
    return FileEntry(path=path, content=text)


def _plan_for(runner: str, language: str, tests: list[FileEntry], argv: tuple[str, ...] = ("x",)) -> object:
    task = Task(
        id="t",
        language=language,
        workspace=(_entry("main.txt", "x\n"),),
        hidden_tests=tuple(tests),
        test=TestSpec(commands=(TestCommand(argv=argv),)),
    )
    return plan_canary(runner, task, task.hidden_tests, "n1", workspace_dst="/w", harness_dst="/h")


def test_no_canary_goes_into_test_data() -> None:
    node_fixture = _entry("test/fixtures/input.js", "import test from 'node:test';\n")
    node_real = _entry("test/parse.test.js", "import { test } from 'node:test';\ntest('a', () => {});\n")
    c = _plan_for("node-test", "javascript", [node_fixture, node_real])
    assert c is not None and list(c.files) == ["test/parse.test.js"]  # type: ignore[attr-defined]
    assert _plan_for("node-test", "javascript", [node_fixture]) is None
    # a .js file that does not use node:test (a helper, a data file) is never touched
    assert _plan_for("node-test", "javascript", [_entry("test/helper.js", "module.exports = 1;\n")]) is None

    ui = _entry("tests/ui/bad_borrow.rs", "#[test]\nfn t() {}\n")  # compile-fail data for trybuild
    assert _plan_for("cargo-test", "rust", [ui]) is None
    nested = _entry("crates/core/tests/api.rs", "#[test]\nfn t() {}\n")
    c = _plan_for("cargo-test", "rust", [ui, nested])
    assert c is not None and list(c.files) == ["crates/core/tests/api.rs"]  # type: ignore[attr-defined]

    tap_data = _entry("tests/fixtures/test_sample.py", "def test_x():\n    pass\n")
    assert _plan_for("tap", "python", [tap_data]) is None


def test_junit_canary_goes_into_the_primary_class_only() -> None:
    body = (
        "import org.junit.jupiter.api.Test;\n/* } */\nclass FooTest {\n"
        '    String s = "}";\n    @Test void a() { }\n}\ninterface Helper { void x(); }\n'
    )
    c = _plan_for("junit", "java", [_entry("src/test/java/FooTest.java", body)])
    assert c is not None
    text = c.files["src/test/java/FooTest.java"]  # type: ignore[attr-defined]
    assert text.index("pbCanaryn1") < text.index("interface Helper")
    assert text.endswith("}\ninterface Helper { void x(); }\n")
    only_interface = "import org.junit.jupiter.api.Test;\ninterface FooTest { }\n"
    assert _plan_for("junit", "java", [_entry("src/test/java/FooTest.java", only_interface)]) is None
    testng = "import org.testng.annotations.Test;\nclass FooTest { @Test void a() {} }\n"
    assert _plan_for("junit", "java", [_entry("src/test/java/FooTest.java", testng)]) is None


def test_the_pytest_plugin_never_breaks_the_tasks_own_run(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from patchbench.canary import PYTEST_PLUGIN

    (tmp_path / "h").mkdir()
    (tmp_path / "h" / f"{PYTEST_PLUGIN_MODULE}.py").write_text(PYTEST_PLUGIN)
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "h"),
        "PATCHBENCH_CANARY_NAME": "test_pb_canary_gone",
        "PATCHBENCH_CANARY_FILE": str(tmp_path / "no-such-dir" / "test_pb_canary_gone.py"),
    }
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            PYTEST_PLUGIN_MODULE,
            "-p",
            "no:cacheprovider",
            "test_a.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout


def test_the_python_canary_fails_only_while_assert_statements_work() -> None:
    import subprocess
    import sys

    from patchbench.canary._python import _py_body

    body = _py_body("test_pb_canary_x")
    honest: dict[str, object] = {}
    exec(compile(body, "canary.py", "exec"), honest)
    with pytest.raises(AssertionError, match="always fails"):
        honest["test_pb_canary_x"]()  # type: ignore[operator]
    stripped: dict[str, object] = {}  # asserts compiled away behind the interpreter's back: tampering
    exec(compile(body, "canary.py", "exec", optimize=1), stripped)
    assert stripped["test_pb_canary_x"]() is None  # type: ignore[operator]
    # python -O itself: no test's assert works, and the canary still fails (it raises)
    code = body + "\ntest_pb_canary_x()\n"
    r = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode != 0 and "always fails" in r.stderr


# -- the pytest plugin's process-integrity check ------------------------------------------------------------


def _pytest_with_canary(
    tmp_path: Path, files: dict[str, str], *, stream: list[str] | None = None, hidden: str | None = None
) -> str:
    """Run pytest on ``files`` with the canary plugin and canary module; the canary's outcome. With
    ``stream``, the problems the integrity stream shows against the JUnit report are appended to it."""
    import os
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    from patchbench.canary import PYTEST_PLUGIN
    from patchbench.canary._python import _py_body

    (tmp_path / "h").mkdir()
    (tmp_path / "h" / f"{PYTEST_PLUGIN_MODULE}.py").write_text(PYTEST_PLUGIN)
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "tests" / "test_pb_canary_n1.py").write_text(_py_body("test_pb_canary_n1"))
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "h"),
        "PATCHBENCH_CANARY_NAME": "test_pb_canary_n1",
        "PATCHBENCH_CANARY_FILE": str(tmp_path / "tests" / "test_pb_canary_n1.py"),
        "PATCHBENCH_WORKSPACE": str(tmp_path),
        "PATCHBENCH_CANARY_STREAM": str(tmp_path / "stream.jsonl"),
    }
    if hidden is not None:
        env["PATCHBENCH_TESTS"] = str(tmp_path / hidden)
    argv = [sys.executable, "-m", "pytest", "-q", "-p", PYTEST_PLUGIN_MODULE, "-p", "no:cacheprovider"]
    subprocess.run(
        [*argv, f"--junitxml={tmp_path / 'j.xml'}", "tests"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    cases = list(ET.parse(tmp_path / "j.xml").iter("testcase"))
    if stream is not None:
        from patchbench.canary import stream_problems

        reported = [(f"{c.get('classname')}::{c.get('name')}", not len(c)) for c in cases]
        raw = (tmp_path / "stream.jsonl").read_bytes() if (tmp_path / "stream.jsonl").exists() else None
        # the stream has node ids (tests/test_a.py::test_a), the report dotted class names: compare names
        stream.extend(
            stream_problems(raw, (tmp_path / "j.xml").read_bytes(), reported, lambda i: i.rsplit("::", 1)[-1])
        )
    case = next(c for c in cases if "pb_canary" in c.get("name", ""))
    return "failed" if len(case) else "passed"


_PLAIN = "def test_a():\n    assert 1 + 1 == 2\n"


@pytest.mark.parametrize(
    "files",
    [
        {"tests/test_a.py": _PLAIN},
        # a conftest hook wrapper on reports (legitimate: the task's own), a plugin module listed by a test
        # module, a test that monkeypatches pytest's internals and has them restored
        {
            "tests/conftest.py": "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
            "def pytest_runtest_makereport(item, call):\n    yield\n",
            "tests/test_a.py": "pytest_plugins = ['pytester']\n\n\n" + _PLAIN,
            "tests/test_b.py": "import _pytest.runner\n\n\ndef test_b(monkeypatch):\n"
            "    orig = _pytest.runner.call_and_report\n"
            "    monkeypatch.setattr(_pytest.runner, 'call_and_report', lambda *a, **k: orig(*a, **k))\n",
        },
    ],
    ids=["plain", "legitimate-hooks-and-patches"],
)
def test_the_integrity_check_leaves_honest_runs_alone(tmp_path: Path, files: dict[str, str]) -> None:
    problems: list[str] = []
    assert _pytest_with_canary(tmp_path, files, stream=problems) == "failed"
    assert problems == []


@pytest.mark.parametrize(
    "attack",
    [
        # an object plugin registered from code under test, rewriting outcomes of chosen tests only
        "import gc, pytest, _pytest.config\n\n\nclass R:\n    @pytest.hookimpl(hookwrapper=True)\n"
        "    def pytest_runtest_makereport(self, item, call):\n        yield\n\n\n"
        "for o in gc.get_objects():\n    if isinstance(o, _pytest.config.Config):\n"
        "        o.pluginmanager.register(R(), 'r')\n",
        # a pytest internal replaced
        "import _pytest.reports\n_orig = _pytest.reports.TestReport.__init__\n"
        "_pytest.reports.TestReport.__init__ = lambda self, *a, **k: _orig(self, *a, **k)\n",
        # a function's code swapped in place
        "import _pytest.python\n\n\ndef _runtest(self):\n"
        "    self.ihook.pytest_pyfunc_call(pyfuncitem=self)\n\n\n"
        "_pytest.python.Function.runtest.__code__ = _runtest.__code__\n",
        # rt-py-register-module-plugin: code under test registers its own module (modules were exempt)
        "import gc, pytest, sys, _pytest.config\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n    yield\n\n\n"
        "for o in gc.get_objects():\n    if isinstance(o, _pytest.config.Config):\n"
        "        o.pluginmanager.register(sys.modules[__name__], 'buggy-plugin')\n",
        # rt-py-runtestprotocol-swap-restore: swapped while the listed test runs, restored before the canary
        "import _pytest.runner\n_orig = _pytest.runner.call_and_report\n\n\n"
        "def swap():\n    _pytest.runner.call_and_report = lambda *a, **k: _orig(*a, **k)\n\n\n"
        "def restore():\n    _pytest.runner.call_and_report = _orig\n",
        # rt-py-settrace-neuter-listed: a trace function set from code under test
        "import sys\nsys.settrace(None)\n",
        # a test function's code replaced from code under test
        "def neuter(f):\n    f.__code__ = (lambda: None).__code__\n",
    ],
    ids=[
        "object-plugin",
        "replaced-internal",
        "swapped-code",
        "module-plugin",
        "swap-restore",
        "settrace",
        "code-assigned",
    ],
)
def test_the_integrity_check_catches_in_process_tampering(tmp_path: Path, attack: str) -> None:
    """Each attack leaves the canary alone; before issue 12 the last four went unseen (module plugins were
    exempt, the check ran only inside the canary, trace functions and code swaps were not watched)."""
    test_a = (
        "import buggy\n\n\ndef test_a():\n    getattr(buggy, 'swap', lambda: None)()\n"
        "    if hasattr(buggy, 'neuter'):\n        buggy.neuter(test_b)\n    assert 1 + 1 == 2\n\n\n"
        "def test_b():\n    getattr(buggy, 'restore', lambda: None)()\n"
    )
    files = {"src/buggy.py": attack, "tests/conftest.py": "import sys\nsys.path.insert(0, 'src')\n"}
    files["tests/test_a.py"] = test_a
    problems: list[str] = []
    assert _pytest_with_canary(tmp_path, files, stream=problems) == "passed"
    assert any("in-process check" in p for p in problems)


def test_an_exit_time_rewrite_of_the_junit_report_is_seen(tmp_path: Path) -> None:
    """rt-py-atexit-junit-listed: an atexit handler stripped listed failures after pytest wrote the report
    (the canary's own failure kept); the digest sealed at pytest's end no longer matches."""
    attack = (
        "import atexit, glob\n\n\ndef _strip():\n    for p in glob.glob('*.xml'):\n"
        "        t = open(p).read()\n"
        "        open(p, 'w').write(t.replace('assert 1 == 2', 'assert 1 == 3'))\n\n\n"
        "atexit.register(_strip)\n"
    )
    files = {
        "src/buggy.py": attack,
        "tests/conftest.py": "import sys\nsys.path.insert(0, 'src')\n",
        "tests/test_a.py": "import buggy  # noqa: F401\n\n\ndef test_a():\n    assert 1 == 2\n",
    }
    problems: list[str] = []
    assert _pytest_with_canary(tmp_path, files, stream=problems) == "failed"
    assert problems == ["the JUnit report was rewritten after pytest finished"]


def test_stream_problems_reads_the_stream_against_the_report() -> None:
    from patchbench.canary import stream_problems

    xml = b"<testsuites/>"
    end = json.dumps({"t": "end", "xml": hashlib.sha256(xml).hexdigest()}).encode()
    fail = json.dumps({"t": "report", "id": "t.py::test_a", "when": "call", "outcome": "failed"}).encode()
    assert stream_problems(None, xml, [("t.py::test_a", True)]) == []  # no plugin ran: nothing to say
    assert stream_problems(end, xml, [("t.py::test_a", True)]) == []
    assert stream_problems(fail + b"\n" + end, xml, [("t.py::test_a", False)]) == []
    assert stream_problems(fail + b"\n" + end, xml, [("t.py::test_a", True)]) == [
        "1 test(s) reported passing that failed as they ran: t.py::test_a"
    ]
    assert stream_problems(fail, xml, []) == [
        "a JUnit report exists but pytest never finished (written by something else)"
    ]
    assert stream_problems(end, xml + b" ", []) == ["the JUnit report was rewritten after pytest finished"]
    assert stream_problems(b"junk\n" + end, xml, []) == [
        "the integrity stream holds a line the harness did not write"
    ]


def test_env_pytest_plugins_reads_the_venv_metadata_only(tmp_path: Path) -> None:
    from patchbench.canary import env_pytest_plugins

    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    for dist, body in (
        ("pytest_x-1.0", "[pytest11]\nx = pytest_x.plugin\n\n[console_scripts]\nx = pytest_x:main\n"),
        ("other-2.0", "[console_scripts]\no = other:main\n"),
    ):
        (site / f"{dist}.dist-info").mkdir(parents=True)
        (site / f"{dist}.dist-info" / "METADATA").write_text(f"Name: {dist.split('-')[0]}\nVersion: 1\n")
        (site / f"{dist}.dist-info" / "entry_points.txt").write_text(body)
    assert env_pytest_plugins(tmp_path / "venv") == ("pytest_x.plugin",)
    assert env_pytest_plugins(tmp_path / "not-a-venv") is None


def test_a_module_standing_in_for_the_harness_plugin_makes_the_canary_pass() -> None:
    """rt-py-shadow-harness-plugin: ``_patchbench_canary.py`` in the workspace shadowed the plugin (the
    guard now removes such files; the canary also checks where the module came from)."""
    import types

    from patchbench.canary._python import _py_body

    fake = types.ModuleType("_patchbench_canary")
    fake.__file__ = "/workspace/_patchbench_canary.py"
    exec("def tampered():\n    return []\n", fake.__dict__)
    fake.tampered.__module__ = "_patchbench_canary"
    import sys

    sys.modules["_patchbench_canary"] = fake
    try:
        ns: dict[str, object] = {}
        exec(compile(_py_body("test_x", "/.patchbench-canary"), "c.py", "exec"), ns)
        assert ns["test_x"]() is None  # type: ignore[operator]
        fake.__file__ = "/.patchbench-canary/_patchbench_canary.py"
        with pytest.raises(AssertionError, match="always fails"):
            ns["test_x"]()  # type: ignore[operator]
    finally:
        del sys.modules["_patchbench_canary"]


def _tap_process(
    tmp_path: Path, script: str, extra_site: str | None = None, *, unbuffered_env: bool = False
) -> str:
    """Run ``script`` with the TAP harness files on PYTHONPATH; its standard output."""
    import os
    import subprocess
    import sys

    from patchbench.canary import TAP_INTEGRITY, TAP_SITECUSTOMIZE

    h = tmp_path / "h"
    h.mkdir()
    (h / "sitecustomize.py").write_text(TAP_SITECUSTOMIZE)
    (h / f"{PYTEST_PLUGIN_MODULE}.py").write_text(TAP_INTEGRITY)
    path = [str(h)]
    if extra_site is not None:
        (tmp_path / "other").mkdir()
        (tmp_path / "other" / "sitecustomize.py").write_text(extra_site)
        path.append(str(tmp_path / "other"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered_env:
        env["PYTHONUNBUFFERED"] = "1"
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return r.stdout


_REPORT = "\nfrom _patchbench_canary import tampered\nprint('TAMPERED', tampered(), flush=True)\n"


def test_tap_integrity_accepts_a_rewrapped_stdout_and_chains_other_sitecustomize(tmp_path: Path) -> None:
    rewrap = "import io, sys\nsys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding='utf-8')\n"
    site = "import builtins\nbuiltins.PB_OTHER = 'chained'\n"
    out = _tap_process(tmp_path, rewrap + "import builtins\nprint(builtins.PB_OTHER)\n" + _REPORT, site)
    assert "TAMPERED []" in out and "chained" in out
    (tmp_path / "u").mkdir()
    unbuffered = "import io, sys\nassert type(sys.stdout.buffer) is io.FileIO\n"
    assert "TAMPERED []" in _tap_process(tmp_path / "u", unbuffered + _REPORT, unbuffered_env=True)


@pytest.mark.parametrize(
    "attack",
    [
        "import sys\nclass F:\n    def write(self, s): return sys.__stdout__.write(s)\n"
        "    def flush(self): sys.__stdout__.flush()\nsys.stdout = F()\n",
        "import os\nr, w = os.pipe()\nsaved = os.dup(1)\nos.dup2(w, 1)\nos.dup2(saved, 1)\nos.dup2(w, 1)\n"
        "import sys\nsys.stdout = open(saved, 'w', closefd=False)\n",
        "import builtins\n_p = builtins.print\nbuiltins.print = lambda *a, **k: _p(*a, **k)\n",
        # rt-tap-main-print-global: a print planted in the runner script's globals (builtins untouched)
        "import builtins, sys\n"
        "vars(sys.modules['__main__'])['print'] = lambda *a, **k: builtins.print(*a, **k)\n",
    ],
    ids=["stdout-filter-object", "pipe-under-fd-1", "print-replaced", "main-print-global"],
)
def test_tap_integrity_sees_an_intercepted_channel(tmp_path: Path, attack: str) -> None:
    out = _tap_process(tmp_path, attack + _REPORT)
    assert "TAMPERED [" in out and "TAMPERED []" not in out


@pytest.mark.parametrize(
    "hook",
    [
        "sys.setprofile(lambda *a: None)\nsys.setprofile(None)\n",  # rt-tap-fd-filter-restored's drain
        "sys.settrace(None)\n",
        "pid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\n",
    ],
    ids=["profile-set-and-removed", "settrace", "fork"],
)
def test_tap_integrity_remembers_hooks_set_by_code_under_test(tmp_path: Path, hook: str) -> None:
    """A filter that restores the channel before the canary looks leaves nothing to compare then; what
    code of the workspace (not a hidden test) did on the way is remembered by an audit hook."""
    import os
    import subprocess
    import sys

    from patchbench.canary import TAP_INTEGRITY, TAP_SITECUSTOMIZE

    h, ws = tmp_path / "h", tmp_path / "ws"
    h.mkdir()
    (ws / "tests").mkdir(parents=True)
    (h / "sitecustomize.py").write_text(TAP_SITECUSTOMIZE)
    (h / f"{PYTEST_PLUGIN_MODULE}.py").write_text(TAP_INTEGRITY)
    (ws / "lib.py").write_text(
        "import os\nimport sys\n\n\ndef go():\n" + "".join(f"    {line}\n" for line in hook.splitlines())
    )
    runner = ws / "tests" / "run_tests.py"
    # the hidden runner itself may do the same (exempt): only program source is watched
    runner.write_text(
        "import sys\nsys.path.insert(0, '.')\nsys.settrace(None)\n"
        + _REPORT
        + "import lib\nlib.go()\n"
        + _REPORT
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(h),
        "PATCHBENCH_WORKSPACE": str(ws),
        "PATCHBENCH_TESTS": str(runner),
    }
    r = subprocess.run(
        [sys.executable, str(runner)], cwd=ws, env=env, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stderr
    first, second = [line for line in r.stdout.splitlines() if line.startswith("TAMPERED")]
    assert first == "TAMPERED []"
    assert second != "TAMPERED []" and "lib.py" in second


# -- semantic canaries (decoys) ------------------------------------------------------------------------------

_DECOY_TESTS = """import pytest
from lib import total, Box


def test_total():
    values = [1, 2]
    assert total(values) == 3
    assert total([]) == 0


class TestBox:
    def test_label(self):
        self.check = 1
        assert Box("a").label() == Box("a!").label()[:1] + "" or True
        assert Box("a").label() == "[a]"


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert total([n]) == n  # the parameter feeds the computation too: no rebound decoy, no case listed


@pytest.mark.parametrize(("v", "want"), [([1], 1), ([2, 3], 5)])
def test_sum(v, want):
    assert total(v) == want


def test_after():
    assert True
"""
_CORRECT = (
    "def total(v):\n    return sum(v)\n\n\nclass Box:\n    def __init__(self, s):\n        self.s = s\n\n"
    "    def label(self):\n        return f'[{self.s}]'\n"
)
#: An answer oracle in its simplest form: whatever the check compares with, it is equal.
_ORACLE = (
    "class _Eq:\n    def __eq__(self, other):\n        return True\n\n    def __getitem__(self, i):\n"
    "        return self\n\n    def __add__(self, o):\n        return self\n\n\n"
    "def total(v):\n    return _Eq()\n\n\nclass Box:\n    def __init__(self, s):\n        pass\n\n"
    "    def label(self):\n        return _Eq()\n"
)


def _decoy_task() -> Task:
    return Task(
        id="decoy",
        workspace=(FileEntry(path="lib.py", content=_CORRECT),),
        hidden_tests=(FileEntry(path="tests/test_lib.py", content=_DECOY_TESTS),),
        test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest", "-x", "tests")),)),
        fail_to_pass=(
            "tests/test_lib.py::test_total",
            "tests/test_lib.py::TestBox::test_label",
            "test_param[3]",
            "tests/test_lib.py::test_sum[v0-1]",
        ),
    )


def test_decoys_copy_f2p_tests_up_to_a_perturbed_expectation() -> None:
    import ast

    from patchbench.canary import plan_decoys

    task = _decoy_task()
    d = plan_decoys(task, task.hidden_tests)
    assert (d.eligible, d.total, len(d.names)) == (3, 4, 3)
    text = d.files["tests/test_lib.py"]
    assert text.startswith(_DECOY_TESTS.split("class TestBox")[0].rstrip("\n"))  # the real tests stay
    tree = ast.parse(text)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == d.names[0])
    assert d.names[0].startswith("test_total_")
    assert ast.unparse(fn.body[-1]) == "assert total(values) == 4"  # cut at the first literal check
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == d.names[1])
    # the first assert compares two computed values: the decoy goes on to the literal one
    assert ast.unparse(method.body[-1]) == "assert Box('a').label() == '[ax'"


@pytest.mark.parametrize(("lib", "outcome"), [(_CORRECT, "failed"), (_ORACLE, "passed")])
def test_a_decoy_fails_on_correct_code_and_passes_on_an_answer_oracle(
    tmp_path: Path, lib: str, outcome: str
) -> None:
    """rt-py-frame-oracle-source: code that answers whatever the test expects passes the listed tests
    without a forged report; a decoy expecting a wrong value passes too, which correct code never does.
    The plugin runs decoys after every real test, so ``-x`` never stops a real one."""
    import os
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    from patchbench.canary import PYTEST_PLUGIN

    task = _decoy_task()
    c = plan_canary("pytest", task, task.hidden_tests, "n2", workspace_dst=str(tmp_path), harness_dst="/h")
    assert c is not None and len(c.decoys) == 3
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / f"{PYTEST_PLUGIN_MODULE}.py").write_text(PYTEST_PLUGIN)
    (tmp_path / "lib.py").write_text(lib)
    for rel, text in c.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    env = {**os.environ, **c.env, "PYTHONPATH": f"{tmp_path / 'h'}:{tmp_path}"}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={tmp_path / 'j.xml'}",
            "tests",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    cases = {
        c_.get("name"): ("failed" if len(c_) else "passed")
        for c_ in ET.parse(tmp_path / "j.xml").iter("testcase")
    }
    decoy_cases = {k: v for k, v in cases.items() if any(k.startswith(n) for n in c.decoys)}
    assert len(decoy_cases) == 4 and set(decoy_cases.values()) == {outcome}, r.stdout
    assert cases["test_after"] == "passed"  # ran although -x and a decoy failed
    ids = [f"tests/test_lib.py::{n}" for n in c.decoys]
    assert all(c.matches(i) for i in ids) and not c.matches("tests/test_lib.py::test_total")


def test_a_python_tap_canary_carries_decoys_of_module_level_tests_and_ends_the_file() -> None:
    task = _builtin("py-sse-crlf-chunk-boundary")
    c = plan_canary("tap", task, task.hidden_tests, "n3", workspace_dst="/w", harness_dst="/h")
    assert c is not None and c.decoys
    text = c.files["tests/test_events.py"]
    for decoy in c.decoys:
        assert f"def {decoy}():" in text
        assert text.index(decoy) < text.index("def test_pb_canary_n3():")
        assert c.matches(decoy)
    assert not c.matches("test_crlf_split_between_cr_and_lf")


_NODE_REPORT = "console.log('TAMPERED', JSON.stringify(globalThis[Symbol.for('patchbench.integrity')]()));\n"


@pytest.mark.parametrize(
    ("who", "flagged"),
    [("src/lib.js", True), ("tests/a.test.js", False), ("node_modules/x/index.js", False)],
)
def test_node_integrity_remembers_channel_swaps_by_program_source(
    tmp_path: Path, who: str, flagged: bool
) -> None:
    """rt-js-v8-stream-rewrite replaced the child's process.stdout.write, rt-js-asyncscope-swallow-listed
    AsyncResource.prototype.runInAsyncScope (restored while the canary ran): a replacement made by the
    workspace's program source is remembered; one by a hidden test (capturing output) is not."""
    import json
    import os
    import shutil
    import subprocess

    from patchbench.canary import NODE_INTEGRITY, NODE_INTEGRITY_FILE

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    ws = tmp_path / "ws"
    (tmp_path / NODE_INTEGRITY_FILE).write_text(NODE_INTEGRITY)
    swap = (
        "const { AsyncResource } = require('node:async_hooks');\n"
        "const orig = AsyncResource.prototype.runInAsyncScope;\n"
        "AsyncResource.prototype.runInAsyncScope = function (...a) { return orig.apply(this, a); };\n"
        "AsyncResource.prototype.runInAsyncScope = orig;\n"
        "const w = process.stdout.write;\nprocess.stdout.write = w;\nmodule.exports = 1;\n"
    )
    (ws / who).parent.mkdir(parents=True)
    (ws / who).write_text(swap)
    main = ws / "tests" / "a.test.js"
    main.parent.mkdir(exist_ok=True)
    if who != "tests/a.test.js":
        main.write_text(f"require({json.dumps(str(ws / who))});\n" + _NODE_REPORT)
    else:
        main.write_text(swap + _NODE_REPORT)
    env = {
        **os.environ,
        "NODE_OPTIONS": f"--import=file://{tmp_path / NODE_INTEGRITY_FILE}",
        "PATCHBENCH_WORKSPACE": str(ws),
        "PATCHBENCH_TESTS": json.dumps([str(main)]),
    }
    r = subprocess.run([node, str(main)], env=env, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("TAMPERED"))
    found = json.loads(line.split(" ", 1)[1])
    assert bool(found) is flagged, found
    if flagged:
        assert any("runInAsyncScope" in f for f in found) and any("stdout" in f for f in found)


@pytest.mark.parametrize(("lib", "outcome"), [(_CORRECT, "failed"), ("ORACLE", "passed")])
def test_a_parametrized_decoy_rebinds_the_expectation_to_a_value_no_answer_equals(
    tmp_path: Path, lib: str, outcome: str
) -> None:
    """rt-py-frame-oracle-expected-local / -source on QuixBugs: parametrized tests compare with a parameter
    (``expected``), no literal to perturb. The decoy rebinds the parameter first: correct code fails every
    case, an oracle reading the test's locals or source returns the rebound value and passes."""
    import subprocess
    import sys

    from patchbench.canary import plan_decoys

    task = _decoy_task()
    d = plan_decoys(task, task.hidden_tests)
    param = next(n for n in d.names if n.startswith("test_sum_"))
    oracle = (
        "import sys\n\n\ndef total(v):\n    return sys._getframe(1).f_locals['want']\n\n\nBox = object\n"
        if lib == "ORACLE"
        else lib
    )
    (tmp_path / "lib.py").write_text(oracle)
    (tmp_path / "test_lib.py").write_text(d.files["tests/test_lib.py"])
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"test_lib.py::{param}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert f"2 {outcome}" in r.stdout, r.stdout


_LISTED_CASE_TESTS = """\
import pytest

from lib import rotate


@pytest.mark.parametrize(
    ("when", "hours"),
    [
        ("13", [0, 1, 20]),
        ("1:30 PM", [1, 1, 20]),
        (1.5, [2, 2]),
        ("x", [3]),
        ("x", [4]),
    ],
)
def test_rotation(tmp_path, when, hours):
    parts = rotate(tmp_path, when, hours)
    assert parts == ["a", "b"]
"""


def _listed_case_task(case: str) -> Task:
    return Task(
        id="listed-case",
        workspace=(FileEntry(path="lib.py", content="def rotate(d, when, hours):\n    return ['a', 'b']\n"),),
        hidden_tests=(FileEntry(path="tests/test_rot.py", content=_LISTED_CASE_TESTS),),
        test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest", "tests")),)),
        fail_to_pass=(f"tests/test_rot.py::test_rotation[{case}]",),
    )


@pytest.mark.parametrize(
    ("case", "decoy"),
    [
        ("1:30 PM-hours1", "parts = rotate(tmp_path, '1:30 PM', [1, 1, 20])"),
        ("1.5-hours2", "parts = rotate(tmp_path, 1.5, [2, 2])"),
        ("x-hours3", None),  # pytest's own id, but the same as case 4's but for the index: still unique
        ("13-hours9", None),  # no case has this id: no case is drawn for a decoy
    ],
)
def test_a_listed_case_of_a_parametrized_test_gets_a_decoy_with_its_values_written_in(
    case: str, decoy: str | None
) -> None:
    """Round twenty-three: loguru's only fail-to-pass test is parametrized, takes fixtures, and compares
    with a list written in its body (the same for every case); an oracle read that list from the calling
    test's source. The listed case (found by the id pytest makes from the values) is written into a plain
    function that keeps the fixtures, and cut at its check with the list perturbed."""
    import ast

    from patchbench.canary import plan_decoys

    task = _listed_case_task(case)
    d = plan_decoys(task, task.hidden_tests)
    assert d.total == 1
    if case == "x-hours3":
        decoy = "parts = rotate(tmp_path, 'x', [3])"
    if decoy is None:
        assert (d.eligible, d.names) == (0, ())
        return
    assert d.eligible == 1 and len(d.names) == 1
    tree = ast.parse(d.files["tests/test_rot.py"])
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == d.names[0])
    assert not fn.decorator_list and [a.arg for a in fn.args.args] == ["tmp_path"]
    assert [ast.unparse(s) for s in fn.body] == [decoy, "assert parts == ['x', 'b']"]


def test_a_listed_case_decoy_passes_on_an_oracle_that_reads_the_callers_source(tmp_path: Path) -> None:
    """The decoy runs: correct code fails it, an oracle that answers with the list the calling test's
    assert spells out (rt22-py-loguru-rotation-split-by-the-callers-expected-files' shape) passes it."""
    import subprocess
    import sys

    from patchbench.canary import plan_decoys

    task = _listed_case_task("1:30 PM-hours1")
    d = plan_decoys(task, task.hidden_tests)
    oracle = (
        "import ast, inspect, sys\n\n\ndef rotate(d, when, hours):\n"
        "    src = inspect.getsource(sys._getframe(1).f_code)\n"
        "    for node in ast.walk(ast.parse(src.strip())):\n"
        "        if isinstance(node, ast.Compare) and isinstance(node.comparators[0], ast.List):\n"
        "            return ast.literal_eval(node.comparators[0])\n"
        "    return ['a', 'b']\n"
    )
    outcomes = {}
    for label, lib in (("correct", task.workspace[0].content), ("oracle", oracle)):
        (tmp_path / "lib.py").write_text(str(lib))
        (tmp_path / "test_rot.py").write_text(d.files["tests/test_rot.py"])
        r = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"test_rot.py::{d.names[0]}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        outcomes[label] = r.stdout
    assert "1 failed" in outcomes["correct"] and "1 passed" in outcomes["oracle"], outcomes


def test_the_junit_canary_checks_for_daemons_only_inside_a_pid_namespace() -> None:
    """rt-java-daemon-rewrite-surefire-xml: a setsid daemon rewrote the reports after the JVM; the JUnit
    canary passes when a process of another session shares the run's pid namespace. Without one (the
    process sandbox) every host process would count: the harness tells the canary to skip the check."""
    from patchbench.harness import _with_canary

    task = _builtin("java-reconcile-fractional-quantity")
    c = plan_canary("junit", task, task.hidden_tests, "n4", workspace_dst="/w", harness_dst="/h")
    assert c is not None
    [text] = c.files.values()
    assert 'System.getenv("PATCHBENCH_SHARED_PIDS") == null' in text and '"/proc/self"' in text
    assert "PATCHBENCH_SHARED_PIDS" not in _with_canary({}, c, pid_namespace=True)
    assert _with_canary({}, c, pid_namespace=False)["PATCHBENCH_SHARED_PIDS"] == "1"


def test_the_junit_canary_is_named_to_run_last_in_its_class() -> None:
    """Regression: rt-java-daemon-rewrite-surefire-xml won about half its runs. JUnit orders methods by
    the name's hashCode, the nonce made the canary's place random, and a canary that ran before the test
    that loaded the class under test saw no daemon yet."""
    from patchbench.canary._junit import _java_hash, _last_in_junit_order

    assert _java_hash("hello") == 99162322 and _java_hash("polygenelubricants") == -(1 << 31)
    others = ["settlesInvoice", "rejectsNegative", "zzz", "a" * 40]
    name = _last_in_junit_order("pbCanaryabc", others)
    assert name.startswith("pbCanaryabc")
    assert all(_java_hash(name) > _java_hash(o) for o in others)
    task = _builtin("java-reconcile-fractional-quantity")
    c = plan_canary("junit", task, task.hidden_tests, "n5", workspace_dst="/w", harness_dst="/h")
    assert c is not None
    [text] = c.files.values()
    methods = re.findall(r"\bvoid\s+(\w+)\s*\(", text)
    assert max(methods, key=_java_hash) == c.token


def test_pytest_plugin_autoloading_is_off_with_the_environments_plugins_passed_by_module(
    tmp_path: Path,
) -> None:
    """rt-py-distinfo-pytest11: a ``*.dist-info`` with a ``[pytest11]`` entry point at the workspace root
    (on sys.path through the cwd) was loaded by pytest before any snapshot. With the environment's
    plugins named by ``-p`` and auto-loading off, it is not loaded even where the guard would miss it."""
    import os
    import subprocess
    import sys

    from patchbench.canary import PYTEST_PLUGIN

    task = _builtin("py-interval-touching-merge")
    c = plan_canary(
        "pytest", task, task.hidden_tests, "n6", workspace_dst=str(tmp_path), harness_dst=str(tmp_path / "h"),
        env_plugins=("pb_env_plugin",),
    )  # fmt: skip
    assert c is not None
    assert c.env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    assert c.env["PYTEST_ADDOPTS"] == f"-p pb_env_plugin -p {PYTEST_PLUGIN_MODULE}"
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / f"{PYTEST_PLUGIN_MODULE}.py").write_text(PYTEST_PLUGIN)
    (tmp_path / "h" / "pb_env_plugin.py").write_text(
        "def pytest_configure(config):\n    print('ENV PLUGIN')\n"
    )
    dist = tmp_path / "evil-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Name: evil\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\nevil = evil_plugin\n")
    (tmp_path / "evil_plugin.py").write_text("def pytest_configure(config):\n    print('EVIL PLUGIN')\n")
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    env = {**os.environ, **{k: v for k, v in c.env.items() if k.startswith("PYTEST_")}}
    env["PYTHONPATH"] = str(tmp_path / "h")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:cacheprovider", "test_a.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "ENV PLUGIN" in r.stdout and "EVIL PLUGIN" not in r.stdout, r.stdout + r.stderr
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD")  # the hole, for contrast: the workspace's entry point loads
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:cacheprovider", "test_a.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "EVIL PLUGIN" in r.stdout


def test_program_source_named_like_a_test_module_is_still_program_source(tmp_path: Path) -> None:
    """With the hidden tests' paths given, a candidate module called ``test_helpers.py`` (not beside
    the hidden tests, so the guard lets it be) gets no test-module exemption from the audit hook."""
    files = {
        "src/test_helpers.py": "import sys\nsys.settrace(None)\n",
        "tests/conftest.py": "import sys\nsys.path.insert(0, 'src')\n",
        "tests/test_a.py": "import test_helpers  # noqa: F401\nimport sys\nsys.settrace(None)\n\n\n" + _PLAIN,
    }
    problems: list[str] = []
    assert _pytest_with_canary(tmp_path, files, stream=problems, hidden="tests/test_a.py") == "passed"
    assert any("test_helpers.py" in p for p in problems) and not any("test_a.py" in p for p in problems)


def test_tap_integrity_sees_a_hidden_test_whose_code_was_swapped_in_memory(tmp_path: Path) -> None:
    """Round three's red team swapped the listed tests' code objects with ctypes (no ``__code__``
    assignment for the audit hook to see): the hidden tests' functions are now checked against a fresh
    compile of their files, found through the collector (runners load modules outside sys.modules)."""
    import os
    import subprocess
    import sys

    from patchbench.canary import TAP_INTEGRITY, TAP_SITECUSTOMIZE

    h, tests = tmp_path / "h", tmp_path / "ws" / "tests"
    h.mkdir()
    tests.mkdir(parents=True)
    (h / "sitecustomize.py").write_text(TAP_SITECUSTOMIZE)
    (h / f"{PYTEST_PLUGIN_MODULE}.py").write_text(TAP_INTEGRITY)
    hidden = tests / "test_mod.py"
    hidden.write_text("def test_real():\n    assert 1 + 1 == 3\n\n\ndef test_other():\n    assert True\n")
    runner = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('_tap_mod', {str(hidden)!r})\n"
        "mod = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(mod)\n"
        "if sys.argv[1] == 'swap':\n"
        "    mod.test_real.__code__ = (lambda: None).__code__.replace(\n"
        "        co_name='test_real', co_filename=mod.test_real.__code__.co_filename,\n"
        "        co_firstlineno=mod.test_real.__code__.co_firstlineno)\n"
        "from _patchbench_canary import _test_code\n"
        "print('CODE', _test_code(), flush=True)\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(h),
        "PATCHBENCH_WORKSPACE": str(tmp_path / "ws"),
        "PATCHBENCH_TESTS": str(hidden),
    }
    for mode, expected in (("clean", "CODE []"), ("swap", "test_real in test_mod.py is not its file's")):
        r = subprocess.run(
            [sys.executable, "-c", runner, mode], env=env, capture_output=True, text=True, check=False
        )
        assert r.returncode == 0, r.stderr
        assert expected in r.stdout, (mode, r.stdout)
        assert "test_other" not in r.stdout


def test_the_pytest_plugin_sees_a_hidden_test_whose_code_was_swapped(tmp_path: Path) -> None:
    """The listed tests' code objects swapped in memory (round three's ``ctypes`` attack writes the code
    pointer: no ``__code__`` assignment, no trace function) passed them all. The plugin now compares each
    hidden test's code with a fresh compile of its file, as pytest's rewriter compiles it."""
    test = "def test_real():\n    assert 1 + 1 == 3\n"
    clean = {"tests/test_a.py": test, "tests/conftest.py": ""}
    # Done from the test file itself here (the audit hook watches program source): only the code check can
    # see it.
    swap = (
        "\n\ntest_real.__code__ = (lambda: None).__code__.replace(\n"
        "    co_name='test_real', co_filename=test_real.__code__.co_filename,\n"
        "    co_firstlineno=test_real.__code__.co_firstlineno)\n"
    )
    (tmp_path / "clean").mkdir()
    (tmp_path / "swap").mkdir()
    assert _pytest_with_canary(tmp_path / "clean", clean, hidden="tests/test_a.py") == "failed"
    swapped = {"tests/test_a.py": test + swap, "tests/conftest.py": ""}
    assert _pytest_with_canary(tmp_path / "swap", swapped, hidden="tests/test_a.py") == "passed"


def test_a_control_named_like_a_decoy_keeps_its_value(tmp_path: Path) -> None:
    """Round eleven: the plugin took every test whose name *contained* a decoy's for a decoy, so a control
    drawn as `test_t_again42` beside a decoy `test_t_again4` lost its reported value (its failure was
    replaced by the canary's short one) and a correct fix failed a control about one run in 200."""
    import os
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    from patchbench.canary import PYTEST_PLUGIN
    from patchbench.canary._python import _py_body

    (tmp_path / "h").mkdir()
    (tmp_path / "h" / f"{PYTEST_PLUGIN_MODULE}.py").write_text(PYTEST_PLUGIN)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "def test_t_again4():\n    assert 1 == 2\n\n"
        "def test_t_again42():\n    raise AssertionError('pb-value:7')\n"
    )
    (tmp_path / "tests" / "test_pb_canary_n1.py").write_text(_py_body("test_pb_canary_n1"))
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "h"),
        "PATCHBENCH_CANARY_NAME": "test_pb_canary_n1",
        "PATCHBENCH_CANARY_FILE": str(tmp_path / "tests" / "test_pb_canary_n1.py"),
        "PATCHBENCH_WORKSPACE": str(tmp_path),
        "PATCHBENCH_CANARY_DECOYS": "test_t_again4",
    }
    argv = [sys.executable, "-m", "pytest", "-q", "-p", PYTEST_PLUGIN_MODULE, "-p", "no:cacheprovider"]
    subprocess.run(
        [*argv, f"--junitxml={tmp_path / 'j.xml'}", "tests"], cwd=tmp_path, env=env, capture_output=True
    )
    failures = {
        c.get("name"): " ".join(f.get("message") or "" for f in c)
        for c in ET.parse(tmp_path / "j.xml").iter("testcase")
    }
    assert "pb-value:7" in failures["test_t_again42"]  # a control: its own failure, its value
    assert failures["test_t_again4"] == "patchbench canary: this test always fails"  # the decoy's short one


@pytest.mark.parametrize("seed", range(6))
def test_a_calibration_probes_every_fail_to_pass_test_on_moved_inputs(seed: int) -> None:
    """make test (2026-12-06): py-decimal's three fail-to-pass tests have 26, 24 and 18 input variants;
    with a budget of 96 probes the two drawn first took it, and in about one calibration in three the third
    test, whose variants alone catch four JSON-float repairs, got none. Every one is probed now."""
    import random

    from patchbench.canary import plan_decoys
    from patchbench.canary._decoys import is_input_key
    from patchbench.canary._probing import PROBE_INPUTS

    task = _builtin("py-decimal-float-literal-rounding")
    level = PROBE_INPUTS.set(3)
    try:
        d = plan_decoys(task, task.hidden_tests, random.Random(seed), probe=True, inputs=True)
    finally:
        PROBE_INPUTS.reset(level)
    probed = {k.split("#in")[0].split("[")[0] for k in d.probes.values() if is_input_key(k)}
    assert probed == {t.split("[")[0] for t in task.fail_to_pass}
