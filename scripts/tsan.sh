#!/usr/bin/env bash
# ThreadSanitizer over the runtime's concurrent runs: builds the runtime
# library, the stress test and the embedding example with -fsanitize=thread
# (build-tsan/; the compiler is not needed there: models come from the
# normal build's attune-compile) and runs one model from several threads:
# test/Runtime/stress*.test's program (4 threads, valid and invalid inputs,
# CPU and Vulkan) and examples/embed/embed_model (4 threads). Any report
# fails (halt_on_error).
#   bash scripts/tsan.sh [TSAN_BUILD_DIR] [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tsan=${1:-$root/build-tsan}
build=${2:-$root/build}
bash "$root/scripts/install-deps.sh"
ninja -C "$build" attune-compile attune-golden >/dev/null
cmake -G Ninja -S "$root" -B "$tsan" -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  -DLLVM_USE_SANITIZER=Thread >/dev/null
ninja -C "$tsan" attune_runtime attune-stress-test embed_model
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
golden=$build/test/golden
"$build/bin/attune-compile" "$root/examples/encoder_prenorm_gelu.mlir" \
  --weights "$golden/encoder_prenorm_gelu/weights.safetensors" \
  --target=cpu,vulkan -o "$work/enc.so"
"$build/bin/attune-compile" "$root/examples/transformer.mlir" \
  --weights "$golden/transformer/weights.safetensors" -o "$work/transformer.so"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
status=0
run() {
  echo "\$ $*"
  "$@" || status=1
}
run env ATTUNE_CPU_BUFFER_CACHE=0 "$tsan/bin/attune-stress-test" "$work/enc.so" cpu 4 2 100 1
run "$tsan/bin/attune-stress-test" "$work/enc.so" cpu 4 2 100 2
run "$tsan/bin/embed_model" "$work/transformer.so" 4 \
  "$golden/transformer/case0/src.npy" "$golden/transformer/case0/tgt.npy"
if "$build/bin/attune-run" --list-devices >/dev/null 2>&1; then
  run "$tsan/bin/attune-stress-test" "$work/enc.so" vulkan 4 2 50 3
else
  echo "tsan: no Vulkan device; the Vulkan run is skipped"
fi
if [[ $status -eq 0 ]]; then echo "tsan: no reports"; else echo "tsan: FAILED"; fi
exit $status
