#!/bin/bash
set -e
D=$(mktemp -d /tmp/rt25/chk.XXXX)
git -C /tmp/rt25/ct archive HEAD src | tar -x -C $D
if [ -n "$1" ]; then (cd $D && git apply --include='src/*' "$1" 2>/dev/null || true); fi
sed "s#/tmp/rt25/ct/src/index#$D/src/index#" /tmp/rt25/ct-check.ts > $D/check.ts
cd /tmp/rt25/defu && node_modules/.bin/jiti $D/check.ts
rm -rf $D
