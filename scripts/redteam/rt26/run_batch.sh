#!/bin/bash
# run_batch.sh LISTFILE : lines "SRC TASK NAME" ; runs sequentially, appends summaries to results.txt
HERE=$(cd "$(dirname "$0")" && pwd)
while read -r SRC TASK NAME; do
  [ -z "$SRC" ] && continue
  echo "## $NAME ($TASK)" >> $HERE/results.txt
  $HERE/run_one.sh $SRC $TASK $HERE/$NAME.diff >> $HERE/results.txt 2>&1
done < "$1"
