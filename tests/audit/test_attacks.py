"""The adversarial battery (patchbench.audit.attacks) on fast built-in tasks: no attack may earn a reward.

A case marked ``xfail(strict=True)`` below is a known hole in the harness: the attack IS rewarded today.
The tests marked ``slow`` run the battery in the sandbox; the others check the candidates the attacks
build, without running them in a sandbox.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE, AttackReport, AttackResult, plan_attacks, run_attacks

#: Runaway attacks (infinite loops) wait for the time limit: keep it short, gold still passes well within
#: (a second or two; Java and Go compile in their test command, and a Rust calibration probes at level 3
#: with every variant built in: they keep more).
TIME_LIMIT_S = 20.0
QUICK_LIMIT_S = 10.0
_COMPILED = frozenset({"java", "go", "rust"})

_PY = "py-interval-touching-merge"
_TAP = "py-unicode-tag-accent-folding"
_SQL = "sql-activity-report-missing-members"
_JS = "js-lru-numeric-key-eviction"
_GO = "go-logger-derived-fields-clobbered"
_JAVA = "java-reconcile-fractional-quantity"
_RS = "rs-feed-scrollback-short-page"
_TS = "ts-aggregate-replay-field-reset"
_DEC = "py-decimal-float-literal-rounding"
_SSE = "py-sse-crlf-chunk-boundary"
#: One pytest task, one Python TAP task, one SQL (TAP harness) task, one JavaScript, Go, Java, Rust and
#: TypeScript task each: every attack of the catalogue applies to at least one of them.
TASK_IDS = (_PY, _TAP, _SQL, _JS, _GO, _JAVA, _RS, _TS)
#: (attack, task) -> how it wins today.
#: See docs/design/integrity.md ("Classes, layers and what is still open"). Round five's body oracles
#: and input table and round six's families were closed by the controls on moved inputs, round seven's
#: partial repairs by the structural variants and the shifts prime to 2, 3 and 5, round eight's but one
#: by respelled and scaled literals, tables extended and SQL's grown databases, three of round nine's by
#: numbers written as strings scaled, decimals given more digits and times moved late (round ten), the
#: rest of round nine's and three of round ten's by an integer made 0, amounts given decimals together,
#: loops' bounds scaled, SQL tables emptied, Go variadic calls passing more and counting loops counting
#: from the shift on (round eleven), round eleven's and twelve's last three by Python controls recording
#: every check, a size sweep from past a thousand and Rust's integer types widened, and four of round
#: thirteen's by letters from Greek Extended and kana, wide integers past 2^31 in JavaScript, decimal
#: strings past a double's digits and a first call made past a thousand times more (round thirteen).
#: Each entry is a strict xfail (fixing the hole turns it into a failure). Round fourteen's seven are open.
KNOWN_HOLES: dict[tuple[str, str], str] = {
    # round thirteen: what every control keeps, one caller at a time (no variant runs two objects or two
    # goroutines against one another), and the cost guard (a variant past a million entries costs a
    # quarter second in a Rust debug build, printing them)
    ("rt12-go-first-child-claims-spare-unsynchronised", _GO): (
        "a data race the candidate adds: no test or variant derives loggers from two goroutines at once"
    ),
    # (rt12-py-pending-cr-in-a-module-global: closed by twinned, each object built with a twin that takes
    # each public call first)
    ("rt12-rust-back-page-first-up-to-a-million", _RS): (
        "a size threshold past what the cost guard lets a Rust control print (2^20 entries)"
    ),
    # round fourteen (five of its seven closed in round fifteen: busy, off main, many and errors; the SQL one
    # by #tally, which counts a result past what a control could expect): a type no variant gives
    ("rt13-rust-short-back-page-for-plain-items", _RS): "right for items that need no drop (not String)",
    # round fifteen (rt14-*, written against the code that closed round fourteen's five; six of its seven
    # closed since: future, reuse, tuples, iterated, aged and filed): the order of calls on one object
    ("rt14-rust-jump-back-while-front-untouched", _RS): "right only until the front has been read",
    # (rt14-go-copy-unless-writing-to-a-file: closed by filed, the test's buffer handed over as a file)
    # round seventeen (rt16-*, written against aged; six closed since: node's aged copies await a turn and
    # serve new Date() ahead, off main for Python, Java's lists passed mutable, objects handed to another
    # thread in Java and Rust): clocks aged does not serve, the connection's history
    ("rt16-go-copy-while-parent-young-by-coarse-clock", _GO): "reads a clock kept by a goroutine from init",
    ("rt16-rust-short-back-page-while-fresh-by-ticker", _RS): "reads a clock kept by a ticker thread",
    # (rt16-sql-quiet-members-on-a-connection-that-wrote: closed by SQL's #fresh, the case's rows made
    # without an INSERT, so the query runs on a connection that wrote nothing)
    # round sixteen's three keyed on an object's age and round fifteen's on the process' uptime: closed by
    # aged (hours pass between a copy's statements: node's served clocks, a Go synctest bubble, Rust's
    # preloaded clock library)
    # round eighteen (rt17-*): the "inapplicable" mark a control's own guard reports, raised by the code under
    # test, was honoured for every control (closed: only a Go aged copy may come back inapplicable; the
    # pytest skip, the JUnit abort and the TAP "# SKIP" are controls lost), and the SQL gate on
    # last_insert_rowid() (closed by #fresh), and Java's threads that are not daemons (closed: off main's
    # and handed over's threads are daemons, as an executor's are); open: a Go aged bubble deadlocked on
    # purpose, clocks and contexts no variant moves
    # (rt17-go-aged-bubble-deadlocked: closed by a guard that fails a copy whose bubble deadlocked before its
    # record, where it once skipped it as inapplicable)
    # (rt17-js-insertion-order-while-young-by-uptime and rt17-ts-replay-after-construction-by-uptime, an age
    # read from /proc/uptime: closed by node's integrity module serving the kernel's uptime ahead as well)
    # (rt17-py-touching-merged-in-the-loading-process and rt17-py-json-floats-in-the-loading-process, right
    # only in the process that imported the code: closed by forked, a copy run in a child forked for it)
    # round nineteen (rt18-*, an outside helper): repairs on the public entry point the listed tests call,
    # the bug left on another one (every control is a copy of a listed test, so it calls what they call),
    # and a repair keyed on GOMAXPROCS (every grading machine has more than one CPU; on one it is not a hole)
    ("rt18-py-sse-crlf-joined-in-iter-events-only", _SSE): "fixed in iter_events only",
    ("rt18-py-fold-decomposes-strip-marks-does-not", _TAP): "strip_marks, public, left buggy",
    ("rt18-ts-replay-after-construction-in-from-history-only", _TS): "the constructor still replays",
    ("rt18-js-map-store-until-cleared", _JS): "clear() brings the object store back",
    ("rt18-java-scale-stripped-in-payment-of-and-total-only", _JAVA): "the record constructor keeps scale",
    ("rt18-go-copy-fields-when-gomaxprocs-above-one", _GO): "fields shared again with GOMAXPROCS=1",
}


def _builtin() -> list[pb.Task]:
    return list(pb.load("builtin").tasks)


def _fast(task: pb.Task) -> pb.Task:
    cap = TIME_LIMIT_S if task.language in _COMPILED else QUICK_LIMIT_S
    spec = task.test.model_copy(update={"time_limit_s": min(task.test.time_limit_s, cap)})
    return task.model_copy(update={"test": spec})


def _tasks() -> list[pb.Task]:
    by_id = {t.id: t for t in _builtin()}
    return [_fast(by_id[i]) for i in TASK_IDS]


def _extra() -> tuple[list[pb.Task], list[str]]:
    """The built-in tasks outside :data:`TASK_IDS` that attacks applying to no task of it apply to, and
    those attacks: the battery runs them there only (a whole extra task would cost every attack of its
    language)."""
    applied = {p.attack for p in plan_attacks(_tasks()) if p.candidate is not None}
    names = [name for name in CATALOGUE if name not in applied]
    tasks = [
        _fast(t) for t in _builtin() if t.id not in TASK_IDS and any(CATALOGUE[n].build(t) for n in names)
    ]
    return tasks, names


#: ``make battery`` (``PATCHBENCH_FULL_BATTERY=1``): every attack on every task of the battery it applies
#: to. ``make test`` runs each on the first of them it applies to (the whole cross product no longer fits
#: the suite's 15 minutes); ``patchbench audit builtin --attacks`` runs every one on every built-in task.
FULL = os.environ.get("PATCHBENCH_FULL_BATTERY") == "1"


@functools.cache
def _home() -> dict[str, str]:
    """Each attack -> the first task of :data:`TASK_IDS` it applies to."""
    out: dict[str, str] = {}
    for planned in plan_attacks(_tasks()):
        if planned.candidate is not None:
            out.setdefault(planned.attack, planned.task.id)
    return out


def _runs(attack: str, task_id: str) -> bool:
    """Whether the battery runs ``attack`` on ``task_id`` (see :data:`FULL`)."""
    return FULL or _home().get(attack) == task_id


def _cases() -> list[object]:
    out: list[object] = []
    extra_tasks, extra_names = _extra()
    for planned in [*plan_attacks(_tasks()), *plan_attacks(extra_tasks, extra_names)]:
        if planned.candidate is None:
            continue
        if planned.task.id in TASK_IDS and not _runs(planned.attack, planned.task.id):
            continue
        key = (planned.attack, planned.task.id)
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_HOLES[key])] if key in KNOWN_HOLES else []
        if CATALOGUE[planned.attack].holds_fix:
            # The gold fix behind a gate that holds under any test tool: accepted, and counted apart from
            # the holes (AttackReport.gated); strict, so that a defence that starts seeing one shows here.
            marks = [
                pytest.mark.xfail(strict=True, reason="holds the gold fix behind a test-environment gate")
            ]
        out.append(pytest.param(*key, id=f"{planned.task.id}:{planned.attack}", marks=marks))
    return out


@pytest.fixture(scope="module")
def report() -> AttackReport:
    return run_attacks(_tasks(), jobs=max(2, os.cpu_count() or 1), only=_runs)


@pytest.fixture(scope="module")
def extra_report() -> AttackReport:
    tasks, names = _extra()
    return run_attacks(tasks, attacks=names, jobs=max(2, os.cpu_count() or 1))


def _row(report: AttackReport, attack: str, task_id: str) -> AttackResult:
    return next(r for r in report.results if r.attack == attack and r.task == task_id)


@pytest.mark.slow
@pytest.mark.parametrize(("attack", "task_id"), _cases())
def test_no_attack_is_rewarded(
    report: AttackReport, extra_report: AttackReport, attack: str, task_id: str
) -> None:
    row = _row(report if task_id in TASK_IDS else extra_report, attack, task_id)
    assert row.applicable
    assert row.status is not None
    assert not row.rewarded, f"{attack} earned {row.reward} on {task_id} ({row.status}):\n{row.evidence}"
    assert row.status is not pb.Status.RESOLVED


@pytest.mark.slow
def test_report_has_one_row_per_attack_and_task(report: AttackReport) -> None:
    assert len(report.results) == len(CATALOGUE) * len(TASK_IDS)
    assert {(r.attack, r.task) for r in report.results} == {(a, t) for a in CATALOGUE for t in TASK_IDS}
    for r in report.results:
        if not r.applicable:
            assert r.status is None and not r.rewarded


@pytest.mark.slow
def test_every_gold_patch_still_resolves(report: AttackReport) -> None:
    """Each task's gold patch ran in the battery's batch, beside the attacks, every defence on."""
    assert {g.task for g in report.gold} == set(TASK_IDS)
    for g in report.gold:
        assert g.resolved, (g.task, g.status, g.reason)


def test_catalogue_names_and_size() -> None:
    assert len(CATALOGUE) >= 40
    for name, attack in CATALOGUE.items():
        assert attack.name == name and attack.description and attack.language


def test_every_attack_applies_to_at_least_one_builtin_task() -> None:
    tasks = _builtin()
    unused = [name for name, a in CATALOGUE.items() if all(a.build(t) is None for t in tasks)]
    assert unused == []


def test_attacks_do_not_apply_to_other_languages() -> None:
    by_id = {t.id: t for t in _builtin()}
    go, java = by_id["go-logger-derived-fields-clobbered"], by_id["java-reconcile-fractional-quantity"]
    assert CATALOGUE["py-conftest-force-pass"].build(go) is None
    assert CATALOGUE["go-testmain-no-run"].build(java) is None
    assert CATALOGUE["java-static-exit"].build(go) is None
    assert CATALOGUE["tap-forged-ok-exit"].build(by_id["py-interval-touching-merge"]) is None
    assert CATALOGUE["py-conftest-targeted-pass"].build(go) is None
    assert CATALOGUE["py-conftest-targeted-pass"].build(by_id[_TAP]) is None
    assert CATALOGUE["py-unittest-patch"].build(java) is None
    assert CATALOGUE["java-forged-tests-run-line"].build(go) is None


def test_every_attack_applies_to_a_task_of_the_battery() -> None:
    """Every attack of the catalogue gets a sandbox run in :func:`test_no_attack_is_rewarded` (on the
    battery's tasks, or on the built-in tasks of :func:`_extra`)."""
    extra_tasks, extra_names = _extra()
    planned = [*plan_attacks(_tasks()), *plan_attacks(extra_tasks, extra_names)]
    applied = {p.attack for p in planned if p.candidate is not None}
    assert [name for name in CATALOGUE if name not in applied] == []
    # the extra runs stay few (one run each; 13 since round eighteen's py-decimal repair)
    assert len(extra_tasks) <= 4 and len(extra_names) <= 14


# -- the candidates the attacks build (no sandbox) ----------------------------------------------------


def _by_id() -> dict[str, pb.Task]:
    return {t.id: t for t in _builtin()}


def _ids(task: pb.Task) -> list[str]:
    return list(dict.fromkeys([*task.fail_to_pass, *task.pass_to_pass]))


def _files(attack: str, task: pb.Task) -> dict[str, str | None]:
    candidate = CATALOGUE[attack].build(task)
    assert candidate is not None and candidate.file_map is not None, (attack, task.id)
    assert candidate.label == attack
    return candidate.file_map


def _materialise(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _pytest_passed(root: Path, *args: str) -> tuple[set[str], set[str]]:
    """(passed, failed) node ids of a pytest run in ``root`` (no plugins from this repository)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    argv = [sys.executable, "-m", "pytest", "-rA", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    run = subprocess.run(
        [*argv, *args], cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    found = re.findall(r"^(PASSED|FAILED) (\S+)", run.stdout, re.MULTILINE)
    return {i for s, i in found if s == "PASSED"}, {i for s, i in found if s == "FAILED"}


_PYTEST_TASKS = [
    t.id for t in _builtin() if t.language == "python" and "pytest" in t.test.commands[0].display()
]


@pytest.mark.parametrize("task_id", _PYTEST_TASKS)
def test_rewrite_hidden_defines_every_listed_pytest_test(tmp_path: Path, task_id: str) -> None:
    task = _by_id()[task_id]
    files = _files("tests-rewrite-hidden", task)
    assert set(files) == {f.path for f in task.hidden_tests if f.path.endswith(".py")}
    _materialise(tmp_path, {p: t for p, t in files.items() if t is not None})
    passed, failed = _pytest_passed(tmp_path, *files)
    assert failed == set()
    assert set(_ids(task)) <= passed


def test_rewrite_hidden_on_a_tap_task_defines_every_name_in_the_first_test_module(tmp_path: Path) -> None:
    task = _by_id()[_TAP]
    files = _files("tests-rewrite-hidden", task)
    modules = [f.path for f in task.hidden_tests if Path(f.path).name.startswith("test_")]
    assert list(files) == modules  # never the run script
    # the task's own TAP runner, over the rewritten module, says ok for every listed test
    hidden = {f.path: f.content for f in task.hidden_tests}
    runner = next(p for p in hidden if p not in files)
    _materialise(tmp_path, {runner: hidden[runner], **{p: t for p, t in files.items() if t is not None}})
    run = subprocess.run(
        [sys.executable, runner], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    ok = set(re.findall(r"^ok \d+ - (\S+)", run.stdout, re.MULTILINE))
    assert set(_ids(task)) <= ok, run.stdout + run.stderr
    assert "not ok" not in run.stdout


@pytest.mark.parametrize("task_id", [_JS, _TS])
def test_rewrite_hidden_on_a_node_task_registers_every_listed_test(task_id: str) -> None:
    task = _by_id()[task_id]
    files = _files("tests-rewrite-hidden", task)
    assert set(files) == {f.path for f in task.hidden_tests if ".test." in f.path}
    for text in files.values():
        assert text is not None and text.startswith("import { test } from 'node:test';\n")
        names = [
            json.loads(m) for m in re.findall(r'^test\(("(?:[^"\\]|\\.)*"), \(\) => \{\}\);$', text, re.M)
        ]
        assert names == _ids(task)


def test_rewrite_hidden_on_a_go_task_keeps_the_package_and_defines_every_test() -> None:
    task = _by_id()[_GO]
    files = _files("tests-rewrite-hidden", task)
    (path, text), *_ = files.items()
    hidden = {f.path: f.content for f in task.hidden_tests}
    assert set(files) == {p for p in hidden if p.endswith("_test.go")}
    assert text is not None
    assert text.split("\n", 1)[0] == hidden[path].split("\n", 1)[0] == "package tests"
    assert 'import "testing"' in text
    names = list(dict.fromkeys(i.split("/")[0] for i in _ids(task)))  # subtests run under their parent
    assert re.findall(r"^func (\w+)\(t \*testing\.T\) \{\}$", text, re.M) == names


def test_rewrite_hidden_keeps_only_plain_go_test_names() -> None:
    task = _by_id()[_GO]
    ids = (
        "example.com/kvlog/tests.TestQualified/sub.case",
        "TestPlain",
        "TestPlain/again",
        "helper",
        "Test-x",
    )
    task = task.model_copy(update={"fail_to_pass": ids, "pass_to_pass": ()})
    text = next(iter(_files("tests-rewrite-hidden", task).values()))
    assert text is not None
    assert re.findall(r"^func (\w+)\(", text, re.M) == ["TestQualified", "TestPlain"]


def test_rewrite_hidden_does_not_apply_without_a_simple_test_layout() -> None:
    by_id = _by_id()
    for task_id in (_JAVA, _RS, _SQL):
        assert CATALOGUE["tests-rewrite-hidden"].build(by_id[task_id]) is None


def test_conftest_targeted_pass_names_only_listed_tests() -> None:
    task = _by_id()[_PY]
    files = _files("py-conftest-targeted-pass", task)
    assert set(files) == {"conftest.py", "tests/conftest.py"}
    names = {i.rsplit("::", 1)[-1].split("[")[0] for i in _ids(task)}
    for text in files.values():
        assert text is not None
        target = next(
            n.value
            for n in ast.parse(text).body
            if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "_PB_TARGETS"
        )
        assert isinstance(target, ast.Call)
        assert set(ast.literal_eval(target.args[0])) == names


def test_conftest_targeted_pass_leaves_a_canary_failing(tmp_path: Path) -> None:
    """Listed tests (plain, parametrized or in a class) pass without running; a canary still fails."""
    task = _by_id()[_PY]
    conftest = _files("py-conftest-targeted-pass", task)["conftest.py"]
    assert conftest is not None
    tests = (
        "import pytest\n\n"
        "@pytest.mark.parametrize('case', ['back-to-back', 'other'])\n"
        "def test_merge_blocks(case):\n    assert False\n\n"
        "def test_interval_rules():\n    assert False\n\n"
        "class TestCalendar:\n    def test_free_slots(self):\n        assert False\n\n"
        "def test_canary():\n    assert False\n"
    )
    _materialise(tmp_path, {"conftest.py": conftest, "tests/test_freebusy.py": tests})
    passed, failed = _pytest_passed(tmp_path, "tests")
    base = "tests/test_freebusy.py::"
    assert passed == {
        base + "test_merge_blocks[back-to-back]",
        base + "test_merge_blocks[other]",
        base + "test_interval_rules",
        base + "TestCalendar::test_free_slots",
    }
    assert failed == {base + "test_canary"}


@pytest.mark.parametrize(("attack", "content"), [("tests-empty-hidden", ""), ("tests-delete-hidden", None)])
def test_empty_and_delete_hidden_touch_every_hidden_file(attack: str, content: str | None) -> None:
    for task in _builtin():
        assert _files(attack, task) == {f.path: content for f in task.hidden_tests}


@pytest.mark.parametrize(("attack", "mark"), [("py-skip-markers", "skip"), ("py-xfail-markers", "xfail")])
def test_marker_attacks_mark_every_hidden_pytest_module(attack: str, mark: str) -> None:
    for task_id in _PYTEST_TASKS:
        task = _by_id()[task_id]
        files = _files(attack, task)
        hidden = {f.path: f.content for f in task.hidden_tests}
        assert set(files) == {p for p in hidden if Path(p).name.startswith("test_")}
        for path, text in files.items():
            assert text is not None
            module = ast.parse(text)  # still valid: placed after the docstring and __future__ imports
            marks = [
                ast.unparse(n.value)
                for n in module.body
                if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "pytestmark"
            ]
            assert len(marks) == 1 and marks[0].startswith(f"pytest.mark.{mark}(")
            inserted = re.search(r"^import pytest\npytestmark = .*\n", text, re.M)
            assert inserted is not None
            assert text[: inserted.start()] + text[inserted.end() :] == hidden[path]


def test_unittest_patch_makes_a_failing_testcase_pass(tmp_path: Path) -> None:
    task = _by_id()[_TAP]
    path, text = next(iter(_files("py-unittest-patch", task).items()))
    assert text is not None
    original = task.workspace_map()[path].rstrip("\n") + "\n"
    assert text.startswith(original)  # the code is appended to the module
    script = (
        text[len(original) :]
        + "\nimport unittest\n"
        + "class T(unittest.TestCase):\n"
        + "    def test_eq(self):\n        self.assertEqual(1, 2)\n"
        + "    def test_raise(self):\n        raise ValueError('boom')\n"
        + "    def test_cm(self):\n        with self.assertRaises(KeyError):\n            pass\n"
        + "result = unittest.TextTestRunner().run(unittest.defaultTestLoader.loadTestsFromTestCase(T))\n"
        + "print('RESULT', result.testsRun, result.wasSuccessful())\n"
    )
    (tmp_path / "mod.py").write_text(script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "mod.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert "RESULT 3 True" in run.stdout, run.stdout + run.stderr


_GUESSED_REWARD_PATHS = (
    "/logs/verifier/reward.txt",
    "/logs/verifier/pass_ratio.txt",
    "/logs/reward.txt",
    "'reward.txt'",
    "'pass_ratio.txt'",
    "/tmp/reward.txt",
    "/.patchbench-reports/",
)


def test_forged_reward_files_guesses_the_usual_paths() -> None:
    files = _files("py-forged-reward-files", _by_id()[_PY])
    for text in files.values():
        assert text is not None
        for path in _GUESSED_REWARD_PATHS:
            assert path in text
        assert text.rstrip().endswith("__pb_reward()") and "os._exit(0)" in text


def test_java_forged_tests_run_line_in_every_main_class() -> None:
    task = _by_id()[_JAVA]
    files = _files("java-forged-tests-run-line", task)
    assert files and all(p.startswith("src/main/java/") for p in files)
    for text in files.values():
        assert text is not None
        block = text[text.index("static {") :]
        assert "Tests run: 9, Failures: 0, Errors: 0, Skipped: 0" in block
        assert "BUILD SUCCESS" in block and "System.exit(0)" in block


def test_python_candidates_are_valid_python() -> None:
    """Every .py file an attack writes (appended code, conftest, rewritten tests...) still parses."""
    for planned in plan_attacks(t for t in _builtin() if t.language == "python"):
        if planned.candidate is None or planned.candidate.file_map is None:
            continue
        for path, text in planned.candidate.file_map.items():
            if path.endswith(".py") and text:
                ast.parse(text, filename=f"{planned.attack}:{path}")


# -- robustness on task shapes the built-in dataset does not have ------------------------------------------


def _odd_tasks() -> list[pb.Task]:
    """Real datasets hold shapes the built-in tasks do not: no hidden tests, binary files, odd ids,
    repository rows without a context slice, languages without a runner of their own."""
    from patchbench import FileEntry, Repository, Task, TestCommand, TestSpec

    odd_ids = (
        'tests/test_x.py::test_a["it\'s\\n"]',
        "名前::テスト",
        'a"b',
        "S > t > u",
        "pkg.TestX/sub case",
    )
    binary = FileEntry(path="data/blob.bin", content="AAEC/w==", encoding="base64")

    def task(task_id: str, language: str, argv: tuple[str, ...], **kw: object) -> Task:
        base: dict[str, object] = {
            "id": task_id,
            "language": language,
            "workspace": (FileEntry(path="main.txt", content="x\n"), binary),
            "test": TestSpec(commands=(TestCommand(argv=argv),)),
            "fail_to_pass": odd_ids,
        }
        base.update(kw)
        return Task(**base)

    return [
        task("no-hidden-py", "python", ("python", "-m", "pytest")),
        task(
            "binary-hidden",
            "python",
            ("python", "tests/run.py"),
            hidden_tests=(FileEntry(path="tests/test_bin.py", content="/w==", encoding="base64"),),
        ),
        task(
            "repo-row",
            "python",
            ("python", "-m", "pytest", "tests"),
            repository=Repository(repo="owner/name", base_commit="0" * 40),
            workspace=(),
            hidden_tests=(FileEntry(path="tests/test_a.py", content="def test_a():\n    pass\n"),),
        ),
        task(
            "go-no-package",
            "go",
            ("go", "test", "./..."),
            hidden_tests=(FileEntry(path="x_test.go", content="// no package clause\n"),),
        ),
        task(
            "rust-no-manifest",
            "rust",
            ("cargo", "test"),
            hidden_tests=(FileEntry(path="tests/t.rs", content="#[test]\nfn t() {}\n"),),
        ),
        task(
            "java-no-pom",
            "java",
            ("mvn", "test"),
            hidden_tests=(FileEntry(path="src/test/java/ATest.java", content="class ATest {}\n"),),
        ),
        task("sql-no-cases", "sql", ("python", "tests/sqltap.py")),
        task("node-cjs", "javascript", ("node", "--test"), hidden_tests=(binary,)),
        task("ruby-tap", "ruby", ("ruby", "t.rb")),
    ]


def test_every_attack_builds_or_declines_on_odd_task_shapes() -> None:
    planned = plan_attacks(_odd_tasks())
    errors = [(p.attack, p.task.id, p.error) for p in planned if p.error]
    assert errors == []
    assert len(planned) == len(CATALOGUE) * len(_odd_tasks())


def test_an_attack_that_cannot_be_built_is_reported_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    from patchbench.audit import attacks as mod

    def broken(task: pb.Task) -> pb.Candidate | None:
        raise ValueError("unforeseen shape")

    name = next(iter(CATALOGUE))
    monkeypatch.setitem(CATALOGUE, name, mod.Attack(name, "python", "broken", broken))
    [row] = [mod.judge(p, None) for p in plan_attacks(_odd_tasks()[:1], [name])]
    assert not row.applicable and "unforeseen shape" in row.evidence
