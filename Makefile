# The two commands of the README: `make run` and `make test`.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
LLVM_PREFIX := /usr/lib/llvm-22

.PHONY: run test build deps configure docs clean sanitize tsan fuzz heatmap

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
	  -DPython3_EXECUTABLE=/usr/bin/python3

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	ninja -C $(BUILD_DIR) -j $(JOBS) all attune-doc attune-golden

docs: configure
	ninja -C $(BUILD_DIR) attune-doc

run: build
	@bash scripts/run-example.sh $(BUILD_DIR)

# An attention heatmap: a small seq2seq model trained to reverse words
# (seeded, ~30 s), its attention drawn to $(BUILD_DIR)/heatmap/Wa.png.
heatmap: build
	@bash scripts/attention-example.sh $(BUILD_DIR)

# Every test, then the runtime's tests again with the runtime and attune-run
# under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan-rt/,
# about 3 minutes; docs/reliability.md).
test: build
	@bash scripts/run-tests.sh $(BUILD_DIR)
	@bash scripts/sanitize.sh --runtime $(BUILD_DIR)

# AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/) and the
# tests that exercise the tools and the runtime (docs/reliability.md).
sanitize:
	@bash scripts/sanitize.sh

# ThreadSanitizer over one model run from several threads (build-tsan/:
# the runtime and its concurrent test programs; docs/reliability.md).
tsan: build
	@bash scripts/tsan.sh build-tsan $(BUILD_DIR)

# libFuzzer targets (build-fuzz/, clang-22), FUZZ_SECONDS each (default 60).
FUZZ_SECONDS ?= 60
fuzz: build
	@BUILD_DIR=$(BUILD_DIR) bash scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR)
