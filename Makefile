# The two commands a newcomer needs: `make demo` and `make test`.
# Both install missing Debian packages (scripts/deps.sh), configure with the
# CMake preset and build with Ninja before doing their job.

PRESET ?= default
BUILD_DIR := $(if $(filter default,$(PRESET)),build,build-$(PRESET))
PREFIX ?= /usr/local
# CTEST_ARGS: extra ctest arguments for `make test`, e.g. CTEST_ARGS="-R Scheduler".
CTEST_ARGS ?=

.PHONY: all deps configure build test demo install clean lint format

all: build

deps:
	@scripts/deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake --preset $(PRESET)

configure: deps $(BUILD_DIR)/build.ninja

# The whole tree in every preset (the fuzz build preset alone names only the
# fuzz targets: scripts/fuzz.sh builds those).
build: configure
	cmake --build $(BUILD_DIR)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j 2 --timeout 300 $(CTEST_ARGS)

demo: build
	@scripts/demo.sh $(BUILD_DIR)

# install: README "Installing as a service" (the module goes where p11-kit looks).
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# lint: what CI checks before building (.ci/run): doc comments that name
# what is under them and citations that resolve (scripts/check-docs.py), and
# clang-format on the lines changed since the merge base with main
# (LINT_BASE=<commit> to choose). No build needed; a few seconds.
lint: deps
	scripts/check-docs.py
	scripts/check-format.sh $(LINT_BASE)

# format: clang-format the lines changed since the same base, in place.
format:
	scripts/check-format.sh --fix $(LINT_BASE)

clean:
	rm -rf $(BUILD_DIR)
