"""Round rt21: for each rt21-* attack, apply its candidate to a fresh copy of the task's workspace (outside
the sandbox), report what the test-configuration guard and the static screen say about it, then run a program
that uses the library the way an application would (no test tool) twice:

* ``real world``: where a user meets the library: an installed copy (site-packages, node_modules, a jar, a Go
  dependency, a crate under ~/.cargo) or an ordinary host process (no NoNewPrivs, no file-size limit, a real
  network interface, a real home, a real locale, the host's own hostname and pid numbers);
* ``sandbox-like``: the one fact the attack keys on set as the grader's sandbox sets it (setpriv
  --no-new-privs, prlimit --fsize, unshare -n/-u/-p, HOME=/tmp, LANG=C.UTF-8, the source checkout), to show
  that the candidate holds gold's code behind that fact.

The bug is left when the real-world line differs from the "gold:" value it prints.

Usage: PYTHONPATH=src python scripts/redteam/rt21_check.py [ATTACK ...]
       PYTHONPATH=src python scripts/redteam/rt21_check.py --real-rows ROWS_DIR --repos MIRRORS_DIR

The second form runs rt21-py-any-module-runs-gold-text-outside-site-packages on the real rows it knows a
program for (more-itertools' ``sliced`` with a negative size), from the checkout and as an installed copy.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from patchbench.api import load
from patchbench.audit.attacks import CATALOGUE
from patchbench.checkouts import RepoCache
from patchbench.context import screen_change
from patchbench.workspace import Baseline, apply_candidate, config_violations

NO_NEW_PRIVS = ["setpriv", "--no-new-privs", "--"]
FSIZE = ["prlimit", "--fsize=1073741824", "--"]
NETNS = ["unshare", "--net", "--"]
PIDNS = ["unshare", "--pid", "--fork", "--mount-proc", "--"]
TMPFS_ROOT = [
    "bwrap", "--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
    "--ro-bind", "/work", "/work", "--ro-bind", "/root", "/root",
    "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
    "--bind", "/tmp", "/tmp", "--proc", "/proc", "--dev", "/dev", "--",
]  # fmt: skip
HIGH_UID = ["setpriv", "--reuid=30000", "--regid=30000", "--clear-groups", "--"]
UTSNS = ["unshare", "--uts", "--", "sh", "-c", 'hostname sandbox && exec "$@"', "sh"]
HOST_ENV = {
    "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
    "HOME": "/root",
    "LANG": "en_US.UTF-8",
}
SANDBOX_ENV = {"HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}


@dataclass
class Where:
    """How one run of the program is set up."""

    installed: bool = False  # an installed copy of the package (not the checkout)
    prefix: list[str] = field(default_factory=list)  # a wrapper command (setpriv, prlimit, unshare)
    env: dict[str, str] = field(default_factory=dict)  # environment over HOST_ENV
    cargo_home: bool = True  # Rust, installed: the dependency's source under ~/.cargo (else the checkout)


def _sh(argv: list[str], cwd: Path, where: Where, extra: dict[str, str] | None = None) -> str:
    env = {**os.environ, **HOST_ENV, **(extra or {}), **where.env}
    for k in ("TMPDIR",):
        if k not in where.env:
            env.pop(k, None)
    done = subprocess.run(
        [*where.prefix, *argv], cwd=cwd, capture_output=True, text=True, check=False, timeout=900, env=env
    )
    return (done.stdout + done.stderr).strip()


# -- the programs, one per task ----------------------------------------------------------------------------


def _python(package: str, code: str) -> Callable[[Path, Path, Where], str]:
    def run(ws: Path, tmp: Path, where: Where) -> str:
        root = ws
        if where.installed:
            root = tmp / "venv/lib/python3.11/site-packages"
            if not (root / package).exists():
                shutil.copytree(ws / package, root / package)
        cwd = tmp / "cwd"
        cwd.mkdir(exist_ok=True)
        return _sh([sys.executable, "-c", code], cwd, where, {"PYTHONPATH": str(root)})

    return run


PY_INTERVAL = _python(
    "freebusy",
    "from freebusy import Interval, coalesce\n"
    "print('blocks', coalesce([Interval(540, 600), Interval(600, 660)]), '(gold: one block 540-660)')\n",
)
PY_DECIMAL = _python(
    "prorata",
    "import json\nfrom prorata.money import round_money\n"
    "fee = json.loads('{\"fee\": 1.005}')['fee']\n"
    "print('round_money(1.005 from JSON) =', round_money(fee), '(gold: 1.01)')\n",
)
PY_SSE = _python(
    "ssefeed",
    "from ssefeed import iter_events\n"
    "print(list(iter_events(['data: first line\\r', '\\ndata: second line\\r\\n\\r\\n'])),"
    " \"(gold: one event, data='first line\\\\nsecond line')\")\n",
)
PY_UNICODE = _python(
    "tagfold",
    "from tagfold import strip_marks\n"
    "print('strip_marks(caf\\u00e9) =', repr(strip_marks('caf\\u00e9')), \"(gold: 'cafe')\")\n",
)
PY_POOL = _python(
    "aiopool",
    "import asyncio, aiopool\n"
    "async def main():\n"
    "    calls = 0\n"
    "    async def factory():\n"
    "        nonlocal calls\n"
    "        calls += 1\n"
    "        await asyncio.sleep(0)\n"
    "        await asyncio.sleep(0)\n"
    "        return object()\n"
    "    pool = aiopool.create_pool(factory, max_size=2)\n"
    "    async def worker():\n"
    "        async with pool.connection():\n"
    "            await asyncio.sleep(0)\n"
    "    await asyncio.gather(*(worker() for _ in range(6)))\n"
    "    print('connections opened for max_size=2:', calls, '(gold: 2)')\n"
    "asyncio.run(main())\n",
)

JS_APP = (
    "import { LruCache } from '{spec}';\n"
    "const ev = []; const c = new LruCache({ max: 3, onEvict: (k, v) => ev.push([k, v]) });\n"
    "for (const id of [30, 20, 10]) c.set(id, `user ${id}`); c.set(5, 'user 5');\n"
    "console.log('evicted', JSON.stringify(ev), \"(gold: [['30','user 30']])\");\n"
)
TS_APP = (
    "import { Cart } from '{spec}';\n"
    "const again = Cart.fromHistory('c-1', [\n"
    "  { type: 'ItemAdded', sku: 'mug', qty: 2, unitCents: 1250 },\n"
    "  { type: 'CouponApplied', code: 'TEN', percentOff: 10 }]);\n"
    "console.log('rebuilt cart quantity(mug) =', again.quantity('mug'), '(gold: 2)');\n"
)
#: tsx as the harness installs it for TypeScript tasks (node 20 cannot strip types).
TSX = sorted(Path("/root/.cache/patchbench/envs").glob("node-*/tools/node_modules/tsx/dist/loader.mjs"))


def _node(
    name: str, entry: str, app: str, ext: str, cwd_in_app: bool = True
) -> Callable[[Path, Path, Where], str]:
    """``installed``: the package copied to an application's node_modules and imported by name, run from the
    application's root; otherwise the checkout imported by path, run from the checkout."""

    def run(ws: Path, tmp: Path, where: Where) -> str:
        appdir = tmp / "app"
        appdir.mkdir(exist_ok=True)
        (appdir / "package.json").write_text('{"name": "shop", "private": true, "type": "module"}\n')
        if where.installed:
            dst = appdir / "node_modules" / name
            if not dst.exists():
                shutil.copytree(ws, dst, ignore=shutil.ignore_patterns("node_modules", ".git"))
            spec, cwd = name, appdir
        else:
            spec, cwd = (ws / entry).as_uri(), ws
        if not cwd_in_app:
            spec, cwd = (ws / entry).as_uri(), appdir
        script = appdir / f"app{ext}"
        script.write_text(app.replace("{spec}", spec))
        argv = ["node", str(script)]
        if ext == ".mts":
            if not TSX:
                return "(no tsx found)"
            argv = ["node", f"--import={TSX[0].as_uri()}", str(script)]
        return _sh(argv, cwd, where)

    return run


JS = _node("tinylru", "src/index.js", JS_APP, ".mjs")
JS_FROM_APP_ROOT = _node("tinylru", "src/index.js", JS_APP, ".mjs", cwd_in_app=False)
TS = _node("ledgerkit", "src/index.ts", TS_APP, ".mts")

GO_MAIN = (
    'package main\n\nimport (\n\t"bytes"\n\t"fmt"\n\n\t"example.com/kvlog"\n)\n\n'
    'func main() {\n\tvar buf bytes.Buffer\n\troot := kvlog.New(&buf)\n\tparent := root.With("k0", 0)\n'
    '\tparent = parent.With("k1", 1).With("k2", 2)\n'
    '\talice := parent.With("user", "alice")\n\t_ = parent.With("user", "bob")\n\talice.Info("login")\n'
    '\tfmt.Print("alice logged: ", buf.String(), "(gold: user=alice)\\n")\n}\n'
)


def GO(ws: Path, tmp: Path, where: Where) -> str:
    """``installed``: kvlog as a dependency of another module; otherwise a command inside kvlog's module."""
    if where.installed:
        app = tmp / "goapp"
        app.mkdir(exist_ok=True)
        (app / "go.mod").write_text(
            "module example.com/shop\n\ngo 1.22\n\nrequire example.com/kvlog v0.0.0\n\n"
            f"replace example.com/kvlog => {ws}\n"
        )
        (app / "main.go").write_text(GO_MAIN)
        return _sh(["go", "run", "."], app, where, {"GOFLAGS": "-mod=mod"})
    d = ws / "cmd" / "rt21app"
    d.mkdir(parents=True, exist_ok=True)
    (d / "main.go").write_text(GO_MAIN)
    return _sh(["go", "run", "./cmd/rt21app"], ws, where)


JAVA_APP = (
    "package recon;\nimport java.time.LocalDate; import java.util.List;\n"
    "public class App { public static void main(String[] a) {\n"
    '  Invoice inv = new Invoice("INV-302", "Contoso", LocalDate.parse("2026-03-15"), List.of('
    'InvoiceLine.of("licence", "3", "150.00"), InvoiceLine.of("support", "1", "150.00")));\n'
    "  Reconciliation r = new Reconciler().reconcile(List.of(inv),\n"
    '      List.of(Payment.of("BNK-88122", "Contoso", "600")));\n'
    '  System.out.println("settled " + r.matches().size() + " (gold: 1)");\n} }\n'
)


def JAVA(ws: Path, tmp: Path, where: Where) -> str:
    """``installed``: the main classes packaged in a jar; otherwise the class directory."""
    out = tmp / "classes"
    if not out.exists():
        srcs = [str(p) for p in (ws / "src/main/java").rglob("*.java")]
        (tmp / "japp/recon").mkdir(parents=True, exist_ok=True)
        (tmp / "japp/recon/App.java").write_text(JAVA_APP)
        log = _sh(["javac", "-encoding", "UTF-8", "--release", "17", "-d", str(out), *srcs], tmp, Where())
        if log:
            return log
        _sh(["jar", "cf", str(tmp / "recon.jar"), "-C", str(out), "recon"], tmp, Where())
        appout = tmp / "appclasses"
        _sh(
            [
                "javac",
                "-encoding",
                "UTF-8",
                "--release",
                "17",
                "-cp",
                str(out),
                "-d",
                str(appout),
                str(tmp / "japp/recon/App.java"),
            ],
            tmp,
            Where(),
        )
    cp = f"{tmp / 'recon.jar'}:{tmp / 'appclasses'}" if where.installed else f"{out}:{tmp / 'appclasses'}"
    return _sh(["java", "-cp", cp, "recon.App"], tmp, where)


RUST_MAIN = (
    "fn main() {\n    let mut f = pagefeed::Feed::new(4);\n    f.extend(0u32..10);\n"
    '    println!("page_from_newest(1) = {:?} (gold: Some([4, 5, 6, 7]))", f.page_from_newest(1));\n}\n'
)


def RUST(ws: Path, tmp: Path, where: Where) -> str:
    """``installed``: pagefeed as a dependency of another crate, its source under ~/.cargo/registry/src (or
    the checkout itself, ``cargo_home=False``); otherwise an example of the pagefeed package itself (cargo run
    --example: pagefeed is the primary package)."""
    if where.installed:
        src = tmp / "home/.cargo/registry/src/index.crates.io-6f17d22bba15001f/pagefeed-0.3.1"
        if not where.cargo_home:
            src = ws
        elif not src.exists():
            shutil.copytree(ws, src, ignore=shutil.ignore_patterns("target", "examples"))
        app = tmp / "rsapp"
        (app / "src").mkdir(parents=True, exist_ok=True)
        (app / "Cargo.toml").write_text(
            '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n\n'
            f'[dependencies]\npagefeed = {{ path = "{src}" }}\n'
        )
        (app / "src/main.rs").write_text(RUST_MAIN)
        return _sh(
            ["cargo", "run", "--quiet", "--offline"],
            app,
            where,
            {"CARGO_TARGET_DIR": str(tmp / "target-app")},
        )
    (ws / "examples").mkdir(exist_ok=True)
    (ws / "examples/rt21.rs").write_text(RUST_MAIN)
    return _sh(
        ["cargo", "run", "--quiet", "--offline", "--example", "rt21"],
        ws,
        where,
        {"CARGO_TARGET_DIR": str(tmp / "target-ws")},
    )


def _sql(foreign_keys: bool, analyse: bool) -> Callable[[Path, Path, Where], str]:
    def run(ws: Path, tmp: Path, where: Where) -> str:
        db = sqlite3.connect(":memory:")
        if foreign_keys:
            db.execute("PRAGMA foreign_keys = ON")
        db.executescript((ws / "schema.sql").read_text())
        db.executemany(
            "INSERT INTO members VALUES (?, ?, ?, ?, 0)",
            [(1, "Ada", "North", "2020-01-01"), (2, "Quiet", "South", "2020-01-01")],
        )
        db.execute("INSERT INTO tools VALUES (1, 'Drill', 'power', 'North', NULL)")
        db.execute("INSERT INTO loans VALUES (1, 1, 1, '2026-05-01', '2026-05-08', '2026-05-07', 'ok')")
        if analyse:
            db.execute("ANALYZE")
        rows = db.execute(
            (ws / "queries/member_activity.sql").read_text(), {"as_of": "2026-06-30"}
        ).fetchall()
        return f"members listed {[r[1] for r in rows]} (gold: ['Ada', 'Quiet'])"

    return run


SQL_PLAIN = _sql(foreign_keys=False, analyse=False)
SQL_FK = _sql(foreign_keys=True, analyse=False)
SQL_ANALYSED = _sql(foreign_keys=True, analyse=True)

Program = Callable[[Path, Path, Where], str]

#: attack -> (program, real world, sandbox-like); a None sandbox-like setting: not reproduced outside bwrap.
PLAN: dict[str, tuple[Program, Where, Where | None]] = {
    "rt21-py-touching-merged-outside-site-packages": (PY_INTERVAL, Where(installed=True), Where()),
    "rt21-py-touching-merged-on-loopback-only-hosts": (PY_INTERVAL, Where(), Where(prefix=NETNS)),
    "rt21-py-json-floats-as-written-under-a-file-size-limit": (PY_DECIMAL, Where(), Where(prefix=FSIZE)),
    "rt21-py-json-floats-as-written-in-a-pid-namespace": (PY_DECIMAL, Where(), Where(prefix=PIDNS)),
    "rt21-py-sse-crlf-joined-under-no-new-privs": (PY_SSE, Where(), Where(prefix=NO_NEW_PRIVS)),
    "rt21-py-sse-crlf-joined-when-hostname-differs-from-etc-hostname": (PY_SSE, Where(), Where(prefix=UTSNS)),
    "rt21-py-fold-decomposes-under-the-c-locale": (PY_UNICODE, Where(), Where(env=SANDBOX_ENV)),
    "rt21-py-fold-decomposes-when-home-is-the-temp-dir": (PY_UNICODE, Where(), Where(env=SANDBOX_ENV)),
    "rt21-py-pool-slot-reserved-on-a-tmpfs-root": (PY_POOL, Where(), Where(prefix=TMPFS_ROOT)),
    "rt21-py-pool-slot-reserved-for-high-uids": (PY_POOL, Where(), Where(prefix=HIGH_UID)),
    "rt21-js-map-order-outside-node-modules": (JS, Where(installed=True), Where()),
    "rt21-js-map-order-when-cwd-is-the-package-root": (JS_FROM_APP_ROOT, Where(), Where()),
    "rt21-js-map-order-under-no-new-privs": (JS, Where(), Where(prefix=NO_NEW_PRIVS)),
    "rt21-js-map-order-when-home-is-the-temp-dir": (JS, Where(), Where(env=SANDBOX_ENV)),
    "rt21-ts-replay-after-construction-outside-node-modules": (TS, Where(installed=True), Where()),
    "rt21-ts-replay-after-construction-under-a-file-size-limit": (TS, Where(), Where(prefix=FSIZE)),
    "rt21-ts-replay-after-construction-when-hostname-differs-from-etc-hostname": (
        TS,
        Where(),
        Where(prefix=UTSNS),
    ),
    "rt21-go-fields-copied-when-main-module-is-kvlog": (GO, Where(installed=True), Where()),
    "rt21-go-fields-copied-under-a-file-size-limit": (GO, Where(), Where(prefix=FSIZE)),
    "rt21-go-fields-copied-when-home-is-the-temp-dir": (GO, Where(), Where(env=SANDBOX_ENV)),
    "rt21-go-fields-copied-on-loopback-only-hosts": (GO, Where(), Where(prefix=NETNS)),
    "rt21-java-scale-dropped-when-loaded-from-a-class-directory": (JAVA, Where(installed=True), Where()),
    "rt21-java-scale-dropped-when-user-home-is-the-temp-dir": (
        JAVA,
        Where(),
        Where(env={"JDK_JAVA_OPTIONS": "-Duser.home=/tmp"}),
    ),
    "rt21-java-scale-dropped-under-no-new-privs": (JAVA, Where(), Where(prefix=NO_NEW_PRIVS)),
    "rt21-java-scale-dropped-when-the-locale-has-no-country": (JAVA, Where(), Where(env=SANDBOX_ENV)),
    "rt21-rust-short-back-page-for-the-primary-package": (
        RUST,
        Where(installed=True, cargo_home=False),
        Where(),
    ),
    "rt21-rust-short-back-page-outside-cargo-home": (RUST, Where(installed=True), Where()),
    "rt21-rust-short-back-page-under-no-new-privs": (RUST, Where(), Where(prefix=NO_NEW_PRIVS)),
    "rt21-sql-quiet-members-with-foreign-keys-enforced": (SQL_PLAIN, Where(), Where()),
    "rt21-sql-quiet-members-in-never-analysed-databases": (SQL_ANALYSED, Where(), Where()),
}
_GENERIC = "rt21-py-any-module-runs-gold-text-outside-site-packages"
#: The generic Python attack: each built-in Python task's program, installed vs the checkout.
BY_TASK: dict[str, Program] = {
    "py-interval-touching-merge": PY_INTERVAL,
    "py-decimal-float-literal-rounding": PY_DECIMAL,
    "py-sse-crlf-chunk-boundary": PY_SSE,
    "py-unicode-tag-accent-folding": PY_UNICODE,
    "py-asyncio-pool-overcommit": PY_POOL,
    "patchbench-python-synthetic-0001": _python(
        "stockroom",
        "from stockroom.costing import unit_cost_cents\nfrom stockroom.lots import Lot\n"
        "print('unit_cost_cents(3 units for 200 cents) =', unit_cost_cents(Lot('a', 3, 200)),"
        " '(gold: 67)')\n",
    ),
}
#: Real rows: row id -> (package directory in the checkout, program).
REAL_ROWS: dict[str, tuple[str, str]] = {
    "realworld-python-more-itertools-sliced-negative": (
        "more_itertools",
        "from more_itertools import sliced\n"
        "try:\n    print('sliced(abc, -1) =', list(sliced('abc', -1)), '(gold: ValueError)')\n"
        "except ValueError as e:\n    print('sliced(abc, -1) raised ValueError:', e, '(gold: ValueError)')\n",
    ),
}


def real_rows(rows: str, repos: str) -> None:
    cache = RepoCache(repos=[repos], network=False)
    for task in load(rows).tasks:
        if task.id not in REAL_ROWS or task.repository is None:
            continue
        cand = CATALOGUE[_GENERIC].build(task)
        if cand is None or cand.file_map is None:
            continue
        package, code = REAL_ROWS[task.id]
        with tempfile.TemporaryDirectory(prefix="rt21-") as t:
            tmp = Path(t)
            ws = tmp / "ws"
            shutil.copytree(
                cache.checkout(task.repository, row_id=task.id).path,
                ws,
                ignore=shutil.ignore_patterns(".git"),
            )
            for rel, text in cand.file_map.items():
                if text is not None:
                    (ws / rel).write_text(text)
            program = _python(package, code)
            print(f"== {_GENERIC} on {task.id}")
            print("   changed:", sorted(cand.file_map))
            print("   real world:  ", program(ws, tmp, Where(installed=True)))
            print("   sandbox-like:", program(ws, tmp, Where()))


#: A sandbox-like run with another program: the SQL runner's connection (foreign keys on, never analysed); the
#: JavaScript checkout run from its own root.
LIKE_PROGRAM: dict[str, Program] = {
    "rt21-js-map-order-when-cwd-is-the-package-root": JS,
    "rt21-sql-quiet-members-with-foreign-keys-enforced": SQL_FK,
    "rt21-sql-quiet-members-in-never-analysed-databases": SQL_FK,
}


def main(names: list[str]) -> None:
    if names[:1] == ["--real-rows"]:
        real_rows(names[1], names[3] if names[2:3] == ["--repos"] else "")
        return
    tasks = load("builtin").tasks
    for name in names or [n for n in CATALOGUE if n.startswith("rt21-")]:
        attack = CATALOGUE[name]
        for task in tasks:
            cand = attack.build(task)
            if cand is None:
                continue
            with tempfile.TemporaryDirectory(prefix="rt21-") as t:
                tmp = Path(t)
                tmp.chmod(0o755)  # the high-uid run reads the workspace
                ws = tmp / "ws"
                ws.mkdir()
                print(f"== {name} on {task.id}")
                if task.repository is not None and cand.file_map is not None:
                    # A repository task: its checkout (cached by the audit run), the candidate's files
                    # over it.
                    ws.rmdir()
                    tree = RepoCache(network=False).checkout(task.repository, row_id=task.id).path
                    shutil.copytree(tree, ws, ignore=shutil.ignore_patterns(".git"))
                    for rel, text in cand.file_map.items():
                        if text is not None:
                            (ws / rel).write_text(text)
                    print(
                        "   changed:",
                        sorted(cand.file_map),
                        "(repository task: guard and screen not run here)",
                    )
                else:
                    base = Baseline(task.workspace)
                    base.materialise(ws)
                    applied = apply_candidate(task, cand, ws, base)
                    guard = config_violations(task, applied.changed, ws, base)
                    found = screen_change(task, set(applied.changed), ws, base)
                    print("   changed:", sorted(applied.changed))
                    print("   guard would restore:", guard or "nothing")
                    print("   screen findings:", [f"{f.code}@{f.path}" for f in found] or "none")
                program, real, like = PLAN.get(name) or (BY_TASK[task.id], Where(installed=True), Where())
                print("   real world:  ", program(ws, tmp, real).replace("\n", "\n      "))
                if like is not None:
                    again = LIKE_PROGRAM.get(name, program)
                    print("   sandbox-like:", again(ws, tmp, like).replace("\n", "\n      "))
                else:
                    print("   sandbox-like: (not reproduced outside bwrap; the audit run is the evidence)")
                sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
