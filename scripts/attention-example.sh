#!/usr/bin/env bash
# The attention heatmap of the README (`make heatmap`): trains the small
# RNN seq2seq model of examples/reversal_attention.mlir to reverse words
# (scripts/train_reversal.py: seeded, about 30 s on one core), compiles it
# with --attention-maps, runs it on a held-out word with teacher forcing,
# draws the decoder's attention over the source as a heatmap with the
# letters on both axes (rows: the letter each step writes), and checks
# that at least 70 % of the attention mass lies within one position of the
# anti-diagonal.
set -euo pipefail
build_dir=${1:-build}
out=${2:-$build_dir/heatmap}
bin="$build_dir/bin"
mkdir -p "$out"
if [ ! -f "$out/weights.safetensors" ] || [ ! -f "$out/tgt_out.npy" ]; then
  echo "-- train (scripts/train_reversal.py --out $out):"
  /usr/bin/python3 scripts/train_reversal.py --out "$out"
fi
echo "-- compile with the attention maps as outputs:"
echo "   attune-compile examples/reversal_attention.mlir --weights $out/weights.safetensors --attention-maps -o $out/reversal.so"
"$bin/attune-compile" examples/reversal_attention.mlir \
  --weights "$out/weights.safetensors" --attention-maps -o "$out/reversal.so"
echo "-- run, drawing the maps:"
"$bin/attune-run" "$out/reversal.so" \
  --input "src=$out/src.npy" --input "src_lengths=$out/src_lengths.npy" \
  --input "tgt_in=$out/tgt_in.npy" --output-dir "$out" \
  --attention-maps "$out" --tokens "queries=$out/tgt_out.npy,keys=$out/src.npy" \
  --vocab "$out/vocab.txt"
/usr/bin/python3 scripts/check_alignment.py "$out/attn.Wa.npy" \
  --lengths "$out/src_lengths.npy" --anti
