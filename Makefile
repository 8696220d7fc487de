# patchbench: `make demo` and `make test` work on a fresh Debian machine (they install what they need).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PB := $(VENV)/bin/patchbench
# uv may come from pip without its script directory on PATH: fall back to `python3 -m uv`.
UV = $(shell command -v uv 2>/dev/null || echo "python3 -m uv")
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install system-deps demo test check lint typecheck battery bench realworld clean

system-deps:  ## bubblewrap (the sandbox), util-linux (prlimit, setpriv), git and patch, uv
	@missing=""; \
	for pair in bwrap:bubblewrap prlimit:util-linux setpriv:util-linux git:git patch:patch \
	    javac:openjdk-17-jdk-headless mvn:maven node:nodejs go:golang; do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair##*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@command -v uv >/dev/null 2>&1 || python3 -m uv --version >/dev/null 2>&1 || \
	  python3 -m pip install -q uv || python3 -m pip install -q --user uv || \
	  python3 -m pip install -q --break-system-packages uv

$(VENV)/.installed: pyproject.toml
	@[ -x $(PY) ] || $(UV) venv -q $(VENV) --python python3
	$(UV) pip install -q -p $(PY) -e '.[dev]'
	@touch $@

install: system-deps $(VENV)/.installed  ## everything the demo and the tests need

demo: install  ## gold and empty on the built-in dataset: every task resolved by gold, none by empty
	COLUMNS=$${COLUMNS:-160} $(PB) tasks builtin
	COLUMNS=$${COLUMNS:-160} $(PB) run builtin --gold --expect resolved
	COLUMNS=$${COLUMNS:-160} $(PB) run builtin --empty --expect unresolved

test: install  ## the whole test suite
	# six workers whatever the cores: the suite mostly waits (compilers, package installs, sandboxed runs
	# up to their time limits; on 2 cores, four workers kept 0.8 of a core busy on average, 17 min 27 s;
	# six took 15 min 34 s); a module (and its fixtures: the battery's shards) stays on one worker
	$(VENV)/bin/pytest -q -n 6 --dist loadfile

lint: install
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/lint-imports --no-cache  # the layers and no import cycles: [tool.importlinter] in pyproject.toml

typecheck: install
	$(VENV)/bin/mypy

check: lint typecheck test  ## ruff, mypy, pytest: run before every commit

battery: install  ## the attack battery's whole cross product (make test runs each attack on one task)
	PATCHBENCH_FULL_BATTERY=1 $(VENV)/bin/pytest -q -n 4 --dist loadfile tests/audit/test_battery_*.py

bench: install  ## overhead of run() over the bare test command (results in benchmarks/results/)
	$(PY) benchmarks/run_overhead.py

realworld: install  ## build the real-world corpus (scripts/realworld/build_*.py) and run its suite
	@for s in scripts/realworld/build_*.py; do echo "== $$s"; $(PY) $$s || exit 1; done
	$(VENV)/bin/pytest -q -m realworld tests/realworld

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
