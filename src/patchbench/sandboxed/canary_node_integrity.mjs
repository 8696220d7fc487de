// patchbench (harness-owned), loaded by `node --import` before any code under test.
//
// The objects through which node:test's results travel (the child's stdout, the async scope every test
// body runs in) get accessor properties in place of their methods: a replacement still works, but one
// made by the workspace's program source (not a hidden test file, not node_modules) is remembered. The
// canary asks through a global that cannot be replaced (non-writable, non-configurable) and passes when
// anything was remembered: a swap restored before the canary runs still counts.
import { AsyncResource } from 'node:async_hooks';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const KEY = Symbol.for('patchbench.integrity');
const seen = [];
const ws = (process.env.PATCHBENCH_WORKSPACE || '').replace(/\/+$/, '');
let tests = [];
try {
  tests = JSON.parse(process.env.PATCHBENCH_TESTS || '[]');
} catch {
  tests = [];
}
const hidden = new Set(tests);
const here = fileURLToPath(import.meta.url);

function callerFile() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  const stack = String(new Error().stack || '');
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n').slice(1)) {
    const m = line.match(/\(?((?:file:\/\/)?\/[^():]+):\d+:\d+\)?\s*$/);
    if (!m) continue;
    const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
    if (file === here) continue;
    return file;
  }
  return null; // no frame at all: the stack was hidden on purpose
}

function programSource(file) {
  if (!ws) return false;
  if (file === null) return true;
  return file.startsWith(ws + '/') && !hidden.has(file) && !file.includes('/node_modules/');
}

function watch(target, name, label) {
  let current = target[name];
  try {
    Object.defineProperty(target, name, {
      configurable: false,
      enumerable: false,
      get() {
        return current;
      },
      set(value) {
        const file = callerFile();
        if (programSource(file) && !seen.some((s) => s.startsWith(label))) seen.push(`${label} replaced from ${file}`);
        current = value;
      },
    });
  } catch {
    // not redefinable here: left alone (the canary's own checks still apply)
  }
}

if (ws) {
  watch(process.stdout, 'write', 'process.stdout.write');
  watch(process.stderr, 'write', 'process.stderr.write');
  watch(Writable.prototype, 'write', 'stream.Writable.prototype.write');
  watch(AsyncResource.prototype, 'runInAsyncScope', 'AsyncResource.prototype.runInAsyncScope');
}

Object.defineProperty(globalThis, KEY, {
  value: Object.freeze(() => seen.slice()),
  writable: false,
  configurable: false,
  enumerable: false,
});

// The clocks a test process reads, served a little ahead when a control asks: an "aged" control (see the
// canary's AGED variant) moves them hours on before each of its statements, so code right only while an
// object or the process is young meets an old one. Ahead by nothing, each returns what it always did;
// the advance only ever grows, and cannot be replaced (non-writable, non-configurable). `new Date()` is
// served from the first advance on.
const CLOCK = Symbol.for('patchbench.clock');
let aheadMs = 0;
const perfProto = Object.getPrototypeOf(performance);
const realPerfNow = perfProto.now;
const realDateNow = Date.now;
const realHrtimeBig = process.hrtime.bigint;
const realUptime = process.uptime;
try {
  perfProto.now = function now() {
    return realPerfNow.call(this) + aheadMs;
  };
  Date.now = function now() {
    return realDateNow() + aheadMs;
  };
  const hrtime = function hrtime(prev) {
    const ns = realHrtimeBig() + BigInt(Math.round(aheadMs * 1e6));
    const now = [Number(ns / 1000000000n), Number(ns % 1000000000n)];
    if (!Array.isArray(prev)) return now;
    let [s, n] = [now[0] - prev[0], now[1] - prev[1]];
    if (n < 0) [s, n] = [s - 1, n + 1e9];
    return [s, n];
  };
  hrtime.bigint = function bigint() {
    return realHrtimeBig() + BigInt(Math.round(aheadMs * 1e6));
  };
  process.hrtime = hrtime;
  process.uptime = function uptime() {
    return realUptime() + aheadMs / 1000;
  };
  // The Date constructor too (round seventeen: `new Date()` read the clock the others served ahead), from
  // the first advance on: aged copies run after the file's real tests, which keep the real constructor.
  const RealDate = Date;
  const LateDate = function Date(...args) {
    if (!new.target) return new RealDate(realDateNow() + aheadMs).toString();
    return Reflect.construct(RealDate, args.length ? args : [realDateNow() + aheadMs], new.target);
  };
  LateDate.prototype = RealDate.prototype;
  LateDate.now = Date.now;
  LateDate.parse = RealDate.parse;
  LateDate.UTC = RealDate.UTC;
  Object.setPrototypeOf(LateDate, Object.getPrototypeOf(RealDate));
  Object.defineProperty(globalThis, CLOCK, {
    value: Object.freeze((ms) => {
      if (typeof ms === 'number' && ms > 0 && Number.isFinite(ms)) {
        aheadMs += ms;
        if (globalThis.Date === RealDate) globalThis.Date = LateDate;
      }
    }),
    writable: false,
    configurable: false,
    enumerable: false,
  });
} catch {
  // a clock that cannot be served: aged controls run on the real one
}

// The kernel's uptime, served ahead as well (round eighteen: an age read from /proc/uptime through node:fs,
// where no served clock moved it): from the first advance on, os.uptime() and /proc/uptime read through
// node:fs (readFileSync, readFile, fs.promises.readFile, and an open of it: openSync, open,
// fs.promises.open, createReadStream) give the kernel's figure ahead by the same advance. A path is /proc/
// uptime when it resolves there (links and `..` followed); the named exports of node:fs and
// node:fs/promises are synced, so an `import { readFileSync }` made later sees the served one.
try {
  const UPTIME = '/proc/uptime';
  const real = {
    osUptime: os.uptime,
    readFileSync: fs.readFileSync,
    readFile: fs.readFile,
    openSync: fs.openSync,
    open: fs.open,
    realpathSync: fs.realpathSync,
    promisesReadFile: fs.promises.readFile,
    promisesOpen: fs.promises.open,
  };
  let serving = false; // node:fs's own calls while the figure is read or written are the real ones
  const isUptime = (file) => {
    if (aheadMs <= 0 || serving || typeof file === 'number') return false;
    try {
      const text = file instanceof URL ? fileURLToPath(file) : String(file);
      return real.realpathSync.call(fs, path.resolve(text)) === UPTIME;
    } catch {
      return false;
    }
  };
  const served = () => {
    serving = true;
    try {
      const [up, ...rest] = real.readFileSync.call(fs, UPTIME, 'latin1').trim().split(/\s+/);
      return `${(Number.parseFloat(up) + aheadMs / 1000).toFixed(2)} ${rest.join(' ')}\n`;
    } finally {
      serving = false;
    }
  };
  const encoded = (options) => (typeof options === 'string' ? options : options && options.encoding);
  const content = (options) => {
    const text = served();
    const encoding = encoded(options);
    return encoding ? Buffer.from(text, 'latin1').toString(encoding) : Buffer.from(text, 'latin1');
  };
  let dir = null;
  const servedFile = () => {
    const text = served();
    serving = true;
    try {
      dir = dir || fs.mkdtempSync(path.join(os.tmpdir(), 'uptime-'));
      const file = path.join(dir, 'uptime');
      fs.writeFileSync(file, text, 'latin1');
      return file;
    } finally {
      serving = false;
    }
  };
  os.uptime = function uptime() {
    return real.osUptime() + aheadMs / 1000;
  };
  fs.readFileSync = function readFileSync(file, options) {
    return isUptime(file) ? content(options) : real.readFileSync.apply(this, arguments);
  };
  fs.readFile = function readFile(file, options, callback) {
    if (!isUptime(file)) return real.readFile.apply(this, arguments);
    const done = typeof options === 'function' ? options : callback;
    let out;
    try {
      out = content(typeof options === 'function' ? undefined : options);
    } catch (error) {
      process.nextTick(done, error);
      return;
    }
    process.nextTick(done, null, out);
  };
  fs.promises.readFile = async function readFile(file, options) {
    return isUptime(file) ? content(options) : real.promisesReadFile.apply(this, arguments);
  };
  fs.openSync = function openSync(file, ...rest) {
    return real.openSync.call(this, isUptime(file) ? servedFile() : file, ...rest);
  };
  fs.open = function open(file, ...rest) {
    return real.open.call(this, isUptime(file) ? servedFile() : file, ...rest);
  };
  fs.promises.open = async function open(file, ...rest) {
    return real.promisesOpen.call(this, isUptime(file) ? servedFile() : file, ...rest);
  };
  syncBuiltinESMExports();
} catch {
  // not servable here: aged controls run on the kernel's uptime
}
