// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,70,16], k=f32[2,2,70,16], v=f32[2,2,70,16], lengths=i64[2]{1,71}, kx=f32[2,2,33,16], vx=f32[2,2,33,16]
// torch.inputs: q=f32[1,4,130,16], k=f32[1,2,130,16], v=f32[1,2,130,16], lengths=i64[1]{1,131}, kx=f32[1,2,200,16], vx=f32[1,2,200,16]
// torch.call: (ref.linear_attention(q, k, v), ref.linear_attention(q, k, v, causal=True), ref.linear_attention(q, k, v, causal=True, lengths=lengths), ref.linear_attention(q, kx, vx, lengths=lengths.clamp(max=kx.shape[2])), ref.linear_attention(q, kx, vx, eps=0.0))
//
// attune.linear_attention over lengths that are not multiples of the
// causal form's 64-query chunks (70, 130), grouped-query heads, key
// padding, keys of another length than the queries (non-causal), eps = 0.
// RUN: %check-golden %s --work %t --atol 2e-5

!q = tensor<?x4x?x16xf32>
!k = tensor<?x2x?x16xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"},
                   %kx: !k {attune.name = "kx"}, %vx: !k {attune.name = "vx"})
    -> (!q, !q, !q, !q, !q) {
  %0 = attune.linear_attention %q, %k, %v : (!q, !k, !k) -> !q
  %1 = attune.linear_attention %q, %k, %v {causal} : (!q, !k, !k) -> !q
  %2 = attune.linear_attention %q, %k, %v key_lengths(%len) {causal} : (!q, !k, !k, tensor<?xi64>) -> !q
  %3 = attune.linear_attention %q, %kx, %vx key_lengths(%len) : (!q, !k, !k, tensor<?xi64>) -> !q
  %4 = attune.linear_attention %q, %kx, %vx {eps = 0.0} : (!q, !k, !k) -> !q
  return %0, %1, %2, %3, %4 : !q, !q, !q, !q, !q
}
