# Two commands on a fresh machine (Python >= 3.11 and make are all it needs):
#   make lab    set up, start PostgreSQL, open the course in JupyterLab
#   make test   set up, run every test and every notebook
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PYTEST := $(BIN)/python -m pytest
# Parallel test processes. The tests mostly wait on worker processes, servers and sockets rather than
# on the CPU, so even 2 cores keep 4 busy; each test and notebook has its own schema, streams and ports.
# pytest's settings (sanitizing, kernel, markers, the progress file) live in conftest.py, not here.
JOBS   ?= 4
XDIST  := -n $(JOBS) --dist loadgroup

.PHONY: lab test test-unit test-notebooks test-fast test-under-load soak bench bench-quiet chaos build lock lock-check time-first-run db-stop clean

# Installs only when pyproject.toml or constraints.txt changed since the last install: with uv when it
# can (the pinned one put into the venv if none is on the PATH), else with pip (tools/install.py).
$(STAMP): pyproject.toml constraints.txt tools/install.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else \
		"Python 3.11 or newer is needed; try: make $(MAKECMDGOALS) PYTHON=python3.12")'
	@test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)  # tools/install.py adds pip, faster
	@$(BIN)/python tools/install.py test
	@touch $(STAMP)

# Starts the database and JupyterLab at lab 00, and says both in one line.
lab: $(STAMP)
	@$(BIN)/python -m course lab

# Everything CI runs, in one pytest run: the tests, the solutions with their outputs compared, and the
# labs top to bottom with their stubs (compared laxly: see conftest.py). Each run leaves the course's
# PostgreSQL and NATS as it found them and fails if it left any other server running (tools/no_servers_left.py).
LEAVES_NOTHING := $(BIN)/python tools/no_servers_left.py --
test: $(STAMP)
	$(LEAVES_NOTHING) $(PYTEST) $(XDIST) --nbval tests solutions labs

test-unit: $(STAMP)
	$(LEAVES_NOTHING) $(PYTEST) $(XDIST) tests

test-notebooks: $(STAMP)
	$(LEAVES_NOTHING) $(PYTEST) $(XDIST) --nbval solutions labs

# The author's loop: the tests that start no worker processes or servers, and lab 00.
test-fast: $(STAMP)
	$(PYTEST) -n 2 -m "not slow" tests
	$(PYTEST) --nbval solutions/00_start_here.ipynb

# The whole suite on a busy machine: one CPU burner per core while `make test` runs.
test-under-load: $(STAMP)
	$(BIN)/python tests/under_load.py -- $(MAKE) --no-print-directory test

# The model-based test of the queue for SOAK_S seconds (10 minutes): batches of random interleavings from
# a random seed, printed first with the number of operations at the end. Replay one: COURSE_MODEL_SEED=...
SOAK_S ?= 600
soak: $(STAMP)
	COURSE_MODEL_SECONDS=$(SOAK_S) COURSE_MODEL_EXAMPLES=$${COURSE_MODEL_EXAMPLES:-25} \
	COURSE_MODEL_STEPS=$${COURSE_MODEL_STEPS:-60} \
	COURSE_MODEL_SEED=$${COURSE_MODEL_SEED:-$$($(BIN)/python -c 'import random; print(random.randrange(10**6))')} \
	$(PYTEST) -s -q tests/core/test_queue_model.py

build: $(STAMP)
	$(BIN)/python -m course build

bench: $(STAMP)
	$(BIN)/python tools/install.py test,bench
	$(BIN)/python -m course bench

# What README's wall-clock targets need from a quiet machine (nothing else running: load under 1),
# about 8-10 minutes: the worker against pgqueuer at 1-8 processes (>= 2.5x at 1, >= 2x at each), the
# lease path against the row-lock loop (>= 0.5x), then where the worker's time goes. Each run prints
# its load and saves .course/bench-<date>.json (`python -m course bench --report FILE` prints it again).
bench-quiet: $(STAMP)
	$(BIN)/python tools/install.py test,bench
	uptime
	$(BIN)/python -m course bench --quick --rows worker,worker-250,pgqueuer --processes 1,2,4,8 --jobs 10000 --seed 11
	$(BIN)/python -m course bench --quick --rows lock-100,step-100,ref-100,bare-100 --processes 1,2 --jobs 10000 --seed 12
	$(BIN)/python -m course bench --profile --processes 1 --jobs 20000
	uptime

chaos: $(STAMP)
	$(BIN)/python -m course chaos

# Pin what is installed now (with every extra) as the tested versions.
# Keeps the pins with markers made for other Pythons, and checks the lock for every supported Python.
lock: $(STAMP)
	@$(BIN)/python tools/install.py test,bench
	@$(BIN)/python tools/lock.py && touch $(STAMP)

# Resolves constraints.txt for every supported Python (wheels only), installing nothing.
lock-check: $(STAMP)
	@$(BIN)/python tools/lock.py --check

# Times git clone -> make lab -> lab 00 answering, cold and warm (tools/time_first_run.py says more).
time-first-run:
	@$(PYTHON) tools/time_first_run.py

db-stop:
	@test -x $(BIN)/python && $(BIN)/python -m course db stop || true

clean: db-stop
	rm -rf $(VENV) .course
