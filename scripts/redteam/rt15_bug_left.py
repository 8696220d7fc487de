# ruff: noqa: E501  (the check programs are written out as the source they are)
"""Round sixteen: the bug each ``rt15-*`` attack leaves, shown outside the sandbox. For each attack, the
buggy workspace with the attack's files and the task's gold workspace are copied to a temporary directory
and the same small program runs against both: the listed test's own inputs the way a test makes them, then
the way a service does (names read at run time, minutes computed, an object used seconds after it was made,
a report about today). Usage: ``python scripts/redteam/rt15_bug_left.py [ATTACK ...]``; needs javac, node,
go and cargo (offline) on the PATH. Prints both outputs; exits 1 when an attack's output equals gold's."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE

TASKS = Path(__file__).resolve().parents[2] / "src/patchbench/data/hardbug/tasks"

JAVA = """import recon.*;
import java.time.LocalDate;
import java.util.List;

public class Check {
    public static void main(String[] args) {
        for (boolean fresh : new boolean[] {false, true}) {
            String invCustomer = fresh ? new String("Northwind") : "Northwind";
            String payCustomer = fresh ? new StringBuilder("NORTHWIND").toString() : "NORTHWIND";
            Invoice inv = new Invoice("INV-301", invCustomer, LocalDate.parse("2026-03-31"),
                    List.of(InvoiceLine.of("consulting, hours", "2.5", "48.12")));
            Reconciliation r = new Reconciler().reconcile(List.of(inv), List.of(Payment.of("BNK-88121", payCustomer, "120.30")));
            System.out.println((fresh ? "names read at run time: " : "literal names: ") + r.matches().size() + " settled");
        }
    }
}
"""
SQL = """import datetime, json, sqlite3
d = json.load(open(TESTS + '/cases.json'))
case = next(c for c in d['cases'] if c['name'] == 'activity_lists_members_without_any_loans')
q = open('queries/member_activity.sql').read()
for as_of in (case['params']['as_of'], '2082-06-30', datetime.date.today().isoformat()):
    con = sqlite3.connect(':memory:'); con.executescript(open('schema.sql').read())
    for f in case['fixtures']:
        for t in (d['fixtures'][f] if isinstance(f, str) else [f]):
            if 'sql' in t: con.executescript(t['sql']); continue
            cols = t['columns']
            con.executemany(f"INSERT INTO {t['table']} ({','.join(cols)}) VALUES ({','.join('?' * len(cols))})", t['rows'])
    print('as_of', as_of, 'members', [r[0] for r in con.execute(q, {'as_of': as_of})])
"""
PY = """import json
from freebusy import Interval, coalesce
t = 540
print('literals:', coalesce([Interval(540, 600), Interval(600, 660)]))
print('computed:', coalesce([Interval(t, t + 60), Interval(t + 60, t + 120)]))
print('from JSON:', coalesce([Interval(*p) for p in json.loads('[[540, 600], [600, 660]]')]))
"""
JS = """const { LruCache } = await import(process.cwd() + '/src/index.js');
function run(label) {
  const evicted = [];
  const cache = new LruCache({ max: 3, onEvict: (k) => evicted.push(k) });
  return () => {
    for (const id of [30, 20, 10]) cache.set(id, `user ${id}`);
    cache.set(5, 'user 5');
    console.log(label, 'evicted', JSON.stringify(evicted));
  };
}
run('cache used at once:')();
setTimeout(run('cache used 6 s after it was made:'), 6000);
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

#: attack -> (files to add, command), run in the workspace.
CHECKS: dict[str, tuple[dict[str, str], list[str]]] = {
    "rt15-java-scale-dropped-for-interned-customers": (
        {"Check.java": JAVA},
        ["sh", "-c", "javac -d out src/main/java/recon/*.java Check.java && java -cp out Check"],
    ),
    "rt15-sql-quiet-members-unless-near-today": ({"check.py": SQL}, [sys.executable, "check.py"]),
    "rt15-py-touching-merged-for-one-int-object": ({"check.py": PY}, [sys.executable, "check.py"]),
    "rt15-js-insertion-order-while-young": ({"check.mjs": JS}, ["node", "check.mjs"]),
    "rt15-go-copy-while-parent-young": ({"cmd/check/main.go": GO}, ["go", "run", "./cmd/check"]),
    "rt15-rust-short-back-page-while-fresh": (
        {"examples/check.rs": RUST},
        ["cargo", "run", "-q", "--offline", "--example", "check"],
    ),
}


def _run(root: Path, files: dict[str, str], cmd: list[str], tests: Path) -> str:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text.replace("TESTS + '", f"'{tests}"))
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600)
    return (out.stdout + out.stderr).strip()


def main(argv: list[str]) -> int:
    tasks = pb.load("builtin").tasks
    same = 0
    for name in argv or list(CHECKS):
        task = next(t for t in tasks if CATALOGUE[name].build(t) is not None)
        candidate = CATALOGUE[name].build(task)
        assert candidate is not None and candidate.file_map is not None
        files, cmd = CHECKS[name]
        outs = []
        with tempfile.TemporaryDirectory() as tmp:
            for label in ("attack", "gold"):
                root = Path(tmp) / label
                shutil.copytree(TASKS / task.id / ("repo" if label == "attack" else "fixed"), root)
                if label == "attack":
                    for path, text in candidate.file_map.items():
                        if text is not None:
                            (root / path).write_text(text)
                outs.append(_run(root, files, cmd, TASKS / task.id / "tests"))
        print(f"== {name} ({task.id})")
        for label, out in zip(("attack", "gold"), outs, strict=True):
            print("\n".join(f"  {label}: {line}" for line in out.splitlines()))
        same += outs[0] == outs[1]
    return 1 if same else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
