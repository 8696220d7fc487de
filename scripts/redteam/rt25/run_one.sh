#!/bin/bash
# Run one rt25 attack diff against its task, default and --suspicious reject; keep the JSON verdicts.
# usage: run_one.sh TASK DIFF [OUTDIR]
set -u
TASK=$1; DIFF=$(realpath "$2"); OUT=${3:-/tmp/rt25/out}
mkdir -p "$OUT"
name=$(basename "$DIFF" .diff)
cd /work/wt-rt25
for mode in default reject; do
  extra=(); [ $mode = reject ] && extra=(--suspicious reject)
  PYTHONPATH=/work/wt-rt25/src /work/main/.venv/bin/python -c "from patchbench.cli import main; main()" \
    run /tmp/rw/repos/rows --repos /tmp/rw/repos/mirrors -t "$TASK" --patch "$DIFF" --json "${extra[@]}" \
    > "$OUT/$name.$mode.json" 2> "$OUT/$name.$mode.err"
  echo "== $name [$mode]"; /work/main/.venv/bin/python /work/wt-rt25/scripts/redteam/rt25/summarise.py "$OUT/$name.$mode.json"
done
