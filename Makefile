# towerlab: `make demo` shows what it does, `make test` runs the tests.
# Both create .venv and install the project on first use (and again when pyproject.toml changes).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
OUT ?= out/demo

.PHONY: demo test lint meshes bench clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip 'setuptools>=77' wheel
	$(PY) -m pip install -q -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	$(PY) tools/demo.py --out $(OUT)

test: $(STAMP)
	$(PY) -m ruff check sim tests tools
	$(PY) -m pytest -n 2 -q

lint: $(STAMP)
	$(PY) -m ruff check sim tests tools

meshes: $(STAMP)
	$(PY) tools/build_meshes.py

bench: $(STAMP)
	@for b in tools/bench*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache
