// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,130,64], k=f32[2,2,130,64], v=f32[2,2,130,64], lengths=i64[2]{1,131}
// torch.inputs: q=f32[1,4,64,64], k=f32[1,2,64,64], v=f32[1,2,64,64], lengths=i64[1]{1,65}
// torch.call: (ref.linear_attention(q, k, v), ref.linear_attention(q, k, v, causal=True), ref.linear_attention(q, k, v, causal=True, lengths=lengths))
//
// attune.linear_attention with D = Dv = 64: on the CPU the chunk products
// run as register-tiled micro-kernels (the attention kernel's), and the
// phi(q) chunks are transposed in 16 x 16 blocks (serial, and --parallel:
// heads in an OpenMP loop); lengths 130 (a partial
// last chunk) and 64 (one whole chunk).
// RUN: %check-golden %s --work %t --atol 2e-5
// RUN: %check-golden %s --work %t.parallel --atol 2e-5 --compile-arg=--parallel

!q = tensor<?x4x?x64xf32>
!k = tensor<?x2x?x64xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"}) -> (!q, !q, !q) {
  %0 = attune.linear_attention %q, %k, %v : (!q, !k, !k) -> !q
  %1 = attune.linear_attention %q, %k, %v {causal} : (!q, !k, !k) -> !q
  %2 = attune.linear_attention %q, %k, %v key_lengths(%len) {causal} : (!q, !k, !k, tensor<?xi64>) -> !q
  return %0, %1, %2 : !q, !q, !q
}
