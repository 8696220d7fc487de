"""Harbor task directories, and the ``{path, task_binary}`` parquet that packs them (seeds 000 and 003).

A Harbor task directory::

    task.toml               configuration ([verifier] timeout_sec, [metadata] ...)
    instruction.md          the agent-facing prompt
    metadata.json           optional, free-form JSON object
    environment/Dockerfile  builds the image; the workspace is its final WORKDIR (else /app)
    tests/test.sh           the verifier, uploaded with the rest of tests/ to /tests after the agent ran;
                            it writes /logs/verifier/reward.txt

Reading (:class:`HarborDirFormat` for a task directory or a directory of them, :class:`HarborParquetFormat`
for the parquet file, whose ``task_binary`` tarballs go through :func:`~._tar.read_tar_gz`):

* ``id``: the directory name (the ``path`` column); ``prompt``: instruction.md;
* ``extra_files``: every file of the task directory, binary ones base64-encoded and executable bits kept,
  so writing the Task back reproduces the directory byte for byte (empty directories excepted);
* ``hidden_tests``: the files under ``tests/``, paths relative to ``tests/`` (they are uploaded to /tests);
* ``verifier``: ``VerifierSpec(kind=SCRIPT, script="tests/test.sh")``; ``test``: ``bash /tests/test.sh``
  with ``[verifier] timeout_sec`` as the task's one time limit;
* ``workspace``: the files the Dockerfile's final stage COPYs or ADDs (from ``environment/``, the build
  context) under the workspace directory, paths relative to it. The workspace directory is the final
  ``WORKDIR`` when a native run can lay it out (not under a system directory such as /usr or /etc),
  else /app; it is the verifier's ``app_dir``. The Dockerfile is read by :mod:`._dockerfile` (several
  sources, directory sources, ``*``/``?`` globs, ``WORKDIR`` for relative destinations, ``ARG``/``ENV``
  variables, ``--chown``/``--chmod`` flags); what cannot be resolved (``--from``, heredocs, URLs,
  archives ADD would unpack, missing sources) is listed, line by line, in
  ``metadata["harbor_unresolved_copies"]``. ``.dockerignore`` is not applied. The files it puts
  elsewhere (``/solution``, ``/data``...) are laid out by the harness at run time (see
  :mod:`patchbench.verifiers.image`);
* ``env``: the final ``FROM`` image, packages from ``apt-get install`` and ``pip install`` in ``RUN`` lines,
  then the packages ``tests/test.sh`` runs through ``uvx`` (``--with`` values and the tool) unless the
  Dockerfile already names them;
  its language is the task's when patchbench has an environment for it, else the tests' (a C project
  whose ``tests/`` are pytest files gets Python), else python;
* ``metadata``: metadata.json's keys (when it is a JSON object) plus ``"task_toml"``, the parsed task.toml;
* ``language``: a ``language`` key or a language tag in task.toml ``[metadata]`` or metadata.json, else the
  most common workspace file extension, else the base image, else the test files' extensions, else python.

* ``gold_patch``: ``solution/gold.patch`` when the directory has one (a unified diff against /app; a
  patchbench convention beside Harbor's ``solution/solve.sh``, so ``--gold`` can run).

A task directory without task.toml, tests/test.sh or instruction.md is a row error.

Writing: a Task that has ``extra_files`` (it came from Harbor) is written as exactly those files; they are
authoritative, so edits to its other fields are not written unless ``extra_files`` is emptied first. Any
other Task gets a generated directory: task.toml (``version``, string metadata and a language tag under
``[metadata]``, ``[verifier] timeout_sec``; a ``task_toml`` dict in metadata is written instead when
there is one), instruction.md, ``environment/Dockerfile`` (the task's image or a python/node/temurin/...
base by language, its system packages and requirements, ``WORKDIR /app``, ``COPY app/ /app/``, the setup
commands), ``environment/app/<workspace>``, ``tests/<hidden tests>`` and a default-fail ``tests/test.sh``
(writes 0 first, copies the hidden tests into /app, runs every test command from /app with ``pipefail``
and writes 1 only when all of them exit 0; it cannot tell "zero tests ran" from a pass, so commands should
fail on an empty run, as pytest does). A Task whose verifier is already ``tests/test.sh`` among its hidden
tests (a Harbor task that went through another format) keeps its own script instead; any other hidden
test at ``test.sh`` is an error, since it would replace the verifier.

The generated ``metadata.json`` holds ``{"patchbench": {...}}``: the Task fields Harbor has no place for
(language, test commands and spec, env, verifier, fail_to_pass, pass_to_pass, gold_patch, buggy_files,
context files, which tests/ files are hidden tests, JSON-serialisable metadata). The reader restores them
from that key, so HardBug/PatchBench -> Harbor -> Task keeps its F2P/P2P, gold patch and test commands.
metadata.json is harness-side: the Dockerfile copies only ``app/`` into the image, so the agent never sees
the gold patch.
"""

from __future__ import annotations

from ._common import GOLD_PATCH
from ._formats import HarborDirFormat, HarborParquetFormat
from ._read import task_from_files
from ._write import task_to_files

__all__ = [
    "GOLD_PATCH",
    "HarborDirFormat",
    "HarborParquetFormat",
    "task_from_files",
    "task_to_files",
]
