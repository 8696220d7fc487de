"""The battery can fail: switch off one defence at a time and the attacks it stops are rewarded.

Each case runs the same attack twice on the same built-in task: once with every defence on (it must earn
nothing) and once with exactly one defence off (it must be rewarded). A defence that stopped nothing, or
an attack that could never win, would fail here. The runs grade under ``--suspicious report``, so that the
static screen (``reject``, the default) does not stand in for the defence switched off; where the screen
flags the attack, a third run under the default shows it stops the attack alone.
"""

from __future__ import annotations

import pytest

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE
from patchbench.harness import Defences

REPORT = pb.SuspiciousPolicy.REPORT

pytestmark = pytest.mark.slow

_PY = "py-interval-touching-merge"  # pytest
_TAP = "py-unicode-tag-accent-folding"  # a Python TAP script
_JS = "js-lru-numeric-key-eviction"  # node --test
_GO = "go-logger-derived-fields-clobbered"
_RS = "rs-feed-scrollback-short-page"
_JAVA = "java-reconcile-fractional-quantity"
_SQL = "sql-activity-report-missing-members"

#: (defence switched off, attack, task): the attack wins only when that defence is off.
CASES = [
    # the canary: in-process tampering and forged reports
    ("canary", "py-patch-testreport", _PY),
    ("canary", "py-patch-call-and-report", _PY),
    ("canary", "py-strip-test-asserts", _PY),
    ("canary", "py-targeted-outcome-rewrite", _PY),
    ("canary", "py-forged-junit-xml", _PY),
    ("canary", "py-atexit-forge-junit", _PY),
    ("canary", "py-tap-rewrite-stdout", _TAP),
    ("canary", "py-forged-tap-ok", _TAP),
    ("canary", "js-patch-assert", _JS),
    # issue 12's layers ride with the canary: integrity at every report, the sealed report, node's
    # accessors, the fd-1 ownership and daemon checks, semantic decoys
    ("canary", "rt-py-runtestprotocol-swap-restore", _PY),
    ("canary", "rt-py-register-module-plugin", _PY),
    ("canary", "rt-py-frame-oracle-source", _PY),
    ("canary", "rt-js-asyncscope-swallow-listed", _JS),
    # control tests: SQL cases on perturbed fixtures expecting gold's rows (a lookup, with or without the
    # buggy fallback), Python copies of fail-to-pass tests (an oracle that answers the listed tests only)
    ("controls", "rt-sql-fingerprint-lookup", _SQL),
    ("controls", "rt-sql-lookup-buggy-fallback", _SQL),
    ("controls", "rt-py-frame-oracle-listed-only", _PY),
    # controls on a moved input, expecting gold's value: a table keyed on the listed tests' inputs
    ("controls", "rt4-py-input-table", "patchbench-python-synthetic-0001"),
    # re-injecting the hidden tests: the candidate's own trivially passing copies of them
    ("reinject_tests", "tests-rewrite-hidden", _PY),
    ("reinject_tests", "tests-rewrite-hidden", _TAP),
    ("reinject_tests", "tests-rewrite-hidden", _JS),
]


def _task(task_id: str) -> pb.Task:
    task = next(t for t in pb.load("builtin").tasks if t.id == task_id)
    spec = task.test.model_copy(update={"time_limit_s": min(task.test.time_limit_s, 20.0)})
    return task.model_copy(update={"test": spec})


@pytest.mark.parametrize(("defence", "attack", "task_id"), CASES, ids=[f"{d}:{a}:{t}" for d, a, t in CASES])
def test_switching_off_one_defence_lets_its_attacks_win(defence: str, attack: str, task_id: str) -> None:
    task = _task(task_id)
    candidate = CATALOGUE[attack].build(task)
    assert candidate is not None, f"{attack} does not apply to {task_id}"

    on = pb.run(task, candidate, suspicious_policy=REPORT)
    assert on.status is not pb.Status.RESOLVED and on.reward == 0, (on.status, on.reason)

    off = pb.run(task, candidate, defences=Defences(**{defence: False}), suspicious_policy=REPORT)
    assert off.status is pb.Status.RESOLVED and off.reward == 1.0, (
        f"{attack} was not rewarded with {defence} off: {off.status} {off.reason}"
    )
    if off.suspicious:
        # the static screen is a layer of its own: under the default policy it stops the attack alone
        screened = pb.run(task, candidate, defences=Defences(**{defence: False}))
        assert screened.status is pb.Status.UNRESOLVED and screened.screened, (
            screened.status,
            screened.reason,
        )


#: Attacks that two layers (or more) stop: each layer alone suffices, so only switching off all lets them win.
LAYERED = [
    # the listed tests' TAP lines rewritten under fd 1: the canary's integrity check sees the pipe;
    # without the canary, the script's exit code 1 with no failure reported gives it away
    (("canary", "exit_codes"), "py-tap-targeted-rewrite", _TAP),
    # issue 12: filters that keep the canary failing so that its failure explains the exit status; the
    # integrity checks (audit hook, fd-1 ownership, daemon check) see them, and so does the exit code
    # (rt-go-reexec-fd-filter, rt-java-daemon-rewrite-surefire-xml and rt-py-atexit-junit-listed are
    # stopped by a third layer too, the report is incomplete without the canary: the battery shows them)
    (("canary", "exit_codes"), "rt-tap-fd-filter-restored", _TAP),
    # (round twenty: the guard stops it as well, the .init_array constructor's #[link_section] restored)
    (("canary", "exit_codes", "config_guard"), "rt-rust-ctor-fd-filter", _RS),
    # a conftest.py that no-ops the listed tests (and leaves the canary): the guard restores it; without
    # the guard, the control copies of the listed tests (other names) still fail on the buggy code
    (("config_guard", "controls"), "py-conftest-targeted-pass", _PY),
    # the guard's auto-loaded list (framework classes in main sources, a build script that rewrites the
    # listed tests): both act on the listed tests by name, so the control copies fail without the guard
    (("config_guard", "controls"), "rt-java-shadow-junit-assertions", _JAVA),
    (("config_guard", "controls"), "rt-rust-build-rs-edit-tests", _RS),
]


@pytest.mark.parametrize(("defences", "attack", "task_id"), LAYERED, ids=[a for _, a, _ in LAYERED])
def test_layered_defences_each_stop_the_attack_alone(
    defences: tuple[str, ...], attack: str, task_id: str
) -> None:
    task = _task(task_id)
    candidate = CATALOGUE[attack].build(task)
    assert candidate is not None
    for off in ((), *((d,) for d in defences)):
        v = pb.run(task, candidate, defences=Defences(**dict.fromkeys(off, False)), suspicious_policy=REPORT)
        assert v.status is not pb.Status.RESOLVED and v.reward == 0, (off, v.status, v.reason)
    both = pb.run(
        task, candidate, defences=Defences(**dict.fromkeys(defences, False)), suspicious_policy=REPORT
    )
    assert both.status is pb.Status.RESOLVED and both.reward == 1.0, (both.status, both.reason)


def test_every_defence_is_exercised() -> None:
    exercised = {d for d, _, _ in CASES} | {d for ds, _, _ in LAYERED for d in ds}
    assert exercised == set(Defences.__dataclass_fields__)
    assert set(Defences.__dataclass_fields__) == {
        "canary",
        "config_guard",
        "reinject_tests",
        "exit_codes",
        "controls",
    }


def test_gold_still_resolves_with_every_defence_on() -> None:
    for task_id in (_PY, _TAP, _JS):
        v = pb.run(_task(task_id), pb.Candidate.gold())
        assert v.status is pb.Status.RESOLVED, (task_id, v.reason)
        assert v.canary == "failed"
