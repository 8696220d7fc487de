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
    DATA_EXTENSIONS,
    EVIDENCE_CHARS,
    GRAMMARS,
    MAX_BYTES,
    TASK_GRAMMAR,
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
    literal,
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


#: Per grammar: the node types of a ``+`` between strings, and of a string literal, that fold into one.
_CONCAT = {
    "python": ({"binary_operator", "concatenated_string"}, {"string"}),
    "javascript": ({"binary_expression"}, {"string", "template_string"}),
    "typescript": ({"binary_expression"}, {"string", "template_string"}),
    "tsx": ({"binary_expression"}, {"string", "template_string"}),
    "java": ({"binary_expression"}, {"string_literal"}),
    "go": ({"binary_expression"}, {"interpreted_string_literal", "raw_string_literal"}),
}


def _fold_value(node: Any, joins: set[str], strings: set[str]) -> str | None:
    """The value of a concatenation made of string literals only (parentheses allowed), else None."""
    if node.type in strings:
        if node.type == "template_string" and any(c.type == "template_substitution" for c in node.children):
            return None
        return literal(node)
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _fold_value(node.named_children[0], joins, strings)
    if node.type not in joins:
        return None
    if node.type != "concatenated_string":
        op = node.child_by_field_name("operator")
        if op is None or _text(op) != "+":
            return None
    parts = [_fold_value(c, joins, strings) for c in node.named_children]
    return None if any(v is None for v in parts) else "".join(p for p in parts if p is not None)


def _literal_arg(node: Any, strings: set[str]) -> str | None:
    """The value of a plain string literal node (no substitution), else None."""
    if node is None or node.type not in strings:
        return None
    if node.type == "template_string" and any(c.type == "template_substitution" for c in node.children):
        return None
    value = literal(node)
    return value if re.fullmatch(r"[A-Za-z_$][\w$.]*", value) else None


def _spelt(language: str, node: Any, strings: set[str]) -> str | None:
    """What a constant-named lookup means, written plainly: ``__import__("os")`` and
    ``importlib.import_module("os")`` are ``os``, ``getattr(x, "pid")`` and ``Reflect.get(x, "pid")`` are
    ``x.pid``, ``x["pid"]`` is ``x.pid`` (JavaScript); None for anything else."""
    if language == "python" and node.type == "call":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        named = [] if args is None else args.named_children
        name = _text(fn) if fn is not None else ""
        if name in ("__import__", "importlib.import_module") and len(named) == 1:
            return _literal_arg(named[0], strings)
        if name == "getattr" and len(named) == 2 and (attr := _literal_arg(named[1], strings)):
            return f"{_text(named[0])}.{attr}" if "." not in attr else None
    if language in ("javascript", "typescript", "tsx"):
        if node.type == "call_expression" and _text(node.child_by_field_name("function")) == "Reflect.get":
            args = node.child_by_field_name("arguments")
            named = [] if args is None else args.named_children
            if len(named) == 2 and (attr := _literal_arg(named[1], strings)) and "." not in attr:
                return f"{_text(named[0])}.{attr}"
        if node.type == "subscript_expression":
            obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
            attr = _literal_arg(index, strings)
            if obj is not None and attr and "." not in attr and "$" not in attr:
                return f"{_text(obj)}.{attr}"
    return None


def _fold_once(language: str, source: bytes, root: Any) -> tuple[bytes, set[int], list[int]] | None:
    """One pass of :func:`_folded`: the edits it makes, the original lines they start on, and each new
    line's original number (1-based; index 0 unused); None when there is nothing to write plainly."""
    joins, strings = _CONCAT[language]
    edits: list[tuple[int, int, int, bytes]] = []  # start byte, end byte, first row, the new text
    stack = [root]
    while stack:
        node = stack.pop()
        text: str | None = None
        if node.type in joins and node.named_child_count > 1:
            value = _fold_value(node, joins, strings)
            if value is not None:
                # the pieces' escapes stay as written; a bare quote (from a '...' piece) is escaped
                text = '"' + re.sub(r'(?<!\\)"', r'\\"', value) + '"'
        if text is None:
            text = _spelt(language, node, strings)
        if text is not None:
            # a concatenation alone in parentheses is the literal itself (("_py" + "test") in ...)
            span = node
            while (
                span.parent is not None
                and span.parent.type == "parenthesized_expression"
                and span.parent.named_child_count == 1
            ):
                span = span.parent
            edits.append((span.start_byte, span.end_byte, span.start_point[0], text.encode()))
            continue
        stack.extend(node.children)
    if not edits:
        return None
    out = bytearray(source)
    for start, end, _, new in sorted(edits, reverse=True):
        out[start:end] = new
    folded = bytes(out)
    # each new line's original number: an edit over several lines became one line
    swallowed: dict[int, int] = {}  # original line -> the line breaks the edits starting there removed
    for start, end, row, _ in edits:
        swallowed[row + 1] = swallowed.get(row + 1, 0) + source.count(b"\n", start, end)
    origin = [0]
    line = 1
    for _ in range(folded.count(b"\n") + 1):
        origin.append(line)
        line += 1 + swallowed.get(origin[-1], 0)
    return folded, {row + 1 for _, _, row, _ in edits}, origin


def _folded(language: str, source: bytes, root: Any) -> tuple[bytes, Any, set[int], list[int]] | None:
    """The source written plainly: every concatenation of string literals (``"_py" + "test"``,
    ``"org" + ".junit"``, Python's ``"a" "b"``) as the one literal it makes, and every lookup by a
    constant name (``getattr(__import__("os"), "getpid")``, ``Reflect.get(process, "ppid")``,
    ``process.env["NODE_TEST_CONTEXT"]``) as the plain name; its parse tree, the lines where that
    happened and each line's number in the original (both 1-based; index 0 unused); None when there is
    none. Round
    twenty-seven: gates spelt in pieces passed every literal rule. Up to three passes, so that a name
    joined from pieces is then written plainly."""
    if language not in _CONCAT:
        return None
    origin: list[int] | None = None
    touched: set[int] = set()
    text, tree = source, root
    for _ in range(3):
        step = _fold_once(language, text, tree)
        if step is None:
            break
        text, lines, back = step
        # compose the line maps, so lines always name the candidate's own
        touched |= {
            ln if origin is None else origin[ln] for ln in lines if origin is None or ln < len(origin)
        }
        origin = back if origin is None else [0, *(origin[b] if b < len(origin) else b for b in back[1:])]
        tree = _parser(language).parse(text).root_node
    if origin is None:
        return None
    where = {i for i in range(1, len(origin)) if origin[i] in touched}
    return text, tree, where, origin


#: How a file loaded as Rust code by ``include!`` is read: an expression, inside a function on its first line.
_RUST_INCLUDE = "fn __included() { "


def _loaded_code(task: Task, changed: ChangedFile) -> tuple[str, str] | None:
    """A file with no screened extension that is code all the same: the task's language and the text to
    parse (see :data:`DATA_EXTENSIONS`), or None. It must parse without an error, so data, prose and
    configuration in another syntax stay out."""
    ext = posixpath.splitext(changed.path)[1].lower()
    language = TASK_GRAMMAR.get(task.language)
    if ext in DATA_EXTENSIONS or language is None or not changed.text.strip() or "\0" in changed.text:
        return None
    parser = _parser(language)
    if parser is None:
        return None
    texts = [changed.text] + ([_RUST_INCLUDE + changed.text + "\n}"] if language == "rust" else [])
    for text in texts:
        root = parser.parse(text.encode("utf-8", errors="replace")).root_node
        if not root.has_error and root.named_child_count:
            return language, text
    return None


def screen_file(task: Task, changed: ChangedFile, *, tests: _TestPaths | None = None) -> list[Finding]:
    """The findings of one changed file (see :func:`screen`)."""
    language = language_of(changed.path)
    text = changed.text
    if language is None and (loaded := _loaded_code(task, changed)) is not None:
        language, text = loaded
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
    source = text.encode("utf-8", errors="replace")
    root = parser.parse(source).root_node
    text_lines = changed.text.split("\n")
    paths = tests or _TestPaths.of(task)
    is_test = paths.holds_test(changed.path)

    def run_rules(source: bytes, root: Any, lines: set[int] | None, origin: list[int] | None = None) -> None:
        f = _File(changed.path, language, source, root, paths, is_test)
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
            if origin is not None:
                first = origin[first] if first < len(origin) else first
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

    run_rules(source, root, lines)
    folded = _folded(language, source, root)
    if folded is not None:
        # the same rules again where literals were joined, on the source that writes them as one (only
        # where the candidate wrote: a folded line whose original is one of its changed lines)
        joined, tree, where, origin = folded
        if lines is not None:
            where = {w for w in where if origin[w] in lines}
        if where:
            run_rules(joined, tree, where, origin)
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
