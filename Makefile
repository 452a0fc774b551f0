# Two commands on a fresh machine (Python >= 3.11 and make are all it needs):
#   make lab    set up, start PostgreSQL, open the course in JupyterLab
#   make test   set up, run every test and every notebook
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NBVAL  := -p no:cacheprovider --nbval-current-env --nbval-sanitize-with tests/nbval-sanitize.cfg
# Test runs keep their own progress file: your progress.json is yours.
export COURSE_PROGRESS_FILE ?= $(CURDIR)/.course/test-progress.json

.PHONY: lab test test-unit test-notebooks bench chaos build lock db-stop clean

# Installs only when pyproject.toml or constraints.txt changed since the last install.
$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else \
		"Python 3.11 or newer is needed; try: make $(MAKECMDGOALS) PYTHON=python3.12")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	@touch $(STAMP)

lab: $(STAMP)
	$(BIN)/python -m course db start
	$(BIN)/python -m course lab

test: test-unit test-notebooks

test-unit: $(STAMP)
	$(BIN)/python -m pytest tests

test-notebooks: $(STAMP)
	$(BIN)/python -m pytest $(NBVAL) --nbval solutions
	$(BIN)/python -m pytest $(NBVAL) --nbval-lax labs

build: $(STAMP)
	$(BIN)/python -m course build

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test,bench]'
	$(BIN)/python -m course bench

chaos: $(STAMP)
	$(BIN)/python -m course chaos

# Pin what is installed now as the tested versions.
lock: $(STAMP)
	@{ echo "# The versions the course was tested with (Python 3.11, Linux x86_64). Regenerate: make lock"; \
	   $(BIN)/python -m pip freeze --exclude-editable | grep -v '^course'; } > constraints.txt.new
	@mv constraints.txt.new constraints.txt && touch $(STAMP)

db-stop:
	@test -x $(BIN)/python && $(BIN)/python -m course db stop || true

clean: db-stop
	rm -rf $(VENV) .course
