#!/usr/bin/env python3
"""Rebuild the Harbor part of the real-world corpus from public repositories, pinned by commit.

Sources (``SOURCES``):

* **TermiGen** environments (terminal-bench family), as adapted to Harbor 2.0 by
  https://github.com/zjysteven/terminal-bench-env (``environments_harbor/``; upstream
  https://github.com/ucsb-mlsec/terminal-bench-env). Licence: neither repository states one (no LICENSE
  file, no licence in the README): the tasks are used locally for testing, never copied into this
  repository; this script only names and fetches them. 14 tasks picked for variety of layout: every one
  has a final WORKDIR other than /app (``/workspace``, ``/home/agent``, ``/root``, ``/solution``,
  ``/tmp``...), most COPY into two or more top-level directories (``/data``, ``/var``, ``/opt``...), all
  run their tests with pytest and install nothing beyond Python packages. None ships a solution.
* **Harbor's cookbook**, https://github.com/harbor-framework/harbor-cookbook (Apache-2.0): the three
  recipes that are single-container tasks with ``solution/solve.sh`` (``simple-task``, ``multi-reward``,
  ``skills``, which copies into ``/skills``). Their ``tests/test.sh`` is Harbor's template: ``apt-get
  install curl``, the uv installer piped into ``sh``, then ``uvx --with pytest... pytest``.

Usage::

    python scripts/realworld/build_harbor.py [--source OWNER/NAME=CLONE_OR_URL]... [--out DIR]
    python scripts/realworld/build_harbor.py --sample 30 --seed 11 [--out DIR]

``--source`` points a source at a local clone (bare or not) holding the pinned commit, or another URL;
by default each is cloned from GitHub. ``--out`` defaults to ``$PATCHBENCH_REALWORLD/harbor``
(``realworld/harbor`` when the variable is unset); ``SOURCE.json`` there names every task's origin.
``--sample N`` writes N TermiGen tasks drawn at random (``random.Random(seed).sample`` of the sorted ids)
instead, to ``$PATCHBENCH_REALWORLD/harbor-sample-<seed>`` by default: a measure of how the whole source
fares, not a corpus the tests assert on. The output is a Harbor dataset: ``patchbench run DIR --empty``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Source:
    """One repository of Harbor task directories."""

    repo: str
    commit: str
    licence: str
    prefix: str
    tasks: dict[str, str] = field(default_factory=dict)
    """task directory name -> why it is in the corpus."""
    upstream: str = ""

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}.git"


TERMIGEN = Source(
    repo="zjysteven/terminal-bench-env",
    commit="aaad6aeff9b58ab7504a7d239f01f8b11c7174ef",
    licence="none stated (no LICENSE file in either repository)",
    prefix="environments_harbor",
    upstream="ucsb-mlsec/terminal-bench-env",
    tasks={
        "active_learning_sampling_medium": "/workspace + /data",
        "amplitude_event_deduplication_hard": "/workspace + /data",
        "angr_symbolic_execution_analysis_hard": "/workspace + /challenge, two RUN steps",
        "active_directory_dcsync_attack_hard": "/home/agent + /var",
        "apache_tomcat_ghostcat_ajp_hard": "/home/agent + /forensics",
        "annovar_annotation_databases_medium": "/home/user + /opt",
        "aws_datasync_task_automation_hard": "/home/user + /config + /data",
        "secrets_management_vault_medium": "/tmp + /opt",
        "ssh_key_permissions_too_open_hard_1": "/tmp + /home + /opt + /root + /var",
        "auditd_log_investigation_hard": "/root + /var",
        "burrows_wheeler_transform_hard": "/solution + /data",
        "background_job_stdout_terminal_medium": "/solution + /opt, two RUN steps",
        "rabbitmq_queue_length_unbounded_hard": "/home + /incident_data",
        "disk_io_scheduler_optimization_medium": "/home/admin + /opt",
    },
)
COOKBOOK = Source(
    repo="harbor-framework/harbor-cookbook",
    commit="e093c9a860b988d9d74901010ddddb9c7f124f92",
    licence="Apache-2.0",
    prefix="harbor_cookbook/recipes",
    tasks={
        "simple-task": "/app; solve.sh; Harbor's uvx test template",
        "multi-reward": "/app; solve.sh; reward.json with two rewards",
        "skills": "/app + /skills; solve.sh",
    },
)
SOURCES = (TERMIGEN, COOKBOOK)


def default_out() -> Path:
    """``$PATCHBENCH_REALWORLD/harbor``, else ``realworld/harbor``."""
    return Path(os.environ.get("PATCHBENCH_REALWORLD") or "realworld") / "harbor"


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def _git_dir(location: str, scratch: Path) -> Path:
    path = Path(location)
    if path.exists():
        inner = path / ".git"
        return inner if inner.is_dir() else path
    dest = scratch / f"source-{len(list(scratch.iterdir()))}.git"
    subprocess.run(
        ["git", "clone", "--bare", "--filter=blob:none", "--quiet", location, str(dest)],
        check=True,
    )
    return dest


def _extract(git_dir: Path, source: Source, task_id: str, out: Path) -> None:
    """``git archive`` one task directory into ``out/<task_id>``: regular files and directories only."""
    blob = _git(git_dir, "archive", "--format=tar", source.commit, f"{source.prefix}/{task_id}")
    dest = out / task_id
    if dest.exists():
        shutil.rmtree(dest)
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        for member in tar.getmembers():
            rel = member.name.removeprefix(f"{source.prefix}/")
            if not rel.startswith(task_id) or ".." in rel.split("/"):
                continue
            if not (member.isfile() or member.isdir()):
                continue  # no links out of the corpus
            member.name = rel
            tar.extract(member, out, filter="data")


def build(
    locations: dict[str, str], out: Path, *, sample: int = 0, seed: int = 11
) -> dict[str, dict[str, str]]:
    """Write the tasks of every source (or a random ``sample`` of TermiGen's) into ``out``.

    Args:
        locations: ``{repo: clone or URL}``; a source missing here is cloned from GitHub.
        out: the output directory.
        sample: when positive, that many random TermiGen tasks instead of the curated corpus.
        seed: the random sample's seed.

    Returns:
        ``{task id: {"repository", "commit", "licence", "why"}}``, also written to ``out/SOURCE.json``.
    """
    written: dict[str, dict[str, str]] = {}
    sources = (TERMIGEN,) if sample else SOURCES
    with tempfile.TemporaryDirectory() as scratch:
        for source in sources:
            git_dir = _git_dir(locations.get(source.repo, source.url), Path(scratch))
            try:
                _git(git_dir, "cat-file", "-e", f"{source.commit}^{{commit}}")
            except subprocess.CalledProcessError:
                sys.exit(f"{source.repo}: commit {source.commit} is not in {git_dir} (fetch it first)")
            tasks = dict(source.tasks)
            if sample:
                listing = _git(git_dir, "ls-tree", "--name-only", f"{source.commit}:{source.prefix}")
                picked = random.Random(seed).sample(sorted(listing.decode().split()), sample)
                tasks = {name: f"random sample (seed {seed})" for name in picked}
            out.mkdir(parents=True, exist_ok=True)
            for task_id, why in tasks.items():
                if task_id in written:
                    sys.exit(f"task id {task_id} is in two sources")
                _extract(git_dir, source, task_id, out)
                written[task_id] = {
                    "repository": source.repo,
                    "commit": source.commit,
                    "licence": source.licence,
                    "why": why,
                }
    (out / "SOURCE.json").write_text(json.dumps({"tasks": written}, indent=1) + "\n")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="OWNER/NAME=CLONE_OR_URL",
        help="where to read a source from (repeatable); default: clone it from GitHub",
    )
    parser.add_argument("--out", type=Path, default=None, help="output directory")
    parser.add_argument("--sample", type=int, default=0, help="N random TermiGen tasks instead")
    parser.add_argument("--seed", type=int, default=11, help="the random sample's seed")
    args = parser.parse_args()
    locations: dict[str, str] = {}
    for item in args.source:
        repo, eq, location = item.partition("=")
        if not eq or repo not in {s.repo for s in SOURCES}:
            parser.error(f"--source {item!r}: expected one of {', '.join(s.repo for s in SOURCES)}=PATH")
        locations[repo] = location
    out = args.out or (
        default_out().with_name(f"harbor-sample-{args.seed}") if args.sample else default_out()
    )
    written = build(locations, out, sample=args.sample, seed=args.seed)
    print(f"{len(written)} Harbor tasks in {out}")


if __name__ == "__main__":
    main()
