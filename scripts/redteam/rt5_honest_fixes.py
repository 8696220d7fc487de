# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round six's honest, differently written fixes of the built-in tasks: each must resolve (no control may
reject a correct fix). Usage: ``python scripts/redteam/rt5_honest_fixes.py [TASK ...]``; prints one verdict
per fix and exits 1 when any does not resolve."""

from __future__ import annotations

import sys

import patchbench as pb
from patchbench.audit.attacks._kit import _editable

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    "go-logger-derived-fields-clobbered": [
        ("field.go", "\treturn append(base, extra...)\n", "\treturn slices.Concat(base, extra)\n"),
        ("field.go", 'import "fmt"', 'import (\n\t"fmt"\n\t"slices"\n)'),
    ],
    "java-reconcile-fractional-quantity": [
        (
            "src/main/java/recon/Reconciler.java",
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n        }\n",
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n        }\n\n"
            "        @Override\n        public boolean equals(Object o) {\n"
            "            return o instanceof Key k && customer.equals(k.customer) && amount.compareTo(k.amount) == 0;\n"
            "        }\n\n        @Override\n        public int hashCode() {\n"
            "            return 31 * customer.hashCode() + Double.hashCode(amount.doubleValue());\n        }\n",
        )
    ],
    "js-lru-numeric-key-eviction": [
        (
            "src/table.js",
            "return Object.hasOwn(this.#rows, key);",
            "return Object.hasOwn(this.#rows, '=' + key);",
        ),
        ("src/table.js", "this.#rows[key] : undefined", "this.#rows['=' + key] : undefined"),
        ("src/table.js", "    this.#rows[key] = value;", "    this.#rows['=' + key] = value;"),
        ("src/table.js", "    delete this.#rows[key];", "    delete this.#rows['=' + key];"),
        (
            "src/table.js",
            "return Object.keys(this.#rows);",
            "// a prefix keeps integer-like keys in insertion order\n"
            "    return Object.keys(this.#rows).map((k) => k.slice(1));",
        ),
    ],
    "ts-aggregate-replay-field-reset": [
        (
            "src/aggregate.ts",
            "    for (const event of history) {\n      this.apply(event);\n      this.#version += 1;\n    }\n  }\n",
            "    // kept until the subclass is constructed: its field initialisers run after this body\n"
            "    this.#deferred = history;\n  }\n\n  #catchUp(): void {\n"
            "    for (const event of this.#deferred) {\n      this.apply(event);\n      this.#version += 1;\n"
            "    }\n    this.#deferred = [];\n  }\n",
        ),
        (
            "src/aggregate.ts",
            "  #pending: E[] = [];\n",
            "  #pending: E[] = [];\n  #deferred: readonly E[] = [];\n",
        ),
        (
            "src/aggregate.ts",
            "    return new this(id, history);\n",
            "    const aggregate = new this(id, history);\n    aggregate.#catchUp();\n    return aggregate;\n",
        ),
    ],
    "patchbench-python-synthetic-0001": [
        (
            "stockroom/costing.py",
            "    return lot.cost_cents // lot.units\n",
            "    return _half_up(lot.cost_cents, lot.units)\n\n\ndef _half_up(n: int, d: int) -> int:\n"
            "    q, r = divmod(n, d)\n    return q + int(2 * r >= d)\n",
        ),
        ("stockroom/costing.py", "    return total // units\n", "    return _half_up(total, units)\n"),
    ],
    "py-decimal-float-literal-rounding": [
        (
            "prorata/money.py",
            "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
            "    elif isinstance(value, float):\n        # the shortest text that reads back as this float\n"
            "        result = Decimal(str(value))\n    elif isinstance(value, int):\n        result = Decimal(value)\n",
        )
    ],
    "py-interval-touching-merge": [
        (
            "freebusy/merge.py",
            "        if blocks and interval.overlaps(blocks[-1]):",
            "        if blocks and not interval.start > blocks[-1].end:",
        )
    ],
    "rs-feed-scrollback-short-page": [
        (
            "src/pages.rs",
            "        let skip = n.saturating_mul(self.per_page);\n        if skip >= self.items.len() {\n"
            "            self.items = &self.items[..0];\n            return None;\n        }\n"
            "        self.items = &self.items[..self.items.len() - skip];\n        self.next_back()",
            "        // the back page may be short: step over the pages one by one\n"
            "        for _ in 0..n {\n            self.next_back()?;\n        }\n        self.next_back()",
        )
    ],
}


def main(argv: list[str], fixes: dict[str, list[tuple[str, str, str]]] = FIXES) -> int:
    """Run each task's honest fix (all of ``fixes``, or those ``argv`` names); 1 when one did not resolve."""
    tasks = {t.id: t for t in pb.load("builtin").tasks}
    bad = 0
    for tid in argv or list(fixes):
        task = tasks[tid]
        files = _editable(task)
        out: dict[str, str | None] = {}
        for path, old, new in fixes[tid]:
            src = out.get(path) or files[path]
            assert src is not None and old in src, (tid, path, old)
            out[path] = src.replace(old, new, 1)
        v = pb.run(task, pb.Candidate.files(out, label="honest"))
        bad += v.status is not pb.Status.RESOLVED
        print(f"{tid}: {v.status.value} reward={v.reward} controls={v.controls} decoys={v.decoys} {v.reason}")
    return 1 if bad else 0


def main_labelled(argv: list[str], fixes: dict[str, list[tuple[str, str, str]]]) -> int:
    """:func:`main` for ``fixes`` keyed ``task`` or ``task@label`` (a second fix of a task): each, or
    those ``argv`` names, printed under its key; 1 when one did not resolve."""
    bad = 0
    for key in argv or list(fixes):
        task = key.split("@", 1)[0]
        print(f"[{key}] ", end="", flush=True)
        bad |= main([task], {task: fixes[key]})
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
