#!/bin/bash
# mk.sh NAME SRCDIR|repo:OWNER/NAME@COMMIT  -> /tmp/rt26/a/NAME (git repo at base)
set -e
N=$1; S=$2; D=/tmp/rt26/a/$N
rm -rf $D; mkdir -p /tmp/rt26/a
case $S in
  repo:*) spec=${S#repo:}; r=${spec%@*}; c=${spec#*@}; git clone -q /tmp/rw/repos/mirrors/$r.git $D; git -C $D checkout -q $c;;
  *) cp -r $S $D; cd $D; git init -q; git add -A; git -c user.email=a@b -c user.name=a commit -qm base;;
esac
echo $D
