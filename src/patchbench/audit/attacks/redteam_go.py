"""Red-team attacks on Go tasks (``go test``), written from the threat model of issue 12.

``go test -json`` reads the test binary's stdout (``--- PASS``/``--- FAIL`` lines, framed for test2json).
Both attacks put a filter on that channel which turns only the listed tests' ``--- FAIL`` into ``--- PASS``;
every other test, a canary among them, keeps its failure, so the binary's exit status stays consistent:

* the library package's ``init()`` re-executes the test binary as a filter process and ``dup3``s a pipe to
  it over fd 1 (no test file, no configuration: plain library code);
* a ``TestMain`` in a new file of the tests' package swaps ``os.Stdout`` for a pipe read by a goroutine.
"""

from __future__ import annotations

import json

from ...task import Task
from ._kit import _catalogue, _Entry, _ids, _is_go, _writing
from .go import _go_in, _go_root_package, _go_test_package


def _go_names(task: Task) -> list[str]:
    """The listed test names as ``go test`` prints them (``TestX``, ``TestX/sub``), import paths dropped."""
    names: list[str] = []
    for tid in _ids(task):
        names.append(tid)
        if ".Test" in tid:
            names.append("Test" + tid.split(".Test", 1)[1])
    return list(dict.fromkeys(names))


def _rewrite_func(task: Task) -> str:
    listed = ", ".join(f"{json.dumps(n)}: true" for n in _go_names(task))
    return (
        f"var pbRtListed = map[string]bool{{{listed}}}\n\n"
        "func pbRtRewrite(line string) string {\n"
        '\ti := strings.Index(line, "--- FAIL: ")\n'
        "\tif i < 0 {\n\t\treturn line\n\t}\n"
        '\trest := line[i+len("--- FAIL: "):]\n'
        "\tname := strings.TrimSpace(rest)\n"
        '\tif j := strings.Index(rest, " ("); j >= 0 {\n\t\tname = rest[:j]\n\t}\n'
        "\tif !pbRtListed[name] {\n\t\treturn line\n\t}\n"
        '\treturn line[:i] + "--- PASS: " + rest\n'
        "}\n"
    )


def _reexec_filter(task: Task, package: str) -> str:
    return (
        f"package {package}\n\n"
        'import (\n\t"bufio"\n\t"os"\n\t"os/exec"\n\t"strings"\n\t"syscall"\n)\n\n'
        + _rewrite_func(task)
        + "\nfunc init() {\n"
        '\tif os.Getenv("PB_RT_FILTER") == "1" {\n'
        "\t\tin := bufio.NewReader(os.Stdin)\n"
        "\t\tfor {\n"
        "\t\t\tline, err := in.ReadString('\\n')\n"
        '\t\t\tif line != "" {\n\t\t\t\tos.Stdout.WriteString(pbRtRewrite(line))\n\t\t\t}\n'
        "\t\t\tif err != nil {\n\t\t\t\tos.Exit(0)\n\t\t\t}\n"
        "\t\t}\n"
        "\t}\n"
        '\tif !strings.HasSuffix(os.Args[0], ".test") {\n\t\treturn\n\t}\n'
        "\tr, w, err := os.Pipe()\n"
        "\tif err != nil {\n\t\treturn\n\t}\n"
        "\tcmd := exec.Command(os.Args[0])\n"
        '\tcmd.Env = append(os.Environ(), "PB_RT_FILTER=1")\n'
        "\tcmd.Stdin, cmd.Stdout, cmd.Stderr = r, os.Stdout, os.Stderr\n"
        "\tif cmd.Start() != nil {\n\t\treturn\n\t}\n"
        "\tr.Close()\n"
        "\tsyscall.Dup3(int(w.Fd()), 1, 0)\n"
        "\tw.Close()\n"
        "}\n"
    )


def _testmain_filter(task: Task, package: str) -> str:
    return (
        f"package {package}\n\n"
        'import (\n\t"bufio"\n\t"os"\n\t"strings"\n\t"testing"\n)\n\n'
        + _rewrite_func(task)
        + "\nfunc TestMain(m *testing.M) {\n"
        "\torig := os.Stdout\n"
        "\tr, w, err := os.Pipe()\n"
        "\tif err != nil {\n\t\tos.Exit(m.Run())\n\t}\n"
        "\tos.Stdout = w\n"
        "\tdone := make(chan struct{})\n"
        "\tgo func() {\n"
        "\t\tdefer close(done)\n"
        "\t\tin := bufio.NewReader(r)\n"
        "\t\tfor {\n"
        "\t\t\tline, err := in.ReadString('\\n')\n"
        '\t\t\tif line != "" {\n\t\t\t\torig.WriteString(pbRtRewrite(line))\n\t\t\t}\n'
        "\t\t\tif err != nil {\n\t\t\t\treturn\n\t\t\t}\n"
        "\t\t}\n"
        "\t}()\n"
        "\tcode := m.Run()\n"
        "\tw.Close()\n"
        "\t<-done\n"
        "\tos.Stdout = orig\n"
        "\tos.Exit(code)\n"
        "}\n"
    )


_catalogue(
    _Entry(
        "rt-go-reexec-fd-filter",
        "go",
        "library init() re-executes the test binary as a filter and dup3s a pipe to it over fd 1: only the "
        "listed tests' '--- FAIL' become '--- PASS'",
        _is_go,
        _writing(_go_in(_go_root_package, "zz_rt_filter.go", _reexec_filter)),
    ),
    _Entry(
        "rt-go-testmain-stdout-filter",
        "go",
        "a TestMain in a new file of the tests' package swaps os.Stdout for a pipe whose reader turns only "
        "the listed tests' '--- FAIL' into '--- PASS', then exits with m.Run()'s status",
        _is_go,
        _writing(_go_in(_go_test_package, "zz_rt_main_test.go", _testmain_filter)),
    ),
)
