#!/bin/bash
# usage: run_one.sh SRC TASK DIFF   (SRC = builtin | rw)
# runs default and --suspicious reject, writes verdicts/<name>.{default,reject}.json and prints a summary
set -u
SRC=$1; TASK=$2; DIFF=$3
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=$(basename "$DIFF" .diff)
PY=/work/main/.venv/bin/python
export PYTHONPATH=/work/wt-rt26/src
if [ "$SRC" = rw ]; then DS=(/tmp/rw/repos/rows --repos /tmp/rw/repos/mirrors); else DS=("$SRC"); fi
for mode in default reject; do
  extra=(); [ $mode = reject ] && extra=(--suspicious reject)
  $PY -c "from patchbench.cli import main; main()" run "${DS[@]}" -t "$TASK" --patch "$DIFF" --json "${extra[@]}" > "$HERE/verdicts/$NAME.$mode.json" 2> "$HERE/verdicts/$NAME.$mode.err"
  $PY - "$HERE/verdicts/$NAME.$mode.json" "$mode" <<'PYEOF'
import json,sys
t=open(sys.argv[1]).read()
try:
    d=json.loads(t)
except Exception:
    print(sys.argv[2], 'UNPARSEABLE', t[:300]); sys.exit()
v=d[0] if isinstance(d,list) else d
if 'verdicts' in v: v=v['verdicts'][0]
print(sys.argv[2], v.get('status'), v.get('reward'), [s.get('code') for s in v.get('suspicious') or []], (v.get('reason') or '')[:300])
PYEOF
done
