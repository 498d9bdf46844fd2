# towerlab: `make demo` shows what it does, `make test` runs the tests.
# Both create .venv and install the project on first use (and again when pyproject.toml changes).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
OUT ?= out/demo

.PHONY: demo test lint meshes bench clean viewer-tools

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip 'setuptools>=77' wheel
	$(PY) -m pip install -q -e '.[test,meshes]'  # meshes: CoACD, so its path is tested too
	@touch $(STAMP)

demo: $(STAMP)
	$(PY) tools/demo.py --out $(OUT)
	@if [ -n "$$DISPLAY" ]; then echo "Opening the viewer (F1: every control; Ctrl+Q quits)"; \
		$(PY) -m sim view --game talo; fi

# the viewer's window tests need Xvfb and xdotool: installed where missing (CI runs as root), else skipped
viewer-tools:
	@missing=""; for t in Xvfb xdotool; do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
		if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
			echo "installing xvfb and xdotool for the viewer's window tests"; \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xdotool >/dev/null) \
				|| echo "could not install xvfb and xdotool: the viewer's window tests will be skipped"; \
		else echo "missing$$missing and no apt-get as root to install them: the viewer's window tests will be skipped"; \
		fi; \
	fi

test: $(STAMP) viewer-tools
	$(PY) -m ruff check sim tests tools
	$(PY) -m pytest -n 2 --dist worksteal -q --durations=20

lint: $(STAMP)
	$(PY) -m ruff check sim tests tools

meshes: $(STAMP)
	$(PY) tools/build_meshes.py

bench: $(STAMP)
	@for b in tools/bench*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache
