"""Control tests: copies of fail-to-pass tests that the gold patch passes (patchbench.canary, harness).

A decoy (a perturbed expectation) fails on correct code; code that answers the listed tests only, and runs
the buggy code for anything else, fails it too, so a decoy cannot see it. A control is the other half: an
exact copy of a fail-to-pass test under a drawn name, which correct code passes and such code fails.
"""

from __future__ import annotations

import ast
import copy as copy_module
import json
import random
from pathlib import Path
from typing import Any

import pytest

import patchbench as pb
from patchbench import FileEntry, Task, TestCommand, TestSpec
from patchbench.canary import Canary, control_passed, learn_controls, plan_canary, plan_decoys
from patchbench.canary._decoys import MAX_COPIES, MAX_PROBES, ZONED, _split_checks, is_input_key
from patchbench.canary._decoys_native import _GO_RECOVER
from patchbench.results import Outcome, TestResult


def _builtin(task_id: str) -> Task:
    return next(t for t in pb.load("builtin").tasks if t.id == task_id)


def _functions(text: str) -> dict[str, ast.FunctionDef]:
    out: dict[str, ast.FunctionDef] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
    return out


def test_probes_copy_every_fail_to_pass_function_and_controls_copy_the_calibrated_ones() -> None:
    task = _builtin("py-interval-touching-merge")
    probe = plan_decoys(task, task.hidden_tests, random.Random(1), probe=True)  # type: ignore[arg-type]
    keys = set(probe.probes.values())
    assert len(keys) == min(MAX_PROBES, len(task.fail_to_pass))
    assert all(k.startswith("tests/test_freebusy.py::") for k in keys)
    d = plan_decoys(task, task.hidden_tests, random.Random(2), controls=sorted(keys))  # type: ignore[arg-type]
    assert len(d.controls) == MAX_COPIES and not set(d.controls) & set(d.names)
    fns = _functions(d.files["tests/test_freebusy.py"])
    for copy in d.controls:
        base = next(k.split("::")[-1] for k in keys if copy.startswith(k.split("::")[-1] + "_"))
        # the same test under another name (decorators included), each top-level `assert A == B` split
        # into `v = A` and `assert v == B`: the same checks, in a body unlike the original's (round five's
        # body oracles answered verbatim copies)
        a, b = fns[base], fns[copy]
        assert [ast.dump(x) for x in a.decorator_list] == [ast.dump(x) for x in b.decorator_list]
        assert [ast.dump(s) for s in a.body] != [ast.dump(s) for s in b.body]
        var = next(
            t.id
            for st in b.body
            if isinstance(st, ast.Assign)
            for t in st.targets
            if isinstance(t, ast.Name) and t.id.startswith("_pb_seen")
        )
        expected = _split_checks(copy_module.deepcopy(a), var)
        assert [ast.dump(s) for s in expected.body] == [ast.dump(s) for s in b.body]


def test_nothing_but_calibrated_keys_is_copied() -> None:
    task = _builtin("py-interval-touching-merge")
    d = plan_decoys(task, task.hidden_tests, controls=["tests/test_freebusy.py::no_such_test"])
    assert d.controls == ()


def test_a_control_id_is_matched_as_a_whole_name_not_as_a_prefix() -> None:
    c = Canary(token="pb_canary_x", decoys=("test_a_again4",), controls=("test_a_again42",))
    assert c.control_of("tests/t.py::test_a_again42") == "test_a_again42"
    assert c.control_of("tests/t.py::test_a_again42[1-2]") == "test_a_again42"
    assert c.control_of("tests/t.py::test_a_again4") is None
    assert c.matches("tests/t.py::test_a_again4") and c.matches("tests/t.py::TestX::test_a_again42")
    assert not c.matches("tests/t.py::test_a_again423") and not c.matches("tests/t.py::test_a")


def _stateful_task() -> Task:
    """Two fail-to-pass tests; one counts how often it ran (module state): its copy fails on gold."""
    tests = (
        "from calc import add\n\nRUNS = []\n\n\n"
        "def test_once():\n    RUNS.append(1)\n    assert add(1, 1) == 2 and len(RUNS) == 1\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n"
    )
    return Task(
        id="stateful",
        workspace=(FileEntry(path="calc.py", content="def add(a, b):\n    return a - b\n"),),
        hidden_tests=(FileEntry(path="tests/test_calc.py", content=tests),),
        test=TestSpec(
            commands=(TestCommand(argv=("python", "-m", "pytest", "-q", "tests")),), time_limit_s=60
        ),
        fail_to_pass=("tests/test_calc.py::test_once", "tests/test_calc.py::test_add"),
        gold_patch="--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n"
        "+    return a + b\n",
    )


@pytest.mark.slow
def test_calibration_keeps_only_copies_the_gold_patch_passes(tmp_path: Path) -> None:
    """A test that may run once (module state) has no control: its copy fails on gold, so the
    calibration leaves it out, and gold still resolves with the other one planted."""
    import json

    task = _stateful_task()
    gold = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path)
    assert gold.status is pb.Status.RESOLVED, gold.reason
    [record] = (tmp_path / "canary").glob("controls-*.json")
    # test_add: its copy, and its check on moved inputs (every int up by the secret shift, the even, odd
    # and all ints scaled; add(3, 3), add(2, 4): gold 6, the buggy code other)
    learnt = set(json.loads(record.read_text())["controls"])
    add = "tests/test_calc.py::test_add"
    # (#in5, add(2, 4), was once not learnt in a loaded run: its probe was drawn a name holding a decoy's,
    # `..._again42` beside `..._again4`, and the plugin took it for one; names are matched whole now)
    # 36: wide, add(2000002, ..); 41: many, the checked call made past eight thousand times (round fifteen);
    # 49: computed, wide's integers written int('..') (round sixteen); 51: aged, 52: twinned, 43: off main,
    # 55: forked, 57: zoned (structural)
    assert learnt == {
        add,
        *(f"{add}#in{j}" for j in (2, 4, 5, 12, 14, 15, 36, 41, 43, 49, 51, 52, 55, ZONED)),
    }
    # the copy and thirteen input controls (many, off main, aged, twinned, forked and zoned, which are
    # structural, one of each several-literal kind, one moving a single literal: pick_inputs)
    assert "control tests: 14 planted, all passed" in gold.notes
    assert (gold.controls, gold.decoys) == (14, 1)  # the verdict says what was planted
    # code that answers the listed tests only (by the test's name) fails the copy
    listed_only = (
        "import sys\n\n\ndef add(a, b):\n"
        "    caller = sys._getframe(1).f_code.co_name\n"
        "    return a + b if caller in ('test_once', 'test_add') else a - b\n"
    )
    v = pb.run(task, pb.Candidate.files({"calc.py": listed_only}), cache_dir=tmp_path)
    assert v.status is pb.Status.UNRESOLVED and v.reward == 0
    assert "control tests failed while every listed test passed" in v.reason
    assert not any("test_add_" in t.id for t in v.tests)  # graded apart, like the canary


def test_the_pytest_canary_carries_the_controls_it_was_given() -> None:
    task = _builtin("py-decimal-float-literal-rounding")
    keys = sorted({f"tests/test_prorata.py::{n.split('::', 1)[1].split('[')[0]}" for n in task.fail_to_pass})
    c = plan_canary(
        "pytest",
        task,
        task.hidden_tests,
        "n9",
        workspace_dst="/w",
        harness_dst="/h",
        controls={k: {} for k in keys},
    )
    assert c is not None and len(c.controls) == MAX_COPIES
    text = c.files["tests/test_prorata.py"]
    assert all(f"def {n}(" in text for n in c.controls)


_NATIVE = {
    "go": ("go-logger-derived-fields-clobbered", "go"),
    "rust": ("rs-feed-scrollback-short-page", "rust"),
    "java": ("java-reconcile-fractional-quantity", "java"),
    "javascript": ("js-lru-numeric-key-eviction", "javascript"),
}


@pytest.mark.parametrize("language", sorted(_NATIVE))
def test_native_copies_are_the_original_test_under_a_drawn_name(language: str) -> None:
    from patchbench.canary._decoys_native import plan_native_decoys

    task_id, lang = _NATIVE[language]
    task = _builtin(task_id)
    d = plan_native_decoys(lang, task, task.hidden_tests, random.Random(3), probe=True)  # type: ignore[arg-type]
    exact = {n: k for n, k in d.probes.items() if not is_input_key(k)}  # the input variants: see below
    assert exact and len(exact) == min(MAX_PROBES, len(set(exact.values())))
    originals = "\n".join(f.content for f in task.hidden_tests)
    for name, key in exact.items():
        text = next(t for t in d.files.values() if name in t)
        assert name not in originals
        # the copy's text, its name put back, is the original's text (a block of the planted file)
        base = key.rsplit("#", 1)[-1].rsplit("::", 1)[-1]
        start = text.index(name)
        line_start = text.rfind("\n", 0, start) + 1
        if language == "rust":  # the copy starts at its #[test] attribute, one line up
            line_start = text.rfind("\n", 0, line_start - 1) + 1
        # (a Go copy's first statement recovers its own panic: see _decoys_native._GO_RECOVER)
        copy = text[line_start:].replace(_GO_RECOVER.format(t="t"), "", 1)
        assert copy.replace(name, base, 1)[:200].strip() in originals
    keyed = plan_native_decoys(
        lang, task, task.hidden_tests, random.Random(4), controls=sorted(set(exact.values()))
    )  # type: ignore[arg-type]
    assert len(keyed.controls) == min(MAX_COPIES, len(set(exact.values())))
    assert set(keyed.control_keys) == set(keyed.controls) and not set(keyed.controls) & set(keyed.names)


# (that gold resolves with every native task's controls planted, and the verdict says how many were:
# tests/canary/test_inputs_native.py::test_variants_build_and_gold_values_are_learnt, on the same tasks)


def test_a_junit_copy_is_planted_even_when_no_name_sorts_last() -> None:
    """JUnit orders a class's methods by name hash, and a decoy must sort after them; with a long shared
    prefix no ``<base><Word><n>`` may (semver4j: no decoy, and before this no control either). A copy passes
    on gold wherever it runs (the calibration checks it), so it takes any fresh name then."""
    from patchbench.canary._decoys_native import _java_hash, plan_native_decoys

    rng = random.Random(0)
    names = ("m" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8)) for _ in range(10**5))
    high = next(n for n in names if _java_hash(n) > (1 << 31) - (1 << 26))  # the top 1/64 of the range
    test = (
        "package p;\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\n"
        "class ATest {\n"
        f"    @Test\n    void {high}() {{ assertEquals(1, 1); }}\n"
        "    @Test\n    void shouldTreatParsedVersionsAsEqual() {\n"
        "        assertEquals(2, A.two());\n    }\n}\n"
    )
    task = Task(
        id="j",
        language="java",
        workspace=(
            FileEntry(
                path="src/main/java/p/A.java",
                content="package p;\nclass A { static int two() { return 1; } }\n",
            ),
        ),
        hidden_tests=(FileEntry(path="src/test/java/p/ATest.java", content=test),),
        test=TestSpec(commands=(TestCommand(argv=("mvn", "test")),)),
        fail_to_pass=("p.ATest#shouldTreatParsedVersionsAsEqual",),
    )
    d = plan_native_decoys("java", task, task.hidden_tests, random.Random(5), probe=True)  # type: ignore[arg-type]
    [name] = [n for n, k in d.probes.items() if not is_input_key(k)]
    assert name.startswith("shouldTreatParsedVersionsAsEqual") and d.names == ()  # no decoy: none sorts last


def _result(test_id: str, ok: bool, message: str | None = None) -> TestResult:
    return TestResult(id=test_id, outcome=Outcome.PASSED if ok else Outcome.FAILED, message=message)


def test_learn_controls_keeps_the_cases_gold_passes_and_only_the_listed_ones_when_listed_by_case() -> None:
    task = _stateful_task().model_copy(
        update={"fail_to_pass": ("tests/t.py::test_p[a]", "tests/t.py::test_p[b]", "tests/t.py::test_q")}
    )
    gold = {
        "tests/t.py::test_p": [
            _result("tests/t.py::test_p_again4[a]", True),
            _result("tests/t.py::test_p_again4[b]", True),
            _result("tests/t.py::test_p_again4[c]", True),  # passes, but not a listed case
        ],
        "tests/t.py::test_q": [_result("tests/t.py::test_q_edge7", False)],  # fails on gold: no control
    }
    learnt = learn_controls(task, gold)
    assert learnt == {"tests/t.py::test_p": {"informative": True, "params": ["[a]", "[b]"]}}
    control = learnt["tests/t.py::test_p"]
    ran = [_result("x::test_p_more9[a]", True), _result("x::test_p_more9[b]", True)]
    assert control_passed(ran, control)
    assert control_passed([*ran, _result("x::test_p_more9[c]", False)], control)  # an unkept case
    assert not control_passed(ran[:1], control)  # a kept case missing
    assert not control_passed([ran[0], _result("x::test_p_more9[b]", False)], control)
    assert not control_passed([], None)


def test_learn_controls_for_sql_reads_gold_rows_and_compares_the_buggy_ones() -> None:
    task = next(t for t in pb.load("builtin").tasks if t.language == "sql")
    name = task.fail_to_pass[0]
    diag = 'expected 0 rows, got 1\n---\nactual:\n  - [1, "a"]\n...'
    gold = {
        f"{name}#drop1.0": [_result("p0", False, diag)],
        f"{name}#drop1.1": [_result("p1", True)],  # no rows on gold: a lookup returns none either
        f"{name}#rev": [_result("p2", False, diag)],
    }
    buggy = {f"{name}#drop1.0": [_result("p0", False, diag)], f"{name}#rev": [_result("p2", True)]}
    learnt = learn_controls(task, gold, buggy, sql=True)
    assert set(learnt) == {f"{name}#drop1.0", f"{name}#rev"}
    assert learnt[f"{name}#drop1.0"] == {"rows": [[1, "a"]], "informative": False, "differs": True}
    assert learnt[f"{name}#rev"]["informative"] is True  # the buggy code returned no rows there


@pytest.mark.slow
def test_a_gold_patch_that_does_not_resolve_is_not_learnt_for_good(tmp_path: Path) -> None:
    """A calibration whose gold patch does not resolve with or without the probes (a broken or flaky task,
    a loaded machine) plants no controls and caches nothing: the next run tries again. Before, it was
    cached as "no controls" for good."""
    task = _stateful_task().model_copy(
        update={
            "gold_patch": "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
            "-    return a - b\n+    return a * b\n"
        }
    )
    v = pb.run(task, pb.Candidate.empty(), cache_dir=tmp_path)
    assert v.status is pb.Status.UNRESOLVED and v.controls == 0
    assert v.canary == "failed"  # the canary is planted as ever
    assert list((tmp_path / "canary").glob("controls-*.json")) == []


@pytest.mark.slow
def test_a_calibration_timed_out_by_load_leaves_no_resolved_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a gold calibration that a loaded machine timed out planted no controls, and the run was
    graded without them, so a partial repair the controls catch was resolved (the battery under load).
    Now a run that resolves without its controls is an infrastructure error; one that does not resolve
    stays unresolved; nothing is cached, and the next run calibrates again."""
    from patchbench import harness

    real = harness._probe_run

    def timed_out(*args: object, **kwargs: object) -> pb.Verdict:
        v = real(*args, **kwargs)  # type: ignore[arg-type]
        return v.model_copy(update={"status": pb.Status.TIMEOUT, "reason": "time limit (60 s) reached"})

    task = _stateful_task()
    monkeypatch.setattr(harness, "_probe_run", timed_out)
    gold = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path)
    assert gold.status is pb.Status.INFRA_ERROR and gold.reward == 0
    assert "could not be calibrated" in gold.reason and "timeout" in gold.reason
    assert pb.run(task, pb.Candidate.empty(), cache_dir=tmp_path).status is pb.Status.UNRESOLVED
    assert list((tmp_path / "canary").glob("controls-*.json")) == []
    monkeypatch.undo()
    again = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path)
    assert again.status is pb.Status.RESOLVED and again.controls >= 1, again.reason


@pytest.mark.slow
def test_buggy_code_that_hangs_does_not_stop_the_calibration(tmp_path: Path) -> None:
    """The calibration runs the buggy code too (is a variant informative?). Buggy code that hangs times
    out there; before, that discarded the whole calibration, uncached, so every run calibrated again and
    planted no control. Now what it reported counts (nothing: every variant is informative)."""
    task = _stateful_task().model_copy(
        update={
            "workspace": (
                FileEntry(path="calc.py", content="def add(a, b):\n    while True:\n        pass\n"),
            ),
            "gold_patch": "--- a/calc.py\n+++ b/calc.py\n@@ -1,3 +1,2 @@\n def add(a, b):\n"
            "-    while True:\n-        pass\n+    return a + b\n",
            "test": TestSpec(
                commands=(TestCommand(argv=("python", "-m", "pytest", "-q", "tests")),), time_limit_s=8
            ),
        }
    )
    gold = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path)
    assert gold.status is pb.Status.RESOLVED, gold.reason
    [record] = (tmp_path / "canary").glob("controls-*.json")
    import json

    learnt = json.loads(record.read_text())["controls"]
    assert any(is_input_key(k) for k in learnt) and gold.controls >= 2


def test_an_input_probe_moves_one_literal_argument_and_reports_the_value() -> None:
    import ast as _ast

    from patchbench.canary._decoys import _input_control, reported_value

    fn = _ast.parse("def test_x():\n    lot = 1\n    assert cents(cost(Lot('a', 2, 1001))) == 501\n").body[0]
    assert isinstance(fn, _ast.FunctionDef)
    # variants: 1 every string moved, 2 every int three up, 3 every string without digits (absent here:
    # the same as 1), from 4 one literal each (the checked call's first, then the statements before it,
    # the nearest first)
    assert _input_control(fn, "n", which=3) is None
    probe = _input_control(fn, "test_x_again5", which=5)
    assert probe is not None
    text = _ast.unparse(probe)
    assert "Lot('a', 3, 1001)" in text and "pb-value:" in text and "lot = 1" in text
    last = _input_control(fn, "n", which=6)
    assert last is not None and "Lot('a', 2, 1002)" in _ast.unparse(last)
    assert _input_control(fn, "n", which=7) is None  # three single moves at most (MAX_MOVES): not `lot`
    every_int = _input_control(fn, "n", which=2)
    assert every_int is not None and "Lot('a', 5, 1004)" in _ast.unparse(every_int)
    assert "lot = 4" in _ast.unparse(every_int)
    every_string = _input_control(fn, "n", which=1)
    assert every_string is not None and "Lot('ax', 2, 1001)" in _ast.unparse(every_string)
    # the value is read back only when written out exactly
    assert (
        reported_value("AssertionError: pb-value:[334, 'a\\nb', (1, None)]\nassert False")
        == "[334, 'a\\nb', (1, None)]"
    )
    assert reported_value("AssertionError: pb-value:0.1") is None  # a float: a correct fix may differ
    # a value that is not a literal: its repr, when the probe found it evaluates back to an equal value
    assert reported_value("AssertionError: pb-value:Decimal('1.045')") == "Decimal('1.045')"
    assert reported_value("AssertionError: pb-value:?Decimal('1.045')") is None  # did not evaluate equal
    assert reported_value("AssertionError: pb-value:Block(start=1.5)") is None  # a float inside
    assert reported_value("AssertionError: pb-value:<Block object at 0x7f00>") is None
    assert reported_value("pb-value:[1, 2, …") is None and reported_value(None) is None


def test_a_control_on_moved_inputs_passes_when_it_reports_gold_value() -> None:
    """The control is planted as its probe (it always fails, reporting its value): the host compares, so
    gold's value is never written where an oracle reading the control's source could find it."""
    learnt = {"informative": True, "expect": "{'a', 'b'}"}

    def ran(message: str, ok: bool = False) -> list[TestResult]:
        return [_result("x::test_p_more9", ok, message)]

    assert control_passed(ran("AssertionError: pb-value:{'a', 'b'}"), learnt)
    assert control_passed(
        ran("AssertionError: pb-value:{'b', 'a'}"), learnt
    )  # a set's order is no difference
    assert not control_passed(ran("AssertionError: pb-value:{'a'}"), learnt)
    assert not control_passed(ran("AssertionError: pb-value:{'a', 'b'}", ok=True), learnt)  # a forged pass
    assert not control_passed(ran("AssertionError: something else"), learnt)
    assert not control_passed([], learnt)
    digest = {"informative": True, "expect": "0123456789abcdef"}
    assert control_passed(ran("x.go:3: pb-value:0123456789abcdef|[...]:pb-end"), digest)
    assert not control_passed(ran("x.go:3: pb-value:0123456789abcdee|[...]:pb-end"), digest)


def test_learn_controls_keeps_an_input_probe_only_when_stable_informative_and_new() -> None:
    task = _builtin("patchbench-python-synthetic-0001")
    key = "tests/test_costing.py::test_unit_cost_half_cent_rounds_up#in"

    def probe(value: str) -> TestResult:
        return _result("x", False, f"AssertionError: pb-value:{value}")

    assert learn_controls(task, {f"{key}1": [probe("334"), probe("334")]}, {f"{key}1": [probe("333")]}) == {
        f"{key}1": {"informative": True, "expect": "334"}
    }
    assert learn_controls(task, {f"{key}1": [probe("334"), probe("335")]}, {}) == {}  # not stable
    assert learn_controls(task, {f"{key}1": [probe("334"), probe("334")]}, {f"{key}1": [probe("334")]}) == {}
    # the moved input did not change the answer (the test's own expectation): it did not matter
    assert learn_controls(task, {f"{key}0": [probe("501"), probe("501")]}, {f"{key}0": [probe("500")]}) == {}
    # a probe that took a second runs that long in every run: not kept (round twelve), beside probes of a
    # few milliseconds
    slow = probe("334").model_copy(update={"duration_s": 1.5})
    fast = probe("7").model_copy(update={"duration_s": 0.01})
    others = {f"{key}{j}": [fast, fast] for j in (2, 3, 4)}
    assert f"{key}1" not in learn_controls(
        task, {f"{key}1": [slow, slow], **others}, {f"{key}1": [probe("333")]}
    )
    # one copy of the two slow is a loaded machine, not the probe: kept
    assert learn_controls(task, {f"{key}1": [probe("334"), slow]}, {f"{key}1": [probe("333")]}) == {
        f"{key}1": {"informative": True, "expect": "334"}
    }
    # every probe that slow is a loaded machine too (round twenty's session: four xdist workers on two cores
    # dropped py-decimal's catching controls from the record): kept
    loaded = {f"{key}{j}": [fast.model_copy(update={"duration_s": 0.6})] * 2 for j in (2, 3, 4)}
    learnt = learn_controls(task, {f"{key}1": [slow, slow], **loaded}, {f"{key}1": [probe("333")]})
    assert learnt[f"{key}1"] == {"informative": True, "expect": "334"}


def test_an_input_probe_moves_module_constants_by_a_local_and_reads_helper_checks() -> None:
    """Round six (rt5-py-word-table-where-nothing-moves): the checks went through ``check(X == E, msg)``
    and read their inputs from module constants, so nothing was moved and a word table passed."""
    import ast as _ast

    from patchbench.canary._decoys import _input_control, _module_constants

    tree = _ast.parse(
        'WORD = "Re\\u0301sume\\u0301"\nN = 3\nTWICE = 1\nTWICE = 2\n\n\n'
        "def check(c, m):\n    assert c, m\n\n\n"
        'def test_x():\n    check(fold(WORD, N, TWICE) == "resume", "msg")\n'
    )
    consts = _module_constants(tree)
    assert consts == {"WORD": "Re\u0301sume\u0301", "N": 3}  # assigned twice: not a constant
    fn = tree.body[-1]
    assert isinstance(fn, _ast.FunctionDef)
    every_string = _input_control(fn, "t", 1, consts)
    assert every_string is not None
    text = _ast.unparse(every_string)
    moved_word = "Re\u0301sume\u0301x"
    assert f"WORD = {moved_word!r}" in text and "_pb_value = fold(WORD, N, TWICE)" in text
    every_int = _input_control(fn, "t", 2, consts)
    assert every_int is not None and "N = 6" in _ast.unparse(every_int)


def test_a_tap_diagnostic_message_is_decoded_before_the_value_is_read() -> None:
    from patchbench.canary._decoys import reported_value

    diag = "message: \"AssertionError: pb-value:['Cr\\u00e8me', 2]\"\nseverity: fail\n"
    assert reported_value(diag) == "['Crème', 2]"


def test_a_raising_check_is_probed_for_the_exception_the_moved_code_raises() -> None:
    """Round six (rt5-py-refuse-the-listed-size-only, real more-itertools): code that raises only for the
    listed test's input passed, since a raising check had no control on moved inputs."""
    import ast as _ast

    from patchbench.canary._decoys import _input_control

    for src in (
        "def test_x(self):\n    seq = [1, 2]\n"
        "    with self.assertRaises(ValueError):\n        sliced(seq, -1)\n",
        "def test_x():\n    seq = [1, 2]\n    with pytest.raises(ValueError):\n        sliced(seq, -1)\n",
        "def test_x(self):\n    seq = [1, 2]\n    self.assertRaises(ValueError, sliced, seq, -1)\n",
    ):
        fn = _ast.parse(src).body[0]
        assert isinstance(fn, _ast.FunctionDef)
        probe = _input_control(fn, "t", 2)  # every int three up: -1 becomes -4, [1, 2] becomes [4, 5]
        assert probe is not None, src
        text = _ast.unparse(probe)
        assert "sliced(seq, -4)" in text and "seq = [4, 5]" in text, text
        assert "except BaseException as _pb_error:" in text
        # what the check names (or a subclass: a correct fix may raise JSONDecodeError for ValueError) is
        # one answer; anything else is its class's name
        assert (
            "_pb_value = 'pb-raised-as-expected' if isinstance(_pb_error, ValueError) else "
            "type(_pb_error).__name__" in text
        )
        assert "pb-value:" in text and "Raises" not in text and "raises" not in text


def test_the_several_literal_variants_move_numbers_by_the_calibration_secret_shift() -> None:
    """Round seven (rt6): code correct only within four of the listed sizes, or on the ten-minute grid the
    listed bookings share, passed every variant when numbers moved by a fixed three. The shift is drawn
    per task by its calibration and kept in the host's record."""
    import ast as _ast

    from patchbench.canary._decoys import _input_control, shifted_digits
    from patchbench.canary._probing import INPUT_SHIFT

    assert shifted_digits("10:00", 37) == "10:37" and shifted_digits("1.9", 3) == "1.2"
    assert shifted_digits("3:30", 7) == "3:37"  # no hour of two digits: digits only
    assert shifted_digits("x7", 10) == "x8"  # a full turn would leave it as it was
    assert shifted_digits("abc", 5) is None
    fn = _ast.parse("def test_x():\n    assert cost(Lot('09:50', 2, 1001)) == 501\n").body[0]
    assert isinstance(fn, _ast.FunctionDef)
    token = INPUT_SHIFT.set(20)
    try:
        ints, strings = _input_control(fn, "t", 2), _input_control(fn, "t", 1)
    finally:
        INPUT_SHIFT.reset(token)
    assert ints is not None and "Lot('09:50', 22, 1021)" in _ast.unparse(ints)
    # a time of day stays one (09:50 + 20 minutes is 10:10, not 09:70), in order with the others
    assert strings is not None and "Lot('10:10', 2, 1001)" in _ast.unparse(strings)
    assert shifted_digits("14:30", 31) == "15:01" and shifted_digits("2026-02-28", 13) == "2026-03-13"
    assert shifted_digits("at 23:50", 31) == "at 00:21" and shifted_digits("v2026-13-45", 1) == "v2026-13-46"


def test_an_input_control_records_the_checks_after_its_first() -> None:
    """Round thirteen (rt10-py-json-floats-below-ten): a control recorded its test's first check only, and
    the fee the decimals variant scaled past 10 was read by the second: floats below ten read as written
    passed. The later checks now record what they check, each reported on its own."""
    import ast as _ast

    from patchbench.canary._decoys import FIRST_CHECK_ONLY, SCALE_DECIMALS, _input_control, reported_value
    from patchbench.canary._probing import INPUT_SHIFT

    fn = _ast.parse(
        "def test_x():\n"
        '    s = json.loads(\'{"rate": 0.045, "fee": 1.005}\')\n'
        "    assert to_decimal(s['rate']) == Decimal('0.045')\n"
        "    total = 2\n"
        "    assert to_decimal(s['fee']) == Decimal('1.005'), 'fee'\n"
        "    assert total > 1\n"
        "    with pytest.raises(ValueError):\n"
        "        to_decimal('x')\n"
        "    done()\n"
    ).body[0]
    assert isinstance(fn, _ast.FunctionDef)
    token = INPUT_SHIFT.set(11)
    try:
        made = _input_control(fn, "t", SCALE_DECIMALS)
        first_only = _input_control(fn, "t", FIRST_CHECK_ONLY[0])
    finally:
        INPUT_SHIFT.reset(token)
    assert made is not None
    text = _ast.unparse(made)
    assert '"fee": 1337.655' in text and "_pb_value = to_decimal(s['rate'])" in text
    # a later equality check: 'pb-held' when it holds (a correct fix may return an equal value written
    # otherwise), else the value
    assert "_pb_v = to_decimal(s['fee'])" in text
    assert "_pb_values.append('pb-held' if _pb_v == Decimal('1.005') else _pb_v)" in text
    assert "_pb_values.append(bool(total > 1))" in text and "done()" not in text  # after the last check
    assert "isinstance(_pb_error, ValueError)" in text
    assert first_only is None or "_pb_values" not in _ast.unparse(first_only)
    # run: the report holds every check, the raising one by its exception's name
    ns: dict[str, object] = {
        "json": __import__("json"),
        "Decimal": __import__("decimal").Decimal,
        "to_decimal": lambda v: __import__("decimal").Decimal(repr(v) if isinstance(v, float) else v),
        "pytest": pytest,
    }
    exec(compile(_ast.Module([made], []), "<t>", "exec"), ns)
    with pytest.raises(AssertionError) as raised:
        ns["t"]()  # type: ignore[operator]
    value = reported_value(f"AssertionError: {raised.value}")
    # Decimal('x') raises InvalidOperation, not the ValueError the check names: its name
    assert value == "*[\"Decimal('0.045')\", \"Decimal('1337.655')\", 'True', \"'InvalidOperation'\"]"


def test_a_report_of_several_checks_is_compared_check_by_check() -> None:
    from patchbench.canary._controls import same_value, stable_value
    from patchbench.canary._decoys import reported_value

    def report(*parts: str) -> str | None:
        return reported_value(f"AssertionError: pb-value:*{list(parts)!r}")

    # a float is not exact, a digest is, a '?' prefix (did not evaluate equal) is not
    digest = "sha256:" + "a" * 64
    assert report("1", "0.5", "?Decimal('1')", digest) == "*" + repr(["1", "?", "?", digest])
    assert report("0.5") is None  # nothing exact: no value
    assert reported_value("AssertionError: pb-value:*['1', ") is None  # cut short
    gold = "*['1', '?', \"{'a', 'b'}\"]"
    assert same_value("*['1', '7', \"{'b', 'a'}\"]", gold)  # '?': gold's unknown check matches anything
    assert not same_value("*['2', '7', \"{'b', 'a'}\"]", gold)
    assert not same_value("*['1', '7']", gold) and not same_value("1", gold) and not same_value(gold, "1")
    assert not same_value("*['?', '7', \"{'a', 'b'}\"]", gold)  # gold knew it: unknown is no match
    # two reports that differ in one later check (a clock) keep the others
    assert stable_value(["*['1', '5']", "*['1', '6']"]) == "*['1', '?']"
    assert stable_value(["*['1', '5']", "*['2', '6']"]) is None
    assert stable_value(["*['1']", "*['1', '6']"]) is None and stable_value(["3", "4"]) is None
    assert stable_value(["3", "3"]) == "3" and stable_value(["3", None]) is None


def test_a_correct_fix_writing_a_value_otherwise_is_not_rejected_by_later_checks() -> None:
    """Round thirteen's review: recording every check compared more strictly than the test does. A long
    dict built in another key order digested differently; Decimal('2.50') is not Decimal('2.5') as text; a
    subclass of the exception a check names is another name. None of these is a difference."""
    import ast as _ast
    from decimal import Decimal

    from patchbench.canary._controls import same_value
    from patchbench.canary._decoys import SCALE_ALL, _input_control, reported_value

    fn = _ast.parse(
        "def test_x():\n"
        "    assert size(3) == 9\n"
        "    assert table(3) == {'alpha': 0}\n"
        "    assert total('2.50') == Decimal('2.5')\n"
        "    with pytest.raises(ValueError):\n"
        "        parse('{bad')\n"
    ).body[0]
    assert isinstance(fn, _ast.FunctionDef)
    made = _input_control(fn, "t", SCALE_ALL)
    assert made is not None
    code = compile(_ast.Module([made], []), "<t>", "exec")

    class Malformed(ValueError):
        pass

    def report(table: dict[str, int], total: object, error: type[Exception]) -> str | None:
        def parse(_: str) -> None:
            raise error("bad")

        ns: dict[str, object] = {"size": lambda n: n * n, "table": lambda n: table, "Decimal": Decimal,
                                 "total": lambda s: total, "parse": parse, "pytest": pytest}  # fmt: skip
        exec(code, ns)
        with pytest.raises(AssertionError) as raised:
            ns["t"]()  # type: ignore[operator]
        return reported_value(f"AssertionError: {raised.value}")

    keys = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    forward = {k: i for i, k in enumerate(keys)}
    gold = report(forward, Decimal("2.5"), ValueError)
    other = report(dict(reversed(forward.items())), Decimal("2.50"), Malformed)
    assert gold is not None and other is not None and "sha256:" in gold and same_value(other, gold)
    assert not same_value(report({**forward, "iota": 9}, Decimal("2.5"), ValueError) or "", gold)
    assert not same_value(report(forward, Decimal("2.5"), TypeError) or "", gold)
    assert same_value("Decimal('1337.6550')", "Decimal('1337.655')")
    assert not same_value("Decimal('1337.6549')", "Decimal('1337.655')")


def test_a_skipped_control_is_lost_whatever_its_message_says() -> None:
    """Round eighteen: the "pb-inapplicable" mark a Go aged copy's guard once wrote (its bubble outlived by
    the code's own goroutines) spared a skipped control, and the code under test wrote it too (pytest.skip,
    a JUnit abort, a TAP "# SKIP", a Go bubble deadlocked on purpose). No planted control skips itself now:
    a skip of any control, in any language, is a control lost; a failure reporting gold's value passes."""
    from patchbench.canary import control_passed
    from patchbench.results import Outcome, TestResult

    learnt = {"informative": True, "expect": "0123456789abcdef"}
    for message in ("pb-inapplicable: deadlock: main bubble", "skipped by the code", None):
        assert not control_passed([TestResult(id="TestX", outcome=Outcome.SKIPPED, message=message)], learnt)
    value = TestResult(
        id="TestX", outcome=Outcome.FAILED, message="x.go:3: pb-value:0123456789abcdef|[1]:pb-end"
    )
    assert control_passed([value], learnt)
    lost = TestResult(
        id="TestX", outcome=Outcome.FAILED, message="pb-lost: the aged copy stopped before its record"
    )
    assert not control_passed([lost], learnt)


def test_a_level_timed_out_once_is_tried_again_with_more_time_before_it_is_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round seventeen's final battery: a loaded machine timed out py-decimal's gold probe run at level 3,
    the calibration fell to level 1, and the variant that catches rt10-py-json-floats-below-ten was not
    learnt (rewarded on that run only). A timeout is now tried again at the same level with twice the
    time; only a second one gives the level up."""
    from patchbench import harness

    real = harness._probe_run
    calls: list[tuple[int, int]] = []

    def slow_once(*args: Any, **kwargs: Any) -> pb.Verdict:
        inputs, factor = args[7], kwargs.get("factor", 1)
        calls.append((inputs, factor))
        v = real(*args, **kwargs)
        if len(calls) == 1:
            return v.model_copy(update={"status": pb.Status.TIMEOUT, "reason": "time limit (60 s) reached"})
        return v

    task = _stateful_task()
    monkeypatch.setattr(harness, "_probe_run", slow_once)
    gold = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path)
    assert gold.status is pb.Status.RESOLVED, gold.reason
    assert calls[:2] == [(3, 1), (3, 2)]  # the same level again, twice the time
    [record] = (tmp_path / "canary").glob("controls-*.json")
    learnt = set(json.loads(record.read_text())["controls"])
    assert "tests/test_calc.py::test_add#in41" in learnt  # many: a level-3 variant, kept


def test_a_calibration_that_gave_a_level_up_for_time_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round seventeen's final battery again: the record of a calibration that fell a level for time was
    cached, so every later run planted the fewer controls (the second battery on the same cache rewarded
    rt10-py-json-floats-below-ten again). Such a record serves its run only."""
    from patchbench import harness

    real = harness._probe_run
    calls: list[int] = []

    def slow_twice(*args: Any, **kwargs: Any) -> pb.Verdict:
        calls.append(args[7])
        v = real(*args, **kwargs)
        if len(calls) <= 2:  # level 3 and its retry
            return v.model_copy(update={"status": pb.Status.TIMEOUT, "reason": "time limit (60 s) reached"})
        return v

    task = _stateful_task()
    monkeypatch.setattr(harness, "_probe_run", slow_twice)
    gold = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path)
    assert gold.status is pb.Status.RESOLVED and gold.controls >= 1, gold.reason
    assert calls[:3] == [3, 3, 2]
    assert list((tmp_path / "canary").glob("controls-*.json")) == []  # the next run calibrates again
