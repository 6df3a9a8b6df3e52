// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,50,16], k=f32[2,2,50,16], v=f32[2,2,50,16], lengths=i64[2]{1,51}, q2=f32[2,4,3,16], k2=f32[2,2,3,16], v2=f32[2,2,3,16]
// torch.call: (lambda s0: (lambda p: (p[0],) + ref.linear_attention(q2, k2, v2, causal=True, state=p[1:]) + (ref.linear_attention(torch.cat([q, q2], 2), torch.cat([k, k2], 2), torch.cat([v, v2], 2), causal=True)[:, :, 50:],))(ref.linear_attention(q, k, v, causal=True, lengths=lengths, state=s0)))((torch.zeros(2, 2, 16, 16), torch.zeros(2, 2, 16)))
//
// Decoding with linear attention's state: a causal prefill from a zero
// state with key padding (the hidden keys stay out of the state), then a
// step of 3 tokens from the state it returned (outputs 0-3). Output 4: the
// same step after an unpadded prefill equals the last 3 rows of one causal
// pass over all 53 tokens.
// RUN: %check-golden %s --work %t --atol 2e-5

!q = tensor<2x4x50x16xf32>
!k = tensor<2x2x50x16xf32>
!q2 = tensor<2x4x3x16xf32>
!k2 = tensor<2x2x3x16xf32>
!kv = tensor<2x2x16x16xf32>
!z = tensor<2x2x16xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<2xi64> {attune.name = "lengths"},
                   %q2: !q2 {attune.name = "q2"}, %k2: !k2 {attune.name = "k2"}, %v2: !k2 {attune.name = "v2"})
    -> (!q, !q2, !kv, !z, !q2) {
  %kv0 = arith.constant dense<0.0> : !kv
  %z0 = arith.constant dense<0.0> : !z
  %o1, %kv1, %z1 = attune.linear_attention %q, %k, %v key_lengths(%len) state(%kv0, %z0) {causal}
      : (!q, !k, !k, tensor<2xi64>, !kv, !z) -> (!q, !kv, !z)
  %o2, %kv2, %z2 = attune.linear_attention %q2, %k2, %v2 state(%kv1, %z1) {causal}
      : (!q2, !k2, !k2, !kv, !z) -> (!q2, !kv, !z)
  // The unpadded prefill, then the step: the whole sequence's last rows.
  %p1, %pkv, %pz = attune.linear_attention %q, %k, %v state(%kv0, %z0) {causal}
      : (!q, !k, !k, !kv, !z) -> (!q, !kv, !z)
  %w, %wkv, %wz = attune.linear_attention %q2, %k2, %v2 state(%pkv, %pz) {causal}
      : (!q2, !k2, !k2, !kv, !z) -> (!q2, !kv, !z)
  return %o1, %o2, %kv2, %z2, %w : !q, !q2, !kv, !z, !q2
}
