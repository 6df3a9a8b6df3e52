#!/usr/bin/env bash
# The `make run` job: compile the bundled BERT-style encoder to a native
# library with weights from a PyTorch state_dict, run it on a token sequence,
# print the output summary, its agreement with PyTorch, and the latency.
set -euo pipefail
build_dir=${1:-build}
model=examples/bert_encoder.mlir
golden="$build_dir/test/golden/bert_encoder"   # made by `ninja attune-golden`
out_dir="$build_dir/examples"
mkdir -p "$out_dir"

echo "== $model"
grep '^// torch\.' "$model" | sed 's/^/   /'
echo
echo "-- compile (weights: the module's state_dict, seeded):"
echo "   attune-compile $model --weights $golden/weights.safetensors -o $out_dir/bert_encoder.so"
"$build_dir/bin/attune-compile" "$model" --weights "$golden/weights.safetensors" \
  -o "$out_dir/bert_encoder.so"
echo
echo "-- run on ids [1, 32], compared with PyTorch, then timed:"
"$build_dir/bin/attune-run" "$out_dir/bert_encoder.so" \
  --input "ids=$golden/case0/ids.npy" \
  --output-dir "$out_dir" \
  --expect "output0=$golden/case0/output0.npy" --atol 1e-4 \
  --bench 20
echo
echo "output written to $out_dir/output0.npy"
