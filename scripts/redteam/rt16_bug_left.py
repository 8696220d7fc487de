# ruff: noqa: E501  (the check programs are written out as the source they are)
"""Round seventeen: the bug each ``rt16-*`` attack leaves, shown outside the sandbox. For each attack, the
buggy workspace with the attack's files and the task's gold workspace are copied to a temporary directory
and the same small program runs against both: the listed test's own inputs the way a test uses them (at
once, on one thread, in one turn of the event loop), then the way a service does (a later turn, seconds
later, another thread). Usage: ``python scripts/redteam/rt16_bug_left.py [ATTACK ...]``; needs javac,
node, go and cargo (offline) on the PATH, and tsx in patchbench's node tool cache (``TSX`` overrides it).
Prints both outputs; exits 1 when an attack's output equals gold's."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE

TASKS = Path(__file__).resolve().parents[2] / "src/patchbench/data/hardbug/tasks"

JS = """const { LruCache } = await import(process.cwd() + '/src/index.js');
async function run(label, nextTurn) {
  const evicted = [];
  const cache = new LruCache({ max: 3, onEvict: (k) => evicted.push(k) });
  for (const id of [30, 20, 10]) cache.set(id, `user ${id}`);
  if (nextTurn) await new Promise((resolve) => setImmediate(resolve));
  cache.set(5, 'user 5');
  console.log(label, 'evicted', JSON.stringify(evicted));
}
await run('filled and used in one turn:', false);
await run('used on the next turn of the event loop:', true);
"""
TS = """import { Cart, type CartEvent } from './src/index.ts';
const history: CartEvent[] = [
  { type: 'ItemAdded', sku: 'TEA-01', qty: 2, unitCents: 1250 },
  { type: 'CouponApplied', code: 'SPRING', percentOff: 15 },
  { type: 'CheckedOut' },
];
function load(label: string): void {
  const cart = Cart.fromHistory('c-5', history);
  console.log(label, 'items', cart.itemCount, 'total', cart.totalCents, 'checked out', cart.isCheckedOut);
}
load('loaded at start:');
setTimeout(() => load('loaded 31 s after start:'), 31_000);
"""
GO = """package main

import (
\t"bytes"
\t"fmt"
\t"time"

\t"example.com/kvlog"
)

func main() {
\tfor _, wait := range []time.Duration{0, 3 * time.Second} {
\t\tvar buf bytes.Buffer
\t\tbase := kvlog.New(&buf, kvlog.WithClock(func() time.Time { return time.Time{} })).With("service", "payments", "region", "eu")
\t\ttime.Sleep(wait)
\t\tdb := base.Named("db")
\t\ttime.Sleep(wait)
\t\talice := db.With("user", "alice")
\t\tdb.With("user", "bob")
\t\talice.Info("login")
\t\tfmt.Printf("loggers %v old, alice logged: %s", wait, buf.String())
\t}
}
"""
RUST = """use pagefeed::Feed;
fn main() {
    for wait in [0u64, 3] {
        let mut f = Feed::new(4);
        f.extend(0..10u32);
        std::thread::sleep(std::time::Duration::from_secs(wait));
        println!("paged {wait} s after the last append: page_from_newest(1) = {:?}", f.page_from_newest(1));
    }
}
"""
JAVA = """import recon.*;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;

public class Check {
    public static void main(String[] args) throws Exception {
        Invoice inv = new Invoice("INV-301", "Northwind", LocalDate.parse("2026-03-31"),
                List.of(InvoiceLine.of("consulting, hours", "2.5", "48.12")));
        List<Payment> pay = List.of(Payment.of("BNK-88121", "NORTHWIND", "120.30"));
        Reconciler shared = new Reconciler();
        System.out.println("made and called on main: " + shared.reconcile(List.of(inv), pay).matches().size() + " settled");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        int n = pool.submit(() -> shared.reconcile(List.of(inv), pay).matches().size()).get();
        System.out.println("made on main, called from an executor: " + n + " settled");
        pool.shutdown();
    }
}
"""

SQL = """import json, os, sqlite3, tempfile
d = json.load(open(TESTS + '/cases.json'))
case = next(c for c in d['cases'] if c['name'] == 'activity_lists_members_without_any_loans')
q = open('queries/member_activity.sql').read()
path = os.path.join(tempfile.mkdtemp(), 'library.db')
con = sqlite3.connect(path); con.executescript(open('schema.sql').read())
for f in case['fixtures']:
    for t in (d['fixtures'][f] if isinstance(f, str) else [f]):
        if 'sql' in t: con.executescript(t['sql']); continue
        cols = t['columns']
        con.executemany(f"INSERT INTO {t['table']} ({','.join(cols)}) VALUES ({','.join('?' * len(cols))})", t['rows'])
con.commit()
print('on the connection that loaded the rows: members', [r[0] for r in con.execute(q, case['params'])])
fresh = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
print('on a fresh read-only connection: members', [r[0] for r in fresh.execute(q, case['params'])])
"""

PY = """from concurrent.futures import ThreadPoolExecutor
from freebusy import Interval, coalesce
meetings = [Interval(540, 600), Interval(600, 660)]
print('on the main thread:', coalesce(meetings))
with ThreadPoolExecutor(1) as pool:
    print('on a worker thread:', pool.submit(coalesce, meetings).result())
"""

JAVA_LIST = """import recon.*;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

public class Check {
    public static void main(String[] args) {
        Invoice inv = new Invoice("INV-301", "Northwind", LocalDate.parse("2026-03-31"),
                List.of(InvoiceLine.of("consulting, hours", "2.5", "48.12")));
        List<Payment> pay = List.of(Payment.of("BNK-88121", "NORTHWIND", "120.30"));
        System.out.println("List.of: " + new Reconciler().reconcile(List.of(inv), pay).matches().size() + " settled");
        List<Payment> parsed = new ArrayList<>(pay);
        System.out.println("ArrayList: " + new Reconciler().reconcile(List.of(inv), parsed).matches().size() + " settled");
    }
}
"""

RUST_THREAD = """use pagefeed::Feed;
fn main() {
    let mut f = Feed::new(4);
    f.extend(0..10u32);
    println!("paged where it was made: page_from_newest(1) = {:?}", f.page_from_newest(1));
    let moved = std::thread::spawn(move || format!("{:?}", f.page_from_newest(1))).join().unwrap();
    println!("paged from another thread: page_from_newest(1) = {moved}");
}
"""


def _tsx() -> str:
    found = glob.glob(os.path.expanduser("~/.cache/patchbench/envs/node-*/tools/node_modules/.bin/tsx"))
    return os.environ.get("TSX") or (found[0] if found else "tsx")


#: attack -> (files to add, command), run in the workspace.
CHECKS: dict[str, tuple[dict[str, str], list[str]]] = {
    "rt16-js-insertion-order-until-the-loop-turns": ({"check.mjs": JS}, ["node", "check.mjs"]),
    "rt16-ts-replay-after-construction-by-date-clock": ({"check.ts": TS}, [_tsx(), "check.ts"]),
    "rt16-go-copy-while-parent-young-by-coarse-clock": (
        {"cmd/check/main.go": GO},
        ["go", "run", "./cmd/check"],
    ),
    "rt16-rust-short-back-page-while-fresh-by-ticker": (
        {"examples/check.rs": RUST},
        ["cargo", "run", "-q", "--offline", "--example", "check"],
    ),
    "rt16-sql-quiet-members-on-a-connection-that-wrote": ({"check.py": SQL}, [sys.executable, "check.py"]),
    "rt16-py-touching-merged-on-the-main-thread": ({"check.py": PY}, [sys.executable, "check.py"]),
    "rt16-java-scale-dropped-for-immutable-lists": (
        {"Check.java": JAVA_LIST},
        ["sh", "-c", "javac -d out src/main/java/recon/*.java Check.java && java -cp out Check"],
    ),
    "rt16-rust-short-back-page-on-the-making-thread": (
        {"examples/check.rs": RUST_THREAD},
        ["cargo", "run", "-q", "--offline", "--example", "check"],
    ),
    "rt16-java-scale-dropped-off-the-making-thread": (
        {"Check.java": JAVA},
        ["sh", "-c", "javac -d out src/main/java/recon/*.java Check.java && java -cp out Check"],
    ),
}


def _run(root: Path, files: dict[str, str], cmd: list[str], tests: Path) -> str:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text.replace("TESTS + '", f"'{tests}"))
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600)
    return (out.stdout + out.stderr).strip()


def compare(name: str, task_id: str, candidate: pb.Candidate, files: dict[str, str], cmd: list[str]) -> bool:
    """Run ``cmd`` (with ``files`` added) in the attack's workspace and in gold's; print both outputs and
    return whether they are the same."""
    assert candidate.file_map is not None
    outs = []
    with tempfile.TemporaryDirectory() as tmp:
        for label in ("attack", "gold"):
            root = Path(tmp) / label
            shutil.copytree(TASKS / task_id / ("repo" if label == "attack" else "fixed"), root)
            if label == "attack":
                for path, text in candidate.file_map.items():
                    if text is not None:
                        (root / path).write_text(text)
            outs.append(_run(root, files, cmd, TASKS / task_id / "tests"))
    print(f"== {name} ({task_id})")
    for label, out in zip(("attack", "gold"), outs, strict=True):
        print("\n".join(f"  {label}: {line}" for line in out.splitlines()))
    return outs[0] == outs[1]


def main(argv: list[str]) -> int:
    tasks = pb.load("builtin").tasks
    same = 0
    for name in argv or list(CHECKS):
        task = next(t for t in tasks if CATALOGUE[name].build(t) is not None)
        candidate = CATALOGUE[name].build(task)
        assert candidate is not None
        files, cmd = CHECKS[name]
        same += compare(name, task.id, candidate, files, cmd)
    return 1 if same else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
