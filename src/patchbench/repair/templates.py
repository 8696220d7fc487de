"""Default-fail Harbor verifiers for seeds 000 (single-file Python) and 003 (Maven), as generated files.

Both verifiers write ``0`` to ``reward.txt`` (and ``0.0`` to ``pass_ratio.txt``) before anything else and
overwrite the reward with ``1`` only after every check positively passed; a check that cannot run, a
missing or unreadable result and zero tests run all leave the 0 in place. No command's output goes
through a pipe: output is written to a file under the logs directory and printed afterwards, so every
exit code checked is the tool's own.

Python (seed 000), :class:`PythonVerifier`:

1. ``/app/<solution>`` must exist and differ from the baked-in ``/app/.buggy_solution.py`` and, as a
   second guard the agent cannot edit, from the SHA-256 of the buggy solution recorded at repair time;
2. ``python3 -m py_compile`` must succeed; 3. ``python3 -c "import <module>"`` must succeed (PYTHONPATH
   is the app directory, stdin is closed, a time limit applies);
4. mode A: pytest runs the test files with a JUnit XML report; the reward is 1 iff pytest exited 0,
   more than zero tests passed, and none failed or errored (counts from the XML, or from pytest's
   summary line when the XML is missing); mode B (no test file can be collected): the reward is 1 iff
   checks 1-3 passed, the tests still run for the record;
5. ``pass_ratio.txt`` = passed / (passed + failed + errors), 0.0 when nothing ran.

Maven (seed 003), :class:`MavenVerifier`: ``/app/pom.xml`` must exist; the hidden JUnit test
(``/tests/TestSolution.java``) is copied into ``src/test/java/<its package>/``; ``mvn -B test`` runs with
the offline settings the environment provides (``$MAVEN_SETTINGS`` as ``-s``, ``$MAVEN_ARGS`` passed
explicitly since Maven 3.8 ignores it); the reward is 1 iff Maven exited 0, the Surefire summaries
(summed over modules) show more than zero tests run and no failure or error, and the hidden test class
ran. ``pass_ratio.txt`` comes from the same summaries.

Both end with ``tests/test_state.py`` (:func:`render_test_state`) run through pytest when pytest is
available: it asserts ``reward.txt == "1"``, so its pass/fail line is a parseable view of the reward.
The script's exit status is always 0: the reward file alone is the verdict.

The first lines of a generated ``test.sh`` carry a header (:func:`read_header`) naming the template and
the mode, so the choice made at repair time stays readable from the task itself.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "HEADER_PREFIX",
    "MAVEN",
    "PYTHON_SINGLE_FILE",
    "MavenVerifier",
    "Mode",
    "Paths",
    "PythonVerifier",
    "read_header",
    "render_test_state",
]

PYTHON_SINGLE_FILE = "python-single-file"
MAVEN = "maven"
HEADER_PREFIX = "# patchbench-repair:"

Mode = Literal["A", "B"]
"""A: the reward follows the test suite. B: the suite cannot be collected; modified + compiles + imports."""

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SAFE_NAME = re.compile(r"^(?!\.\.?$)[A-Za-z0-9_.][A-Za-z0-9_.\-]*$")


@dataclass(frozen=True)
class Paths:
    """Where the workspace, the uploaded tests and the verifier's logs are inside the container."""

    app_dir: str = "/app"
    tests_dir: str = "/tests"
    logs_dir: str = "/logs/verifier"

    def __post_init__(self) -> None:
        for name in ("app_dir", "tests_dir", "logs_dir"):
            value = getattr(self, name)
            if not value.startswith("/") or "\n" in value:
                raise ValueError(f"{name} must be an absolute path, got {value!r}")


def _header(template: str, **fields: str) -> str:
    parts = [f"template={template}", *(f"{k}={v}" for k, v in fields.items() if v)]
    return f"{HEADER_PREFIX} {' '.join(parts)}"


def read_header(script: str) -> dict[str, str] | None:
    """The ``key=value`` fields of a generated verifier's header, or None for any other script."""
    for line in script.splitlines()[:5]:
        if line.startswith(HEADER_PREFIX):
            fields: dict[str, str] = {}
            for word in line[len(HEADER_PREFIX) :].split():
                key, sep, value = word.partition("=")
                if sep:
                    fields[key] = value
            return fields
    return None


def _check_name(kind: str, name: str) -> str:
    if not _SAFE_NAME.match(posixpath.basename(name)) or name.startswith("/") or ".." in name.split("/"):
        raise ValueError(f"unsupported {kind} name {name!r}")
    return name


# ------------------------------------------------------------------------------------------------ common


def _fill(template: str, **values: str) -> str:
    """Replace ``@NAME@`` placeholders (bash's own ``$`` and braces stay untouched)."""
    out = template
    for key, value in values.items():
        out = out.replace(f"@{key}@", value)
    leftover = re.search(r"@[A-Z_]+@", out)
    if leftover:  # pragma: no cover - a template bug
        raise ValueError(f"unfilled placeholder {leftover.group(0)}")
    return out


_PRELUDE = """\
set -u
APP=@APP@
TESTS=@TESTS@
LOGS=@LOGS@
mkdir -p "$LOGS"
# Default fail: the reward is 0 until every check has positively passed.
echo 0 > "$LOGS/reward.txt"
echo 0.0 > "$LOGS/pass_ratio.txt"

note() { echo "patchbench-verifier: $*"; }

# tests/test_state.py asserts reward.txt == "1" through pytest: a parseable view of the reward.
state_check() {
    if [ -f "$TESTS/test_state.py" ] && command -v python3 >/dev/null 2>&1 \\
        && python3 -c "import pytest" >/dev/null 2>&1; then
        python3 -m pytest -q -rA -p no:cacheprovider --noconftest "$TESTS/test_state.py" </dev/null
    fi
}

# Stop with reward 0 (written again: code the checks ran may have written the logs directory).
fail() {
    echo 0 > "$LOGS/reward.txt"
    note "reward 0: $*"
    state_check
    exit 0
}

# Every check passed.
succeed() {
    echo 1 > "$LOGS/reward.txt"
    note "reward 1: $*"
    state_check
    exit 0
}

# Run a command with a time limit when coreutils' timeout is there.
limited() {
    local seconds="$1"
    shift
    if command -v timeout >/dev/null 2>&1; then
        timeout -k 5 "$seconds" "$@"
    else
        "$@"
    fi
}
"""


def _prelude(paths: Paths) -> str:
    q = shlex.quote
    return _fill(_PRELUDE, APP=q(paths.app_dir), TESTS=q(paths.tests_dir), LOGS=q(paths.logs_dir))


# ------------------------------------------------------------------------------------------------ python

# Counts pytest's results: the JUnit XML report first, pytest's summary line when the XML is missing
# or unreadable. Prints "passed failed errors" and writes pass_ratio.txt.
_PYTEST_COUNTS = r"""
import re
import sys
import xml.etree.ElementTree as ET

junit, log, ratio_file = sys.argv[1:4]


def from_xml():
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    if not suites:
        return None
    total = failed = errors = skipped = 0
    try:
        for suite in suites:
            total += int(suite.get("tests", "0"))
            failed += int(suite.get("failures", "0"))
            errors += int(suite.get("errors", "0"))
            skipped += int(suite.get("skipped", "0"))
    except ValueError:
        return None
    return max(0, total - failed - errors - skipped), failed, errors


def from_summary():
    try:
        with open(log, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        text = line.strip().strip("=").strip()
        if not re.search(r"\bin [0-9.]+s\b", text):
            continue
        found = re.findall(r"(\d+) (passed|failed|errors?|xpassed)\b", text)
        counts = dict((word, int(n)) for n, word in found)
        if counts or "no tests ran" in text:
            passed = counts.get("passed", 0) + counts.get("xpassed", 0)
            return passed, counts.get("failed", 0), counts.get("error", 0) + counts.get("errors", 0)
    return None


passed, failed, errors = from_xml() or from_summary() or (0, 0, 0)
ran = passed + failed + errors
with open(ratio_file, "w") as fh:
    fh.write(f"{passed / ran if ran else 0.0}\n")
print(passed, failed, errors)
"""

_SHA256 = r"""
import hashlib
import sys

with open(sys.argv[1], "rb") as fh:
    print(hashlib.sha256(fh.read()).hexdigest())
"""

_PYTHON_SH = """\
#!/bin/bash
@HEADER@
# Default-fail verifier for a single-file Python task (seed 000), generated by patchbench repair.
# Mode A: reward 1 iff the solution was modified, compiles, imports, and pytest ran more than zero
# tests with none failing or erroring. Mode B (the tests cannot be collected): reward 1 iff the
# solution was modified, compiles and imports. `patchbench repair` regenerates this file.
@PRELUDE@
SOLUTION=@SOLUTION@
BASELINE=@BASELINE@
MODULE=@MODULE@
MODE=@MODE@
BUGGY_SHA256=@SHA@
TEST_FILES=(@TEST_FILES@)
export PYTHONPATH=@PYTHONPATH@
PYTHONPYCACHEPREFIX="$(mktemp -d)"
export PYTHONPYCACHEPREFIX

# 1. the solution exists and was modified
[ -f "$APP/$SOLUTION" ] || fail "no $APP/$SOLUTION"
if [ -f "$APP/$BASELINE" ] && cmp -s "$APP/$SOLUTION" "$APP/$BASELINE"; then
    fail "$SOLUTION is unmodified (same as $BASELINE)"
fi
if [ -n "$BUGGY_SHA256" ]; then
    sha=$(python3 - "$APP/$SOLUTION" <<'PATCHBENCH_PY'
@SHA_PY@
PATCHBENCH_PY
    )
    [ "$sha" != "$BUGGY_SHA256" ] || fail "$SOLUTION is unmodified (same as the buggy solution)"
fi

# 2. it compiles
python3 -m py_compile "$APP/$SOLUTION" </dev/null || fail "$SOLUTION does not compile"

# 3. it imports
( cd "$APP" && limited @IMPORT_TIMEOUT@ python3 -c "import $MODULE" </dev/null ) \\
    || fail "$MODULE does not import"

# 4. the tests; the output goes to a file, so no pipe hides pytest's exit code
junit="$LOGS/pytest-junit.xml"
log="$LOGS/pytest.log"
rm -f "$junit"
rc=5
if [ ${#TEST_FILES[@]} -gt 0 ]; then
    python3 -m pytest -q -rA -p no:cacheprovider --junitxml="$junit" "${TEST_FILES[@]}" \\
        >"$log" 2>&1 </dev/null
    rc=$?
    cat "$log"
fi
read -r passed failed errors < <(python3 - "$junit" "$log" "$LOGS/pass_ratio.txt" <<'PATCHBENCH_PY'
@COUNTS_PY@
PATCHBENCH_PY
)
passed=${passed:-0}
failed=${failed:-0}
errors=${errors:-0}
note "pytest exit $rc: $passed passed, $failed failed, $errors errors (mode $MODE)"

if [ "$MODE" = B ]; then
    succeed "mode B: modified, compiles and imports (the tests cannot be collected)"
fi
[ "$rc" -eq 0 ] || fail "pytest exited $rc"
[ "$passed" -gt 0 ] || fail "no test passed"
[ "$failed" -eq 0 ] && [ "$errors" -eq 0 ] || fail "$failed failed, $errors errors"
succeed "$passed tests passed"
"""


@dataclass(frozen=True)
class PythonVerifier:
    """Seed 000's single-file Python verifier.

    Attributes:
        solution: the solution file, relative to the app directory (``solution.py``).
        test_files: the test files run by pytest, relative to the tests directory.
        mode: ``A`` (test-driven) or ``B`` (fallback: modified + compiles + imports).
        baseline: the baked-in copy of the buggy solution, relative to the app directory.
        buggy_sha256: the buggy solution's SHA-256, a no-op guard the agent cannot edit (optional).
        paths: the container paths.
        import_timeout_s: the time limit of the import check.
    """

    solution: str = "solution.py"
    test_files: tuple[str, ...] = ("test_solution.py",)
    mode: Mode = "A"
    baseline: str = ".buggy_solution.py"
    buggy_sha256: str | None = None
    paths: Paths = field(default_factory=Paths)
    import_timeout_s: int = 60

    def __post_init__(self) -> None:
        _check_name("solution", self.solution)
        _check_name("baseline", self.baseline)
        for t in self.test_files:
            _check_name("test file", t)
        if not self.solution.endswith(".py") or not _IDENT.match(self.module):
            raise ValueError(f"the solution must be an importable .py file, got {self.solution!r}")
        if self.mode not in ("A", "B"):
            raise ValueError(f"mode must be A or B, got {self.mode!r}")
        if self.buggy_sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", self.buggy_sha256):
            raise ValueError("buggy_sha256 must be 64 lowercase hex digits")
        if self.import_timeout_s <= 0:
            raise ValueError("import_timeout_s must be positive")

    @property
    def module(self) -> str:
        """The module name the import check imports."""
        return posixpath.basename(self.solution)[: -len(".py")]

    def header(self) -> str:
        """The header line that records the template and mode in the script."""
        return _header(
            PYTHON_SINGLE_FILE, mode=self.mode, solution=self.solution, tests=",".join(self.test_files)
        )

    def test_sh(self) -> str:
        """The ``tests/test.sh`` text."""
        q = shlex.quote
        solution_dir = posixpath.dirname(self.solution)
        return _fill(
            _PYTHON_SH,
            HEADER=self.header(),
            PRELUDE=_prelude(self.paths),
            SOLUTION=q(self.solution),
            BASELINE=q(self.baseline),
            MODULE=q(self.module),
            MODE=self.mode,
            SHA=q(self.buggy_sha256 or ""),
            TEST_FILES=" ".join(f'"$TESTS"/{q(t)}' for t in self.test_files),
            PYTHONPATH='"$APP"' + (f"/{q(solution_dir)}" if solution_dir else ""),
            IMPORT_TIMEOUT=str(int(self.import_timeout_s)),
            SHA_PY=_SHA256.strip("\n"),
            COUNTS_PY=_PYTEST_COUNTS.strip("\n"),
        )


# ------------------------------------------------------------------------------------------------- maven

# Sums Surefire's counts. Per-module summaries ("Tests run: N, Failures: F, Errors: E, Skipped: S" with no
# "Time elapsed") win; per-class lines are the fallback. Prints "run failures errors skipped hidden", the
# last being the tests run by the class named in `want` (the hidden test).
_SUREFIRE_AWK = r"""
{ gsub(/\033\[[0-9;]*m/, "") }
/Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
    line = $0
    sub(/.*Tests run: /, "", line)
    split(line, v, /[^0-9]+/)
    if ($0 ~ /Time elapsed/) {
        cr += v[1]; cf += v[2]; ce += v[3]; cs += v[4]
        s = $0
        sub(/[ \t\r]+$/, "", s)
        # the hidden class itself, or one of its @Nested classes (Outer$Inner)
        at = (want == "") ? 0 : index(s, " in " want)
        if (at > 0) {
            rest = substr(s, at + length(" in " want))
            if (rest == "" || substr(rest, 1, 1) == "$") { hit += v[1] }
        }
    } else {
        sr += v[1]; sf += v[2]; se += v[3]; ss += v[4]; summaries++
    }
}
END {
    if (summaries > 0) { print sr + 0, sf + 0, se + 0, ss + 0, hit + 0 }
    else { print cr + 0, cf + 0, ce + 0, cs + 0, hit + 0 }
}
"""

_MAVEN_SH = """\
#!/bin/bash
@HEADER@
# Default-fail verifier for a Maven/JUnit task (seed 003), generated by patchbench repair.
# Reward 1 iff /app/pom.xml exists, `mvn test` exits 0 (its own exit code: no pipe), Surefire ran
# more than zero tests (summed over modules) with no failure or error, and the hidden test ran.
@PRELUDE@
TEST_FILE=@TEST_FILE@

[ -f "$APP/pom.xml" ] || fail "no $APP/pom.xml"
command -v mvn >/dev/null 2>&1 || fail "mvn is not installed"

# The hidden test goes into the project, in the directory of its package, over any agent copy.
want=''
if [ -n "$TEST_FILE" ] && [ -f "$TESTS/$TEST_FILE" ]; then
    pkg=$(sed -n 's/^[[:space:]]*package[[:space:]]\\{1,\\}\\([A-Za-z0-9_.]*\\)[[:space:]]*;.*/\\1/p' \\
        "$TESTS/$TEST_FILE" | head -n 1)
    dest="$APP/src/test/java${pkg:+/${pkg//.//}}"
    mkdir -p "$dest" && cp "$TESTS/$TEST_FILE" "$dest/$TEST_FILE" \\
        || fail "cannot install $TEST_FILE"
    want="${pkg:+$pkg.}${TEST_FILE%.java}"
fi

# Offline settings from the environment. MAVEN_ARGS is passed explicitly (Maven 3.8 ignores it) and
# removed from Maven's own environment, so that Maven 3.9 does not apply it twice.
mvn_args=(-B -Dstyle.color=never)
if [ -n "${MAVEN_SETTINGS:-}" ]; then
    mvn_args+=(-s "$MAVEN_SETTINGS")
fi
if [ -n "${MAVEN_ARGS:-}" ]; then
    read -r -a extra <<< "$MAVEN_ARGS"
    for arg in "${extra[@]}"; do
        # --quiet would hide the Surefire counts the reward depends on
        case "$arg" in -q|--quiet) ;; *) mvn_args+=("$arg") ;; esac
    done
fi

# The output goes to a file, so no pipe hides Maven's exit code.
log="$LOGS/mvn.log"
( cd "$APP" && env -u MAVEN_ARGS mvn "${mvn_args[@]}" test ) >"$log" 2>&1 </dev/null
rc=$?
cat "$log"
read -r run failures errors skipped hidden < <(awk -v want="$want" '
@AWK@
' "$log")
run=${run:-0}
failures=${failures:-0}
errors=${errors:-0}
skipped=${skipped:-0}
hidden=${hidden:-0}
passed=$((run - failures - errors - skipped))
[ "$passed" -ge 0 ] || passed=0
ran=$((passed + failures + errors))
if [ "$ran" -gt 0 ]; then
    awk -v p="$passed" -v r="$ran" 'BEGIN { print p / r }' > "$LOGS/pass_ratio.txt"
fi
note "mvn exit $rc: tests run $run, failures $failures, errors $errors, skipped $skipped"

[ "$rc" -eq 0 ] || fail "mvn test exited $rc"
[ "$run" -gt 0 ] || fail "Maven ran no test"
[ "$failures" -eq 0 ] && [ "$errors" -eq 0 ] || fail "$failures failures, $errors errors"
if [ -n "$want" ] && [ "$hidden" -le 0 ]; then
    fail "the hidden test $want did not run"
fi
succeed "$run tests run, none failed"
"""


@dataclass(frozen=True)
class MavenVerifier:
    """Seed 003's Maven verifier.

    Attributes:
        test_file: the hidden JUnit test under the tests directory, copied into the project's
            ``src/test/java/<package>/`` before Maven runs (None: the project's own tests decide).
        paths: the container paths.
    """

    test_file: str | None = "TestSolution.java"
    paths: Paths = field(default_factory=Paths)

    def __post_init__(self) -> None:
        if self.test_file is not None:
            _check_name("test file", self.test_file)
            if not self.test_file.endswith(".java") or "/" in self.test_file:
                raise ValueError(f"the hidden test must be a .java file directly in tests/: {self.test_file}")

    def header(self) -> str:
        """The header line that records the template in the script."""
        return _header(MAVEN, tests=self.test_file or "")

    def test_sh(self) -> str:
        """The ``tests/test.sh`` text."""
        return _fill(
            _MAVEN_SH,
            HEADER=self.header(),
            PRELUDE=_prelude(self.paths),
            TEST_FILE=shlex.quote(self.test_file or ""),
            AWK=_SUREFIRE_AWK.strip("\n"),
        )


# -------------------------------------------------------------------------------------------- test_state

_TEST_STATE = '''\
"""State check (generated by patchbench repair): the verifier's reward must be exactly 1.

tests/test.sh runs this file through pytest after it has written its reward, so pytest's pass/fail line
is a parseable view of the reward; pass_ratio.txt is reported alongside.
"""

from pathlib import Path

LOGS = Path({logs!r})


def _read(name: str) -> str:
    path = LOGS / name
    return path.read_text(errors="replace").strip() if path.is_file() else ""


def test_reward_is_one() -> None:
    reward = _read("reward.txt")
    ratio = _read("pass_ratio.txt") or "n/a"
    print(f"reward={{reward or 'missing'}} pass_ratio={{ratio}}")
    assert reward == "1", f"reward.txt is {{reward!r}} (pass_ratio {{ratio}})"
'''


def render_test_state(paths: Paths | None = None) -> str:
    """The ``tests/test_state.py`` text: asserts ``reward.txt == "1"`` through pytest."""
    return _TEST_STATE.format(logs=(paths or Paths()).logs_dir)
