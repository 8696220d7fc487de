#!/bin/bash
HERE=$(cd "$(dirname "$0")" && pwd)
while read -r SRC TASK NAME; do
  [ -z "$SRC" ] && continue
  echo "## $NAME ($TASK)" >> $HERE/results.txt
  $HERE/run_one.sh $SRC $TASK $(dirname "$0")/rerun/$NAME.diff >> $HERE/results.txt 2>&1
done < "$1"
