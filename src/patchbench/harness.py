"""``run(task, candidate) -> Verdict``: the one flow, nothing more.

materialise the workspace → apply the candidate → guard test configuration → inject hidden tests →
prepare the environment (cached) → run each test command in the sandbox (offline, limits) → parse per-test
results → grade default-fail → Verdict.
"""

from __future__ import annotations

import datetime
import errno
import functools
import hashlib
import json
import logging
import os
import posixpath
import secrets
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import canary as canary_package
from .canary import (
    CANARY_VERSION,
    STREAM_LIMIT,
    Canary,
    control_passed,
    env_pytest_plugins,
    learn_controls,
    new_nonce,
    plan_canary,
    stream_problems,
)
from .canary._node import JS_FRAMEWORKS
from .canary._probing import INPUT_SHIFT, PROBE_INPUTS, RUN_DAY
from .candidate import Candidate, CandidateKind
from .context import RunContext, quota_hit, screen_change
from .envs import default_cache_dir, env_for, env_variables, exec_in_env
from .errors import EnvError, InfraError, PatchError, ResultParseError, SandboxError, UnsafeFileError
from .grading import grade
from .lifecycle import open_run_dir
from .lifecycle import runs_root as runs_root
from .repos import prepare_tree
from .results import TestResult, TestResults
from .runners import choose_runner, match_ids
from .runners._base import RunOutput
from .sandbox import Bind, Limits, Sandbox, get_sandbox
from .screen import SuspiciousPolicy
from .task import FileEntry, Task, VerifierKind
from .untrusted import REPORT_LIMIT, RUNNER_TEST_ENTRY, read_untrusted, scan_tree
from .verdict import CanaryState, Status, Verdict
from .verifiers.flow import verify_script
from .workspace import (
    Baseline,
    ConfigPolicy,
    apply_candidate,
    guard_test_config,
    inject_tests,
)

log = logging.getLogger("patchbench.harness")

#: Where the workspace and the runner reports appear inside the sandbox.
WORKSPACE_DST = "/workspace"
REPORTS_DST = "/.patchbench-reports"
#: Exit codes that mean the test command itself could not run (not found / not executable).
NOT_RUNNABLE = (126, 127)
#: Where the canary's harness files (pytest plugin, TAP sitecustomize) appear inside the sandbox.
CANARY_DST = "/.patchbench-canary"


@dataclass(frozen=True)
class Defences:
    """The harness's defences against reward hacking; every one is on by default.

    Switching one off is for the adversarial battery's own tests (see ``tests/audit/test_defences.py``),
    which show that the attacks it stops are then rewarded. Never switch one off to grade candidates.

    Attributes:
        config_guard: strip (or reject) test configuration the candidate wrote: conftest.py, pytest
            ini sections, sitecustomize, .pth, build-file test sections (see
            :func:`patchbench.workspace.guard_test_config`).
        reinject_tests: write every hidden test over whatever the candidate left at its path; off, a
            hidden test file the candidate added, changed or deleted is left as the candidate left it.
        canary: plant a test that always fails in the run and check the report for it (see
            :mod:`patchbench.canary`).
        exit_codes: cross-check the test commands' exit codes with the parsed results; off, the grader
            is told every command exited 0.
        controls: plant control tests with the canary (copies of fail-to-pass tests the gold patch passes;
            SQL: on perturbed data), against code that answers the listed tests only.
    """

    config_guard: bool = True
    reinject_tests: bool = True
    canary: bool = True
    exit_codes: bool = True
    controls: bool = True


def run(
    task: Task,
    candidate: Candidate,
    *,
    sandbox: Sandbox | str = "bwrap",
    config_policy: ConfigPolicy = ConfigPolicy.STRIP,
    cache_dir: Path | None = None,
    keep: bool = False,
    repos: Sequence[str | Path] = (),
    network: bool = True,
    defences: Defences | None = None,
    suspicious_policy: SuspiciousPolicy = SuspiciousPolicy.REJECT,
) -> Verdict:
    """Run ``candidate`` against ``task`` and grade it. Never raises for a candidate's or task's fault.

    Args:
        task: the task.
        candidate: what to grade.
        sandbox: a Sandbox, or a backend name (``bwrap``; ``none`` disables isolation).
        config_policy: what to do with test-configuration files the candidate touched.
        cache_dir: the environment cache (default: :func:`patchbench.envs.default_cache_dir`).
        keep: keep the run directory (its path is put in the verdict's notes).
        repos: local repository cache directories (repository tasks; see :mod:`patchbench.repos`).
        network: whether the setup phase may use the network (clone a repository, install dependencies).
        defences: the defences against reward hacking (default: all on; see :class:`Defences`).
        suspicious_policy: what the static screen's findings do (``reject``, the default: a resolved
            verdict with findings is unresolved, except for the gold patch and for codes the gold patch
            shows too; ``report``: recorded in ``Verdict.suspicious`` only).

    Returns:
        The Verdict. Infrastructure faults come back as status ``infra_error``.
    """
    return _run(
        task,
        candidate,
        sandbox=sandbox,
        config_policy=config_policy,
        cache_dir=cache_dir,
        keep=keep,
        repos=repos,
        network=network,
        defences=defences,
        suspicious_policy=suspicious_policy,
        calibrating=False,
    )


def _run(
    task: Task,
    candidate: Candidate,
    *,
    sandbox: Sandbox | str,
    config_policy: ConfigPolicy,
    cache_dir: Path | None,
    keep: bool,
    repos: Sequence[str | Path],
    network: bool,
    defences: Defences | None,
    suspicious_policy: SuspiciousPolicy,
    calibrating: bool,
    probe: _Probe | None = None,
) -> Verdict:
    """:func:`run`; ``calibrating`` is a calibration run of the unmodified task or its gold patch (see
    :func:`_runs_canary` and :func:`_command_broken`), which never calibrates in turn; ``probe`` (with
    ``calibrating``) plants every control candidate and collects their results (:func:`_controls`)."""
    defences = defences or Defences()
    # What the run learns, phase by phase; every Verdict below is built from it (RunContext.verdict).
    ctx = RunContext(task.id, candidate.name, suspicious_policy)
    # the task's own reference fix is what the screen's findings are weighed against, never rejected by it
    ctx.reference = candidate.kind in (CandidateKind.GOLD, CandidateKind.SOLUTION)
    notes, durations = ctx.notes, ctx.durations
    try:
        # An unknown backend name is the caller's mistake (InputError propagates); an unusable one is infra.
        sb = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
        sb.check()
    except SandboxError as e:
        return ctx.verdict(Status.INFRA_ERROR, str(e))
    ctx.sandbox = sb.name

    # A private tmpfs of the disk quota when we are root (see patchbench.lifecycle), removed on every
    # exit path: here, by the CLI's signal handlers, or by the reaper of the next patchbench.
    rd = open_run_dir(_safe(task.id))
    rundir = rd.path
    if rd.note:
        notes.append(rd.note)
    ws = rundir / "workspace"
    reports = rundir / "reports"
    try:
        # 1. environment (cached; built with network on a miss) and, for repository tasks, the tree
        try:
            runner = choose_runner(task.test)
        except KeyError as e:
            return ctx.verdict(Status.INFRA_ERROR, str(e).strip("'\""))
        ctx.runner = runner.name
        try:
            preparer = env_for(task.env.language, cache_dir)
            preparer.repos = tuple(repos)
            preparer.sandbox = sb
            env = preparer.prepare(task)
            baseline = Baseline(task.workspace)
            if task.repository is not None:
                tree = prepare_tree(task, env, sb, cache_dir=cache_dir, repos=repos, network=network)
                baseline = Baseline(tree=tree.path)
                notes.append(
                    f"repository {task.repository.repo}@{task.repository.base_commit[:12]}: "
                    f"{tree.source}{' (cached)' if tree.cache_hit else ''}"
                )
                notes.extend(tree.notes)
        except EnvError as e:
            return ctx.verdict(Status.INFRA_ERROR, str(e))
        durations.env_s = env.seconds
        notes.extend(env.notes)
        ctx.env_key, ctx.env_cache_hit = env.key, env.cache_hit
        if task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT:
            ctx.runner = "script"
            return verify_script(
                ctx, task, candidate, sb, env, rd, cache_dir or default_cache_dir(), config_policy
            )

        # 2. workspace + candidate + hidden tests
        tw = time.monotonic()
        baseline.materialise(ws)
        try:
            applied = apply_candidate(task, candidate, ws, baseline)
        except PatchError as e:
            return ctx.verdict(Status.PATCH_FAILED, str(e))
        except OSError as e:
            if e.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            why = f"the candidate does not fit the run's disk quota ({e.strerror})"
            return ctx.verdict(Status.PATCH_FAILED, why)
        blocked = (
            guard_test_config(task, applied, ws, config_policy, baseline) if defences.config_guard else []
        )
        ctx.apply_method = applied.method
        ctx.changed_files = tuple(sorted(applied.changed))
        ctx.config_files_blocked = tuple(blocked)
        ctx.suspicious = screen_change(task, applied.changed, ws, baseline)
        if blocked and config_policy is ConfigPolicy.REJECT:
            return ctx.verdict(
                Status.UNRESOLVED, "the candidate changed test configuration: " + ", ".join(blocked)
            )
        if blocked:
            notes.append("test-configuration files restored: " + ", ".join(blocked))
        if defences.reinject_tests:
            inject_tests(task.hidden_tests, ws)
        else:
            inject_tests([f for f in task.hidden_tests if f.path not in applied.changed], ws)
        canary: Canary | None = None
        controls: dict[str, Any] | None = None
        record: dict[str, Any] | None = None
        uncalibrated: str | None = None  # why the controls this run needs could not be learnt
        if defences.canary and defences.controls and not calibrating and _has_controls(runner.name, task):
            # Control tests (SQL: cases on perturbed data; Python: exact copies of fail-to-pass tests)
            # are the ones a calibration run of the gold patch passed (cached per task); planting is off
            # for a task whose gold patch stops resolving with them.
            try:
                record = _controls(task, runner.name, sb, cache_dir, repos, network)
            except _CalibrationFault as e:
                uncalibrated = str(e)
            # what the gold patch's own change shows is no evidence against a candidate (screen.enforce)
            gold_codes = (record or {}).get("gold_screen")
            if isinstance(gold_codes, list):
                ctx.exempt = frozenset(c for c in gold_codes if isinstance(c, str))
            if record is not None and not record.get("plant", True):
                defences = Defences(**{**defences.__dict__, "canary": False})
            controls = (record or {}).get("controls")
        if defences.canary:
            # the variants are planted as the calibration moved them (its secret shift)
            # (a calibration run has no record: its shift was set by _probe_run)
            shift = INPUT_SHIFT.get() if record is None else int(record.get("shift", 3))
            moved = INPUT_SHIFT.set(shift)
            day = RUN_DAY.set(RUN_DAY.get() if record is None else str(record.get("day", "")))
            try:
                canary = plan_canary(
                    runner.name,
                    task,
                    _as_injected(task, ws),
                    new_nonce(),
                    workspace_dst=sb.path(Bind(ws, WORKSPACE_DST)),
                    harness_dst=sb.path(Bind(rundir / "canary", CANARY_DST)),
                    read=lambda rel: _read_text(ws, rel),
                    reports_dst=REPORTS_DST,
                    env_plugins=(
                        env_pytest_plugins(Path(env.env["VIRTUAL_ENV"]))
                        if runner.name == "pytest" and env.env.get("VIRTUAL_ENV")
                        else None
                    ),
                    controls=controls,
                    probe=probe is not None,
                )
            finally:
                INPUT_SHIFT.reset(moved)
                RUN_DAY.reset(day)
        if canary is not None:
            _plant(canary, ws, rundir / "canary")
            ctx.decoys, ctx.controls = len(canary.decoys), len(canary.controls)
        durations.workspace_s = time.monotonic() - tw

        # 3. test commands
        tt = time.monotonic()
        deadline = tt + task.test.time_limit_s
        all_tests: list[TestResult] = []
        complete = True
        report_notes: list[str] = []
        exit_codes = ctx.exit_codes
        timed_out = False
        build_error: str | None = None
        sealed: list[str] = []  # what the integrity stream says against the reports (pytest)
        for i, command in enumerate(task.test.commands):
            rdir = reports / str(i)
            rdir.mkdir(parents=True)
            ws_bind = Bind(ws, WORKSPACE_DST, writable=True)
            rep_bind = Bind(rdir, REPORTS_DST, writable=True)
            binds = [ws_bind, rep_bind]
            if canary is not None and canary.harness_files:
                binds.append(Bind(rundir / "canary", CANARY_DST))
            for rel, src in env.workspace_mounts:
                point = ws / rel
                if sb.mounts:
                    _real_dir(ws, rel)
                    binds.append(Bind(src, _join(WORKSPACE_DST, rel)))
                elif not point.exists():
                    point.parent.mkdir(parents=True, exist_ok=True)
                    point.symlink_to(src)  # no mount namespace: a link stands in for the bind
            # The working directory too is the harness's to provide: a candidate (or an earlier command)
            # that removed it or put a symlink in its way must not make bwrap's set-up fail (infra).
            _real_dir(ws, task.test.workdir)
            inv = runner.invoke(command, sb.path(rep_bind))
            remaining = max(0.5, deadline - time.monotonic())
            try:
                res = exec_in_env(
                    sb,
                    inv.argv,
                    env=env,
                    cwd=_join(sb.path(ws_bind), task.test.workdir),
                    binds=binds,
                    variables=_with_canary(
                        env_variables(env, extra=inv.env),
                        canary,
                        sb.path(rep_bind),
                        pid_namespace=bool(sb.mounts),
                    ),
                    limits=Limits(timeout_s=remaining),
                )
            except SandboxError as e:
                return ctx.verdict(Status.INFRA_ERROR, str(e))
            exit_codes.append(res.exit_code)
            ctx.output(res.text("stdout"), res.text("stderr"))
            if res.memory_exceeded:
                notes.append(f"command {i}: hit the memory limit")
            if res.output_flood:
                notes.append(f"command {i}: killed for flooding its output")
            if res.timed_out:
                timed_out = True
            if rd.full():
                return ctx.verdict(Status.UNRESOLVED, f"command {i} {quota_hit(rd)}")
            # The report directory was the run's to write: anything in it but plain, capped files of
            # the run's own uid (a FIFO, a symlink to /dev/zero or to a root-only file, 300 MB of XML)
            # is tampering, the candidate's failure; nothing in it is opened before this check.
            unsafe = scan_tree(rdir, owner=res.uid, test_entries=RUNNER_TEST_ENTRY.get(runner.name))
            problem: str | None = None
            if unsafe is None:
                try:
                    parsed = runner.parse(
                        RunOutput(
                            res.text("stdout"),
                            res.text("stderr"),
                            res.exit_code,
                            rdir,
                            res.uid,
                            stdout_truncated=res.stdout_truncated,
                            stderr_truncated=res.stderr_truncated,
                        )
                    )
                except UnsafeFileError as e:
                    unsafe = str(e)
                except OSError as e:  # the run's code left the report unreadable: its doing, not ours
                    unsafe = f"{rdir}: cannot read the report ({e.strerror or e})"
                except ResultParseError as e:
                    parsed = TestResults(runner=runner.name, complete=False)
                    problem = str(e)
            if unsafe is not None:
                return ctx.verdict(
                    Status.UNRESOLVED,
                    f"the test report was refused unread (command {i}): " + unsafe.replace(f"{rundir}/", ""),
                )
            if (
                not parsed.tests
                and parsed.build_error is None
                and not res.timed_out
                and (res.exit_code in NOT_RUNNABLE or res.exit_code in runner.infra_exit_codes)
            ):
                # The test tool ended abnormally (not found, usage or internal error) before any test
                # ran. The candidate's code was loaded, and `os._exit(4)` at import looks just like
                # this: it is an infrastructure fault only when the unmodified task (and its gold
                # patch) fail the same way, which the candidate cannot steer (docs/design/grading.md).
                why = problem or " ".join(ctx.stderr_tail.split())[-300:] or "no output"
                if calibrating or _command_broken(task, sb, cache_dir, repos, network):
                    return ctx.verdict(
                        Status.INFRA_ERROR,
                        f"the test command could not run (exit {res.exit_code}): {why}"
                        + ("" if calibrating else " (the unmodified task fails the same way)"),
                    )
                return ctx.verdict(
                    Status.UNRESOLVED,
                    f"the test command ended abnormally (exit {res.exit_code}) before reporting "
                    f"any test, with the candidate's code loaded; the unmodified task's command runs: "
                    f"{why}",
                )
            if canary is not None and canary.stream:
                sealed.extend(_stream_check(canary.stream, rdir, res.uid, runner, parsed))
            if problem is not None:
                notes.append(f"command {i}: no readable result ({problem})")
            all_tests.extend(parsed.tests)
            complete = complete and parsed.complete
            if not parsed.complete:
                # why the report is not complete (a rewritten report, a bail out): the verdict's reason
                report_notes.extend(parsed.notes)
            if parsed.build_error is not None and build_error is None:
                build_error = parsed.build_error
            notes.extend(f"command {i}: {n}" for n in parsed.notes)
            if res.timed_out:
                break
        durations.test_s = time.monotonic() - tt

        # 4. grade (the canary's own result is taken out first: the task's tests are graded alone)
        canary_state: CanaryState | None = None
        control_results: dict[str, list[TestResult]] = {}
        if canary is not None:
            mine = []
            for t in all_tests:
                control, key = canary.control_of(t.id), canary.probe_of(t.id)
                if control is not None:
                    control_results.setdefault(control, []).append(t)
                elif key is not None:
                    if probe is not None:
                        probe.results.setdefault(key, []).append(t)
                elif canary.matches(t.id):
                    mine.append(t)
            all_tests = [t for t in all_tests if not canary.matches(t.id)]
            own = [t for t in mine if canary.token in t.id]  # the canary itself, by its nonce
            canary_state = (
                CanaryState.MISSING
                if not own
                else CanaryState.PASSED
                if any(t.outcome.ok for t in own)
                else CanaryState.FAILED
            )
            decoys_passed = [t.id for t in mine if canary.token not in t.id and t.outcome.ok]
            if decoys_passed and not calibrating:
                # A decoy expects a wrong value: passing it is answering whatever the check expects. (Not
                # in a calibration run: the buggy code may happen to return the perturbed value, and the
                # calibration asks only whether the command runs the canary.)
                canary_state = CanaryState.PASSED
                notes.append(
                    "decoy tests passed (they expect a wrong value): " + ", ".join(decoys_passed[:5])
                )
            if sealed:
                # The integrity record contradicts the report: tampered, whatever the canary's own line says.
                canary_state = CanaryState.PASSED
                notes.extend(f"integrity: {w}" for w in sealed[:10])
        results = TestResults(
            runner=runner.name,
            tests=tuple(all_tests),
            complete=complete,
            build_error=build_error,
            notes=tuple(report_notes),
        )
        f2p = match_ids(runner, task.fail_to_pass, results)
        p2p = match_ids(runner, task.pass_to_pass, results)
        graded_exits = exit_codes if defences.exit_codes else [None if c is None else 0 for c in exit_codes]
        g = grade(results, f2p, p2p, exit_codes=graded_exits, timed_out=timed_out, canary=canary_state)
        if g.status is Status.RESOLVED and canary_state is CanaryState.MISSING and not calibrating:
            # Resolved, yet the canary is not in the report: forged, unless this task's command never
            # runs injected tests at all. One calibration run of the untouched task tells (cached).
            runs = _runs_canary(task, runner.name, sb, cache_dir, repos, network)
            if runs is None:
                return ctx.verdict(
                    Status.INFRA_ERROR,
                    "the canary test is missing and this task could not be calibrated "
                    "(its untouched workspace did not run): the result cannot be trusted",
                    canary=canary_state,
                )
            if runs:
                g = grade(
                    results,
                    f2p,
                    p2p,
                    exit_codes=graded_exits,
                    timed_out=timed_out,
                    canary=canary_state,
                    canary_required=True,
                )
            else:
                notes.append(
                    "this task's test command does not run an injected canary test: a forged report "
                    "cannot be told from a real one for this task"
                )
        status, reason, reward = g.status, g.reason, g.reward
        if canary is not None and canary.controls and g.status is Status.RESOLVED:
            lost = [
                c
                for c in canary.controls
                if not control_passed(
                    control_results.get(c, []), (controls or {}).get(canary.control_keys.get(c, ""))
                )
            ]
            if lost:
                # Every listed test passed, yet a control (a copy of a fail-to-pass test the gold patch
                # passes; SQL: on data it has never seen, expecting gold's rows) did not: the candidate
                # answers the listed tests, not the task (answer lookup).
                ctx.notes.extend(
                    f"control {c}: "
                    + (
                        ", ".join(t.outcome.value for t in control_results[c])
                        if c in control_results
                        else "missing"
                    )
                    + (
                        " (on moved inputs: its values are not the gold patch's)"
                        if "expect" in (controls or {}).get(canary.control_keys.get(c, ""), {})
                        else ""
                    )
                    for c in lost
                )
                status, reward = Status.UNRESOLVED, 0.0
                reason = (
                    f"{len(lost)} of {len(canary.controls)} control tests failed while every listed test "
                    "passed: copies of fail-to-pass tests (SQL: on perturbed data, expecting what the gold "
                    "patch returns there) that the gold patch passes; the code answers the listed tests only "
                    "(answer lookup)"
                )
            else:
                notes.append(f"control tests: {len(canary.controls)} planted, all passed")
        if status is Status.RESOLVED and uncalibrated is not None:
            # Every listed test passed, but the controls that tell a fix from a partial repair could not
            # be learnt (a loaded machine timed the gold calibration out): not a pass on the weaker
            # grade, and not the candidate's fault. The next run calibrates again.
            status, reward = Status.INFRA_ERROR, 0.0
            reason = (
                f"the control tests could not be calibrated ({uncalibrated}): every listed test passed, "
                "but without the controls the result cannot be trusted; run it again"
            )
        if keep:
            notes.append(f"run directory kept: {rundir}")
        return ctx.verdict(
            status,
            reason,
            reward=reward,
            pass_ratio=g.pass_ratio,
            fail_to_pass=g.fail_to_pass,
            pass_to_pass=g.pass_to_pass,
            tests=results.tests,
            canary=canary_state,
            build_error=results.build_error,
        )
    except InfraError as e:
        return ctx.verdict(Status.INFRA_ERROR, str(e))
    except OSError as e:
        return ctx.verdict(Status.INFRA_ERROR, f"I/O error during the run: {e}")
    finally:
        rd.close(keep=keep)


#: The largest workspace file the harness reads back (a hidden test the canary is planted into).
WORKSPACE_READ_LIMIT = 16 * 2**20


def _read_text(ws: Path, rel: str) -> str | None:
    """A workspace file's text, None unless it is a plain UTF-8 file (no link followed anywhere)."""
    try:
        return read_untrusted(ws / rel, root=ws, limit=WORKSPACE_READ_LIMIT).decode("utf-8")
    except (OSError, ResultParseError, UnicodeDecodeError):
        return None


def _as_injected(task: Task, ws: Path) -> list[FileEntry]:
    """The hidden test files as they now are in the workspace (the canary is planted into these)."""
    out = []
    for f in task.hidden_tests:
        text = _read_text(ws, f.path)
        if text is not None:
            out.append(f.model_copy(update={"content": text, "encoding": "text"}))
    return out


def _plant(canary: Canary, ws: Path, harness_dir: Path) -> None:
    """Write the canary's files into the workspace and the harness directory (read-only to the run)."""
    for rel, text in canary.files.items():
        dest = ws / rel
        if dest.is_symlink():
            dest.unlink()
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
    if canary.harness_files:
        harness_dir.mkdir(mode=0o755, exist_ok=True)
        for name, content in canary.harness_files.items():
            if isinstance(content, bytes):
                (harness_dir / name).write_bytes(content)
            else:
                (harness_dir / name).write_text(content, encoding="utf-8")
            (harness_dir / name).chmod(0o644)


def _with_canary(
    env: dict[str, str],
    canary: Canary | None,
    reports: str | None = None,
    *,
    pid_namespace: bool = True,
) -> dict[str, str]:
    """The command's environment with the canary's variables: options appended, paths put first; the
    integrity stream in this command's report directory (``reports``, as the sandbox sees it)."""
    if canary is None:
        return env
    out = dict(env)
    if not pid_namespace:
        out["PATCHBENCH_SHARED_PIDS"] = "1"  # the JUnit canary's daemon check needs a pid namespace
    if canary.stream and reports:
        out["PATCHBENCH_CANARY_STREAM"] = posixpath.join(reports, canary.stream)
    for key, value in canary.env.items():
        if key == "PYTEST_ADDOPTS" and out.get(key):
            out[key] = f"{out[key]} {value}"
        elif key in ("PYTHONPATH", "LD_PRELOAD") and out.get(key):
            out[key] = f"{value}:{out[key]}"
        else:
            out[key] = value
    return out


def _stream_check(name: str, rdir: Path, uid: int | None, runner: Any, parsed: TestResults) -> list[str]:
    """The pytest plugin's integrity stream in ``rdir`` against the JUnit report parsed from it."""
    from .runners.pytest_junit import REPORT_FILE

    def read(rel: str, limit: int) -> bytes | None:
        path = rdir / rel
        if not os.path.lexists(path):
            return None
        return read_untrusted(path, root=rdir, limit=limit, owner=uid)

    try:
        stream = read(name, STREAM_LIMIT)
        xml = read(REPORT_FILE, REPORT_LIMIT)
    except (UnsafeFileError, OSError) as e:
        return [f"the integrity stream or report is unreadable ({e})"]
    return stream_problems(
        stream, xml, ((t.id, t.outcome.ok) for t in parsed.tests), normalise=runner.normalise_id
    )


@dataclass
class _Probe:
    """What a probing calibration run collects: each planted control candidate's result, by key."""

    results: dict[str, list[TestResult]] = field(default_factory=dict)


#: The secret shifts a calibration draws from: 11 to 59, prime to 2, 3 and 5, so a value moved by one
#: leaves every grid of 2, 3, 5, 6, 10, 15, 30 or 60 the listed inputs share (times on the hour, prices in
#: tens); code right only on such a grid meets an input off it. Not 7: scaled by 49, ids 5 to 20 stayed
#: below 1000 and a repair drawn there held under that one shift (round ten; every shift is tried by
#: ``scripts/redteam/shift_sweep.py``).
SHIFTS = tuple(n for n in range(11, 60) if all(n % p for p in (2, 3, 5)))
#: Bumped whenever control planting or calibration changes, so cached records are not reused.
CONTROLS_VERSION = "43"


#: The runners whose controls the tree-sitter planner plants (:mod:`patchbench.canary._inputs_native`),
#: their moved-input values recorded through failure messages.
_NATIVE_RUNNERS = ("node-test", *JS_FRAMEWORKS, "go-test", "cargo-test", "junit")


def _has_controls(runner: str, task: Task) -> bool:
    """Whether this runner plants control tests (which need a calibration of the gold patch)."""
    return bool(task.gold_patch and task.fail_to_pass) and (
        runner == "pytest"
        or runner in _NATIVE_RUNNERS
        or (runner == "tap" and task.language in ("python", "sql"))
    )


@functools.cache
def _planting_code() -> str:
    """A digest of the code that plants and learns controls (the ``canary`` package's sources), read once
    per process: the code it runs is what it imported, and a source edited while it runs (a long audit)
    must not have records learnt by the old code filed under the new code's key."""
    digest = hashlib.sha256()
    for path in sorted(Path(canary_package.__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


#: How much longer than the task's time limit a probing calibration run may take (see :func:`_probe_run`);
#: one that still times out learns nothing, and a run that needs its controls is not graded resolved.
PROBE_TIME_FACTOR = 3


class _CalibrationFault(InfraError):
    """A control calibration run ended in a fault or a timeout: nothing learnt, nothing cached."""


def _controls(
    task: Task,
    runner: str,
    sb: Sandbox,
    cache_dir: Path | None,
    repos: Sequence[str | Path],
    network: bool,
) -> dict[str, Any] | None:
    """The calibrated control tests of a task: ``{"plant": bool (the canary), "controls": {key: {...}}}``,
    cached by task content. None when the gold patch does not resolve even without probes (a broken task:
    not cached); :class:`_CalibrationFault` when a calibration run ended in a fault or a timeout (not
    cached: a run that needs these controls cannot be graded resolved).

    The gold patch runs once with every control candidate planted as a *probe* (SQL: then the untouched
    task too); :func:`patchbench.canary.learn_controls` turns the probes' results into controls. When
    the gold patch does not resolve with the probes planted, no control is (and for SQL not even the
    canary case).
    """
    # the shifts drawn from are part of the key: a record learnt under another draw is not reused where
    # one shift is pinned (the battery's tests, scripts/redteam/shift_sweep.py)
    # and so is the planting code itself: a record learnt by other code (another checkout sharing the
    # cache, an edit without a version bump) is not reused (round ten found such records)
    body = (
        f"{task.model_dump_json()}:{runner}:controls:{CONTROLS_VERSION}:{CANARY_VERSION}:{SHIFTS}"
        f":{_planting_code()}"
    )
    sql = task.language == "sql"
    # SQL asks about the run's own day too (#today): a record learnt on another day is not reused
    today = datetime.date.today().isoformat() if sql else ""
    body += f":{today}"
    key = hashlib.sha256(body.encode()).hexdigest()[:32]
    path = (cache_dir or default_cache_dir()) / "canary" / f"controls-{key}.json"
    try:
        cached = json.loads(read_untrusted(path, root=path.parent, limit=16 << 20))
        if isinstance(cached, dict) and isinstance(cached.get("controls"), dict):
            return cached
    except (OSError, ResultParseError, ValueError):
        pass
    runs: dict[str, _Probe] = {}
    # SQL needs the buggy code's rows too (is a probe informative?); a copy of a test fails there anyway
    # (and every runner with controls on moved inputs: one is kept only where the buggy code's values
    # differ)
    native = runner in _NATIVE_RUNNERS
    plan = [("gold", Candidate.gold())] + (
        [("buggy", Candidate.empty())] if sql or native or runner in ("pytest", "tap") else []
    )
    # every variant (see PROBE_INPUTS): first with those that may not build or may run long
    inputs = 3
    # how far the several-literal input variants move numbers: secret, per task (kept in the record)
    shift = secrets.choice(SHIFTS)
    slowed = False  # a level given up for time: perhaps load, so what is learnt is not kept for good
    gold_screen: list[str] = []  # the screen's codes on the gold patch's change (screen.enforce's exempt)
    for name, cand in plan:
        runs[name] = _Probe()
        v = _probe_run(task, cand, sb, cache_dir, repos, network, runs[name], inputs, shift, today)
        if name == "gold" and v.status is Status.TIMEOUT and inputs:
            # A loaded machine, before a variant that runs too long: the same level once more, given twice
            # the time (the final battery of round seventeen's session lost level 3 on py-decimal to load,
            # and with it the variant that caught rt10-py-json-floats-below-ten)
            runs[name] = _Probe()
            v = _probe_run(
                task, cand, sb, cache_dir, repos, network, runs[name], inputs, shift, today, factor=2
            )
        while name == "gold" and v.status in (Status.UNRESOLVED, Status.TIMEOUT) and inputs:
            # The variants on moved inputs are generated code: if one does not build, breaks gold or runs
            # too long (a size scaled past what the test can do in its time), the basic ones, then the
            # exact copies, are still worth learning on their own.
            slowed = slowed or v.status is Status.TIMEOUT
            inputs -= 1
            runs[name] = _Probe()
            v = _probe_run(task, cand, sb, cache_dir, repos, network, runs[name], inputs, shift, today)
            log.info(
                "control calibration for %s: input variants at level %d: %s (%s)",
                task.id,
                inputs,
                v.status.value,
                v.reason[:400],
            )
        if name == "gold":
            gold_screen = sorted({f.code for f in v.suspicious})
        if name == "buggy" and v.status is Status.TIMEOUT:
            # The buggy code may hang where gold does not: its values are then whatever it reported (a
            # hang fails a control as surely as another value); retrying every run would learn no more.
            continue
        if v.status in (Status.INFRA_ERROR, Status.TIMEOUT):
            # Nothing learnt (a fault, or a loaded machine): no controls this time, and nothing cached.
            log.info(
                "control calibration for %s: %s run ended %s (%s)", task.id, name, v.status.value, v.reason
            )
            raise _CalibrationFault(f"its {name} run ended {v.status.value}: {v.reason}"[:300])
        if name == "gold" and v.status is not Status.RESOLVED:
            # Did the probes break gold, or does gold not resolve anyway (a broken or flaky task)? Only
            # the first is learnt for good; the second is tried again next time.
            plain = _calibration_run(task, cand, sb, cache_dir, repos, network, planted=False)
            if plain.status is not Status.RESOLVED:
                log.info("control calibration for %s: gold does not resolve (%s)", task.id, plain.reason)
                return None
            # Other runners keep their canary (its planting never depended on this calibration); a SQL
            # cases file that does not take planted cases (a stricter harness than sqltap) gets none.
            record: dict[str, Any] = {
                "task": task.id,
                "plant": not sql,
                "controls": {},
                "gold_screen": gold_screen,
            }
            _write_json(path, record)
            log.info("control calibration for %s: gold does not resolve with probes planted", task.id)
            return record
    found = learn_controls(
        task, runs["gold"].results, runs["buggy"].results if "buggy" in runs else None, sql=sql, native=native
    )
    record = {
        "task": task.id,
        "plant": True,
        "controls": found,
        "shift": shift,
        "day": today,
        "gold_screen": gold_screen,
    }
    if slowed:
        # Round seventeen's final battery: a level given up for time on a loaded machine was cached, and
        # every later run planted the fewer controls (and rewarded what the lost ones catch). Such a record
        # serves this run only; the next calibrates again.
        log.info(
            "control calibration for %s: %d controls, a level given up for time: not cached",
            task.id,
            len(found),
        )
        return record
    _write_json(path, record)
    log.info("control calibration for %s: %d controls", task.id, len(found))
    return record


def _probe_run(
    task: Task,
    cand: Candidate,
    sb: Sandbox,
    cache_dir: Path | None,
    repos: Sequence[str | Path],
    network: bool,
    probe: _Probe,
    inputs: int,
    shift: int,
    day: str = "",
    factor: int = 1,
) -> Verdict:
    """A probing calibration run; ``inputs`` says which control variants on moved inputs it plants (see
    :data:`PROBE_INPUTS`: 0 none); ``shift`` is how far the several-literal variants move numbers; ``day``
    the day SQL's ``#today`` cases anchor at (see :data:`RUN_DAY`); ``factor`` more time again (a retry
    after a timeout)."""
    token, moved, anchored = PROBE_INPUTS.set(inputs), INPUT_SHIFT.set(shift), RUN_DAY.set(day)
    # the probes are more tests (each fail-to-pass test again, on larger inputs): a task's own time
    # limit, met by its listed tests, is no measure of theirs
    limit = task.test.time_limit_s * PROBE_TIME_FACTOR * factor
    spec = task.test.model_copy(update={"time_limit_s": limit})
    try:
        return _calibration_run(
            task.model_copy(update={"test": spec}), cand, sb, cache_dir, repos, network, probe=probe
        )
    finally:
        PROBE_INPUTS.reset(token)
        INPUT_SHIFT.reset(moved)
        RUN_DAY.reset(anchored)


def _runs_canary(
    task: Task,
    runner: str,
    sb: Sandbox,
    cache_dir: Path | None,
    repos: Sequence[str | Path],
    network: bool,
) -> bool | None:
    """Whether this task's test command runs a planted canary: calibrated once on the untouched buggy
    workspace (then the gold patch, if the buggy code cannot even load) and cached by task content.

    None when neither calibration run reported any test (an infrastructure fault, or a broken task).
    """
    body = f"{task.model_dump_json()}:{runner}:{CANARY_VERSION}"
    key = hashlib.sha256(body.encode()).hexdigest()[:32]
    path = (cache_dir or default_cache_dir()) / "canary" / f"{key}.json"
    try:
        return bool(json.loads(read_untrusted(path, root=path.parent, limit=1 << 16))["runs_canary"])
    except (OSError, ResultParseError, ValueError, KeyError, TypeError):
        pass
    usable = False
    runs = False
    for v in _calibration_runs(task, sb, cache_dir, repos, network):
        ran = bool(v.tests) or v.canary == CanaryState.FAILED.value
        if v.status in (Status.INFRA_ERROR, Status.BAD_TASK) or not ran:
            continue  # nothing ran: this run says nothing about the canary
        usable = True
        if v.canary == CanaryState.FAILED.value:
            runs = True
            break
    if not usable:
        return None
    _write_json(path, {"task": task.id, "runner": runner, "runs_canary": runs})
    log.info("canary calibration for %s: %s", task.id, "runs" if runs else "not run by the command")
    return runs


def _calibration_runs(
    task: Task, sb: Sandbox, cache_dir: Path | None, repos: Sequence[str | Path], network: bool
) -> Iterator[Verdict]:
    """The calibration runs, lazily: the untouched workspace, then gold when the task has a gold patch and
    the caller reads on. They tell a task's own behaviour from a candidate's (and never calibrate in turn).
    """
    for cand in (Candidate.empty(), Candidate.gold() if task.gold_patch else None):
        if cand is not None:
            yield _calibration_run(task, cand, sb, cache_dir, repos, network)


def _calibration_run(
    task: Task,
    cand: Candidate,
    sb: Sandbox,
    cache_dir: Path | None,
    repos: Sequence[str | Path],
    network: bool,
    probe: _Probe | None = None,
    *,
    planted: bool = True,
) -> Verdict:
    """One calibration run: every defence on (``planted=False``: nothing planted at all, no canary),
    configuration stripped, nothing kept, never calibrating in turn."""
    return _run(
        task,
        cand,
        sandbox=sb,
        config_policy=ConfigPolicy.STRIP,
        cache_dir=cache_dir,
        keep=False,
        repos=repos,
        network=network,
        defences=None if planted else Defences(canary=False),
        suspicious_policy=SuspiciousPolicy.REPORT,
        calibrating=True,
        probe=probe,
    )


def _command_broken(
    task: Task,
    sb: Sandbox,
    cache_dir: Path | None,
    repos: Sequence[str | Path],
    network: bool,
) -> bool:
    """Whether this task's test command cannot run whatever the code: the untouched workspace and the
    gold patch (when there is one) both end in an ``infra_error`` of their own (the tool could not
    run, or the sandbox or environment failed). False as soon as one of them does not.

    "Runs" is cached by task content (it cannot change); "broken" is not, so a fixed machine is seen.
    """
    body = f"{task.model_dump_json()}:command-runs:{CANARY_VERSION}"
    key = hashlib.sha256(body.encode()).hexdigest()[:32]
    path = (cache_dir or default_cache_dir()) / "calibration" / f"{key}.json"
    try:
        if json.loads(read_untrusted(path, root=path.parent, limit=1 << 16))["command_runs"] is True:
            return False
    except (OSError, ResultParseError, ValueError, KeyError, TypeError):
        pass
    for v in _calibration_runs(task, sb, cache_dir, repos, network):
        if v.status is not Status.INFRA_ERROR:
            _write_json(path, {"task": task.id, "command_runs": True})
            log.info(
                "calibration for %s: the test command runs (%s: %s)", task.id, v.candidate, v.status.value
            )
            return False
    return True


def _write_json(path: Path, obj: dict[str, Any]) -> None:
    """Write a small calibration record atomically (parallel runs may calibrate one task at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        fh.write(json.dumps(obj))
    os.replace(tmp, path)


def _real_dir(root: Path, rel: str) -> None:
    """Make ``root/rel`` a directory reached through directories only (symlinks and files in the way
    are removed): a mount point or working directory that bwrap can always set up."""
    parts = [p for p in rel.split("/") if p and p != "."]
    if ".." in parts:
        return
    cur = root
    for part in parts:
        cur = cur / part
        if cur.is_symlink() or (cur.exists() and not cur.is_dir()):
            cur.unlink()
        cur.mkdir(exist_ok=True)


def _join(base: str, rel: str) -> str:
    rel = rel.strip("/")
    return base if rel in ("", ".") else f"{base.rstrip('/')}/{rel}"


def _safe(task_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in task_id)[:40]
