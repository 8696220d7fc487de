"""The Dockerfile reader (``formats/_dockerfile.py``) on small Dockerfiles written for these tests."""

from __future__ import annotations

import pytest

from patchbench.formats._dockerfile import (
    Copy,
    RunStep,
    layable,
    logical_lines,
    parse,
    split_steps,
    uvx_packages,
    workspace_dir,
)

CONTEXT = {
    "data/rows.csv": (b"a,b\n1,2\n", False),
    "data/more/x.txt": (b"x\n", False),
    "tool.sh": (b"#!/bin/sh\necho hi\n", True),
    "main.py": (b"print(1)\n", False),
}


def test_logical_lines_join_continuations_and_drop_comments() -> None:
    text = "FROM base\n# a comment\nRUN a && \\\n    b\n\nWORKDIR /w\n"
    assert logical_lines(text) == ["FROM base", "RUN a &&  b", "WORKDIR /w"]


def test_copies_land_at_their_absolute_destinations_anywhere() -> None:
    spec = parse(
        "FROM ubuntu:24.04\n"
        "RUN mkdir -p /workspace/data\n"
        "COPY data/rows.csv /workspace/data/rows.csv\n"
        "COPY data/ /srv/data/\n"
        "WORKDIR /workspace\n"
        "COPY main.py .\n"
        "COPY --chmod=755 main.py /opt/bin/run\n",
        CONTEXT,
    )
    assert set(spec.files) == {
        "/workspace/data/rows.csv",
        "/srv/data/rows.csv",
        "/srv/data/more/x.txt",
        "/workspace/main.py",
        "/opt/bin/run",
    }
    assert spec.files["/opt/bin/run"] == (b"print(1)\n", True)
    assert spec.workdir == "/workspace" and spec.dirs == ["/workspace"]
    assert workspace_dir(spec) == "/workspace"
    assert [type(layer) for layer in spec.layers] == [RunStep, Copy, Copy, Copy, Copy]
    assert not spec.gaps and not spec.unresolved


def test_only_the_final_stage_counts() -> None:
    spec = parse(
        "FROM golang AS build\nWORKDIR /src\nCOPY main.py /src/main.py\nRUN go build\n"
        "FROM ubuntu\nCOPY tool.sh /usr/local/bin/tool\n",
        CONTEXT,
    )
    assert spec.image == "ubuntu"
    assert list(spec.files) == ["/usr/local/bin/tool"]
    assert spec.runs == [] and spec.workdir == "/"
    assert workspace_dir(spec) == "/app"  # no WORKDIR: Harbor's /app


@pytest.mark.parametrize(
    ("workdir", "expected"),
    [("/home/user/project", "/home/user/project"), ("/usr/src/app", "/app"), ("/", "/app"), ("/tmp", "/tmp")],
)
def test_the_workspace_is_the_final_workdir_when_it_can_be_laid_out(workdir: str, expected: str) -> None:
    assert workspace_dir(parse(f"FROM x\nWORKDIR {workdir}\n", {})) == expected


def test_relative_workdirs_accumulate_and_arg_env_expand() -> None:
    spec = parse(
        "FROM x\nARG ROOT=/home\nENV USER_DIR=agent\nWORKDIR $ROOT\nWORKDIR ${USER_DIR}/proj\n"
        "ENV OUT=${ROOT}/out PATH=/opt/venv/bin:$PATH\nCOPY main.py ${OUT}/\n",
        CONTEXT,
    )
    assert spec.workdir == "/home/agent/proj"
    assert spec.dirs == ["/home", "/home/agent/proj"]
    assert spec.env["OUT"] == "/home/out" and spec.env["PATH"] == "/opt/venv/bin:$PATH"
    assert list(spec.files) == ["/home/out/main.py"]


def test_run_keeps_layout_steps_and_sets_aside_installs_links_users_and_downloads() -> None:
    spec = parse(
        "FROM x\n"
        "RUN apt-get update && apt-get install -y python3-pip r-base && "
        "ln -s /usr/bin/python3 /usr/bin/python && rm -rf /var/lib/apt/lists/*\n"
        "RUN pip3 install --no-cache-dir pytest==8.4.1 -r req.txt\n"
        "RUN mkdir -p /app /solution /data && chmod 777 /data && touch /data/.keep && "
        "ln -s /data /workspace/data\n"
        "RUN useradd -m agent && chown -R agent /data\n"
        "RUN curl -fsSL https://example.com/x.tgz -o /tmp/x.tgz && tar xzf /tmp/x.tgz -C /opt\n"
        "USER agent\n",
        CONTEXT,
    )
    assert spec.system_deps == ["python3-pip", "r-base"]
    assert spec.python_requirements == ["pytest==8.4.1"]
    assert spec.system_links == [("/usr/bin/python3", "/usr/bin/python")]
    scripts = [r.script for r in spec.runs]
    assert scripts == [
        "mkdir -p /app /solution /data && chmod 777 /data && touch /data/.keep && "
        "ln -s /data /workspace/data",
        ": && tar xzf /tmp/x.tgz -C /opt",
    ]
    assert len(spec.gaps) == 1 and "curl" in spec.gaps[0] and "offline" in spec.gaps[0]
    assert any("useradd" in n for n in spec.notes) and any("USER agent" in n for n in spec.notes)


def test_a_run_of_installs_only_is_not_replayed() -> None:
    spec = parse("FROM x\nRUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y git\n", {})
    assert spec.runs == [] and spec.system_deps == ["git"]


@pytest.mark.parametrize(
    ("command", "script"),
    [
        ("if [ -d /w ]; then pip install a; else mkdir /w; fi", "if [ -d /w ]; then :; else mkdir /w; fi"),
        ("cd /x && (pip install . ) && mkdir /o", "cd /x && (: ) && mkdir /o"),
        ("for p in a b; do pip install $p; done && mkdir /o", "for p in a b; do :; done && mkdir /o"),
        ('grep -q x <<< "$v" && mkdir /o', 'grep -q x <<< "$v" && mkdir /o'),
        # bashlex cannot parse ``case``: the top-level splitter keeps ``;;`` whole
        ("case $A in x) mkdir /a;; *) mkdir /o;; esac", "case $A in x) mkdir /a;; *) mkdir /o;; esac"),
    ],
)
def test_set_aside_steps_become_no_ops_and_the_shell_syntax_survives(command: str, script: str) -> None:
    (run,) = parse(f"FROM x\nRUN {command}\n", {}).runs
    assert run.script == script


def test_a_heredoc_run_is_a_gap_not_an_empty_file() -> None:
    spec = parse("FROM x\nRUN cat > /o/f << 'EOF'\nhello\nEOF\n", {})
    assert spec.runs == [] and any("heredoc" in g for g in spec.gaps)


def test_split_steps_respects_quotes_and_subshells() -> None:
    assert split_steps("echo 'a && b'; x=$(c && d) || e") == [
        ("echo 'a && b'", ";"),
        ("x=$(c && d)", "||"),
        ("e", ""),
    ]
    assert split_steps("case $a in x) b;; esac && c") == [("case $a in x) b;; esac", "&&"), ("c", "")]


def test_exec_form_and_run_flags() -> None:
    spec = parse('FROM x\nRUN --mount=type=cache,target=/root/.cache ["mkdir", "-p", "/out dir"]\n', {})
    assert [r.script for r in spec.runs] == ["mkdir -p '/out dir'"]


def test_what_cannot_be_resolved_is_named() -> None:
    spec = parse(
        "FROM x\nCOPY --from=build /a /app/a\nCOPY missing.txt /w/\nRUN <<EOF\necho\nEOF\nFROBNICATE now\n",
        CONTEXT,
    )
    assert spec.unresolved == ["COPY --from=build /a /app/a", "COPY missing.txt /w/"]
    assert any("heredoc" in g for g in spec.gaps) and any("FROBNICATE" in g for g in spec.gaps)


@pytest.mark.parametrize(
    ("path", "ok"),
    [("/workspace/a", True), ("/opt/x", True), ("/home/u", True), ("/usr/bin/x", False), ("/etc/x", False)],
)
def test_layable(path: str, ok: bool) -> None:
    assert layable(path) is ok


def test_uvx_packages_reads_harbors_test_template() -> None:
    script = (
        "#!/bin/bash\napt-get install -y curl\n"
        "uvx \\\n  --with pytest==8.4.1 \\\n  --with pytest-json-ctrf==0.3.5 \\\n"
        "  pytest --ctrf /logs/verifier/ctrf.json /tests/test_state.py -rA\n"
        "uvx ruff@0.5.0 check . && uvx --from httpie http example.org  # a comment\n"
        "echo uvx is not run here\n"
    )
    assert uvx_packages(script) == [
        "pytest==8.4.1",
        "pytest-json-ctrf==0.3.5",
        "pytest",
        "ruff==0.5.0",
        "httpie",
    ]
