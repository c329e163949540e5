# The two commands a new user needs: `make book` (build the website) and `make test` (run every test).
# Both create .venv on first use: `make book` installs the book toolchain alone (requirements-book.txt, no torch),
# every other target the complete environment (requirements.txt, which includes the book toolchain).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BOOK_STAMP := $(VENV)/.installed-book
STAMP := $(VENV)/.installed
PDF_STAMP := $(VENV)/.installed-pdf
NPM_STAMP := node_modules/.package-lock.json
# PyPI's Linux torch is the CUDA build (about 2.7 GB of wheels). Without a GPU, take the CPU build (about 190 MB):
#   make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
# (or export PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu, which every pip command then uses).
TORCH_INDEX ?=
# --no-compile: Python writes the bytecode of what it imports when it first imports it; compiling all of every
# package up front doubled the time of the install.
PIP_INSTALL := $(PY) -m pip install --quiet --disable-pip-version-check --no-compile
# Notebooks for `make execute` (default: all chapters), e.g. make execute NB=notebooks/02_pack_and_unpack_internals.ipynb
NB ?=

.PHONY: book env test test-quick test-zh execute serve clean bench-quick bench bench-gap bench-planner bench-report translations check-translations reading-time student test-student test-visible test-seeds pdf test-compat

$(PY):
	$(PYTHON) -m venv $(VENV)

$(BOOK_STAMP): requirements-book.txt | $(PY)
	@echo "Installing the book toolchain into $(VENV) (requirements-book.txt)..."
	$(PIP_INSTALL) -r requirements-book.txt
	touch $@

$(STAMP): requirements.txt pyproject.toml $(BOOK_STAMP)
	@echo "Installing the rest of the environment into $(VENV) (requirements.txt: torch, pytest, ...)..."
	$(PIP_INSTALL) $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) -r requirements.txt
	@# The book's own package (src/padpack), editable: every chapter imports it, and a change to its code needs
	@# no reinstall. requirements.txt already pins what it needs, setuptools (its build backend) included.
	$(PIP_INSTALL) --no-deps --no-build-isolation --editable .
	@# Where PYTHONDONTWRITEBYTECODE is set (it is on this project's machines), imports never cache bytecode,
	@# and every notebook kernel compiled torch from source again: 6.5 s instead of 3 s for `import torch`.
	@# Compile once here (about 35 s on 2 cores); a file that only a newer Python can compile stays source.
	@echo "Compiling the environment's bytecode..."
	$(PY) -m compileall -qq -j 0 $(VENV)/lib >/dev/null 2>&1 || true
	touch $@

## make book: build the website from the stored notebook outputs into _build/html (installs no torch)
book:
	@$(MAKE) --no-print-directory -j2 $(BOOK_STAMP) $(NPM_STAMP)
	$(PY) scripts/build_book.py

# The site's widget and MathJax JavaScript, installed by npm while pip installs the book toolchain (make book
# runs the two at once). Without npm, build_book.py warns and the pages load that JavaScript from CDNs.
$(NPM_STAMP): package-lock.json
	@if command -v npm >/dev/null; then npm ci --ignore-scripts --no-audit --no-fund; \
	else echo "npm is missing: the site will load its widget JavaScript from CDNs"; fi

## make test: every test — notebooks re-run and compared by nbval (each alone in an empty folder outside the
## repository, as in Colab) on this CPU and again with the instruction set held to AVX2 and to the x86-64
## baseline; notebook hygiene, the execution script, benchmarks, error messages, and the site in Chromium.
test: $(STAMP)
	$(PY) scripts/run_tests.py

## make test-quick: the edit loop, in about a minute (adds to make test, never replaces it): lint, notebook hygiene,
## the package's unit tests and exercise checks, and under nbval the chapters that differ from the last commit
## (or NB="notebooks/05_x.ipynb ...")
test-quick: $(STAMP)
	$(PY) scripts/run_tests.py --quick $(NB)

## make test-zh: the Chinese notebooks under nbval on the three instruction sets (about 3 minutes on 2 cores; not
## part of make test): what they print in zh_CN matches their stored outputs, which `make translations` makes
test-zh: $(STAMP)
	$(PY) scripts/run_tests.py --chinese

## make env: the complete environment in .venv (torch, Jupyter kernel, test tools), without running anything
env: $(STAMP)

## make execute: re-run notebooks and store their outputs (deterministic; see scripts/execute_notebooks.py)
execute: $(STAMP)
	$(PY) scripts/execute_notebooks.py $(NB)

# make pdf prints with Playwright: the book toolchain plus Playwright's pin from requirements.txt, not the rest
# (no torch), so that `make book` stays small and the deploy workflow installs no torch.
$(PDF_STAMP): requirements.txt $(BOOK_STAMP)
	$(PIP_INSTALL) $$(grep -E '^(playwright|greenlet)==' requirements.txt)
	touch $@

## make pdf: the book as two PDFs, printed from the built site by Chromium (`make book` first if it is missing;
## installs Playwright, no torch): _build/pdf/pad-pack-train.pdf and pad-pack-train-zh.pdf, also copied into the
## site's pdf/ and zh/pdf/
pdf: $(PDF_STAMP)
	@test -f _build/html/index.html || $(MAKE) --no-print-directory book
	$(PY) scripts/build_pdf.py

## make serve: serve the built site on http://127.0.0.1:8000 (this machine only)
serve:
	@test -f _build/html/index.html || { echo "no site yet: run 'make book' first"; exit 1; }
	$(PYTHON) -m http.server --bind 127.0.0.1 --directory _build/html 8000

## make bench-quick / make bench: time padded vs packed vs bucketed RNNs in interleaved rounds (results in
## benchmarks/results/); the last line is the headline with its spread. A noisy result is not written (exit 3):
## BENCH_ARGS=--allow-noisy writes it anyway; BENCH_ARGS="--device cuda" measures a GPU.
BENCH_ARGS ?=
bench-quick: $(STAMP)
	$(PY) -m benchmarks --quick $(BENCH_ARGS)

bench: $(STAMP)
	$(PY) -m benchmarks $(BENCH_ARGS)

## make bench-gap: where a recipe epoch's time goes against the ideal's (stages, causes, the length floor); writes
## benchmarks/results/gap.json, which the performance page reads (then run make bench-report)
bench-gap: $(STAMP)
	$(PY) -m benchmarks.gap $(BENCH_ARGS)

## make bench-planner: the batching planner's advice over seeds, and its speed on 1M and 10M lengths (CPU and wall
## seconds, median of 3; peak memory), which the API page states
bench-planner: $(STAMP)
	$(PY) -m benchmarks.planner $(BENCH_ARGS)

## make bench-report: figures and book/performance.md from the committed benchmark results
bench-report: $(STAMP)
	$(PY) -m benchmarks.report

## make translations: after changing English prose, merge the new and changed messages into the Chinese
## catalogues (locales/zh_CN/LC_MESSAGES/*.po: new ones empty, changed ones fuzzy), regenerate the Chinese
## notebooks (i18n/zh_CN/notebooks/), and print the translated share of every page
translations: $(BOOK_STAMP)
	$(PY) scripts/i18n.py update
	$(PY) scripts/i18n.py notebooks

## make check-translations: what the tests check of the Chinese edition, in about 12 s: no stale catalogue,
## every prose message translated, no .po lint finding, the Chinese notebooks what the .po files make
check-translations: $(BOOK_STAMP)
	$(PY) scripts/i18n.py check

## make reading-time: every page's reading time (200 words a minute, 10 s a visible code line), the core path's
## total, and the same numbers written into each notebook's first cell and the chapter maps of intro and README
reading-time: $(BOOK_STAMP)
	$(PY) scripts/reading_time.py

## make student: the student edition for instructors, in seconds: every chapter with its exercise solutions
## removed and its outputs cleared, in _build/student/ (English) and _build/student/zh/ (Chinese)
student: $(BOOK_STAMP)
	$(PY) scripts/student_edition.py

## make test-student: run every English student notebook to the end with its stubs unfilled (about a minute;
## not part of make test, which checks statically that no later cell needs what a removed solution defined)
test-student: $(STAMP)
	PPT_STUDENT_RUN=1 $(PY) -m pytest -q -p no:cacheprovider -n 2 tests/test_student_edition.py

## make test-visible: run each page's setup cell and visible cells alone in a kernel (75 s on 2 cores, 130 s of
## CPU; make test checks statically that no visible cell needs a name only a folded cell defines; this run also
## sees a folded cell that changes an object a visible cell then uses)
test-visible: $(STAMP)
	PPT_VISIBLE_RUN=1 $(PY) -m pytest -q -p no:cacheprovider -n 2 tests/test_visible_code.py

## make test-seeds: run every chapter with every seed literal shifted by 1 to 5 and report each assert that
## fails, with chapter and shift (slow: 90 runs of a whole chapter; not part of make test; PPT_SEEDS_CHAPTERS="13"
## narrows it)
test-seeds: $(STAMP)
	PPT_SEEDS_RUN=1 $(PY) -m pytest -q -p no:cacheprovider -n 2 tests/test_seeds.py

## make test-compat: run every chapter as Colab's Run all does on each torch version of scripts/compat.py's
## list, one fresh venv at a time, and write tests/compat/results.json (about 55 min and 27 GB of downloads the
## first time; not part of make test). TORCH="2.6.0 2.7.1" or CHAPTERS="09 16" narrow it.
TORCH ?=
CHAPTERS ?=
test-compat: $(STAMP)
	$(PY) scripts/compat.py $(if $(TORCH),--torch $(TORCH)) $(if $(CHAPTERS),--chapters $(CHAPTERS))

## make clean: remove build outputs (keeps .venv and node_modules)
clean:
	rm -rf _build
