# The two commands the README opens with: `make run` and `make test`.
# Each sets itself up: a virtualenv in .venv, the project installed with its
# extras, and a Redis that answers (scripts/ensure-redis).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test run lint bench fuzz clean screenshots clients clients-tools

# Quiet (-qq: errors only) so a first run does not bury its first line; the
# charts extra too, so `risk replay --chart` works after `make run`.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check -e '.[dev,charts]'
	@touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# The client generators for tests/e2e/test_generated_clients.py; without npm or
# the registries this fails and those tests skip, naming `make clients-tools`.
test: $(STAMP) lint
	-@$(MAKE) --no-print-directory clients-tools
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	echo "tests against $$REDIS_URL" && \
	$(BIN)/pytest -n 2 $(PYTEST_ARGS)

run: $(STAMP)
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	exec $(BIN)/risk dev

# A deeper Schemathesis run than the test suite's (25 examples per operation).
fuzz: $(STAMP)
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-500} $(BIN)/pytest tests/service/test_api_fuzz.py --timeout=1800

bench: $(STAMP)
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b; done

# Pictures of the web board for the README (docs/img/), with the system's Chromium.
screenshots: $(STAMP)
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	$(BIN)/python scripts/screenshots.py

# Generated clients (docs/clients.md): the Python client and the TypeScript
# types from openapi.yaml, no warning allowed, and clients/example.ts checked
# with tsc --strict; prints the folder they are in (.clients/out/<hash>/).
clients: $(STAMP) clients-tools
	@$(BIN)/python scripts/clients.py generate

# The pinned generators (clients/requirements.txt, clients/package.json) in .clients/.
clients-tools: $(STAMP)
	@$(BIN)/python scripts/clients.py install >/dev/null

clean:
	rm -rf $(VENV) .data .pytest_cache .mypy_cache .ruff_cache .hypothesis .clients
