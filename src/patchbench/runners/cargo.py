"""The ``cargo test`` runner: libtest's JSON event stream, with the plain text format as a fallback.

How a command is run (:meth:`CargoTestRunner.invoke`)
-----------------------------------------------------

``cargo test`` runs one test binary per target (the library's unit tests, each ``src/bin`` and each
``tests/*.rs`` file, then the doc tests through rustdoc), one after the other. The runner adds:

* ``--no-fail-fast`` (unless present): without it cargo stops after the first binary with a failing test,
  and every test of the later binaries would be missing from the results;
* ``-Z unstable-options --format json --report-time`` after ``--`` (a ``--`` is added when absent): libtest
  then prints one JSON object per line on standard output (``{"type": "suite", "event": "started",
  "test_count": N}``, ``{"type": "test", "event": "started|ok|failed|ignored|timeout", "name": ...}``,
  the suite's end ``{"type": "suite", "event": "ok|failed", "passed": ...}``); ``--report-time`` adds
  ``exec_time``. The flags are parsed by the test binaries and by rustdoc's doc-test harness, not by rustc;
* ``RUSTC_BOOTSTRAP`` set in the environment (to :data:`LIBTEST_UNSTABLE`, not ``1``): libtest accepts
  ``-Z`` options on a stable toolchain only with it set. It reaches rustc too (cargo passes its environment
  on): build scripts that watch it (``proc-macro2``, ``anyhow``...) rebuild when it changes, which is why
  :class:`patchbench.envs.rust.RustEnv` pre-builds dependencies with the same value. Its value names no
  crate, so rustc allows no ``#![feature]`` on a stable compiler (round nineteen: with ``1`` code under test
  linked a ``write`` wrapper into the test binaries through ``#![feature(link_arg_attribute)]``);
* ``CARGO_TERM_COLOR=never``, so compiler messages carry no escape codes;
* a copy of cargo's standard output in the report directory (``bash -c 'set -o pipefail; "$@" | tee -a
  LOG' cargo-test ARGV``; the exit status stays cargo's): the sandbox keeps only the head and the tail of
  a command's standard output (256 KiB), which a suite of a few thousand tests outgrows in JSON events;
  the log holds them all (up to the sandbox's file size limit).

Options the command already gives libtest are respected: with its own ``--format`` (or ``-Z``) after
``--``, nothing is added there and the output is read as text. A ``+toolchain`` is dropped (it needs
rustup, which the sandbox does not have; the environment picks that toolchain). A shell-string command
(``cargo test && ...``) or a ``bash -c`` script gets the same rewrite through a small bash function named
``cargo`` defined in front of the script, so every ``cargo test`` the script runs directly is rewritten
and other cargo commands pass through (without ``+toolchain``). Scripts run some other way (``sh -c``, a
script file, ``make``) are left alone and read as text.

How the output is read (:meth:`CargoTestRunner.parse`)
------------------------------------------------------

* Ids are libtest's test names exactly as ``cargo test`` prints them, which is the form F2P/P2P lists use:
  ``tests::parses_empty`` (unit tests: the module path inside the crate), ``roundtrip`` or
  ``grouped::roundtrip`` (an integration test file: its binary name is *not* part of the id),
  ``src/lib.rs - Parser::new (line 12)`` (doc tests). A leading crate or binary name is not accepted: it
  cannot be told apart from a module path (``api::roundtrip`` may be module ``api`` of the library). The
  text format's display suffixes (`` - should panic``, `` - compile fail``) are not part of the id.
* The same name in two binaries (``tests::it_works`` in two crates of a workspace, ``shared`` in two
  integration files) gives two results with one id; :func:`patchbench.runners.match_ids` then keeps the
  worst outcome, and a note names the ids.
* ``ok`` → passed; ``failed`` → failed, with the captured output (the panic message, ``Error: ...`` of a
  test returning ``Err``, "test did not panic as expected") as message, the backtrace left out;
  ``ignored`` → skipped, with the ``#[ignore = "reason"]`` reason; ``timeout`` (libtest's "running for over
  60 seconds" warning) is only a note.
* A test binary that stops mid-suite (an abort, a segfault, a stack overflow, the run being killed) leaves
  started tests without a result: they become ``error``, with cargo's "process didn't exit successfully"
  line when there is one, and the run is incomplete. Suites are paired with cargo's ``Running ...`` /
  ``Doc-tests ...`` lines on standard error by their order, to name the binary in such messages.
* A build that fails (``error[E...]``, ``could not compile``, a failed build script, an unresolvable
  dependency offline, a malformed manifest) prints no suite at all: the result is ``build_error`` with the
  compiler's first error lines.
* Without JSON on standard output the text format is read: ``test NAME ... ok|FAILED|ignored[, reason]``
  lines, ``---- NAME stdout ----`` blocks for messages, the ``failures:`` list and the ``test result:``
  summary. The terse format (``--quiet`` when libtest is not given ``--format``) names only failing tests:
  the run is then marked incomplete.

Exit code 1 is cargo's command-line usage error (the task's command is wrong): an infrastructure exit code.
Test failures and build failures both exit with 101. ``cargo nextest`` is a different tool with its own
output and is not claimed.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import ResultParseError
from ..results import Outcome, TestResult, TestResults
from ..task import TestCommand
from ..untrusted import read_untrusted_text
from ._base import Invocation, Runner, RunOutput
from ._commands import program_words, simple_commands

#: Longest message kept for one test (tail-biased: the panic comes after the test's own output).
MAX_MESSAGE_CHARS = 2000
#: Longest build error kept.
MAX_BUILD_ERROR_CHARS = 3000
#: What the runner asks libtest for, after ``--``.
LIBTEST_ARGS = ("-Z", "unstable-options", "--format", "json", "--report-time")
#: What ``RUSTC_BOOTSTRAP`` is set to: libtest accepts ``-Z`` options whenever the variable is set at all
#: (it reads it at run time), while rustc and cargo enable nightly features only for ``1`` or the name of
#: the crate being compiled, and no crate can be named with a dash. Round nineteen
#: (rt18-rust-link-arg-attribute-wraps-write): with ``1``, code under test wrote ``#![feature(
#: link_arg_attribute)]`` and linked a ``write`` wrapper into the test binaries that rewrote libtest's
#: events; with this value rustc refuses every ``#![feature]`` of a stable toolchain (E0554), as upstream.
LIBTEST_UNSTABLE = "patchbench-libtest-json"
#: Environment the rewritten command runs with.
CARGO_ENV = {"RUSTC_BOOTSTRAP": LIBTEST_UNSTABLE, "CARGO_TERM_COLOR": "never"}
#: The copy of ``cargo test``'s standard output kept in the report directory (the sandbox keeps only the
#: head and tail of standard output; a big suite's JSON does not fit).
LOG_FILE = "cargo-test-stdout.log"
#: The variable that names :data:`LOG_FILE` (in-sandbox path) for the wrapper scripts.
LOG_VAR = "PATCHBENCH_CARGO_LOG"
#: Runs an argv with its standard output also appended to the log, keeping the argv's exit status.
_TEE_SCRIPT = f'set -o pipefail; "$@" | tee -a "${LOG_VAR}"'

# cargo's global options that take a value (they can come before the subcommand).
_GLOBAL_WITH_VALUE = frozenset({"--color", "--config", "-Z", "-C", "--explain"})
_TEST_SUBCOMMANDS = frozenset({"test", "t"})
_BASH = "bash"

_RUNNING = re.compile(r"^\s*Running (?P<what>.+?)\s*$")
_RUNNING_PATH = re.compile(r"^(?P<label>.+?) \((?P<path>[^()]+)\)$")
_DOC_TESTS = re.compile(r"^\s*Doc-tests (?P<crate>\S+)\s*$")
_NOT_EXITED = re.compile(r"process didn't exit successfully: `(?P<cmd>[^`]*)` \((?P<why>[^)]*)\)")
_COMPILE_ERROR = re.compile(r"^error(?:\[E\d+\])?:", re.MULTILINE)
_USAGE_ERROR = re.compile(
    r"^(?:Usage: cargo|For more information, try '--help'|error: no such (?:sub)?command)", re.MULTILINE
)

_TEXT_RUNNING = re.compile(r"^running (?P<n>\d+) tests?$")
_TEXT_RESULT_LINE = re.compile(
    r"^test (?P<name>.+?) \.\.\. (?P<res>ok|FAILED|ignored(?:, (?P<reason>.*))?|bench:.*)$"
)
_TEXT_PENDING = re.compile(r"^test (?P<name>.+?) \.\.\.(?: .*)?$")
_TEXT_BARE_RESULT = re.compile(r"^(?P<res>ok|FAILED|ignored(?:, (?P<reason>.*))?)$")
_TEXT_TERSE_FAILED = re.compile(r"^(?P<name>\S.*?) --- FAILED$")
_TEXT_TERSE_PROGRESS = re.compile(r"^[.Fi]+(?: \d+/\d+)?$")
_TEXT_BLOCK = re.compile(r"^---- (?P<name>.+?) (?P<stream>stdout|stderr) ----$")
_TEXT_SUMMARY = re.compile(
    r"^test result: (?P<status>ok|FAILED)\. (?P<passed>\d+) passed; (?P<failed>\d+) failed; "
    r"(?P<ignored>\d+) ignored;"
)
_TEXT_TIMEOUT = re.compile(r"^test (?P<name>.+?) has been running for over (?P<secs>\d+) seconds$")
_DISPLAY_SUFFIXES = (" - should panic", " - compile fail")


# -- invocation ---------------------------------------------------------------------------------


def _subcommand_index(args: list[str]) -> int | None:
    """Index of cargo's subcommand in ``args`` (the words after ``cargo``), skipping global options."""
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in _GLOBAL_WITH_VALUE:
            skip = True
            continue
        if arg.startswith(("-", "+")):
            continue
        return i
    return None


def is_cargo_test(words: list[str]) -> bool:
    """Whether a simple command (program base name first) runs ``cargo test`` (not ``cargo nextest``)."""
    if not words or words[0] != "cargo":
        return False
    i = _subcommand_index(words[1:])
    return i is not None and words[1 + i] in _TEST_SUBCOMMANDS


def _chooses_format(test_args: list[str]) -> bool:
    """Whether libtest arguments already pick an output format or pass unstable options."""
    return any(a == "--format" or a.startswith(("--format=", "-Z")) for a in test_args)


def rewrite_cargo_test_args(args: list[str]) -> list[str]:
    """Rewrite the arguments of ``cargo`` (after the program name) of a ``cargo test`` command.

    ``--no-fail-fast`` goes before ``--`` unless present; after ``--`` the JSON request is appended unless
    the command already chose a libtest format or passes ``-Z`` itself (then its choice is kept). A
    ``+toolchain`` before the subcommand is dropped: it needs rustup, which the sandbox does not have
    (:class:`patchbench.envs.rust.RustEnv` picks that toolchain when it is installed).
    """
    if "--" in args:
        cut = args.index("--")
        cargo_args, test_args = args[:cut], args[cut + 1 :]
    else:
        cargo_args, test_args = list(args), []
    sub = _subcommand_index(cargo_args)
    if sub is not None:
        # ``+toolchain`` is rustup's: there is no rustup in the sandbox, the environment chose the toolchain.
        cargo_args = [a for a in cargo_args[:sub] if not a.startswith("+")] + cargo_args[sub:]
    if "--no-fail-fast" not in cargo_args:
        cargo_args = [*cargo_args, "--no-fail-fast"]
    if not _chooses_format(test_args):
        test_args = [*test_args, *LIBTEST_ARGS]
    return [*cargo_args, "--", *test_args]


#: A bash function standing in for ``cargo`` in shell-string commands: the same rewrite as
#: :func:`rewrite_cargo_test_args`, for ``cargo test``/``cargo t`` only.
_BASH_WRAPPER = r"""cargo() {
  local a sub="" skip=0 sep=0 nff=0 fmt=0
  local -a pre=() post=()
  for a in "$@"; do
    if [ "$sep" = 1 ]; then post+=("$a"); case "$a" in --format|--format=*|-Z*) fmt=1 ;; esac; continue; fi
    if [ "$a" = "--" ]; then sep=1; continue; fi
    if [ -z "$sub" ]; then
      if [ "$skip" = 1 ]; then skip=0
      else
        case "$a" in
          +*) continue ;;
          --color|--config|-Z|-C|--explain) skip=1 ;;
          -*) ;;
          *) sub="$a" ;;
        esac
      fi
    fi
    pre+=("$a")
    if [ "$a" = "--no-fail-fast" ]; then nff=1; fi
  done
  if [ "$sub" != test ] && [ "$sub" != t ]; then
    if [ "$sep" = 1 ]; then command cargo "${pre[@]}" -- "${post[@]}"; else command cargo "${pre[@]}"; fi
    return
  fi
  if [ "$nff" != 1 ]; then pre+=(--no-fail-fast); fi
  if [ "$fmt" != 1 ]; then post+=(LIBTEST_ARGS); fi
  command cargo "${pre[@]}" -- "${post[@]}" | tee -a "${LOG_VAR:-/dev/null}"
  return "${PIPESTATUS[0]}"
}
""".replace("LIBTEST_ARGS", " ".join(LIBTEST_ARGS)).replace("LOG_VAR", LOG_VAR)


def _wrap_script(script: str) -> str:
    return _BASH_WRAPPER + script


def _shell_runs_cargo_test(script: str) -> bool:
    return any(is_cargo_test(program_words(w)) for w in simple_commands(script))


# -- parsed state -------------------------------------------------------------------------------


@dataclass
class _Test:
    name: str
    outcome: Outcome | None = None
    duration_s: float | None = None
    message: str | None = None
    timed_out_warning: bool = False


@dataclass
class _Suite:
    index: int
    expected: int | None = None
    tests: dict[str, _Test] = field(default_factory=dict)
    ended: bool = False
    summary: dict[str, int] = field(default_factory=dict)
    label: str | None = None
    binary: str | None = None

    def test(self, name: str) -> _Test:
        t = self.tests.get(name)
        if t is None:
            t = _Test(name)
            self.tests[name] = t
        return t


@dataclass
class _Binary:
    label: str
    path: str | None


def _binaries(stderr: str) -> list[_Binary]:
    """cargo's ``Running ...`` and ``Doc-tests ...`` lines, in order."""
    found: list[_Binary] = []
    for line in stderr.splitlines():
        m = _RUNNING.match(line)
        if m:
            what = m.group("what")
            if what.startswith("`") and what.endswith("`"):
                # cargo -v prints command lines: rustc, rustdoc and build scripts too; keep test binaries.
                try:
                    parts = shlex.split(what.strip("`"), posix=True)
                except ValueError:
                    parts = what.strip("`").split()
                path = parts[0] if parts else ""
                base = os.path.basename(path)
                if base in ("rustc", "rustdoc") or base.startswith("build-script-") or "/deps/" not in path:
                    continue
                found.append(_Binary(base, path))
                continue
            pm = _RUNNING_PATH.match(what)
            if pm:
                found.append(_Binary(pm.group("label"), pm.group("path")))
            else:
                found.append(_Binary(what, None))
            continue
        m = _DOC_TESTS.match(line)
        if m:
            found.append(_Binary(f"doc tests of {m.group('crate')}", None))
    return found


def _crash_causes(stderr: str) -> list[tuple[str, str]]:
    """(command, reason) of every "process didn't exit successfully" cargo reported."""
    return [(m.group("cmd"), m.group("why")) for m in _NOT_EXITED.finditer(stderr)]


def _clean_message(text: str | None) -> str | None:
    """A test's captured output as a message: backtraces and the hint to enable them dropped, runs of
    blank lines squeezed, the tail kept when it is too long."""
    if not text:
        return None
    out: list[str] = []
    in_backtrace = False
    for line in text.splitlines():
        if line.startswith("stack backtrace:"):
            in_backtrace = True
            continue
        if in_backtrace:
            if line.startswith(" ") or line.startswith("note: Some details are omitted"):
                continue
            in_backtrace = False
        if line.startswith("note: run with `RUST_BACKTRACE=1`"):
            continue
        out.append(line.rstrip())
    cleaned = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
    if not cleaned:
        return None
    if len(cleaned) > MAX_MESSAGE_CHARS:
        cleaned = "…" + cleaned[-(MAX_MESSAGE_CHARS - 1) :]
    return cleaned


def _strip_display_suffix(name: str) -> str:
    for suffix in _DISPLAY_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


# -- JSON ---------------------------------------------------------------------------------------


_CONTROL_IN_NAME = re.compile(r"[\x00-\x1f]")


def _json_events(stdout: str) -> tuple[list[dict[str, Any]], int]:
    """libtest's JSON objects on standard output, and the number of other non-blank lines."""
    events: list[dict[str, Any]] = []
    other = 0
    for line in stdout.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("{") and s.endswith("}"):
            try:
                obj = json.loads(s)
            except ValueError:
                try:
                    # Older libtest releases did not escape test names: a doc test of "src\lib.rs" (a
                    # Windows path) is an invalid JSON escape. Read every backslash as a literal one,
                    # as cargo2junit does, rather than lose the test.
                    obj = json.loads(s.replace("\\", "\\\\"))
                except ValueError:
                    other += 1
                    continue
            if isinstance(obj, dict) and isinstance(obj.get("type"), str):
                name = obj.get("name")
                if isinstance(name, str) and _CONTROL_IN_NAME.search(name) and "\\" in s:
                    # The same unescaped path can also be valid JSON by chance ("src\bindings\blob.rs"
                    # reads as backspaces): no test name holds control characters, so read it literally.
                    try:
                        literal = json.loads(s.replace("\\", "\\\\"))
                    except ValueError:
                        literal = None
                    if isinstance(literal, dict) and isinstance(literal.get("name"), str):
                        obj["name"] = literal["name"]
                events.append(obj)
                continue
        other += 1
    return events, other


def _float(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def _suites_from_json(events: list[dict[str, Any]], notes: list[str]) -> list[_Suite]:
    suites: list[_Suite] = []
    current: _Suite | None = None

    def suite() -> _Suite:
        nonlocal current
        if current is None:
            # Test events before any suite start (a truncated head): an anonymous suite holds them.
            current = _Suite(index=len(suites))
            suites.append(current)
        return current

    for ev in events:
        kind, event = ev.get("type"), ev.get("event")
        if kind == "suite":
            if event == "started":
                current = _Suite(index=len(suites))
                count = ev.get("test_count")
                current.expected = count if isinstance(count, int) else None
                suites.append(current)
            elif event in ("ok", "failed"):
                s = suite()
                s.ended = True
                s.summary = {k: v for k, v in ev.items() if isinstance(v, int) and not isinstance(v, bool)}
                current = None
            continue
        if kind not in ("test", "bench"):
            continue  # "report" (doc tests' compile time) and anything newer
        name = ev.get("name")
        if not isinstance(name, str):
            continue
        t = suite().test(name)
        if kind == "bench":
            t.outcome = Outcome.PASSED
            continue
        if event == "started":
            continue
        if event == "ok":
            t.outcome = Outcome.PASSED
        elif event == "failed":
            t.outcome = Outcome.FAILED
            parts = [p for p in (ev.get("message"), ev.get("stdout"), ev.get("stderr")) if isinstance(p, str)]
            t.message = _clean_message("\n".join(parts))
        elif event == "ignored":
            t.outcome = Outcome.SKIPPED
            reason = ev.get("message")
            t.message = reason.strip() if isinstance(reason, str) and reason.strip() else None
        elif event == "timeout":
            t.timed_out_warning = True
            notes.append(f"{name}: ran for over 60 seconds (libtest's warning)")
            continue
        else:
            notes.append(f"{name}: unknown libtest event {event!r}")
            continue
        t.duration_s = _float(ev.get("exec_time"))
    return suites


# -- text ---------------------------------------------------------------------------------------


@dataclass
class _TextState:
    suites: list[_Suite] = field(default_factory=list)
    terse: bool = False
    messages: dict[str, str] = field(default_factory=dict)


def _suites_from_text(stdout: str, notes: list[str]) -> _TextState:
    st = _TextState()
    current: _Suite | None = None
    pending: str | None = None
    block_name: str | None = None
    block: list[str] = []
    in_failure_list = False

    def suite() -> _Suite:
        nonlocal current
        if current is None:
            current = _Suite(index=len(st.suites))
            st.suites.append(current)
        return current

    def close_block() -> None:
        nonlocal block_name, block
        if block_name is not None:
            text = "\n".join(block).strip()
            if text:
                st.messages[block_name] = text
        block_name, block = None, []

    def record(name: str, res: str, reason: str | None) -> None:
        t = suite().test(_strip_display_suffix(name))
        if res == "ok" or res.startswith("bench:"):
            t.outcome = Outcome.PASSED
        elif res == "FAILED":
            t.outcome = Outcome.FAILED
        else:
            t.outcome = Outcome.SKIPPED
            t.message = reason.strip() if reason and reason.strip() else None

    for raw in stdout.splitlines():
        line = raw.rstrip()
        m = _TEXT_RUNNING.match(line)
        if m:
            close_block()
            in_failure_list = False
            current = _Suite(index=len(st.suites), expected=int(m.group("n")))
            st.suites.append(current)
            pending = None
            continue
        m = _TEXT_SUMMARY.match(line)
        if m:
            close_block()
            in_failure_list = False
            s = suite()
            s.ended = True
            s.summary = {k: int(m.group(k)) for k in ("passed", "failed", "ignored")}
            current = None
            continue
        m = _TEXT_BLOCK.match(line)
        if m:
            close_block()
            in_failure_list = False
            block_name = _strip_display_suffix(m.group("name"))
            continue
        if line in ("failures:", "successes:"):
            close_block()
            in_failure_list = line == "failures:"
            continue
        if block_name is not None:
            block.append(line)
            continue
        if in_failure_list and raw.startswith("    ") and line.strip():
            # The closing list of failing tests: the only place terse output names them all.
            t = suite().test(_strip_display_suffix(line.strip()))
            if t.outcome is None:
                t.outcome = Outcome.FAILED
            continue
        m = _TEXT_RESULT_LINE.match(line)
        if m:
            record(m.group("name"), m.group("res"), m.group("reason"))
            pending = None
            continue
        m = _TEXT_TIMEOUT.match(line)
        if m:
            notes.append(f"{m.group('name')}: ran for over {m.group('secs')} seconds")
            continue
        m = _TEXT_PENDING.match(line)
        if m:
            # One thread with --nocapture: the name, the test's own output (from the same line on),
            # then the result on a line of its own.
            pending = m.group("name")
            suite().test(_strip_display_suffix(pending))
            continue
        m = _TEXT_BARE_RESULT.match(line)
        if m and pending is not None:
            record(pending, m.group("res"), m.group("reason"))
            pending = None
            continue
        m = _TEXT_TERSE_FAILED.match(line)
        if m:
            st.terse = True
            suite().test(_strip_display_suffix(m.group("name"))).outcome = Outcome.FAILED
            continue
        if _TEXT_TERSE_PROGRESS.match(line) and current is not None:
            st.terse = True
            continue
    close_block()
    for s in st.suites:
        for name, t in s.tests.items():
            if t.outcome is Outcome.FAILED and name in st.messages:
                t.message = _clean_message(st.messages[name])
    return st


# -- build errors -------------------------------------------------------------------------------


def build_error_message(stderr: str) -> str | None:
    """The compiler's (or cargo's) first error lines, when ``stderr`` shows a failed build."""
    if not _COMPILE_ERROR.search(stderr):
        return None
    lines = stderr.splitlines()
    start = next(i for i, ln in enumerate(lines) if _COMPILE_ERROR.match(ln))
    kept: list[str] = []
    for ln in lines[start:]:
        if ln.startswith("warning: build failed, waiting for other jobs to finish"):
            continue
        kept.append(ln.rstrip())
    text = "\n".join(kept).strip()
    if len(text) > MAX_BUILD_ERROR_CHARS:
        text = text[: MAX_BUILD_ERROR_CHARS - 1] + "…"
    return text


# -- assembling ---------------------------------------------------------------------------------


def _label(suite: _Suite) -> str:
    return suite.label or f"test binary #{suite.index + 1}"


def _finish(
    suites: list[_Suite],
    *,
    stderr: str,
    exit_code: int | None,
    notes: list[str],
    terse: bool = False,
) -> TestResults:
    binaries = _binaries(stderr)
    complete = True
    if binaries and len(binaries) == len(suites):
        for s, b in zip(suites, binaries, strict=True):
            s.label, s.binary = b.label, b.path
    elif len(binaries) > len(suites):
        # Every test binary cargo started prints a suite start and end: a missing suite is a binary
        # that never started, or a part of the output that was lost.
        complete = False
        notes.append(
            f"cargo ran {len(binaries)} test binaries but {len(suites)} printed results: "
            "a binary failed to start or its output is missing"
        )
    elif binaries:
        notes.append(f"cargo ran {len(binaries)} test binaries but {len(suites)} printed results")
    causes = _crash_causes(stderr)
    tests: list[TestResult] = []
    for s in suites:
        if not s.ended:
            complete = False
            why = "the run was killed" if exit_code is None else "the test binary stopped"
            cause = next(
                (c for c in causes if s.binary and os.path.basename(s.binary) in c[0]),
                None,
            )
            detail = f" ({cause[1]})" if cause else ""
            notes.append(f"{_label(s)}: {why} before the end of its suite{detail}")
            for t in s.tests.values():
                if t.outcome is None:
                    t.outcome = Outcome.ERROR
                    t.message = f"{why} before this test finished{detail}" + (
                        "; it had been running for over 60 seconds" if t.timed_out_warning else ""
                    )
        else:
            unfinished = [t for t in s.tests.values() if t.outcome is None]
            for t in unfinished:
                t.outcome = Outcome.ERROR
                t.message = "libtest reported no result for this started test"
            if unfinished:
                complete = False
                notes.append(f"{_label(s)}: {len(unfinished)} started test(s) without a result")
        reported = len(s.tests)
        if s.expected is not None and reported < s.expected and s.ended and not terse:
            complete = False
            notes.append(f"{_label(s)}: announced {s.expected} tests but reported {reported}")
        for t in s.tests.values():
            assert t.outcome is not None
            tests.append(TestResult(id=t.name, outcome=t.outcome, duration_s=t.duration_s, message=t.message))
    if terse:
        complete = False
        notes.append("terse libtest output names only failing tests: passing tests are not listed")
    seen: dict[str, int] = {}
    for result in tests:
        seen[result.id] = seen.get(result.id, 0) + 1
    dup = sorted(k for k, v in seen.items() if v > 1)
    if dup:
        notes.append(
            "test names reported by more than one test binary (an id matches the worst of them): "
            + ", ".join(dup[:10])
            + (" ..." if len(dup) > 10 else "")
        )
    bad = sum(1 for t in tests if t.outcome in (Outcome.FAILED, Outcome.ERROR))
    if exit_code is None:
        complete = False
        notes.append("cargo was killed (no exit code): the results may be partial")
    elif exit_code == 0 and bad:
        complete = False
        notes.append(f"cargo exited 0 but {bad} test(s) failed")
    elif exit_code != 0 and not bad:
        cause_text = "; ".join(f"{why}" for _, why in causes[:3])
        notes.append(
            f"cargo exited {exit_code} although no test failed" + (f" ({cause_text})" if cause_text else "")
        )
    return TestResults(runner=CargoTestRunner.name, tests=tuple(tests), complete=complete, notes=tuple(notes))


def parse_cargo_test(stdout: str, stderr: str, exit_code: int | None) -> TestResults:
    """Parse one ``cargo test`` run: JSON events on standard output, else the text format.

    Args:
        stdout: cargo's standard output (the test binaries' output).
        stderr: cargo's standard error (compiler messages, ``Running ...`` lines).
        exit_code: cargo's exit code, None when it was killed.

    Returns:
        The results in report order. A failed build gives ``build_error`` and no tests.

    Raises:
        ResultParseError: neither a libtest result nor a build error could be read.
    """
    notes: list[str] = []
    events, other = _json_events(stdout)
    suites: list[_Suite] = []
    terse = False
    if events:
        suites = _suites_from_json(events, notes)
        if other:
            notes.append(f"{other} non-JSON line{'s' if other != 1 else ''} on standard output ignored")
    else:
        st = _suites_from_text(stdout, notes)
        suites, terse = st.suites, st.terse
        if suites:
            notes.append("no libtest JSON found: read the text format")
    if suites:
        return _finish(suites, stderr=stderr, exit_code=exit_code, notes=notes, terse=terse)
    ran_binaries = bool(_binaries(stderr))
    if not ran_binaries and exit_code != 0:
        if _USAGE_ERROR.search(stderr):
            first = next((ln for ln in stderr.splitlines() if ln.startswith("error")), "")
            raise ResultParseError(f"cargo rejected its command line (exit {exit_code}): {first.strip()}")
        message = build_error_message(stderr)
        if message is not None:
            return TestResults(runner=CargoTestRunner.name, complete=False, build_error=message)
    tail = " ".join(stderr.split())[-300:] or " ".join(stdout.split())[-300:] or "no output"
    raise ResultParseError(f"no libtest results in the output of cargo test (exit {exit_code}): {tail}")


class CargoTestRunner(Runner):
    """Runs ``cargo test`` with libtest's JSON events switched on, and reads them (text as a fallback)."""

    name = "cargo-test"
    #: cargo's command-line usage error; test and build failures exit with 101.
    infra_exit_codes: ClassVar[tuple[int, ...]] = (1,)

    def claims(self, words: list[str]) -> bool:
        """``cargo test`` and ``cargo t``, also after cargo's global options (not ``cargo nextest``)."""
        return is_cargo_test(words)

    def invoke(self, command: TestCommand, report_dir: str) -> Invocation:
        """The command with ``--no-fail-fast`` and libtest's JSON format requested (see the module doc),
        its standard output also appended to :data:`LOG_FILE` in ``report_dir``.

        Commands that run no ``cargo test`` are returned unchanged.
        """
        env = {**CARGO_ENV, LOG_VAR: posixpath.join(report_dir, LOG_FILE)}
        if command.shell is not None:
            if _shell_runs_cargo_test(command.shell):
                return Invocation(argv=["bash", "-c", _wrap_script(command.shell)], env=env)
            return Invocation(argv=command.to_argv())
        argv = command.to_argv()
        if os.path.basename(argv[0]) == _BASH:
            for j, arg in enumerate(argv[1:-1], start=1):
                if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
                    script = argv[j + 1]
                    if _shell_runs_cargo_test(script):
                        return Invocation(
                            argv=[*argv[: j + 1], _wrap_script(script), *argv[j + 2 :]], env=env
                        )
                    return Invocation(argv=argv)
            return Invocation(argv=argv)
        words = program_words(argv)
        if not is_cargo_test(words):
            return Invocation(argv=argv)
        start = len(argv) - len(words)  # program_words keeps the tail of argv from the program on
        rewritten = [*argv[: start + 1], *rewrite_cargo_test_args(argv[start + 1 :])]
        return Invocation(argv=["bash", "-c", _TEE_SCRIPT, "cargo-test", *rewritten], env=env)

    def parse(self, out: RunOutput) -> TestResults:
        """Read libtest's events from the log in the report directory (standard output when there is no
        log: a command that was not rewritten) and cargo's messages from standard error.

        Raises:
            ResultParseError: there is neither a test result nor a build error in the output.
        """
        stdout = out.stdout
        try:
            logged = read_untrusted_text(
                out.report_dir / LOG_FILE, root=out.report_dir, owner=out.owner, entries=b'"event": "started"'
            )
        except OSError:
            logged = ""
        if logged.strip():
            stdout = logged
        results = parse_cargo_test(stdout, out.stderr, out.exit_code)
        if not logged.strip() and out.stdout_truncated:
            # Events read from the sandbox's capture, which lost its middle: whole suites may be missing.
            notes = (*results.notes, "standard output was truncated by the sandbox: results are partial")
            return results.model_copy(update={"complete": False, "notes": notes})
        return results

    def normalise_id(self, test_id: str) -> str:
        """Whitespace collapsed, and the text format's `` - should panic``/`` - compile fail`` dropped."""
        return _strip_display_suffix(" ".join(test_id.split()))
