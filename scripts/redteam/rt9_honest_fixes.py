# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round ten's honest, differently written fixes of the built-in tasks, against the digits, late-times and
string-scaling variants: each must resolve (no control may reject a correct fix). Usage: ``python
scripts/redteam/rt9_honest_fixes.py [TASK ...]``; prints one verdict per fix and exits 1 when any does not
resolve."""

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
}


def main(argv: list[str]) -> int:
    return rt5_honest_fixes.main(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
