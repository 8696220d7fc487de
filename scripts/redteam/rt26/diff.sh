#!/bin/bash
# diff.sh NAME -> writes /work/wt-rt26/scripts/redteam/rt26/NAME.diff (includes untracked files)
set -e
N=$1; D=/tmp/rt26/a/$N
cd $D; git add -A -N .; git diff --no-color > /work/wt-rt26/scripts/redteam/rt26/$N.diff
echo "$(wc -l < /work/wt-rt26/scripts/redteam/rt26/$N.diff) lines"
