#!/bin/bash
# usage: check-defu.sh [diff]  -> apply diff to a scratch copy, run the outside-vitest behaviour check
set -e
D=$(mktemp -d /tmp/rt25/chk.XXXX)
git -C /tmp/rt25/defu archive HEAD src | tar -x -C $D
if [ -n "$1" ]; then (cd $D && git apply --include='src/*' "$1" 2>/dev/null || patch -p1 -s < "$1" || true); fi
sed "s#/tmp/rt25/defu/src/defu#$D/src/defu#" /tmp/rt25/defu-check.ts > $D/check.ts
cd /tmp/rt25/defu && node_modules/.bin/jiti $D/check.ts
rm -rf $D
