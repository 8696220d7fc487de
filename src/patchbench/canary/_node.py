"""The node --test canary and its integrity module (loaded with --import)."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Collection, Sequence

from ..sandboxed import script
from ..task import FileEntry, Task
from ._base import (
    _MESSAGE,
    Canary,
    _pick,
    _text,
)
from ._decoys import MAX_DECOYS, Decoys, merge, semantic
from ._decoys_native import plan_native_decoys
from ._inputs_native import INPUT_PLANNER


def _js_body(name: str, assert_ref: str, test_ref: str) -> str:
    """A node:test test that fails only when node:assert works (a patched assert lets it pass)."""
    # Every check carries a message: without one, assert.ok() reads and parses the caller's source file.
    checks = (
        "() => a(false, 'x')",
        "() => a.ok(false, 'x')",
        "() => a.equal(1, 2, 'x')",
        "() => a.strictEqual(1, 2, 'x')",
        "() => a.deepEqual({ x: 1 }, { x: 2 }, 'x')",
        "() => a.deepStrictEqual({ x: 1 }, { x: 2 }, 'x')",
        "() => a.notStrictEqual(1, 1, 'x')",
        "() => a.throws(() => {}, Error, 'x')",
        "() => a.match('a', /b/, 'x')",
        "() => a.fail('x')",
        "() => a.strict.equal(1, 2, 'x')",
        "() => a.strict.deepEqual({ x: 1 }, { x: 2 }, 'x')",
    )
    return (
        f"{test_ref}({json.dumps(name)}, () => {{\n"
        # the integrity module (--import) remembers replaced result machinery: then passing says so
        "  const integrity = globalThis[Symbol.for('patchbench.integrity')];\n"
        "  if (typeof integrity === 'function' && integrity().length) return;\n"
        f"  const a = {assert_ref};\n"
        f"  const checks = [{', '.join(checks)}];\n"
        "  let raised = 0;\n"
        "  for (const check of checks) { try { check(); } catch { raised += 1; } }\n"
        "  if (raised !== checks.length) return;\n"
        # no stack trace: a failure's stack is symbolicated through source maps (costly under tsx)
        "  const limit = Error.stackTraceLimit;\n"
        "  Error.stackTraceLimit = 0;\n"
        f"  const failure = new Error({json.dumps(_MESSAGE)});\n"
        "  Error.stackTraceLimit = limit;\n"
        "  throw failure;\n"
        "});\n"
    )


#: node: loaded by ``--import`` before any code under test; watches what node:test's results pass through.
NODE_INTEGRITY = script("canary_node_integrity.mjs")


NODE_INTEGRITY_FILE = "pb_node_integrity.mjs"


def _node_env(
    tests: Sequence[FileEntry], harness: str, ws: str
) -> tuple[dict[str, str | bytes], dict[str, str]]:
    """The harness files and variables of node's integrity module (none without a harness directory)."""
    if not harness or not ws:
        return {}, {}
    env = {
        "NODE_OPTIONS": f"--import=file://{posixpath.join(harness, NODE_INTEGRITY_FILE)}",
        "PATCHBENCH_WORKSPACE": ws,
        "PATCHBENCH_TESTS": json.dumps([posixpath.join(ws, f.path) for f in tests]),
    }
    return {NODE_INTEGRITY_FILE: NODE_INTEGRITY}, env


def _node_decoys(
    task: Task | None,
    node_tests: Sequence[FileEntry],
    commands: str,
    controls: Collection[str] = (),
    probe: bool = False,
) -> Decoys:
    """Decoys in the node:test files (JavaScript, and TypeScript unless the command type-checks: a cut
    test can leave a variable unused, which ``noUnusedLocals`` rejects)."""
    if task is None:
        return Decoys({}, (), 0, 0)
    js = plan_native_decoys(
        "javascript", task, node_tests, controls=controls, probe=probe, inputs=INPUT_PLANNER
    )
    ts = (
        plan_native_decoys(
            "typescript", task, node_tests, controls=controls, probe=probe, inputs=INPUT_PLANNER
        )
        if not re.search(r"\b(tsc|vue-tsc)\b", commands)
        else Decoys({}, (), 0, 0)
    )
    return merge(js, ts, max(0, MAX_DECOYS - len(js.names)))


def _node(
    tests: Sequence[FileEntry],
    nonce: str,
    commands: str,
    harness: str = "",
    ws: str = "",
    task: Task | None = None,
    controls: Collection[str] = (),
    probe: bool = False,
) -> Canary | None:
    exts = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
    uses_node_test = re.compile(r"""(['"])(node:)?test\1""")
    node_tests = [f for f in tests if uses_node_test.search(_text(f) or "")]
    host = _pick(node_tests, exts, commands)
    if host is None:
        return None
    decoys = _node_decoys(task, node_tests, commands, controls, probe)
    text = (decoys.files.get(host.path) or _text(host) or "").rstrip("\n")
    name = f"pb_canary_{nonce}"
    hfiles, henv = _node_env(tests, harness, ws)
    if host.path.endswith((".ts", ".mts", ".cts")):
        # tsx compiles static imports for either module kind, and they load faster than import() there
        a, t = f"__pbCanaryAssert{nonce}", f"__pbCanaryTest{nonce}"
        code = f"import {a} from 'node:assert';\nimport {{ test as {t} }} from 'node:test';\n"
        return Canary(
            token=name,
            files={**decoys.files, host.path: f"{text}\n\n{code}{_js_body(name, a, t)}"},
            harness_files=hfiles,
            env=henv,
            **semantic(decoys),
        )
    # import() is valid in CommonJS and ES modules alike: no guessing the module kind of a .js file.
    code = (
        "import('node:test').then(({ test: t }) =>\n"
        "  import('node:assert').then(({ default: assertion }) => {\n"
        + _js_body(name, "assertion", "t")
        + "}));\n"
    )
    return Canary(
        token=name,
        files={**decoys.files, host.path: f"{text}\n\n{code}"},
        harness_files=hfiles,
        env=henv,
        **semantic(decoys),
    )


#: The checks of ``expect`` (Vitest's and Jest's alike) and of Vitest's chai ``assert``.
_EXPECT_CHECKS = (
    "() => E(1).toBe(2)",
    "() => E({ x: 1 }).toEqual({ x: 2 })",
    "() => E({ x: 1 }).toStrictEqual({ x: 2 })",
    "() => E(() => {}).toThrow()",
    "() => E('a').toMatch(/b/)",
    "() => E(false).toBeTruthy()",
)
_CHAI_CHECKS = (
    "() => A.strictEqual(1, 2)",
    "() => A.deepEqual({ x: 1 }, { x: 2 })",
    "() => A.ok(false)",
    "() => A.fail('x')",
    "() => A.throws(() => {})",
)
#: Per framework, the canary's checks: each must throw where the framework's assertions work (Vitest
#: exports its API; Jest and Mocha put theirs in globals, which a configuration may turn off: then no
#: canary is planted and the calibration finds it missing; Mocha has no assertions of its own).
JS_FRAMEWORKS = ("vitest", "jest", "mocha")
_FRAMEWORK_CHECKS: dict[str, tuple[str, ...]] = {
    "vitest": (*_EXPECT_CHECKS, *_CHAI_CHECKS),
    "jest": _EXPECT_CHECKS,
    "mocha": (),
}


def _framework_body(runner: str, name: str, nonce: str) -> str:
    """A test that fails only when the framework's own assertions work (see :func:`_js_body`)."""
    checks = _FRAMEWORK_CHECKS[runner]
    t, e, a = f"__pbCanaryTest{nonce}", f"__pbCanaryExpect{nonce}", f"__pbCanaryAssert{nonce}"
    if runner == "vitest":
        head = f"import {{ test as {t}, expect as {e}, assert as {a} }} from 'vitest';\n"
    elif runner == "jest":
        head = (
            f"const {t} = typeof test === 'function' ? test : undefined;\n"
            f"const {e} = typeof expect === 'function' ? expect : undefined;\n"
        )
    else:
        head = f"const {t} = typeof it === 'function' ? it : typeof test === 'function' ? test : undefined;\n"
    run = f"  const E = {e}, A = {a};\n" if runner == "vitest" else f"  const E = {e};\n" if checks else ""
    return (
        head
        + f"if ({t}) {t}({json.dumps(name)}, function () {{\n"
        + run
        + f"  const checks = [{', '.join(checks)}];\n"
        + "  let raised = 0;\n"
        + "  for (const check of checks) { try { check(); } catch { raised += 1; } }\n"
        + "  if (raised !== checks.length) return;\n"
        + f"  throw new Error({json.dumps(_MESSAGE)});\n"
        + "});\n"
    )


#: How Vitest, Jest and Mocha projects name their test files (each tool's default pattern).
_FRAMEWORK_TEST_FILE = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$|(^|/)(__tests__|test)/")


def _framework(
    runner: str,
    tests: Sequence[FileEntry],
    nonce: str,
    commands: str,
    task: Task | None = None,
    controls: Collection[str] = (),
    probe: bool = False,
) -> Canary | None:
    """Vitest, Jest and Mocha: a canary test at the end of a hidden test file the command runs (top level:
    it runs after the file's tests), with decoys and control copies where the node:test ones go (top-level
    tests at the end of the file, a test inside ``describe`` at the end of its block)."""
    exts = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")
    js_tests = [f for f in tests if f.path.endswith(exts)]
    # a test file by its name where there is one: a helper module may never be loaded
    named = [f for f in js_tests if _FRAMEWORK_TEST_FILE.search(f.path)]
    host = _pick(named or js_tests, exts, commands)
    if host is None:
        return None
    decoys = _node_decoys(task, js_tests, commands, controls, probe)
    text = (decoys.files.get(host.path) or _text(host) or "").rstrip("\n")
    name = f"pb_canary_{nonce}"
    return Canary(
        token=name,
        files={**decoys.files, host.path: f"{text}\n\n{_framework_body(runner, name, nonce)}"},
        **semantic(decoys),
    )
