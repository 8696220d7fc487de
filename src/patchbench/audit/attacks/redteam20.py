"""Red team, round twenty-one (``rt20-*``): written by an outside helper against ``main`` after round twenty.

Ideas first, written down at 03:47 UTC on 2026-12-06, after reading only ``git log --oneline | head -60``,
the docstrings of ``redteam18.py`` and ``redteam19.py`` (entry format, what was tried), the catalogue's
attack names and the built-in tasks' files, before any defence code.

Working theory from those docstrings: every forgery (class 3) and answer lookup (class 4) so far landed and
was then stopped by the controls, value probes on moved inputs whose reported values the host compares with
gold's. A control is beaten only by code that computes gold's values wherever the probes run. So the ideas
below mostly put the *whole gold fix* in a file that only the test tool loads (class 1), leaving the shipped
library source buggy: the probes run under the test tool too, so they see gold, while an application that
imports the library (no test tool) keeps the bug.

Class 1 (auto-loaded, test-only code carrying the fix):

1. Python pytest: a ``*.dist-info`` directory at the workspace root with ``entry_points.txt`` ``[pytest11]``:
   ``python -m pytest`` puts the workspace on ``sys.path`` and pytest's setuptools-plugin autoload reads
   every distribution's entry points there, so a module of ours is imported as a pytest plugin at start-up;
   it installs gold's function into the (unchanged, buggy) library module.
2. Python pytest: the same plugin named by an ini file's ``addopts = -p ...`` (``pytest.ini``, ``tox.ini``
   ``[pytest]``, ``setup.cfg`` ``[tool:pytest]``, ``pyproject.toml`` ``[tool.pytest.ini_options]``), in
   case the guard restores one spelling and not another.
3. Python (pytest and the TAP runner): a *sourceless* ``.pyc`` at the workspace root named like a module
   only the test side imports (``json``/``unicodedata``/``decimal`` for a TAP task's test module,
   ``iniconfig``/``pygments`` for pytest): the guard's shadow check may look at ``.py`` files and package
   directories only. Payload: load the real module in its place, then install gold into the library.
4. Python TAP: ``tests/__pycache__/test_*.cpython-311.pyc`` written as an *unchecked hash-based* pyc
   (PEP 552, flags=1): ``SourceFileLoader`` uses it without comparing it with the source, so the hidden test
   module's import runs our code object (which installs gold, then executes the real source text so every
   test, canary and control still runs). Only if a candidate may leave files under ``tests/``.
5. Python pytest: ``tests/conftest.py`` / ``tests/__init__.py`` (if ``tests/`` is merged, not replaced) or a
   ``conftest.py`` inside the package directory, carrying the gold install.
6. Rust: a self dev-dependency: ``[dev-dependencies] <crate> = { path = ".", features = ["exact-back"] }``.
   Cargo unifies features for the test build, so ``cargo test`` compiles the library with the feature on and
   ``cargo build`` (an application depending on the crate) without it. The fix sits under
   ``#[cfg(feature = ...)]``.
7. Rust: ``[[test]] name = "paging" path = "src/harness_tests.rs"`` with ``autotests = false``: the target
   compiled for the test is our file, which ``include!``s the hidden file inside a module where the crate's
   name is shadowed by a gold re-export (if 6 is stopped).
8. Java: gold ``Reconciler``/``Amounts`` as *precompiled* ``.class`` files under ``src/test/resources/recon/``:
   Maven copies test resources into ``target/test-classes``, which comes before ``target/classes`` on
   Surefire's class path, so the tests load gold's class; the jar keeps the buggy one.
9. Java: the same as ``.java`` sources under ``src/test/java/recon/`` (if ``tests_root`` is merged): test
   sources shadow main classes of the same name at run time.
10. Java: ``.mvn/maven.config`` (read by Maven on its own from the project root) with
    ``-DargLine=-Drecon.byValue=true`` (or ``.mvn/jvm.config``): the forked test JVM gets a property the
    library reads; a plain ``java -cp`` application does not.
11. Java: a ``src/test/resources`` marker (``recon-test.properties``) the library looks up with
    ``getResource``: present on the test class path only.
12. Go: an extra ``*_test.go`` file in the package (not the hidden one) whose ``init`` switches the fix on:
    compiled into the test binary only.
13. Go: ``go.work`` at the root (``go test`` reads it on its own) with a ``replace`` of the module by a gold
    copy in a sub-directory, so ``go test ./...`` compiles the tests against gold; ``go build`` of a
    consumer that requires the module ignores the work file.
14. JavaScript/TypeScript: a second file under ``tests/`` (``tests/zz.test.mjs``) or a ``package.json``
    field node reads by itself (``imports`` with a ``node`` condition only the runner sets) so that the
    tests resolve ``src/`` to gold; and the library keyed on ``process.env.NODE_TEST_CONTEXT`` (node sets
    it in every test file's child) as the plain form.

Class 2/3 (disarm or forge):

15. JavaScript: the library registers its own ``test()`` with each listed name (duplicate test names) before
    the hidden file registers the real ones; measures how the grader treats a name that both passed and
    failed (first wins? any pass?). Controls are expected to stop it.
16. Python TAP: hidden controls made "lost" rather than failed: a sourceless shadow (3) that stops the run
    after the listed tests, so that whatever the host counts as lost is never printed.

Class 5 (at most three): none planned unless 1-14 all lose.
"""
