"""Java environments: a JDK, and either a warmed-up offline Maven repository or the JUnit console launcher.

Two modes, chosen from the task:

* **Maven** (a ``pom.xml`` in the workspace, or one that the gold patch creates, for a task that starts
  from an empty project as seed 003's do): the setup phase copies the workspace with the hidden tests
  (and the gold patch applied when there is one, so that everything compiles and the test goal really
  runs) into a scratch directory and, with ``-Dmaven.repo.local=<env>/m2``, runs
  ``mvn -B -q dependency:go-offline`` and then the task's own test commands with test failures ignored.
  ``go-offline`` alone misses what Maven resolves only while building (the compiler's and Surefire's
  own dependencies, the JUnit Platform provider Surefire picks at run time), hence the real run. It then
  runs the commands again *offline* against that repository, and refuses the environment (EnvError)
  if Maven still asks for anything it does not have, naming it. What these runs installed into the
  repository (the task's own modules, built from the gold code) is removed (:func:`drop_installed`).
  They execute the task's own build and tests on the host, like any setup command: the task is trusted
  input; no candidate code is ever part of them.
  A Harbor task's test command (``bash /tests/test.sh``) only runs inside its sandbox, so its warm-up
  runs ``mvn -B test`` instead (:data:`SCRIPT_WARMUP`), with its ``.java`` hidden tests copied under
  ``src/test/java/<their package>/`` as seed 003's verifiers do.

  In the sandbox, ``JAVA_TOOL_OPTIONS`` sets ``-Duser.home=/tmp`` (the sandbox's uid has no passwd
  entry: Java would otherwise take ``?`` as the home directory, and Maven would look for ``?/.m2``
  inside the workspace), and a prelude writes ``/tmp/.m2/settings.xml`` with ``<offline>true</offline>``
  and a local repository in ``/tmp/patchbench-m2.*``: a tree of writable directories whose files are
  symbolic links into the read-only ``<env>/m2``. A read-only repository used in place works for
  ``mvn test`` offline (measured: Maven 3.8.7 writes nothing into it when everything is there) but not
  for ``install``, and Maven 3.8 has no chained local repositories; the link tree (measured: 20-90 ms
  for a JUnit project's ~1,800 entries) lets goals that write to the local repository work while the
  cached files stay read-only. Maven 3.8.7 does not read ``MAVEN_ARGS`` and no ``-D`` in ``MAVEN_OPTS``
  makes it work offline, so settings are the way in; ``MAVEN_OPTS`` carries only options for Maven's
  own JVM (:data:`MAVEN_JVM_OPTIONS`).

* **Plain javac** (no ``pom.xml``): the setup phase fetches the JUnit Platform console launcher
  (``org.junit.platform:junit-platform-console-standalone``, :data:`CONSOLE_LAUNCHER_VERSION`) from
  Maven Central with maven-dependency-plugin into ``<env>/lib``; test commands find it through
  ``$JUNIT_CONSOLE_JAR`` and compile and run the tests themselves, e.g.
  ``javac -d /tmp/classes -cp "$JUNIT_CONSOLE_JAR" $(find src tests -name '*.java') && java -jar
  "$JUNIT_CONSOLE_JAR" execute -cp /tmp/classes --scan-class-path``.

Memory: the sandbox limits memory with a 4 GiB cgroup (which the JVM cannot see: ``/sys`` is not
mounted) or, without cgroups, with RLIMIT_AS = 4 GiB, under which a default JVM (a quarter of the host's
RAM as heap, 1 GiB of compressed class space, 240 MiB of code cache, one malloc arena per thread) does
not start. ``JAVA_TOOL_OPTIONS`` therefore caps every JVM the test command starts (Maven's and the forked
test JVM alike) and ``MALLOC_ARENA_MAX`` caps glibc's arenas; the JVM notes the options on stderr
(``Picked up JAVA_TOOL_OPTIONS``). A task's own ``-Xmx`` (Surefire ``argLine``) comes later and wins.

The JDK is picked from ``/usr/lib/jvm`` (and ``$JAVA_HOME``, and ``javac`` on PATH) by the major version
the task's image names (``maven:3.9-eclipse-temurin-21`` → 21): that major version, else the oldest
newer one, else the default JDK with a note. The key covers the JDK, Maven's version, every pom.xml and
``.mvn/`` file of the task (and of its gold patch), the test commands and setup commands, or in plain
mode the launcher's version.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import posixpath
import re
import shlex
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from ..errors import EnvError, PatchError
from ..task import EnvSpec, Task, TestCommand, VerifierKind
from ..workspace import apply_patch, materialise, patch_paths
from ._base import Env, Prepared

#: The JUnit Platform console launcher fetched for plain-javac tasks (served by Maven Central).
CONSOLE_LAUNCHER_VERSION = "1.14.1"
CONSOLE_LAUNCHER = "org.junit.platform:junit-platform-console-standalone"
#: The maven-dependency-plugin that fetches it, pinned so the setup phase does not depend on metadata.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
#: Where the JVMs of a test run find their home directory and Maven its settings and repository.
SANDBOX_HOME = "/tmp"
#: Options for every JVM in the sandbox (see the module docstring).
JVM_OPTIONS = (
    f"-Duser.home={SANDBOX_HOME}",
    "-Xmx1536m",
    "-XX:ReservedCodeCacheSize=128m",
    "-XX:CompressedClassSpaceSize=256m",
    "-XX:MaxMetaspaceSize=512m",
)
#: Options for Maven's own JVM only: the C1 compiler alone and the serial collector start a short
#: build faster (measured: about a third less CPU for ``mvn -q test`` on a small project). The forked
#: test JVM keeps the JDK's defaults.
MAVEN_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
#: Where JDKs are looked for, besides $JAVA_HOME and the javac on PATH.
JVM_DIRS = ("/usr/lib/jvm",)
#: Build files whose content decides what Maven resolves.
_BUILD_FILE = re.compile(r"(?:^|/)(?:pom\.xml|\.mvn/[^/]+(?:/[^/]+)?)$")
_IMAGE_JDK = re.compile(
    r"(?:jdk|java|temurin|corretto|zulu|liberica|semeru|graalvm|sapmachine|jre)[-:_]?(\d{1,2})(?!\d)", re.I
)
# What Maven prints when offline it misses something the warm-up did not fetch.
_OFFLINE_MISS = re.compile(
    r"offline mode and the (?:artifact|plugin)|has not been downloaded from it before"
    r"|Cannot access \S+ \([^)]*\) in offline mode|could not be resolved: Cannot access",
    re.I,
)
WARMUP_TIMEOUT_S = 1800.0


def wanted_jdk(spec: EnvSpec) -> int | None:
    """The JDK major version a spec's image asks for (``eclipse-temurin:21`` → 21), if any."""
    m = _IMAGE_JDK.search(spec.image or "")
    if not m:
        return None
    major = int(m.group(1))
    return major if 6 <= major <= 40 else None


def jdk_major(home: Path) -> int | None:
    """The major version of the JDK at ``home``, from its ``release`` file (``1.8.0_x`` → 8)."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r'^JAVA_VERSION="?([0-9][^"\s]*)', text, re.M)
    if not m:
        return None
    parts = m.group(1).split(".")
    try:
        major = int(parts[0])
        return int(parts[1]) if major == 1 and len(parts) > 1 else major
    except ValueError:
        return None


def _jdk_version(home: Path) -> str:
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown"
    m = re.search(r'^JAVA_VERSION="?([^"\s]+)', text, re.M)
    return m.group(1) if m else "unknown"


def installed_jdks() -> dict[Path, int]:
    """Every JDK (a home with ``bin/javac``) found, by real path, with its major version."""
    homes: list[Path] = []
    env_home = os.environ.get("JAVA_HOME")
    if env_home:
        homes.append(Path(env_home))
    javac = shutil.which("javac")
    if javac:
        homes.append(Path(os.path.realpath(javac)).parent.parent)
    for base in JVM_DIRS:
        d = Path(base)
        if d.is_dir():
            homes.extend(sorted(d.iterdir()))
    found: dict[Path, int] = {}
    for home in homes:
        real = Path(os.path.realpath(home))
        if real in found or not (real / "bin" / "javac").is_file():
            continue
        major = jdk_major(real)
        if major is not None:
            found[real] = major
    return found


def find_jdk(wanted: int | None) -> tuple[Path, str | None]:
    """The JDK home for major version ``wanted`` (the default JDK when None), and a note on a fallback.

    Raises:
        EnvError: no JDK at all is installed.
    """
    jdks = installed_jdks()
    if not jdks:
        raise EnvError(
            "no Java Development Kit found (javac): install one, e.g. apt-get install openjdk-17-jdk-headless"
        )
    javac = shutil.which("javac")
    default = Path(os.path.realpath(javac)).parent.parent if javac else next(iter(jdks))
    if default not in jdks:
        default = next(iter(jdks))
    if wanted is None:
        return default, None
    exact = [h for h, v in jdks.items() if v == wanted]
    if exact:
        return (default if default in exact else exact[0]), None
    newer = sorted((v, str(h)) for h, v in jdks.items() if v > wanted)
    if newer:
        v, home = newer[0]
        return Path(home), f"JDK {wanted} was asked for but is not installed; using JDK {v} ({home})"
    return default, (
        f"JDK {wanted} was asked for but is not installed; using JDK {jdks[default]} ({default})"
    )


@functools.lru_cache(maxsize=8)
def _maven_version(mvn: str) -> str:
    """Maven's version, read from its maven-core jar (milliseconds), else from ``mvn -v`` (~0.3 s)."""
    home = Path(os.path.realpath(mvn)).parent.parent
    for jar in sorted((home / "lib").glob("maven-core*.jar")):
        try:
            with zipfile.ZipFile(jar) as z:
                props = z.read("META-INF/maven/org.apache.maven/maven-core/pom.properties").decode()
        except (OSError, KeyError, zipfile.BadZipFile):
            continue
        m = re.search(r"^version=(\S+)", props, re.M)
        if m:
            return m.group(1)
    try:
        r = subprocess.run(
            [mvn, "-v"], capture_output=True, text=True, timeout=60, check=False, env=_plain_env()
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"cannot run {mvn} -v: {e}") from e
    m = re.search(r"Apache Maven (\S+)", re.sub(r"\x1b\[[0-9;]*m", "", r.stdout))
    return m.group(1) if m else "unknown"


def _plain_env() -> dict[str, str]:
    """The host environment without variables that would change what Maven or the JVM do."""
    drop = (
        "MAVEN_OPTS",
        "MAVEN_ARGS",
        "JAVA_TOOL_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "_JAVA_OPTIONS",
        "MAVEN_CONFIG",
    )
    return {k: v for k, v in os.environ.items() if k not in drop}


_MAVEN_WORD = re.compile(r"(?:^|[\s/;&|(])(?:mvn|mvnw|mvnd)(?=\s|$)")


def uses_maven(task: Task) -> bool:
    """Whether a task builds with Maven: a ``pom.xml`` in its workspace or hidden tests, or one that its
    gold patch creates (a Harbor task whose agent writes the whole project into an empty /app)."""
    if any(Path(f.path).name == "pom.xml" for f in (*task.workspace, *task.hidden_tests)):
        return True
    if task.repository is not None:
        # The pom.xml is in the repository, not in the task: the test command says how it builds.
        return any(_MAVEN_WORD.search(c.display()) for c in task.test.commands)
    gold = task.gold_patch or ""
    return bool(gold) and any(Path(p).name == "pom.xml" for p in _safe_patch_paths(gold))


#: The warm-up of a task whose verifier is a Harbor script: the script itself runs inside the task's
#: image (/app, /tests), not on the host, so the Maven goal such verifiers run stands in for it.
SCRIPT_WARMUP = (TestCommand(argv=("mvn", "-B", "test")),)
_JAVA_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)


def _is_script(task: Task) -> bool:
    return task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT


def _warmup_commands(task: Task) -> tuple[TestCommand, ...]:
    return SCRIPT_WARMUP if _is_script(task) else task.test.commands


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class JavaEnv(Env):
    """A JDK plus an offline Maven repository (Maven tasks) or the JUnit console launcher (javac tasks)."""

    name = "java"
    languages = ("java",)

    # -- key ------------------------------------------------------------------------------------

    def describe(self, task: Task) -> dict[str, Any]:
        home, _ = find_jdk(wanted_jdk(task.env))
        desc: dict[str, Any] = {
            "jdk": str(home),
            "jdk_version": _jdk_version(home),
            "setup_cmds": list(task.env.setup_cmds),
        }
        if not uses_maven(task):
            desc |= {"mode": "plain", "console_launcher": f"{CONSOLE_LAUNCHER}:{CONSOLE_LAUNCHER_VERSION}"}
            return desc
        mvn = shutil.which("mvn")
        build_files = {
            f.path: _digest(f.data())
            for f in (*task.workspace, *task.hidden_tests)
            if _BUILD_FILE.search(f.path)
        }
        gold = task.gold_patch or ""
        gold_build = bool(gold) and any(_BUILD_FILE.search(p) for p in _safe_patch_paths(gold))
        desc |= {
            "mode": "maven",
            "maven": _maven_version(mvn) if mvn else None,
            "build_files": build_files,
            "gold_build_patch": _digest(gold.encode()) if gold_build else None,
            "commands": [c.display() for c in _warmup_commands(task)],
            "workdir": task.test.workdir,
        }
        return desc

    # -- setup phase ----------------------------------------------------------------------------

    def build(self, task: Task, dest: Path) -> None:
        home, _ = find_jdk(wanted_jdk(task.env))
        mvn = shutil.which("mvn")
        if mvn is None:
            what = "to fetch the JUnit console launcher" if not uses_maven(task) else "for this Maven task"
            raise EnvError(f"Maven (mvn) is not installed, needed {what}: apt-get install maven")
        env = _plain_env() | {
            "JAVA_HOME": str(home),
            "PATH": f"{home / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        }
        if uses_maven(task):
            self._build_maven(task, dest, mvn, env)
        else:
            self._build_plain(task, dest, mvn, env)

    def _build_plain(self, task: Task, dest: Path, mvn: str, env: dict[str, str]) -> None:
        lib = dest / "lib"
        lib.mkdir()
        with tempfile.TemporaryDirectory(prefix="patchbench-java-") as tmp:
            _run(
                [
                    mvn,
                    "-B",
                    "-q",
                    f"-Dmaven.repo.local={Path(tmp) / 'm2'}",
                    f"{DEPENDENCY_PLUGIN}:copy",
                    f"-Dartifact={CONSOLE_LAUNCHER}:{CONSOLE_LAUNCHER_VERSION}",
                    f"-DoutputDirectory={lib}",
                ],
                f"fetching {CONSOLE_LAUNCHER}:{CONSOLE_LAUNCHER_VERSION} from Maven Central",
                cwd=Path(tmp),
                env=env,
            )
            if task.env.setup_cmds and task.repository is None:  # a repository's run in its checkout
                work = Path(tmp) / "workspace"
                materialise((*task.workspace, *task.hidden_tests), work)
                for cmd in task.env.setup_cmds:
                    _run(["bash", "-c", cmd], f"setup command {cmd!r}", cwd=work, env=env)
        if not (lib / _launcher_jar_name()).is_file():
            raise EnvError(f"{CONSOLE_LAUNCHER}:{CONSOLE_LAUNCHER_VERSION} was not fetched into {lib}")

    def _build_maven(self, task: Task, dest: Path, mvn: str, env: dict[str, str]) -> None:
        m2 = dest / "m2"
        m2.mkdir()
        if task.repository is not None:
            # A repository task's files (its pom.xml) are in its checkout: its env_setup_cmds fill m2
            # there (patchbench.repos.prepare_tree, with ``setup_env``); nothing to warm up here.
            return
        with tempfile.TemporaryDirectory(prefix="patchbench-java-") as tmp:
            work = Path(tmp) / "workspace"
            note = _lay_out(task, work)
            home = Path(tmp) / "home"
            (home / ".m2").mkdir(parents=True)
            settings = home / ".m2" / "settings.xml"
            menv = env | {"HOME": str(home), "MAVEN_OPTS": f"-Duser.home={home} -Dmaven.repo.local={m2}"}
            cwd = work / task.test.workdir
            for cmd in task.env.setup_cmds:
                _run(["bash", "-c", cmd], f"setup command {cmd!r}", cwd=cwd, env=menv)
            settings.write_text(_settings(m2, offline=False), encoding="utf-8")
            # Best effort: the real runs below fetch what it misses, and it fails on multi-module
            # projects whose modules depend on each other before they are installed.
            _run(
                [mvn, "-B", "-q", "dependency:go-offline"],
                "mvn dependency:go-offline",
                cwd=cwd,
                env=menv,
                check=False,
            )
            warm = menv | {"MAVEN_OPTS": menv["MAVEN_OPTS"] + " -Dmaven.test.failure.ignore=true"}
            for command in _warmup_commands(task):
                _run(
                    command.to_argv(), f"warm-up run of {command.display()!r}", cwd=cwd, env=warm, check=False
                )
            # Offline now, as in the sandbox: anything still missing is the environment's fault.
            settings.write_text(_settings(m2, offline=True), encoding="utf-8")
            for command in _warmup_commands(task):
                _clean_targets(work)
                out = _run(
                    command.to_argv(),
                    f"offline check of {command.display()!r}",
                    cwd=cwd,
                    env=warm,
                    check=False,
                )
                missing = [ln.strip() for ln in out.splitlines() if _OFFLINE_MISS.search(ln)]
                if missing:
                    raise EnvError(
                        f"the Maven repository prepared for {command.display()!r} is incomplete offline: "
                        + " ".join(missing[0].split())[:500]
                    )
        if note:
            (dest / "notes.txt").write_text(note + "\n", encoding="utf-8")
        drop_installed(m2)
        # Resolver bookkeeping that says nothing about content; keep the cache deterministic.
        for p in m2.rglob("*.lastUpdated"):
            p.unlink()

    # -- test phase -----------------------------------------------------------------------------

    def activate(self, root: Path, task: Task) -> Prepared:
        home, note = find_jdk(wanted_jdk(task.env))
        notes = [note] if note else []
        ro: list[Path] = [root]
        if not str(home).startswith(("/usr/", "/etc/", "/opt/")):
            ro.append(home)
        env = {
            "JAVA_HOME": str(home),
            "JAVA_TOOL_OPTIONS": " ".join(JVM_OPTIONS),
            "MALLOC_ARENA_MAX": "2",
        }
        prelude: tuple[str, ...] = ()
        if uses_maven(task):
            m2 = root / "m2"
            if not m2.is_dir():
                raise EnvError(f"environment {root} is broken (no m2/); run `patchbench env prune`")
            env["MAVEN_OPTS"] = " ".join(MAVEN_JVM_OPTIONS)
            src = shlex.quote(f"{m2}/.")
            prelude = (
                f'pb_m2=$(mktemp -d "{SANDBOX_HOME}/patchbench-m2.XXXXXX")',
                f'cp -rs {src} "$pb_m2" && find "$pb_m2" -type d -exec chmod u+w {{}} +',
                f"mkdir -p {SANDBOX_HOME}/.m2",
                f"cat > {SANDBOX_HOME}/.m2/settings.xml <<PATCHBENCH_EOF\n"
                f"{_settings('$pb_m2', offline=True)}PATCHBENCH_EOF",
            )
            with contextlib.suppress(OSError):
                notes += [ln for ln in (root / "notes.txt").read_text(encoding="utf-8").splitlines() if ln]
        else:
            env["JUNIT_CONSOLE_JAR"] = str(root / "lib" / _launcher_jar_name())
        setup_env: dict[str, str] = {}
        if task.repository is not None and uses_maven(task):
            # env_setup_cmds (``mvn -B install``...) download into the environment's repository, online.
            setup_env["MAVEN_OPTS"] = " ".join([*MAVEN_JVM_OPTIONS, f"-Dmaven.repo.local={root / 'm2'}"])
        return Prepared(
            key=root.name,
            root=root,
            ro_paths=tuple(ro),
            path=(str(home / "bin"),),
            env=env,
            notes=tuple(notes),
            prelude=prelude,
            setup_env=setup_env,
        )


def _launcher_jar_name() -> str:
    return f"{CONSOLE_LAUNCHER.split(':')[1]}-{CONSOLE_LAUNCHER_VERSION}.jar"


def _settings(repo: Path | str, *, offline: bool) -> str:
    return (
        "<settings>\n"
        f"  <localRepository>{repo}</localRepository>\n"
        f"  <offline>{'true' if offline else 'false'}</offline>\n"
        "</settings>\n"
    )


def _safe_patch_paths(patch: str) -> set[str]:
    try:
        return patch_paths(patch)
    except PatchError:
        return set()


def _lay_out(task: Task, work: Path) -> str | None:
    """The workspace with the hidden tests (and the gold patch, when it applies) at ``work``."""

    def restore() -> None:
        shutil.rmtree(work, ignore_errors=True)
        materialise(task.workspace, work)

    restore()
    note = None
    if task.gold_patch:
        try:
            apply_patch(work, task.gold_patch, restore=restore)
        except PatchError as e:
            restore()
            note = f"the Maven repository was warmed up on the buggy code (gold patch did not apply: {e})"
    materialise(task.hidden_tests, work)
    if _is_script(task):
        # Harbor verifiers copy their JUnit tests into the project (seed 003): place them likewise, so
        # that the warm-up compiles and runs tests and Surefire resolves its JUnit Platform provider.
        for f in task.hidden_tests:
            if f.path.endswith(".java"):
                m = _JAVA_PACKAGE.search(f.data().decode("utf-8", errors="replace"))
                pkg = m.group(1).replace(".", "/") if m else ""
                dest = posixpath.join("src/test/java", pkg, posixpath.basename(f.path))
                materialise([f.model_copy(update={"path": dest})], work)
    return note


def drop_installed(m2: Path) -> list[str]:
    """Remove from a local repository what was installed into it rather than downloaded.

    A warm-up whose command installs (``mvn install``) puts the task's own modules, built from the gold
    or buggy code, into the repository. Left there they would shadow a candidate's own build (a module
    outside the reactor resolves from the repository), and the symbolic links the sandbox lays over
    them would make the next ``install`` write into the read-only cache. The resolver records where
    each file came from in ``_remote.repositories`` (``name.jar>central=``); a version directory whose
    files all came from no repository (``name.jar>=``) was installed. ``maven-metadata-local.xml``
    (written by installs) goes too.

    Returns:
        The removed version directories, relative to ``m2``.
    """
    removed: list[str] = []
    for tracking in sorted(m2.rglob("_remote.repositories")):
        try:
            lines = tracking.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        sources = [
            ln.split(">", 1)[1].rstrip("=").strip() for ln in lines if ">" in ln and not ln.startswith("#")
        ]
        if sources and not any(sources):
            removed.append(tracking.parent.relative_to(m2).as_posix())
            shutil.rmtree(tracking.parent)
    for meta in m2.rglob("maven-metadata-local.xml"):
        meta.unlink()
    for rel in removed:  # and the directories left empty
        parent = (m2 / rel).parent
        while parent != m2 and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    return removed


def _clean_targets(work: Path) -> None:
    for target in work.rglob("target"):
        if target.is_dir() and (target.parent / "pom.xml").is_file():
            shutil.rmtree(target, ignore_errors=True)


def _run(argv: list[str], what: str, *, cwd: Path, env: dict[str, str], check: bool = True) -> str:
    """Run a setup command; returns its output (stdout and stderr together).

    Raises:
        EnvError: it could not start, timed out, or (with ``check``) exited non-zero.
    """
    cwd.mkdir(parents=True, exist_ok=True)
    try:
        r = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=WARMUP_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{what}: {e}") from e
    if check and r.returncode != 0:
        tail = " ".join(r.stdout.split())[-500:]
        raise EnvError(f"{what} failed (exit {r.returncode}): {tail}")
    return r.stdout
