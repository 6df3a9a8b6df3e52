#!/usr/bin/env bash
# The quick sanitizer check: the runtime library and the programs around it
# (attune-run, embed_model, the stress and format tests) built with
# AddressSanitizer + UndefinedBehaviorSanitizer into build-asan-rt/ (about
# 2 minutes on 2 cores), the compiler taken from the normal build (the
# compiled models are not instrumented either way), and the Tools and
# Runtime tests run with them: every reader of untrusted bytes at run time
# (.npy, safetensors, artifact metadata), the runtime's error paths, its
# threads. `make sanitize` is the full variant (the compiler instrumented
# too, ~15 minutes).
#   bash scripts/sanitize-runtime.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
normal=$(cd "${1:-$root/build}" && pwd)  # absolute: the links below point at it
build=$root/build-asan-rt
ninja -C "$normal" attune-compile attune-opt attune-golden >/dev/null
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  "-DLLVM_USE_SANITIZER=Address;Undefined" \
  "-DLLVM_UBSAN_FLAGS=-fsanitize=undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined" >/dev/null
ninja -C "$build" attune_runtime attune-run embed_model attune-stress-test \
  attune-format-test
mkdir -p "$build/bin" "$build/test"
for tool in attune-compile attune-opt; do
  ln -sf "$normal/bin/$tool" "$build/bin/$tool"
done
ln -sfn "$normal/test/golden" "$build/test/golden"
/usr/lib/llvm-22/bin/lit -sv "$build/test/Tools" "$build/test/Runtime" "$build/test/Unit"
