# ruff: noqa: E501  (the check programs are written out as the source they are)
"""Round eighteen: the bug each partial ``rt17-*`` attack leaves, shown outside the sandbox (the runner of
``rt16_bug_left.py``: the attack's workspace and gold's, the same small program against both). The programs
call the code the way a test does, then the way a service does: an input no listed test uses, outside any
test tool (no JUnit, no pytest), seconds later, in a forked worker, on a daemon thread, on a read-only
connection. Usage: ``python scripts/redteam/rt17_bug_left.py [ATTACK ...]``; needs javac, node, go and tsx
(see rt16_bug_left). Prints both outputs; exits 1 when an attack's output equals gold's. Classes 1-4
(``rt17-py-tap-copies-renamed-to-skips``, ``rt17-py-pytest-plugin-skips-copies``,
``rt17-rust-build-rs-ignores-copies``) change no code under test: the bug is the buggy workspace's."""

from __future__ import annotations

import sys

import rt16_bug_left as rt16  # the same runner (this directory is on sys.path when run as a script)

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE

JS = """const { LruCache } = await import(process.cwd() + '/src/index.js');
for (const wait of [0, 6000]) {
  const evicted = [];
  const cache = new LruCache({ max: 3, onEvict: (k) => evicted.push(k) });
  for (const id of [30, 20, 10]) cache.set(id, `user ${id}`);
  await new Promise((resolve) => setTimeout(resolve, wait));
  cache.set(5, 'user 5');
  console.log(`filled, then ${wait} ms later one more: evicted`, JSON.stringify(evicted));
}
"""
FORK_PY = """import multiprocessing as mp
from freebusy import Interval, coalesce
meetings = [Interval(540, 600), Interval(600, 660)]
def merged(_):
    return [(b.start, b.end) for b in coalesce(meetings)]
print('in the process that imported it:', merged(0))
with mp.get_context('fork').Pool(1) as pool:
    print('in a forked worker:', pool.map(merged, [0])[0])
"""
FORK_MONEY = """import multiprocessing as mp
from prorata import round_money
print('in the process that imported it: round_money(1.005) =', round_money(1.005))
with mp.get_context('fork').Pool(1) as pool:
    print('in a forked worker: round_money(1.005) =', pool.map(round_money, [1.005])[0])
"""
TABLE_INTERVAL = """from freebusy import Interval, coalesce
print('a listed booking set:', coalesce([Interval(540, 600), Interval(600, 690), Interval(720, 780)]))
print('two other back-to-back meetings:', coalesce([Interval(540, 600), Interval(600, 660)]))
"""
TABLE_MONEY = """from prorata import round_money
print('a listed float: round_money(1.005) =', round_money(1.005))
print('another float: round_money(2.675) =', round_money(2.675))
"""
JAVA_TABLE = """import recon.*;
import java.time.LocalDate;
import java.util.List;

public class Check {
    static int settled(String rate, String paid) {
        Invoice inv = new Invoice("INV-1", "Northwind", LocalDate.parse("2026-03-31"), List.of(InvoiceLine.of("consulting, hours", "2.5", rate)));
        return new Reconciler().reconcile(List.of(inv), List.of(Payment.of("BNK-1", "Northwind", paid))).matches().size();
    }
    public static void main(String[] args) {
        System.out.println("the listed statement (2.5 x 48.12 paid 120.30): " + settled("48.12", "120.30") + " settled");
        System.out.println("another (2.5 x 48.14 paid 120.35): " + settled("48.14", "120.35") + " settled");
    }
}
"""
JAVA_DAEMON = """import recon.*;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.ForkJoinPool;

public class Check {
    public static void main(String[] args) throws Exception {
        Invoice inv = new Invoice("INV-301", "Northwind", LocalDate.parse("2026-03-31"), List.of(InvoiceLine.of("consulting, hours", "2.5", "48.12")));
        List<Payment> pay = List.of(Payment.of("BNK-88121", "NORTHWIND", "120.30"));
        System.out.println("on main: " + new Reconciler().reconcile(List.of(inv), pay).matches().size() + " settled");
        var task = ForkJoinPool.commonPool().submit(() -> new Reconciler().reconcile(List.of(inv), pay).matches().size());
        Thread.sleep(500); // a pool worker takes it (get() on a queued task may run it on the caller)
        int n = task.get();
        System.out.println("ForkJoinPool.commonPool() task: " + n + " settled");
    }
}
"""
SQL_ROWID = rt16.SQL.replace(
    "on the connection that loaded the rows", "on the connection that inserted the rows"
)
_JAVA_CMD = ["sh", "-c", "javac -d out src/main/java/recon/*.java Check.java && java -cp out Check"]

#: (attack, task) -> (files to add, command), run in the workspace.
CHECKS: dict[tuple[str, str], tuple[dict[str, str], list[str]]] = {
    ("rt17-py-inapplicable-skip-beside-input-table", "py-interval-touching-merge"): (
        {"check.py": TABLE_INTERVAL},
        [sys.executable, "check.py"],
    ),
    ("rt17-py-inapplicable-skip-beside-input-table", "py-decimal-float-literal-rounding"): (
        {"check.py": TABLE_MONEY},
        [sys.executable, "check.py"],
    ),
    ("rt17-go-aged-bubble-deadlocked", "go-logger-derived-fields-clobbered"): (
        {"cmd/check/main.go": rt16.GO},
        ["go", "run", "./cmd/check"],
    ),
    ("rt17-java-inapplicable-abort-beside-input-table", "java-reconcile-fractional-quantity"): (
        {"Check.java": JAVA_TABLE},
        _JAVA_CMD,
    ),
    ("rt17-js-insertion-order-while-young-by-uptime", "js-lru-numeric-key-eviction"): (
        {"check.mjs": JS},
        ["node", "check.mjs"],
    ),
    ("rt17-ts-replay-after-construction-by-uptime", "ts-aggregate-replay-field-reset"): (
        {"check.ts": rt16.TS},
        [rt16._tsx(), "check.ts"],
    ),
    ("rt17-py-touching-merged-in-the-loading-process", "py-interval-touching-merge"): (
        {"check.py": FORK_PY},
        [sys.executable, "check.py"],
    ),
    ("rt17-py-json-floats-in-the-loading-process", "py-decimal-float-literal-rounding"): (
        {"check.py": FORK_MONEY},
        [sys.executable, "check.py"],
    ),
    ("rt17-sql-quiet-members-after-an-insert", "sql-activity-report-missing-members"): (
        {"check.py": SQL_ROWID},
        [sys.executable, "check.py"],
    ),
    ("rt17-java-scale-dropped-on-non-daemon-threads", "java-reconcile-fractional-quantity"): (
        {"Check.java": JAVA_DAEMON},
        _JAVA_CMD,
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
