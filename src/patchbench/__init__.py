"""patchbench: trustworthy, fast, default-fail grading of bug-fix tasks.

One flow: ``load(dataset)`` → :class:`Task` → ``run(task, candidate)`` → :class:`Verdict`.
"""

from __future__ import annotations

from . import _threadsafe_ast  # noqa: F401  (first: puts ast.parse behind a lock where it needs one)
from .api import load, run_many, select
from .candidate import Candidate, CandidateKind
from .errors import (
    DatasetError,
    EnvError,
    InfraError,
    InputError,
    PatchbenchError,
    PatchError,
    ResultParseError,
    SandboxError,
)
from .formats import Loaded
from .harness import run
from .results import Outcome, TestResult, TestResults
from .screen import SuspiciousPolicy
from .task import (
    EnvSpec,
    FileEntry,
    Repository,
    ResultProtocol,
    Task,
    TestCommand,
    TestSpec,
    VerifierKind,
    VerifierSpec,
)
from .verdict import Status, TestCheck, Verdict
from .workspace import ConfigPolicy

__version__ = "0.1.0"

__all__ = [
    "Candidate",
    "CandidateKind",
    "ConfigPolicy",
    "DatasetError",
    "EnvError",
    "EnvSpec",
    "FileEntry",
    "InfraError",
    "InputError",
    "Loaded",
    "Outcome",
    "PatchError",
    "PatchbenchError",
    "Repository",
    "ResultParseError",
    "ResultProtocol",
    "SandboxError",
    "Status",
    "SuspiciousPolicy",
    "Task",
    "TestCheck",
    "TestCommand",
    "TestResult",
    "TestResults",
    "TestSpec",
    "Verdict",
    "VerifierKind",
    "VerifierSpec",
    "__version__",
    "load",
    "run",
    "run_many",
    "select",
]
