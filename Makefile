# The two commands the README opens with: `make run` and `make test`.
# Each sets itself up: a virtualenv in .venv, the project installed with its
# extras, and a Redis that answers (scripts/ensure-redis).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test run lint bench fuzz clean screenshots clients clients-tools compiled docs dist

# Quiet (-qq: errors only) so a first run does not bury its first line; the
# charts extra too, so `risk replay --chart` works after `make run`.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check -e '.[dev,charts]'
	@touch $(STAMP)

# The optional compiled build (setup.py): riskcore compiled with mypyc, installed
# with the dev extras in its own virtualenv, .venv-compiled; the pure-Python
# package in .venv stays the default. A .pth file puts this directory after
# site-packages, so the test helpers import and the compiled riskcore comes first.
COMPILED := .venv-compiled
COMPILED_STAMP := $(COMPILED)/.installed
RISKCORE_SOURCES := $(shell find riskcore -name '*.py')

$(COMPILED_STAMP): pyproject.toml setup.py $(RISKCORE_SOURCES)
	@test -x $(COMPILED)/bin/python || $(PYTHON) -m venv $(COMPILED)
	$(COMPILED)/bin/python -m pip install --quiet --quiet --disable-pip-version-check --upgrade pip 'setuptools>=77' wheel 'mypy>=1.10'
	rm -rf build  # setuptools would ship a previous build's modules along
	RISKCORE_COMPILE=1 $(COMPILED)/bin/python -m pip install --quiet --quiet --disable-pip-version-check --no-build-isolation '.[dev]'
	@echo "$(CURDIR)" > $$($(COMPILED)/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/riskcore-tests.pth
	@touch $(COMPILED_STAMP)

compiled: $(COMPILED_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# The client generators for tests/e2e/test_generated_clients.py; without npm or
# the registries this fails and those tests skip, naming `make clients-tools`.
# The whole suite on the pure-Python build, then riskcore's tests (among them
# tests/riskcore/test_compiled_build.py, byte-identical event streams) on the
# compiled one. The 25 slowest tests are listed, to keep the suite short.
test: $(STAMP) lint compiled
	-@$(MAKE) --no-print-directory clients-tools
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	echo "tests against $$REDIS_URL" && \
	$(BIN)/pytest -n 2 --durations=25 $(PYTEST_ARGS) && \
	echo "riskcore's tests on the compiled build ($(COMPILED))" && \
	$(COMPILED)/bin/pytest -n 2 tests/riskcore

run: $(STAMP)
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	exec $(BIN)/risk dev

# A deeper Schemathesis run than the test suite's (25 examples per operation).
fuzz: $(STAMP)
	@REDIS_URL=$$(scripts/ensure-redis) && export REDIS_URL && \
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-500} $(BIN)/pytest tests/service/http/test_api_fuzz.py --timeout=1800

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

# The documentation site from docs/ into site/ (mkdocs.yml); --strict turns a
# broken link or a page missing from the nav into a failure.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The sdist and the wheel in dist/ (docs/install.md). build makes the wheel from
# the sdist, so nothing `make compiled` left in build/ can ship in it.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

clean:
	rm -rf $(VENV) $(COMPILED) build dist site .data .pytest_cache .mypy_cache .ruff_cache .hypothesis .clients
