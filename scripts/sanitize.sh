#!/usr/bin/env bash
# Builds Attune with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-asan/: the tools, the runtime library and the embedding example
# instrumented; compiled models are not) and runs the tests that exercise
# them: bad input to the tools, the runtime's error paths, whole models
# against PyTorch on CPU and Vulkan. Any sanitizer report fails its test.
#   bash scripts/sanitize.sh [BUILD_DIR] [lit test paths relative to test/...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-asan}
shift || true
bash "$root/scripts/install-deps.sh"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  "-DLLVM_USE_SANITIZER=Address;Undefined" \
  "-DLLVM_UBSAN_FLAGS=-fsanitize=undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined" >/dev/null
ninja -C "$build" all attune-golden
tests=("$@")
if [[ ${#tests[@]} -eq 0 ]]; then
  tests=(Tools Runtime Examples Integration/CPU Integration/Vulkan Dialect)
fi
paths=()
for t in "${tests[@]}"; do paths+=("$build/test/$t"); done
/usr/lib/llvm-22/bin/lit -sv "${paths[@]}"
