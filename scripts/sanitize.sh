#!/usr/bin/env bash
# Builds Attune with AddressSanitizer and UndefinedBehaviorSanitizer and runs
# the tests that exercise what is instrumented; any sanitizer report fails
# its test. Compiled models are not instrumented either way.
#
#   bash scripts/sanitize.sh [BUILD_DIR] [lit test paths relative to test/...]
#     The full variant (`make sanitize`, ~15 minutes): the tools, the
#     runtime library and the embedding example in build-asan/; bad input
#     to the tools, the runtime's error paths, whole models against PyTorch
#     on CPU and Vulkan.
#   bash scripts/sanitize.sh --runtime [NORMAL_BUILD_DIR]
#     The quick variant that `make test` ends with (~3 minutes): the
#     runtime library and the programs around it (attune-run, embed_model,
#     the stress and format tests) in build-asan-rt/, the compiler taken
#     from the normal build, and the Tools, Runtime and Unit tests: every
#     run-time reader of untrusted bytes, the runtime's error paths, its
#     threads.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runtime_only=0
if [[ "${1:-}" == "--runtime" ]]; then
  runtime_only=1
  normal=$(cd "${2:-$root/build}" && pwd) # absolute: the links below point at it
  build=$root/build-asan-rt
else
  build=${1:-$root/build-asan}
  shift || true
fi
bash "$root/scripts/install-deps.sh"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  "-DLLVM_USE_SANITIZER=Address;Undefined" \
  "-DLLVM_UBSAN_FLAGS=-fsanitize=undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined" >/dev/null
if [[ $runtime_only -eq 1 ]]; then
  ninja -C "$normal" attune-compile attune-opt attune-golden >/dev/null
  ninja -C "$build" attune_runtime attune-run embed_model attune-stress-test \
    attune-format-test
  mkdir -p "$build/bin" "$build/test"
  for tool in attune-compile attune-opt; do
    ln -sf "$normal/bin/$tool" "$build/bin/$tool"
  done
  ln -sfn "$normal/test/golden" "$build/test/golden"
  /usr/lib/llvm-22/bin/lit -sv "$build/test/Tools" "$build/test/Runtime" "$build/test/Unit"
  exit 0
fi
ninja -C "$build" all attune-golden
tests=("$@")
if [[ ${#tests[@]} -eq 0 ]]; then
  tests=(Tools Runtime Examples Integration/CPU Integration/Vulkan Dialect)
fi
paths=()
for t in "${tests[@]}"; do paths+=("$build/test/$t"); done
/usr/lib/llvm-22/bin/lit -sv "${paths[@]}"
