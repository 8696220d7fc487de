"""The leak screen (leak.py): a finding's level is what the prompt adds to what the agent already has."""

from __future__ import annotations

from pathlib import Path

import pytest

import patchbench as pb
from patchbench import FileEntry, Repository, Task, TestCommand, TestSpec
from patchbench.errors import InputError
from patchbench.leak import (
    LeakLevel,
    error_output_lines,
    f2p_references,
    fixed_expressions,
    screen_prompt,
)
from patchbench.report.validation import to_markdown
from patchbench.validate import ValidationReport, judge, validate

FIXTURES = Path(__file__).parent / "fixtures" / "leak"
OUTPUTS = FIXTURES / "outputs"
SINGLE_FUNCTION = FIXTURES / "single-function"

# A module with a public entry point and the internal helper the fix edits.
PORTS = (
    "def _parse_port(text):\n"
    '    host, _, port = text.rpartition(":")\n'
    "    return host, int(port)\n"
    "\n"
    "\n"
    "def connect(address):\n"
    "    return _parse_port(address)\n"
)
PORTS_GOLD = (
    "--- a/ports.py\n+++ b/ports.py\n@@ -1,3 +1,5 @@\n def _parse_port(text):\n"
    '-    host, _, port = text.rpartition(":")\n'
    '+    host, sep, port = text.rpartition(":")\n'
    "+    if not sep:\n"
    "+        return text, DEFAULT_PORT\n"
    "     return host, int(port)\n"
)
PORTS_TESTS = (
    "from ports import connect\n\n\n"
    "def test_bare_host():\n"
    '    assert connect("example.org") == ("example.org", 80)\n\n\n'
    "def test_with_port():\n"
    '    assert connect("example.org:8080") == ("example.org", 8080)\n'
)


def ports_task(prompt: str, *, tests: str = PORTS_TESTS, repository: bool = False, **update: object) -> Task:
    """The ports task, as a files task or (``repository=True``) a repository task showing a slice."""
    files = (FileEntry(path="ports.py", content=PORTS),)
    t = Task(
        id="ports",
        prompt=prompt,
        workspace=() if repository else files,
        repository=Repository(repo="acme/ports", base_commit="0" * 40) if repository else None,
        context_files=files if repository else (),
        hidden_tests=(FileEntry(path="tests/test_ports.py", content=tests),),
        test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest", "tests")),)),
        fail_to_pass=("tests/test_ports.py::test_bare_host",),
        pass_to_pass=("tests/test_ports.py::test_with_port",),
        gold_patch=PORTS_GOLD,
    )
    return t.model_copy(update=update)


GCD = "def gcd(a, b):\n    if b == 0:\n        return a\n    return gcd(a % b, b)\n"
GCD_GOLD = (
    "--- a/gcd.py\n+++ b/gcd.py\n@@ -1,4 +1,4 @@\n def gcd(a, b):\n     if b == 0:\n         return a\n"
    "-    return gcd(a % b, b)\n+    return gcd(b, a % b)\n"
)


def gcd_task(prompt: str, tests: dict[str, str] | None = None) -> Task:
    tests = tests or {
        "tests/test_gcd.py": "from gcd import gcd\n\ndef test_gcd():\n    assert gcd(12, 18) == 6\n"
    }
    return Task(
        id="gcd",
        prompt=prompt,
        workspace=(FileEntry(path="gcd.py", content=GCD),),
        hidden_tests=tuple(FileEntry(path=p, content=c) for p, c in tests.items()),
        test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest", "tests")),)),
        fail_to_pass=("tests/test_gcd.py::test_gcd",),
        gold_patch=GCD_GOLD,
    )


def levels(task: Task) -> dict[tuple[str, str], LeakLevel]:
    return {(h.kind, h.symbol): h.level for h in screen_prompt(task).hits}


# ------------------------------------------------------------------------------ tasks shaped both ways


def test_regression_naming_the_function_the_failing_tests_call_is_not_a_leak() -> None:
    """Issue 16: the screen flagged every edited symbol the prompt named, so a dataset of single-function
    programs whose prompts say "`gcd` raises RecursionError" failed validation task after task. The
    function the failing tests call is the symptom, not the location: level ``none``, with its reason."""
    found = screen_prompt(gcd_task("`gcd` raises RecursionError on some inputs: gcd(12, 18) never returns."))
    assert found.level is LeakLevel.NONE
    [h] = found.hits
    assert (h.kind, h.symbol, h.level) == ("names_symbol", "gcd", LeakLevel.NONE)
    assert "failing tests reference gcd" in h.reason
    assert h.evidence.startswith("`gcd` raises RecursionError")


def test_the_single_function_dataset_has_no_leak_although_every_prompt_names_the_edited_function() -> None:
    """The six symptom-prompt tasks of tests/fixtures/leak/single-function: each prompt names the one
    function the gold patch edits (the old screen flagged all six); none of them is a leak now."""
    tasks = pb.load(str(SINGLE_FUNCTION)).tasks
    assert len(tasks) == 6
    for t in tasks:
        found = screen_prompt(t)
        named = [h for h in found.hits if h.kind == "names_symbol"]
        assert named and all(h.level is LeakLevel.NONE for h in named), (t.id, found.hits)
        assert found.level is not LeakLevel.LEAK, (t.id, found.hits)
    # the gcd prompt quotes the traceback Python printed for the buggy code: its buggy line is a hint
    gcd = next(t for t in tasks if t.id == "sf-gcd-recursion")
    assert screen_prompt(gcd).level is LeakLevel.HINT


def test_the_only_function_of_the_workspace_is_none_even_when_the_tests_do_not_name_it() -> None:
    """A shell test runs the module as a program: the tests never name the function, but the workspace
    has no other, so naming it narrows nothing."""
    task = Task(
        id="slug",
        prompt="`slugify` keeps trailing dashes: 'Hello World!' gives 'hello-world-'.",
        workspace=(
            FileEntry(
                path="slug.py",
                content="import sys\n\n\ndef slugify(text):\n    return text.lower().replace(' ', '-')\n\n\n"
                "print(slugify(sys.argv[1]))\n",
            ),
        ),
        hidden_tests=(FileEntry(path="tests/check.sh", content='test "$(python slug.py "Hi!")" = hi\n'),),
        test=TestSpec(commands=(TestCommand(argv=("bash", "tests/check.sh")),)),
        gold_patch="--- a/slug.py\n+++ b/slug.py\n@@ -4,2 +4,2 @@\n def slugify(text):\n"
        "-    return text.lower().replace(' ', '-')\n"
        "+    return re.sub('[^a-z0-9]+', '-', text.lower()).strip('-')\n",
    )
    [h] = screen_prompt(task).hits
    assert h.level is LeakLevel.NONE and "only function" in h.reason


def test_the_module_the_workspace_consists_of_is_none() -> None:
    """A SQL task's query file counts by its stem; when it is the whole workspace, naming it is free."""
    task = Task(
        id="report",
        language="sql",
        prompt="The `report` query leaves out members who borrowed nothing.",
        workspace=(
            FileEntry(path="report.sql", content="SELECT m.name\nFROM members m\nJOIN loans l ON 1;\n"),
        ),
        hidden_tests=(
            FileEntry(path="tests/test_report.py", content="def test_all():\n    open('report.sql')\n"),
        ),
        test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest")),)),
        fail_to_pass=("tests/test_report.py::test_all",),
        gold_patch="--- a/report.sql\n+++ b/report.sql\n@@ -3 +3 @@\n"
        "-JOIN loans l ON 1;\n+LEFT JOIN loans l ON 1;\n",
    )
    [h] = screen_prompt(task).hits
    assert (h.symbol, h.level) == ("report", LeakLevel.NONE) and "only module" in h.reason
    # with a second module beside it, the same prompt narrows the location
    two = task.model_copy(
        update={"workspace": (*task.workspace, FileEntry(path="loans.sql", content="SELECT 1;\n"))}
    )
    assert screen_prompt(two).level is LeakLevel.LEAK


def test_a_repository_task_whose_prompt_names_an_internal_helper_the_fix_edits_is_a_leak() -> None:
    task = ports_task("connect() fails without a port. The bug is in `_parse_port`.", repository=True)
    found = screen_prompt(task)
    assert found.level is LeakLevel.LEAK
    [h] = found.at_least(LeakLevel.LEAK)
    assert (h.kind, h.symbol, h.file) == ("names_symbol", "_parse_port", "ports.py")
    assert "never reference it" in h.reason and "_parse_port" in h.evidence
    # naming the entry point the failing test calls is the symptom
    assert (
        screen_prompt(ports_task("connect() fails without a port.", repository=True)).level is LeakLevel.NONE
    )


def test_a_prompt_quoting_the_fixed_line_is_a_leak() -> None:
    quoted = screen_prompt(ports_task('connect() fails; it should do host, sep, port = text.rpartition(":")'))
    [h] = quoted.at_least(LeakLevel.LEAK)
    assert (h.kind, h.symbol) == ("quotes_changed_line", 'host, sep, port = text.rpartition(":")')
    assert "adds" in h.reason


def test_a_prompt_quoting_the_buggy_line_outside_error_output_is_a_leak() -> None:
    task = gcd_task("gcd recurses forever: `return gcd(a % b, b)` never shrinks b.")
    assert levels(task) == {
        ("names_symbol", "gcd"): LeakLevel.NONE,
        ("quotes_changed_line", "return gcd(a % b, b)"): LeakLevel.LEAK,
    }
    assert "removes" in screen_prompt(task).at_least(LeakLevel.LEAK)[0].reason


def test_a_prompt_quoting_the_fixed_expression_is_a_leak() -> None:
    found = screen_prompt(gcd_task("gcd never returns; it should recurse on gcd(b, a % b) instead."))
    [h] = found.at_least(LeakLevel.LEAK)
    assert (h.kind, h.symbol) == ("quotes_fixed_expression", "gcd(b, a % b)")
    # the buggy expression is in the workspace already: quoting it gives nothing away
    assert screen_prompt(gcd_task("gcd never returns: it keeps computing a % b.")).level is LeakLevel.NONE


def test_fixed_expressions_are_the_new_expressions_of_added_lines() -> None:
    assert fixed_expressions(["    return gcd(b, a % b)"], GCD, ".py") == ["gcd(b, a % b)"]
    assert fixed_expressions(["    return gcd(a % b, b)"], GCD, ".py") == []  # already in the pre-image
    assert fixed_expressions(["  return lo + (hi - lo) / 2;"], "int mid(int lo, int hi) {}", ".java") == [
        "lo + (hi - lo) / 2",
        "(hi - lo) / 2",
        "(hi - lo)",
        "hi - lo",
    ]


def test_a_traceback_naming_the_edited_function_is_a_hint() -> None:
    """The prompt quotes the traceback Python printed for the buggy code (captured for real): it names the
    helper in a frame and shows its buggy line, which a failing test shows the agent anyway."""
    traceback = (OUTPUTS / "py_traceback.txt").read_text()
    task = ports_task(f"connect() fails on a host without a port:\n\n```\n{traceback}```\n")
    found = screen_prompt(task)
    assert found.level is LeakLevel.HINT, found.hits
    named = {h.symbol: h for h in found.hits if h.kind == "names_symbol"}
    assert named["_parse_port"].level is LeakLevel.HINT
    assert "error output" in named["_parse_port"].reason
    assert named["_parse_port"].evidence in {"return _parse_port(address)", *traceback.splitlines()}
    assert set(named) == {"_parse_port"}  # connect is not edited
    # the same prompt naming the helper in its prose is a leak again
    blamed = task.model_copy(update={"prompt": task.prompt + "\nThe bug is in _parse_port.\n"})
    assert screen_prompt(blamed).level is LeakLevel.LEAK


@pytest.mark.parametrize("capture", ["pytest_short.txt", "pytest_long.txt"])
def test_a_pytest_failure_report_naming_the_edited_function_is_a_hint(capture: str) -> None:
    report = (OUTPUTS / capture).read_text()
    task = ports_task(f"The bare-host test fails:\n\n```\n{report}```\n\nPorts default to 80.\n")
    assert levels(task)[("names_symbol", "_parse_port")] is LeakLevel.HINT


# ----------------------------------------------------------------------------- what the tests reference


def test_f2p_references_follow_the_failing_tests_not_the_passing_ones() -> None:
    """A helper only a P2P test touches is not an entry point of the failing tests."""
    tests = PORTS_TESTS + "\n\ndef test_helper_directly():\n    import ports\n    ports._parse_port('a:1')\n"
    task = ports_task("`_parse_port` drops bare hosts.", tests=tests, pass_to_pass=("test_helper_directly",))
    assert "_parse_port" not in f2p_references(task)
    assert screen_prompt(task).level is LeakLevel.LEAK
    as_f2p = task.model_copy(update={"fail_to_pass": ("tests/test_ports.py::test_helper_directly",)})
    assert "_parse_port" in f2p_references(as_f2p)
    assert screen_prompt(as_f2p).level is LeakLevel.NONE


def test_f2p_references_resolve_aliases_helpers_and_fixtures() -> None:
    tests = (
        "import pytest\n"
        "from ports import connect as dial, _parse_port as split\n\n\n"
        "@pytest.fixture\n"
        "def parsed():\n"
        '    return split("h:1")\n\n\n'
        "def check(address):\n"
        "    return dial(address)\n\n\n"
        "class TestPorts:\n"
        "    port = ports.DEFAULT_PORT\n\n"
        "    def setup_method(self):\n"
        "        self.expected = 80\n\n"
        "    def test_bare_host(self, parsed):\n"
        '        assert check("h") == ("h", self.expected)\n'
    )
    refs = f2p_references(
        ports_task("", tests=tests, fail_to_pass=("tests/test_ports.py::TestPorts::test_bare_host",))
    )
    assert {"connect", "_parse_port", "check", "parsed", "expected"} <= refs
    # imported but never used by the failing test: not a reference
    unused = "from ports import connect, _parse_port\n\n\ndef test_bare_host():\n    assert connect('h')\n"
    assert "_parse_port" not in f2p_references(ports_task("", tests=unused))


def test_the_other_tests_of_a_failing_tests_class_are_not_reached() -> None:
    """A class's helpers and setup are reached from its failing test; its passing tests are not."""
    tests = (
        "import pytest\n"
        "import ports\n\n\n"
        "@pytest.mark.usefixtures('tmp_path')\n"
        "class TestPorts:\n"
        "    port = ports.DEFAULT_PORT\n\n"
        "    def setup_method(self):\n"
        "        self.default = 80\n\n"
        "    def test_bare_host(self):\n"
        "        assert ports.connect('h') == ('h', self.port)\n\n"
        "    def test_helper(self):\n"
        "        assert ports._parse_port('h:1') == ('h', 1)\n"
    )
    task = ports_task("", tests=tests, fail_to_pass=("tests/test_ports.py::TestPorts::test_bare_host",))
    refs = f2p_references(task)
    assert {"connect", "default", "DEFAULT_PORT", "usefixtures"} <= refs
    assert "_parse_port" not in refs and "test_helper" not in refs


def test_names_in_comments_and_strings_are_not_references() -> None:
    tests = (
        "from ports import connect\n\n\n"
        "def test_bare_host():\n"
        "    # _parse_port used to crash here\n"
        '    assert connect("h") == ("h", 80), "_parse_port"\n'
    )
    assert "_parse_port" not in f2p_references(ports_task("", tests=tests))


def test_other_languages_are_read_by_the_identifiers_of_their_test_files() -> None:
    go_test = (
        'package ports\n\nimport "testing"\n\n'
        "// parsePort used to panic on bare hosts\n"
        "func TestBareHost(t *testing.T) {\n"
        '\tif got := Connect("h"); got != "80" {\n\t\tt.Fatal(got)\n\t}\n}\n'
    )
    task = ports_task("", hidden_tests=(FileEntry(path="ports_test.go", content=go_test),), language="go")
    refs = f2p_references(task)
    assert {"Connect", "TestBareHost", "Fatal"} <= refs
    assert "parsePort" not in refs


def test_tap_scripts_whose_ids_are_not_functions_are_read_whole() -> None:
    suite = (
        "import calc\nprint('1..1')\nprint('ok - adds' if calc.add_numbers(2, 3) == 5 else 'not ok - adds')\n"
    )
    task = gcd_task("", tests={"tests/suite.py": suite}).model_copy(update={"fail_to_pass": ("adds",)})
    assert "add_numbers" in f2p_references(task)


# --------------------------------------------------------------------------------------- error output


@pytest.mark.parametrize(
    ("capture", "names"),
    [
        ("py_traceback.txt", ["_parse_port", "connect", "return host, int(port)"]),
        ("py_recursion.txt", ["in gcd", "return gcd(a % b, b)", "RecursionError"]),
        ("pytest_short.txt", ["_parse_port", "connect", "return host, int(port)"]),
        ("pytest_long.txt", ["_parse_port", "connect", "return host, int(port)"]),
        ("node_error.txt", ["parsePort", "connect", "throw new TypeError"]),
        ("java_exception.txt", ["parsePort", "connect", "NumberFormatException"]),
        ("go_panic.txt", ["parsePort", "Connect", "panic:"]),
        ("rust_panic.txt", ["parse_port", "connect", "panicked at"]),
    ],
)
def test_error_output_is_recognised_in_real_tool_output(capture: str, names: list[str]) -> None:
    """Every line of the captured output that names a function of the failing program, or shows its
    source, is error output; so is the same output inside a markdown fence between prose lines."""
    text = (OUTPUTS / capture).read_text()
    prompt = f"The service crashes on a bare host.\n\n```\n{text}```\n\nSee parse_port and connect above.\n"
    lines = prompt.splitlines()
    fenced = range(3, len(lines) - 3)  # the captured text, between the fences
    assert lines[fenced[0] - 1] == lines[fenced[-1] + 1] == "```"
    out = error_output_lines(prompt)
    for name in names:
        where = [i for i in fenced if name in lines[i]]
        assert where and all(i in out for i in where), (name, [lines[i] for i in where if i not in out])
    assert not out & {0, len(lines) - 1}  # the prose around it is not


def test_prose_after_an_indented_traceback_is_not_error_output() -> None:
    prompt = (
        'Traceback (most recent call last):\n  File "x.py", line 1, in f\nValueError: bad\n\nFix f please.\n'
    )
    assert error_output_lines(prompt) == frozenset({0, 1, 2})


# ------------------------------------------------------------------------------------ validate's use


def test_validate_fails_on_leaks_by_default_and_on_hints_when_strict() -> None:
    traceback = (OUTPUTS / "py_traceback.txt").read_text()
    hint = ports_task(f"connect() fails:\n\n```\n{traceback}```\n")
    default = judge(hint, [])
    assert default.leak_level is LeakLevel.HINT and default.leaks
    assert not {p.kind for p in default.problems} & {"leak", "leak_hint"}
    strict = judge(hint, [], leak_level=LeakLevel.HINT)
    assert {p.kind for p in strict.problems} >= {"leak_hint"}
    assert any("error output" in p.message for p in strict.problems if p.kind == "leak_hint")
    leaky = judge(ports_task("The bug is in _parse_port."), [])
    assert "leak" in {p.kind for p in leaky.problems} and leaky.leak_level is LeakLevel.LEAK
    assert not judge(ports_task("The bug is in _parse_port."), [], leak=False).leaks
    with pytest.raises(InputError):
        judge(hint, [], leak_level=LeakLevel.NONE)
    with pytest.raises(InputError):  # before any run is made
        validate([hint], leak_level=LeakLevel.NONE, sandbox="none")


def test_the_markdown_report_lists_every_finding_with_its_level_and_reason() -> None:
    tasks = [
        ports_task("The bug is in _parse_port; connect() fails."),
        gcd_task("gcd(12, 18) never returns."),
    ]
    md = to_markdown(ValidationReport(tasks=[judge(t, []) for t in tasks]))
    section = md.split("## Leak screen", 1)[1]
    assert "Tasks per level: leak 1, none 1." in section
    assert (
        "| ports | leak | names_symbol | `_parse_port` | ports.py | the gold patch edits _parse_port"
        in section
    )
    assert "| gcd | none | names_symbol | `gcd` | gcd.py | the failing tests reference gcd" in section
    assert "## Leak screen" not in to_markdown(ValidationReport(tasks=[judge(tasks[0], [], leak=False)]))


def test_the_builtin_prompts_have_no_finding() -> None:
    """What ``validate builtin`` sees: no built-in prompt names an edited symbol or quotes a change."""
    for t in pb.load("builtin").tasks:
        assert screen_prompt(t).hits == [], t.id
