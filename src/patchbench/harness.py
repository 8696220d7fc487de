"""``run(task, candidate) -> Verdict``: the one flow, nothing more.

materialise the workspace → apply the candidate → guard test configuration → inject hidden tests →
prepare the environment (cached) → run each test command in the sandbox (offline, limits) → parse per-test
results → grade default-fail → Verdict.
"""

from __future__ import annotations

import logging
import os
import posixpath
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .candidate import Candidate
from .envs import Prepared, env_for
from .errors import EnvError, InfraError, PatchError, ResultParseError, SandboxError
from .grading import grade
from .repos import prepare_tree
from .results import TestResult, TestResults
from .runners import choose_runner, match_ids
from .runners._base import RunOutput
from .sandbox import Bind, ExecRequest, Limits, Sandbox, get_sandbox
from .task import Task, VerifierKind
from .verdict import Durations, Status, Verdict
from .verifiers.script import (
    dockerfile_text,
    plan_dockerfile,
    read_reward,
    replay_app_steps,
    verify_time_downloads,
    write_shims,
)
from .workspace import Baseline, ConfigPolicy, apply_candidate, guard_test_config, inject_tests

log = logging.getLogger("patchbench.harness")

#: Where the workspace and the runner reports appear inside the sandbox.
WORKSPACE_DST = "/workspace"
REPORTS_DST = "/.patchbench-reports"
#: Exit codes that mean the test command itself could not run (not found / not executable).
NOT_RUNNABLE = (126, 127)
TAIL = 4000
#: Where the offline uv/uvx stand-ins appear inside the sandbox (script verifiers).
SHIMS_DST = "/.patchbench-shims"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


def runs_root() -> Path:
    """Where run directories are made: ``$PATCHBENCH_RUNS`` or the system temp dir."""
    return Path(os.environ.get("PATCHBENCH_RUNS") or tempfile.gettempdir())


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

    Returns:
        The Verdict. Infrastructure faults come back as status ``infra_error``.
    """
    t0 = time.monotonic()
    base = {"task_id": task.id, "candidate": candidate.name}
    notes: list[str] = []
    durations = Durations()

    def finish(v: Verdict) -> Verdict:
        d = v.durations.model_copy(update={"total_s": time.monotonic() - t0})
        return v.model_copy(update={"durations": d})

    try:
        # An unknown backend name is the caller's mistake (InputError propagates); an unusable one is infra.
        sb = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
        sb.check()
    except SandboxError as e:
        return finish(Verdict(**base, status=Status.INFRA_ERROR, reason=str(e)))

    rundir = Path(tempfile.mkdtemp(prefix=f"patchbench-{_safe(task.id)}-", dir=runs_root()))
    os.chmod(rundir, 0o755)
    ws = rundir / "workspace"
    reports = rundir / "reports"
    try:
        # 1. environment (cached; built with network on a miss) and, for repository tasks, the tree
        try:
            runner = choose_runner(task.test)
        except KeyError as e:
            return finish(
                Verdict(**base, status=Status.INFRA_ERROR, sandbox=sb.name, reason=str(e).strip("'\""))
            )
        try:
            env = env_for(task.env.language, cache_dir).prepare(task)
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
            return finish(
                Verdict(**base, status=Status.INFRA_ERROR, reason=str(e), runner=runner.name, sandbox=sb.name)
            )
        durations.env_s = env.seconds
        notes.extend(env.notes)
        if task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT:
            return finish(
                _run_script(
                    task,
                    candidate,
                    sb,
                    env,
                    baseline,
                    rundir,
                    config_policy,
                    notes,
                    durations,
                    {
                        **base,
                        "runner": "script",
                        "sandbox": sb.name,
                        "env_key": env.key,
                        "env_cache_hit": env.cache_hit,
                    },
                )
            )

        # 2. workspace + candidate + hidden tests
        tw = time.monotonic()
        baseline.materialise(ws)
        try:
            applied = apply_candidate(task, candidate, ws, baseline)
        except PatchError as e:
            return finish(Verdict(**base, status=Status.PATCH_FAILED, reason=str(e), sandbox=sb.name))
        blocked = guard_test_config(task, applied, ws, config_policy, baseline)
        common: dict[str, Any] = {
            **base,
            "apply_method": applied.method,
            "changed_files": tuple(sorted(applied.changed)),
            "config_files_blocked": tuple(blocked),
            "sandbox": sb.name,
            "env_key": env.key,
            "env_cache_hit": env.cache_hit,
            "runner": runner.name,
        }
        if blocked and config_policy is ConfigPolicy.REJECT:
            return finish(
                Verdict(
                    **common,
                    status=Status.UNRESOLVED,
                    reason="the candidate changed test configuration: " + ", ".join(blocked),
                )
            )
        if blocked:
            notes.append("test-configuration files restored: " + ", ".join(blocked))
        inject_tests(task.hidden_tests, ws)
        durations.workspace_s = time.monotonic() - tw

        # 3. test commands
        tt = time.monotonic()
        deadline = tt + task.test.time_limit_s
        all_tests: list[TestResult] = []
        complete = True
        exit_codes: list[int | None] = []
        timed_out = False
        build_error: str | None = None
        out_tail = err_tail = ""
        for i, command in enumerate(task.test.commands):
            rdir = reports / str(i)
            rdir.mkdir(parents=True)
            ws_bind = Bind(ws, WORKSPACE_DST, writable=True)
            rep_bind = Bind(rdir, REPORTS_DST, writable=True)
            binds = [ws_bind, rep_bind, *(Bind(p, str(p)) for p in env.ro_paths)]
            for rel, src in env.workspace_mounts:
                point = ws / rel
                if sb.mounts:
                    point.mkdir(parents=True, exist_ok=True)
                    binds.append(Bind(src, _join(WORKSPACE_DST, rel)))
                elif not point.exists():
                    point.parent.mkdir(parents=True, exist_ok=True)
                    point.symlink_to(src)  # no mount namespace: a link stands in for the bind
            inv = runner.invoke(command, sb.path(rep_bind))
            argv = inv.argv
            if env.prelude:
                argv = ["bash", "-c", "\n".join([*env.prelude, 'exec "$@"']), "prelude", *argv]
            remaining = max(0.5, deadline - time.monotonic())
            req = ExecRequest(
                argv=argv,
                cwd=_join(sb.path(ws_bind), task.test.workdir),
                binds=binds,
                env=_env(env, inv.env),
                limits=Limits(timeout_s=remaining),
            )
            try:
                res = sb.exec(req)
            except SandboxError as e:
                return finish(
                    Verdict(
                        **common,
                        status=Status.INFRA_ERROR,
                        reason=str(e),
                        notes=tuple(notes),
                        durations=durations,
                    )
                )
            exit_codes.append(res.exit_code)
            out_tail, err_tail = res.text("stdout")[-TAIL:], res.text("stderr")[-TAIL:]
            if res.memory_exceeded:
                notes.append(f"command {i}: hit the memory limit")
            if res.output_flood:
                notes.append(f"command {i}: killed for flooding its output")
            if res.timed_out:
                timed_out = True
            problem: str | None = None
            try:
                parsed = runner.parse(RunOutput(res.text("stdout"), res.text("stderr"), res.exit_code, rdir))
            except ResultParseError as e:
                parsed = TestResults(runner=runner.name, complete=False)
                problem = str(e)
            if (
                not parsed.tests
                and parsed.build_error is None
                and not res.timed_out
                and (res.exit_code in NOT_RUNNABLE or res.exit_code in runner.infra_exit_codes)
            ):
                # The test tool itself could not run (not found, usage or internal error) before any
                # test ran: the task's command or our environment is at fault, not the candidate.
                why = problem or " ".join(err_tail.split())[-300:] or "no output"
                return finish(
                    Verdict(
                        **common,
                        status=Status.INFRA_ERROR,
                        exit_codes=tuple(exit_codes),
                        reason=f"the test command could not run (exit {res.exit_code}): {why}",
                        notes=tuple(notes),
                        durations=durations,
                        stdout_tail=out_tail,
                        stderr_tail=err_tail,
                    )
                )
            if problem is not None:
                notes.append(f"command {i}: no readable result ({problem})")
            all_tests.extend(parsed.tests)
            complete = complete and parsed.complete
            if parsed.build_error is not None and build_error is None:
                build_error = parsed.build_error
            notes.extend(f"command {i}: {n}" for n in parsed.notes)
            if res.timed_out:
                break
        durations.test_s = time.monotonic() - tt

        # 4. grade
        results = TestResults(
            runner=runner.name, tests=tuple(all_tests), complete=complete, build_error=build_error
        )
        g = grade(
            results,
            match_ids(runner, task.fail_to_pass, results),
            match_ids(runner, task.pass_to_pass, results),
            exit_codes=exit_codes,
            timed_out=timed_out,
        )
        if keep:
            notes.append(f"run directory kept: {rundir}")
        return finish(
            Verdict(
                **common,
                status=g.status,
                reward=g.reward,
                pass_ratio=g.pass_ratio,
                reason=g.reason,
                fail_to_pass=g.fail_to_pass,
                pass_to_pass=g.pass_to_pass,
                tests=results.tests,
                exit_codes=tuple(exit_codes),
                notes=tuple(notes),
                durations=durations,
                stdout_tail=out_tail,
                stderr_tail=err_tail,
            )
        )
    except InfraError as e:
        return finish(Verdict(**base, status=Status.INFRA_ERROR, reason=str(e)))
    except OSError as e:
        return finish(Verdict(**base, status=Status.INFRA_ERROR, reason=f"I/O error during the run: {e}"))
    finally:
        if not keep:
            shutil.rmtree(rundir, ignore_errors=True)


def _run_script(
    task: Task,
    candidate: Candidate,
    sb: Sandbox,
    env: Prepared,
    baseline: Baseline,
    rundir: Path,
    config_policy: ConfigPolicy,
    notes: list[str],
    durations: Durations,
    common: dict[str, Any],
) -> Verdict:
    """A Harbor-style task: /app, /tests and /logs in the sandbox; the reward file decides."""
    assert task.verifier is not None
    spec = task.verifier
    app, tests_dir, logs = rundir / "app", rundir / "tests", rundir / "logs"
    shims = rundir / "shims"
    tw = time.monotonic()
    docker = plan_dockerfile(dockerfile_text(task), spec.app_dir)
    notes.extend(f"Dockerfile instruction not honoured natively: {u}" for u in docker.unsupported)
    script_file = next((f for f in task.hidden_tests if f.path == posixpath.basename(spec.script)), None)
    if script_file is not None:
        notes.extend(verify_time_downloads(script_file.data().decode("utf-8", errors="replace")))
    baseline.materialise(app)
    replay = replay_app_steps(sb, docker.app_steps, app, env, spec.app_dir)
    if replay is not None and replay.exit_code != 0:
        why = " ".join(replay.text("stderr").split())[-300:]
        return Verdict(
            **common,
            status=Status.INFRA_ERROR,
            notes=tuple(notes),
            durations=durations,
            reason=f"replaying the Dockerfile's RUN steps on {spec.app_dir} failed: {why}",
        )
    # The candidate applies to what the image holds: the COPYed files plus what RUN made of them.
    image = Baseline(tree=app) if docker.app_steps else baseline
    if docker.app_steps:
        snapshot = rundir / "image"
        shutil.copytree(app, snapshot, symlinks=True)
        image = Baseline(tree=snapshot)
    try:
        applied = apply_candidate(task, candidate, app, image)
    except PatchError as e:
        return Verdict(**common, status=Status.PATCH_FAILED, reason=str(e), notes=tuple(notes))
    guard_task = task.model_copy(update={"hidden_tests": ()})  # the tests live in /tests, not in /app
    blocked = guard_test_config(guard_task, applied, app, config_policy, image)
    common = {
        **common,
        "apply_method": applied.method,
        "changed_files": tuple(sorted(applied.changed)),
        "config_files_blocked": tuple(blocked),
    }
    if blocked and config_policy is ConfigPolicy.REJECT:
        return Verdict(
            **common,
            status=Status.UNRESOLVED,
            notes=tuple(notes),
            reason="the candidate changed test configuration: " + ", ".join(blocked),
        )
    tests_dir.mkdir()
    inject_tests(task.hidden_tests, tests_dir)
    # /tests stays root's and sticky: the verifier may create files there (a .venv), but code the
    # candidate gets run (an import check) cannot rewrite or replace the hidden tests before they run.
    os.chmod(tests_dir, 0o1777)
    for dirpath, dirnames, filenames in os.walk(tests_dir):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o1777)
        for f in filenames:
            p = os.path.join(dirpath, f)
            os.chmod(p, 0o755 if os.access(p, os.X_OK) else 0o644)
    (logs / "verifier").mkdir(parents=True)
    write_shims(shims)
    durations.workspace_s = time.monotonic() - tw
    binds = [
        Bind(app, spec.app_dir, writable=True),
        Bind(tests_dir, spec.tests_dir, writable=True, give=False),
        Bind(logs, posixpath.dirname(spec.logs_dir.rstrip("/")) or "/logs", writable=True),
        Bind(shims, SHIMS_DST),
        *(Bind(p, str(p)) for p in env.ro_paths),
    ]
    path = ":".join([SHIMS_DST, *env.path, BASE_PATH])
    variables = {**docker.env, "PATH": path, **env.env}
    timeout = spec.timeout_s or task.test.time_limit_s
    tt = time.monotonic()
    argv = ["bash", posixpath.join(spec.tests_dir, posixpath.basename(spec.script))]
    if env.prelude:
        argv = ["bash", "-c", "\n".join([*env.prelude, 'exec "$@"']), "prelude", *argv]
    try:
        res = sb.exec(
            ExecRequest(
                argv=argv,
                cwd=docker.workdir,
                binds=binds,
                env=variables,
                limits=Limits(timeout_s=timeout),
            )
        )
    except SandboxError as e:
        return Verdict(**common, status=Status.INFRA_ERROR, reason=str(e), notes=tuple(notes))
    durations.test_s = time.monotonic() - tt
    out_tail, err_tail = res.text("stdout")[-TAIL:], res.text("stderr")[-TAIL:]
    reward = read_reward(logs / "verifier")
    extra = {
        "exit_codes": (res.exit_code,),
        "notes": tuple(notes),
        "durations": durations,
        "stdout_tail": out_tail,
        "stderr_tail": err_tail,
        "pass_ratio": reward.pass_ratio,
    }
    if res.timed_out:
        return Verdict(**common, **extra, status=Status.TIMEOUT, reason="the verifier hit its time limit")
    if reward.value is None:
        return Verdict(
            **common,
            **extra,
            status=Status.VERIFIER_ERROR,
            reason=f"{reward.problem} (verifier exit {res.exit_code}); never a pass",
        )
    value = max(0.0, min(1.0, reward.value))
    if value >= 1.0:
        return Verdict(**common, **extra, status=Status.RESOLVED, reward=1.0)
    return Verdict(
        **common,
        **extra,
        status=Status.UNRESOLVED,
        reward=value,
        reason=f"the verifier's reward is {reward.value:g} (exit {res.exit_code})",
    )


def _env(env: Prepared, extra: dict[str, str]) -> dict[str, str]:
    path = ":".join([*env.path, BASE_PATH])
    return {"PATH": path, **env.env, **extra}


def _join(base: str, rel: str) -> str:
    rel = rel.strip("/")
    return base if rel in ("", ".") else f"{base.rstrip('/')}/{rel}"


def _safe(task_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in task_id)[:40]
