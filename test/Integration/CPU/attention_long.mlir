// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,70,16], k=f32[2,2,100,16], v=f32[2,2,100,16], lengths=i64[2]{1,101}, bias=f32[4,70,100]
// torch.inputs: q=f32[1,4,130,16], k=f32[1,2,33,16], v=f32[1,2,33,16], lengths=i64[1]{1,34}, bias=f32[4,130,33]
// torch.call: (ref.attention(q, k, v), ref.attention(q, k, v, causal=True), ref.attention(q, k, v, causal=True, align="bottom_right"), ref.attention(q, k, v, window=7), ref.attention(q, k, v, causal=True, window=5, align="bottom_right", lengths=lengths), ref.attention(q, k, v, lengths=lengths), ref.attention(q, k, v, bias=bias))
//
// Attention over lengths that span several tiles of every form, none of
// them a multiple of a tile: Lq = 70 and 130 (the Vulkan kernel's 64-row
// workgroups, the CPU tiles' 64 rows), Lk = 100 and 33 (the Vulkan 32-key
// shared-memory tiles, the CPU 64-key tiles), grouped-query heads, with
// every mask kind: causal top-left and bottom-right (Lq > Lk: rows that see
// no key give zeros), windows, key padding lengths, and a bias.
// RUN: %check-golden %s --work %t --atol 1e-5

!q = tensor<?x4x?x16xf32>
!k = tensor<?x2x?x16xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"}, %bias: tensor<4x?x?xf32> {attune.name = "bias"})
    -> (!q, !q, !q, !q, !q, !q, !q) {
  %0 = attune.attention %q, %k, %v : (!q, !k, !k) -> !q
  %1 = attune.attention %q, %k, %v {causal} : (!q, !k, !k) -> !q
  %2 = attune.attention %q, %k, %v {causal, align = #attune.align<bottom_right>} : (!q, !k, !k) -> !q
  %3 = attune.attention %q, %k, %v {window = 7 : i64} : (!q, !k, !k) -> !q
  %4 = attune.attention %q, %k, %v key_lengths(%len) {causal, window = 5 : i64, align = #attune.align<bottom_right>} : (!q, !k, !k, tensor<?xi64>) -> !q
  %5 = attune.attention %q, %k, %v key_lengths(%len) : (!q, !k, !k, tensor<?xi64>) -> !q
  %6 = attune.attention %q, %k, %v bias(%bias) : (!q, !k, !k, tensor<4x?x?xf32>) -> !q
  return %0, %1, %2, %3, %4, %5, %6 : !q, !q, !q, !q, !q, !q, !q
}
