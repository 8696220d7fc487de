"""The Java environment: key, JDK choice, toolchain checks, activation, and (slow) real builds used by the
harness in both modes (Maven with an offline repository, plain javac with the console launcher)."""

from __future__ import annotations

import shutil
import stat
import time
from pathlib import Path

import pytest

import patchbench
from patchbench import Candidate, FileEntry, Task, TestCommand, TestSpec
from patchbench.data import builtin_path
from patchbench.envs import env_for
from patchbench.envs.java import (
    CONSOLE_LAUNCHER_VERSION,
    JVM_OPTIONS,
    JavaEnv,
    drop_installed,
    find_jdk,
    jdk_major,
    uses_maven,
    wanted_jdk,
)
from patchbench.errors import EnvError
from patchbench.formats.hardbug import read_task_dir
from patchbench.harness import Defences
from patchbench.task import EnvSpec
from patchbench.verdict import Status

#: The environment is what these tests are about: a task changed for one test (another command) is not
#: calibrated for control tests (two more Maven runs of its own), which tests/canary covers.
NO_CONTROLS = Defences(controls=False)

HAVE_JDK = shutil.which("javac") is not None
HAVE_MAVEN = shutil.which("mvn") is not None
needs_java = pytest.mark.skipif(not (HAVE_JDK and HAVE_MAVEN), reason="a JDK and Maven are needed")

BUILTIN_ID = "java-reconcile-fractional-quantity"

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>t</groupId><artifactId>t</artifactId><version>1</version>
</project>
"""
CALC = "public final class Calc {\n    public static int add(int a, int b) { return a - b; }\n}\n"
CALC_FIXED = CALC.replace("a - b", "a + b")
CALC_TEST = """import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CalcTest {
    @Test
    void addsPositives() { assertEquals(5, Calc.add(2, 3)); }

    @Test
    void addsZero() { assertEquals(2, Calc.add(2, 0)); }
}
"""
PLAIN_COMMAND = (
    'javac -d /tmp/classes -cp "$JUNIT_CONSOLE_JAR" $(find src tests -name "*.java") && '
    'java -jar "$JUNIT_CONSOLE_JAR" execute -cp /tmp/classes --scan-class-path --disable-banner'
)


def java_task(
    files: dict[str, str] | None = None,
    *,
    command: TestCommand | None = None,
    image: str | None = None,
    setup_cmds: tuple[str, ...] = (),
    gold: str | None = None,
) -> Task:
    files = {"pom.xml": POM, "src/main/java/A.java": "class A {}\n"} if files is None else files
    return Task(
        id="java-tiny",
        language="java",
        workspace=tuple(FileEntry(path=k, content=v) for k, v in files.items()),
        test=TestSpec(commands=(command or TestCommand(argv=("mvn", "-q", "-B", "test")),)),
        env=EnvSpec(language="java", image=image, setup_cmds=setup_cmds),
        gold_patch=gold,
    )


def plain_task() -> Task:
    return Task(
        id="java-plain",
        language="java",
        workspace=(FileEntry(path="src/Calc.java", content=CALC),),
        hidden_tests=(FileEntry(path="tests/CalcTest.java", content=CALC_TEST),),
        test=TestSpec(commands=(TestCommand(shell=PLAIN_COMMAND),), time_limit_s=120),
        env=EnvSpec(language="java"),
        fail_to_pass=("CalcTest#addsPositives",),
        pass_to_pass=("CalcTest#addsZero",),
        gold_patch=(
            "--- a/src/Calc.java\n+++ b/src/Calc.java\n@@ -1,3 +1,3 @@\n public final class Calc {\n"
            "-    public static int add(int a, int b) { return a - b; }\n"
            "+    public static int add(int a, int b) { return a + b; }\n }\n"
        ),
    )


# -- fast: no build ---------------------------------------------------------------------------------


def test_java_language_maps_to_this_env(tmp_path: Path) -> None:
    assert isinstance(env_for("java", tmp_path), JavaEnv)


@pytest.mark.parametrize(
    ("image", "major"),
    [
        ("maven:3.9-eclipse-temurin-21", 21),
        ("maven:3.8.7-eclipse-temurin-17", 17),
        ("openjdk:11-jdk-slim", 11),
        ("eclipse-temurin:25", 25),
        ("amazoncorretto:8", 8),
        ("python:3.11-slim", None),
        (None, None),
    ],
)
def test_the_image_names_the_jdk_major_version(image: str | None, major: int | None) -> None:
    assert wanted_jdk(EnvSpec(language="java", image=image)) == major


def test_jdk_major_reads_the_release_file(tmp_path: Path) -> None:
    (tmp_path / "release").write_text('JAVA_VERSION="1.8.0_402"\n')
    assert jdk_major(tmp_path) == 8
    (tmp_path / "release").write_text('IMPLEMENTOR="x"\nJAVA_VERSION="17.0.15"\n')
    assert jdk_major(tmp_path) == 17
    assert jdk_major(tmp_path / "nowhere") is None


def test_a_missing_jdk_version_falls_back_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    jdks = {Path("/jvm/17"): 17, Path("/jvm/25"): 25}
    monkeypatch.setattr("patchbench.envs.java.installed_jdks", lambda: jdks)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    assert find_jdk(17) == (Path("/jvm/17"), None)
    home, note = find_jdk(21)
    assert home == Path("/jvm/25") and note and "JDK 21 was asked for" in note
    home, note = find_jdk(30)
    assert home == Path("/jvm/17") and note and "using JDK 17" in note


def test_missing_toolchain_is_an_env_error_naming_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_which = shutil.which
    missing = {"javac", "mvn"}

    def which(name: str, *args: object, **kwargs: object) -> str | None:
        return None if name in missing else real_which(name)

    monkeypatch.setattr(shutil, "which", which)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr("patchbench.envs.java.JVM_DIRS", (str(tmp_path / "no-jvm"),))
    with pytest.raises(EnvError, match=r"no Java Development Kit .*apt-get install openjdk-17-jdk-headless"):
        JavaEnv(tmp_path).prepare(java_task())
    verdict = patchbench.run(java_task(), Candidate.empty(), cache_dir=tmp_path)
    assert verdict.status is Status.INFRA_ERROR
    assert "openjdk" in verdict.reason

    if HAVE_JDK:  # a JDK but no Maven
        missing.discard("javac")
        with pytest.raises(EnvError, match=r"Maven \(mvn\) is not installed.*apt-get install maven"):
            JavaEnv(tmp_path).prepare(java_task())
        with pytest.raises(EnvError, match=r"to fetch the JUnit console launcher.*apt-get install maven"):
            JavaEnv(tmp_path).prepare(plain_task())
    assert not list((tmp_path / "envs").glob("java-*/.ready"))


@needs_java
def test_key_follows_jdk_build_files_commands_and_setup_but_not_sources(tmp_path: Path) -> None:
    env = JavaEnv(tmp_path)
    base = env.key(java_task())
    assert base.startswith("java-")
    assert env.key(java_task()) == base
    # Sources are not in the key: they warm the repository, they do not define it.
    assert env.key(java_task({"pom.xml": POM, "src/main/java/A.java": "class A { int x; }\n"})) == base
    changed = {
        env.key(java_task({"pom.xml": POM.replace("<version>1<", "<version>2<")})),
        env.key(java_task({"pom.xml": POM, "core/pom.xml": POM})),
        env.key(java_task({"pom.xml": POM, ".mvn/maven.config": "-T1\n"})),
        env.key(java_task(command=TestCommand(argv=("mvn", "-B", "verify")))),
        env.key(java_task(setup_cmds=("true",))),
        env.key(java_task(gold="--- a/pom.xml\n+++ b/pom.xml\n@@ -1 +1 @@\n-<project>\n+<project >\n")),
        env.key(plain_task()),
    }
    assert base not in changed
    assert len(changed) == 7
    # A gold patch that touches no build file does not change the key.
    assert env.key(java_task(gold=plain_task().gold_patch)) == base
    desc = env.describe(plain_task())
    assert desc["mode"] == "plain" and desc["console_launcher"].endswith(CONSOLE_LAUNCHER_VERSION)
    assert uses_maven(java_task()) and not uses_maven(plain_task())


@needs_java
def test_activation_caps_the_jvm_and_points_maven_at_an_offline_copy_of_the_repository(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    (root / "m2").mkdir(parents=True)
    prepared = JavaEnv(tmp_path).activate(root, java_task())
    env = prepared.env
    assert env["JAVA_TOOL_OPTIONS"] == " ".join(JVM_OPTIONS)
    assert "-Duser.home=/tmp" in env["JAVA_TOOL_OPTIONS"] and "-Xmx" in env["JAVA_TOOL_OPTIONS"]
    assert env["MALLOC_ARENA_MAX"] == "2"
    assert "TieredStopAtLevel=1" in env["MAVEN_OPTS"]
    assert Path(env["JAVA_HOME"], "bin", "javac").is_file()
    assert prepared.path == (str(Path(env["JAVA_HOME"]) / "bin"),)
    assert root in prepared.ro_paths
    prelude = "\n".join(prepared.prelude)
    assert f"cp -rs {root}/m2/." in prelude
    assert "/tmp/.m2/settings.xml" in prelude and "<offline>true</offline>" in prelude
    plain = JavaEnv(tmp_path).activate(root, plain_task())
    assert plain.env["JUNIT_CONSOLE_JAR"].endswith(
        f"junit-platform-console-standalone-{CONSOLE_LAUNCHER_VERSION}.jar"
    )
    assert plain.prelude == () and "MAVEN_OPTS" not in plain.env
    with pytest.raises(EnvError, match="broken"):
        JavaEnv(tmp_path).activate(tmp_path / "empty", java_task())


# -- slow: real environments, used by the harness ---------------------------------------------------


@pytest.fixture(scope="module")
def builtin_task() -> Task:
    return read_task_dir(builtin_path() / "tasks" / BUILTIN_ID)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("java-env-cache")


@pytest.mark.slow
@needs_java
def test_cold_build_then_warm_prepare_is_a_cache_hit(builtin_task: Task, cache: Path) -> None:
    env = JavaEnv(cache)
    t0 = time.monotonic()
    cold = env.prepare(builtin_task)
    cold_s = time.monotonic() - t0
    assert not cold.cache_hit
    warm = env.prepare(builtin_task)
    assert warm.cache_hit
    assert warm.key == cold.key
    assert warm.seconds < 2.0, (cold_s, warm.seconds)
    print(f"java env: cold prepare {cold_s:.1f}s, warm prepare {warm.seconds * 1000:.0f}ms")
    m2 = warm.root / "m2"
    jars = [p for p in m2.rglob("*.jar")]
    names = {p.name for p in jars}
    # Not only what go-offline finds: Surefire's JUnit Platform provider is resolved at run time.
    assert any(n.startswith("surefire-junit-platform-") for n in names), sorted(names)
    assert any(n.startswith("junit-jupiter-engine-") for n in names)
    assert all(not (p.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) for p in jars)
    assert not list(m2.rglob("*.lastUpdated"))
    assert not warm.notes


@pytest.mark.slow
@needs_java
def test_gold_resolves_and_empty_fails_exactly_the_f2p_tests(builtin_task: Task, cache: Path) -> None:
    gold = patchbench.run(builtin_task, Candidate.gold(), cache_dir=cache)
    assert gold.status is Status.RESOLVED, gold.reason
    assert gold.env_cache_hit
    assert gold.durations.test_s < 20
    empty = patchbench.run(builtin_task, Candidate.empty(), cache_dir=cache)
    assert empty.status is Status.UNRESOLVED
    failed = {t.id for t in empty.tests if not t.outcome.ok}
    assert failed == set(builtin_task.fail_to_pass)


@pytest.mark.slow
@needs_java
def test_a_candidate_that_does_not_compile_is_unresolved_with_the_compiler_message(
    builtin_task: Task, cache: Path
) -> None:
    path = "src/main/java/recon/Reconciler.java"
    source = builtin_task.workspace_map()[path]
    broken = source.replace("amount);\n        }", "amount.stripTrailingZeros()\n        }", 1)
    assert broken != source
    verdict = patchbench.run(builtin_task, Candidate.files({path: broken}), cache_dir=cache)
    assert verdict.status is Status.UNRESOLVED
    assert "the code did not build" in verdict.reason
    assert "Reconciler.java:[" in verdict.reason and "expected" in verdict.reason
    assert "/workspace/" not in verdict.reason


@pytest.mark.slow
@needs_java
def test_a_dependency_the_offline_repository_lacks_is_a_build_error(builtin_task: Task, cache: Path) -> None:
    pom = builtin_task.workspace_map()["pom.xml"].replace(
        "  </dependencies>",
        "    <dependency><groupId>org.example.nowhere</groupId><artifactId>gone</artifactId>"
        "<version>1.0</version></dependency>\n  </dependencies>",
    )
    verdict = patchbench.run(builtin_task, Candidate.files({"pom.xml": pom}), cache_dir=cache)
    assert verdict.status is Status.UNRESOLVED
    assert "Could not resolve dependencies" in verdict.reason and "offline" in verdict.reason


@pytest.mark.slow
@needs_java
def test_plain_javac_task_with_the_console_launcher(cache: Path) -> None:
    task = plain_task()
    gold = patchbench.run(task, Candidate.gold(), cache_dir=cache)
    assert gold.status is Status.RESOLVED, (gold.reason, gold.stdout_tail, gold.stderr_tail)
    assert gold.runner == "junit"
    empty = patchbench.run(task, Candidate.empty(), cache_dir=cache)
    assert empty.status is Status.UNRESOLVED
    assert {c.id: c.outcome for c in empty.fail_to_pass} == {"CalcTest#addsPositives": "failed"}
    broken = patchbench.run(
        task, Candidate.files({"src/Calc.java": CALC_FIXED.replace(";", "", 1)}), cache_dir=cache
    )
    assert broken.status is Status.UNRESOLVED
    assert "Calc.java:2: error:" in broken.reason
    again = JavaEnv(cache).prepare(task)
    assert again.cache_hit and (again.root / "lib").is_dir()


def test_the_offline_check_recognises_what_maven_prints_for_a_missing_artifact() -> None:
    from patchbench.envs.java import _OFFLINE_MISS

    captured = (
        Path(__file__).resolve().parent.parent / "fixtures" / "junit" / "maven_missing_dependency.stdout"
    )
    lines = [ln for ln in captured.read_text(encoding="utf-8").splitlines() if _OFFLINE_MISS.search(ln)]
    assert len(lines) == 1 and "org.example.patchbench:not-there:jar:1.0" in lines[0]
    full = captured.with_name("maven_full.stdout").read_text(encoding="utf-8")
    assert not any(_OFFLINE_MISS.search(ln) for ln in full.splitlines())


def test_artifacts_the_warm_up_installed_are_dropped_from_the_repository(tmp_path: Path) -> None:
    head = "#NOTE: This is a Maven Resolver internal implementation file\n#Mon Nov 30 06:08:57 UTC 2026\n"
    own = tmp_path / "com/example/recon/recon/1.4.2"
    own.mkdir(parents=True)
    (own / "_remote.repositories").write_text(head + "recon-1.4.2.jar>=\nrecon-1.4.2.pom>=\n")
    (own / "recon-1.4.2.jar").write_bytes(b"PK")
    (own.parent / "maven-metadata-local.xml").write_text("<metadata/>")
    dep = tmp_path / "org/junit/jupiter/junit-jupiter/5.14.1"
    dep.mkdir(parents=True)
    (dep / "_remote.repositories").write_text(head + "junit-jupiter-5.14.1.jar>central=\n")
    assert drop_installed(tmp_path) == ["com/example/recon/recon/1.4.2"]
    assert not (tmp_path / "com").exists()  # nor the directories it leaves empty
    assert (dep / "_remote.repositories").is_file()


@pytest.mark.slow
@needs_java
def test_an_install_command_writes_to_a_writable_view_of_the_read_only_repository(
    builtin_task: Task, cache: Path
) -> None:
    command = TestCommand(argv=("mvn", "-q", "-B", "install"))
    task = builtin_task.model_copy(
        update={"test": builtin_task.test.model_copy(update={"commands": (command,)})}
    )
    gold = patchbench.run(task, Candidate.gold(), cache_dir=cache, defences=NO_CONTROLS)
    assert gold.status is Status.RESOLVED, (gold.reason, gold.stdout_tail)
    m2 = JavaEnv(cache).prepare(task).root / "m2"
    assert not (m2 / "com/example/recon").exists()  # the gold build's jar never reaches a candidate
    assert list(m2.rglob("maven-install-plugin-*.jar"))
    empty = patchbench.run(task, Candidate.empty(), cache_dir=cache, defences=NO_CONTROLS)
    assert {c.id for c in empty.fail_to_pass if not c.passed} == set(task.fail_to_pass)
