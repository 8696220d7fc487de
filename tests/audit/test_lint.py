"""Static lint of verifier scripts: each code fires on a minimal script and not on its fixed version."""

from __future__ import annotations

import random

import pytest

from patchbench.audit import CODES, Finding, Severity, lint_script

R = "/logs/verifier/reward.txt"


def codes(text: str) -> set[str]:
    return {f.code for f in lint_script(text)}


def high(text: str) -> list[Finding]:
    return [f for f in lint_script(text) if f.severity is Severity.HIGH]


# (code, script that triggers it, fixed script)
CASES = [
    (
        "pipe-without-pipefail",
        f'echo 0 > {R}\nif python -m pytest -q /tests | grep -q " passed"; then echo 1 > {R}; fi\n',
        "set -o pipefail\n"
        f'echo 0 > {R}\nif python -m pytest -q /tests | grep -q " passed"; then echo 1 > {R}; fi\n',
    ),
    (
        "tee-masks-exit-code",
        f"echo 0 > {R}\n"
        "python -m pytest -q /tests 2>&1 | tee /logs/verifier/pytest.log\n"
        f'if grep -q " passed" /logs/verifier/pytest.log; then echo 1 > {R}; fi\n',
        f"echo 0 > {R}\n"
        "python -m pytest -q /tests 2>&1 | tee /logs/verifier/pytest.log\n"
        "rc=${PIPESTATUS[0]}\n"
        'if [ "$rc" -eq 0 ] && grep -q " passed" /logs/verifier/pytest.log; '
        f"then echo 1 > {R}; fi\n",
    ),
    (
        "trap-writes-positive-reward",
        f"echo 0 > {R}\ntrap 'echo 1 > {R}' EXIT\npython -m pytest -q /tests || exit 1\n",
        f"echo 0 > {R}\n"
        "out=$(python -m pytest -q /tests 2>&1) && "
        f"echo \"$out\" | grep -qE '[1-9][0-9]* passed' && echo 1 > {R}\n",
    ),
    (
        "reward-before-tests",
        f"if [ -f /app/solution.py ]; then echo 1 > {R}; fi\npython -m pytest -q /tests || echo 0 > {R}\n",
        f"echo 0 > {R}\n"
        "python -m pytest -q /tests > /logs/verifier/out.log 2>&1 "
        f'&& grep -q " passed" /logs/verifier/out.log && echo 1 > {R}\n',
    ),
    (
        "reward-defaults-to-one",
        "rc=0\npython -m pytest -q /tests > /logs/verifier/out.log 2>&1 || rc=1\n"
        'grep -q " passed" /logs/verifier/out.log || rc=1\n'
        f"echo 1 > {R}\nif [ $rc -ne 0 ]; then echo 0 > {R}; fi\n",
        "rc=0\npython -m pytest -q /tests > /logs/verifier/out.log 2>&1 || rc=1\n"
        'grep -q " passed" /logs/verifier/out.log || rc=1\n'
        f"if [ $rc -eq 0 ]; then echo 1 > {R}; else echo 0 > {R}; fi\n",
    ),
    (
        "exit-code-ignored",
        f"echo 0 > {R}\ncd /app\nmvn -q test\necho 1 > {R}\n",
        f"echo 0 > {R}\ncd /app\nmvn -q test > /logs/verifier/mvn.log 2>&1\nrc=$?\n"
        f'if [ $rc -eq 0 ] && grep -qE "Tests run: [1-9]" /logs/verifier/mvn.log; then echo 1 > {R}; fi\n',
    ),
    (
        "zero-tests-accepted",
        f"echo 0 > {R}\ncd /app && mvn -q test && echo 1 > {R}\n",
        f"echo 0 > {R}\ncd /app && mvn -q test > /logs/verifier/mvn.log 2>&1 "
        f'&& grep -qE "Tests run: [1-9]" /logs/verifier/mvn.log && echo 1 > {R}\n',
    ),
    (
        "network-install-at-verify-time",
        f"pip install pytest\necho 0 > {R}\npython -m pytest -q /tests > /logs/verifier/o.log "
        f'&& grep -q " passed" /logs/verifier/o.log && echo 1 > {R}\n',
        f"echo 0 > {R}\npython -m pytest -q /tests > /logs/verifier/o.log "
        f'&& grep -q " passed" /logs/verifier/o.log && echo 1 > {R}\n',
    ),
    ("unparseable", "select x in a b; do echo $x; done\n", "for x in a b; do echo $x; done\n"),
]


def test_every_code_has_a_case() -> None:
    assert {c for c, _, _ in CASES} == set(CODES)


@pytest.mark.parametrize(("code", "bad", "fixed"), CASES, ids=[c for c, _, _ in CASES])
def test_code_fires_on_the_bad_script_and_not_on_the_fixed_one(code: str, bad: str, fixed: str) -> None:
    assert codes(bad) == {code}, lint_script(bad)
    assert lint_script(fixed) == [], lint_script(fixed)


def test_a_finding_carries_line_and_evidence() -> None:
    text = f"#!/bin/bash\necho 0 > {R}\n\ncd /app && go test ./... && echo 1 > {R}\n"
    (f,) = lint_script(text)
    assert f.code == "zero-tests-accepted" and f.severity is Severity.HIGH
    assert f.line == 4
    assert f.evidence == f"echo 1 > {R}"  # the write the runner's status alone decides
    assert "go test" in f.message


# ------------------------------------------------------------------------------- the seeds' verifiers

SEED003_V1 = f"""#!/bin/bash
# v1 (broken), as the seed-003 post-mortem describes it
set -e
mkdir -p /logs/verifier
trap 'if [ $? -eq 0 ]; then echo 1 > {R}; else echo 0 > {R}; fi' EXIT
cd /app
mkdir -p /tmp/classes
javac -d /tmp/classes -cp /opt/junit/junit-platform-console-standalone.jar \\
    $(find /app -name '*.java') /tests/TestSolution.java 2>&1 | tee /logs/verifier/javac.log
java -jar /opt/junit/junit-platform-console-standalone.jar --class-path /tmp/classes --scan-class-path
"""

SEED003_V2 = f"""#!/bin/bash
mkdir -p /logs/verifier
echo 0 > {R}
if [ ! -f /app/pom.xml ]; then
  echo "no pom.xml"
  exit 0
fi
cd /app
mkdir -p src/test/java && cp /tests/TestSolution.java src/test/java/
mvn -q -B test > /logs/verifier/mvn.log 2>&1
rc=$?
cat /logs/verifier/mvn.log
tests_run=$(grep -oE 'Tests run: [0-9]+' /logs/verifier/mvn.log | tail -1 | grep -oE '[0-9]+' || echo 0)
if [ "$rc" -eq 0 ] && [ "${{tests_run:-0}}" -gt 0 ]; then
  echo 1 > {R}
fi
python3 -m pytest -q /tests/test_state.py -rA || true
"""

# Seed 000's default-fail verifier, as in the bugsinpy-demo task.
SEED000 = """#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
export PYTHONPATH=/app
if [ ! -f /app/solution.py ]; then exit 0; fi
if cmp -s /app/solution.py /app/.buggy_solution.py; then exit 0; fi
python3 -m py_compile /app/solution.py || exit 0
python3 -c "import solution" || exit 0
out=$(python3 -m pytest -q /tests/test_solution.py 2>&1); rc=$?
echo "$out"
passed=$(echo "$out" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0)
failed=$(echo "$out" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+' || echo 0)
if [ "$rc" -eq 0 ] && [ "${passed:-0}" -gt 0 ] && [ "${failed:-0}" -eq 0 ]; then \
echo 1 > /logs/verifier/reward.txt; fi
"""


def test_seed003_v1_is_flagged_with_exactly_its_three_causes() -> None:
    """The v1 JUnit verifier gave 1.0 to an empty workspace: tee masked javac, JUnit ran 0 tests, and the
    EXIT trap turned that $? = 0 into reward 1."""
    found = lint_script(SEED003_V1)
    assert {f.code for f in found} == {
        "tee-masks-exit-code",
        "zero-tests-accepted",
        "trap-writes-positive-reward",
    }
    assert all(f.severity is Severity.HIGH for f in found)
    by = {f.code: f for f in found}
    assert by["tee-masks-exit-code"].line == 8 and "javac" in by["tee-masks-exit-code"].message
    assert by["trap-writes-positive-reward"].line == 5
    assert "junit console launcher" in by["zero-tests-accepted"].message


def test_seed003_v2_has_no_high_finding() -> None:
    assert high(SEED003_V2) == []


def test_seed000_default_fail_verifier_has_no_high_finding() -> None:
    assert high(SEED000) == []
    assert lint_script(SEED000) == []


# ------------------------------------------------------------------------------------- finer points


def test_the_three_causes_each_alone() -> None:
    # tee only: the real status is lost even when nothing reads it yet
    assert codes("javac -d /tmp/c Main.java | tee /logs/verifier/javac.log\n") == {"tee-masks-exit-code"}
    # a trap writing the exit status: $? is 1 when something failed
    assert "trap-writes-positive-reward" in codes(f"trap 'echo $? > {R}' EXIT\nfalse\n")
    # a trap writing 0 is default-fail cleanup
    assert codes(f"trap 'echo 0 > {R}' ERR\necho 0 > {R}\n") == set()


def test_trap_calling_a_function_that_writes_one() -> None:
    text = f"finish() {{ if [ $? -eq 0 ]; then echo 1 > {R}; fi; }}\ntrap finish EXIT\ngo test ./...\n"
    assert codes(text) == {"trap-writes-positive-reward", "zero-tests-accepted"}


def test_pytest_alone_is_medium_and_unsafe_runners_are_high() -> None:
    (f,) = lint_script(f"echo 0 > {R}\npython -m pytest /tests && echo 1 > {R}\n")
    assert f.code == "zero-tests-accepted" and f.severity is Severity.MEDIUM
    for runner in ("go test ./...", "cargo test", "node --test /tests", "npm test", "gradle test"):
        (f,) = lint_script(f"echo 0 > {R}\n{runner} && echo 1 > {R}\n")
        assert f.code == "zero-tests-accepted" and f.severity is Severity.HIGH, runner


def test_fail_if_no_tests_makes_a_runner_safe() -> None:
    text = f"echo 0 > {R}\njava -jar /opt/junit.jar --fail-if-no-tests --scan-class-path && echo 1 > {R}\n"
    assert lint_script(text) == []


def test_zero_tests_through_set_e_early_exit_function_and_status_variable() -> None:
    set_e = f"set -e\necho 0 > {R}\ncd /app\ngo test ./...\necho 1 > {R}\n"
    assert codes(set_e) == {"zero-tests-accepted"}
    func = f"fail() {{ echo 0 > {R}; exit 0; }}\necho 0 > {R}\ngo test ./... || fail\necho 1 > {R}\n"
    (f,) = lint_script(func)
    assert f.code == "zero-tests-accepted" and f.line == 4
    status_var = f"echo 0 > {R}\ncargo test; rc=$?\nif [ $rc -eq 0 ]; then echo 1 > {R}; fi\n"
    assert codes(status_var) == {"zero-tests-accepted"}
    reward_var = f"reward=0\ngo test ./... && reward=1\necho $reward > {R}\n"
    assert codes(reward_var) == {"zero-tests-accepted"}


def test_a_write_inside_a_function_names_the_call_site() -> None:
    text = f"ok() {{ echo 1 > {R}; }}\necho 0 > {R}\ngo test ./... && ok\n"
    (f,) = lint_script(text)
    assert f.line == 1 and "called at line 3" in f.message


def test_a_runner_after_the_last_reward_write_is_not_ignored_exit_code() -> None:
    """test_state.py runs after the reward is final, only to report pass_ratio: its status does not matter."""
    assert "exit-code-ignored" not in codes(SEED003_V2)
    assert codes(f"echo 0 > {R}\npython3 -m pytest /tests/test_state.py\n") == set()


def test_exit_code_ignored_is_medium_when_the_output_decides() -> None:
    text = (
        f"echo 0 > {R}\nout=$(python -m pytest -q /tests 2>&1)\n"
        f"if echo \"$out\" | grep -qE '[1-9][0-9]* passed'; then echo 1 > {R}; fi\n"
    )
    (f,) = lint_script(text)
    assert f.code == "exit-code-ignored" and f.severity is Severity.MEDIUM


def test_reward_file_through_a_variable_json_heredoc_and_printf() -> None:
    via_var = 'REWARD_FILE=/logs/verifier/reward.txt\necho 1 > "$REWARD_FILE"\ngo test ./...\n'
    assert codes(via_var) >= {"reward-defaults-to-one", "reward-before-tests"}
    json_reward = "echo '{\"reward\": 1.0}' > /logs/verifier/reward.json\npython -m pytest /tests || true\n"
    assert "reward-defaults-to-one" in codes(json_reward)
    assert "reward-defaults-to-one" not in codes("echo '{\"reward\": 0}' > /logs/verifier/reward.json\n")
    heredoc = f"cat > {R} <<'EOF'\n1\nEOF\ncargo test\n"
    assert codes(heredoc) >= {"reward-defaults-to-one", "reward-before-tests"}
    printf = f"printf '%s\\n' 1 > {R}\npytest /tests\n"
    assert "reward-defaults-to-one" in codes(printf)


def test_network_installs_are_each_reported() -> None:
    text = (
        "curl -LsSf https://astral.sh/uv/install.sh | sh\n"
        "pip install pytest\nuv pip install pytest\nuvx pytest /tests\n"
        'npm install\napt-get install -y jq\nbash -c "$(wget -qO- https://x.example/i.sh)"\n'
    )
    found = lint_script(text)
    assert [f.line for f in found if f.code == "network-install-at-verify-time"] == [1, 2, 3, 4, 5, 6, 7]
    assert codes("pip install --no-index /wheels/*.whl\n") == set()


def test_constructs_bashlex_cannot_parse_alone_are_handled() -> None:
    """bashlex fails on $(a || b), [[ ]], $(( )), case, arrays, quoted here-doc delimiters and `time`."""
    text = f"""echo 0 > {R}
out=$(python -m pytest -q /tests 2>&1 || true)
n=$(echo "$out" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0)
if [[ $n -gt 0 && ! "$out" =~ (failed|error) ]]; then echo ok; fi
(( n > 0 )) && echo some
total=$(( n + 1 ))
arr=(a b "$(date)")
case "$n" in
  0) echo none ;;
  *) echo "$n" ;;
esac
python3 - <<'PY'
print("it's a here-doc")
PY
time ls /tmp
echo $'it\\'s' # don't
"""
    assert "unparseable" not in codes(text)


def test_case_items_are_conditional() -> None:
    text = f"echo 0 > {R}\npython -m pytest -q /tests; rc=$?\ncase $rc in\n  0) echo 1 > {R} ;;\nesac\n"
    (f,) = lint_script(text)
    assert f.code == "zero-tests-accepted" and f.line == 4


def test_unparseable_carries_the_parser_message_and_never_raises() -> None:
    (f,) = lint_script("if then fi ((\n")
    assert f.code == "unparseable" and "unexpected token" in f.message
    (f,) = lint_script("echo 'never closed\n")
    assert f.code == "unparseable"
    assert lint_script("") == [] and lint_script("#!/bin/bash\n# nothing\n") == []
    rng = random.Random(7)
    pieces = [*"ab $(){}[]|&;<>'\"`\\\n#=!*?-01", "$(", "((", "[[", "]]", "case ", " in ", "esac"]
    pieces += [";;", "<<EOF\n", "\nEOF\n", "if ", "then ", "fi", "trap ", f"echo 1 > {R}", "pytest", " || "]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        for finding in lint_script(text):
            assert finding.code in CODES
