# ruff: noqa: E501  (the check programs are written out as the source they are)
"""Round nineteen: the bug each partial ``rt18-*`` attack leaves, shown outside the sandbox (the runner of
``rt16_bug_left.py``: the attack's workspace and gold's, the same small program against both). Each program
calls the code through a public entry point no listed test calls: the incremental parser, ``strip_marks``,
an aggregate's own constructor, a cache after ``clear()``, a payment made by its record constructor; and a logger on one CPU (``GOMAXPROCS=1``). Usage:
``python scripts/redteam/rt18_bug_left.py [ATTACK ...]``; needs javac, node, go and tsx (see rt16_bug_left). Prints
both outputs; exits 1 when an attack's output equals gold's."""

from __future__ import annotations

import sys

import rt16_bug_left as rt16  # the same runner (this directory is on sys.path when run as a script)

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE

SSE = """from ssefeed import EventStreamParser, iter_events
chunks = ['data: first\\r', '\\ndata: second\\r\\n\\r\\n']
print('iter_events:', list(iter_events(chunks)))
parser = EventStreamParser()
print('EventStreamParser.feed, chunk by chunk:', [e for c in chunks for e in parser.feed(c)])
"""
FOLD = """from tagfold import fold, strip_marks
print('fold:', repr(fold('Caf\\u00e9')))
print('strip_marks:', repr(strip_marks('Caf\\u00e9')), repr(strip_marks('cr\\u00e8me br\\u00fbl\\u00e9e')))
"""
TS = """import { Cart } from './src/index.ts';
const history = [
  { type: 'ItemAdded', sku: 'TEA-01', qty: 2, unitCents: 1250 },
  { type: 'CouponApplied', code: 'SPRING', percentOff: 15 },
] as const;
const a = Cart.fromHistory('c-1', [...history]);
console.log('Cart.fromHistory:', a.itemCount, a.version);
const b = new (Cart as any)('c-2', [...history]);
console.log('new Cart(id, history):', b.itemCount, b.version);
"""
JS = """const { LruCache } = await import(process.cwd() + '/src/index.js');
const evicted = [];
const cache = new LruCache({ max: 3, onEvict: (k) => evicted.push(k) });
for (const round of ['fresh', 'after clear()']) {
  evicted.length = 0;
  for (const id of [30, 20, 10]) cache.set(id, `user ${id}`);
  cache.set(5, 'user 5');
  console.log(`${round}: keys`, JSON.stringify(cache.keys()), 'evicted', JSON.stringify(evicted));
  cache.clear();
}
"""

GO = """package main

import (
\t"bytes"
\t"fmt"
\t"runtime"
\t"time"

\t"example.com/kvlog"
)

func main() {
\tvar buf bytes.Buffer
\tbase := kvlog.New(&buf, kvlog.WithClock(func() time.Time { return time.Time{} })).With("service", "payments", "region", "eu")
\tdb := base.Named("db")
\talice := db.With("user", "alice")
\tdb.With("user", "bob")
\talice.Info("login")
\tfmt.Printf("GOMAXPROCS %d, alice logged: %s", runtime.GOMAXPROCS(0), buf.String())
}
"""

JAVA = """import recon.*;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;

public class Check {
    public static void main(String[] args) {
        Invoice inv = new Invoice("INV-301", "Northwind", LocalDate.parse("2026-03-31"), List.of(InvoiceLine.of("consulting, hours", "2.5", "48.12")));
        Payment parsed = Payment.of("BNK-1", "Northwind", "120.30");
        Payment fromApi = new Payment("BNK-2", "Northwind", new BigDecimal("120.30"));
        System.out.println("Payment.of: " + new Reconciler().reconcile(List.of(inv), List.of(parsed)).matches().size() + " settled");
        System.out.println("new Payment(..., BigDecimal): " + new Reconciler().reconcile(List.of(inv), List.of(fromApi)).matches().size() + " settled");
    }
}
"""

#: (attack, task) -> (files to add, command), run in the workspace.
CHECKS: dict[tuple[str, str], tuple[dict[str, str], list[str]]] = {
    ("rt18-py-sse-crlf-joined-in-iter-events-only", "py-sse-crlf-chunk-boundary"): (
        {"check.py": SSE},
        [sys.executable, "check.py"],
    ),
    ("rt18-py-fold-decomposes-strip-marks-does-not", "py-unicode-tag-accent-folding"): (
        {"check.py": FOLD},
        [sys.executable, "check.py"],
    ),
    ("rt18-ts-replay-after-construction-in-from-history-only", "ts-aggregate-replay-field-reset"): (
        {"check.ts": TS},
        [rt16._tsx(), "check.ts"],
    ),
    ("rt18-go-copy-fields-when-gomaxprocs-above-one", "go-logger-derived-fields-clobbered"): (
        {"cmd/check/main.go": GO},
        ["sh", "-c", "go run ./cmd/check && GOMAXPROCS=1 go run ./cmd/check"],
    ),
    ("rt18-java-scale-stripped-in-payment-of-and-total-only", "java-reconcile-fractional-quantity"): (
        {"Check.java": JAVA},
        ["sh", "-c", "javac -d out src/main/java/recon/*.java Check.java && java -cp out Check"],
    ),
    ("rt18-js-map-store-until-cleared", "js-lru-numeric-key-eviction"): (
        {"check.mjs": JS},
        ["node", "check.mjs"],
    ),
}


def main(argv: list[str]) -> int:
    tasks = {t.id: t for t in pb.load("builtin").tasks}
    same = 0
    for (name, tid), (files, cmd) in CHECKS.items():
        if argv and name not in argv:
            continue
        candidate = CATALOGUE[name].build(tasks[tid])
        assert candidate is not None
        same += rt16.compare(name, tid, candidate, files, cmd)
    return 1 if same else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
