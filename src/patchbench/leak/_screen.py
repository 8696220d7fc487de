"""The screen: fixed expressions, and the level of every symbol and line the prompt gives away."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..task import Task
from ._model import (
    _MIN_QUOTE,
    LeakHit,
    LeakLevel,
    LeakScreen,
)
from ._output import (
    error_output_lines,
)
from ._patch import (
    _parser,
    changed_symbols,
    parse_patch,
)
from ._tests import (
    _ext,
    _text,
    _walk,
    _workspace_shape,
    f2p_references,
)

_TOKEN = re.compile(r"[A-Za-z0-9_]+|[^\sA-Za-z0-9_]")


_SEP = "\x1f"


_EXPRESSIONS = {"call", "subscript", "attribute", "lambda"}


def _tokens(text: str) -> str:
    """Code tokens joined by a separator, so that token sequences compare whatever the spacing."""
    return _SEP + _SEP.join(_TOKEN.findall(text)) + _SEP


def _is_expression(node_type: str) -> bool:
    return node_type in _EXPRESSIONS or node_type.endswith(
        ("_expression", "_operator", "_invocation", "_access")
    )


def fixed_expressions(added: Iterable[str], pre_image: str, ext: str) -> list[str]:
    """Expressions of the ``added`` lines that the pre-image does not hold: what the fix introduces.

    Each added line is parsed alone with the file's grammar (tree-sitter recovers from the partial
    statement); an expression counts when it has at least 3 tokens, one of them an operator or bracket,
    and 5 characters besides spaces.
    """
    parser = _parser(ext)
    if parser is None:
        return []
    before = _tokens(pre_image)
    found: list[str] = []
    for line in added:
        for node in _walk(parser.parse(line.strip().encode("utf-8")).root_node):
            if not _is_expression(node.type) or node.has_error:
                continue
            text = " ".join(_text(node).split())
            toks = _TOKEN.findall(text)
            if (
                len(toks) < 3
                or len(text.replace(" ", "")) < 5
                or all(t[0].isalnum() or t[0] == "_" for t in toks)
                or _tokens(text) in before
            ):
                continue
            found.append(text)
    return list(dict.fromkeys(found))


def _word(sym: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(sym)}(?![A-Za-z0-9_])")


def screen_prompt(task: Task, prompt: str | None = None) -> LeakScreen:
    """Screen a prompt against the task's gold patch: every finding with its level and reason.

    Args:
        task: the task (its gold patch, workspace or context files, hidden tests and F2P ids are used).
        prompt: the prompt to screen; the task's own by default (a gate for generated problem statements
            passes its candidate text here).

    Returns:
        The :class:`LeakScreen`: empty (level ``none``) when the task has no gold patch or no prompt.
    """
    prompt = task.prompt if prompt is None else prompt
    if not task.gold_patch or not prompt:
        return LeakScreen()
    lines = prompt.splitlines()
    output = error_output_lines(prompt)
    squashed = " ".join(prompt.split())
    originals = task.workspace_map() or {f.path: f.content for f in task.context_files}
    entry = f2p_references(task)
    functions, modules = _workspace_shape(task)
    hits: list[LeakHit] = []

    def hit(kind: str, symbol: str, file: str, evidence: str, level: LeakLevel, reason: str) -> None:
        hits.append(
            LeakHit(
                kind=kind,
                symbol=symbol,
                file=file,
                evidence=evidence.strip()[:300],
                level=level,
                reason=reason,
            )
        )

    for change in parse_patch(task.gold_patch):
        source = originals.get(change.path, "")
        for sym in changed_symbols(source, change.path, change.old_lines) if source else []:
            if len(sym) < 3 or (sym.startswith("__") and sym.endswith("__")):
                continue
            pat = _word(sym)
            where = [i for i, pl in enumerate(lines) if pat.search(pl)]
            if not where:
                continue
            prose = [i for i in where if i not in output]
            evidence = lines[(prose or where)[0]]
            if sym in entry:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.NONE,
                    f"the failing tests reference {sym}: naming it states the symptom, "
                    "not where the fix goes",
                )
            elif functions == [sym]:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.NONE,
                    f"{sym} is the only function in the workspace: naming it narrows nothing",
                )
            elif len(modules) == 1 and modules[0] == sym:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.NONE,
                    f"{sym} is the only module the workspace consists of: naming it narrows nothing",
                )
            elif not prose:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.HINT,
                    f"{sym} appears only in quoted error output, which the failing tests show on the "
                    "buggy code too",
                )
            else:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.LEAK,
                    f"the gold patch edits {sym} and the failing tests never reference it: naming it "
                    "tells the agent where the fix goes",
                )
        removed = {" ".join(r.split()) for r in change.removed}
        for line in dict.fromkeys(change.removed + change.added):
            body = " ".join(line.split())
            if len(re.sub(r"\W", "", body)) < _MIN_QUOTE or body not in squashed:
                continue
            where = [i for i, pl in enumerate(lines) if body[:20] in " ".join(pl.split())]
            prose = [i for i in where if i not in output]
            evidence = lines[(prose or where)[0]] if where else body
            if body not in removed:
                hit(
                    "quotes_changed_line",
                    body[:200],
                    change.path,
                    evidence,
                    LeakLevel.LEAK,
                    "the prompt quotes a line the gold patch adds: it gives the fix away",
                )
            elif where and not prose:
                hit(
                    "quotes_changed_line",
                    body[:200],
                    change.path,
                    evidence,
                    LeakLevel.HINT,
                    "the prompt quotes the buggy line inside error output, as the buggy code's own "
                    "traceback shows it",
                )
            else:
                hit(
                    "quotes_changed_line",
                    body[:200],
                    change.path,
                    evidence,
                    LeakLevel.LEAK,
                    "the prompt quotes a line the gold patch removes: it points at where the fix goes",
                )
        quoted = {h.symbol for h in hits if h.kind == "quotes_changed_line"}
        line_tokens = [(_tokens(pl), pl) for pl in lines]
        matched = [
            (expr, pl)
            for expr in fixed_expressions(change.added, source, _ext(change.path))
            for toks, pl in line_tokens
            if _tokens(expr) in toks and not any(expr in q for q in quoted)
        ]
        for expr, pl in matched:
            if any(expr != other and _tokens(expr) in _tokens(other) for other, _ in matched):
                continue  # a larger quoted expression holds it
            hit(
                "quotes_fixed_expression",
                expr[:200],
                change.path,
                pl,
                LeakLevel.LEAK,
                "the prompt quotes an expression the gold patch introduces: it gives the fix away",
            )
    level = max((h.level for h in hits), key=lambda lv: lv.rank, default=LeakLevel.NONE)
    return LeakScreen(level=level, hits=hits)
