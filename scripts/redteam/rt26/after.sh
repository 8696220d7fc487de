#!/bin/bash
# The attacks the catalogue does not hold (real rows, Harbor tasks), run again on a later checkout under its
# default policy: verdicts/after/<name>.json and one line each. usage: after.sh SRC_DIR
set -u
SRC=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/work/main/.venv/bin/python
mkdir -p "$HERE/verdicts/after"
while IFS=$'\t' read -r name task lang what kind; do
  task=${task%% *}  # "bugsinpy-0001 (builtin:harbor)"
  case "$task" in
    realworld-*) DS=(/tmp/rw/repos/rows --repos /tmp/rw/repos/mirrors) ;;
    bugsinpy-*|junit-*) DS=(builtin:harbor) ;;
    *) continue ;;
  esac
  PYTHONPATH=$SRC/src $PY -c "from patchbench.cli import main; main()" run "${DS[@]}" -t "$task" \
    --patch "$HERE/$name.diff" --json > "$HERE/verdicts/after/$name.json" 2> /dev/null
  PYTHONPATH=$SRC/src $PY - "$HERE/verdicts/after/$name.json" "$name" "$kind" <<'PYEOF'
import json, sys
try:
    v = json.loads(open(sys.argv[1]).read())[0]
except Exception as e:
    print(sys.argv[2], "UNPARSEABLE", e); sys.exit()
for k in ("stdout_tail", "stderr_tail", "tests"):
    v.pop(k, None)
json.dump(v, open(sys.argv[1], "w"), indent=1)
codes = sorted({s["code"] for s in v.get("suspicious") or []})
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{v['status']}\t{v['reward']}\t{','.join(codes) or '-'}\t{v.get('reason', '')[:160]}")
PYEOF
done < "$HERE/attacks.tsv"
