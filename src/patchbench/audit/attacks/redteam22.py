"""Red team, round twenty-three (``rt22-*``): written by an outside helper against ``main`` after round
twenty-two. Scope: reward *without any fix* (classes 1-4); no gold fix, no gated fix, no partial repair.

Ideas first, written down at 07:33 UTC on 2026-12-06, after reading only ``git log --oneline | head -40``,
the docstrings of ``redteam20.py`` and ``redteam21.py``, the catalogue's attack names and the built-in
tasks' files, before any defence code.

Working theory: every forgery (class 3) and lookup (class 4) so far met the controls (hidden copies of the
F2P tests with moved inputs whose values the host compares with gold's) and the decoys (copies with wrong
expectations that must fail). Without a fix the code under test never produces gold's values on a moved
input, so a no-fix candidate can win only if (a) the controls are not counted (dropped, inconclusive,
lost-but-forgiven), (b) the value comparison on the host can be made to say "same" for a wrong value,
(c) gold's side of the comparison is moved (calibration poisoned through something shared), or (d) a test
tool or build tool runs our code where it can forge *both* the listed results and the controls' channel.
The ideas below aim at those four, each through a class 1-4 channel:

Controls not counted (a):

1. Slow controls: the code under test notices it runs inside a copy (a frame whose code is not the hidden
   file's, or a module/file name the canary uses) and sleeps there, hoping the slow-probe rule drops the
   probe as load noise rather than failing it; the listed tests are forged (TAP rewrite / pytest report
   hook) or simply left failing to measure what the slowness alone does. Python TAP and pytest.
2. Inconclusive controls: values the canary cannot serialise or compare (``__repr__``/``__eq__``/
   ``__hash__`` that raise, recursion, objects whose pickling raises) returned only where a copy calls, so
   the probe is perhaps counted as "errored in gold too"/dropped. Python.
3. Killed controls: the copy's process killed by a signal the sandbox uses itself (SIGXFSZ from the 1 GiB
   file-size limit, SIGKILL as an OOM would), hoping the run is judged an infrastructure failure and the
   controls forgiven; listed tests forged first. Python, Go, JavaScript.

Comparison says "same" (b):

4. Float values that compare equal to anything in a lenient comparison (NaN payloads, -0.0, huge
   subnormals, ``float`` subclasses whose ``__eq__`` is always True, ``Decimal('NaN')``), returned only
   where a copy calls. Python decimal task.
5. SQL: result values whose storage class or text is odd (``NULL`` vs ``''``, REAL NaN through
   ``0.0/0``, BLOBs, ``x'..'`` with embedded NUL) so that the sqltap comparison or the host digest
   collapses them; only in copies (the copies' fixture tables are fingerprinted by rowid/order).

Gold's side moved (c):

6. Shared caches: Go's build cache, Cargo's target directory or registry, Maven's ~/.m2, npm's cache, if
   bound writable across runs: poison the entry the gold calibration would use (e.g. the Maven surefire
   provider or the JUnit jar in ~/.m2, a Go cache entry keyed by gold's action id) so gold's values become
   the buggy ones. Java and Go.
7. The host report directory (``/.patchbench-reports``) reached from a long-lived child (a daemon left
   behind, a file pre-created with an open descriptor, a hard link) so a later run (gold's calibration
   or the controls' pass) reads our file. Python.

Test/build tools run our code (d), payload forgery only (no fix):

8. Java: a ``javax.annotation.processing.Processor`` service file and class in ``src/main/resources``
   (precompiled .class as a resource): javac discovers it on the test-compile class path (target/classes)
   and runs it inside the Maven JVM; it rewrites the surefire XML at the Maven JVM's exit, or edits the
   test AST (asserts to no-ops for listed names only, controls untouched: measures what the controls do).
9. Java: ``junit-platform.properties`` in ``src/main/resources`` (on the test class path): display-name
   generator, ``junit.jupiter.conditions.deactivate``, default timeouts, ``testmethod.order``: a forged
   outcome channel without a service file.
10. TypeScript: ``tsconfig.json`` ``paths`` mapping ``node:assert/strict``/``node:test`` to our module
    (tsx resolves tsconfig paths); our assert never throws for listed names.
11. JavaScript: ``package.json`` ``imports`` (``#...``) or self-referencing ``exports`` conditions the
    runner sets (``--conditions``), ``node:test``'s ``--test-reporter`` via ``package.json``? (node reads
    no config by itself: measured if some field is read).
12. Rust: a proc-macro path dependency (``[dependencies]``, a crate in a sub-directory) that reads the
    hidden test file at compile time and emits the listed tests' expected values as a lookup table in the
    library (class 4 at compile time); and ``[lints]``/``[profile.test]`` keys that change how tests run
    (``panic = "abort"``, ``overflow-checks``).
13. Go: ``go.mod`` ``godebug`` lines or a ``toolchain`` line (read by the go command itself) that change
    the test binary's behaviour (e.g. panic handling, ``GODEBUG`` knobs); ``//go:debug`` directives in the
    package. Payload: none but forgery; measures whether a runtime knob can hide failures.
14. Python: ``sys.monitoring`` (3.12+) or ``sys.setprofile`` installed at import by the library to rewrite
    the listed tests' assertion results; a ``gc.callbacks``/``weakref.finalize`` forger that runs at
    interpreter exit and rewrites the TAP stream through the inherited stdout descriptor.

Class 4 lookups that spare copies and decoys (measured against the controls):

15. Python TAP: return the expected value of the calling ``expect(actual, expected)`` frame only when the
    calling test is the hidden file's own function object (``__code__`` identity against the module the
    TAP runner loaded from ``tests/``), never in copies; buggy everywhere else.
16. Go/Java/JS: the same identity check by file path and line (``runtime.Caller``/``StackWalker``/V8
    ``Error.captureStackTrace``) against the hidden file's exact path, sparing decoys and controls.
"""
