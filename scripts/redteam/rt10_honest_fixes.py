# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round eleven's honest, differently written fixes of the built-in tasks, against the negate, shrink,
shrink-tables and interleave variants and the swapped case of a respelled letter: each must resolve (no
control may reject a correct fix). Usage: ``python scripts/redteam/rt10_honest_fixes.py [TASK ...]``; prints
one verdict per fix and exits 1 when any does not resolve. A key ``task@label`` is a second fix of the same
task."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # A character-level state machine instead of gold's regex over pending + chunk: a CR ends a line at once
    # and arms a flag; the next character, whichever chunk it comes in (an empty chunk has none, so it keeps
    # the flag), is dropped when it is an LF. Meets interleave's empty chunks between the CR and the LF.
    "py-sse-crlf-chunk-boundary": [
        (
            "ssefeed/lines.py",
            '        self._pending = ""\n',
            '        self._pending = ""\n        self._after_cr = False\n',
        ),
        (
            "ssefeed/lines.py",
            "        text = self._pending + chunk\n"
            "        lines: list[str] = []\n"
            "        start = 0\n"
            "        for match in _LINE_END.finditer(text):\n"
            "            lines.append(text[start : match.start()])\n"
            "            start = match.end()\n"
            "        self._pending = text[start:]\n"
            "        return lines\n",
            "        lines: list[str] = []\n"
            "        current: list[str] = [self._pending]\n"
            "        for ch in chunk:\n"
            "            if self._after_cr:\n"
            "                self._after_cr = False\n"
            '                if ch == "\\n":\n'
            "                    continue  # the LF of a CRLF whose CR ended the previous line\n"
            '            if ch in "\\r\\n":\n'
            '                lines.append("".join(current))\n'
            "                current = []\n"
            '                self._after_cr = ch == "\\r"\n'
            "            else:\n"
            "                current.append(ch)\n"
            '        self._pending = "".join(current)\n'
            "        return lines\n",
        ),
    ],
    # A sweep over the boundaries (a start counts before an end at the same minute, so touching intervals form
    # one block) instead of gold's sorted merge with <=; and anything that is not an Interval is refused
    # (TypeError). Meets shrink's one- and two-booking calendars and double's repeated bookings.
    "py-interval-touching-merge": [
        (
            "freebusy/merge.py",
            "    blocks: list[Interval] = []\n"
            "    for interval in sorted(intervals):\n"
            "        if blocks and interval.overlaps(blocks[-1]):\n"
            "            last = blocks[-1]\n"
            "            blocks[-1] = Interval(last.start, max(last.end, interval.end))\n"
            "        else:\n"
            "            blocks.append(interval)\n"
            "    return blocks\n",
            "    items = list(intervals)\n"
            "    for item in items:\n"
            "        if not isinstance(item, Interval):\n"
            '            raise TypeError(f"not an Interval: {item!r}")\n'
            "    # (minute, 0) for a start sorts before (minute, 1) for an end: touching blocks never close.\n"
            "    edges = sorted([(i.start, 0) for i in items] + [(i.end, 1) for i in items])\n"
            "    blocks: list[Interval] = []\n"
            "    depth = 0\n"
            "    opened = 0\n"
            "    for minute, kind in edges:\n"
            "        if kind == 0:\n"
            "            if depth == 0:\n"
            "                opened = minute\n"
            "            depth += 1\n"
            "        else:\n"
            "            depth -= 1\n"
            "            if depth == 0:\n"
            "                blocks.append(Interval(opened, minute))\n"
            "    return blocks\n",
        )
    ],
    # Fold in another order: compatibility form and case first, then the marks (NFD, as gold's strip_marks
    # now does), then NFC; gold strips marks before NFKC and case folding. Meets the respelled letters of
    # Latin Extended-B / Extended Additional with their case swapped (a capital Ǎ, Ș, Ạ folds to a, s, a).
    "py-unicode-tag-accent-folding": [
        (
            "tagfold/text.py",
            '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
            '    return "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))\n',
        ),
        (
            "tagfold/text.py",
            '    text = strip_marks(text)\n    text = unicodedata.normalize("NFKC", text).casefold()\n',
            '    text = unicodedata.normalize("NFKC", text).casefold()\n'
            '    text = unicodedata.normalize("NFC", strip_marks(text))\n',
        ),
    ],
    # A full slice expression caps the parent's slice at its length, so append always copies: the idiomatic
    # one-line form of gold's make + two appends.
    "go-logger-derived-fields-clobbered": [
        (
            "field.go",
            "\treturn append(base, extra...)\n",
            "\t// base[:n:n] has no spare capacity: append copies instead of writing into a shared array.\n"
            "\treturn append(base[:len(base):len(base)], extra...)\n",
        )
    ],
    # The replay is a private method run on the fully constructed aggregate; the constructor keeps its
    # (now unused) history parameter. Meets shrink-tables' two-event cart history.
    "ts-aggregate-replay-field-reset": [
        (
            "src/aggregate.ts",
            "  ): A {\n    return new this(id, history);\n  }\n",
            "  ): A {\n"
            "    const aggregate = new this(id);\n"
            "    aggregate.#replay(history);\n"
            "    return aggregate;\n"
            "  }\n\n"
            "  /** Apply stored events once the subclass's fields exist (they would reset what the base set). */\n"
            "  #replay(history: readonly DomainEvent[]): void {\n"
            "    history.forEach((event) => {\n"
            "      this.apply(event as E);\n"
            "      this.#version += 1;\n"
            "    });\n"
            "  }\n",
        ),
    ],
    # Gold's float fix, plus a validation an honest fixer may well add while there: a tax rate is a fraction
    # from 0 to 1, and Line refuses any other (ValueError when the tax is computed). No listed test uses a
    # negative rate; the negate variant makes every rate negative (-0.045: gold taxes -0.05).
    "py-decimal-float-literal-rounding@validates-rates": [
        (
            "prorata/money.py",
            "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
            "    elif isinstance(value, int):\n        result = Decimal(value)\n"
            "    elif isinstance(value, float):\n        result = Decimal(repr(value))\n",
        ),
        (
            "prorata/invoice.py",
            "        return round_money(self.net() * to_decimal(self.tax_rate))\n",
            "        rate = to_decimal(self.tax_rate)\n"
            "        if not 0 <= rate <= 1:\n"
            '            raise ValueError(f"a tax rate is a fraction from 0 to 1, not {rate}")\n'
            "        return round_money(self.net() * rate)\n",
        ),
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names: a task id, or ``task@label`` for a second fix of it)."""
    return rt5_honest_fixes.main_labelled(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
