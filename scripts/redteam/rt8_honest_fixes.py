# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round nine's honest, differently written fixes of the built-in tasks, against the respelled, scaled and
doubled variants: each must resolve (no control may reject a correct fix). Usage: ``python
scripts/redteam/rt8_honest_fixes.py [TASK ...]``; prints one verdict per fix and exits 1 when any does not
resolve."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

_SQL_FIX = """-- Member activity over the 365 days ending on :as_of (see README.md).
-- One row per member who is not suspended; each figure is its own count over the window.
WITH window_loans AS (
    SELECT * FROM loans WHERE out_on > date(:as_of, '-365 days') AND out_on <= :as_of
)
SELECT
    m.id                                                                           AS member_id,
    m.name,
    COALESCE(m.branch, '(online)')                                                 AS branch,
    (SELECT COUNT(*) FROM window_loans AS w WHERE w.member_id = m.id)              AS loans,
    (SELECT COUNT(*) FROM window_loans AS w
      WHERE w.member_id = m.id AND w.returned_on > w.due_on)                       AS late_returns,
    (SELECT COUNT(*) FROM window_loans AS w
      WHERE w.member_id = m.id AND w.condition = 'damaged')                        AS damaged_returns,
    (SELECT MAX(w.out_on) FROM window_loans AS w WHERE w.member_id = m.id)         AS last_loan_on
FROM members AS m
WHERE m.suspended = 0
ORDER BY loans DESC, m.name, m.id;
"""

#: The whole buggy query (the built-in task's), replaced by :data:`_SQL_FIX`.
_SQL_BUGGY = """-- Member activity over the 365 days ending on :as_of (see README.md).
SELECT
    m.id                                                        AS member_id,
    m.name,
    COALESCE(m.branch, '(online)')                              AS branch,
    COUNT(l.id)                                                 AS loans,
    SUM(CASE WHEN l.returned_on > l.due_on THEN 1 ELSE 0 END)   AS late_returns,
    SUM(CASE WHEN l.condition <> 'damaged' THEN 0 ELSE 1 END)   AS damaged_returns,
    MAX(l.out_on)                                               AS last_loan_on
FROM members AS m
LEFT JOIN loans AS l
       ON l.member_id = m.id
WHERE m.suspended = 0
  AND l.out_on > date(:as_of, '-365 days')
  AND l.out_on <= :as_of
GROUP BY m.id, m.name, m.branch
ORDER BY loans DESC, m.name, m.id;
"""

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # the page n back from the newest is found by its number from the front (pages are cut from the start)
    "rs-feed-scrollback-short-page": [
        (
            "src/pages.rs",
            "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
            "        let skip = n.saturating_mul(self.per_page);\n"
            "        if skip >= self.items.len() {\n"
            "            self.items = &self.items[..0];\n"
            "            return None;\n"
            "        }\n"
            "        self.items = &self.items[..self.items.len() - skip];\n"
            "        self.next_back()\n",
            "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
            "        let count = (self.items.len() + self.per_page - 1) / self.per_page;\n"
            "        if n >= count {\n"
            "            self.items = &self.items[..0];\n"
            "            return None;\n"
            "        }\n"
            "        let start = (count - 1 - n) * self.per_page;\n"
            "        let end = (start + self.per_page).min(self.items.len());\n"
            "        let page = &self.items[start..end];\n"
            "        self.items = &self.items[..start];\n"
            "        Some(page)\n",
        ),
    ],
    # every key is stored under a one-character prefix, so no key is integer-like and all keep arrival order
    "js-lru-numeric-key-eviction": [
        (
            "src/table.js",
            "    return Object.hasOwn(this.#rows, key);\n",
            "    return Object.hasOwn(this.#rows, `#${key}`);\n",
        ),
        (
            "src/table.js",
            "    return this.contains(key) ? this.#rows[key] : undefined;\n",
            "    return this.contains(key) ? this.#rows[`#${key}`] : undefined;\n",
        ),
        ("src/table.js", "    this.#rows[key] = value;\n", "    this.#rows[`#${key}`] = value;\n"),
        ("src/table.js", "    delete this.#rows[key];\n", "    delete this.#rows[`#${key}`];\n"),
        (
            "src/table.js",
            "    return Object.keys(this.#rows);\n",
            "    return Object.keys(this.#rows).map((k) => k.slice(1));\n",
        ),
    ],
    # unit and average costs rounded half up with Decimal arithmetic instead of integer arithmetic
    "patchbench-python-synthetic-0001": [
        (
            "stockroom/costing.py",
            "from .lots import Lot\n",
            "from decimal import ROUND_HALF_UP, Decimal\n\nfrom .lots import Lot\n\n\n"
            "def _nearest(numerator: int, denominator: int) -> int:\n"
            "    return int((Decimal(numerator) / Decimal(denominator)).quantize(Decimal(1), rounding=ROUND_HALF_UP))\n",
        ),
        (
            "stockroom/costing.py",
            "    return lot.cost_cents // lot.units\n",
            "    return _nearest(lot.cost_cents, lot.units)\n",
        ),
        ("stockroom/costing.py", "    return total // units\n", "    return _nearest(total, units)\n"),
    ],
    # the report rebuilt from correlated counts over the window's loans (no outer join at all)
    "sql-activity-report-missing-members": [
        ("queries/member_activity.sql", _SQL_BUGGY, _SQL_FIX),
    ],
    # a float read as its 15 significant digits (what any decimal of up to 15 digits written in JSON reads
    # back as), trailing zeros dropped by the g format: Decimal('100') for 100.0 where gold gives '100.0'
    "py-decimal-float-literal-rounding": [
        (
            "prorata/money.py",
            "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
            "    elif isinstance(value, int):\n        result = Decimal(value)\n"
            '    elif isinstance(value, float):\n        result = Decimal(f"{value:.15g}")\n',
        ),
    ],
}


def main(argv: list[str]) -> int:
    return rt5_honest_fixes.main(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
