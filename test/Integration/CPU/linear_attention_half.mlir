// torch.module: nn.Identity()
// torch.inputs: q=bf16[2,4,70,64], k=bf16[2,2,70,64], v=bf16[2,2,70,64], hq=f16[1,2,33,16], hk=f16[1,2,33,16], lengths=i64[1]{1,34}
// torch.call: (lambda Q, K, V, HQ, HK: (ref.linear_attention(Q, K, V, causal=True).bfloat16(), ref.linear_attention(Q, K, V).bfloat16(), ref.linear_attention(HQ, HK, HK, causal=True, lengths=lengths).half()))(*map(ref.in_f32, (q, k, v, hq, hk)))
//
// attune.linear_attention on bf16 and f16 storage: computed in f32
// (attune-widen-half) and rounded once, against the reference on the same
// half-precision inputs computed exactly and rounded once. Tolerance: 2 eps
// of bf16 (2^-7) on outputs of unit scale.
// RUN: %check-golden %s --work %t --atol 0.0078125 --rtol 0.0078125

func.func @forward(%q: tensor<2x4x70x64xbf16> {attune.name = "q"}, %k: tensor<2x2x70x64xbf16> {attune.name = "k"},
                   %v: tensor<2x2x70x64xbf16> {attune.name = "v"}, %hq: tensor<1x2x33x16xf16> {attune.name = "hq"},
                   %hk: tensor<1x2x33x16xf16> {attune.name = "hk"}, %len: tensor<1xi64> {attune.name = "lengths"})
    -> (tensor<2x4x70x64xbf16>, tensor<2x4x70x64xbf16>, tensor<1x2x33x16xf16>) {
  %0 = attune.linear_attention %q, %k, %v {causal}
      : (tensor<2x4x70x64xbf16>, tensor<2x2x70x64xbf16>, tensor<2x2x70x64xbf16>) -> tensor<2x4x70x64xbf16>
  %1 = attune.linear_attention %q, %k, %v
      : (tensor<2x4x70x64xbf16>, tensor<2x2x70x64xbf16>, tensor<2x2x70x64xbf16>) -> tensor<2x4x70x64xbf16>
  %2 = attune.linear_attention %hq, %hk, %hk key_lengths(%len) {causal}
      : (tensor<1x2x33x16xf16>, tensor<1x2x33x16xf16>, tensor<1x2x33x16xf16>, tensor<1xi64>) -> tensor<1x2x33x16xf16>
  return %0, %1, %2 : tensor<2x4x70x64xbf16>, tensor<2x4x70x64xbf16>, tensor<1x2x33x16xf16>
}
