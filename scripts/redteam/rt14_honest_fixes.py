# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round fifteen's honest, differently written fixes of the built-in tasks, against round fourteen's
variants: each must resolve (no control may reject a correct fix). Usage: ``python
scripts/redteam/rt14_honest_fixes.py [TASK ...]``; prints one verdict per fix and exits 1 when any does not
resolve. A key ``task@label`` is a second fix of the same task."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # The null-prototype object kept (gold swaps it for a Map): every key is stored behind a ":" so that no
    # stored key is integer-like, and an object lists such keys in insertion order. Meets *wide* (keys past
    # 2**31), extend, volume-like tables and the "__proto__"/"constructor" keys the README keeps.
    "js-lru-numeric-key-eviction": [
        (
            "src/table.js",
            "  contains(key) {\n    return Object.hasOwn(this.#rows, key);\n  }\n\n"
            "  lookup(key) {\n    return this.contains(key) ? this.#rows[key] : undefined;\n  }\n",
            "  // Keys are stored behind a ':' so that none is integer-like: an object lists integer-like keys\n"
            "  // first, smallest first, and every other key in insertion order.\n"
            "  contains(key) {\n    return Object.hasOwn(this.#rows, `:${key}`);\n  }\n\n"
            "  lookup(key) {\n    return this.contains(key) ? this.#rows[`:${key}`] : undefined;\n  }\n",
        ),
        ("src/table.js", "    this.#rows[key] = value;\n", "    this.#rows[`:${key}`] = value;\n"),
        ("src/table.js", "    delete this.#rows[key];\n", "    delete this.#rows[`:${key}`];\n"),
        (
            "src/table.js",
            "    return Object.keys(this.#rows);\n",
            "    return Object.keys(this.#rows).map((k) => k.slice(1));\n",
        ),
    ],
    # The activity counted per member in a CTE over the window's loans, then joined to the members, zeros
    # by COALESCE (gold moves the window into the LEFT JOIN's ON). Meets #grow, #early, #shift, #ids and an
    # emptied loans table.
    "sql-activity-report-missing-members": [
        (
            "queries/member_activity.sql",
            "SELECT\n"
            "    m.id                                                        AS member_id,\n"
            "    m.name,\n"
            "    COALESCE(m.branch, '(online)')                              AS branch,\n"
            "    COUNT(l.id)                                                 AS loans,\n"
            "    SUM(CASE WHEN l.returned_on > l.due_on THEN 1 ELSE 0 END)   AS late_returns,\n"
            "    SUM(CASE WHEN l.condition <> 'damaged' THEN 0 ELSE 1 END)   AS damaged_returns,\n"
            "    MAX(l.out_on)                                               AS last_loan_on\n"
            "FROM members AS m\n"
            "LEFT JOIN loans AS l\n"
            "       ON l.member_id = m.id\n"
            "WHERE m.suspended = 0\n"
            "  AND l.out_on > date(:as_of, '-365 days')\n"
            "  AND l.out_on <= :as_of\n"
            "GROUP BY m.id, m.name, m.branch\n"
            "ORDER BY loans DESC, m.name, m.id;\n",
            "-- The window's loans are counted per member first, so that a member without any keeps a row.\n"
            "WITH activity AS (\n"
            "    SELECT\n"
            "        member_id,\n"
            "        COUNT(*)                                                AS loans,\n"
            "        SUM(returned_on > due_on)                               AS late_returns,\n"
            "        SUM(condition = 'damaged')                              AS damaged_returns,\n"
            "        MAX(out_on)                                             AS last_loan_on\n"
            "    FROM loans\n"
            "    WHERE out_on > date(:as_of, '-365 days') AND out_on <= :as_of\n"
            "    GROUP BY member_id\n"
            ")\n"
            "SELECT\n"
            "    m.id                                                        AS member_id,\n"
            "    m.name,\n"
            "    COALESCE(m.branch, '(online)')                              AS branch,\n"
            "    COALESCE(a.loans, 0)                                        AS loans,\n"
            "    COALESCE(a.late_returns, 0)                                 AS late_returns,\n"
            "    COALESCE(a.damaged_returns, 0)                              AS damaged_returns,\n"
            "    a.last_loan_on\n"
            "FROM members AS m\n"
            "LEFT JOIN activity AS a ON a.member_id = m.id\n"
            "WHERE m.suspended = 0\n"
            "ORDER BY loans DESC, m.name, m.id;\n",
        ),
    ],
    # The line splitter rewritten as a character-by-character state machine (no regular expression): a CR
    # ends a line at once and remembers it, so an LF that starts the next chunk is swallowed. Gold keeps the
    # regex and strips that LF from the next chunk. Meets volume (2**17 characters), extend and interleave.
    "py-sse-crlf-chunk-boundary": [
        (
            "ssefeed/lines.py",
            "    def __init__(self) -> None:\n"
            '        self._pending = ""\n\n'
            "    def feed(self, chunk: str) -> list[str]:\n"
            '        """Add ``chunk``; return the lines it completed, without their endings."""\n'
            "        text = self._pending + chunk\n"
            "        lines: list[str] = []\n"
            "        start = 0\n"
            "        for match in _LINE_END.finditer(text):\n"
            "            lines.append(text[start : match.start()])\n"
            "            start = match.end()\n"
            "        self._pending = text[start:]\n"
            "        return lines\n",
            "    def __init__(self) -> None:\n"
            '        self._pending = ""\n'
            "        self._last_was_cr = False  # the last character seen ended a line with a CR\n\n"
            "    def feed(self, chunk: str) -> list[str]:\n"
            '        """Add ``chunk``; return the lines it completed, without their endings."""\n'
            "        lines: list[str] = []\n"
            "        current = [self._pending]\n"
            "        for ch in chunk:\n"
            '            if ch == "\\n" and self._last_was_cr:\n'
            "                self._last_was_cr = False  # the LF of a CRLF whose CR already ended the line\n"
            "                continue\n"
            '            self._last_was_cr = ch == "\\r"\n'
            '            if ch in "\\r\\n":\n'
            '                lines.append("".join(current))\n'
            "                current = []\n"
            "            else:\n"
            "                current.append(ch)\n"
            '        self._pending = "".join(current)\n'
            "        return lines\n",
        ),
    ],
    # Connections being opened counted apart (gold counts them in ``_size`` at once): the bound is
    # ``_size + _opening``, so a burst never overcommits, a failed or cancelled connect gives its slot back,
    # and ``stats().size`` reports the connections that exist (not the ones still opening; the README
    # counts those against the bound, and says nothing of ``size`` during a connect). Meets every variant
    # that reads ``stats()`` while a connect is pending.
    "py-asyncio-pool-overcommit": [
        (
            "aiopool/pool.py",
            "        self._created = 0\n",
            "        self._created = 0\n        self._opening = 0  # connects in progress: they hold a slot too\n",
        ),
        (
            "aiopool/pool.py",
            "            if self._size < self._max_size:\n"
            "                conn = await self._factory()\n"
            "                self._size += 1\n",
            "            if self._size + self._opening < self._max_size:\n"
            "                self._opening += 1\n"
            "                try:\n"
            "                    conn = await self._factory()\n"
            "                except BaseException:\n"
            "                    self._opening -= 1\n"
            "                    self._wake_next()  # the slot is free again: a waiter may open it\n"
            "                    raise\n"
            "                self._opening -= 1\n"
            "                self._size += 1\n",
        ),
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names: a task id, or ``task@label`` for a second fix of it)."""
    return rt5_honest_fixes.main_labelled(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
