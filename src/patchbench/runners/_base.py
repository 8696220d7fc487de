"""The runner interface: how a test command is invoked and how its output becomes per-test results."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ..results import TestResults
from ..task import TestCommand


@dataclass(frozen=True)
class Invocation:
    """What a runner adds to a test command before it runs.

    Attributes:
        argv: the argv to execute.
        env: extra environment variables.
    """

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RunOutput:
    """What one test command left behind, as a runner sees it.

    Attributes:
        stdout: standard output (decoded, possibly truncated).
        stderr: standard error (decoded, possibly truncated).
        exit_code: the command's exit code (None when it was killed).
        report_dir: the host directory the runner's report files were written to (outside the workspace).
        owner: the uid the test command ran as, when known: report files must be its own (read them
            through :func:`patchbench.untrusted.read_untrusted`).
        stdout_truncated: the sandbox dropped the middle of standard output (kept its head and tail):
            a result read from it is never complete.
        stderr_truncated: likewise for standard error.
    """

    stdout: str
    stderr: str
    exit_code: int | None
    report_dir: Path
    owner: int | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False


class Runner:
    """A result protocol. Subclasses set ``name`` and implement :meth:`parse`.

    ``invoke`` gets the in-sandbox path of the report directory so a runner can ask the tool to write a
    structured report there, where the workspace's code does not look for it.
    """

    name: ClassVar[str] = ""
    #: Exit codes that mean the tool itself failed (usage or internal error), not the code under test.
    infra_exit_codes: ClassVar[tuple[int, ...]] = ()

    def claims(self, words: list[str]) -> bool:
        """Whether this runner reads the output of one simple command (program first, base name).

        Used by ``ResultProtocol.AUTO``; the TAP runner claims nothing and is the fallback.
        """
        return False

    def invoke(self, command: TestCommand, report_dir: str) -> Invocation:
        """The argv and environment that run ``command`` with this runner's reporting switched on."""
        return Invocation(argv=command.to_argv())

    def parse(self, out: RunOutput) -> TestResults:
        """Turn one command's output into per-test results.

        Raises:
            ResultParseError: the output holds no readable result at all.
        """
        raise NotImplementedError

    def normalise_id(self, test_id: str) -> str:
        """The form in which ids from F2P/P2P lists and from reports are compared."""
        return " ".join(test_id.split())

    def match_keys(self, result_id: str) -> tuple[str, ...]:
        """Every key a reported test can be found under (its normal form first); listed ids are looked up
        through :meth:`normalise_id`. A runner whose ids may be written with or without a qualifier (Go's
        package path) returns both."""
        return (self.normalise_id(result_id),)
