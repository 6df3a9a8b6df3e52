// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,150,64], k=f32[2,2,150,64], v=f32[2,2,150,64], lengths=i64[2]{100,151}, globals=i64[2,3]{0,150}
// torch.inputs: q=f32[1,4,70,64], k=f32[1,2,70,64], v=f32[1,2,70,64], lengths=i64[1]{30,71}, globals=i64[1,3]{0,70}
// torch.call: (ref.attention(q, k, v, window=5, dilation=3), ref.attention(q, k, v, window=9, dilation=4, causal=True, lengths=lengths), ref.attention(q, k, v, window=4, dilation=2, global_indices=globals), ref.attention(q, k, v, window=6, dilation=5, causal=True, lengths=lengths, global_indices=globals))
//
// Dilated sliding windows (Longformer): the window's keys spaced `dilation`
// apart, symmetric or causal, with grouped-query heads, key padding and
// global tokens (seen whatever the dilation: a global key off the grid, a
// global query's row over every key); lengths across several tiles.
// RUN: %check-golden %s --work %t --atol 1e-5
// RUN: %check-golden %s --work %t.tiles --atol 1e-5 --compile-arg=--attention-tile-q=32 --compile-arg=--attention-tile-k=16

!q = tensor<?x4x?x64xf32>
!k = tensor<?x2x?x64xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"}, %g: tensor<?x3xi64> {attune.name = "globals"})
    -> (!q, !q, !q, !q) {
  %0 = attune.attention %q, %k, %v {window = 5 : i64, dilation = 3 : i64} : (!q, !k, !k) -> !q
  %1 = attune.attention %q, %k, %v key_lengths(%len) {causal, window = 9 : i64, dilation = 4 : i64}
      : (!q, !k, !k, tensor<?xi64>) -> !q
  %2 = attune.attention %q, %k, %v globals(%g) {window = 4 : i64, dilation = 2 : i64}
      : (!q, !k, !k, tensor<?x3xi64>) -> !q
  %3 = attune.attention %q, %k, %v key_lengths(%len) globals(%g) {causal, window = 6 : i64, dilation = 5 : i64}
      : (!q, !k, !k, tensor<?xi64>, tensor<?x3xi64>) -> !q
  return %0, %1, %2, %3 : !q, !q, !q, !q
}
