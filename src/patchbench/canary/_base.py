"""What every canary shares: the Canary a run plants, its nonce, and how a hidden test file is picked."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..task import FileEntry

#: Bumped whenever planting changes, so cached calibrations are not reused across versions.
CANARY_VERSION = "3"


_MESSAGE = "patchbench canary: this test always fails"


@dataclass(frozen=True)
class Canary:
    """A canary planted in one run.

    Attributes:
        token: a fragment (with the nonce) of the canary test's reported id, and of no other test's.
        files: workspace-relative path -> full text, written after the hidden tests are injected.
        harness_files: file name -> text (or bytes: a built library), for a read-only harness directory
            mounted in the sandbox.
        env: variables for the test command; ``PYTEST_ADDOPTS`` is appended to the runner's own,
            ``PYTHONPATH`` is put in front of the environment's.
        stream: the name, in each command's report directory, of the integrity stream the pytest plugin
            writes (see :func:`stream_problems`); None when there is none.
        decoys: fragments of the reported ids of decoy tests (semantic canaries): they fail on correct
            code, so one reported passing is tampering, like the canary.
        controls: the reported ids of control tests: they pass on correct code (their expectations come
            from the gold patch) and fail on the buggy code, so one failing or missing while the listed
            tests pass means the candidate answers the listed tests only (answer lookup).
        probes: calibration runs only: a planted probe's reported id -> its control key.
        control_keys: a control's reported id -> its control key (what the calibration learnt of it).
    """

    token: str
    files: dict[str, str] = field(default_factory=dict)
    harness_files: dict[str, str | bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    stream: str | None = None
    decoys: tuple[str, ...] = ()
    controls: tuple[str, ...] = ()
    probes: dict[str, str] = field(default_factory=dict)
    control_keys: dict[str, str] = field(default_factory=dict)

    def matches(self, test_id: str) -> bool:
        """Whether a reported test id is the canary's (or one of its decoys', controls' or probes')."""
        return (
            self.token in test_id  # it carries the run's nonce: no other id holds it
            or any(_names(d, test_id) for d in self.decoys)
            or self.control_of(test_id) is not None
            or self.probe_of(test_id) is not None
        )

    def control_of(self, test_id: str) -> str | None:
        """The control whose reported id this is (a parametrized copy reports one id per case)."""
        return next((c for c in self.controls if _names(c, test_id)), None)

    def probe_of(self, test_id: str) -> str | None:
        """Calibration: the control key of the probe whose reported id this is."""
        return next((k for p, k in self.probes.items() if _names(p, test_id)), None)


def _names(fragment: str, test_id: str) -> bool:
    """Whether ``test_id`` names ``fragment`` as a whole word: ``t_again4`` is not in ``f::t_again42``."""
    at = test_id.find(fragment)
    while at >= 0:
        end = at + len(fragment)
        if (at == 0 or not _word(test_id[at - 1])) and (end == len(test_id) or not _word(test_id[end])):
            return True
        at = test_id.find(fragment, at + 1)
    return False


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def new_nonce() -> str:
    """A fresh random nonce (12 hex digits)."""
    return secrets.token_hex(6)


def _text(f: FileEntry) -> str | None:
    try:
        return f.data().decode("utf-8")
    except UnicodeDecodeError:
        return None


#: Directories whose files are test *data* (inputs, expected outputs, compile-fail cases), never a place to
#: plant a canary: changing such a file would change what the real tests compare against.
_DATA_DIRS = frozenset(
    {"fixtures", "fixture", "__fixtures__", "testdata", "test-data", "test_data", "data", "snapshots",
     "__snapshots__", "ui", "compile-fail", "compile_fail", "run-pass", "resources", "golden", "expected",
     "samples", "examples", "vendor", "node_modules"}
)  # fmt: skip


def _data_path(path: str) -> bool:
    return any(part.lower() in _DATA_DIRS for part in path.split("/")[:-1])


def _pick(tests: Sequence[FileEntry], ok: tuple[str, ...], commands: str = "") -> FileEntry | None:
    """The hidden test file to plant into: one the command names, else the last by path; never a file
    in a test-data directory."""
    cands = sorted(
        (f for f in tests if f.path.endswith(ok) and not _data_path(f.path) and _text(f) is not None),
        key=lambda f: f.path,
    )
    named = [f for f in cands if f.path in commands]
    pool = named or cands
    return pool[-1] if pool else None
