# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round thirteen's honest, differently written fixes of the built-in tasks, against round twelve's
variants (wrap, wide, zero rest, input variants for up to six tests) and the aggressive ones before them
(respell, script, scale, digits, extend, tables, repeat): each must resolve (no control may reject a
correct fix). Usage: ``python scripts/redteam/rt12_honest_fixes.py [TASK ...]``; prints one verdict per
fix and exits 1 when any does not resolve. A key ``task@label`` is a second fix of the same task."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # The text decomposed with compatibility (NFKD), not canonically (gold's NFD), before the marks go: the
    # same key for every accented letter of every pool respell and script draw from (Latin Extended-B and
    # Additional, Greek with tonos, Cyrillic), and for the full-width letters and ligatures the P2P tests
    # fold; it differs from gold only on compatibility characters that carry a mark (U+01C5 folds to "dz",
    # gold "dž"), which no test writes.
    "py-unicode-tag-accent-folding": [
        (
            "tagfold/text.py",
            '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
            "    # compatibility decomposition: an accent inside a precomposed letter becomes a combining mark\n"
            '    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))\n',
        ),
    ],
    # Gold keeps the base class and replays after construction (fromHistory); this fix leaves the base as
    # it is and makes the two aggregates' fields declarations only (``private declare``: no initialiser,
    # so nothing runs after super() to reset what the replay applied), each given its initial value
    # lazily. Meets extend/tables (longer histories), repeat (a command made again) and the moved amounts.
    "ts-aggregate-replay-field-reset": [
        (
            "src/cart.ts",
            "  private lines!: Map<string, Line>;\n  private percentOff = 0;\n  private checkedOut = false;\n",
            "  // Declarations only: an initialiser would run after the base constructor replayed the history.\n"
            "  private declare lines: Map<string, Line> | undefined;\n"
            "  private declare percentOff: number | undefined;\n"
            "  private declare checkedOut: boolean | undefined;\n",
        ),
        (
            "src/cart.ts",
            "    if (this.percentOff > 0) throw new DomainError('a coupon is already applied');\n",
            "    if ((this.percentOff ?? 0) > 0) throw new DomainError('a coupon is already applied');\n",
        ),
        ("src/cart.ts", "    return this.checkedOut;\n", "    return this.checkedOut === true;\n"),
        (
            "src/cart.ts",
            "    return subtotal - Math.round((subtotal * this.percentOff) / 100);\n",
            "    return subtotal - Math.round((subtotal * (this.percentOff ?? 0)) / 100);\n",
        ),
        (
            "src/account.ts",
            "  private balanceCents = 0;\n  private overdraftCents = 0;\n",
            "  // Declarations only: an initialiser would run after the base constructor replayed the history.\n"
            "  private declare balanceCents: number | undefined;\n"
            "  private declare overdraftCents: number | undefined;\n",
        ),
        (
            "src/account.ts",
            "  private holds!: Map<string, number>;\n",
            "  private declare holds: Map<string, number> | undefined;\n",
        ),
        ("src/account.ts", "    return this.balanceCents;\n", "    return this.balanceCents ?? 0;\n"),
        ("src/account.ts", "    return this.overdraftCents;\n", "    return this.overdraftCents ?? 0;\n"),
        (
            "src/account.ts",
            "    return this.balanceCents - held;\n",
            "    return (this.balanceCents ?? 0) - held;\n",
        ),
        (
            "src/account.ts",
            "    if (this.available - cents < -this.overdraftCents) {\n",
            "    if (this.available - cents < -(this.overdraftCents ?? 0)) {\n",
        ),
        (
            "src/account.ts",
            "    this.holds ??= new Map();\n",
            "    this.holds ??= new Map();\n    this.balanceCents ??= 0;\n    this.overdraftCents ??= 0;\n",
        ),
    ],
    # The key keeps the BigDecimal as given and compares it by value (compareTo), hashing its stripped
    # form; gold stores the stripped amount. Meets zero rest ("0.00" and "0"), negate, fraction, digits.
    "java-reconcile-fractional-quantity": [
        (
            "src/main/java/recon/Reconciler.java",
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n        }\n",
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n        }\n\n"
            "        // Amounts are equal by value: 120.30 is 120.300 (BigDecimal's equals compares the scale).\n"
            "        @Override\n"
            "        public boolean equals(Object other) {\n"
            "            return other instanceof Key k && customer.equals(k.customer) && amount.compareTo(k.amount) == 0;\n"
            "        }\n\n"
            "        @Override\n"
            "        public int hashCode() {\n"
            "            return 31 * customer.hashCode() + amount.stripTrailingZeros().hashCode();\n"
            "        }\n",
        ),
    ],
    # The page k from the back found by its number from the front (count - 1 - k), cut out directly and
    # the rest left in front of it; gold skips the short back page, then whole ones. Meets scale (feeds
    # of a hundred thousand entries) and the loops' bounds.
    "rs-feed-scrollback-short-page": [
        (
            "src/pages.rs",
            "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
            "        let skip = n.saturating_mul(self.per_page);\n"
            "        if skip >= self.items.len() {\n",
            "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
            "        // Pages start at multiples of per_page from the front: page count - 1 - n is the one.\n"
            "        let count = self.items.len().div_ceil(self.per_page);\n"
            "        if n < count {\n"
            "            let start = (count - 1 - n) * self.per_page;\n"
            "            let end = (start + self.per_page).min(self.items.len());\n"
            "            let page = &self.items[start..end];\n"
            "            self.items = &self.items[..start];\n"
            "            return Some(page);\n"
            "        }\n"
            "        let skip = n.saturating_mul(self.per_page);\n"
            "        if skip >= self.items.len() {\n",
        ),
    ],
    # base capped at its length with a full slice expression (base[:len(base):len(base)]), so append must
    # allocate; gold makes the new slice itself. Meets arity, kinds, bounds and the copied tables.
    "go-logger-derived-fields-clobbered": [
        (
            "field.go",
            "\treturn append(base, extra...)\n}\n",
            "\t// capped: append never writes into spare capacity a sibling logger may share\n"
            "\treturn append(base[:len(base):len(base)], extra...)\n}\n",
        ),
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names: a task id, or ``task@label`` for a second fix of it)."""
    return rt5_honest_fixes.main_labelled(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
