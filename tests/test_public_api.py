"""The public API is locked: adding or removing a name is a deliberate change to this list."""

from __future__ import annotations

import patchbench

EXPECTED = {
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
    "ResultProtocol",
    "Repository",
    "ResultParseError",
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
}


def test_all_is_locked() -> None:
    assert set(patchbench.__all__) == EXPECTED


def test_every_exported_name_exists_and_is_documented() -> None:
    for name in patchbench.__all__:
        obj = getattr(patchbench, name)
        if name != "__version__":
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
