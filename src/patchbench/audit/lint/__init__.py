"""Static lint of Harbor-style verifier scripts (``tests/test.sh``), on bashlex's parse tree.

:func:`lint_script` parses the script with `bashlex <https://github.com/idank/bashlex>`_, turns the tree
into a small model (simple commands, pipelines, ``&&``/``||`` lists, ``if``/``case``/loops, groups,
functions) and walks it once in execution order — function calls are expanded at the call site, ``trap``
bodies are walked after the script, with ``$?`` standing for the script's exit status. Detection works on
that model and on single words of it, never on raw lines.

Codes (each :class:`Finding` has a code, a one-line message, the line, the source text and a severity;
``high`` means the verifier can reward a broken or empty candidate):

``pipe-without-pipefail``
    A pipeline whose status is consumed — by ``if``/``while``, ``&&``/``||``, ``$?`` read by the next
    statement, ``set -e``, or the script's own exit when a trap reads it — while ``set -o pipefail`` is off.
    ``${PIPESTATUS[...]}`` read by the next statement counts as checking every command. Pipelines made only
    of text tools (``echo``, ``printf``, ``cat``, ``grep``, ``sed``, ``awk``, ``cut``, ``tr``, ``sort``,
    ``head``, ``tail``, ``wc``...) are ignored: a failure upstream leaves empty text, which the last tool
    sees. High when a test runner or compiler sits before the last command, medium otherwise.
``tee-masks-exit-code``
    A pipeline ending in ``tee`` without pipefail (and without ``PIPESTATUS``): the real command's status is
    lost. Reported instead of ``pipe-without-pipefail`` for such pipelines. High when the status is
    consumed or a runner/compiler feeds the tee, medium otherwise.
``trap-writes-positive-reward``
    A ``trap`` whose command (functions it calls included) writes a positive literal reward or one
    computed from ``$?`` (``echo $? > reward.txt`` writes 1 when a command failed).
``reward-before-tests``
    A reward that may be positive (a positive number, ``$?``, a variable that may hold a positive number)
    is written, in execution order and traps excluded, before the first test command: a recognised runner,
    a compiler, or an interpreter run on a file under ``/tests``. Not reported when the script runs no
    recognised test command at all.
``reward-defaults-to-one``
    The first reward write (traps excluded) is unconditional and writes a positive number, or ``$?``
    (which is 1 when the command before failed): the reward starts positive.
``exit-code-ignored``
    A runner (pytest, ``python -m pytest``/``unittest``, mvn, gradle, go test, cargo test, npm/yarn/pnpm
    test, jest/vitest/mocha, ``node --test``, java with the JUnit console launcher or JUnitCore, javac)
    whose status nothing reads (no ``if``, ``&&``/``||``, ``set -e``, ``$?``/``PIPESTATUS`` right after,
    nor an assignment ``out=$(runner)`` whose status is read; ``X || true`` throws the status away and
    does not count), while a reward other than a literal 0 is written after it. Runs after the last
    reward write (e.g. ``pytest tests/test_state.py`` that only reports) are not reported. Medium when
    every later reward write is guarded by a test-count check (the output decides).
``zero-tests-accepted``
    A positive reward write whose guards — enclosing conditions, ``|| exit`` early exits, ``set -e``
    failures, ``$?``/status variables, or for a trap the script's exit status — include a runner's exit
    status but no check that tests ran (a variable set under such a guard, ``ok=1``, carries it to the
    write ``echo $ok > reward.txt``). A check is a guard that mentions a pass/run count (a word like
    ``passed``, ``Tests run``, ``collected``, ``Ran``, ``executed``, ``total``, ``tests successful``),
    or a variable named like one or computed from output by such a word. High for runners that exit 0
    when no test runs (mvn, gradle, go test, cargo test, node --test, the JUnit console launcher and
    JUnitCore, npm test, mocha, unittest before 3.12); medium for pytest (it exits 5 when nothing is
    collected, but 0 when every test is skipped). ``--fail-if-no-tests``/``-DfailIfNoTests=true`` make a
    runner safe, as jest/vitest/``cargo nextest`` are by default.
    Limits: a count check inside another program (``python3 check.py``) is not seen (a false positive),
    and any word matching the count vocabulary counts as a check (a false negative when it checks
    something else).
``network-install-at-verify-time``
    ``curl``/``wget`` piped into a shell (or ``sh -c "$(curl ...)"``), ``pip install`` (without
    ``--no-index``), ``uv pip install``, ``uv tool install``, ``uvx``, ``npm``/``yarn``/``pnpm`` install,
    ``apt-get``/``apt``/``apk``/``yum``/``dnf`` install, ``gem``/``cargo``/``go`` install: the verifier runs
    offline. Medium.
``unparseable``
    bashlex could not parse the script (after the workarounds below); the parser's message. Medium.

The script is parsed by :mod:`patchbench.audit.shell`; its limits are drawn there.
"""

from __future__ import annotations

from ._analyzer import lint_script
from ._findings import CODES, Finding, Severity

__all__ = ["CODES", "Finding", "Severity", "lint_script"]
