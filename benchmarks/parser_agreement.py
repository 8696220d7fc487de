"""Agreement of patchbench's parsers with the reference tools, on the reference tools' own corpora.

    .venv/bin/python benchmarks/parser_agreement.py CORPUS... [--out FILE] [--cuts N]

Each CORPUS is a directory holding one reference corpus, fetched from its public repository and kept
outside this repository (see docs/benchmarks.md for how to rebuild them); its kind is told by its layout,
or given as ``KIND=DIR``:

* ``tap``: tap-parser's fixtures and snapshots (tapjs/tapjs ``src/parser/test/fixtures/*.tap`` in
  ``fixtures/``, ``src/parser/tap-snapshots/test/parser/*.test.cjs`` in ``snapshots/``). The reference is
  the snapshot of tap-parser's own events for each fixture (``bail=false``): every ``assert`` at every
  depth (full name, ok, skip, todo) and the top level's final plan, count and bail-out.
* ``go``: ``go test -json`` streams (gotestyourself/gotestsum's testdata, ``*.out``, with ``*.err`` as
  standard error when present) and ``reference/<name>.xml``: the JUnit XML gotestsum itself writes for
  the stream (``gotestsum --junitfile ... --raw-command -- cat <name>.out``, see docs/benchmarks.md).
* ``cargo``: cargo2junit's ``src/test_inputs/*.json`` and the JUnit XML it is tested against,
  ``src/expected_outputs/*.out`` (johnterickson/cargo2junit).
* ``node``: ``<name>.tap`` (node's TAP reporter) and ``<name>.events.jsonl`` (node's own
  ``test:pass``/``test:fail`` events, from a reporter module, see docs/benchmarks.md) of one run of each of
  node's own test-runner fixture files.

A file *agrees* when patchbench reads the same tests (ids) with the same outcomes (passed, failed, skipped,
todo) as the reference, and the same completeness where the reference has a notion of it (TAP: the plan
and the bail-out). Every difference is listed with its kind; the kinds that are by design are explained
in :data:`REASONS`. Then every prefix and every head+tail cut (``--cuts`` positions per file, spread evenly,
plus every line end) of every file is parsed, the cut fed as the sandbox's capture would leave it: the
count of cuts that read as a complete result with a passed test the whole file did not pass must be 0.

Prints the table and writes ``benchmarks/results/parser_agreement.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchbench.errors import ResultParseError
from patchbench.results import Outcome, TestResults
from patchbench.runners._base import RunOutput
from patchbench.runners.tap import ID_SEPARATOR

#: Outcomes as the references can tell them apart.
PASS, FAIL, SKIP, TODO = "pass", "fail", "skip", "todo"

#: Why a kind of difference is right (only kinds listed here are accepted as explained).
REASONS = {
    "stricter-complete": (
        "patchbench marks the run incomplete where the reference calls it complete, and its note says why: "
        "no TAP at all (zero tests, graded no_tests; tap-parser reads a synthetic '1..0'), a last line "
        "without its newline (a cut stream), test numbers outside the plan, test points after a trailing "
        "plan, a subtest never closed; an incomplete run is never graded resolved, so this fails safe"
    ),
    "unfinished-failed": (
        "tests that started and never reported a result (the stream lost their events): patchbench fails "
        "them and marks the run incomplete (default-fail), the reference leaves them out"
    ),
    "reference-decoding": (
        "an old libtest name with an unescaped Windows path ('src\\bindings\\table.rs'): the reference "
        "decodes '\\t' as a tab (which its XML then reads as a space); patchbench reads the path "
        "literally, as libtest meant it"
    ),
    "reference-stopped": (
        "gotestsum --raw-command stops at the first line that is not JSON (exit 3) and fails the test that "
        "was running; patchbench skips the line (go test -json output interleaves other commands' text) "
        "and reads the test's own pass event that follows it"
    ),
    "subtest-path": (
        "same tests, same outcomes, same leaf names; only the path of an unnamed subtest differs: "
        "patchbench prefixes an anonymous subtest's tests with the test point that closes it, tap-parser "
        "with nothing (so two anonymous subtests' 'ok 1' would share one id), and tap-parser's own source "
        "calls a '# Subtest' comment between unannounced levels ambiguous"
    ),
}


#: Files where the reference tool itself failed (checked by hand; the kind's reason says how).
FILE_KINDS = {"testjson_testdata_go-test-json-with-nonjson-stdout.out": "reference-stopped"}


@dataclass
class Ref:
    """The reference's reading of one file: (id, outcome) in order, and completeness if it has one."""

    tests: list[tuple[str, str]]
    complete: bool | None = None
    wildcard_ids: set[int] = field(default_factory=set)  # positions whose reference name is empty


@dataclass
class FileResult:
    name: str
    agree: bool
    well_formed: bool
    differences: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    bad_cuts: list[str] = field(default_factory=list)
    cuts: int = 0


#: name, channel text, parse(text, truncated), judge(whole parse) -> agreement.
Corpus = Iterator[tuple[str, str, Callable[[str, bool], TestResults], Callable[[TestResults], FileResult]]]


def _outcome(o: Outcome) -> str:
    return {
        Outcome.PASSED: PASS,
        Outcome.FAILED: FAIL,
        Outcome.ERROR: FAIL,
        Outcome.SKIPPED: SKIP,
        Outcome.XFAIL: TODO,
        Outcome.XPASS: TODO,
    }[o]


# -- TAP: tap-parser's snapshots ---------------------------------------------------------------------

_SNAPSHOT_START = re.compile(r"^exports\[`.*> output bail=false 1`\] = `$")
_FIELD = re.compile(r'^(?P<indent> *)"(?P<key>[^"]+)": (?P<value>.*?),?$')


def _template_unescape(text: str) -> str:
    return re.sub(r"\\([\\`$])", r"\1", text)


def _scalar(value: str) -> Any:
    if value.endswith("[]"):
        return []
    if value.endswith("{}"):
        return {}
    if value in ("true", "false"):
        return value == "true"
    if value in ("null", "undefined"):
        return None
    if value.startswith('"'):
        try:
            return json.loads(value)
        except ValueError:
            return value.strip('"')
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        return value


def _blocks(lines: list[str], i: int, indent: int) -> dict[str, Any]:
    """The scalar fields (and nested objects, one level) of the object opening at ``lines[i]``."""
    fields: dict[str, Any] = {}
    j = i + 1
    while j < len(lines):
        line = lines[j]
        stripped = line.strip()
        ind = len(line) - len(line.lstrip(" "))
        if ind <= indent and stripped.startswith(("}", "]")):
            break
        if ind == indent + 2:
            m = _FIELD.match(line)
            if m:
                value = m.group("value")
                if value.endswith("{"):
                    fields[m.group("key")] = _blocks(lines, j, ind)
                elif value.endswith("["):
                    fields[m.group("key")] = _array_objects(lines, j, ind)
                else:
                    fields[m.group("key")] = _scalar(value)
        j += 1
    return fields


def _array_objects(lines: list[str], i: int, indent: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    j = i + 1
    while j < len(lines):
        line = lines[j]
        ind = len(line) - len(line.lstrip(" "))
        if ind <= indent and line.strip().startswith("]"):
            break
        if ind == indent + 2 and line.rstrip().endswith("{"):
            out.append(_blocks(lines, j, ind))
        j += 1
    return out


def tap_reference(snapshot: str) -> tuple[Ref, bool]:
    """tap-parser's reading from its snapshot: asserts at every depth, completeness, well-formedness."""
    lines = snapshot.splitlines()
    start = next(i for i, ln in enumerate(lines) if _SNAPSHOT_START.match(ln))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "`")
    body = [_template_unescape(ln) for ln in lines[start + 1 : end]]
    ref = Ref(tests=[])
    well_formed = True
    complete: bool | None = None
    for i, line in enumerate(body):
        stripped = line.strip()
        ind = len(line) - len(line.lstrip(" "))
        if stripped == '"assert",' and i + 1 < len(body) and body[i + 1].strip() == "Result {":
            r = _blocks(body, i + 1, ind)
            if r.get("skip"):
                outcome = SKIP
            elif r.get("todo"):
                outcome = TODO
            else:
                outcome = PASS if r.get("ok") else FAIL
            if not str(r.get("name") or ""):
                ref.wildcard_ids.add(len(ref.tests))
            ref.tests.append((str(r.get("fullname") or ""), outcome))
        elif stripped == '"complete",' and i + 1 < len(body) and body[i + 1].strip() == "FinalResults {":
            fr = _blocks(body, i + 1, ind)
            if any(f.get("tapError") for f in fr.get("failures", [])):
                well_formed = False
            if ind == 4:  # the top level's
                plan = fr.get("plan") or {}
                s, e = plan.get("start"), plan.get("end")
                count = fr.get("count", 0)
                if fr.get("bailout") or s is None or e is None or s == -1:
                    complete = False
                elif plan.get("skipAll") or e == 0:
                    complete = count == 0
                else:
                    complete = count == e - s + 1
    ref.complete = complete
    return ref, well_formed


def _ids_match(ours: str, ref: str, wildcard: bool) -> bool:
    if ours == ref:
        return True
    if wildcard:
        prefix = ref + ID_SEPARATOR if ref else ""
        return re.fullmatch(re.escape(prefix) + r"(?:.* > )?test \d+", ours) is not None or (
            ours.startswith(prefix) and re.fullmatch(r"test \d+", ours.split(ID_SEPARATOR)[-1]) is not None
        )
    return False


def compare(name: str, ours: TestResults, ref: Ref, *, well_formed: bool) -> FileResult:
    """One file's agreement, with each difference described and classified."""
    fr = FileResult(name=name, agree=True, well_formed=well_formed)
    got = [(t.id, _outcome(t.outcome)) for t in ours.tests]
    if len(got) != len(ref.tests) or any(
        g[1] != r[1] or not _ids_match(g[0], r[0], i in ref.wildcard_ids)
        for i, (g, r) in enumerate(zip(got, ref.tests, strict=False))
    ):
        fr.agree = False
        fr.differences.append(f"tests: ours {got} != reference {ref.tests}")
        fr.kinds.append(_classify_ids(got, ref))
    if ref.complete is not None and ours.complete != ref.complete:
        fr.agree = False
        fr.differences.append(f"complete: ours {ours.complete} ({'; '.join(ours.notes)}) != {ref.complete}")
        fr.kinds.append("stricter-complete" if ref.complete else "laxer-complete")
    return fr


def _classify_ids(got: list[tuple[str, str]], ref: Ref) -> str:
    if len(got) != len(ref.tests) or [g[1] for g in got] != [r[1] for r in ref.tests]:
        return "outcomes"
    # Same outcomes in the same order, only names differ: are ours the reference's names with the
    # closing test points of anonymous subtests added as prefixes?
    for (g, _), (r, _) in zip(got, ref.tests, strict=True):
        ours, theirs = g.split(ID_SEPARATOR), r.split(ID_SEPARATOR)
        if ours[-1] != theirs[-1]:
            return "ids"
    return "subtest-path"


def tap_corpus(root: Path) -> Corpus:
    for fixture in sorted((root / "fixtures").glob("*.tap")):
        snap = root / "snapshots" / f"{fixture.name}.test.cjs"
        if not snap.exists():
            continue
        text = fixture.read_text(encoding="utf-8")
        ref, well_formed = tap_reference(snap.read_text(encoding="utf-8"))

        def judge(
            ours: TestResults, name: str = fixture.name, ref: Ref = ref, wf: bool = well_formed
        ) -> FileResult:
            return compare(name, ours, ref, well_formed=wf)

        yield fixture.name, text, _tap_parse, judge


def _tap_parse(text: str, truncated: bool) -> TestResults:
    from patchbench.runners.tap import TapRunner

    with tempfile.TemporaryDirectory() as d:
        return TapRunner().parse(RunOutput(text, "", 0, Path(d), stdout_truncated=truncated))


# -- JUnit XML references (gotestsum's, cargo2junit's) ---------------------------------------------------

_WORST = {PASS: 0, SKIP: 1, TODO: 2, FAIL: 3}
_CONTROL_NAMES = {"\b": "\\b", "\f": "\\f", "\x0b": "\\v"}


def _junit_reference(xml_text: str, make_id: Callable[[str, str], str]) -> tuple[Ref, bool]:
    """(id, outcome) of every testcase, worst first per id; and whether a package-level failure is in
    it (gotestsum's ``TestMain`` testcase with an empty classname)."""
    # cargo2junit decodes an unescaped Windows path that happens to be valid JSON ("src\bindings")
    # into control characters, which XML does not allow: read them back as the escapes they were.
    xml_text = re.sub(
        r"[\x00-\x08\x0b\x0c\x0e-\x1f]", lambda m: _CONTROL_NAMES.get(m.group(0), "?"), xml_text
    )
    root = ET.fromstring(xml_text)
    worst: dict[str, str] = {}
    package_failure = False
    for case in root.iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = FAIL
        elif case.find("skipped") is not None:
            outcome = SKIP
        else:
            outcome = PASS
        if not classname and name == "TestMain":
            package_failure = package_failure or outcome == FAIL
            continue
        test_id = make_id(classname, name)
        if test_id not in worst or _WORST[outcome] > _WORST[worst[test_id]]:
            worst[test_id] = outcome
    return Ref(tests=sorted(worst.items())), package_failure


def compare_sets(name: str, ours: TestResults, ref: Ref, *, must_not_be_clean: bool) -> FileResult:
    """Agreement as sets of (id, outcome) (the tools order tests differently); a package failure the
    reference reports must leave our result incomplete or with a build error."""
    fr = FileResult(name=name, agree=True, well_formed=True)
    got = sorted({t.id: _outcome(t.outcome) for t in ours.tests}.items())
    if got != ref.tests:
        fr.agree = False
        only_ours = sorted(set(got) - set(ref.tests))
        only_ref = sorted(set(ref.tests) - set(got))
        fr.differences.append(f"tests: only ours {only_ours[:20]}; only the reference {only_ref[:20]}")
        fr.kinds.append(_classify_sets(ours, only_ours, only_ref))
    if must_not_be_clean and ours.complete and ours.build_error is None:
        fr.agree = False
        fr.differences.append("the reference reports a package failure; ours is complete and clean")
        fr.kinds.append("package-failure")
    return fr


def _classify_sets(
    ours: TestResults, only_ours: list[tuple[str, str]], only_ref: list[tuple[str, str]]
) -> str:
    ref_ids = {i for i, _ in only_ref}
    if not only_ref and not ours.complete and all(o == FAIL for _, o in only_ours):
        return "unfinished-failed"
    if len(only_ours) == len(only_ref) and all(
        re.sub(r"\\[tnr]", " ", i) in ref_ids and o == ro
        for (i, o), (_, ro) in zip(only_ours, only_ref, strict=True)
    ):
        return "reference-decoding"
    return "tests"


def go_corpus(root: Path) -> Corpus:
    from patchbench.runners.go import GoTestRunner

    for stream in sorted(root.glob("*.out")):
        ref_file = root / "reference" / f"{stream.stem}.xml"
        if not ref_file.exists():
            continue
        err_file = stream.with_suffix(".err")
        stderr = err_file.read_text(encoding="utf-8") if err_file.exists() else ""
        ref, package_failure = _junit_reference(ref_file.read_text(encoding="utf-8"), _go_id)
        code = 1 if package_failure or any(o == FAIL for _, o in ref.tests) else 0

        def parse(text: str, truncated: bool, stderr: str = stderr, code: int = code) -> TestResults:
            with tempfile.TemporaryDirectory() as d:
                return GoTestRunner().parse(
                    RunOutput(text, stderr, code, Path(d), stdout_truncated=truncated)
                )

        def judge(
            ours: TestResults, name: str = stream.name, ref: Ref = ref, pf: bool = package_failure
        ) -> FileResult:
            return compare_sets(name, ours, ref, must_not_be_clean=pf)

        yield stream.name, stream.read_text(encoding="utf-8"), parse, judge


def _go_id(classname: str, name: str) -> str:
    return f"{classname}.{name}" if classname else name


def cargo_corpus(root: Path) -> Corpus:
    from patchbench.runners.cargo import CargoTestRunner

    inputs = root / "src" / "test_inputs"
    for expected in sorted((root / "src" / "expected_outputs").glob("*.out")):
        source = inputs / f"{expected.stem}.json"
        if not source.exists():
            continue  # an output of another input with other options (cargo_failure_shortened)
        ref, _ = _junit_reference(expected.read_text(encoding="utf-8"), _cargo_id)
        code = 101 if any(o == FAIL for _, o in ref.tests) else 0

        def parse(text: str, truncated: bool, code: int = code) -> TestResults:
            with tempfile.TemporaryDirectory() as d:
                return CargoTestRunner().parse(RunOutput(text, "", code, Path(d), stdout_truncated=truncated))

        def judge(ours: TestResults, name: str = source.name, ref: Ref = ref) -> FileResult:
            return compare_sets(name, ours, ref, must_not_be_clean=False)

        yield source.name, source.read_text(encoding="utf-8", errors="replace"), parse, judge


def _cargo_id(classname: str, name: str) -> str:
    return f"{classname}::{name}" if classname else name


# -- node: node's own events --------------------------------------------------------------------------


def node_reference(events_jsonl: str) -> Ref:
    """(full name, outcome) of every ``test:pass``/``test:fail`` event, in node's order."""
    ref = Ref(tests=[])
    for line in events_jsonl.splitlines():
        if not line.strip():
            continue
        e = json.loads(line)
        if e["skip"]:
            outcome = SKIP
        elif e["todo"]:
            outcome = TODO
        else:
            outcome = PASS if e["type"] == "test:pass" else FAIL
        if not e["path"][-1]:
            ref.wildcard_ids.add(len(ref.tests))
        ref.tests.append((ID_SEPARATOR.join(e["path"]), outcome))
    return ref


def node_corpus(root: Path) -> Corpus:
    from patchbench.runners.node import REPORT_FILE, NodeTestRunner

    for events in sorted(root.glob("*.events.jsonl")):
        name = events.name.removesuffix(".events.jsonl")
        tap_file = root / f"{name}.tap"
        if not tap_file.exists():
            continue
        ref = node_reference(events.read_text(encoding="utf-8"))
        code = 1 if any(o == FAIL for _, o in ref.tests) else 0

        def parse(text: str, truncated: bool, code: int = code) -> TestResults:
            with tempfile.TemporaryDirectory() as d:
                if truncated:  # no report file: node's TAP on captured standard output
                    return NodeTestRunner().parse(RunOutput(text, "", code, Path(d), stdout_truncated=True))
                (Path(d) / REPORT_FILE).write_text(text, encoding="utf-8")
                return NodeTestRunner().parse(RunOutput("", "", code, Path(d)))

        def judge(ours: TestResults, name: str = tap_file.name, ref: Ref = ref) -> FileResult:
            return compare(name, ours, ref, well_formed=True)

        yield tap_file.name, tap_file.read_text(encoding="utf-8"), parse, judge


# -- cuts ---------------------------------------------------------------------------------------------


def cut_positions(text: str, n: int) -> list[int]:
    """Every line end, and ``n`` positions spread evenly (mid-line cuts)."""
    ends = {i + 1 for i, ch in enumerate(text) if ch == "\n"}
    step = max(1, len(text) // max(1, n))
    return sorted(ends | set(range(0, len(text), step)))


def head_tail(text: str, at: int, dropped: int) -> str:
    """The sandbox's capture of ``text`` with ``dropped`` characters from ``at`` removed (head, marker,
    tail), as ``patchbench.sandbox._base._Capture`` keeps it."""
    return text[:at] + f"\n[... {dropped} bytes dropped by patchbench ...]\n" + text[at + dropped :]


def _safe(parse: Callable[[str, bool], TestResults], text: str, truncated: bool) -> TestResults | None:
    """The parse, or None for no result at all (``ResultParseError``: graded as such, never a pass)."""
    try:
        return parse(text, truncated)
    except ResultParseError:
        return None


def false_passes(full: TestResults | None, cut: TestResults | None) -> list[str]:
    """Tests the cut reads as passed while the whole output did not pass them, when the cut is complete."""
    if cut is None or not cut.complete:
        return []
    passed_in_full = {t.id for t in full.tests if t.outcome is Outcome.PASSED} if full else set()
    return sorted({t.id for t in cut.tests if t.outcome is Outcome.PASSED and t.id not in passed_in_full})


def check_cuts(text: str, parse: Callable[[str, bool], TestResults], n: int) -> tuple[int, list[str]]:
    full = _safe(parse, text, False)
    bad: list[str] = []
    count = 0
    for at in cut_positions(text, n):
        count += 1
        if false_passes(full, _safe(parse, text[:at], False)):
            bad.append(f"prefix {at}")
        for dropped in (1, 7, 40, 200):
            if at + dropped >= len(text):
                continue
            count += 1
            if false_passes(full, _safe(parse, head_tail(text, at, dropped), True)):
                bad.append(f"head+tail at {at} dropping {dropped}")
    return count, bad


KINDS: dict[str, Callable[[Path], Corpus]] = {
    "tap": tap_corpus,
    "go": go_corpus,
    "cargo": cargo_corpus,
    "node": node_corpus,
}


def _kind_of(path: Path) -> str:
    if (path / "fixtures").is_dir() and (path / "snapshots").is_dir():
        return "tap"
    if (path / "src" / "test_inputs").is_dir():
        return "cargo"
    if (path / "reference").is_dir() and any(path.rglob("*.out")):
        return "go"
    if any(path.glob("*.events.jsonl")):
        return "node"
    raise SystemExit(f"{path}: not a corpus this script knows (give KIND=DIR)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--cuts", type=int, default=40, help="mid-line cut positions per file (default 40)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "parser_agreement.json")
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    for spec in args.corpus:
        kind, _, where = spec.rpartition("=") if "=" in spec else ("", "", spec)
        path = Path(where)
        kind = kind or _kind_of(path)
        results: list[FileResult] = []
        for name, text, parse, judge in KINDS[kind](path):
            whole = _safe(parse, text, False)
            fr = judge(whole if whole is not None else TestResults(runner=kind, complete=False))
            if not fr.agree and name in FILE_KINDS:
                fr.kinds = [FILE_KINDS[name]]
            fr.cuts, fr.bad_cuts = check_cuts(text, parse, args.cuts)
            results.append(fr)
        rows.append(_row(kind, path, results))
    _print(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


def _row(kind: str, path: Path, results: list[FileResult]) -> dict[str, Any]:
    wf = [r for r in results if r.well_formed]
    return {
        "protocol": kind,
        "corpus": str(path),
        "files": len(results),
        "agree": sum(r.agree for r in results),
        "well_formed": len(wf),
        "well_formed_agree": sum(r.agree for r in wf),
        "explained": sum(1 for r in results if not r.agree and all(k in REASONS for k in r.kinds)),
        "cuts": sum(r.cuts for r in results),
        "cuts_complete_false_pass": sum(len(r.bad_cuts) for r in results),
        "differences": [
            {"file": r.name, "well_formed": r.well_formed, "kinds": r.kinds, "details": r.differences}
            for r in results
            if not r.agree
        ],
        "bad_cuts": [{"file": r.name, "cuts": r.bad_cuts[:20]} for r in results if r.bad_cuts],
    }


def _print(rows: list[dict[str, Any]]) -> None:
    print("| protocol | files | agree | well-formed: agree | explained | cuts | complete false passes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['protocol']} | {r['files']} | {r['agree']} | {r['well_formed_agree']}/{r['well_formed']} "
            f"| {r['explained']}/{r['files'] - r['agree']} | {r['cuts']} | {r['cuts_complete_false_pass']} |"
        )
    for r in rows:
        for d in r["differences"]:
            kinds = ", ".join(d["kinds"])
            form = "well-formed" if d["well_formed"] else "malformed"
            print(f"\n{r['protocol']} {d['file']} ({form}): {kinds}")
            for k in d["kinds"]:
                if k in REASONS:
                    print(f"  why: {REASONS[k]}")
            for line in d["details"]:
                print(f"  {line[:600]}")
        for b in r["bad_cuts"]:
            print(f"\n{r['protocol']} {b['file']}: cuts read as complete with a false pass: {b['cuts']}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
