"""The adversarial battery's catalogue (patchbench.audit.attacks): the candidates the attacks build, checked
without running them in a sandbox. The battery itself (no attack may earn a reward) runs in the shards
``test_battery_*.py``, over :mod:`_battery` (which holds ``KNOWN_HOLES``: the attacks rewarded today, each a
strict xfail there, and ``SCREENED_ONLY``: those the tests pass and the static screen rejects).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _battery import _GO, _JAVA, _JS, _PY, _RS, _SQL, _TAP, _TS, _accepted_gate, _builtin, _extra, _tasks

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE, plan_attacks


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
    # the extra runs stay few (one run each; 15 since round twenty-one's py-decimal repair, 18 with round
    # twenty-seven's three on py-decimal, py-sse and py-asyncio; the gates accepted by design, round
    # twenty-two's rt21-* among them, run there under make battery only)
    run_by_make_test = [n for n in extra_names if not _accepted_gate(n)]
    assert len(extra_tasks) <= 4 and len(run_by_make_test) <= 18


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
        listed = len(task.fail_to_pass) + len(task.pass_to_pass)
        assert f"Tests run: {listed}, Failures: 0, Errors: 0, Skipped: 0" in block
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
