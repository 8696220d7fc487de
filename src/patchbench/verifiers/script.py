"""Harbor-style script verifiers, run natively: ``bash /tests/test.sh`` writes /logs/verifier/reward.txt.

The container the verifier expects is rebuilt natively (see :mod:`.image` for the filesystem):

* ``FROM python|eclipse-temurin|node|...`` → the language's cached environment (see :mod:`patchbench.envs`);
* ``RUN pip/uv/npm/apt-get install ...`` → the cached setup phase (the Harbor reader collects them into
  ``EnvSpec``); the other ``RUN`` steps, ``COPY``/``ADD`` to any path, ``WORKDIR`` and ``ln -s`` build the
  image's files once per task content (:func:`.image.prepare_image`), copied for each run;
* the final ``WORKDIR`` → the verifier's working directory and the candidate's workspace (else /app);
  ``ENV`` → its environment;
* what cannot be honoured natively is named in the verdict's notes; a gap in the image's files turns a
  reward below 1 into ``infra_error``.

Then, in the sandbox (offline, unprivileged): the image's top-level directories (the workspace with the
candidate applied among them) read-write, /tests (the task's tests/) read-write, /logs (empty; reward
files never survive from an earlier run) read-write, and ``bash /tests/test.sh`` from WORKDIR.
Verify-time downloads (``curl | sh``, ``uvx``, ``pip install``, ``uv pip install``, ``apt-get``) are
reported; ``uv``, ``uvx`` and ``pip install`` of tools the prepared environment already holds are served
from it by small shims on PATH.

The reward is read from ``/logs/verifier/reward.txt`` (one number) or ``reward.json`` (a number, or an
object whose ``reward`` key — or, without one, every value — is numeric; without a ``reward`` key the
smallest value counts, default-fail). ``pass_ratio.txt`` is recorded when present. A missing, empty or
unparseable reward is status ``verifier_error`` with reward 0, never a pass; ``resolved`` needs reward 1.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UnsafeFileError
from ..untrusted import read_untrusted_text

_DOWNLOADS = (
    (
        re.compile(r"\bcurl\b[^\n|]*\|\s*(?:ba)?sh\b|\bwget\b[^\n|]*\|\s*(?:ba)?sh\b"),
        "pipes a download into a shell",
    ),
    (
        re.compile(r"\buvx\b"),
        "runs uvx (served offline from the prepared environment, which holds its packages)",
    ),
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


def verify_time_downloads(script: str) -> list[str]:
    """What a verifier script downloads or installs at verify time, one note each."""
    return [f"tests/test.sh {why}" for pattern, why in _DOWNLOADS if pattern.search(script)]


#: The largest reward or pass-ratio file read (a number, or a small JSON object of numbers).
REWARD_LIMIT = 1 << 20


@dataclass
class Reward:
    """What the verifier left in /logs/verifier.

    ``unsafe`` is set when a reward file is a symlink, a FIFO, not the run's or oversized (see
    :mod:`patchbench.untrusted`): the run's code tampered with it, and ``problem`` says how.
    """

    value: float | None
    pass_ratio: float | None
    problem: str | None
    unsafe: bool = False


def read_reward(logs: Path, owner: int | None = None) -> Reward:
    """Read reward.txt or reward.json (and pass_ratio.txt) from the verifier's log directory.

    Every file is read through :func:`patchbench.untrusted.read_untrusted` (``owner``: the run's uid).
    """
    try:
        return _read_reward(logs, owner)
    except UnsafeFileError as e:
        return Reward(None, None, f"the reward files were tampered with: {e}", unsafe=True)


def _read_reward(logs: Path, owner: int | None) -> Reward:
    def read(path: Path) -> str | None:
        try:
            return read_untrusted_text(path, root=logs, limit=REWARD_LIMIT, owner=owner)
        except FileNotFoundError:
            return None

    ratio_text = read(logs / PASS_RATIO)
    ratio = _number(ratio_text) if ratio_text is not None else None
    raw = read(logs / REWARD_TXT)
    if raw is not None:
        value = _number(raw)
        if value is None:
            return Reward(None, ratio, f"reward.txt is not a single number: {raw.strip()[:80]!r}")
        return Reward(value, ratio, None)
    js = read(logs / REWARD_JSON)
    if js is not None:
        try:
            data = json.loads(js)
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
    # uvx [--with PKG]... TOOL ARGS -> run the tool from the prepared environment (the Harbor reader puts
    # the --with packages and the tool into the environment's requirements)
    "uvx": 'while [ $# -gt 0 ]; do case "$1" in '
    "--with|--from|-p|--python|--with-requirements|--with-editable|-i|--index-url|--extra-index-url|"
    "--default-index|-c|--constraint) shift 2;; -*) shift;; *) break;; esac; done; "
    'tool="$1"; shift; case "$tool" in pytest|pytest@*) exec python -m pytest "$@";; '
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
