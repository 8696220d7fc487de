# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round ten's honest, differently written fixes of the built-in tasks, against the digits, late-times and
string-scaling variants: each must resolve (no control may reject a correct fix). Usage: ``python
scripts/redteam/rt9_honest_fixes.py [TASK ...]``; prints one verdict per fix and exits 1 when any does not
resolve. A key ``task@label`` is a second fix of the same task."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # A float carries about 15 significant decimal digits: its exact binary value is rounded there, and the
    # padding zeros dropped (normalize), so 0.045 reads 0.045 and 0.04513 reads 0.04513; gold reads the
    # float's repr instead. The two agree on value everywhere a float's repr has at most 15 digits, but not
    # on the written form of a whole float (Decimal('1E+2') where gold has Decimal('100.0')).
    "py-decimal-float-literal-rounding": [
        (
            "prorata/money.py",
            "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
            "    elif isinstance(value, float):\n"
            "        result = Decimal(value)\n"
            "        if result.is_finite() and result:\n"
            "            result = round(result, 14 - result.adjusted()).normalize()\n"
            "    elif isinstance(value, int):\n        result = Decimal(value)\n",
        )
    ],
    # Amounts are looked up in a map ordered by value (TreeMap compares with compareTo, which ignores the
    # scale), per customer, instead of gold's hash key on the amount with its trailing zeros stripped.
    "java-reconcile-fractional-quantity": [
        (
            "src/main/java/recon/Reconciler.java",
            "        Map<Key, PriorityQueue<Invoice>> open = new HashMap<>();\n"
            "        for (Invoice invoice : invoices) {\n"
            "            open.computeIfAbsent(Key.of(invoice.customer(), invoice.total()), k -> new PriorityQueue<>(DUE_FIRST))\n"
            "                    .add(invoice);\n"
            "        }\n",
            "        Map<String, java.util.TreeMap<BigDecimal, PriorityQueue<Invoice>>> open = new HashMap<>();\n"
            "        for (Invoice invoice : invoices) {\n"
            "            open.computeIfAbsent(Key.of(invoice.customer(), BigDecimal.ZERO).customer(), k -> new java.util.TreeMap<>())\n"
            "                    .computeIfAbsent(invoice.total(), k -> new PriorityQueue<>(DUE_FIRST))\n"
            "                    .add(invoice);\n"
            "        }\n",
        ),
        (
            "src/main/java/recon/Reconciler.java",
            "            PriorityQueue<Invoice> candidates = open.get(Key.of(payment.customer(), payment.amount()));\n",
            "            java.util.TreeMap<BigDecimal, PriorityQueue<Invoice>> byAmount =\n"
            "                    open.get(Key.of(payment.customer(), BigDecimal.ZERO).customer());\n"
            "            PriorityQueue<Invoice> candidates = byAmount == null ? null : byAmount.get(payment.amount());\n",
        ),
    ],
    # The key holds the amount at the smallest scale that loses nothing, never below 0 (600.00 -> 600, not
    # gold's 6E+2); setScale throws nothing here since the digits dropped are zeros.
    "java-reconcile-fractional-quantity@scale": [
        (
            "src/main/java/recon/Reconciler.java",
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
            "            int scale = Math.max(0, amount.stripTrailingZeros().scale());\n"
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount.setScale(scale));\n",
        )
    ],
    # Marks are stripped after a compatibility decomposition (NFKD) instead of gold's canonical one (NFD):
    # fold() applies NFKC next anyway, so only the order of the two steps differs.
    "py-unicode-tag-accent-folding": [
        (
            "tagfold/text.py",
            '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
            '    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))\n',
        )
    ],
    # The table as a plain array of [key, value] pairs in insertion order (linear search): nothing reorders
    # integer-like keys, the scaled number strings ('3' -> '363') and moved ids included; gold uses a Map.
    "js-lru-numeric-key-eviction": [
        (
            "src/table.js",
            '  // No prototype: keys such as "__proto__" or "constructor" are ordinary keys here.\n'
            "  #rows = Object.create(null);\n",
            "  // [key, value] pairs, oldest first: an object would list integer-like keys first.\n"
            "  #rows = [];\n",
        ),
        (
            "src/table.js",
            "    return Object.hasOwn(this.#rows, key);\n",
            "    return this.#rows.some(([k]) => k === key);\n",
        ),
        (
            "src/table.js",
            "    return this.contains(key) ? this.#rows[key] : undefined;\n",
            "    const row = this.#rows.find(([k]) => k === key);\n    return row === undefined ? undefined : row[1];\n",
        ),
        ("src/table.js", "    this.#rows[key] = value;\n", "    this.#rows.push([key, value]);\n"),
        (
            "src/table.js",
            "    delete this.#rows[key];\n",
            "    this.#rows = this.#rows.filter(([k]) => k !== key);\n",
        ),
        ("src/table.js", "    this.#rows = Object.create(null);\n", "    this.#rows = [];\n"),
        ("src/table.js", "    return Object.keys(this.#rows);\n", "    return this.#rows.map(([k]) => k);\n"),
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names: a task id, or ``task@label`` for a second fix of it)."""
    return rt5_honest_fixes.main_labelled(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
