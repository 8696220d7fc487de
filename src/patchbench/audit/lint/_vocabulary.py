"""The commands a verifier runs, as the analyzer reads them: runners, compilers, installs, counts."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..shell import (
    effective,
)

# ========================================================================================= 3. vocabulary

_PY = re.compile(r"^python(?:\d(?:\.\d+)?)?$")
_COUNT = re.compile(
    r"(?i)(passed|\bpass(?:es|ing)?\b|tests?[ _-]?run|\btests_?ran\b|\bran\b|collected|executed|"
    r"num_?tests|n_?tests|test_?count|tests?_?total|\btotal\b|\btests? successful)"
)
_NOT_COUNT = re.compile(r"(?i)(fail|error|skip|broken)")
_REWARD = re.compile(r"reward\.(?:txt|json)")
_VAR = re.compile(
    r"\$(?:\{([#!]?)([A-Za-z_][A-Za-z0-9_]*|[?#@*0-9])(?:\[[^\]]*\])?[^}]*\}|([A-Za-z_][A-Za-z0-9_]*|[?#@*0-9]))"
)
_READS_ONLY = {
    *("echo", "printf", "cat", "tee", "[", "test", "rm", "mkdir", "touch", "ls", "grep", "chmod", "chown"),
    *("stat", "wc", "head", "tail", "diff", "cmp", "jq", "awk", "cut", "file", "realpath", "dirname"),
}
_TEXT_TOOLS = {
    *("echo", "printf", "true", ":", "yes", "seq", "cat", "grep", "egrep", "fgrep", "sed", "awk", "cut"),
    *("tr", "sort", "uniq", "head", "tail", "wc", "tac", "tee"),
}
_FAIL_IF_NO_TESTS = re.compile(
    r"(?i)^(--fail-if-no-tests|-DfailIfNoTests=true|-Dsurefire\.failIfNoSpecifiedTests=true)$"
)


@dataclass(frozen=True)
class _Runner:
    name: str
    zero: str  # exit status when no test runs: "fails" (safe), "partly" (pytest), "passes"
    counts: bool  # a test runner (not a compiler): its exit status may stand for "tests passed"


def _runner(words: Sequence[str]) -> _Runner | None:
    w = effective(words)
    if not w:
        return None
    head = posixpath.basename(w[0])
    args = w[1:]
    unless = "fails" if any(_FAIL_IF_NO_TESTS.match(a) for a in args) else "passes"
    if head in ("pytest", "py.test"):
        return _Runner("pytest", "partly", True)
    if _PY.match(head):
        k = 0
        while k < len(args) and args[k].startswith("-") and args[k] != "-m":
            k += 1
        if k + 1 < len(args) and args[k] == "-m":
            mod = args[k + 1]
            if mod == "pytest":
                return _Runner("pytest", "partly", True)
            if mod == "unittest":
                return _Runner("unittest", unless, True)
            if mod == "py_compile" or mod == "compileall":
                return _Runner(f"python -m {mod}", "fails", False)
        return None
    if head in ("mvn", "mvnw"):
        tests = any(g in ("test", "verify", "install", "package", "integration-test") for g in args)
        return _Runner("mvn", unless, tests)
    if head in ("gradle", "gradlew"):
        tests = any(g.split(":")[-1] in ("test", "check", "build") for g in args)
        return _Runner("gradle", unless, tests)
    if head == "go" and args[:1] == ["test"]:
        return _Runner("go test", "passes", True)
    if head == "cargo" and args[:1] in (["test"], ["nextest"]):
        return _Runner("cargo " + args[0], "fails" if args[0] == "nextest" else "passes", True)
    if head in ("npm", "yarn", "pnpm") and (args[:1] in (["test"], ["t"]) or args[:2] == ["run", "test"]):
        return _Runner(f"{head} test", "passes", True)
    if head == "npx" and args and args[0] in ("jest", "vitest", "mocha"):
        head, args = args[0], args[1:]
    if head in ("jest", "vitest"):
        return _Runner(head, "passes" if "--passWithNoTests" in args else "fails", True)
    if head == "mocha":
        return _Runner("mocha", "passes", True)
    if head == "node" and "--test" in args:
        return _Runner("node --test", "passes", True)
    if head == "java":
        joined = " ".join(args)
        if (
            "ConsoleLauncher" in joined
            or "junit-platform-console" in joined
            or any(a in ("--scan-class-path", "--scan-classpath", "--select-class") for a in args)
        ):
            return _Runner("junit console launcher", unless, True)
        if "org.junit.runner.JUnitCore" in joined:
            return _Runner("JUnitCore", "passes", True)
        return None
    if head == "javac":
        return _Runner("javac", "fails", False)
    return None


def _is_test_command(words: Sequence[str]) -> bool:
    """A runner or compiler, or an interpreter run on a file under /tests."""
    if _runner(words) is not None:
        return True
    w = effective(words)
    if not w:
        return False
    head = posixpath.basename(w[0])
    if _PY.match(head) or head in ("node", "bash", "sh", "ruby", "java", "go", "deno", "bun"):
        return any(a.startswith(("/tests/", "tests/", "$TESTS", "${TESTS")) for a in w[1:])
    return False


def _network(words: Sequence[str]) -> str | None:
    w = effective(list(words)) if words and posixpath.basename(words[0]) != "uvx" else list(words)
    if not w:
        return None
    head = posixpath.basename(w[0])
    args = w[1:]
    if head == "uvx":
        return "runs uvx, which downloads the tool"
    if head in ("pip", "pip3") or (_PY.match(head) and args[:2] == ["-m", "pip"]):
        rest = args[2:] if _PY.match(head) else args
        if rest[:1] == ["install"] and "--no-index" not in rest:
            return "pip install"
    if head == "uv" and (
        args[:2] == ["pip", "install"] or args[:2] == ["tool", "install"] or args[:1] == ["add"]
    ):
        return "uv " + " ".join(args[:2])
    if (
        head in ("npm", "pnpm")
        and args[:1] in (["install"], ["i"], ["ci"], ["add"])
        and "--offline" not in args
    ):
        return f"{head} {args[0]}"
    if head == "yarn" and (args[:1] in (["install"], ["add"]) or not args) and "--offline" not in args:
        return "yarn install"
    if head in ("apt-get", "apt", "yum", "dnf", "microdnf") and "install" in args:
        return f"{head} install"
    if head == "apk" and args[:1] == ["add"]:
        return "apk add"
    if head in ("gem", "cargo") and args[:1] == ["install"]:
        return f"{head} install"
    if head == "go" and args[:1] in (["install"], ["get"]):
        return f"go {args[0]}"
    return None


def _vars_in(text: str) -> list[str]:
    return [m.group(2) or m.group(3) for m in _VAR.finditer(text)]


def _evidence(text: str, start: int, end: int) -> str:
    chunk = text[start:end].strip()
    first = chunk.split("\n", 1)[0].strip()
    if len(first) < len(chunk):
        first += " ..."
    return first[:200]
