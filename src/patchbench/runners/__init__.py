"""Runners: one module per result protocol, and the registry that picks one for a test spec.

* ``pytest`` (:mod:`.pytest_junit`): pytest's JUnit XML, written to a report directory outside the workspace;
* ``go-test`` (:mod:`.go`), ``cargo-test`` (:mod:`.cargo`), ``node-test``/``jest``/``vitest``/``mocha``
  (:mod:`.node`), ``junit`` (:mod:`.junit`: Maven Surefire and the JUnit console launcher), each loaded when
  its module is present;
* ``tap`` (:mod:`.tap`): TAP 12/13/14 on standard output, the fallback for any command nobody claims.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from ..results import SEVERITY, TestResult, TestResults
from ..task import ResultProtocol, TestSpec
from ._base import Invocation, Runner, RunOutput
from ._commands import program_words, runs_pytest, simple_commands, words_of
from .pytest_junit import PytestRunner
from .tap import ID_SEPARATOR, TapRunner

__all__ = [
    "RUNNERS",
    "Invocation",
    "PytestRunner",
    "RunOutput",
    "Runner",
    "TapRunner",
    "choose_runner",
    "get_runner",
    "is_listed",
    "match_ids",
    "program_words",
    "runs_pytest",
    "simple_commands",
]

#: Runner modules for the other ecosystems, loaded when present, in claiming order (specific first).
_OPTIONAL = (
    "patchbench.runners.go:GoTestRunner",
    "patchbench.runners.cargo:CargoTestRunner",
    "patchbench.runners.node:NodeTestRunner",
    "patchbench.runners.node:JestRunner",
    "patchbench.runners.node:VitestRunner",
    "patchbench.runners.node:MochaRunner",
    "patchbench.runners.junit:JunitRunner",
)


def _load_runners() -> dict[str, Runner]:
    found: list[Runner] = [PytestRunner()]
    for spec in _OPTIONAL:
        module, _, cls = spec.partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
            continue
        found.append(getattr(mod, cls)())
    found.append(TapRunner())
    return {r.name: r for r in found}


#: Every registered runner, by name, in the order ``choose_runner`` asks them (TAP last: the fallback).
RUNNERS: dict[str, Runner] = _load_runners()


def get_runner(name: str) -> Runner:
    """The registered runner called ``name``.

    Raises:
        KeyError: no runner has that name; the message lists the known ones.
    """
    try:
        return RUNNERS[name]
    except KeyError:
        raise KeyError(f"unknown runner {name!r} (known: {', '.join(sorted(RUNNERS))})") from None


def choose_runner(spec: TestSpec) -> Runner:
    """The runner for a test spec: its protocol, or for ``auto`` the first runner that claims a command.

    Commands are read as simple commands (a shell string is split with :mod:`shlex` at ``;``, ``&&``,
    ``|``...; wrappers such as ``env``, ``timeout`` or ``uv run`` are skipped) and each registered runner
    is asked, in registry order, whether it :meth:`~Runner.claims` one of them: pytest claims
    ``pytest``/``python -m pytest``, so ``echo pytest`` or a path like ``tests/pytest_helpers.py`` does
    not count. Anything nobody claims is read as TAP.

    Raises:
        KeyError: the spec names a protocol whose runner is not available.
    """
    if spec.protocol is not ResultProtocol.AUTO:
        return get_runner(spec.protocol.value)
    # TAP never claims; it is the fallback.
    words = [w for c in spec.commands for w in words_of(c)]
    for runner in RUNNERS.values():
        if any(runner.claims(w) for w in words):
            return runner
    return RUNNERS[TapRunner.name]


def match_ids(runner: Runner, wanted: Sequence[str], results: TestResults) -> dict[str, TestResult | None]:
    """Look up each wanted test id (an F2P/P2P entry) in a run's results.

    Ids are compared exactly after ``runner.normalise_id`` on both sides: a pytest id written without
    its parameters (``test_a`` for ``test_a[1]``) matches nothing, on purpose, because widening it
    would let one passing variant stand in for a failing one.

    Args:
        runner: the runner that produced ``results``; its ``normalise_id`` defines id equality.
        wanted: the ids to look up, in any order; duplicates are fine.
        results: the parsed run.

    Returns:
        ``{wanted id: result}``, keyed by the ids as given. When several results share an id the worst
        outcome wins (see :data:`patchbench.results.SEVERITY`); an id that matches nothing maps to None.
    """
    index: dict[str, TestResult] = {}
    for result in results.tests:
        for key in runner.match_keys(result.id):
            prev = index.get(key)
            if prev is None or SEVERITY[result.outcome] > SEVERITY[prev.outcome]:
                index[key] = result
    return {w: index.get(runner.normalise_id(w)) for w in wanted}


def is_listed(runner: Runner, test_id: str, wanted: Sequence[str]) -> bool:
    """Whether a reported test id is one of ``wanted`` (an F2P list), or the suite of one (``S`` for a
    listed ``S > t``: a suite that fails because its listed child fails), compared with
    ``runner.normalise_id`` as :func:`match_ids` compares them. Used to tell listed failures from
    unlisted ones; grading itself only ever looks ids up with :func:`match_ids`."""
    key = runner.normalise_id(test_id)
    targets = {runner.normalise_id(w) for w in wanted}
    return key in targets or any(t.startswith(key + ID_SEPARATOR) for t in targets)
