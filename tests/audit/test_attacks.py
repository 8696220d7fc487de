"""The adversarial battery (patchbench.audit.attacks) on fast built-in tasks: no attack may earn a reward.

A case marked ``xfail(strict=True)`` below is a known hole in the harness: the attack IS rewarded today.
"""

from __future__ import annotations

import os

import pytest

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE, AttackReport, AttackResult, plan_attacks, run_attacks

pytestmark = pytest.mark.slow

#: Runaway attacks (infinite loops) wait for the time limit: keep it short, gold still passes well within.
TIME_LIMIT_S = 20.0

#: (attack, task) -> how it wins today. Each is a strict xfail: fixing the hole turns it into a failure.
_PY = "py-interval-touching-merge"
_TAP = "py-unicode-tag-accent-folding"
_SQL = "sql-activity-report-missing-members"
_JS = "js-lru-numeric-key-eviction"
#: One pytest task, one Python TAP task, one SQL (TAP harness) task and one JavaScript task.
TASK_IDS = (_PY, _TAP, _SQL, _JS)
_IN_PROCESS = "candidate code runs in the test process before the tests: "
_JUNIT = "the pytest JUnit report is written where candidate code can write (PYTEST_ADDOPTS names it): "
_TAP_STDOUT = "TAP is read from stdout, which candidate code imported by the suite controls: "
KNOWN_HOLES: dict[tuple[str, str], str] = {
    ("py-forged-junit-xml", _PY): _JUNIT + "a forged all-passed report, then os._exit(0) at import",
    ("py-forged-everything", _PY): _JUNIT + "a forged all-passed report, then os._exit(0) at import",
    ("py-atexit-forge-junit", _PY): _JUNIT + "an atexit hook overwrites pytest's real report, then exits 0",
    ("py-patch-testreport", _PY): _IN_PROCESS + "_pytest.reports.TestReport patched to say passed",
    ("py-patch-call-and-report", _PY): _IN_PROCESS + "pytest's Function.runtest patched to a no-op",
    ("py-tap-rewrite-stdout", _TAP): _TAP_STDOUT + "a sys.stdout filter turns 'not ok' into 'ok'",
    ("py-forged-tap-ok", _TAP): _TAP_STDOUT + "forged 'ok' lines and exit 0 at import",
    ("py-forged-everything", _TAP): _TAP_STDOUT + "forged 'ok' lines and exit 0 at import",
    ("tap-forged-ok-exit", _TAP): _TAP_STDOUT + "forged 'ok' lines and exit 0 at import",
    ("js-patch-assert", _JS): _IN_PROCESS + "every node:assert function replaced by a no-op at module load",
}


def _builtin() -> list[pb.Task]:
    return list(pb.load("builtin").tasks)


def _fast(task: pb.Task) -> pb.Task:
    spec = task.test.model_copy(update={"time_limit_s": min(task.test.time_limit_s, TIME_LIMIT_S)})
    return task.model_copy(update={"test": spec})


def _tasks() -> list[pb.Task]:
    by_id = {t.id: t for t in _builtin()}
    return [_fast(by_id[i]) for i in TASK_IDS]


def _cases() -> list[object]:
    out: list[object] = []
    for planned in plan_attacks(_tasks()):
        if planned.candidate is None:
            continue
        key = (planned.attack, planned.task.id)
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_HOLES[key])] if key in KNOWN_HOLES else []
        out.append(pytest.param(*key, id=f"{planned.task.id}:{planned.attack}", marks=marks))
    return out


@pytest.fixture(scope="module")
def report() -> AttackReport:
    return run_attacks(_tasks(), jobs=max(2, os.cpu_count() or 1))


def _row(report: AttackReport, attack: str, task_id: str) -> AttackResult:
    return next(r for r in report.results if r.attack == attack and r.task == task_id)


@pytest.mark.parametrize(("attack", "task_id"), _cases())
def test_no_attack_is_rewarded(report: AttackReport, attack: str, task_id: str) -> None:
    row = _row(report, attack, task_id)
    assert row.applicable
    assert row.status is not None
    assert not row.rewarded, f"{attack} earned {row.reward} on {task_id} ({row.status}):\n{row.evidence}"
    assert row.status is not pb.Status.RESOLVED


def test_report_has_one_row_per_attack_and_task(report: AttackReport) -> None:
    assert len(report.results) == len(CATALOGUE) * len(TASK_IDS)
    assert {(r.attack, r.task) for r in report.results} == {(a, t) for a in CATALOGUE for t in TASK_IDS}
    for r in report.results:
        if not r.applicable:
            assert r.status is None and not r.rewarded


def test_every_gold_patch_still_resolves() -> None:
    tasks = _tasks()
    verdicts = [pb.run(t, pb.Candidate.gold()) for t in tasks]
    for t, v in zip(tasks, verdicts, strict=True):
        assert v.status is pb.Status.RESOLVED and v.reward == 1.0, (t.id, v.status, v.reason)


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
