"""What a Dockerfile builds, read without Docker: the files, directories, links, variables and steps.

:func:`parse` reads the final stage of a Dockerfile against its build context (the files of
``environment/``) and returns an :class:`ImageSpec`:

* ``FROM`` → ``image`` (each ``FROM`` starts a new stage: only the last stage's files and steps count);
* ``COPY``/``ADD`` → ``files``, at their absolute destinations (several sources, directory sources,
  ``*``/``?`` globs, ``WORKDIR``-relative destinations, ``ARG``/``ENV`` variables, ``--chmod``); what
  cannot be resolved (``--from``, heredocs, URLs, archives ``ADD`` would unpack, missing sources) goes to
  ``unresolved`` verbatim;
* ``WORKDIR`` → ``dirs`` (Docker creates it) and ``workdir``; ``ENV`` → ``env``; ``ARG`` defaults expand
  later lines;
* ``RUN`` → ``runs``: the command with the steps a native build cannot or need not replay replaced by
  ``:`` (a no-op that keeps ``&&`` chains intact): installs (``apt-get``, ``pip``, ``npm``..., whose
  packages go to ``system_deps``/``python_requirements`` for the cached setup phase), package-cache
  cleanups, user management (the native run has one unprivileged uid), downloads (named in ``gaps``),
  ``ln -s`` into system directories (kept in ``system_links``) and ``ln -s`` making a top-level name
  (kept in ``top_links``);
* every instruction that cannot be honoured natively is named: in ``gaps`` when the image's files would
  differ (a build-time download, an unknown instruction), in ``notes`` when they would not (``USER``,
  ``chown``, an install the setup phase does not serve).

Nothing here touches the filesystem: :mod:`patchbench.verifiers.image` lays the result out and replays the
``RUN`` steps in the sandbox. :func:`workspace_dir` is the directory a candidate edits: the final
``WORKDIR`` when it is a place a native run can lay out, else ``/app``.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import bashlex  # type: ignore[import-untyped]

__all__ = [
    "DEFAULT_WORKSPACE",
    "SYSTEM_ROOTS",
    "Copy",
    "ImageSpec",
    "RunStep",
    "layable",
    "logical_lines",
    "parse",
    "split_steps",
    "uvx_packages",
    "workspace_dir",
]

#: Where the workspace is when the Dockerfile sets no usable WORKDIR (Harbor's convention).
DEFAULT_WORKSPACE = "/app"
#: Top-level directories the host provides read-only to the sandbox (or the kernel provides): the image's
#: files cannot be laid out under them natively. ``/opt``, ``/tmp``, ``/var``, ``/home``, ``/root`` and any
#: other top-level name can: the image's copy replaces the host's in the sandbox.
SYSTEM_ROOTS = frozenset(
    {"usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "proc", "dev", "sys"}
)
#: Instructions that change nothing a native run needs (documentation, build or container metadata).
_IGNORED = frozenset(
    {"LABEL", "MAINTAINER", "EXPOSE", "CMD", "ENTRYPOINT", "STOPSIGNAL", "ONBUILD", "HEALTHCHECK", "VOLUME"}
)
_ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst")
_APT_INSTALL = re.compile(r"\bapt(?:-get)?\s+(?:-\S+\s+)*install\b([^;&|]*)")
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b([^;&|]*)")
_PIP_OPTIONS_WITH_VALUE = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f"}
    | {"--find-links", "-t", "--target", "-e", "--editable", "--prefix", "--root"}
)
#: Steps the setup phase serves (the packages are collected into the task's EnvSpec).
_SERVED_INSTALL = re.compile(
    r"^(?:sudo\s+)?(?:apt(?:-get)?|pip[\d.]*|python[\d.]*\s+-m\s+pip|uv\s+pip|npm|yarn|pnpm|mvn|gradle)\b"
)
#: Installs of tools the setup phase does not serve: named in the notes.
_OTHER_INSTALL = re.compile(
    r"^(?:sudo\s+)?(?:apk|yum|dnf|microdnf|zypper|conda|mamba|micromamba|gem\s+install|cargo\s+install|"
    r"go\s+(?:install|get)|rustup|update-ca-certificates|locale-gen|dpkg-reconfigure|uv\s+tool|"
    r"python[\d.]*\s+-m\s+ensurepip|Rscript\s+-e\s+['\"]?install)\b"
)
_CLEANUP = re.compile(
    r"^(?:rm\s+-[rf]+\s+(?:/var/lib/apt/lists|/var/cache|/root/\.cache|/tmp/\*)|apt(?:-get)?\s+clean|"
    r"pip[\d.]*\s+cache|npm\s+cache)"
)
_USERS = re.compile(
    r"^(?:sudo\s+)?(?:useradd|adduser|groupadd|addgroup|usermod|chown|chgrp|passwd|chpasswd)\b"
)
_DOWNLOAD = re.compile(r"^(?:curl|wget|git\s+clone|git\s+submodule|svn\s+(?:co|checkout))\b")
_KEYWORDS = ("then", "do", "else", "!", "{", "(")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*\s+")
_HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*['\"]?[A-Za-z_]")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


@dataclass(frozen=True)
class RunStep:
    """One ``RUN`` instruction to replay.

    Attributes:
        script: the ``/bin/sh -c`` command, with the steps that are not replayed replaced by ``:``.
        cwd: the ``WORKDIR`` in force.
        env: the ``ENV`` variables in force.
        line: the instruction as written (for messages).
    """

    script: str
    cwd: str
    env: dict[str, str]
    line: str


@dataclass(frozen=True)
class Copy:
    """One ``COPY``/``ADD``: ``{absolute path: (content, executable)}`` and the instruction as written."""

    files: dict[str, tuple[bytes, bool]]
    line: str


@dataclass
class ImageSpec:
    """What the final stage of a Dockerfile builds (see the module docstring).

    Attributes:
        image: the final ``FROM`` image.
        workdir: the final ``WORKDIR`` (``/`` when none).
        env: the final ``ENV`` variables.
        files: ``{absolute path: (content, executable)}`` from ``COPY``/``ADD``, in build order.
        dirs: absolute directories the build creates without a step (``WORKDIR``), in order.
        runs: the ``RUN`` instructions to replay, in order.
        layers: the build in order: one :class:`Copy` per ``COPY``/``ADD``, one :class:`RunStep` per
            replayed ``RUN`` (a later ``COPY`` overwrites what an earlier ``RUN`` made, and the reverse).
        system_links: ``(target, link)`` pairs of ``ln -s`` into system directories.
        top_links: ``(target, link)`` pairs of ``ln -s`` that make a top-level name (``/project``).
        system_deps: packages of ``apt-get install``.
        python_requirements: packages of ``pip install`` (paths and options left out).
        unresolved: ``COPY``/``ADD`` lines that could not be resolved, verbatim.
        gaps: what the image would hold that a native build cannot make (one line each).
        notes: what is not honoured but does not change the image's files (one line each).
    """

    image: str | None = None
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, tuple[bytes, bool]] = field(default_factory=dict)
    dirs: list[str] = field(default_factory=list)
    runs: list[RunStep] = field(default_factory=list)
    layers: list[Copy | RunStep] = field(default_factory=list)
    system_links: list[tuple[str, str]] = field(default_factory=list)
    top_links: list[tuple[str, str]] = field(default_factory=list)
    system_deps: list[str] = field(default_factory=list)
    python_requirements: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def logical_lines(text: str) -> list[str]:
    """Dockerfile instructions with backslash continuations joined and comments dropped."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not pending):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    if pending.strip():
        lines.append(pending.strip())
    return lines


def layable(path: str) -> bool:
    """Whether a native run can lay the absolute ``path`` out: it is not in a system directory."""
    parts = [p for p in posixpath.normpath(path).split("/") if p]
    return bool(parts) and parts[0] not in SYSTEM_ROOTS


def workspace_dir(spec: ImageSpec) -> str:
    """The candidate's workspace: the final ``WORKDIR`` when it can be laid out, else ``/app``."""
    return spec.workdir if spec.workdir != "/" and layable(spec.workdir) else DEFAULT_WORKSPACE


def parse(text: str, context: Mapping[str, tuple[bytes, bool]]) -> ImageSpec:
    """Read a Dockerfile against its build context (paths relative to the context directory)."""
    spec = ImageSpec()
    args: dict[str, str] = {}
    workdir = "/"
    env: dict[str, str] = {}
    for line in logical_lines(text):
        keyword, _, rest = line.partition(" ")
        keyword = keyword.upper()
        rest = rest.strip()
        brief = " ".join(line.split())[:200]
        if keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            spec.image = words[0] if words else None
            # A new stage: only the final stage's files, steps and variables reach the image.
            workdir, env = "/", {}
            spec.files, spec.dirs, spec.runs, spec.layers = {}, [], [], []
            spec.system_links, spec.top_links = [], []
            spec.unresolved, spec.gaps = [], []
        elif keyword == "ARG":
            for word in _words(rest):
                name, eq, value = word.partition("=")
                if name and name not in args:
                    args[name] = _expand(value, {**args, **env}) if eq else args.get(name, "")
        elif keyword == "ENV":
            for name, value in _parse_env(rest).items():
                env[name] = _expand(value, {**args, **env})
        elif keyword == "WORKDIR":
            target = _expand(rest.strip("\"'"), {**args, **env})
            if not target or "$" in target:
                spec.gaps.append(f"{brief} (a variable without a value)")
                continue
            workdir = posixpath.normpath(posixpath.join(workdir, target))
            if workdir not in spec.dirs:
                spec.dirs.append(workdir)
        elif keyword in ("COPY", "ADD"):
            if not _apply_copy(keyword, _expand(rest, {**args, **env}), workdir, context, spec):
                spec.unresolved.append(brief)
        elif keyword == "RUN":
            _add_run(rest, workdir, env, brief, spec)
        elif keyword == "USER":
            spec.notes.append(f"{brief}: the native run uses one unprivileged uid")
        elif keyword == "SHELL":
            spec.notes.append(f"{brief}: RUN steps are replayed with /bin/sh")
        elif keyword in _IGNORED:
            continue
        else:
            spec.gaps.append(f"{brief} (unknown instruction)")
    spec.workdir = workdir
    spec.env = env
    return spec


# ------------------------------------------------------------------------------------------------ RUN


def split_steps(command: str) -> list[tuple[str, str]]:
    """Split a shell command at its top-level ``&&``, ``||``, ``;`` and newlines.

    Quotes, backslash escapes and parentheses (``$(...)``, subshells) are respected. Returns
    ``(step, separator)`` pairs; the last separator is ``""``.
    """
    out: list[tuple[str, str]] = []
    current: list[str] = []
    quote: str | None = None
    depth = 0
    i = 0
    n = len(command)
    while i < n:
        c = command[i]
        if quote is not None:
            current.append(c)
            if c == "\\" and quote == '"' and i + 1 < n:
                current.append(command[i + 1])
                i += 1
            elif c == quote:
                quote = None
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            current.append(command[i : i + 2])
            i += 2
            continue
        if c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif command[i : i + 2] == ";;":  # a ``case`` branch's end, not a separator
            current.append(";;")
            i += 2
            continue
        elif depth == 0:
            sep = command[i : i + 2] if command[i : i + 2] in ("&&", "||") else c if c in ";\n" else ""
            if sep:
                out.append(("".join(current).strip(), sep))
                current = []
                i += len(sep)
                continue
        current.append(c)
        i += 1
    out.append(("".join(current).strip(), ""))
    return [(s, sep) for s, sep in out if s or sep]


def _add_run(rest: str, workdir: str, env: dict[str, str], brief: str, spec: ImageSpec) -> None:
    command = rest
    while command.startswith("--"):  # RUN --mount=... --network=...
        _, _, command = command.partition(" ")
        command = command.strip()
    if command.startswith("["):
        try:
            argv = json.loads(command)
        except json.JSONDecodeError:
            spec.gaps.append(f"{brief} (unreadable exec form)")
            return
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            spec.gaps.append(f"{brief} (unreadable exec form)")
            return
        command = shlex.join(argv)
    if _HEREDOC.search(command):
        # The body is on the following lines, which the Dockerfile grammar gives to the heredoc.
        spec.gaps.append(f"{brief} (heredoc RUN is not replayed)")
        return
    _collect_packages(command, spec)
    rewritten = _rewrite_parsed(command, brief, spec)
    if rewritten is None:  # bashlex could not parse it: top-level steps only
        kept: list[str] = []
        replay = False
        for step, sep in split_steps(command):
            new = _rewrite_step(step, brief, spec)
            replay = replay or (new == step and bool(step) and not _trivial(step))
            kept.append(new + (f" {sep} " if sep and sep != "\n" else sep))
        rewritten = ("".join(kept).strip(), replay)
    script, replay = rewritten
    if replay:
        run = RunStep(script=script, cwd=workdir, env=dict(env), line=brief)
        spec.runs.append(run)
        spec.layers.append(run)


def _rewrite_parsed(command: str, brief: str, spec: ImageSpec) -> tuple[str, bool] | None:
    """The command with every simple command or pipeline that is not replayed replaced by ``:``, and
    whether anything is left to replay; None when bashlex cannot parse it.

    bashlex (already used by the verifier lint) finds the commands inside ``if``/``for`` bodies,
    subshells and braces, so a replacement never breaks the shell syntax around it.
    """
    try:
        trees = bashlex.parse(command)
    except Exception:  # bashlex raises its own errors and others (NotImplementedError) on odd input
        return None
    spans: list[tuple[int, int, str]] = []
    kept = 0

    def visit(node: Any) -> None:
        nonlocal kept
        if node.kind in ("command", "pipeline"):
            text = command[node.pos[0] : node.pos[1]]
            new = _rewrite_step(text, brief, spec)
            if new != text:
                spans.append((node.pos[0], node.pos[1], new))
                return
            if node.kind == "command":
                if not _trivial(text):
                    kept += 1
                return
        for child in [*getattr(node, "parts", []), *getattr(node, "list", [])]:
            if hasattr(child, "kind"):
                visit(child)

    for tree in trees:
        visit(tree)
    out = command
    for start, end, new in sorted(spans, reverse=True):
        out = out[:start] + new + out[end:]
    return out, kept > 0


def _trivial(step: str) -> bool:
    return step in (":", "true", "fi", "done", "esac", "}", ")")


def _rewrite_step(step: str, brief: str, spec: ImageSpec) -> str:
    """The step as replayed: itself, or ``:`` (with a keyword prefix kept) when it is not replayed."""
    prefix = ""
    body = step
    changed = True
    while changed:
        changed = False
        for keyword in _KEYWORDS:
            if body.startswith(keyword + " ") or (keyword in "{(!" and body.startswith(keyword)):
                prefix += body[: len(keyword)] + " "
                body = body[len(keyword) :].lstrip()
                changed = True
        m = _ASSIGNMENT.match(body)
        if m:
            body = body[m.end() :]
            changed = True
    if not body:
        return step
    if _SERVED_INSTALL.match(body) or _CLEANUP.match(body):
        return prefix + ":"
    if _OTHER_INSTALL.match(body):
        spec.notes.append(f"RUN {body[:160]}: an install the setup phase does not serve")
        return prefix + ":"
    if _USERS.match(body):
        spec.notes.append(f"RUN {body[:160]}: the native run uses one unprivileged uid")
        return prefix + ":"
    if _DOWNLOAD.match(body):
        spec.gaps.append(f"RUN {body[:160]} (a download at build time; the native build is offline)")
        return prefix + ":"
    link = _symlink(body)
    if link is not None and not layable(link[1]):
        spec.system_links.append(link)
        return prefix + ":"
    if link is not None and link[1].count("/") == 1:
        spec.top_links.append(link)  # ``ln -s /workspace /project``: the run binds the target twice
        return prefix + ":"
    return step


def _symlink(step: str) -> tuple[str, str] | None:
    """``(target, link)`` of an ``ln -s`` with an absolute link path, normalised."""
    try:
        words = shlex.split(step)
    except ValueError:
        return None
    if not words or words[0] != "ln":
        return None
    flags = [w for w in words[1:] if w.startswith("-")]
    paths = [w for w in words[1:] if not w.startswith("-")]
    if not any("s" in f.lstrip("-") or f == "--symbolic" for f in flags) or len(paths) != 2:
        return None
    target, link = paths
    if not link.startswith("/"):
        return None
    if link.endswith("/"):
        link = posixpath.join(link, posixpath.basename(target))
    return (target, posixpath.normpath(link))


def uvx_packages(script: str) -> list[str]:
    """The packages ``uvx`` commands of a shell script run: ``--with``/``--from`` values and the tools
    (``pytest@8.4.1`` read as ``pytest==8.4.1``), in order, without duplicates."""
    found: list[str] = []
    text = re.sub(r"\\\n", " ", script)
    for line in text.splitlines():
        for step, _sep in split_steps(line):
            try:
                words = shlex.split(step, comments=True)
            except ValueError:
                continue
            # the command word, after variable assignments and control keywords
            while words and (words[0] in _KEYWORDS or re.fullmatch(r"[A-Za-z_]\w*=.*", words[0])):
                words = words[1:]
            if not words or words[0] != "uvx":
                continue
            i, tool_from = 1, False
            while i < len(words):
                word = words[i]
                if word in ("--with", "--from") and i + 1 < len(words):
                    found.extend(p for p in words[i + 1].split(",") if p)
                    tool_from = tool_from or word == "--from"
                    i += 2
                elif word.startswith(("--with=", "--from=")):
                    found.extend(p for p in word.partition("=")[2].split(",") if p)
                    tool_from = tool_from or word.startswith("--from=")
                    i += 1
                elif word in ("-p", "--python", "-i", "--index-url", "-c", "--constraint"):
                    i += 2
                elif word.startswith("-"):
                    i += 1
                else:
                    if not tool_from:
                        name, at, version = word.partition("@")
                        found.append(f"{name}=={version}" if at and version else name)
                    break
    return list(dict.fromkeys(found))


def _collect_packages(command: str, spec: ImageSpec) -> None:
    for match in _APT_INSTALL.finditer(command):
        for word in match.group(1).split():
            if not word.startswith("-") and word not in spec.system_deps:
                spec.system_deps.append(word)
    for match in _PIP_INSTALL.finditer(command):
        try:
            words = shlex.split(match.group(1))
        except ValueError:
            continue
        skip = False
        for word in words:
            if skip:
                skip = False
                continue
            if word in _PIP_OPTIONS_WITH_VALUE:
                skip = True
                continue
            if word.startswith("-") or word.startswith((".", "/")):
                continue
            if word not in spec.python_requirements:
                spec.python_requirements.append(word)


# ---------------------------------------------------------------------------------------- COPY / ADD


def _apply_copy(
    keyword: str,
    rest: str,
    workdir: str,
    context: Mapping[str, tuple[bytes, bool]],
    spec: ImageSpec,
) -> bool:
    """Add what one COPY/ADD puts into the image to ``spec.files``; False when it cannot be resolved."""
    try:
        args = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
    except ValueError:
        return False
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False
    flags = [a for a in args if a.startswith("--")]
    if any(f.startswith("--from") for f in flags):
        return False
    mode: int | None = None
    for f in flags:
        if f.startswith("--chmod="):
            try:
                mode = int(f.partition("=")[2], 8)
            except ValueError:
                return False
    paths = [a for a in args if not a.startswith("--")]
    if len(paths) < 2 or any("$" in p or p.startswith("<<") for p in paths):
        return False
    *sources, dest = paths
    if keyword == "ADD" and any("://" in s or s.lower().endswith(_ARCHIVE_SUFFIXES) for s in sources):
        return False  # ADD downloads URLs and unpacks local archives
    dest_abs = posixpath.normpath(posixpath.join(workdir, dest))
    # Into a directory: a trailing slash, several sources, or a directory the image already has.
    into_dir = (
        dest.endswith("/")
        or dest in (".", "..")
        or len(sources) > 1
        or dest_abs in spec.dirs
        or any(f.startswith(dest_abs.rstrip("/") + "/") for f in spec.files)
    )

    mapped: dict[str, str] = {}  # context path -> absolute destination
    for src in sources:
        src_norm = posixpath.normpath(src.lstrip("/")) if src.strip("/") else "."
        if src_norm == ".." or src_norm.startswith("../"):
            return False
        matches = _match_source(src_norm, context)
        if not matches:
            return False
        multiple = len(matches) > 1 or any(kind == "dir" for _, kind in matches)
        for match, kind in matches:
            if kind == "dir":
                prefix = "" if match == "." else match + "/"
                for path in context:
                    if path.startswith(prefix):
                        mapped[path] = posixpath.join(dest_abs, path[len(prefix) :])
            elif into_dir or multiple:
                mapped[match] = posixpath.join(dest_abs, posixpath.basename(match))
            else:
                mapped[match] = dest_abs
    layer = Copy(files={}, line=" ".join(f"{keyword} {rest}".split())[:200])
    for path, target in mapped.items():
        content, executable = context[path]
        entry = (content, executable if mode is None else bool(mode & 0o111))
        spec.files.pop(target, None)  # a later COPY of the same path lands last
        spec.files[target] = entry
        layer.files[target] = entry
    spec.layers.append(layer)
    return True


def _match_source(src: str, context: Mapping[str, tuple[bytes, bool]]) -> list[tuple[str, str]]:
    """What a COPY source names in the build context: ``(path, "file" | "dir")`` pairs."""
    if src == ".":
        return [(".", "dir")]
    dirs = {"/".join(p.split("/")[:i]) for p in context for i in range(1, p.count("/") + 1)}
    if any(ch in src for ch in "*?["):
        pattern = src.split("/")
        found: list[tuple[str, str]] = []
        for candidate in sorted(set(context) | dirs):
            parts = candidate.split("/")
            if len(parts) == len(pattern) and all(
                fnmatch.fnmatchcase(a, b) for a, b in zip(parts, pattern, strict=True)
            ):
                found.append((candidate, "dir" if candidate in dirs else "file"))
        return found
    if src in context:
        return [(src, "file")]
    if src in dirs:
        return [(src, "dir")]
    return []


# -------------------------------------------------------------------------------------------- helpers


def _words(rest: str) -> list[str]:
    try:
        return shlex.split(rest)
    except ValueError:
        return rest.split()


def _parse_env(rest: str) -> dict[str, str]:
    words = _words(rest)
    if len(words) >= 2 and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}  # the legacy ``ENV NAME value`` form
    return dict(w.split("=", 1) for w in words if "=" in w)


def _expand(text: str, variables: Mapping[str, str]) -> str:
    """``$NAME``, ``${NAME}`` and ``${NAME:-default}`` replaced where known; unknown ones kept."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(3)
        if name in variables:
            return variables[name]
        if m.group(2) is not None:
            return m.group(2)
        return m.group(0)

    return _VARIABLE.sub(sub, text)
