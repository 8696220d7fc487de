"""Canaries: a tripwire test that always fails, planted in every run next to the hidden tests.

Code under test runs inside the test process (pytest imports the buggy module; a TAP script calls it;
``node --test`` loads it in the test file's process). Such code can patch the test framework, rewrite the
report it writes, or print a forged result and exit. No sandbox separates it from the tool that reports
on it. What the harness can do is plant a test whose honest outcome is known: the canary raises an
assertion error, so

* a canary reported **passing** means the results were tampered with (the framework or the assertions
  were patched, or every outcome was rewritten) — the run is ``unresolved``;
* a canary **missing** from a report that holds other tests means the report did not come from the run
  (forged, or rewritten afterwards) — unless this task's own test command never runs injected tests, which
  the harness finds out once per task by a *calibration* run of the untouched buggy workspace (then the
  gold patch); the answer is cached (see :func:`patchbench.harness.run`).

The canary's name carries a fresh random nonce each run, so a forgery prepared in advance cannot name it.
It runs in the same process as the hidden tests (same module, same test binary, same node test file), so
in-process patching hits it too; it is planted after the hidden tests are injected, so the candidate
cannot touch it; its result is removed from the verdict's tests, so validation and grading see only the
task's own tests. Code that reads its own process's canary and special-cases it can still defeat it:
the canary is a tripwire, not a proof (see docs/design/integrity.md).

How the canary is planted, per runner:

==============  ==========================================================================================
pytest          a test module beside the hidden tests plus a harness plugin (``-p``) that adds the module
                when the command would not collect it, and always runs the canary last (``-x`` safe)
tap (Python)    a ``test_pb_canary_<nonce>`` function appended to the last hidden ``test_*.py`` module
node-test       a ``node:test`` test appended to a hidden test file the command runs (``.js``: through
                ``import()``, which CommonJS and ES modules both accept; TypeScript: static imports)
go-test         a ``zz_pb_canary_<nonce>_test.go`` file in the hidden tests' package
cargo-test      a ``#[test]`` function appended to a hidden ``.rs`` test file
vitest, jest,   a test at the end of a hidden test file the command runs, failing only where the framework's
mocha           own assertions work (Vitest: its imported ``expect``/``assert``; Jest: the global ``expect``;
                Mocha: none), with decoys and control copies where node:test's go (a test inside
                ``describe`` gets them at the end of its block)
junit           a failing ``@Test`` method (JUnit 5 or 4) added to the primary class of a hidden test file;
                none in a multi-module Maven build (a failing module stops the modules after it)
tap (SQL)       a failing case added to the hidden cases file (the ``sqltap`` format only), with *control*
                cases: fail-to-pass cases on perturbed fixtures expecting what the gold patch returns there
                (calibrated once per task), against answer lookup (:mod:`patchbench.canary._sql`)
==============  ==========================================================================================

Other runners (other SQL harnesses, script verifiers) get no canary yet. Planting never
touches test data (fixtures, snapshots, compile-fail cases) and never a file that does not belong to
the runner's framework.

The Python canary also consults a process-integrity snapshot taken before any code under test ran
(:data:`PYTEST_PLUGIN` at pytest's collection start; :data:`TAP_SITECUSTOMIZE` + :data:`TAP_INTEGRITY` at a
TAP script's interpreter start) and *passes* when outcome machinery was replaced since: that catches
tampering aimed at the listed tests only, which leaves the canary itself alone.

Issue 12 added (docs/design/integrity.md, "Round two"): checks at every report and at the session's end
(pytest), an audit hook on trace/profile functions and code swaps, the integrity stream and JUnit seal
(:func:`stream_problems`), the environment's pytest plugins by ``-p`` with auto-loading off
(:func:`env_pytest_plugins`), node's ``--import`` integrity module, fd-1 ownership (Go, Rust), the JUnit
daemon check, and semantic decoys (:func:`plan_decoys` for Python; node:test, Go, Rust and JUnit get
theirs from ``_decoys_native`` through their canary builders).
"""

from __future__ import annotations

from ..verdict import CanaryState
from ._base import CANARY_VERSION, Canary, new_nonce
from ._controls import control_passed, learn_controls
from ._decoys import MAX_DECOYS, Decoys, plan_decoys
from ._node import NODE_INTEGRITY, NODE_INTEGRITY_FILE
from ._plan import plan_canary
from ._python import (
    PYTEST_PLUGIN,
    PYTEST_PLUGIN_MODULE,
    STREAM_LIMIT,
    TAP_INTEGRITY,
    TAP_SITECUSTOMIZE,
    env_pytest_plugins,
    stream_problems,
)

__all__ = [
    "CANARY_VERSION",
    "MAX_DECOYS",
    "NODE_INTEGRITY",
    "NODE_INTEGRITY_FILE",
    "PYTEST_PLUGIN",
    "PYTEST_PLUGIN_MODULE",
    "STREAM_LIMIT",
    "TAP_INTEGRITY",
    "TAP_SITECUSTOMIZE",
    "Canary",
    "CanaryState",
    "Decoys",
    "control_passed",
    "env_pytest_plugins",
    "learn_controls",
    "new_nonce",
    "plan_canary",
    "plan_decoys",
    "stream_problems",
]
