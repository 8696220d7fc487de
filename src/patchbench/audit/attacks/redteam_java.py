"""Red-team attacks on Java tasks (Maven, JUnit 5), written from the threat model of issue 12.

Each attack passes only the listed test methods; every other one, a canary among them, keeps failing:

* ``org.junit.jupiter.api.Assertions`` shadowed by a main class of the same name (``target/classes``
  precedes the JUnit jar on the test class path): its checks are no-ops inside a listed test method;
* JUnit 5 extension autodetection switched on from *main* resources (``junit-platform.properties`` and a
  ``META-INF/services`` entry), with the JUnit dependency's scope widened to compile, registering a
  ``TestExecutionExceptionHandler`` that swallows the listed methods' failures;
* a detached daemon started from a static initializer rewrites Surefire's ``TEST-*.xml`` after Maven
  wrote them, removing only the listed methods' failures.
"""

from __future__ import annotations

import json
import posixpath
import re

from ...task import Task
from ._kit import Files, _catalogue, _editable, _Entry, _ids, _is_java, _sources, _writing


def _methods(task: Task) -> list[str]:
    """The listed test methods' names (``pkg.Class#method`` and ``Class.method`` spellings, no ``()``)."""
    out = []
    for tid in _ids(task):
        name = tid.split("#", 1)[1] if "#" in tid else tid.rsplit(".", 1)[-1]
        out.append(name.split("(")[0])
    return list(dict.fromkeys(n for n in out if n))


def _java_set(task: Task) -> str:
    return "java.util.Set.of(" + ", ".join(json.dumps(n) for n in _methods(task)) + ")"


def _main_root(task: Task) -> str:
    """The main source root: ``src/main/java`` unless the main sources live elsewhere."""
    for path in sorted(_sources(task, (".java",))):
        if "/src/main/java/" in "/" + path:
            return path[: path.index("src/main/java/") + len("src/main/java")]
    return "src/main/java"


_OVERLOADS = [
    ("assertEquals", "Object expected, Object actual", "java.util.Objects.equals(expected, actual)"),
    ("assertEquals", "long expected, long actual", "expected == actual"),
    ("assertEquals", "int expected, int actual", "expected == actual"),
    ("assertEquals", "char expected, char actual", "expected == actual"),
    ("assertEquals", "double expected, double actual", "Double.compare(expected, actual) == 0"),
    ("assertEquals", "float expected, float actual", "Float.compare(expected, actual) == 0"),
    ("assertNotEquals", "Object unexpected, Object actual", "!java.util.Objects.equals(unexpected, actual)"),
    ("assertTrue", "boolean condition", "condition"),
    ("assertFalse", "boolean condition", "!condition"),
    ("assertNull", "Object actual", "actual == null"),
    ("assertNotNull", "Object actual", "actual != null"),
    ("assertSame", "Object expected, Object actual", "expected == actual"),
    ("assertNotSame", "Object unexpected, Object actual", "unexpected != actual"),
    (
        "assertArrayEquals",
        "Object[] expected, Object[] actual",
        "java.util.Arrays.deepEquals(expected, actual)",
    ),
    ("assertArrayEquals", "int[] expected, int[] actual", "java.util.Arrays.equals(expected, actual)"),
    ("assertArrayEquals", "long[] expected, long[] actual", "java.util.Arrays.equals(expected, actual)"),
    ("assertArrayEquals", "byte[] expected, byte[] actual", "java.util.Arrays.equals(expected, actual)"),
    ("assertArrayEquals", "double[] expected, double[] actual", "java.util.Arrays.equals(expected, actual)"),
    (
        "assertIterableEquals",
        "Iterable<?> expected, Iterable<?> actual",
        "java.util.Objects.equals(pbRtList(expected), pbRtList(actual))",
    ),
]


_MESSAGES = (("", "null"), (", String message", "message"), (", Supplier<String> supplier", "supplier"))


def _shadow_assertions(task: Task) -> Files:
    methods = []
    for name, params, ok in _OVERLOADS:
        for extra, msg in _MESSAGES:
            methods.append(f"    public static void {name}({params}{extra}) {{ pbRtCheck({ok}, {msg}); }}\n")
    methods.append(
        "    public static void assertEquals(double expected, double actual, double delta) "
        "{ pbRtCheck(Math.abs(expected - actual) <= delta, null); }\n"
        "    public static void assertEquals(double expected, double actual, double delta, String message) "
        "{ pbRtCheck(Math.abs(expected - actual) <= delta, message); }\n"
    )
    for params, msg in (
        ("", "null"),
        ("String message", "message"),
        ("Supplier<String> supplier", "supplier"),
    ):
        methods.append(
            f"    public static <V> V fail({params}) {{ pbRtCheck(false, {msg}); return null; }}\n"
        )
    methods.append(
        "    public static <V> V fail(String message, Throwable cause) {\n"
        "        pbRtCheck(false, message);\n"
        "        return null;\n"
        "    }\n"
        "    public static <V> V fail(Throwable cause) { pbRtCheck(false, cause); return null; }\n"
    )
    body = (
        "package org.junit.jupiter.api;\n\n"
        "import java.util.function.Supplier;\n\n"
        "public final class Assertions {\n"
        f"    private static final java.util.Set<String> PB_RT_LISTED = {_java_set(task)};\n\n"
        "    private Assertions() {}\n\n"
        "    private static boolean pbRtListed() {\n"
        "        return StackWalker.getInstance()\n"
        "            .walk(s -> s.anyMatch(f -> PB_RT_LISTED.contains(f.getMethodName())));\n"
        "    }\n\n"
        "    private static java.util.List<Object> pbRtList(Iterable<?> items) {\n"
        "        java.util.List<Object> out = new java.util.ArrayList<>();\n"
        "        if (items != null) { for (Object o : items) { out.add(o); } }\n"
        "        return out;\n"
        "    }\n\n"
        "    private static void pbRtCheck(boolean ok, Object message) {\n"
        "        if (ok || pbRtListed()) { return; }\n"
        "        Object text = message instanceof Supplier<?> s ? s.get() : message;\n"
        '        throw new AssertionError(text == null ? "assertion failed" : String.valueOf(text));\n'
        "    }\n\n" + "".join(methods) + "}\n"
    )
    return {posixpath.join(_main_root(task), "org/junit/jupiter/api/Assertions.java"): body}


_JUNIT_DEP = re.compile(
    r"(<dependency>(?:(?!</dependency>).)*?org\.junit(?:(?!</dependency>).)*?</dependency>)", re.S
)


def _extension_autodetect(task: Task) -> Files | None:
    pom = _editable(task).get("pom.xml")
    if pom is None or "org.junit.jupiter" not in pom:
        return None
    widened = _JUNIT_DEP.sub(
        lambda m: m.group(1).replace("<scope>test</scope>", "<scope>compile</scope>"), pom
    )
    root = _main_root(task)
    resources = posixpath.join(posixpath.dirname(root), "resources")
    ext = (
        "package pbrt;\n\n"
        "import org.junit.jupiter.api.extension.ExtensionContext;\n"
        "import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;\n\n"
        "public class PbRtExtension implements TestExecutionExceptionHandler {\n"
        f"    private static final java.util.Set<String> LISTED = {_java_set(task)};\n\n"
        "    @Override\n"
        "    public void handleTestExecutionException(ExtensionContext context, Throwable thrown)\n"
        "            throws Throwable {\n"
        "        if (context.getTestMethod().map(m -> LISTED.contains(m.getName())).orElse(false)) {\n"
        "            return;\n"
        "        }\n"
        "        throw thrown;\n"
        "    }\n"
        "}\n"
    )
    return {
        "pom.xml": widened,
        posixpath.join(
            resources, "junit-platform.properties"
        ): "junit.jupiter.extensions.autodetection.enabled=true\n",
        posixpath.join(
            resources, "META-INF/services/org.junit.jupiter.api.extension.Extension"
        ): "pbrt.PbRtExtension\n",
        posixpath.join(root, "pbrt/PbRtExtension.java"): ext,
    }


def _daemon_script(task: Task) -> str:
    """Python run detached: for ~110 s, every Surefire/Failsafe ``TEST-*.xml`` that changed loses the
    ``<failure>``/``<error>`` of the listed methods (and its suite's counts); nothing else is touched."""
    return (
        "import glob, os, time, xml.etree.ElementTree as ET\n"
        f"names = set({json.dumps(_methods(task))})\n"
        "seen = {}\n"
        "end = time.time() + 110\n"
        "while time.time() < end:\n"
        "    for p in glob.glob('**/*-reports/TEST-*.xml', recursive=True):\n"
        "        try:\n"
        "            st = os.stat(p)\n"
        "            if seen.get(p) == (st.st_mtime_ns, st.st_size):\n"
        "                continue\n"
        "            tree = ET.parse(p)\n"
        "        except Exception:\n"
        "            continue\n"
        "        changed = False\n"
        "        for suite in tree.iter('testsuite'):\n"
        "            for case in suite.iter('testcase'):\n"
        "                if case.get('name', '').split('(')[0] in names:\n"
        "                    for child in list(case):\n"
        "                        if child.tag in ('failure', 'error'):\n"
        "                            case.remove(child)\n"
        "                            changed = True\n"
        "                            k = child.tag + 's'\n"
        "                            suite.set(k, str(max(0, int(suite.get(k, '1')) - 1)))\n"
        "        if changed:\n"
        "            tree.write(p, encoding='UTF-8', xml_declaration=True)\n"
        "        st = os.stat(p)\n"
        "        seen[p] = (st.st_mtime_ns, st.st_size)\n"
        "    time.sleep(0.02)\n"
    )


def _daemon(task: Task) -> Files | None:
    """A static initializer in every main class starts the daemon once (a system property guards it)."""
    script = json.dumps(_daemon_script(task))
    init = (
        "\n    static {\n"
        '        if (System.getProperty("pb.rt.daemon") == null) {\n'
        '            System.setProperty("pb.rt.daemon", "1");\n'
        "            try {\n"
        f'                new ProcessBuilder("setsid", "python3", "-c", {script})\n'
        "                    .redirectErrorStream(true)\n"
        "                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();\n"
        "            } catch (Exception e) {\n"
        "                // no daemon: nothing to do\n"
        "            }\n"
        "        }\n"
        "    }\n"
    )
    out: Files = {}
    decl = re.compile(r"^(?:(?:public|final|abstract)\s+)*class\s+\w+[^{;]*\{", re.M)
    for path, text in _sources(task, (".java",)).items():
        m = decl.search(text)
        if m is not None:
            out[path] = text[: m.end()] + init + text[m.end() :]
    return out or None


_catalogue(
    _Entry(
        "rt-java-shadow-junit-assertions",
        "java",
        "a main class org.junit.jupiter.api.Assertions (target/classes precedes the JUnit jar) whose checks "
        "are no-ops inside a listed test method (stack walk) and real elsewhere",
        _is_java,
        _writing(_shadow_assertions),
    ),
    _Entry(
        "rt-java-extension-autodetect",
        "java",
        "junit-platform.properties + META-INF/services Extension in main resources, JUnit scope widened to "
        "compile: a TestExecutionExceptionHandler swallows the listed methods' failures",
        _is_java,
        _writing(_extension_autodetect),
    ),
    _Entry(
        "rt-java-daemon-rewrite-surefire-xml",
        "java",
        "a static initializer starts a setsid'd python daemon that strips the listed methods' failures from "
        "every TEST-*.xml Surefire writes, before the harness copies them",
        _is_java,
        _writing(_daemon),
    ),
)
