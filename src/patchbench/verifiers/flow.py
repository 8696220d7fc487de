"""The script-verifier flow: a Harbor task's image rebuilt natively, its ``tests/test.sh`` run in the
sandbox, the reward file read as untrusted input (see docs/design/verifiers.md).

:func:`verify_script` is the script implementation of the harness's verification step (the per-test
runners are the other, in :mod:`patchbench.harness`); :func:`run_solution` is the ``solution`` candidate
(Harbor's oracle: ``solution/solve.sh`` run in the image).
"""

from __future__ import annotations

import os
import posixpath
import time
from collections.abc import Sequence
from pathlib import Path

from ..candidate import Candidate, CandidateKind
from ..context import RunContext, quota_hit, screen_change
from ..envs import Prepared, env_variables, exec_in_env
from ..errors import EnvError, PatchError, SandboxError
from ..formats._dockerfile import layable
from ..lifecycle import RunDir
from ..sandbox import Bind, Limits, Sandbox
from ..task import Task
from ..verdict import Status, Verdict
from ..workspace import (
    Applied,
    Baseline,
    ConfigPolicy,
    apply_candidate,
    guard_test_config,
    inject_tests,
    materialise,
)
from .image import LaidOut, prepare_image
from .script import read_reward, verify_time_downloads, write_shims

__all__ = ["SHIMS_DST", "SOLUTION_DST", "run_solution", "verify_script"]

#: Where the offline uv/uvx stand-ins appear inside the sandbox.
SHIMS_DST = "/.patchbench-shims"
#: Where Harbor's oracle uploads a task's ``solution/`` directory, and runs ``solve.sh`` from.
SOLUTION_DST = "/solution"


def verify_script(
    ctx: RunContext,
    task: Task,
    candidate: Candidate,
    sb: Sandbox,
    env: Prepared,
    rd: RunDir,
    cache_dir: Path,
    config_policy: ConfigPolicy,
) -> Verdict:
    """A Harbor-style task: the image's directories, /tests and /logs in the sandbox; the reward decides.

    The script-verifier implementation of the harness's verification step (the other is the per-test
    runners, in :mod:`patchbench.harness`): ``ctx`` holds what the run knows and builds the Verdict.
    """
    notes, durations = ctx.notes, ctx.durations
    assert task.verifier is not None
    rundir = rd.path
    spec = task.verifier
    tests_dir, logs = rundir / "tests", rundir / "logs"
    shims = rundir / "shims"
    tw = time.monotonic()
    script_file = next((f for f in task.hidden_tests if f.path == posixpath.basename(spec.script)), None)
    if script_file is not None:
        notes.extend(verify_time_downloads(script_file.data().decode("utf-8", errors="replace")))
    logs_root = posixpath.dirname(spec.logs_dir.rstrip("/")) or "/logs"
    reserved = {p.strip("/").split("/", 1)[0] for p in (spec.tests_dir, logs_root)}
    try:
        # The filesystem the Dockerfile builds (every path it names), cached per task content; each run
        # gets its own writable copy, and the candidate applies to the workspace directory in it.
        built = prepare_image(task, spec.app_dir, sb, env, cache_dir, reserved=sorted(reserved))
        laid = built.lay_out(rundir / "image")
    except EnvError as e:
        return ctx.verdict(Status.INFRA_ERROR, str(e))
    notes.extend(f"Dockerfile: {n}" for n in built.notes)
    notes.extend(f"Dockerfile not honoured natively: {g}" for g in built.gaps)
    app_rel = spec.app_dir.strip("/")
    app = laid.root / app_rel
    image = Baseline(tree=built.tree / app_rel)
    write_shims(shims)
    # The Dockerfile's ENV under the environment's variables and PATH (the offline shims first).
    variables = {**built.env, **env_variables(env, path_before=[SHIMS_DST], path_after=laid.path)}
    # The Dockerfile's WORKDIR when the run can enter it (laid out, or a directory the host has).
    workdir = built.workdir if built.workdir != "/" else spec.app_dir
    top = workdir.strip("/").split("/", 1)[0]
    if not (layable(workdir) and top in built.roots) and not os.path.isdir(workdir):
        workdir = spec.app_dir
    try:
        if candidate.kind is CandidateKind.SOLUTION:
            applied = run_solution(task, sb, env, laid, built.roots, workdir, variables, shims, notes)
        else:
            applied = apply_candidate(task, candidate, app, image, own_links=built.links(spec.app_dir))
    except PatchError as e:
        return ctx.verdict(Status.PATCH_FAILED, str(e))
    except SandboxError as e:
        return ctx.verdict(Status.INFRA_ERROR, str(e))
    guard_task = task.model_copy(update={"hidden_tests": ()})  # the tests live in /tests, not in /app
    blocked = guard_test_config(guard_task, applied, app, config_policy, image)
    ctx.apply_method = applied.method
    ctx.changed_files = tuple(sorted(applied.changed))
    ctx.config_files_blocked = tuple(blocked)
    ctx.suspicious = screen_change(guard_task, applied.changed, app, image)
    if blocked and config_policy is ConfigPolicy.REJECT:
        return ctx.verdict(
            Status.UNRESOLVED, "the candidate changed test configuration: " + ", ".join(blocked)
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
    durations.workspace_s = time.monotonic() - tw
    binds = [
        *laid.binds,
        Bind(tests_dir, spec.tests_dir, writable=True, give=False),
        Bind(logs, logs_root, writable=True),
        Bind(shims, SHIMS_DST),
    ]
    timeout = task.test.time_limit_s  # the task's one time limit (Harbor: [verifier] timeout_sec)
    tt = time.monotonic()
    argv = ["bash", posixpath.join(spec.tests_dir, posixpath.basename(spec.script))]
    try:
        res = exec_in_env(
            sb, argv, env=env, cwd=workdir, binds=binds, variables=variables, limits=Limits(timeout_s=timeout)
        )
    except SandboxError as e:
        return ctx.verdict(Status.INFRA_ERROR, str(e))
    durations.test_s = time.monotonic() - tt
    ctx.exit_codes.append(res.exit_code)
    ctx.output(res.text("stdout"), res.text("stderr"))
    reward = read_reward(logs / "verifier", owner=res.uid)
    ratio = reward.pass_ratio
    if reward.unsafe:
        return ctx.verdict(Status.UNRESOLVED, reward.problem or "", pass_ratio=ratio)
    if rd.full():
        return ctx.verdict(Status.UNRESOLVED, f"the verifier {quota_hit(rd)}", pass_ratio=ratio)
    if res.timed_out:
        return ctx.verdict(Status.TIMEOUT, "the verifier hit its time limit", pass_ratio=ratio)
    if built.gaps and (reward.value is None or reward.value < 1.0):
        # The image could not be rebuilt whole: the missing files may be why the verifier failed, so
        # the failure is not the candidate's (and a failure is never a pass).
        outcome = reward.problem or f"reward {reward.value:g}"
        return ctx.verdict(
            Status.INFRA_ERROR,
            f"the task's image could not be rebuilt natively ({built.gaps[0]}"
            f"{f' and {len(built.gaps) - 1} more' if len(built.gaps) > 1 else ''}); "
            f"the verifier's {outcome} cannot be blamed on the candidate",
            pass_ratio=ratio,
        )
    if reward.value is None:
        return ctx.verdict(
            Status.VERIFIER_ERROR,
            f"{reward.problem} (verifier exit {res.exit_code}); never a pass",
            pass_ratio=ratio,
        )
    value = max(0.0, min(1.0, reward.value))
    if value >= 1.0:
        return ctx.verdict(Status.RESOLVED, reward=1.0, pass_ratio=ratio)
    return ctx.verdict(
        Status.UNRESOLVED,
        f"the verifier's reward is {reward.value:g} (exit {res.exit_code})",
        reward=value,
        pass_ratio=ratio,
    )


def run_solution(
    task: Task,
    sb: Sandbox,
    env: Prepared,
    laid: LaidOut,
    roots: Sequence[str],
    workdir: str,
    variables: dict[str, str],
    shims: Path,
    notes: list[str],
) -> Applied:
    """Run the task's ``solution/solve.sh`` in its image, as Harbor's oracle agent does: ``solution/`` is
    uploaded to /solution (merged into the image's own /solution, when it has one), then
    ``bash /solution/solve.sh`` runs from WORKDIR, offline and unprivileged, before the tests are there.

    Raises:
        PatchError: the task ships no ``solution/solve.sh``.
        SandboxError: the sandbox failed.
    """
    files = [f for f in task.extra_files if f.path.startswith("solution/")]
    if not any(f.path == "solution/solve.sh" for f in files):
        raise PatchError(f"task {task.id} has no solution/solve.sh")
    top = SOLUTION_DST.strip("/")
    upload = laid.root / top if top in roots else laid.root.parent / "solution-upload"
    binds = list(laid.binds)
    if top not in roots:
        binds.append(Bind(upload, SOLUTION_DST, writable=True))
    materialise([f.model_copy(update={"path": f.path[len("solution/") :]}) for f in files], upload)
    binds.append(Bind(shims, SHIMS_DST))
    argv = ["bash", posixpath.join(SOLUTION_DST, "solve.sh")]
    toml = task.metadata.get("task_toml")
    agent = toml.get("agent") if isinstance(toml, dict) else None
    limit = agent.get("timeout_sec") if isinstance(agent, dict) else None  # task.toml [agent] timeout_sec
    timeout = float(limit) if isinstance(limit, int | float) and limit > 0 else 600.0
    res = exec_in_env(
        sb, argv, env=env, cwd=workdir, binds=binds, variables=variables, limits=Limits(timeout_s=timeout)
    )
    state = "timed out" if res.timed_out else f"exit {res.exit_code}"
    notes.append(f"solution/solve.sh ran in the image ({state})")
    if res.exit_code != 0:
        notes.append("solve.sh stderr: " + " ".join(res.text("stderr").split())[-300:])
    return Applied("solution")
