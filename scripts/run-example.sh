#!/usr/bin/env bash
# The `make run` job: takes the bundled example through the passes that exist
# today and summarizes what they did. (The CPU backend issue turns this into
# compile -> run -> output summary and latency.)
set -euo pipefail
build_dir=${1:-build}
model=examples/bert_encoder.mlir
out_dir="$build_dir/examples"
mkdir -p "$out_dir"
opt="$build_dir/bin/attune-opt"
decomposed="$out_dir/bert_encoder.decomposed.mlir"

count_ops() {
  grep -o 'attune\.[a-z_0-9]*' "$1" | sort | uniq -c | awk '{printf "    %-28s %3d\n", $2, $1}'
}

echo "== $model"
grep '^// torch\.' "$model" | sed 's/^/   /'
echo
echo "-- attune ops as written:"
"$opt" "$model" -o "$out_dir/bert_encoder.parsed.mlir"
count_ops "$out_dir/bert_encoder.parsed.mlir"
echo
echo "-- after --attune-decompose --canonicalize --cse:"
"$opt" "$model" --attune-decompose --canonicalize --cse -o "$decomposed"
count_ops "$decomposed"
echo
echo "decomposed IR: $decomposed"
