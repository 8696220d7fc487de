"""Red-team attacks on JavaScript/TypeScript tasks (``node --test``), from the threat model of issue 12.

Code appended to every module of the task runs when the tests import it, inside the test file's child
process. Each attack passes only the listed tests and leaves every other one (a planted canary among them)
to fail as before:

* the child's result channel (node's v8-serialized events on stdout) rewritten in-process;
* ``AsyncResource.prototype.runInAsyncScope`` patched so that listed bodies swallow their failures, with the
  original back in place while any other test body runs;
* the ``assert`` functions neutralised except for a failure whose message looks like a canary's.
"""

from __future__ import annotations

import json

from ...task import Task
from ._kit import _catalogue, _Entry, _ids, _is_node, _js


def _listed_js(task: Task) -> str:
    return json.dumps(_ids(task))


def _v8_stream(task: Task) -> str:
    """The child's ``process.stdout.write`` parses node's v8 framing (header, 4-byte length, serialized
    event) and turns a listed test's ``test:fail`` (and failed ``test:complete``) into a pass."""
    return (
        "\n;(() => {\n"
        "  if (globalThis.__pbRtV8 || !process.env.NODE_TEST_CONTEXT) return;\n"
        "  globalThis.__pbRtV8 = true;\n"
        "  const v8 = process.getBuiltinModule('node:v8');\n"
        f"  const listed = new Set({_listed_js(task)});\n"
        "  const s = new v8.Serializer(); s.writeHeader(); const H = s.releaseBuffer();\n"
        "  const out = process.stdout; const write = out.write.bind(out);\n"
        "  let buf = Buffer.alloc(0);\n"
        "  const rewrite = (msg) => {\n"
        "    let item;\n"
        "    try { item = v8.deserialize(msg.subarray(H.length + 4)); } catch { return msg; }\n"
        "    const d = item && item.data;\n"
        "    if (!d || !listed.has(d.name)) return msg;\n"
        "    if (item.type === 'test:fail') item.type = 'test:pass';\n"
        "    else if (!(item.type === 'test:complete' && d.details && d.details.passed === false)) {\n"
        "      return msg;\n"
        "    }\n"
        "    if (d.details) { d.details.passed = true; delete d.details.error; }\n"
        "    const body = v8.serialize(item); const len = Buffer.alloc(4); len.writeUInt32BE(body.length);\n"
        "    return Buffer.concat([H, len, body]);\n"
        "  };\n"
        "  out.write = function (chunk, encoding, cb) {\n"
        "    if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }\n"
        "    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding);\n"
        "    buf = Buffer.concat([buf, data]);\n"
        "    const parts = [];\n"
        "    while (buf.length) {\n"
        "      const at = buf.indexOf(H);\n"
        "      if (at !== 0) { const cut = at === -1 ? buf.length : at; parts.push(buf.subarray(0, cut));"
        " buf = buf.subarray(cut); continue; }\n"
        "      if (buf.length < H.length + 4) break;\n"
        "      const total = H.length + 4 + buf.readUInt32BE(H.length);\n"
        "      if (buf.length < total) break;\n"
        "      parts.push(rewrite(buf.subarray(0, total))); buf = buf.subarray(total);\n"
        "    }\n"
        "    const joined = Buffer.concat(parts);\n"
        "    if (joined.length) return write(joined, cb);\n"
        "    if (cb) process.nextTick(cb);\n"
        "    return true;\n"
        "  };\n"
        "})();\n"
    )


def _scope_swallow(task: Task) -> str:
    """``AsyncResource.prototype.runInAsyncScope`` (through which node:test calls every test body)
    patched: a listed test's body runs wrapped so that its failure is swallowed; while any other test's
    body runs (a canary's), the original method is back in place."""
    return (
        "\n;(() => {\n"
        "  if (globalThis.__pbRtScope) return;\n"
        "  globalThis.__pbRtScope = true;\n"
        "  const { AsyncResource } = process.getBuiltinModule('node:async_hooks');\n"
        f"  const listed = new Set({_listed_js(task)});\n"
        "  const proto = AsyncResource.prototype;\n"
        "  const orig = proto.runInAsyncScope;\n"
        "  const patched = function (fn, thisArg, ...args) {\n"
        "    const body = this && typeof this.name === 'string' && fn === this.fn;\n"
        "    if (!body) return orig.call(this, fn, thisArg, ...args);\n"
        "    if (!listed.has(this.name)) {\n"
        "      proto.runInAsyncScope = orig;\n"
        "      try { return orig.call(this, fn, thisArg, ...args); }\n"
        "      finally { proto.runInAsyncScope = patched; }\n"
        "    }\n"
        "    const safe = function (...a) {\n"
        "      try {\n"
        "        const r = fn.apply(this, a);\n"
        "        return r && typeof r.then === 'function' ? r.then(() => undefined, () => undefined) : r;\n"
        "      } catch { return undefined; }\n"
        "    };\n"
        "    return orig.call(this, safe, thisArg, ...args);\n"
        "  };\n"
        "  proto.runInAsyncScope = patched;\n"
        "})();\n"
    )


def _assert_spare_canary(task: Task) -> str:
    """Every function of ``node:assert`` and ``node:assert/strict`` returns quietly unless one of its
    arguments mentions a canary (then the original runs): a canary that asserts keeps failing."""
    return (
        "\n;(() => {\n"
        "  if (globalThis.__pbRtAssert) return;\n"
        "  globalThis.__pbRtAssert = true;\n"
        "  const mod = process.getBuiltinModule('node:module');\n"
        "  const looks = (args) => args.some((a) => /canary/i.test(String(a && a.message || a)));\n"
        "  for (const name of ['node:assert', 'node:assert/strict']) {\n"
        "    const a = process.getBuiltinModule(name);\n"
        "    for (const obj of [a, a.strict]) {\n"
        "      if (!obj) continue;\n"
        "      for (const k of Object.keys(obj)) {\n"
        "        const f = obj[k];\n"
        "        if (typeof f !== 'function' || k === 'AssertionError' || k === 'strict') continue;\n"
        "        obj[k] = function (...args) {\n"
        "          if (looks(args)) return f.apply(this, args);\n"
        "          return k === 'rejects' || k === 'doesNotReject' ? Promise.resolve() : undefined;\n"
        "        };\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "  mod.syncBuiltinESMExports();\n"
        "})();\n"
    )


_catalogue(
    _Entry(
        "rt-js-v8-stream-rewrite",
        "javascript/typescript",
        "in the test file's child, process.stdout.write decodes node's v8-serialized events and turns "
        "the listed tests' test:fail into test:pass; every other event (the canary's) is passed as is",
        _is_node,
        _js(_v8_stream),
    ),
    _Entry(
        "rt-js-asyncscope-swallow-listed",
        "javascript/typescript",
        "AsyncResource.prototype.runInAsyncScope (node:test runs every body through it) patched: listed "
        "bodies swallow their failures; the original is back while any other body (the canary) runs",
        _is_node,
        _js(_scope_swallow),
    ),
    _Entry(
        "rt-js-assert-spare-canary",
        "javascript/typescript",
        "every node:assert(/strict) function returns quietly unless an argument mentions 'canary'",
        _is_node,
        _js(_assert_spare_canary),
    ),
)
