// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,6,8], k=f32[2,4,9,8], v=f32[2,4,9,8], kg=f32[2,2,9,8], vg=f32[2,2,9,5], lengths=i64[2]{1,10}, bias=f32[4,6,9]
// torch.inputs: q=f32[1,4,1,8], k=f32[1,4,13,8], v=f32[1,4,13,8], kg=f32[1,2,13,8], vg=f32[1,2,13,5], lengths=i64[1]{1,14}, bias=f32[4,1,13]
// torch.call: (ref.attention(q, k, v), ref.attention(q, k, v, causal=True), ref.attention(q, k, v, causal=True, align="bottom_right"), ref.attention(q, k, v, window=3), ref.attention(q, k, v, causal=True, window=2, align="bottom_right"), ref.attention(q, k, v, lengths=lengths), ref.attention(q, kg, vg), ref.attention(q, k, v, bias=bias, score="dot"), ref.attention(q, k, v, scale=0.3)) + ref.attention(q, k, v, hard=True, return_weights=True) + ref.attention(q, k, v, causal=True, lengths=lengths, return_weights=True)
//
// attune.attention: no mask, causal (top-left and bottom-right with Lq != Lk),
// sliding windows, key padding lengths, grouped-query heads with Dv != D,
// additive bias with plain dot scores, an explicit scale, hard selection and
// the weights result. The second case has Lq = 1 (a decoding step). Rows with
// no visible key (causal top-left when Lq > Lk is not hit here) give zeros.
// RUN: %check-golden %s --work %t --atol 1e-5

!q = tensor<?x4x?x8xf32>
!k = tensor<?x4x?x8xf32>
!kg = tensor<?x2x?x8xf32>
!vg = tensor<?x2x?x5xf32>
!w = tensor<?x4x?x?xf32>
func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %kg: !kg {attune.name = "kg"}, %vg: !vg {attune.name = "vg"},
                   %len: tensor<?xi64> {attune.name = "lengths"}, %bias: tensor<4x?x?xf32> {attune.name = "bias"})
    -> (!q, !q, !q, !q, !q, !q, tensor<?x4x?x5xf32>, !q, !q, !q, !w, !q, !w) {
  %0 = attune.attention %q, %k, %v : (!q, !k, !k) -> !q
  %1 = attune.attention %q, %k, %v {causal} : (!q, !k, !k) -> !q
  %2 = attune.attention %q, %k, %v {causal, align = #attune.align<bottom_right>} : (!q, !k, !k) -> !q
  %3 = attune.attention %q, %k, %v {window = 3 : i64} : (!q, !k, !k) -> !q
  %4 = attune.attention %q, %k, %v {causal, window = 2 : i64, align = #attune.align<bottom_right>} : (!q, !k, !k) -> !q
  %5 = attune.attention %q, %k, %v key_lengths(%len) : (!q, !k, !k, tensor<?xi64>) -> !q
  %6 = attune.attention %q, %kg, %vg : (!q, !kg, !vg) -> tensor<?x4x?x5xf32>
  %7 = attune.attention %q, %k, %v bias(%bias) {score = #attune.score<dot>} : (!q, !k, !k, tensor<4x?x?xf32>) -> !q
  %8 = attune.attention %q, %k, %v {scale = 0.3 : f64} : (!q, !k, !k) -> !q
  %9:2 = attune.attention %q, %k, %v {selection = #attune.selection<hard>, return_weights} : (!q, !k, !k) -> (!q, !w)
  %10:2 = attune.attention %q, %k, %v key_lengths(%len) {causal, return_weights} : (!q, !k, !k, tensor<?xi64>) -> (!q, !w)
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9#0, %9#1, %10#0, %10#1
      : !q, !q, !q, !q, !q, !q, tensor<?x4x?x5xf32>, !q, !q, !q, !w, !q, !w
}
