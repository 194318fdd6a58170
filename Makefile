# agent-eval: `make setup` once, then `make test`. The run targets pass their variables to `agent-eval run`.
VENV := .venv
AE := $(VENV)/bin/agent-eval
MODEL ?=
EFFORT ?=
TOOLS ?= python
JOBS ?= 4
TASKS ?=
LIMIT ?=
DATA ?=
ARGS ?=
RUN_ARGS = --model "$(MODEL)" --tools $(TOOLS) --jobs $(JOBS) \
	$(if $(EFFORT),--effort $(EFFORT)) $(if $(TASKS),--tasks $(TASKS)) \
	$(if $(LIMIT),--limit $(LIMIT)) $(if $(DATA),--data $(DATA)) $(ARGS)

.PHONY: setup lock lock-arc lint format test test-fast claude-code codex demo sweep bench check-model

setup:
	bash scripts/setup.sh

# Pin every Python dependency (and theirs) after a change to pyproject.toml's dependencies; commit the result.
lock:
	$(VENV)/bin/python -m pip install -q pip-tools
	$(VENV)/bin/pip-compile --quiet --strip-extras --no-emit-index-url --no-emit-find-links \
		--extra test --extra inspect --output-file requirements.lock pyproject.toml

# Pin the ARC-AGI-3 game toolkit (requirements-arc.in) and its dependencies, with hashes, for .venv-arc.
lock-arc:
	.venv-arc/bin/python -m pip install -q pip-tools
	CUSTOM_COMPILE_COMMAND="make lock-arc" .venv-arc/bin/pip-compile --quiet --generate-hashes --no-emit-index-url --no-emit-find-links \
		--output-file requirements-arc.lock requirements-arc.in

# ruff and mypy (pinned in requirements.lock): lint, formatting and types checked, nothing changed; `make format`
# fixes the first two. mypy reads its settings from pyproject.toml and keeps its cache in .mypy_cache/.
lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format:
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# pytest exits 5 when it collects nothing; make turns any non-zero into a failure. Most of the time is spent
# waiting on the real CLIs, so TEST_WORKERS xdist workers (more than the cores) overlap the waits;
# loadgroup keeps each xdist_group (the Slurm cluster, a module's shared agent runs) on one worker.
TEST_WORKERS ?= 4
test:
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

# Everything but the real-CLI tests (those live in tests/e2e/ or carry the e2e mark).
test-fast:
	$(VENV)/bin/python -m pytest -q -m "not e2e" --ignore=tests/e2e

check-model:
	@test -n "$(MODEL)" || { echo "MODEL is required, e.g. make $(MAKECMDGOALS) MODEL=claude-opus-4-8"; exit 2; }

claude-code: check-model
	$(AE) run --agent claude-code $(RUN_ARGS)

codex: check-model
	$(AE) run --agent codex $(RUN_ARGS)

demo:
	$(AE) demo $(if $(KIND),--kind $(KIND)) $(if $(TOOLS),--tools $(TOOLS))

sweep:
	@test -n "$(FILE)" || { echo "FILE is required, e.g. make sweep FILE=sweeps/example.yaml"; exit 2; }
	$(AE) sweep $(FILE) $(if $(JOBS),--jobs $(JOBS))

bench:
	$(VENV)/bin/python perf/run_bench.py
	$(VENV)/bin/python perf/gateway_latency.py
