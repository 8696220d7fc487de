#!/usr/bin/env python3
"""Rebuild the Harbor part of the real-world corpus: public Harbor tasks whose Dockerfiles use paths
other than /app (``/workspace``, ``/home/agent``, ``/root``, ``/solution``, ``/tmp``, ``/data``, ``/opt``...).

Source: TermiGen's environments (terminal-bench family), as adapted to Harbor 2.0 by
https://github.com/zjysteven/terminal-bench-env (``environments_harbor/``; upstream
https://github.com/ucsb-mlsec/terminal-bench-env). Pinned commit below. Licence: neither repository states
one (no LICENSE file, no licence in the README): the tasks are used locally for testing and are never
copied into this repository; this script only names them and fetches them.

The tasks are picked for variety of layout (see ``TASKS``): every one has a final WORKDIR other than
/app, most COPY into two or more top-level directories, all run their tests with pytest and install
nothing beyond Python packages (so the host can honour them). None ships ``solution/solve.sh``.

Usage::

    python scripts/realworld/build_harbor.py [--source GIT_DIR_OR_URL] [--out DIR]
    python scripts/realworld/build_harbor.py --sample 30 --seed 11 [--out DIR]

``--sample N`` writes N tasks drawn at random (``random.Random(seed).sample`` of the sorted task ids)
instead of the curated list, to ``$PATCHBENCH_REALWORLD/harbor-sample-<seed>`` by default: a measure of
how the whole source fares, not a corpus the tests assert on.

``--out`` defaults to ``$PATCHBENCH_REALWORLD/harbor`` (``realworld/harbor`` when the variable is unset).
``--source`` is a clone (bare or not) holding the pinned commit, or a URL to clone (default: the
GitHub repository). The output directory is a Harbor dataset: ``patchbench run DIR --empty``.
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
from pathlib import Path

REPO = "zjysteven/terminal-bench-env"
URL = f"https://github.com/{REPO}.git"
COMMIT = "aaad6aeff9b58ab7504a7d239f01f8b11c7174ef"
UPSTREAM = "ucsb-mlsec/terminal-bench-env"
LICENCE = "none stated (no LICENSE file in either repository)"
PREFIX = "environments_harbor"

#: task id -> why it is in the corpus (its workspace and the other top-level directories it fills).
TASKS: dict[str, str] = {
    "active_learning_sampling_medium": "/workspace + /data",
    "amplitude_event_deduplication_hard": "/workspace + /data",
    "angr_symbolic_execution_analysis_hard": "/workspace + /challenge, two RUN steps",
    "active_directory_dcsync_attack_hard": "/home/agent + /var",
    "apache_tomcat_ghostcat_ajp_hard": "/home/... + /forensics",
    "annovar_annotation_databases_medium": "/home/user + /opt",
    "aws_datasync_task_automation_hard": "/home/user + /config + /data",
    "secrets_management_vault_medium": "/tmp + /opt",
    "ssh_key_permissions_too_open_hard_1": "/tmp + /home + /opt + /root + /var",
    "auditd_log_investigation_hard": "/root + /var",
    "burrows_wheeler_transform_hard": "/solution + /data",
    "background_job_stdout_terminal_medium": "/solution + /opt, two RUN steps",
    "rabbitmq_queue_length_unbounded_hard": "/home + /incident_data",
    "disk_io_scheduler_optimization_medium": "/home/admin + /opt",
}


def default_out() -> Path:
    """``$PATCHBENCH_REALWORLD/harbor``, else ``realworld/harbor``."""
    return Path(os.environ.get("PATCHBENCH_REALWORLD") or "realworld") / "harbor"


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def _git_dir(source: str, scratch: Path) -> Path:
    path = Path(source)
    if path.exists():
        inner = path / ".git"
        return inner if inner.is_dir() else path
    dest = scratch / "source.git"
    subprocess.run(
        ["git", "clone", "--bare", "--filter=blob:none", "--quiet", source, str(dest)],
        check=True,
    )
    return dest


def build(source: str, out: Path, *, sample: int = 0, seed: int = 11) -> list[str]:
    """Write the tasks of ``TASKS`` (or a random ``sample``) from ``source`` at ``COMMIT`` into ``out``;
    returns the ids."""
    with tempfile.TemporaryDirectory() as scratch:
        git_dir = _git_dir(source, Path(scratch))
        try:
            _git(git_dir, "cat-file", "-e", f"{COMMIT}^{{commit}}")
        except subprocess.CalledProcessError:
            sys.exit(f"{source}: commit {COMMIT} is not there (fetch it first)")
        chosen: dict[str, str] = dict(TASKS)
        if sample:
            names = _git(git_dir, "ls-tree", "--name-only", f"{COMMIT}:{PREFIX}").decode().split()
            picked = random.Random(seed).sample(sorted(names), sample)
            chosen = {name: f"random sample (seed {seed})" for name in picked}
        out.mkdir(parents=True, exist_ok=True)
        for task_id in chosen:
            blob = _git(git_dir, "archive", "--format=tar", COMMIT, f"{PREFIX}/{task_id}")
            dest = out / task_id
            if dest.exists():
                shutil.rmtree(dest)
            with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
                for member in tar.getmembers():
                    rel = member.name.removeprefix(f"{PREFIX}/")
                    if not rel.startswith(task_id) or ".." in rel.split("/"):
                        continue
                    if not (member.isfile() or member.isdir()):
                        continue  # no links out of the corpus
                    member.name = rel
                    tar.extract(member, out, filter="data")
    (out / "SOURCE.json").write_text(
        json.dumps(
            {
                "repository": REPO,
                "commit": COMMIT,
                "upstream": UPSTREAM,
                "licence": LICENCE,
                "tasks": chosen,
            },
            indent=1,
        )
        + "\n"
    )
    return list(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=URL, help="a clone holding the pinned commit, or a URL")
    parser.add_argument("--out", type=Path, default=None, help="output directory")
    parser.add_argument("--sample", type=int, default=0, help="N random tasks instead of the curated ones")
    parser.add_argument("--seed", type=int, default=11, help="the random sample's seed")
    args = parser.parse_args()
    out = args.out or (
        default_out().with_name(f"harbor-sample-{args.seed}") if args.sample else default_out()
    )
    ids = build(args.source, out, sample=args.sample, seed=args.seed)
    print(f"{len(ids)} Harbor tasks from {REPO}@{COMMIT[:12]} in {out}")


if __name__ == "__main__":
    main()
