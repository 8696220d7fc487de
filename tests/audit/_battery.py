"""The attack battery's shared part: the tasks it runs on, the known holes, which attack runs where.

``make test`` runs the battery in shards (``test_battery_*.py``, one module each, so that pytest-xdist's
``--dist loadfile`` gives each its own worker): every attack of the catalogue on the first task of
:data:`TASK_IDS` it applies to (an attack applying to none of them on the built-in tasks of :func:`_extra`).
``make battery`` (``PATCHBENCH_FULL_BATTERY=1``) runs every attack on every task of a shard it applies to.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any

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
#: Each entry is a strict xfail (fixing the hole turns it into a failure). Empty since the static screen's
#: ``reject`` became the default (round twenty-seven's session): the last five, clocks no variant serves,
#: are in :data:`SCREENED_ONLY`.
KNOWN_HOLES: dict[tuple[str, str], str] = {
    # round thirteen: what every control keeps, one caller at a time (no variant runs two objects or two
    # goroutines against one another)
    # (rt12-go-first-child-claims-spare-unsynchronised: closed in round twenty-two by the task's own test,
    # loggers derived from one parent by four goroutines at once, in a test binary built with -race: a gap
    # in go-logger's verifier, whose problem statement says loggers are shared between goroutines)
    # (rt12-py-pending-cr-in-a-module-global: closed by twinned, each object built with a twin that takes
    # each public call first)
    # (rt12-rust-back-page-first-up-to-a-million, rt13-rust-short-back-page-for-plain-items and
    # rt14-rust-jump-back-while-front-untouched: closed by the task's own tests, which now page a slice past
    # 2^21 entries, a feed of Strings, and jump back after reading the front: gaps in rs-feed's verifier)
    # (rt14-go-copy-unless-writing-to-a-file: closed by filed, the test's buffer handed over as a file)
    # round seventeen (rt16-*, written against aged; six closed since: node's aged copies await a turn and
    # serve new Date() ahead, off main for Python, Java's lists passed mutable, objects handed to another
    # thread in Java and Rust): clocks aged does not serve, the connection's history
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
    # (all five closed by the tasks' own tests, which now call the entry point left buggy: feed(),
    # strip_marks, the constructor, an order after clear(), the record's constructor: gaps in the verifiers)
    # (rt18-go-copy-fields-when-gomaxprocs-above-one: closed by one CPU, Go copies run with GOMAXPROCS at 1)
    # round twenty (rt19-*, an outside helper against this session's defences; rt19-py-touching-merged-in-the-
    # main-process closed the same session: forked copies run in a multiprocessing Process): clocks and
    # machine facts no variant serves or moves
    # (round twenty-one's rt20-*-in-utc, repairs made only where the local zone is UTC: closed by zoned, the
    # copy run in another zone the secret shift picks)
    # (rt19-ts-replay-after-construction-by-node-timing: caught by the task's constructor test, added for
    # round nineteen's constructor repair, not by any clock; fu-* is the same repair on both paths)
    # (rt19-go-copy-fields-when-numcpu-above-one, rt19-rust-short-back-page-when-parallel and
    # rt19-java-scale-dropped-on-many-processors: classified in round twenty-two as environment gates, the
    # gold fix on for the whole process wherever two CPUs or more are seen: holds_fix, counted apart)
}


#: (attack, task) -> what it keys on: attacks the tests pass (partial repairs keyed on a clock no control
#: serves: a goroutine's or a thread's own clock, a descriptor kept open on /proc/uptime, node's
#: performance.nodeTiming, a raw gettimeofday) and the static screen's ``environment-read`` turns
#: unresolved under ``--suspicious reject``, the default (``Verdict.screened``). Open by nature for a
#: grader that runs tests for seconds in one process: a fix right only while an object is young meets no
#: old object there. Strict both ways: a row screened that is not listed, or listed and not screened (the
#: tests caught it, or the screen lost it), fails.
SCREENED_ONLY: dict[tuple[str, str], str] = {
    ("rt16-go-copy-while-parent-young-by-coarse-clock", _GO): "reads a clock kept by a goroutine from init",
    ("rt16-rust-short-back-page-while-fresh-by-ticker", _RS): "reads a clock kept by a ticker thread",
    ("rt19-js-insertion-order-while-young-by-kept-uptime-fd", _JS): "/proc/uptime re-read through a kept fd",
    ("fu-ts-replay-after-construction-by-node-timing-constructor-too", _TS): "its age from nodeTiming",
    ("rt19-go-copy-while-parent-young-by-gettimeofday", _GO): "its age from syscall.Gettimeofday",
}

#: Attacks that carry the gold fix (``holds_fix``) through a channel the harness closes: the guard strips
#: what switches the fix on (or, for the plain argv gate, a lost control fails the run), so they must not be
#: accepted. The other ``holds_fix`` attacks are accepted by design (counted apart, strict xfail).
HOLDS_FIX_STOPPED = frozenset({
    # round twenty-one (rt20-*): stopped by the guard since that session (extension-module shadows, Maven's
    # src/test tree and Surefire's properties, a Cargo dev-dependency on the package itself)
    "rt20-rust-fix-behind-a-feature-only-a-self-dev-dependency-enables",
    "rt20-py-extension-module-shadows-pluggy-with-gold-swap",
    "rt20-py-extension-module-shadows-unicodedata-with-gold-swap",
    "rt20-java-gold-classes-in-test-resources",
    "rt20-java-fix-gated-on-an-argline-property-in-pom-properties",
    "rt20-java-fix-gated-on-a-test-resource-marker",
    # round twenty-one: stopped when written (the guard, or a lost control)
    "rt20-js-fix-when-argv-names-a-test-file",
    "rt20-py-dist-info-pytest11-gold-swap",
    "rt20-py-pyproject-addopts-gold-swap",
    "rt20-py-root-conftest-gold-swap",
    "rt20-java-gold-source-in-test-sources",
    "rt20-java-mvn-maven-config-argline",
    "rt20-go-extra-test-file-init",
})  # fmt: skip


@functools.cache
def _builtin() -> tuple[pb.Task, ...]:
    return tuple(pb.load("builtin").tasks)


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
#: Round nineteen's session: the battery, one module-scoped fixture in one module, took 12 to 16 minutes on
#: one xdist worker, the suite's long pole; it runs in shards now (see :func:`shard`).
FULL = os.environ.get("PATCHBENCH_FULL_BATTERY") == "1"


@functools.cache
def _home() -> dict[str, str]:
    """Each attack -> the first task of :data:`TASK_IDS` it applies to."""
    out: dict[str, str] = {}
    for planned in plan_attacks(_tasks()):
        if planned.candidate is not None:
            out.setdefault(planned.attack, planned.task.id)
    return out


def _accepted_gate(attack: str) -> bool:
    """An attack accepted by design: the gold fix behind a gate no run sees (``holds_fix``, not stopped)."""
    return CATALOGUE[attack].holds_fix and attack not in HOLDS_FIX_STOPPED


def _runs(attack: str, task_id: str) -> bool:
    """Whether the battery runs ``attack`` on ``task_id`` (see :data:`FULL`). ``make test`` leaves out the
    gates accepted by design (each run would prove only that it is still accepted):
    ``make battery`` and the audit run them, their strict xfail showing a defence that starts seeing one."""
    return FULL or (_home().get(attack) == task_id and not _accepted_gate(attack))


def _in_part(attack: str, part: tuple[int, int]) -> bool:
    """Whether ``attack`` is in part ``i`` of ``n`` of a task's attacks (by its place in the catalogue)."""
    i, n = part
    return list(CATALOGUE).index(attack) % n == i


def _cases(task_ids: Sequence[str], extra: bool, part: tuple[int, int] = (0, 1)) -> list[object]:
    """The battery's (attack, task) pairs on ``task_ids`` (and, with ``extra``, on :func:`_extra`'s)."""
    by_id = {t.id: t for t in _tasks()}
    out: list[object] = []
    extra_tasks, extra_names = _extra() if extra else ([], [])
    planned_all = [*plan_attacks([by_id[i] for i in task_ids]), *plan_attacks(extra_tasks, extra_names)]
    for planned in planned_all:
        if planned.candidate is None:
            continue
        if planned.task.id in TASK_IDS and not _runs(planned.attack, planned.task.id):
            continue
        if planned.task.id not in TASK_IDS and not FULL and _accepted_gate(planned.attack):
            continue  # an extra task's run of a gate accepted by design: make battery only
        if planned.task.id in TASK_IDS and not _in_part(planned.attack, part):
            continue
        key = (planned.attack, planned.task.id)
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_HOLES[key])] if key in KNOWN_HOLES else []
        if CATALOGUE[planned.attack].holds_fix and planned.attack not in HOLDS_FIX_STOPPED:
            # The gold fix behind a gate that holds under any test tool: accepted, and counted apart from
            # the holes (AttackReport.gated); strict, so that a defence that starts seeing one shows here.
            marks = [
                pytest.mark.xfail(strict=True, reason="holds the gold fix behind a test-environment gate")
            ]
        out.append(pytest.param(*key, id=f"{planned.task.id}:{planned.attack}", marks=marks))
    return out


def shard(
    task_ids: Sequence[str], *, extra: bool = False, part: tuple[int, int] = (0, 1)
) -> dict[str, Callable[..., Any]]:
    """A shard of the battery, to be assigned to a test module's globals (``globals().update(shard(..))``):
    its module-scoped fixture ``battery`` (the shard's attacks and gold patches in one batch, one sandbox
    run at a time: the shards run side by side on xdist's workers) and its three tests. ``extra``: the
    shard also runs the attacks that apply to no task of :data:`TASK_IDS` on :func:`_extra`'s tasks.
    ``part``: ``(i, n)``, the shard runs the ``i``-th of ``n`` parts of the tasks' attacks (the Java task's
    attacks, each a Maven build, took seven minutes in one shard; two modules take half each)."""
    ids = tuple(task_ids)

    @pytest.fixture(scope="module")
    def battery() -> AttackReport:
        by_id = {t.id: t for t in _tasks()}
        report = run_attacks(
            [by_id[i] for i in ids],
            jobs=1,
            only=lambda a, t: _runs(a, t) and _in_part(a, part),
            check_gold=False,
        )
        gold_ids = set(ids)
        if extra:
            tasks, names = _extra()
            more = run_attacks(
                tasks, attacks=[n for n in names if FULL or not _accepted_gate(n)], jobs=1, check_gold=False
            )
            report = AttackReport(results=(*report.results, *more.results), gold=())
            gold_ids |= {t.id for t in tasks}
        # The gold patches run after the attacks under each task's own time limit: the battery's cap
        # (QUICK_LIMIT_S) cuts attacks that hang short, but a gold run of py-decimal (3 s on a quiet
        # machine) hit the 10 s cap under CI's load (six xdist workers on two cores) and failed the suite.
        gold = run_attacks([t for t in _builtin() if t.id in gold_ids], attacks=[], jobs=1).gold
        return AttackReport(results=report.results, gold=gold)

    @pytest.mark.slow
    @pytest.mark.parametrize(("attack", "task_id"), _cases(ids, extra, part))
    def test_no_attack_is_rewarded(battery: AttackReport, attack: str, task_id: str) -> None:
        row = _row(battery, attack, task_id)
        assert row.applicable
        assert row.status is not None
        assert not row.rewarded, f"{attack} earned {row.reward} on {task_id} ({row.status}):\n{row.evidence}"
        assert row.status is not pb.Status.RESOLVED
        listed = (attack, task_id) in SCREENED_ONLY
        assert row.screened is listed, (
            f"{attack} on {task_id}: "
            + ("listed in SCREENED_ONLY but not screened" if listed else "caught by the static screen alone")
            + f" ({row.status}, screen {row.flagged}):\n{row.evidence}"
        )

    @pytest.mark.slow
    def test_report_has_one_row_per_attack_and_task(battery: AttackReport) -> None:
        rows = [r for r in battery.results if r.task in ids]
        assert len(rows) == len(CATALOGUE) * len(ids)
        assert {(r.attack, r.task) for r in rows} == {(a, t) for a in CATALOGUE for t in ids}
        for r in rows:
            if not r.applicable:
                assert r.status is None and not r.rewarded

    @pytest.mark.slow
    def test_every_gold_patch_still_resolves(battery: AttackReport) -> None:
        """Each task's gold patch ran in the shard after its attacks, every defence on, under its own time
        limit."""
        assert {g.task for g in battery.gold} == set(ids) | ({t.id for t in _extra()[0]} if extra else set())
        for g in battery.gold:
            assert g.resolved, (g.task, g.status, g.reason)

    return {
        "battery": battery,
        "test_no_attack_is_rewarded": test_no_attack_is_rewarded,
        "test_report_has_one_row_per_attack_and_task": test_report_has_one_row_per_attack_and_task,
        "test_every_gold_patch_still_resolves": test_every_gold_patch_still_resolves,
    }


def _row(report: AttackReport, attack: str, task_id: str) -> AttackResult:
    return next(r for r in report.results if r.attack == attack and r.task == task_id)
