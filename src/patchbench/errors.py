"""The one exception tree of patchbench.

Errors are part of the contract. Three families never mix::

    PatchbenchError
    ├── InputError            the input is wrong: fix the dataset, the row or the patch
    │   ├── DatasetError      a dataset file, directory, row or tarball is malformed or unsafe
    │   └── PatchError        a candidate patch or file set is malformed or unsafe
    ├── InfraError            the machine failed: never the candidate's fault, never its success
    │   ├── SandboxError      the sandbox could not be set up or broke while running
    │   └── EnvError          an environment (toolchain, dependencies) could not be prepared
    └── ResultParseError      a runner's output could not be parsed (treated as "no result")
        └── UnsafeFileError   a file the sandboxed code wrote is not a plain, capped file of its own
                              (a symlink, a FIFO, oversized): the candidate's ``unresolved``

A candidate that simply fails its tests is not an exception: it is a :class:`~patchbench.Verdict`.
Inside :func:`patchbench.run`, an ``InputError`` raised by the candidate becomes status ``patch_failed``,
an ``InfraError`` becomes status ``infra_error``; outside, every message is one line that names the
file, row or command and what is wrong.
"""

from __future__ import annotations


class PatchbenchError(Exception):
    """Base of every error patchbench raises on purpose."""


class InputError(PatchbenchError):
    """The input given to patchbench is wrong; retrying will not help."""


class DatasetError(InputError):
    """A dataset file, directory, row or tarball is malformed or unsafe.

    Args:
        message: what is wrong, one line.
        source: the file or directory the problem is in.
        row: the row id or index within ``source``, when there is one.
    """

    def __init__(self, message: str, *, source: str | None = None, row: str | int | None = None) -> None:
        self.source = source
        self.row = row
        where = ""
        if source is not None:
            where = str(source)
            if row is not None:
                where += f" [row {row}]"
            where += ": "
        elif row is not None:
            where = f"row {row}: "
        super().__init__(f"{where}{message}")


class PatchError(InputError):
    """A candidate patch or file set is malformed, unsafe or does not apply."""


class InfraError(PatchbenchError):
    """The infrastructure failed; the candidate is neither blamed nor rewarded."""


class SandboxError(InfraError):
    """The sandbox could not be set up, or broke while running a command."""


class EnvError(InfraError):
    """An environment (toolchain, dependencies) could not be prepared."""


class ResultParseError(PatchbenchError):
    """A runner's output could not be parsed; the run counts as having produced no result."""


class UnsafeFileError(ResultParseError):
    """A file the sandboxed code could have written is a symlink, not a regular file, not the run's,
    oversized or outside its directory (see :mod:`patchbench.untrusted`).

    Refused without being followed or read to its end; the harness makes it the candidate's
    ``unresolved`` with this message as the reason (never an infrastructure error).
    """
