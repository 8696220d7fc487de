"""The screen itself: the changed lines, the findings of a file and a change, the policy."""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Iterable
from typing import Any

from ..task import Task
from ..verdict import Finding, Status, Verdict
from ._base import (
    EVIDENCE_CHARS,
    GRAMMARS,
    MAX_BYTES,
    ChangedFile,
    SuspiciousPolicy,
    _parser,
    _raw_matches,
    log,
)
from ._checks import (
    _File,
    _one,
    _TestPaths,
    _text,
    is_test_path,
)
from ._rules import (
    _rules_query,
)


def changed_lines(before: str | None, after: str) -> set[int] | None:
    """1-based lines of ``after`` that are new or changed relative to ``before``; None: all of them.

    Lines are split at ``\\n`` only, as tree-sitter counts them. The common head and tail are cut before
    diffing, so a small change to a large file costs a scan, not a quadratic diff.
    """
    if before is None:
        return None
    old, new = before.split("\n"), after.split("\n")
    shorter = min(len(old), len(new))
    head = 0
    while head < shorter and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shorter - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    mid_old, mid_new = old[head : len(old) - tail], new[head : len(new) - tail]
    out: set[int] = set()
    # autojunk (difflib's default) is 30x faster on a 5,000-line module changed at both ends; it only
    # changes which of two identical lines counts as new, and identical text screens the same.
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, mid_old, mid_new).get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(head + j1 + 1, head + j2 + 1))
    return out


def language_of(path: str) -> str | None:
    """The screened language of a path by its extension, None when the screen does not parse it."""
    ext = posixpath.splitext(path)[1].lower()
    spec = GRAMMARS.get(ext)
    return spec[0] if spec else None


def _span(source: bytes, lines: set[int]) -> tuple[int, int]:
    """The byte range from the first to the end of the last of ``lines`` (1-based)."""
    first, last = min(lines), max(lines)
    start = 0
    for _ in range(first - 1):
        start = source.index(b"\n", start) + 1
    end = start
    for _ in range(last - first + 1):
        nl = source.find(b"\n", end)
        end = len(source) if nl < 0 else nl + 1
    return start, end


def _rust_test_rows(root: Any) -> list[tuple[int, int]]:
    """0-based row ranges of the items under ``#[cfg(test)]`` (Rust unit tests live in ``src/``)."""
    out = []
    children = root.named_children
    for i, node in enumerate(children):
        if node.type == "attribute_item" and re.sub(r"\s", "", _text(node)) == "#[cfg(test)]":
            nxt = next((c for c in children[i + 1 :] if c.type != "attribute_item"), None)
            if nxt is not None:
                out.append((node.start_point[0], nxt.end_point[0]))
    return out


def screen_file(task: Task, changed: ChangedFile, *, tests: _TestPaths | None = None) -> list[Finding]:
    """The findings of one changed file (see :func:`screen`)."""
    language = language_of(changed.path)
    if language is None or (parser := _parser(language)) is None:
        return []
    found: dict[tuple[str, int], Finding] = {}
    if changed.truncated:
        found[("unscreened", 0)] = Finding(
            code="unscreened",
            path=changed.path,
            line=0,
            evidence=f"larger than {MAX_BYTES} bytes: only the first {MAX_BYTES} were screened",
        )
    lines = changed_lines(changed.before, changed.text)
    if lines is not None and not lines:
        return list(found.values())  # only deletions: nothing new to look at
    source = changed.text.encode("utf-8", errors="replace")
    root = parser.parse(source).root_node
    text_lines = changed.text.split("\n")
    f = _File(changed.path, language, source, root, tests or _TestPaths.of(task), is_test_path(changed.path))
    test_rows = _rust_test_rows(root) if language == "rust" else []
    query, owners = _rules_query(language)
    for index, caps in _raw_matches(query, root, None if lines is None else _span(source, lines)):
        rule = owners[index]
        hit = _one(caps, "hit")
        if hit is None:
            continue
        first, last = hit.start_point[0] + 1, hit.end_point[0] + 1
        if lines is not None and not any(ln in lines for ln in range(first, last + 1)):
            continue
        key = (rule.code, first)
        if key in found:
            continue
        if not rule.tests_too and (f.is_test or any(a <= first - 1 <= b for a, b in test_rows)):
            continue
        if rule.check is not None and not rule.check(caps, f):
            continue
        if rule.needs is not None and not f.fact(rule.needs):
            continue
        evidence = text_lines[first - 1].strip() if first - 1 < len(text_lines) else _text(hit)
        found[key] = Finding(
            code=rule.code, path=changed.path, line=first, evidence=evidence[:EVIDENCE_CHARS]
        )
    return sorted(found.values(), key=lambda x: (x.line, x.code))


def screen(task: Task, files: Iterable[ChangedFile]) -> tuple[Finding, ...]:
    """Screen what the candidate changed: every finding, by file then line.

    Args:
        task: the task (its hidden test paths are skipped and named by the ``test-file-read`` rules).
        files: the files the candidate added or modified, with their original text when they had one.

    Returns:
        The findings; empty when nothing looks like an attack on the grader.
    """
    tests = _TestPaths.of(task)
    out: list[Finding] = []
    for changed in sorted(files, key=lambda c: c.path):
        if changed.path in tests.hidden:
            continue  # written again over the candidate's version before the tests run
        try:
            out.extend(screen_file(task, changed, tests=tests))
        except Exception as e:  # a bug here must neither crash the run nor let the file through unseen
            log.warning("screening %s failed: %r", changed.path, e)
            evidence = f"the screen failed on this file ({type(e).__name__}): it was not screened"
            out.append(Finding(code="unscreened", path=changed.path, line=0, evidence=evidence))
    return tuple(out)


def describe(findings: Iterable[Finding], limit: int = 5) -> str:
    """The findings in one line: ``code at path:line``, the first ``limit`` of them."""
    items = list(findings)
    text = ", ".join(f"{x.code} at {x.path}:{x.line}" for x in items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def enforce(
    verdict: Verdict,
    policy: SuspiciousPolicy,
    *,
    reference: bool = False,
    exempt: Iterable[str] = (),
) -> Verdict:
    """Apply the policy: under ``reject`` (the default), a resolved verdict with findings becomes
    ``unresolved`` (``Verdict.screened``).

    ``reference``: the candidate is the task's own gold patch, the reference every other candidate is
    graded against; its findings stay evidence (a task whose fix must read the machine is not made
    unsolvable). ``exempt``: the finding codes the gold patch's own change shows (learnt when the task's
    controls are calibrated); a candidate doing what the reference fix does is not held to be attacking
    the grader for it. Any other status is left as it is (an infrastructure fault stays one; an
    unresolved run needs no help).
    """
    if policy is not SuspiciousPolicy.REJECT or verdict.status is not Status.RESOLVED or reference:
        return verdict
    skip = frozenset(exempt)
    held = [f for f in verdict.suspicious if f.code not in skip]
    if not held:
        return verdict
    return verdict.model_copy(
        update={
            "status": Status.UNRESOLVED,
            "reward": 0.0,
            "screened": True,
            "reason": "the candidate's change looks like an attack on the grader (--suspicious reject): "
            + describe(held),
        }
    )
