"""Quoted error output in a prompt: tracebacks and the runners' failure reports."""

from __future__ import annotations

import re

_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):")


_EXCEPTION_LINE = re.compile(r"^\s*[A-Za-z_][\w.]*(?::\s.*|:)?\s*$")


#: Lines that are error output wherever they stand.
_OUTPUT_LINES = [
    re.compile(p)
    for p in (
        r"^\s*(?:During handling of the above exception|The above exception was the direct cause)",
        r"^E\s{2,}\S",  # pytest's explanation lines
        r"^>\s+\S",  # pytest's failing-line marker
        r"^\s*\S+\.py:\d+: \w*(?:Error|Exception|Warning)\b",  # pytest: "path.py:3: ValueError"
        r"^\s*\^+\s*$",  # a caret line under a source line
        r"^(?:FAILED|ERROR) \S+::",  # pytest's short summary
        r"^={3,} .* ={3,}\s*$",  # pytest's section headers
        r"^\s*at\s+\S.*\(.*:\d+(?::\d+)?\)\s*$",  # JS / Java frame with its location
        r"^\s*at\s+\S+:\d+:\d+\s*$",  # JS anonymous frame
        r"^\s*at\s+[\w$./<>]+\((?:Native Method|Unknown Source)\)",
        r"^\s*(?:Exception in thread |Caused by: )",
        r"^\s*(?:panic|fatal error): ",
        r"^\s*goroutine \d+ \[",
        r"^\s*\d+:\s+[\w:<>]+::\w",  # a Rust backtrace frame
        r"^\s*at \S+\.rs:\d+:\d+",
        r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception)(?::\s.*|:)?\s*$",  # "ValueError: ..."
    )
]


#: Frame lines whose more-indented followers (the source line, carets) are output too.
_FRAME = re.compile(r'^(\s*)(?:File "[^"]*", line \d+|\S+\.py:\d+: in \S+)')


#: Location lines whose following non-blank lines (the source line, carets) are output too.
_LOCATION = re.compile(r"^\s*(?:\S+\.[cm]?[jt]sx?:\d+|thread '[^']*'(?: \(\d+\))? panicked at .*)\s*$")


_GO_LOCATION = re.compile(r"^\s*\S+\.go:\d+(?: \+0x[0-9a-f]+)?\s*$")


_GO_CALL = re.compile(r"^\s*[\w./*()\[\]-]+\(.*\)\s*$")


#: pytest's long failure report: from a ``____ test ____`` header or ``_ _ _`` separator to its summary.
_PYTEST_REPORT = re.compile(r"^(?:_{3,} \S.* _{3,}|(?:_ ){5,}_?)\s*$")


_REPORT_END = re.compile(r"^(?:={3,}|`{3,}|~{3,})")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def error_output_lines(prompt: str) -> frozenset[int]:
    """The 0-based prompt lines that are quoted error output.

    Recognised (from captured output of the real tools, see tests/fixtures/leak/outputs/): Python
    tracebacks (frames, their source and caret lines, the exception line), pytest failure reports (short
    and long), node's location line and stack frames, Java stack traces, Go panics and their frames, Rust
    panics and backtraces, and ``XxxError: ...`` lines.
    """
    lines = prompt.splitlines()
    out: set[int] = set()
    in_tb = in_report = False
    follow_indent: int | None = None
    follow_block = False
    for i, line in enumerate(lines):
        if follow_indent is not None:
            if line.strip() and _indent(line) > follow_indent:
                out.add(i)
                continue
            follow_indent = None
        if follow_block:
            if line.strip():
                out.add(i)
                continue
            follow_block = False
        if in_report:
            if _REPORT_END.match(line):
                in_report = False
            else:
                out.add(i)
                continue
        if _PYTEST_REPORT.match(line):
            in_report = True
            out.add(i)
            continue
        if _TRACEBACK.match(line):
            in_tb = True
            out.add(i)
            continue
        if in_tb:
            if not line.strip():
                in_tb = False
                continue
            if not (line[:1] in (" ", "\t") or any(p.match(line) for p in _OUTPUT_LINES)):
                in_tb = False
                if _EXCEPTION_LINE.match(line):  # the exception line that ends a traceback
                    out.add(i)
                continue
            out.add(i)
        frame = _FRAME.match(line)
        if frame:
            out.add(i)
            follow_indent = len(frame.group(1))
        elif _LOCATION.match(line):
            out.add(i)
            follow_block = True
        elif _GO_LOCATION.match(line):
            out.add(i)
            if i > 0 and _GO_CALL.match(lines[i - 1]):
                out.add(i - 1)  # a Go frame is the call line above its file:line
        elif any(p.match(line) for p in _OUTPUT_LINES):
            out.add(i)
    return frozenset(out)
