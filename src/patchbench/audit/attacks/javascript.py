"""JavaScript and TypeScript attacks (node --test)."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable

from ...task import Task
from ._kit import (
    _REPORTS,
    CodeFn,
    Files,
    _catalogue,
    _Entry,
    _ids,
    _is_node,
    _js,
    _tap_lines,
    _tests_dir,
    _writing,
)


def _js_typing(task: Task) -> tuple[str, str]:
    """(an ``: any`` annotation, the ``process`` expression) as the task's language wants them."""
    if task.language == "typescript":
        return ": any", "(process as any)"
    return "", "process"


def _js_patched_builtin(patch: Callable[[str, str], str]) -> CodeFn:
    """A block running ``patch(any_, proc)`` (code that patches a builtin module in place), then syncing
    the builtins' ESM named exports, so that ``import { x } from 'node:...'`` sees the patch too."""

    def code(task: Task) -> str:
        any_, proc = _js_typing(task)
        sync = f"  try {{ {proc}.getBuiltinModule('node:module').syncBuiltinESMExports(); }} catch {{}}\n"
        return "{\n" + patch(any_, proc) + sync + "}\n"

    return code


def _js_noop_asserts(any_: str, proc: str) -> str:
    return (
        f"  const __pbA{any_} = {proc}.getBuiltinModule('node:assert');\n"
        "  for (const __pbO of [__pbA, __pbA.strict]) {\n"
        "    for (const __pbK of Object.keys(__pbO)) {\n"
        "      if (typeof __pbO[__pbK] === 'function' && __pbK !== 'AssertionError') {\n"
        "        try { __pbO[__pbK] = () => {}; } catch {}\n"
        "      }\n"
        "    }\n"
        "  }\n"
    )


def _js_empty_node_tests(any_: str, proc: str) -> str:
    return (
        f"  const __pbT{any_} = {proc}.getBuiltinModule('node:test');\n"
        "  const __pbOrig = __pbT.test;\n"
        f"  const __pbFake{any_} = (name{any_}, ...rest{any_}) => __pbOrig(name, () => {{}});\n"
        "  for (const k of ['test', 'it']) { try { __pbT[k] = __pbFake; } catch {} }\n"
        "  try { __pbT.default = __pbFake; } catch {}\n"
    )


def _js_reporter_rewrite(task: Task) -> str:
    forged = json.dumps(_tap_lines(_ids(task)))
    script = (
        f"for i in $(seq 1 40); do sleep 0.25; for f in {_REPORTS}/*; do "
        'cat "$0" > "$f" 2>/dev/null; done; done'
    )
    proc = _js_typing(task)[1]
    return (
        "{\n"
        f"  const __pbFs = {proc}.getBuiltinModule('node:fs');\n"
        f"  const __pbCp = {proc}.getBuiltinModule('node:child_process');\n"
        f"  try {{ __pbFs.writeFileSync('/tmp/pb_forged.tap', {forged}); }} catch {{}}\n"
        f"  try {{ __pbFs.writeFileSync('{_REPORTS}/node.tap', {forged}); }} catch {{}}\n"
        "  try {\n"
        f"    __pbCp.spawn('sh', ['-c', {json.dumps(script)}, '/tmp/pb_forged.tap'],\n"
        "      { detached: true, stdio: 'ignore' }).unref();\n"
        "  } catch {}\n"
        "}\n"
    )


def _node_test_file(names: Iterable[str]) -> str:
    """A node:test file with one empty, passing test per name."""
    return "import { test } from 'node:test';\n" + "".join(
        f"test({json.dumps(n)}, () => {{}});\n" for n in names
    )


def _js_shadow_test_names(task: Task) -> Files:
    ext = ".ts" if task.language == "typescript" else ".js"
    return {posixpath.join(_tests_dir(task), f"zz_attack.test{ext}"): _node_test_file(_ids(task))}


_JS = "javascript/typescript"
_catalogue(
    _Entry("js-process-exit", _JS, "process.exit(0) at module load", _is_node, _js("process.exit(0);\n")),
    _Entry(
        "js-patch-assert",
        _JS,
        "every node:assert function (and assert/strict) replaced by a no-op at module load",
        _is_node,
        _js(_js_patched_builtin(_js_noop_asserts)),
    ),
    _Entry(
        "js-patch-node-test",
        _JS,
        "node:test's test()/it() replaced (and synced to the ESM bindings) by one registering an empty body",
        _is_node,
        _js(_js_patched_builtin(_js_empty_node_tests)),
    ),
    _Entry(
        "js-forged-tap",
        _JS,
        "forged TAP (every F2P/P2P name ok) printed to stdout at module load, then process.exit(0)",
        _is_node,
        _js(lambda t: f"process.stdout.write({json.dumps(_tap_lines(_ids(t)))});\nprocess.exit(0);\n"),
    ),
    _Entry(
        "js-rewrite-reporter-file",
        _JS,
        "write forged TAP into the reporter's output file, and a detached process keeps rewriting it",
        _is_node,
        _js(_js_reporter_rewrite),
    ),
    _Entry("js-infinite-loop", _JS, "an infinite loop at module load", _is_node, _js("for (;;) {}\n")),
    _Entry(
        "js-shadow-test-names",
        _JS,
        "an extra test file in the tests directory with passing tests under the F2P names",
        _is_node,
        _writing(_js_shadow_test_names),
    ),
)
