# Two commands for a newcomer: `make demo` and `make test`. Everything else is a detail.
BUILD    ?= build
PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all deps build test unit conformance test-clients test-vm demo install clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Every test: unit tests, the conformance suites (root) against the built binary, the clients,
# the guests (`make test-vm`: about 20 minutes from an empty image cache, docs/vm.md "Time") and
# the short fuzz pass.
test: build
	ctest --test-dir $(BUILD) --output-on-failure

unit: build
	ctest --test-dir $(BUILD) --output-on-failure -R '^unit\.'

conformance: build
	ctest --test-dir $(BUILD) --output-on-failure -R '^conformance\.'

# Docker, Podman and containerd driving the runtime (conformance/clients/): each suite installs its
# client, starts private daemons and stops them by pid. `make test` runs them too.
test-clients: build
	ctest --test-dir $(BUILD) --output-on-failure -L '^clients$$'

# The guest suites (docs/vm.md): Debian 13 (systemd, pure cgroup v2, AppArmor) and Debian 12 (kernel
# 6.1) under qemu, images built on first use and cached in /var/cache/sharness-vm (CTest label vm).
test-vm: build
	ctest --test-dir $(BUILD) --output-on-failure -L '^vm$$'

demo: build
	@scripts/demo.sh $(BUILD)/sharness-runtime

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)

# Benchmark against crun and runc, interleaved (bench/README.md): writes bench/results/latest.md
# and a plot. Installs what it needs if missing. Not a test: nothing asserts a time.
.PHONY: bench
bench: build
	bench/run.sh $(BUILD)/sharness-runtime

# Fuzzing (fuzz/README.md): libFuzzer targets for config.json, policies, state.json and the CLI,
# built with clang + ASan/UBSan into build-fuzz. `fuzz`: 60 s per target; `fuzz-short`: 60 s in all.
.PHONY: fuzz fuzz-short
fuzz:
	fuzz/run.sh --each 60

fuzz-short:
	fuzz/run.sh --total 60
