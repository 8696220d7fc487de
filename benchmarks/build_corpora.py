"""Rebuild the reference corpora ``parser_agreement.py`` reads, outside this repository.

    .venv/bin/python benchmarks/build_corpora.py OUT_DIR --tapjs MIRROR --gotestsum MIRROR \
        --cargo2junit MIRROR --node-core-test MIRROR [--gotestsum-bin PATH]

Each ``MIRROR`` is a bare git directory of the public repository (what ``git clone --mirror`` gives):
tapjs/tapjs, gotestyourself/gotestsum, johnterickson/cargo2junit, nodejs/node-core-test. Nothing here is
copied into this repository; the corpora keep their repositories' licences (tap-parser: BlueOak-1.0.0,
gotestsum: Apache-2.0, cargo2junit: MIT, node's fixtures: MIT), noted in each corpus's ``SOURCE`` file.

* ``OUT/tap-parser``: tap-parser's fixtures and its snapshots of its own events (the reference).
* ``OUT/gotestsum``: gotestsum's ``go test -json`` inputs (``*.out``, ``*.err``) and, in ``reference/``,
  the JUnit XML gotestsum writes for each (``gotestsum --junitfile``; install it with
  ``go install gotest.tools/gotestsum@latest``).
* ``OUT/cargo2junit``: cargo2junit's inputs and the JUnit XML it is tested against.
* ``OUT/node``: node's own test-runner fixture files as node-core-test carries them (each names the node
  commit it came from), run with the node on PATH, once, with two reporters: ``tap`` (what patchbench
  parses) and a reporter module that writes node's ``test:pass``/``test:fail`` events as JSON lines (the
  reference). ``require('#node:test')`` is read as ``node:test`` and ``../common`` is a small stand-in.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

# node's events, one JSON line per result, with the names of the enclosing tests (from test:start, which
# node emits in definition order, as it does test:pass and test:fail).
EVENTS_REPORTER = """\
export default async function* events(source) {
  const stack = [];
  for await (const { type, data } of source) {
    if (type === 'test:start') {
      stack.length = data.nesting;
      stack[data.nesting] = data.name;
    } else if (type === 'test:pass' || type === 'test:fail') {
      const path = stack.slice(0, data.nesting).concat([data.name]);
      yield JSON.stringify({
        type, path, skip: data.skip !== undefined, todo: data.todo !== undefined,
      }) + '\\n';
    }
  }
}
"""

# What node's fixtures use of node's test/common.
COMMON_STUB = """\
'use strict';
const noop = () => {};
module.exports = {
  mustCall: (fn = noop) => fn,
  mustCallAtLeast: (fn = noop) => fn,
  mustNotCall: () => () => { throw new Error('mustNotCall function called'); },
  mustSucceed: (fn = noop) => (err, ...args) => { if (err) throw err; return fn(...args); },
  platformTimeout: (ms) => ms,
  isWindows: process.platform === 'win32',
  expectsError: () => noop,
};
"""

# node-core-test files that never end or need its own harness.
NODE_SKIP = {"never_ending_async.js", "never_ending_sync.js", "reporters.js", "index.js"}


def _show(mirror: Path, commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), "show", f"{commit}:{path}"], capture_output=True, check=True
    ).stdout


def _ls(mirror: Path, commit: str, under: str) -> list[str]:
    paths = [under] if under else []
    out = subprocess.run(
        ["git", "--git-dir", str(mirror), "ls-tree", "-r", "--name-only", commit, *paths],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    return out.splitlines()


def _head(mirror: Path) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), "rev-parse", "HEAD"], capture_output=True, check=True, text=True
    ).stdout.strip()


def tap(mirror: Path, out: Path) -> None:
    commit = _head(mirror)
    for sub in ("fixtures", "snapshots"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for path in _ls(mirror, commit, "src/parser/test/fixtures"):
        (out / "fixtures" / Path(path).name).write_bytes(_show(mirror, commit, path))
    for path in _ls(mirror, commit, "src/parser/tap-snapshots/test/parser"):
        (out / "snapshots" / Path(path).name).write_bytes(_show(mirror, commit, path))
    (out / "SOURCE").write_text(f"tapjs/tapjs {commit} (tap-parser: BlueOak-1.0.0)\n")


def gotestsum(mirror: Path, out: Path, binary: str) -> None:
    commit = _head(mirror)
    (out / "reference").mkdir(parents=True, exist_ok=True)
    for path in _ls(mirror, commit, ""):
        if "testdata" not in path or "/format/" in path or "/e2e/" in path:
            continue
        if path.endswith((".out", ".err")):
            (out / path.replace("/", "_")).write_bytes(_show(mirror, commit, path))
    for stream in sorted(out.glob("*.out")):
        err = stream.with_suffix(".err")
        script = f"cat {stream.name}" + (f"; cat {err.name} >&2" if err.exists() else "")
        subprocess.run(
            [binary, "--format", "none", "--junitfile", f"reference/{stream.stem}.xml", "--raw-command",
             "--", "sh", "-c", script],
            cwd=out, capture_output=True, check=False,
        )  # fmt: skip
    (out / "SOURCE").write_text(f"gotestyourself/gotestsum {commit} (Apache-2.0)\n")


def cargo2junit(mirror: Path, out: Path) -> None:
    commit = _head(mirror)
    for under in ("src/test_inputs", "src/expected_outputs"):
        (out / under).mkdir(parents=True, exist_ok=True)
        for path in _ls(mirror, commit, under):
            (out / path).write_bytes(_show(mirror, commit, path))
    (out / "SOURCE").write_text(f"johnterickson/cargo2junit {commit} (MIT)\n")


def node(mirror: Path, out: Path) -> None:
    commit = _head(mirror)
    src = out / "src"
    (src / "common").mkdir(parents=True, exist_ok=True)
    (src / "common" / "index.js").write_text(COMMON_STUB)
    (out / "events.mjs").write_text(EVENTS_REPORTER)
    files = [p for p in _ls(mirror, commit, "test/message") if p.endswith(".js")]
    files += [
        p
        for p in _ls(mirror, commit, "test/fixtures/test-runner")
        if p.count("/") == 3 and p.endswith(".js") and Path(p).name not in NODE_SKIP
    ]
    for path in files:
        text = _show(mirror, commit, path).decode()
        text = text.replace("require('#node:test')", "require('node:test')")
        text = text.replace("require('../common')", "require('./common')")
        text = text.replace("require('../../common')", "require('./common')")
        (src / Path(path).name).write_text(text)
    for script in sorted(src.glob("*.js")):
        name = script.stem
        tap_file, events_file = out / f"{name}.tap", out / f"{name}.events.jsonl"
        try:
            subprocess.run(
                ["node", "--no-warnings", "--test", "--test-reporter=tap",
                 f"--test-reporter-destination={tap_file}", f"--test-reporter={out / 'events.mjs'}",
                 f"--test-reporter-destination={events_file}", script.name],
                cwd=src, capture_output=True, timeout=60, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            tap_file.unlink(missing_ok=True)
            events_file.unlink(missing_ok=True)
    version = subprocess.run(
        ["node", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    (out / "SOURCE").write_text(f"nodejs/node-core-test {commit} (MIT), run with node {version}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--tapjs", type=Path)
    ap.add_argument("--gotestsum", type=Path)
    ap.add_argument("--gotestsum-bin", default=shutil.which("gotestsum") or "gotestsum")
    ap.add_argument("--cargo2junit", type=Path)
    ap.add_argument("--node-core-test", type=Path)
    args = ap.parse_args()
    if args.tapjs:
        tap(args.tapjs, args.out / "tap-parser")
    if args.gotestsum:
        gotestsum(args.gotestsum, args.out / "gotestsum", args.gotestsum_bin)
    if args.cargo2junit:
        cargo2junit(args.cargo2junit, args.out / "cargo2junit")
    if args.node_core_test:
        node(args.node_core_test, args.out / "node")
    print(json.dumps({k: str(v) for k, v in vars(args).items() if v}, indent=2))


if __name__ == "__main__":
    main()
