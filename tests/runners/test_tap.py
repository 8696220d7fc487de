"""The TAP runner: real captured output (node, perl, a Python producer) and focused edge cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from patchbench.results import Outcome

# Aliased: pytest would try to collect classes named Test* found in a test module.
from patchbench.results import TestResult as Result
from patchbench.results import TestResults as Results
from patchbench.runners import TapRunner, get_runner, match_ids
from patchbench.runners._base import RunOutput
from patchbench.runners.tap import MAX_MESSAGE_CHARS, parse_tap

TAP_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "tap"
EXPECTED = sorted(TAP_DIR.glob("*.expected.json"))


def _pairs(results: Results) -> list[tuple[str, str]]:
    return [(t.id, t.outcome.value) for t in results.tests]


def _fixture(name: str) -> Results:
    return parse_tap((TAP_DIR / name).read_text(encoding="utf-8"))


def _by_id(results: Results) -> dict[str, Result]:
    return {t.id: t for t in results.tests}


# -- real captured output ---------------------------------------------------------------------------


def test_every_tap_fixture_has_an_expected_parse() -> None:
    assert {p.name.removesuffix(".expected.json") for p in EXPECTED} == {
        "node_nested",
        "perl_more",
        "perl_truncated",
        "perl_buffered",
        "perl_skip_all",
        "py_tap13",
    }


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_captured_tap_parses_to_the_expected_ids_outcomes_and_completeness(expected_file: Path) -> None:
    expected: dict[str, Any] = json.loads(expected_file.read_text(encoding="utf-8"))
    results = _fixture(expected["source"])
    assert results.runner == "tap"
    assert _pairs(results) == [(t["id"], t["outcome"]) for t in expected["tests"]]
    assert results.complete is expected["complete"], results.notes
    for fragment in expected.get("notes_include", []):
        assert any(fragment in note for note in results.notes), (fragment, results.notes)


def test_tap_runner_parses_stdout_and_ignores_stderr(tmp_path: Path) -> None:
    stdout = (TAP_DIR / "perl_truncated.tap").read_text(encoding="utf-8")
    stderr = "ok 9 - not from stdout\n1..9\n"
    out = RunOutput(stdout=stdout, stderr=stderr, exit_code=255, report_dir=tmp_path)
    results = TapRunner().parse(out)
    assert [t.id for t in results.tests] == ["one", "two", "three"]
    assert results.complete is False


def test_node_failure_yaml_becomes_the_message_without_node_bookkeeping() -> None:
    tests = _by_id(_fixture("node_nested.tap"))
    failed = tests["math > multiplies wrongly"]
    assert failed.message is not None
    assert "6 !== 7" in failed.message
    assert "failureType: 'testCodeFailure'" in failed.message
    assert "duration_ms" not in failed.message
    assert "boom: division exploded" in (tests["math > division > throws on purpose"].message or "")
    suite = tests["math > division"].message or ""
    assert "1 subtest failed" in suite
    assert "type: 'suite'" not in suite


def test_node_duration_ms_becomes_duration_s_and_a_duration_only_block_leaves_no_message() -> None:
    passed = _by_id(_fixture("node_nested.tap"))["top-level pass"]
    assert passed.duration_s is not None
    assert 0 < passed.duration_s < 1
    assert passed.message is None


def test_node_skip_and_todo_reasons_are_kept_as_messages() -> None:
    tests = _by_id(_fixture("node_nested.tap"))
    assert tests["skipped test"].message == "not on this platform"
    todo = tests["todo test"].message or ""
    assert todo.startswith("not written yet\n")
    assert "1 !== 2" in todo


def test_node_escaped_hash_in_a_test_name_is_unescaped_in_the_id() -> None:
    assert "issue #42 stays fixed" in _by_id(_fixture("node_nested.tap"))


def test_python_producer_yaml_message_and_duration() -> None:
    tests = _by_id(_fixture("py_tap13.tap"))
    split = tests["split keeps empty fields"]
    assert split.message is not None
    assert split.message.startswith("message: split gave")
    assert split.duration_s is not None
    assert "KeyError: 'y'" in (tests["lookup of a missing key"].message or "")
    assert (tests["unicode file names"].message or "").startswith("not supported yet\nmessage:")


def test_perl_bail_out_keeps_results_before_it_and_drops_the_rest() -> None:
    results = _fixture("perl_more.tap")
    assert "never reached" not in _by_id(results)
    assert results.tests[-1].id == "hash # in the name"
    # The bail-out explains the short plan: no separate plan-mismatch note.
    assert not any("plan announced" in n for n in results.notes)


# -- plans and completeness -------------------------------------------------------------------------


def test_plan_at_the_end_is_accepted() -> None:
    results = parse_tap("ok 1 - a\nnot ok 2 - b\n1..2\n")
    assert _pairs(results) == [("a", "passed"), ("b", "failed")]
    assert results.complete is True
    assert results.notes == ()


def test_fewer_results_than_planned_is_incomplete_with_a_note() -> None:
    results = parse_tap("1..5\nok 1 - a\nok 2 - b\nok 3 - c\n")
    assert results.complete is False
    assert any("plan announced 5 tests but 3 reported (fewer)" in n for n in results.notes)


def test_more_results_than_planned_is_incomplete_with_a_note() -> None:
    results = parse_tap("1..1\nok 1 - a\nok 2 - b\n")
    assert results.complete is False
    assert any("(more)" in n for n in results.notes)


def test_missing_plan_is_incomplete_with_a_note() -> None:
    results = parse_tap("ok 1 - a\nok 2 - b\n")
    assert len(results.tests) == 2
    assert results.complete is False
    assert any("no plan" in n for n in results.notes)


def test_skip_all_plan_gives_zero_tests_and_a_complete_run() -> None:
    results = parse_tap("TAP version 13\n1..0 # SKIP no database configured\n")
    assert results.tests == ()
    assert results.complete is True
    assert any("no database configured" in n for n in results.notes)


def test_output_without_tap_gives_zero_tests_and_a_note_without_raising() -> None:
    results = parse_tap("Segmentation fault (core dumped)\nnpm ERR! test failed\n")
    assert results.tests == ()
    assert results.complete is False
    assert "no TAP output found" in results.notes


def test_empty_output_gives_zero_tests() -> None:
    results = parse_tap("")
    assert results.tests == ()
    assert results.complete is False


def test_bail_out_marks_the_run_incomplete_and_stops_reading() -> None:
    results = parse_tap("1..3\nok 1 - a\nBail out! disk full\nok 2 - b\nok 3 - c\n")
    assert [t.id for t in results.tests] == ["a"]
    assert results.complete is False
    assert any("Bail out! disk full" in n for n in results.notes)


def test_plan_after_results_with_more_results_after_it_is_incomplete() -> None:
    """Regression: ``1..15`` after 10 results, then 5 more, read as a complete run of 15. Only comments
    may follow a trailing plan; the test points after it are not read."""
    lines = [f"ok {i} - t{i}" for i in range(1, 11)] + ["1..15"] + [f"ok {i} - t{i}" for i in range(11, 16)]
    results = parse_tap("\n".join(lines) + "\n")
    assert [t.id for t in results.tests] == [f"t{i}" for i in range(1, 11)]
    assert results.complete is False
    assert any("after the trailing plan" in n for n in results.notes)
    # Even when the trailing plan matches what came before it.
    matching = parse_tap("ok 1 - a\n1..1\nnot ok 2 - b\n")
    assert [t.id for t in matching.tests] == ["a"] and matching.complete is False


def test_comments_after_a_trailing_plan_are_fine() -> None:
    results = parse_tap("ok 1 - a\n1..1\n# tests 1\n# pass 1\n")
    assert results.complete is True and results.notes == ()


@pytest.mark.parametrize(
    "text",
    ["1..1\nok", "1..1\nok 1 - a", "ok 1 - a\n1..1", "1..1\n# Subtest: s\n    ok 1 - x"],
    ids=["bare-ok", "named", "plan", "child"],
)
def test_a_last_line_without_its_newline_is_incomplete(text: str) -> None:
    """Regression: ``1..1\\nok 1 # Skip`` cut to ``1..1\\nok`` was a complete pass. A stream that ends
    inside a line was cut there, and a cut test line can lose its directive or its ``not``."""
    results = parse_tap(text)
    assert results.complete is False
    assert any("ends inside a line" in n for n in results.notes)


def test_a_last_comment_without_newline_does_not_matter() -> None:
    results = parse_tap("1..1\nok 1 - a\n# done")
    assert results.complete is True


def test_tap_runner_output_truncated_by_the_sandbox_is_never_complete(tmp_path: Path) -> None:
    """Regression: the sandbox keeps a head and a tail; a cut inside ``not ok 3`` left a tail starting
    ``ok 3`` and the run read as complete passes. The capture's ``truncated`` flag now reaches here."""
    head = "1..3\nok 1 - a\nnot ok 2 - b\n"
    tail = "ok 3 - c\n"
    stdout = head + "\n[... 1000 bytes dropped by patchbench ...]\n" + tail
    plain = TapRunner().parse(RunOutput(stdout=stdout, stderr="", exit_code=1, report_dir=tmp_path))
    assert plain.complete is True  # the text alone cannot tell
    cut = TapRunner().parse(
        RunOutput(stdout=stdout, stderr="", exit_code=1, report_dir=tmp_path, stdout_truncated=True)
    )
    assert cut.complete is False
    assert any("truncated" in n for n in cut.notes)
    # Standard error being cut says nothing about the TAP on standard output.
    err_cut = TapRunner().parse(
        RunOutput(stdout=head + tail, stderr="x", exit_code=1, report_dir=tmp_path, stderr_truncated=True)
    )
    assert err_cut.complete is True


def test_tap_runner_killed_command_is_incomplete(tmp_path: Path) -> None:
    results = TapRunner().parse(RunOutput("1..1\nok 1 - a\n", "", None, tmp_path))
    assert results.complete is False
    assert any("killed" in n for n in results.notes)


def test_more_than_one_plan_keeps_the_first_and_notes_it() -> None:
    results = parse_tap("1..2\nok 1 - a\nok 2 - b\n1..3\n")
    assert results.complete is True
    assert any("more than one plan" in n for n in results.notes)


def test_duplicate_test_numbers_are_noted_and_both_results_kept() -> None:
    results = parse_tap("1..2\nok 1 - a\nok 1 - b\n")
    assert [t.id for t in results.tests] == ["a", "b"]
    assert any("duplicate test numbers: 1" in n for n in results.notes)


def test_out_of_sequence_numbers_are_noted() -> None:
    results = parse_tap("1..2\nok 2 - b\nok 1 - a\n")
    assert any("out of sequence" in n for n in results.notes)


# -- test lines and directives ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected_id"),
    [
        ("ok 1 - with dash", "with dash"),
        ("ok 1 without dash", "without dash"),
        ("ok - no number", "no number"),
        ("ok", "test 1"),
        ("ok 1", "test 1"),
        ("ok 1 -", "test 1"),
        ("ok 1 -   spaced   out  ", "spaced   out"),
        ("ok 1 - - double dash", "- double dash"),
    ],
)
def test_test_line_forms_give_the_description_or_the_number_as_id(line: str, expected_id: str) -> None:
    results = parse_tap(f"1..1\n{line}\n")
    assert _pairs(results) == [(expected_id, "passed")]


def test_numberless_test_lines_are_numbered_in_order() -> None:
    results = parse_tap("ok\nok\nnot ok\n1..3\n")
    assert _pairs(results) == [("test 1", "passed"), ("test 2", "passed"), ("test 3", "failed")]
    assert results.notes == ()


@pytest.mark.parametrize(
    ("line", "outcome", "message"),
    [
        ("ok 1 - a # SKIP no network", Outcome.SKIPPED, "no network"),
        ("ok 1 - a # skip", Outcome.SKIPPED, None),
        ("ok 1 - a # Skipped: later", Outcome.SKIPPED, "later"),
        ("not ok 1 - a # SKIP broken env", Outcome.SKIPPED, "broken env"),
        ("not ok 1 - a # TODO not yet", Outcome.XFAIL, "not yet"),
        ("ok 1 - a # TODO not yet", Outcome.XPASS, "not yet"),
        ("ok 1 - a # todo", Outcome.XPASS, None),
        ("not ok 1 - a", Outcome.FAILED, None),
        ("ok 1 - a", Outcome.PASSED, None),
    ],
)
def test_directives_map_to_outcomes(line: str, outcome: Outcome, message: str | None) -> None:
    (result,) = parse_tap(f"1..1\n{line}\n").tests
    assert result.id == "a"
    assert result.outcome is outcome
    assert result.message == message


def test_escaped_hash_is_not_a_directive() -> None:
    (result,) = parse_tap("1..1\nok 1 - a \\# SKIP b\n").tests
    assert result.id == "a # SKIP b"
    assert result.outcome is Outcome.PASSED


def test_escaped_backslash_before_hash_still_allows_a_directive() -> None:
    (result,) = parse_tap("1..1\nok 1 - path C:\\\\ # SKIP windows only\n").tests
    assert result.id == "path C:\\"
    assert result.outcome is Outcome.SKIPPED


def test_hash_that_is_not_a_directive_stays_in_the_id() -> None:
    (result,) = parse_tap("1..1\nnot ok 1 - issue # 12 regression\n").tests
    assert result.id == "issue # 12 regression"
    assert result.outcome is Outcome.FAILED


def test_a_directive_word_may_run_on_as_tap_parser_reads_it() -> None:
    """tap-parser reads ``(todo|skip)\\S*`` after the separator: ``# todolist``, ``# TODOORNOTTODO`` and
    ``# sKiPpPyYy`` are directives (its todo_misparse and skip fixtures); both read as not passed."""
    (todo,) = parse_tap("1..1\nok 1 - a # todolist works\n").tests
    assert (todo.id, todo.outcome, todo.message) == ("a", Outcome.XPASS, "works")
    (hamlette,) = parse_tap("1..1\nnot ok 1 Hamlette # TODOORNOTTODO\n").tests
    assert (hamlette.id, hamlette.outcome) == ("Hamlette", Outcome.XFAIL)
    (weird,) = parse_tap("1..1\nok 5    #sKiPpPyYy weird spelling but ok, skip it\n").tests
    assert (weird.id, weird.outcome) == ("test 5", Outcome.SKIPPED)


def test_hash_inside_a_word_is_not_a_directive_separator() -> None:
    """Regression: ``testTitle#skip`` used to skip the test; the ``#`` must follow whitespace."""
    (result,) = parse_tap("1..1\nok 4    notskip, because testTitle#skip is not a directive\n").tests
    assert result.id == "notskip, because testTitle#skip is not a directive"
    assert result.outcome is Outcome.PASSED
    (escaped,) = parse_tap("1..1\nok 3    \\#skip should not skip because escaped\n").tests
    assert escaped.id == "#skip should not skip because escaped"
    assert escaped.outcome is Outcome.PASSED


def test_node_tap_time_directive_is_a_duration_not_part_of_the_id() -> None:
    """Regression: node-tap's ``# time=`` stayed in ids, so an F2P id changed from run to run."""
    (result,) = parse_tap("1..1\nok 1 - adds numbers # time=12.5ms\n").tests
    assert result.id == "adds numbers"
    assert result.outcome is Outcome.PASSED
    assert result.duration_s == pytest.approx(0.0125)
    (seconds,) = parse_tap("1..1\nnot ok 1 - slow # time=2s\n").tests
    assert (seconds.id, seconds.duration_s) == ("slow", pytest.approx(2.0))


def test_words_starting_with_ok_are_not_test_lines() -> None:
    results = parse_tap("okay then\nokey dokey\n1..1\nok 1 - real\n")
    assert [t.id for t in results.tests] == ["real"]
    assert any("2 non-TAP lines ignored" in n for n in results.notes)


def test_non_tap_lines_are_ignored_and_counted() -> None:
    results = parse_tap("building...\nTAP version 14\n1..1\nprint from the program\nok 1 - a\n")
    assert _pairs(results) == [("a", "passed")]
    assert results.complete is True
    assert "2 non-TAP lines ignored" in results.notes


def test_comments_pragmas_and_version_lines_are_not_counted_as_non_tap() -> None:
    results = parse_tap("TAP version 14\npragma +strict\n# a comment\n1..1\nok 1 - a\n")
    assert results.notes == ()


def test_crlf_line_endings_are_read() -> None:
    results = parse_tap("TAP version 13\r\n1..2\r\nok 1 - a\r\nnot ok 2 - b\r\n")
    assert _pairs(results) == [("a", "passed"), ("b", "failed")]
    assert results.complete is True


def test_tap_12_without_version_line_is_read() -> None:
    results = parse_tap("1..2\nok 1 - a\nnot ok 2 - b # TODO later\n")
    assert _pairs(results) == [("a", "passed"), ("b", "xfail")]


def test_unknown_tap_version_is_noted() -> None:
    results = parse_tap("TAP version 99\n1..1\nok 1 - a\n")
    assert any("unknown TAP version 99" in n for n in results.notes)


# -- YAML diagnostics -------------------------------------------------------------------------------


def test_yaml_block_becomes_the_message_and_duration_ms_the_duration() -> None:
    text = (
        "TAP version 13\n1..1\nnot ok 1 - a\n"
        "  ---\n  message: 'boom'\n  duration_ms: 250\n  data:\n    got: 1\n    want: 2\n  ...\n"
    )
    (result,) = parse_tap(text).tests
    assert result.message == "message: 'boom'\ndata:\n  got: 1\n  want: 2"
    assert result.duration_s == pytest.approx(0.25)


def test_long_yaml_message_is_trimmed() -> None:
    body = "".join(f"  line{i}: {'x' * 80}\n" for i in range(100))
    (result,) = parse_tap(f"1..1\nnot ok 1 - a\n  ---\n{body}  ...\n").tests
    assert result.message is not None
    assert len(result.message) <= MAX_MESSAGE_CHARS
    assert result.message.endswith("…")


def test_unterminated_yaml_block_is_kept_and_noted() -> None:
    results = parse_tap("1..2\nnot ok 1 - a\n  ---\n  message: boom\nok 2 - b\n")
    assert _pairs(results) == [("a", "failed"), ("b", "passed")]
    assert results.tests[0].message == "message: boom"
    assert any("unterminated YAML block" in n for n in results.notes)


def test_yaml_lines_that_look_like_tap_are_not_read_as_tests() -> None:
    text = "1..1\nnot ok 1 - a\n  ---\n  output: |\n    ok 7 - fake\n    1..9\n  ...\n"
    results = parse_tap(text)
    assert _pairs(results) == [("a", "failed")]
    assert results.complete is True


def test_dashes_not_following_a_test_line_are_not_yaml() -> None:
    results = parse_tap("1..1\n  ---\nok 1 - a\n")
    assert _pairs(results) == [("a", "passed")]
    assert "1 non-TAP line ignored" in results.notes


# -- TAP 14 subtests --------------------------------------------------------------------------------


def test_bare_subtests_nest_under_the_line_that_closes_them() -> None:
    text = (
        "TAP version 14\n1..2\n"
        "    1..2\n"
        "        1..1\n"
        "        ok 1 - leaf\n"
        "    ok 1 - inner\n"
        "    not ok 2 - sibling\n"
        "not ok 1 - outer\n"
        "ok 2 - after\n"
    )
    results = parse_tap(text)
    assert _pairs(results) == [
        ("outer > inner > leaf", "passed"),
        ("outer > inner", "passed"),
        ("outer > sibling", "failed"),
        ("outer", "failed"),
        ("after", "passed"),
    ]
    assert results.complete is True
    assert results.notes == ()


def test_subtest_numbers_restart_without_duplicate_notes() -> None:
    text = (
        "1..2\n"
        "# Subtest: a\n    1..1\n    ok 1 - x\nok 1 - a\n"
        "# Subtest: b\n    1..1\n    ok 1 - x\nok 2 - b\n"
    )
    results = parse_tap(text)
    assert [t.id for t in results.tests] == ["a > x", "a", "b > x", "b"]
    assert results.notes == ()


def test_the_subtest_comment_names_the_children_as_in_tap_parser() -> None:
    """tap-parser names a subtest's tests after its ``# Subtest:`` comment (its mismatched-child-assert
    and perl-test2 fixtures); the closing test point keeps its own name."""
    text = "1..1\n# Subtest: announced\n    1..1\n    ok 1 - x\nok 1 - actual\n"
    assert [t.id for t in parse_tap(text).tests] == ["announced > x", "actual"]


def test_an_invalid_plan_is_not_a_plan() -> None:
    results = parse_tap("100..1\nok 1\n1..1\n")
    assert results.complete is True
    assert "1 non-TAP line ignored" in results.notes


def test_a_plan_with_trailing_blanks_is_not_a_plan_as_in_tap_parser() -> None:
    results = parse_tap("1..2 \nok 1 \nok 2 \n")
    assert results.complete is False
    assert [t.id for t in results.tests] == ["test 1", "test 2"]


def test_subtest_with_fewer_results_than_its_plan_is_incomplete() -> None:
    text = "1..1\n# Subtest: s\n    1..3\n    ok 1 - x\nok 1 - s\n"
    results = parse_tap(text)
    assert results.complete is False
    assert any("subtest 's'" in n and "plan announced 3" in n for n in results.notes)


def test_unclosed_subtest_keeps_its_announced_name_and_is_incomplete() -> None:
    text = "TAP version 14\n1..2\nok 1 - first\n# Subtest: cut\n    1..2\n    ok 1 - x\n"
    results = parse_tap(text)
    assert _pairs(results) == [("first", "passed"), ("cut > x", "passed")]
    assert results.complete is False
    assert any("not closed" in n for n in results.notes)


def test_bail_out_inside_a_subtest_keeps_the_subtest_prefix() -> None:
    text = "1..1\n# Subtest: s\n    1..2\n    ok 1 - x\n    Bail out! gone\n"
    results = parse_tap(text)
    assert _pairs(results) == [("s > x", "passed")]
    assert results.complete is False
    assert any("Bail out! gone" in n for n in results.notes)


def test_buffered_subtests_nest_under_their_opening_test_point() -> None:
    """Regression: ``ok 1 - name {`` ... ``}`` was nested wrongly (the children under the next test)."""
    text = (
        "TAP version 14\n1..2\n"
        "ok 1 - my kids are fine {\n    1..1\n    not ok - no they aren't\n}\n"
        "not ok 2 - outer {\n    1..1\n    ok 1 - inner {\n        1..1\n        ok 1 - leaf\n    }\n}\n"
    )
    results = parse_tap(text)
    assert _pairs(results) == [
        ("my kids are fine > no they aren't", "failed"),
        ("my kids are fine", "passed"),
        ("outer > inner > leaf", "passed"),
        ("outer > inner", "passed"),
        ("outer", "failed"),
    ]
    assert results.complete is True, results.notes


def test_buffered_subtest_with_directive_and_diagnostics_first() -> None:
    text = (
        "1..2\n"
        "not ok 1 - later # todo not yet {\n    1..1\n    not ok 1 - x\n}\n"
        "ok 2 - with diag\n  ---\n  note: first\n  ...\n{\n    1..1\n    ok 1 - y\n}\n"
    )
    results = parse_tap(text)
    assert _pairs(results) == [
        ("later > x", "failed"),
        ("later", "xfail"),
        ("with diag > y", "passed"),
        ("with diag", "passed"),
    ]
    assert results.complete is True, results.notes


def test_buffered_subtest_never_closed_is_incomplete() -> None:
    results = parse_tap("1..1\nok 1 - parent {\n    1..2\n    ok 1 - a\n")
    assert results.complete is False


def test_bail_out_inside_a_buffered_subtest_drops_its_opening_result() -> None:
    """The buffered ``ok`` summarises a block that bailed out: tap-parser drops it, and so do we."""
    results = parse_tap("1..2\nok 1 - p {\n    1..2\n    ok 1 - a\n    Bail out! gone\n}\nok 2 - q\n")
    assert _pairs(results) == [("p > a", "passed")]
    assert results.complete is False


def test_node_escapes_give_node_own_names() -> None:
    """node escapes control characters first and backslashes after: a tab reaches TAP as ``\\\\t``."""
    text = "TAP version 13\n# Subtest: tab\\\\there\nok 1 - tab\\\\there\n1..1\n"
    assert [t.id for t in parse_tap(text, node_escapes=True).tests] == ["tab\there"]
    assert [t.id for t in parse_tap(text).tests] == ["tab\\there"]


def test_a_name_ending_in_an_escaped_control_character_keeps_it() -> None:
    """node's own fixture ``escaped description ... \\r``: the name is trimmed before its escapes
    are read, so a trailing escaped carriage return stays in the id."""
    (result,) = parse_tap("1..1\nok 1 - tail \\\\r\n", node_escapes=True).tests
    assert result.id == "tail \r"


def test_subtest_yaml_block_attaches_to_the_nested_test() -> None:
    text = (
        "1..1\n# Subtest: s\n    1..1\n"
        "    not ok 1 - x\n      ---\n      error: nope\n      ...\n"
        "not ok 1 - s\n"
    )
    tests = _by_id(parse_tap(text))
    assert tests["s > x"].message == "error: nope"
    assert tests["s"].message is None


# -- registry and id matching -----------------------------------------------------------------------


def test_tap_runner_is_registered_under_its_name() -> None:
    assert isinstance(get_runner("tap"), TapRunner)


def test_match_ids_on_tap_results_worst_duplicate_wins_and_unknown_is_none() -> None:
    results = parse_tap("1..3\nok 1 - same name\nnot ok 2 - same name\nok 3 - other\n")
    matched = match_ids(TapRunner(), ["same name", "  other ", "missing"], results)
    assert matched["same name"] is not None
    assert matched["same name"].outcome is Outcome.FAILED
    assert matched["  other "] is not None
    assert matched["  other "].outcome is Outcome.PASSED
    assert matched["missing"] is None


def test_match_ids_finds_nested_node_tests_by_their_joined_id() -> None:
    results = _fixture("node_nested.tap")
    matched = match_ids(TapRunner(), ["math > division > divides", "divides"], results)
    assert matched["math > division > divides"] is not None
    assert matched["divides"] is None


def test_is_listed_counts_a_suite_holding_a_listed_test_and_nothing_else() -> None:
    """The one id rule validate uses to tell listed failures from unlisted ones (it had its own copy)."""
    from patchbench.runners import get_runner, is_listed

    tap = get_runner("tap")
    wanted = ["suite > fails when empty", "top level"]
    assert is_listed(tap, "suite > fails when empty", wanted)
    assert is_listed(tap, "suite", wanted)  # the suite fails because its listed child does
    assert is_listed(tap, "top level", wanted)
    assert not is_listed(tap, "suite > another", wanted)
    assert not is_listed(tap, "sui", wanted)
