#!/usr/bin/env python3
"""Rebuild the repository rows of the real-world corpus from upstream fix commits, pinned by commit.

Each row (``ROWS``) is one public fix commit. The recipe:

* makes a bare mirror of the project in ``<out>/mirrors/<owner>/<name>.git``, cloned from a local mirror
  (``$PATCHBENCH_MIRRORS/<owner>+<name>/repo``, default ``/work/.mirror``, the layout the ``fetch`` tool
  leaves) when it holds the fix commit, else from GitHub;
* writes a PatchBench row with ``repo`` and ``base_commit`` (the fix commit's parent): the gold patch is the
  fix commit's diff of every non-test file, the hidden tests are the fix commit's versions of the test files
  it changed, ``context_files`` the buggy versions of the files the gold patch touches, ``env_setup_cmds``
  the install a user would write;
* measures F2P and P2P through patchbench's own API (``patchbench.run``): the row with empty lists is run
  with the empty candidate (the buggy tree with the hidden tests) and with the gold patch. F2P are the tests
  that pass with gold and did not pass on the buggy code (failed, errored, skipped or missing), P2P the
  tests that passed in both. With ``--repeat N`` each candidate runs N times and a test must hold in every
  run (an outcome that changes between repeats keeps the test out of both lists);
* writes the rows with ``patchbench.formats.write`` to ``<out>/rows/`` and what was measured to
  ``<out>/SOURCE.json`` (repository, fix commit, licence, the runs' statuses and times per row).

Usage::

    python scripts/realworld/build_repos.py [--out DIR] [--only ID]... [--repeat N]

``--out`` defaults to ``$PATCHBENCH_REALWORLD/repos`` (``realworld/repos`` at the repository's root when the
variable is unset).
``--only`` rebuilds some rows and keeps the others already in ``<out>/rows/``. The environments are
prepared in patchbench's cache (``$PATCHBENCH_CACHE``), so the runs after this one reuse them. Then::

    patchbench run realworld/repos/rows --repos realworld/repos/mirrors --gold
    patchbench run realworld/repos/rows --repos realworld/repos/mirrors --empty --expect unresolved

Licences: every source is an open-source project named with its licence in ``ROWS``; the corpus is built
outside this repository (``realworld/`` is gitignored) and nothing of it is committed here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import patchbench as pb  # noqa: E402
from patchbench.formats import write  # noqa: E402


@dataclass(frozen=True)
class Row:
    """One upstream fix commit turned into a PatchBench row."""

    id: str
    repo: str
    fix: str
    licence: str
    language: str
    setup: tuple[str, ...]
    test_cmds: tuple[str, ...]
    prompt: str
    """The problem as a user would report it (written for this corpus, not copied from upstream)."""
    time_limit_s: float = 600.0
    notes: str = ""


ROWS: tuple[Row, ...] = (
    Row(
        id="realworld-python-loguru-rotation-12h",
        repo="Delgan/loguru",
        fix="7b30cd046a593f34696f6c574813b9727ae5c35e",
        licence="MIT",
        language="python",
        setup=("python -m pip install -e . pytest==8.4.1 freezegun==1.5.0 colorama==0.4.6",),
        test_cmds=("python -m pytest tests/test_filesink_rotation.py tests/test_multiprocessing.py",),
        prompt=(
            "A file sink with a daily rotation time written on a 12-hour clock with minutes, such as "
            '`rotation="1:30 PM"`, is refused: the rotation string cannot be parsed, although "1 PM" and '
            '"1:30:00 PM" are accepted. Times like "1:30 PM" should work.'
        ),
        notes=(
            "tests/test_multiprocessing.py runs Pool, Process and enqueue=True under spawn and fork; it "
            "needs a writable /dev/shm (the sandbox gives each run a private one)."
        ),
    ),
    Row(
        id="realworld-python-itsdangerous-lazy-sha1",
        repo="pallets/itsdangerous",
        fix="7f4dcf83a07bb3d53f4e0e65ef1b43327b4cca90",
        licence="BSD-3-Clause",
        language="python",
        setup=("pip install -r requirements/tests.txt", "pip install -e ."),
        test_cmds=(
            "python -m pytest --continue-on-collection-errors "
            "tests/test_itsdangerous/test_serializer.py tests/test_itsdangerous/test_signer.py",
        ),
        prompt=(
            "On a FIPS build of Python, where `hashlib.sha1` may be unavailable, importing itsdangerous "
            "fails: the default digest method of the signers is looked up at import time, before an "
            "application can configure another one. SHA-1 should only be touched when it is used; the "
            "default digest should be a function of the signer module that calls `hashlib.sha1` at call "
            "time."
        ),
        notes=(
            "The fixed test file imports a name the fix adds, so on the buggy code the module cannot be "
            "imported; pytest's own --continue-on-collection-errors lets the signer tests still run."
        ),
    ),
    Row(
        id="realworld-python-more-itertools-sliced-negative",
        repo="more-itertools/more-itertools",
        fix="958990e22c4ab6daf434d89cf2b86d7a4a7a9e3c",
        licence="MIT",
        language="python",
        setup=("pip install -e .",),
        test_cmds=("python -m pytest tests/test_more.py -k SlicedTests",),
        prompt=(
            "`more_itertools.sliced(seq, n)` with a negative `n` silently yields a wrong result instead "
            "of refusing the size. It should raise ValueError for n < 0, with or without strict=True."
        ),
    ),
    Row(
        id="realworld-ts-content-type-htab",
        repo="jshttp/content-type",
        fix="3817c1a331bc95aa00dcddbe824b24b1dbc6f9d4",
        licence="MIT",
        language="typescript",
        setup=("npm install",),
        test_cmds=("npx vitest run src/format.spec.ts",),
        prompt=(
            "`format()` refuses a parameter value that contains a horizontal tab, which RFC 9110 allows "
            "in a quoted string, and accepts one that contains a vertical tab, which it does not. A tab "
            "should be quoted; a vertical tab should be rejected as an invalid parameter value."
        ),
    ),
    Row(
        id="realworld-ts-defu-proto-defaults",
        repo="unjs/defu",
        fix="3942bfbbcaa72084bd4284846c83bd61ed7c8b29",
        licence="MIT",
        language="typescript",
        setup=("npm install --legacy-peer-deps",),
        test_cmds=("npx vitest run test/defu.test.ts",),
        prompt=(
            "An argument of `defu` that has an own `__proto__` key (as `JSON.parse` makes one) changes "
            "the prototype of the object being merged, so the properties under that key leak into the "
            "result and override the defaults: `defu(JSON.parse('{\"__proto__\":{\"isAdmin\":true}}'), "
            "{ isAdmin: false }).isAdmin` is `true`. Such a key must never change a prototype."
        ),
        notes=(
            "Vitest with `expect` matchers (the decoys and moved controls of `expect`). A plain `npm "
            "install` stops on a peer-dependency conflict in the lint tooling (upstream installs with pnpm)."
        ),
    ),
    Row(
        id="realworld-go-version-equal-nil",
        repo="hashicorp/go-version",
        fix="a6043353333f90fd8ca9e55dd006201a25d5aedb",
        licence="MPL-2.0",
        language="go",
        setup=("go mod download",),
        test_cmds=("go test .",),
        prompt=(
            "`(*Version).Equal` panics with a nil pointer dereference when either version is nil. "
            "Comparing with nil should not panic: two nil versions are equal, a nil and a non-nil one "
            "are not."
        ),
        notes=(
            "On the buggy code the nil comparison panics, which ends the test binary: the tests after it "
            "in the file do not run there."
        ),
    ),
    Row(
        id="realworld-rust-semver-empty-error",
        repo="dtolnay/semver",
        fix="d92a4d8ff7d1a90caf9fcac9bf120c360455d8d9",
        licence="MIT OR Apache-2.0",
        language="rust",
        setup=("cargo fetch",),
        test_cmds=("cargo test --test test_version",),
        prompt=(
            'Parsing an empty string as a `Version` reports "unexpected end of input while parsing major '
            'version number", which is confusing. It should fail with its own error whose message is '
            '"empty string, expected a semver version".'
        ),
    ),
    Row(
        id="realworld-java-semver4j-equals",
        repo="semver4j/semver4j",
        fix="94528d5c9e363fe6375ed4d50d6603229be42b61",
        licence="MIT",
        language="java",
        setup=("mvn -B install -Dgpg.skip",),
        test_cmds=("mvn -B test -Dtest=SemverTest",),
        prompt=(
            '`Semver.parse("1.0.0-rc.1")` and `Semver.parse("v1.0.0-rc.1")` describe the same version '
            "but are not equal (and hash differently): equality compares the original strings. Two "
            "Semver objects of the same version should be equal and have the same hash code."
        ),
        notes=(
            "Upstream's install signs artifacts with GPG in verify (-Dgpg.skip: no key here); it runs with "
            "its tests so that Surefire's JUnit provider is fetched for the offline test run."
        ),
    ),
)

_TEST_NAME = re.compile(r"(^test_.*\.py$|_test\.py$|_test\.go$|\.(spec|test)\.[cm]?[jt]sx?$|Tests?\.java$)")
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "testing"})


def is_test_path(path: str) -> bool:
    """Whether a repository path is a test file: in a ``test``/``tests`` directory, or named like one."""
    parts = path.split("/")
    return any(p in _TEST_DIRS for p in parts[:-1]) or bool(_TEST_NAME.search(parts[-1]))


def default_out() -> Path:
    """``$PATCHBENCH_REALWORLD/repos``, else ``realworld/repos`` at the repository's root."""
    return Path(os.environ.get("PATCHBENCH_REALWORLD") or ROOT / "realworld") / "repos"


def local_mirrors() -> Path:
    """``$PATCHBENCH_MIRRORS``, else ``/work/.mirror``."""
    return Path(os.environ.get("PATCHBENCH_MIRRORS") or "/work/.mirror")


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True)
    return done.stdout


def _has_commit(git_dir: Path, commit: str) -> bool:
    if not git_dir.is_dir():
        return False
    probe = ["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}^{{commit}}"]
    return subprocess.run(probe, capture_output=True).returncode == 0


def mirror(row: Row, mirrors: Path) -> tuple[Path, str]:
    """A bare mirror of ``row.repo`` holding the fix commit in ``mirrors/<owner>/<name>.git``.

    Returns:
        The mirror, and where it was cloned from.
    """
    dest = mirrors / f"{row.repo}.git"
    local = local_mirrors() / row.repo.replace("/", "+") / "repo"
    source = str(local) if _has_commit(local, row.fix) else f"https://github.com/{row.repo}.git"
    if _has_commit(dest, row.fix):
        origin = subprocess.run(
            ["git", f"--git-dir={dest}", "config", "remote.origin.url"], capture_output=True, text=True
        ).stdout.strip()
        return dest, f"{origin or dest} (the mirror was already there)"
    if dest.exists():
        subprocess.run(["git", f"--git-dir={dest}", "fetch", "--quiet", source], check=True)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        clone = ["git", "clone", "--mirror", "--quiet", "--no-hardlinks", source, str(dest)]
        subprocess.run(clone, check=True)
    if not _has_commit(dest, row.fix):
        sys.exit(f"{row.repo}: fix commit {row.fix} is not in {source}")
    return dest, source


def task_for(row: Row, git_dir: Path) -> pb.Task:
    """The row's Task, with empty F2P and P2P (they are measured next)."""
    parent = _git(git_dir, "rev-parse", f"{row.fix}^").strip()
    changed = _git(git_dir, "diff", "--name-only", "--no-renames", parent, row.fix).split()
    tests = [p for p in changed if is_test_path(p)]
    code = [p for p in changed if not is_test_path(p)]
    if not tests or not code:
        sys.exit(f"{row.id}: the fix commit changes no test file or no other file ({changed})")
    gold = _git(git_dir, "diff", "--no-color", "--no-renames", "--full-index", parent, row.fix, "--", *code)

    def blob(commit: str, path: str) -> bytes:
        return subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], check=True, capture_output=True
        ).stdout

    present_at_fix = set(_git(git_dir, "ls-tree", "-r", "--name-only", row.fix, "--", *tests).split())
    present_at_base = set(_git(git_dir, "ls-tree", "-r", "--name-only", parent, "--", *code).split())
    hidden = tuple(pb.FileEntry.from_bytes(p, blob(row.fix, p)) for p in tests if p in present_at_fix)
    context = tuple(pb.FileEntry.from_bytes(p, blob(parent, p)) for p in code if p in present_at_base)
    return pb.Task(
        id=row.id,
        prompt=row.prompt,
        language=row.language,
        repository=pb.Repository(repo=row.repo, base_commit=parent),
        hidden_tests=hidden,
        test=pb.TestSpec(
            commands=tuple(pb.TestCommand(shell=c) for c in row.test_cmds), time_limit_s=row.time_limit_s
        ),
        env=pb.EnvSpec(language=row.language, setup_cmds=row.setup),
        gold_patch=gold,
        context_files=context,
        buggy_files=tuple(code),
        metadata={
            "source": f"https://github.com/{row.repo}/commit/{row.fix}",
            "origin": "patchbench-realworld",
            "license": row.licence,
            "fix_commit": row.fix,
        },
    )


def _outcomes(v: pb.Verdict) -> dict[str, pb.Outcome]:
    """Each reported test's outcome; a test reported twice keeps its worst."""
    out: dict[str, pb.Outcome] = {}
    for t in v.tests:
        prev = out.get(t.id)
        if prev is None or (prev.ok and not t.outcome.ok):
            out[t.id] = t.outcome
    return out


def measure(
    task: pb.Task, repos: Sequence[Path], repeat: int
) -> tuple[pb.Task, dict[str, list[dict[str, object]]]]:
    """F2P and P2P from real runs of the empty candidate and the gold patch.

    Returns:
        The task with the measured lists, and each run's status and times (for ``SOURCE.json``).

    Raises:
        SystemExit: a run ended in ``infra_error`` or reported no test.
    """
    runs: dict[str, list[dict[str, object]]] = {}
    maps: dict[str, list[dict[str, pb.Outcome]]] = {}
    for candidate in (pb.Candidate.empty(), pb.Candidate.gold()):
        for _ in range(repeat):
            v = pb.run(task, candidate, repos=[str(r) for r in repos])
            runs.setdefault(candidate.name, []).append(
                {
                    "status": v.status.value,
                    "tests": len(v.tests),
                    "total_s": round(v.durations.total_s, 1),
                    "test_s": round(v.durations.test_s, 1),
                }
            )
            print(
                f"  {candidate.name}: {v.status.value}, {len(v.tests)} tests, {v.durations.total_s:.1f} s",
                flush=True,
            )
            if v.status is pb.Status.INFRA_ERROR or not v.tests:
                sys.exit(f"{task.id}: the {candidate.name} run {v.status.value}: {v.reason}\n{v.stderr_tail}")
            maps.setdefault(candidate.name, []).append(_outcomes(v))
    pre, post = maps["empty"], maps["gold"]
    ids = sorted(set().union(*pre, *post))
    f2p = [
        t
        for t in ids
        if all(m.get(t) is not pb.Outcome.PASSED for m in pre)
        and all(m.get(t) is pb.Outcome.PASSED for m in post)
    ]
    p2p = [t for t in ids if all(m.get(t) is pb.Outcome.PASSED for m in pre + post)]
    if not f2p:
        sys.exit(f"{task.id}: no test fails on the buggy code and passes with the gold patch")
    return task.model_copy(update={"fail_to_pass": tuple(f2p), "pass_to_pass": tuple(p2p)}), runs


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="output directory (default realworld/repos)")
    parser.add_argument("--only", action="append", default=[], metavar="ID", help="rebuild only this row")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each candidate when measuring")
    args = parser.parse_args()
    known = {r.id for r in ROWS}
    for rid in args.only:
        if rid not in known:
            parser.error(f"--only {rid}: no such row ({', '.join(sorted(known))})")
    out: Path = args.out or default_out()
    rows_dir, mirrors_dir = out / "rows", out / "mirrors"
    source_file = out / "SOURCE.json"

    tasks: dict[str, pb.Task] = {}
    record: dict[str, dict[str, object]] = {}
    if args.only and rows_dir.is_dir():
        tasks = {t.id: t for t in pb.load(rows_dir).tasks if t.id in known}
        if source_file.is_file():
            record = json.loads(source_file.read_text())["rows"]
    for row in ROWS:
        if args.only and row.id not in args.only:
            continue
        print(f"== {row.id} ({row.repo}@{row.fix[:7]}, {row.licence})", flush=True)
        git_dir, cloned_from = mirror(row, mirrors_dir)
        start = time.monotonic()
        task, runs = measure(task_for(row, git_dir), [mirrors_dir], args.repeat)
        tasks[row.id] = task
        record[row.id] = {
            "repository": row.repo,
            "fix_commit": row.fix,
            "base_commit": task.repository.base_commit if task.repository else None,
            "licence": row.licence,
            "mirror_cloned_from": cloned_from,
            "fail_to_pass": len(task.fail_to_pass),
            "pass_to_pass": len(task.pass_to_pass),
            "measured_runs": runs,
            "measure_s": round(time.monotonic() - start, 1),
            "notes": row.notes,
        }
        print(f"  F2P {len(task.fail_to_pass)}, P2P {len(task.pass_to_pass)}", flush=True)
    ordered = [tasks[r.id] for r in ROWS if r.id in tasks]
    write(ordered, rows_dir, "patchbench")
    source_file.write_text(json.dumps({"rows": record}, indent=1) + "\n")
    print(f"{len(ordered)} rows in {rows_dir}, mirrors in {mirrors_dir}")


if __name__ == "__main__":
    main()
