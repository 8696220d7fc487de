# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round sixteen's honest, differently written fixes of the built-in tasks, against round fifteen's variants
(*many*, *reuse*, *off main*, *busy*, *errors*, *future*): each keeps state across calls or shares memory
differently from gold, where a control replaying a call on one object, or 8,000 times, could tell them
apart. Each must resolve (no control may reject a correct fix). Usage: ``python
scripts/redteam/rt15_honest_fixes.py [TASK ...]``; prints one verdict per fix and exits 1 when any does not
resolve."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # A Reconciler memoises each amount's canonical form (its scale dropped) in a map that lives as long as
    # the Reconciler: state kept across reconcile() calls, which *reuse* (the object built first and called
    # once more) and *off main* exercise. Gold strips inside Key.of on every call.
    "java-reconcile-fractional-quantity": [
        (
            "src/main/java/recon/Reconciler.java",
            "    public Reconciliation reconcile(List<Invoice> invoices, List<Payment> payments) {\n",
            "    /** Amounts by value: BigDecimal's equals tells 120.30 from 120.300, a key must not. */\n"
            "    private final Map<BigDecimal, BigDecimal> canonical = new HashMap<>();\n\n"
            "    private BigDecimal canonical(BigDecimal amount) {\n"
            "        return canonical.computeIfAbsent(amount, BigDecimal::stripTrailingZeros);\n"
            "    }\n\n"
            "    public Reconciliation reconcile(List<Invoice> invoices, List<Payment> payments) {\n",
        ),
        (
            "src/main/java/recon/Reconciler.java",
            "Key.of(invoice.customer(), invoice.total())",
            "Key.of(invoice.customer(), canonical(invoice.total()))",
        ),
        (
            "src/main/java/recon/Reconciler.java",
            "Key.of(payment.customer(), payment.amount())",
            "Key.of(payment.customer(), canonical(payment.amount()))",
        ),
    ],
    # Every logger's fields are stored clipped (capacity = length), so an append never writes into memory
    # another logger can see: the aliasing is removed where a slice is stored, not by copying in extend
    # (gold). A chain of a thousand fields (*far*) reallocates at every step, as gold's copies do.
    "go-logger-derived-fields-clobbered": [
        (
            "logger.go",
            "\tchild.fields = extend(l.fields, kv)\n",
            "\t// Stored clipped: a later append to it reallocates instead of writing into shared spare capacity.\n"
            "\tchild.fields = clip(extend(l.fields, kv))\n",
        ),
        (
            "field.go",
            "// extend returns base followed by the fields of kv.\n",
            "// clip returns f with no spare capacity, so that appending to it never writes into f's array.\n"
            "func clip(f []Field) []Field { return f[:len(f):len(f)] }\n\n"
            "// extend returns base followed by the fields of kv.\n",
        ),
    ],
    # coalesce memoised: the sorted intervals as a tuple, merged by a cached function (touching blocks
    # merged: a block ends where the next may start), returned as a fresh list. A cache is state across
    # calls: *many* (a call made 8,000 times), *repeat* and the container variants (iterators consumed once)
    # must all get the same blocks as gold.
    "py-interval-touching-merge": [
        (
            "freebusy/merge.py",
            "from collections.abc import Iterable\n",
            "from collections.abc import Iterable\nfrom functools import lru_cache\n",
        ),
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
            "    return list(_merged(tuple(sorted(intervals))))\n\n\n"
            "@lru_cache(maxsize=256)\n"
            "def _merged(ordered: tuple[Interval, ...]) -> tuple[Interval, ...]:\n"
            "    blocks: list[Interval] = []\n"
            "    for interval in ordered:\n"
            "        # Half-open: [a, b) and [b, c) leave no free minute between them, so they merge too.\n"
            "        if blocks and not blocks[-1].end < interval.start:\n"
            "            last = blocks.pop()\n"
            "            interval = Interval(last.start, max(last.end, interval.end))\n"
            "        blocks.append(interval)\n"
            "    return tuple(blocks)\n",
        ),
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names: a task id, or ``task@label`` for a second fix of it)."""
    return rt5_honest_fixes.main_labelled(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
