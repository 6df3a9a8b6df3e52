#!/usr/bin/env bash
# Builds the libFuzzer targets (test/Fuzz) with clang-22, AddressSanitizer,
# UndefinedBehaviorSanitizer and coverage (build-fuzz/) and runs each for a
# bounded time from a seed corpus generated here (scripts/fuzz_corpus.py:
# .npy and safetensors files of every dtype, the metadata of real
# artifacts, the functions of the project's .mlir tests). A crash, a leak,
# a sanitizer report or a timeout fails; its input is kept in the work
# directory (printed) to turn into a regression test.
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGETS...]
#   (BUILD_DIR: the normal build, whose attune-compile makes the metadata
#   seeds; FUZZ_BUILD_DIR, FUZZ_WORK_DIR)
#   TARGETS: npy safetensors metadata ir onnx (default: all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(npy safetensors metadata ir onnx)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
bash "$root/scripts/install-deps.sh" --fuzz
CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  "-DLLVM_USE_SANITIZER=Address;Undefined" \
  "-DLLVM_UBSAN_FLAGS=-fsanitize=undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined" \
  -DLLVM_USE_SANITIZE_COVERAGE=ON -DATTUNE_FUZZ=ON >/dev/null
exes=()
for t in "${targets[@]}"; do exes+=("attune-fuzz-$t"); done
ninja -C "$build" "${exes[@]}"
normal=${BUILD_DIR:-$root/build}
ninja -C "$normal" attune-compile >/dev/null
work=${FUZZ_WORK_DIR:-$(mktemp -d /tmp/attune-fuzz.XXXXXX)}
mkdir -p "$work"
/usr/bin/python3 "$root/scripts/fuzz_corpus.py" "$root" "$normal/bin/attune-compile" "$work/corpus"
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:${ASAN_OPTIONS:-}"
status=0
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t" "$work/crashes"
  echo "fuzz: $t for ${seconds}s (corpus $work/corpus/$t)"
  if ! "$build/bin/attune-fuzz-$t" -max_total_time="$seconds" -timeout=30 \
      -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$work/crashes/$t-" "$work/corpus/$t" \
      > "$work/$t.log" 2>&1; then
    echo "fuzz: $t FAILED (log $work/$t.log, inputs $work/crashes/)"
    tail -30 "$work/$t.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$work/$t.log" | tr '\n' ' '
    echo
  fi
done
echo "fuzz: work directory $work"
exit $status
