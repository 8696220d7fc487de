#!/bin/bash
# Default-fail verifier for a Maven/JUnit 5 task.
# reward.txt is 0 from the start and becomes 1 only when /app/pom.xml exists, `mvn test` exits 0 (its own
# exit code: the output goes to a file, not through a pipe), and Surefire reports more than zero tests
# with no failure and no error. pass_ratio.txt = passed / run from Surefire's summary.
LOGS=/logs/verifier
APP=/app
TEST_SRC=/tests/TestSolution.java

mkdir -p "$LOGS"
echo 0 > "$LOGS/reward.txt"
echo 0.0 > "$LOGS/pass_ratio.txt"

fail() {
    echo "verifier: $* (reward 0)" >&2
    exit 0
}

[ -f "$APP/pom.xml" ] || fail "no $APP/pom.xml"
[ -f "$TEST_SRC" ] || fail "no $TEST_SRC"

# The hidden test goes where Surefire looks for it, under its own package.
pkg=$(sed -n 's/^[[:space:]]*package[[:space:]]\{1,\}\([A-Za-z0-9_.]\{1,\}\)[[:space:]]*;.*/\1/p' "$TEST_SRC" | head -n 1)
dest="$APP/src/test/java"
[ -n "$pkg" ] && dest="$dest/${pkg//.//}"
mkdir -p "$dest" && cp "$TEST_SRC" "$dest/TestSolution.java" || fail "cannot copy the test into $dest"

log="$LOGS/mvn.log"
( cd "$APP" && mvn -B test ) >"$log" 2>&1 </dev/null
rc=$?
cat "$log"

# Surefire's closing summary: "Tests run: N, Failures: F, Errors: E, Skipped: S" (per-class lines also
# carry "Time elapsed" and are skipped).
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E 'Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+' \
    | grep -v 'Time elapsed' | tail -n 1)
num() { echo "$summary" | grep -oE "$1: [0-9]+" | grep -oE '[0-9]+' || echo 0; }
run=$(num 'Tests run')
failures=$(num 'Failures')
errors=$(num 'Errors')
skipped=$(num 'Skipped')
echo "verifier: mvn exit $rc; tests run $run, failures $failures, errors $errors, skipped $skipped"

if [ "$run" -gt 0 ]; then
    passed=$((run - failures - errors - skipped))
    awk -v p="$passed" -v r="$run" 'BEGIN { printf "%.4f\n", p / r }' > "$LOGS/pass_ratio.txt"
fi

[ "$rc" -eq 0 ] || fail "mvn test exited $rc"
[ "$run" -gt 0 ] || fail "Surefire ran no test"
[ "$failures" -eq 0 ] && [ "$errors" -eq 0 ] || fail "$failures failure(s), $errors error(s)"
echo 1 > "$LOGS/reward.txt"

# A pytest view of the reward (informational; it cannot change reward.txt).
if python3 -c 'import pytest' >/dev/null 2>&1; then
    python3 -m pytest -q -p no:cacheprovider /tests/test_state.py </dev/null || true
fi
exit 0
