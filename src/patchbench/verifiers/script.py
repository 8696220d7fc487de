"""Harbor-style script verifiers, run natively: ``bash /tests/test.sh`` writes /logs/verifier/reward.txt.

The container the verifier expects is rebuilt from the task's Dockerfile, natively:

* ``FROM python|eclipse-temurin|node|...`` → the language's cached environment (see :mod:`patchbench.envs`);
* ``RUN pip/uv/npm/apt-get install ...`` → the cached setup phase (the Harbor reader collects them into
  ``EnvSpec``); other ``RUN`` lines that only touch the app directory (``cp``, ``mkdir``, ``mv``,
  ``chmod``, ``touch``, ``ln``, ``rm``) are replayed in the sandbox on the materialised /app, offline;
* ``COPY``/``ADD`` → the workspace files under /app (the Harbor reader resolves them); ``WORKDIR`` → the
  verifier's working directory; ``ENV`` → its environment;
* anything else that cannot be honoured natively (``USER``, ``VOLUME``, ``HEALTHCHECK``, ``ARG``-dependent
  paths, other ``RUN`` commands...) is reported by name in the verdict's notes.

Then, in the sandbox (offline, unprivileged): /app (the workspace with the candidate applied) read-write,
/tests (the task's tests/) read-write, /logs (empty; reward files never survive from an earlier run)
read-write, and ``bash /tests/test.sh`` from WORKDIR. Verify-time downloads (``curl | sh``, ``uvx``,
``pip install``, ``uv pip install``, ``apt-get``) are reported; ``uv``, ``uvx`` and ``pip install`` of
tools the prepared environment already holds are served from it by small shims on PATH.

The reward is read from ``/logs/verifier/reward.txt`` (one number) or ``reward.json`` (a number, or an
object whose ``reward`` key — or, without one, every value — is numeric; without a ``reward`` key the
smallest value counts, default-fail). ``pass_ratio.txt`` is recorded when present. A missing, empty or
unparseable reward is status ``verifier_error`` with reward 0, never a pass; ``resolved`` needs reward 1.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..envs import Prepared
from ..formats._dockerfile import logical_lines
from ..sandbox import Bind, ExecRequest, ExecResult, Limits, Sandbox
from ..task import Task

#: Dockerfile instructions that have no effect on a native run (documentation or build-time only).
_IGNORED = {"FROM", "LABEL", "MAINTAINER", "EXPOSE", "CMD", "ENTRYPOINT", "SHELL", "STOPSIGNAL", "ONBUILD"}
_HANDLED = {"WORKDIR", "ENV", "COPY", "ADD", "RUN"}
_INSTALLERS = re.compile(
    r"^\s*(?:(?:sudo\s+)?(?:apt(?:-get)?|apk|yum|dnf)\b|pip3?\b|python3?\s+-m\s+pip\b|uv\s+pip\b|uv\s+tool\b|"
    r"npm\b|yarn\b|pnpm\b|mvn\b|gradle\b|curl\b|wget\b|rm\s+-rf\s+/var/lib/apt)"
)
_APP_STEPS = {"cp", "mkdir", "mv", "chmod", "touch", "ln", "rm", "cd", "true", "echo"}
_DOWNLOADS = (
    (
        re.compile(r"\bcurl\b[^\n|]*\|\s*(?:ba)?sh\b|\bwget\b[^\n|]*\|\s*(?:ba)?sh\b"),
        "pipes a download into a shell",
    ),
    (re.compile(r"\buvx\b"), "runs uvx (downloads tools at verify time)"),
    (
        re.compile(r"\buv\s+pip\s+install\b|\bpip3?\s+install\b|python3?\s+-m\s+pip\s+install\b"),
        "installs Python packages at verify time",
    ),
    (re.compile(r"\bapt(?:-get)?\s+(?:-\S+\s+)*install\b"), "installs system packages at verify time"),
    (re.compile(r"\bnpm\s+(?:install|ci|i)\b"), "installs npm packages at verify time"),
)

REWARD_TXT = "reward.txt"
REWARD_JSON = "reward.json"
PASS_RATIO = "pass_ratio.txt"


@dataclass
class DockerPlan:
    """What a Dockerfile asks of the native run.

    Attributes:
        workdir: the final WORKDIR (the verifier's working directory).
        env: ENV variables.
        app_steps: RUN lines replayed on /app before the candidate.
        unsupported: instructions that cannot be honoured natively, verbatim.
    """

    workdir: str = "/app"
    env: dict[str, str] = field(default_factory=dict)
    app_steps: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)


def plan_dockerfile(text: str, app_dir: str = "/app") -> DockerPlan:
    """Read WORKDIR, ENV and the RUN steps that touch only the app directory; list what cannot be honoured."""
    plan = DockerPlan(workdir=app_dir)
    workdir = "/"
    for line in logical_lines(text):
        instruction, _, rest = line.partition(" ")
        instruction = instruction.upper()
        rest = rest.strip()
        if instruction == "FROM":
            workdir = "/"
        elif instruction == "WORKDIR":
            workdir = rest if rest.startswith("/") else f"{workdir.rstrip('/')}/{rest}"
            plan.workdir = workdir
        elif instruction == "ENV":
            plan.env.update(_parse_env(rest))
        elif instruction == "RUN":
            for step in _split_steps(rest):
                if _INSTALLERS.match(step):
                    continue  # the setup phase installs these (EnvSpec)
                words = shlex.split(step) if step else []
                if (
                    words
                    and words[0] in _APP_STEPS
                    and all(_inside(w, app_dir, workdir) for w in words[1:] if not w.startswith("-"))
                ):
                    plan.app_steps.append(
                        step if not workdir else f"cd {shlex.quote(workdir)} 2>/dev/null; {step}"
                    )
                elif words:
                    plan.unsupported.append(f"RUN {step}")
        elif instruction in _IGNORED or instruction in _HANDLED:
            continue
        else:
            plan.unsupported.append(line)
    return plan


def _parse_env(rest: str) -> dict[str, str]:
    try:
        words = shlex.split(rest)
    except ValueError:
        return {}
    if len(words) >= 2 and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}
    return dict(w.split("=", 1) for w in words if "=" in w)


def _split_steps(cmd: str) -> list[str]:
    return [s.strip() for s in re.split(r"&&|;|\|\|", cmd) if s.strip()]


def _inside(word: str, app_dir: str, workdir: str) -> bool:
    if word.startswith("/"):
        return word == app_dir or word.startswith(app_dir.rstrip("/") + "/")
    return workdir == app_dir or workdir.startswith(app_dir.rstrip("/") + "/")


def verify_time_downloads(script: str) -> list[str]:
    """What a verifier script downloads or installs at verify time, one note each."""
    return [f"tests/test.sh {why}" for pattern, why in _DOWNLOADS if pattern.search(script)]


@dataclass
class Reward:
    """What the verifier left in /logs/verifier."""

    value: float | None
    pass_ratio: float | None
    problem: str | None


def read_reward(logs: Path) -> Reward:
    """Read reward.txt or reward.json (and pass_ratio.txt) from the verifier's log directory."""
    ratio = (
        _number((logs / PASS_RATIO).read_text(errors="replace")) if (logs / PASS_RATIO).is_file() else None
    )
    txt, js = logs / REWARD_TXT, logs / REWARD_JSON
    if txt.is_file():
        raw = txt.read_text(errors="replace")
        value = _number(raw)
        if value is None:
            return Reward(None, ratio, f"reward.txt is not a single number: {raw.strip()[:80]!r}")
        return Reward(value, ratio, None)
    if js.is_file():
        try:
            data = json.loads(js.read_text(errors="replace"))
        except json.JSONDecodeError as e:
            return Reward(None, ratio, f"reward.json is not valid JSON ({e.msg})")
        if isinstance(data, bool):
            return Reward(None, ratio, "reward.json holds a boolean, not a number")
        if isinstance(data, int | float) and math.isfinite(data):
            return Reward(float(data), ratio, None)
        if isinstance(data, dict) and data:
            if "reward" in data:
                v = data["reward"]
                if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
                    return Reward(float(v), ratio, None)
                return Reward(None, ratio, "reward.json's reward is not a number")
            values = list(data.values())
            if all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values
            ):
                return Reward(float(min(values)), ratio, None)
        return Reward(None, ratio, "reward.json holds neither a number nor an object of numbers")
    return Reward(None, ratio, "the verifier wrote no reward (no reward.txt nor reward.json)")


def _number(text: str) -> float | None:
    s = text.strip()
    if not s or "\n" in s:
        return None
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


SHIMS = {
    # uvx TOOL ARGS -> run the tool from the prepared environment
    "uvx": 'tool="$1"; shift; case "$tool" in pytest|pytest@*) exec python -m pytest "$@";; '
    '*) command -v "$tool" >/dev/null && exec "$tool" "$@"; '
    'echo "patchbench: uvx $tool is not available offline" >&2; exit 127;; esac',
    # uv venv / uv pip install / uv run -> the prepared environment stands in
    "uv": 'case "$1" in venv) mkdir -p "${2:-.venv}/bin"; '
    'printf "%s\\n" "# patchbench: the prepared environment is already active" > "${2:-.venv}/bin/activate"; '
    "exit 0;; "
    'pip) shift; [ "$1" = install ] && { shift; exec python -m pip install --no-index "$@"; }; '
    'exec python -m pip "$@";; run) shift; exec "$@";; '
    '*) echo "patchbench: uv $1 is not available offline" >&2; exit 127;; esac',
}


def write_shims(dest: Path) -> None:
    """Write the offline stand-ins for ``uv``/``uvx`` into ``dest`` (put on PATH before the environment)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name, body in SHIMS.items():
        p = dest / name
        p.write_text("#!/bin/bash\n" + body + "\n")
        p.chmod(0o755)


def replay_app_steps(
    sandbox: Sandbox, steps: list[str], app: Path, env: Prepared, app_dir: str
) -> ExecResult | None:
    """Run the Dockerfile's app-only RUN steps on the materialised app directory, in the sandbox."""
    if not steps:
        return None
    script = "set -e\n" + "\n".join(steps)
    req = ExecRequest(
        argv=["bash", "-c", script],
        cwd=app_dir,
        binds=[Bind(app, app_dir, writable=True), *(Bind(p, str(p)) for p in env.ro_paths)],
        env={"PATH": ":".join([*env.path, "/usr/local/bin:/usr/bin:/bin"]), **env.env},
        limits=Limits(timeout_s=120),
    )
    return sandbox.exec(req)


def dockerfile_text(task: Task) -> str:
    """The task's ``environment/Dockerfile``, when it kept one (Harbor tasks do, in ``extra_files``)."""
    for f in task.extra_files:
        if f.path == "environment/Dockerfile":
            return f.data().decode("utf-8", errors="replace")
    return ""
