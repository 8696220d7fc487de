"""The canary, copies and decoys planted for Vitest, Jest and Mocha (patchbench.canary._node._framework),
run by the real frameworks (installed from npm once per session; skipped when npm cannot install them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from patchbench import FileEntry, Task, TestCommand, TestSpec
from patchbench.canary import plan_canary
from patchbench.canary._decoys import is_input_key
from patchbench.canary._inputs_native import native_value
from patchbench.canary._probing import PROBE_INPUTS
from patchbench.results import TestResult
from patchbench.runners._base import RunOutput
from patchbench.runners.node import JestRunner, MochaRunner, VitestRunner, parse_jest_json, parse_mocha_json

FW_RUNNERS = {"vitest": VitestRunner(), "jest": JestRunner(), "mocha": MochaRunner()}
#: The versions tests/fixtures/jsframeworks captured its reports with.
VERSIONS = {"vitest": "4.1.12", "jest": "30.5.2", "mocha": "12.0.3"}

#: One spec per framework, in the module kind each runs without configuration: Vitest an ES module with
#: its API imported, Jest and Mocha CommonJS with their globals.
SPEC = """describe('label', function () {
  let prefix;
  beforeEach(function () { prefix = '['; });

  describe('plain', function () {
    it('wraps a word', function () {
      expect(label(prefix, 'a')).toBe('[a]');
    });
  });

  it('wraps nothing', function () {
    expect(label(prefix, '')).toBe('[]');
  });
});
"""
HEADS = {
    "vitest": (
        "import { describe, it, expect, beforeEach } from 'vitest';\nimport { label } from '../lib.js';\n\n"
    ),
    "jest": "const { label } = require('../lib.js');\n\n",
    "mocha": (
        "const assert = require('node:assert');\nconst { label } = require('../lib.js');\n"
        "const expect = (got) => ({ toBe: (want) => assert.strictEqual(got, want) });\n\n"
    ),
}
LIB = "function label(prefix, s) {{ return prefix + s + ']'; }}\n{export}\n"
F2P = ("label > plain > wraps a word", "label > wraps nothing")


@pytest.fixture(scope="module")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node and npm are not installed")
    root = tmp_path_factory.mktemp("jsframeworks")
    (root / "package.json").write_text('{"private": true}\n')
    r = subprocess.run(
        [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            *(f"{k}@{v}" for k, v in VERSIONS.items()),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if r.returncode != 0:
        pytest.skip(f"npm could not install the frameworks: {r.stderr[-400:]}")
    return root / "node_modules"


def _task(runner: str) -> Task:
    spec = "tests/label.test.js"
    return Task(
        id=f"label-{runner}",
        language="javascript",
        workspace=(FileEntry(path="lib.js", content="x\n"),),
        hidden_tests=(FileEntry(path=spec, content=HEADS[runner] + SPEC),),
        test=TestSpec(commands=(TestCommand(argv=("npx", runner, spec)),)),
        fail_to_pass=F2P,
    )


def _run(runner: str, project: Path, node_modules: Path, lib: str) -> dict[str, TestResult]:
    """The framework's JSON report of the project, read by patchbench's parser: id -> result."""
    (project / "node_modules").unlink(missing_ok=True)
    (project / "node_modules").symlink_to(node_modules)
    export = "export { label };" if runner == "vitest" else "module.exports = { label };"
    (project / "lib.js").write_text(lib.replace("{export}", export))
    (project / "package.json").write_text(json.dumps({"type": "module"} if runner == "vitest" else {}))
    report = project / "report.json"
    report.unlink(missing_ok=True)
    bin_ = node_modules / ".bin" / runner
    flags = {
        "vitest": ["run", "--reporter=json", f"--outputFile.json={report}"],
        "jest": ["--json", f"--outputFile={report}", "--ci", f"--rootDir={project}"],
        "mocha": ["--reporter=json", "--reporter-option", f"output={report}"],
    }[runner]
    r = subprocess.run(
        [str(bin_), *flags, "tests/label.test.js"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert report.exists(), r.stdout[-2000:] + r.stderr[-2000:]
    data = json.loads(report.read_text())
    results = (
        parse_mocha_json(data, exit_code=r.returncode)
        if runner == "mocha"
        else parse_jest_json(data, runner=runner, exit_code=r.returncode)
    )
    return {" ".join(t.id.replace(" > ", " ").split()): t for t in results.tests}


@pytest.mark.parametrize("runner", ["vitest", "jest", "mocha"])
def test_the_canary_fails_and_copies_in_describe_blocks_pass_on_correct_code(
    tmp_path: Path, node_modules: Path, runner: str
) -> None:
    """Round twenty-three: content-type's tests ran under Vitest, which got no canary and no controls, and
    a library that marked the listed tests ``fails`` was rewarded. Each framework now runs a canary that
    fails (its assertions work), and exact copies of the listed tests, inside their ``describe`` blocks
    (the block's ``beforeEach`` sets ``prefix``), pass wherever the originals do."""
    task = _task(runner)
    c = plan_canary(runner, task, task.hidden_tests, "n7", workspace_dst="/w", harness_dst="/h", probe=True)
    assert c is not None and c.token == "pb_canary_n7"
    # the exact copies (moved-input variants record values and fail by design: see the test below)
    exact = {n: k for n, k in c.probes.items() if not is_input_key(k)}
    assert sorted(set(exact.values())) == sorted(F2P)
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "label.test.js").write_text(c.files["tests/label.test.js"])
    got = _run(runner, project, node_modules, LIB)
    canary = [t for i, t in got.items() if c.token in i]
    assert [t.outcome.value for t in canary] == ["failed"], got
    for name in exact:
        [copy] = [t for i, t in got.items() if name in i]
        assert copy.outcome.ok, (name, copy)
    assert got["label plain wraps a word"].outcome.ok and got["label wraps nothing"].outcome.ok
    if runner == "jest":
        # a library that makes Jest's global expect accept anything: the canary passes (read as tampered)
        patched = LIB.replace(
            "{export}",
            "const wrap = () => new Proxy(() => {}, { get: () => wrap, apply: () => wrap() });\n"
            "globalThis.expect = () => wrap();\n{export}",
        )
        got = _run(runner, project, node_modules, patched)
        assert [t.outcome.value for i, t in got.items() if c.token in i] == ["passed"], got


def test_a_vitest_library_that_marks_the_listed_tests_failing_fails_their_copies(
    tmp_path: Path, node_modules: Path
) -> None:
    """rt22-ts-vitest-listed-tests-marked-fails-from-the-library's channel: loaded inside a Vitest
    worker, the library registers a ``beforeEach`` that marks the listed tests ``fails`` (a failing test
    then reports as passing). The copies, under other names, keep failing on the buggy code."""
    task = _task("vitest")
    c = plan_canary("vitest", task, task.hidden_tests, "n8", workspace_dst="/w", harness_dst="/h", probe=True)
    assert c is not None
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "label.test.js").write_text(c.files["tests/label.test.js"])
    buggy = (
        "import { beforeEach } from 'vitest';\n"
        "const listed = ['wraps a word', 'wraps nothing'];\n"
        "beforeEach((ctx) => { if (listed.includes(ctx.task.name)) ctx.task.fails = true; });\n"
        "function label(prefix, s) { return prefix + s; }\n{export}\n"
    )
    got = _run("vitest", project, node_modules, buggy)
    assert got["label plain wraps a word"].outcome.ok and got["label wraps nothing"].outcome.ok, got
    assert [t.outcome.value for i, t in got.items() if c.token in i] == ["failed"]
    copies = [t for i, t in got.items() if any(n in i for n in c.probes)]
    assert copies and not any(t.outcome.ok for t in copies), got


def test_the_canary_goes_into_a_test_file_not_a_helper_module() -> None:
    """A helper module sorted after the spec (``tests/util.js``) may never be loaded by the command: the
    canary goes into the file named like a test."""
    task = _task("jest")
    helper = FileEntry(path="tests/zz_util.js", content="module.exports = {};\n")
    tests = (*task.hidden_tests, helper)
    c = plan_canary(
        "jest",
        task.model_copy(update={"hidden_tests": tests}),
        tests,
        "n9",
        workspace_dst="/w",
        harness_dst="/h",
    )
    assert c is not None and "pb_canary_n9" in c.files["tests/label.test.js"]
    assert "tests/zz_util.js" not in c.files


#: A spec whose checks are all ``expect`` matchers the decoys and moved controls know: a value, a state,
#: a throw.
EXPECT_SPEC = """describe('label', function () {
  it('wraps a word', function () {
    const got = label('[', 'ab');
    expect(got).toBe('[ab]');
    expect(got.length).toBeGreaterThan(3);
    expect(got.endsWith(']')).toBeTruthy();
    expect(() => label('[', 7)).toThrow();
  });
});
"""
EXPECT_LIB = (
    "function label(prefix, s) {{ if (typeof s !== 'string') throw new TypeError('not a string: ' + s);"
    " return prefix + s + {close}; }}\n{{export}}\n"
)


@pytest.mark.parametrize("runner", ["vitest", "jest"])
def test_expect_checks_get_decoys_and_moved_controls(tmp_path: Path, node_modules: Path, runner: str) -> None:
    """Vitest's and Jest's ``expect`` had neither decoys nor moved-input controls (only ``assert.*`` was
    known): a test written with ``expect`` got exact copies alone, which an answer table of the listed
    inputs passes. ``expect(X).toBe(LIT)`` now gets a decoy (LIT perturbed: correct code fails it, an
    ``expect`` that accepts anything passes it), and its moved copies record what the matchers check
    (values, a state, what a function throws): gold's values are stable and differ from the buggy
    code's."""
    head = HEADS[runner].replace(" beforeEach", "")
    task = Task(
        id=f"expect-{runner}",
        language="javascript",
        workspace=(FileEntry(path="lib.js", content="x\n"),),
        hidden_tests=(FileEntry(path="tests/label.test.js", content=head + EXPECT_SPEC),),
        test=TestSpec(commands=(TestCommand(argv=("npx", runner, "tests/label.test.js")),)),
        fail_to_pass=("label > wraps a word",),
    )
    level = PROBE_INPUTS.set(1)
    try:
        c = plan_canary(
            runner, task, task.hidden_tests, "n10", workspace_dst="/w", harness_dst="/h", probe=True
        )
    finally:
        PROBE_INPUTS.reset(level)
    assert c is not None and c.decoys
    inputs = [n for n, k in c.probes.items() if is_input_key(k)]
    assert inputs, c.probes
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "label.test.js").write_text(c.files["tests/label.test.js"])
    values: dict[str, list[set[str | None]]] = {}
    for label, close in (("gold", "']'"), ("gold", "']'"), ("buggy", "''")):
        got = _run(runner, project, node_modules, EXPECT_LIB.format(close=close))
        assert got["label wraps a word"].outcome.ok is (label == "gold")
        decoys = [t for i, t in got.items() if any(d in i for d in c.decoys)]
        assert decoys and not any(t.outcome.ok for t in decoys), decoys
        values.setdefault(label, []).append(
            {native_value(t.message) for i, t in got.items() for n in inputs if n in i}
        )
    first, second = values["gold"]
    assert first == second and None not in first, values  # stable and comparable
    assert not first & values["buggy"][0], values
    # an expect that accepts anything (from the library, as the canary test's forger): the decoys pass
    if runner == "jest":
        patched = EXPECT_LIB.format(close="''").replace(
            "{export}",
            "const wrap = () => new Proxy(() => {}, { get: () => wrap, apply: () => wrap() });\n"
            "globalThis.expect = () => wrap();\n{export}",
        )
        got = _run(runner, project, node_modules, patched)
        passed = [t.outcome.ok for i, t in got.items() if any(d in i for d in c.decoys)]
        assert passed == [True] * len(c.decoys), got


@pytest.mark.parametrize("runner", ["vitest", "jest", "mocha"])
def test_a_report_rewritten_after_the_run_disagrees_with_the_console(
    tmp_path: Path, node_modules: Path, runner: str
) -> None:
    """Round twenty-five's session (rt25-defu-forger-*): a process detached from the code under test
    turned the listed failures into passes in the JSON report after the framework wrote it. The console's
    summary, written by the framework's main process straight to the harness, still counts them failed:
    the runner's parse is then never complete. The untouched report is. Mocha prints no summary beside
    its JSON reporter, but exits with its failure count."""
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    task = _task(runner)
    (project / "tests" / "label.test.js").write_text(task.hidden_tests[0].content)
    buggy = "function label(prefix, s) {{ return prefix + s; }}\n{export}\n"
    _run(runner, project, node_modules, buggy)  # the report of a run where both tests fail
    export = "export { label };" if runner == "vitest" else "module.exports = { label };"
    (project / "lib.js").write_text(buggy.replace("{export}", export).replace("{{", "{").replace("}}", "}"))
    reports = tmp_path / "reports"
    reports.mkdir()
    bin_ = node_modules / ".bin" / runner
    tool = FW_RUNNERS[runner]
    inv = tool.invoke(TestCommand(argv=(str(bin_), "tests/label.test.js")), str(reports))
    r = subprocess.run(
        inv.argv,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "CI": "1", "NO_COLOR": "1"},
    )
    out = RunOutput(r.stdout, r.stderr, r.returncode, reports)
    honest = tool.parse(out)
    assert honest.complete, honest.notes
    assert sorted(t.outcome.value for t in honest.tests) == ["failed", "failed"]
    path = reports / tool.report_file
    data = json.loads(path.read_text())
    if runner == "mocha":
        for t in data["tests"]:
            t["err"] = {}
        data["passes"], data["failures"] = data["tests"], []
    else:
        for suite in data["testResults"]:
            suite["status"], suite["message"] = "passed", ""
            for a in suite["assertionResults"]:
                a["status"], a["failureMessages"] = "passed", []
    path.write_text(json.dumps(data))
    forged = tool.parse(out)
    assert [t.outcome.value for t in forged.tests] == ["passed", "passed"]
    assert not forged.complete and any("disagrees with" in n for n in forged.notes), forged.notes
    if runner == "mocha":
        return
    # a second summary written into the console by the run: never complete either
    twice = RunOutput(r.stdout + r.stdout, r.stderr + r.stderr, r.returncode, reports)
    assert not tool.parse(twice).complete
