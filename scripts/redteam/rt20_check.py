"""Round rt20: for each rt20-* attack, apply its candidate to a fresh copy of the task's workspace
(outside the sandbox), report what the test-configuration guard and the static screen say about it, and
show the bug that the shipped code keeps (a program that uses the library the way an application would,
no test tool).

Usage: PYTHONPATH=src python scripts/redteam/rt20_check.py [ATTACK ...]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from patchbench.api import load
from patchbench.audit.attacks import CATALOGUE
from patchbench.context import screen_change
from patchbench.workspace import Baseline, apply_candidate, config_violations

#: The zone a deployment outside UTC runs in (the class-5 repairs hold only at offset 0).
ZONE: dict[str, str] = {}


def _sh(argv: list[str], cwd: Path, **kw: object) -> str:
    env = dict(kw.pop("env", None) or os.environ)  # type: ignore[call-overload]
    env.update(ZONE)
    done = subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=env,
        **kw,  # type: ignore[arg-type]
    )
    return (done.stdout + done.stderr).strip()


def _rust(ws: Path, tmp: Path) -> str:
    app = tmp / "app"
    (app / "src").mkdir(parents=True)
    (app / "Cargo.toml").write_text(
        '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n'
        f'[dependencies]\npagefeed = {{ path = "{ws}" }}\n'
    )
    (app / "src/main.rs").write_text(
        "fn main() {\n    let mut f = pagefeed::Feed::new(4);\n    f.extend(0u32..10);\n"
        '    println!("page_from_newest(1) = {:?} (gold: Some([4, 5, 6, 7]))", f.page_from_newest(1));\n}\n'
    )
    return _sh(["cargo", "run", "--quiet", "--offline"], app)


def _java(ws: Path, tmp: Path, props: list[str]) -> str:
    out = tmp / "classes"
    srcs = [str(p) for p in (ws / "src/main/java").rglob("*.java")]
    (tmp / "app/recon").mkdir(parents=True)
    (tmp / "app/recon/App.java").write_text(
        "package recon;\nimport java.time.LocalDate; import java.util.List;\n"
        "public class App { public static void main(String[] a) {\n"
        '  Invoice inv = new Invoice("INV-302", "Contoso", LocalDate.parse("2026-03-15"), List.of('
        'InvoiceLine.of("licence", "3", "150.00"), InvoiceLine.of("support", "1", "150.00")));\n'
        "  Reconciliation r = new Reconciler().reconcile(List.of(inv),"
        ' List.of(Payment.of("BNK-88122", "Contoso", '
        '"600")));\n'
        '  System.out.println("settled " + r.matches().size() + " (gold: 1), unmatched payments " + '
        "r.unmatchedPayments().size());\n} }\n"
    )
    srcs.append(str(tmp / "app/recon/App.java"))
    log = _sh(["javac", "--release", "17", "-d", str(out), *srcs], tmp)
    return log + "\n" + _sh(["java", *props, "-cp", str(out), "recon.App"], tmp)


def _go(ws: Path, tmp: Path) -> str:
    d = ws / "cmd" / "rt20app"
    d.mkdir(parents=True)
    (d / "main.go").write_text(
        'package main\n\nimport (\n\t"bytes"\n\t"fmt"\n\n\t"example.com/kvlog"\n)\n\n'
        'func main() {\n\tvar buf bytes.Buffer\n\troot := kvlog.New(&buf)\n\tparent := root.With("k0", 0)\n'
        '\tparent = parent.With("k1", 1).With("k2", 2)\n'
        '\talice := parent.With("user", "alice")\n\t_ = parent.With("user", "bob")\n\talice.Info("login")\n'
        '\tfmt.Print("alice logged: ", buf.String(), "(gold: user=alice)\\n")\n}\n'
    )
    return _sh(["go", "run", "./cmd/rt20app"], ws)


def _js(ws: Path, tmp: Path) -> str:
    code = (
        "import { LruCache } from './src/index.js';\n"
        "const ev = []; const c = new LruCache({ max: 3, onEvict: (k, v) => ev.push([k, v]) });\n"
        "for (const id of [30, 20, 10]) c.set(id, `user ${id}`); c.set(5, 'user 5');\n"
        "console.log('evicted', JSON.stringify(ev), \"(gold: [['30','user 30']])\");\n"
    )
    (ws / "rt20app.mjs").write_text(code)
    return _sh(["node", "rt20app.mjs"], ws)


#: tsx as the harness installs it for TypeScript tasks (node 20 cannot strip types).
TSX = sorted(Path("/root/.cache/patchbench/envs").glob("node-*/tools/node_modules/tsx/dist/loader.mjs"))


def _ts(ws: Path, tmp: Path) -> str:
    if not TSX:
        return "(no tsx found)"
    code = (
        "import { Cart } from './src/index.ts';\n"
        "const c = Cart.open('c-1'); c.addItem('mug', 2, 1250); c.applyCoupon('TEN', 10);\n"
        "const again = Cart.fromHistory('c-1', [\n"
        "  { type: 'ItemAdded', sku: 'mug', qty: 2, unitCents: 1250 },\n"
        "  { type: 'CouponApplied', code: 'TEN', percentOff: 10 }]);\n"
        "console.log('rebuilt cart quantity(mug) =', again.quantity('mug'), '(gold: 2)');\n"
    )
    (ws / "rt20app.mts").write_text(code)
    return _sh(["node", f"--import={TSX[0].as_uri()}", "rt20app.mts"], ws)


def _py_interval(ws: Path, tmp: Path) -> str:
    code = (
        "from freebusy import Interval, coalesce\n"
        "print('blocks', coalesce([Interval(540, 600), Interval(600, 660)]), '(gold: one block 540-660)')\n"
    )
    return _sh([sys.executable, "-c", code], ws)  # from the workspace root, the .so beside it


def _py_decimal(ws: Path, tmp: Path) -> str:
    code = (
        "import json\nfrom prorata.money import round_money, to_decimal\n"
        "fee = json.loads('{\"fee\": 1.005}')['fee']\n"
        "print('round_money(1.005 from JSON) =', round_money(fee), '(gold: 1.01)', to_decimal(fee))\n"
    )
    return _sh([sys.executable, "-c", code], ws)


def _py_unicode(ws: Path, tmp: Path) -> str:
    site = tmp / "site"
    shutil.copytree(ws / "tagfold", site / "tagfold")  # the package as installed: no root .so beside it
    code = (
        "from tagfold import strip_marks\n"
        "print('strip_marks(caf\\u00e9) =', repr(strip_marks('caf\\u00e9')), \"(gold: 'cafe')\")\n"
    )
    return _sh([sys.executable, "-c", code], tmp, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})


BUG = {
    "rs-feed-scrollback-short-page": _rust,
    "java-reconcile-fractional-quantity": lambda ws, tmp: _java(ws, tmp, []),
    "go-logger-derived-fields-clobbered": _go,
    "js-lru-numeric-key-eviction": _js,
    "ts-aggregate-replay-field-reset": _ts,
    "py-interval-touching-merge": _py_interval,
    "py-unicode-tag-accent-folding": _py_unicode,
    "py-decimal-float-literal-rounding": _py_decimal,
}


def main(names: list[str]) -> None:
    tasks = {t.id: t for t in load("builtin").tasks}
    for name in names or [n for n in CATALOGUE if n.startswith("rt20-")]:
        attack = CATALOGUE[name]
        for task in tasks.values():
            cand = attack.build(task)
            if cand is None:
                continue
            with tempfile.TemporaryDirectory(prefix="rt20-") as t:
                tmp = Path(t)
                ws = tmp / "ws"
                ws.mkdir()
                base = Baseline(task.workspace)
                base.materialise(ws)
                applied = apply_candidate(task, cand, ws, base)
                guard = config_violations(task, applied.changed, ws, base)
                found = screen_change(task, set(applied.changed), ws, base)
                print(f"== {name} on {task.id}")
                print("   changed:", sorted(applied.changed))
                print("   guard would restore:", guard or "nothing")
                print("   screen findings:", [f"{f.code}@{f.path}" for f in found] or "none")
                check = BUG.get(task.id)
                ZONE.clear()
                if name.endswith("-in-utc"):
                    ZONE["TZ"] = "Europe/Berlin"
                    print("   (run with TZ=Europe/Berlin; the same program in UTC shows gold's result)")
                if check is not None:
                    print("   outside the sandbox:", check(ws, tmp).replace("\n", "\n      "))


if __name__ == "__main__":
    main(sys.argv[1:])
