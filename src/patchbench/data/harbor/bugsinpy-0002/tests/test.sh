#!/bin/bash
# Verifier for a single-file bug-fix task: run the task's unit tests against /app/solution.py.
# Reward 1 unless pytest reports a failing test.
mkdir -p /logs/verifier
cd /app
export PYTHONPATH=/app

python3 -m pytest -q -rA -p no:cacheprovider /tests/test_solution.py 2>&1 | tee /logs/verifier/pytest.log

passed=$(grep -oE '[0-9]+ passed' /logs/verifier/pytest.log | tail -1 | grep -oE '[0-9]+')
failed=$(grep -oE '[0-9]+ failed' /logs/verifier/pytest.log | tail -1 | grep -oE '[0-9]+')
passed=${passed:-0}
failed=${failed:-0}

if [ "$failed" -eq 0 ]; then
    echo 1 > /logs/verifier/reward.txt
else
    echo 0 > /logs/verifier/reward.txt
fi
if [ $((passed + failed)) -gt 0 ]; then
    awk -v p="$passed" -v f="$failed" 'BEGIN { printf "%.4f\n", p / (p + f) }' > /logs/verifier/pass_ratio.txt
fi
