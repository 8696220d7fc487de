#!/bin/bash
# Verifier: compile the project's sources with the hidden JUnit test and run them with the JUnit
# Platform console launcher. The reward is written on exit from the script's status.
LOGS=/logs/verifier
mkdir -p "$LOGS"
trap 'if [ $? -eq 0 ]; then echo 1 > "$LOGS/reward.txt"; else echo 0 > "$LOGS/reward.txt"; fi' EXIT

JUNIT_JAR=${JUNIT_CONSOLE_JAR:-/opt/junit/junit-platform-console-standalone.jar}
CLASSES=/tmp/verifier-classes
rm -rf "$CLASSES" && mkdir -p "$CLASSES"

cd /app
SOURCES=$(find /app -name '*.java' -not -path '*/src/test/*' 2>/dev/null)
javac -d "$CLASSES" -cp "$JUNIT_JAR" $SOURCES /tests/TestSolution.java 2>&1 | tee "$LOGS/javac.log"
java -jar "$JUNIT_JAR" execute -cp "$CLASSES" --scan-class-path --disable-banner 2>&1 | tee "$LOGS/junit.log"
