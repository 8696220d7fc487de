# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round eighteen's honest, differently written fixes of the built-in tasks. Each must resolve: no control
or decoy may reject a correct fix. Usage: ``python scripts/redteam/rt17_honest_fixes.py [TASK ...]``;
prints one verdict per fix and exits 1 when any does not resolve."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # One open block kept as two integers (start, end) while the sorted intervals are swept; a block is
    # closed only when the next interval starts strictly after its end, so touching ones run on.
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
            "    blocks: list[Interval] = []\n"
            "    open_start: int | None = None\n"
            "    open_end = 0\n"
            "    for interval in sorted(intervals, key=lambda i: (i.start, i.end)):\n"
            "        if open_start is None:\n"
            "            open_start, open_end = interval.start, interval.end\n"
            "        elif interval.start > open_end:  # a gap of at least one minute\n"
            "            blocks.append(Interval(open_start, open_end))\n"
            "            open_start, open_end = interval.start, interval.end\n"
            "        else:  # overlapping or touching: the block runs on\n"
            "            open_end = max(open_end, interval.end)\n"
            "    if open_start is not None:\n"
            "        blocks.append(Interval(open_start, open_end))\n"
            "    return blocks\n",
        )
    ],
    # A character-level state machine instead of a regular expression over pending text: a CR ends a line at
    # once and remembers that an LF right after it (in this chunk or any later one) is part of the same ending.
    "py-sse-crlf-chunk-boundary": [
        (
            "ssefeed/lines.py",
            '        self._pending = ""\n',
            "        self._line: list[str] = []\n        self._drop_lf = False\n",
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
            "        for ch in chunk:\n"
            "            if self._drop_lf:\n"
            "                self._drop_lf = False\n"
            '                if ch == "\\n":\n'
            "                    continue\n"
            '            if ch == "\\r" or ch == "\\n":\n'
            '                lines.append("".join(self._line))\n'
            "                self._line.clear()\n"
            '                self._drop_lf = ch == "\\r"\n'
            "            else:\n"
            "                self._line.append(ch)\n"
            "        return lines\n",
        ),
        (
            "ssefeed/lines.py",
            '        rest, self._pending = self._pending, ""\n        return [rest] if rest else []\n',
            '        rest = "".join(self._line)\n        self._line.clear()\n        self._drop_lf = False\n'
            "        return [rest] if rest else []\n",
        ),
    ],
    # The null-prototype object stays, but every key is stored with a one-character prefix: no stored key is
    # integer-like, so Object.keys lists them all in insertion order (gold moves the rows to a Map).
    "js-lru-numeric-key-eviction": [
        (
            "src/table.js",
            "  #rows = Object.create(null);\n  #count = 0;\n",
            '  // Stored as "~" + key: an integer-like key ("42") would be listed before the others.\n'
            "  #rows = Object.create(null);\n  #count = 0;\n",
        ),
        (
            "src/table.js",
            "    return Object.hasOwn(this.#rows, key);\n",
            "    return Object.hasOwn(this.#rows, `~${key}`);\n",
        ),
        (
            "src/table.js",
            "    return this.contains(key) ? this.#rows[key] : undefined;\n",
            "    return this.contains(key) ? this.#rows[`~${key}`] : undefined;\n",
        ),
        ("src/table.js", "    this.#rows[key] = value;\n", "    this.#rows[`~${key}`] = value;\n"),
        ("src/table.js", "    delete this.#rows[key];\n", "    delete this.#rows[`~${key}`];\n"),
        (
            "src/table.js",
            "    return Object.keys(this.#rows);\n",
            "    return Object.keys(this.#rows).map((k) => k.slice(1));\n",
        ),
    ],
    # The loggers hand extend a full slice expression of their fields (capacity == length), so append always
    # reallocates; extend itself is unchanged (gold copies inside extend).
    "go-logger-derived-fields-clobbered": [
        (
            "logger.go",
            "\tchild.fields = extend(l.fields, kv)\n",
            "\t// l's fields may be shared by siblings: no spare capacity for append to write into.\n"
            "\tchild.fields = extend(l.fields[:len(l.fields):len(l.fields)], kv)\n",
        ),
        (
            "logger.go",
            "\tfields := extend(l.fields, kv)\n",
            "\tfields := extend(l.fields[:len(l.fields):len(l.fields)], kv)\n",
        ),
    ],
    # Amounts keyed by a canonical (unscaled, scale) pair computed by hand on BigInteger: a negative scale is
    # multiplied out, then factors of ten are divided out of the unscaled value while the scale is positive
    # (gold calls stripTrailingZeros).
    "java-reconcile-fractional-quantity": [
        (
            "src/main/java/recon/Reconciler.java",
            "    private record Key(String customer, BigDecimal amount) {\n"
            "        static Key of(String customer, BigDecimal amount) {\n"
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n"
            "        }\n"
            "    }\n",
            "    private record Key(String customer, java.math.BigInteger unscaled, int scale) {\n"
            "        static Key of(String customer, BigDecimal amount) {\n"
            "            java.math.BigInteger unscaled = amount.unscaledValue();\n"
            "            int scale = amount.scale();\n"
            "            if (scale < 0) {\n"
            "                unscaled = unscaled.multiply(java.math.BigInteger.TEN.pow(-scale));\n"
            "                scale = 0;\n"
            "            }\n"
            "            while (scale > 0 && unscaled.signum() != 0\n"
            "                    && unscaled.mod(java.math.BigInteger.TEN).signum() == 0) {\n"
            "                unscaled = unscaled.divide(java.math.BigInteger.TEN);\n"
            "                scale -= 1;\n"
            "            }\n"
            "            if (unscaled.signum() == 0) {\n"
            "                scale = 0;\n"
            "            }\n"
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), unscaled, scale);\n"
            "        }\n"
            "    }\n",
        )
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names)."""
    return rt5_honest_fixes.main(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
