// torch.module: nn.Identity()
// torch.inputs: s=f32[3,2,5,7], lengths=i32[3]{0,8}
// torch.inputs: s=f32[2,2,5,7], lengths=i32[2]{0,1}
// torch.call: (ref.mask(s, lengths, causal=True, align="bottom_right"), ref.softmax(ref.mask(s, lengths, causal=True, align="bottom_right"), -1), ref.softmax(ref.mask(s, window=2), -1))
//
// attune.mask on precomputed scores, then softmax: zero-length rows are all
// -inf and give zeros, not NaN.
// RUN: %check-golden %s --work %t --atol 1e-6

func.func @forward(%s: tensor<?x2x5x7xf32> {attune.name = "s"}, %len: tensor<?xi32> {attune.name = "lengths"})
    -> (tensor<?x2x5x7xf32>, tensor<?x2x5x7xf32>, tensor<?x2x5x7xf32>) {
  %m = attune.mask %s key_lengths(%len) {causal, align = #attune.align<bottom_right>}
      : (tensor<?x2x5x7xf32>, tensor<?xi32>) -> tensor<?x2x5x7xf32>
  %p = attune.softmax %m : tensor<?x2x5x7xf32>
  %w = attune.mask %s {window = 2 : i64} : (tensor<?x2x5x7xf32>) -> tensor<?x2x5x7xf32>
  %pw = attune.softmax %w : tensor<?x2x5x7xf32>
  return %m, %p, %pw : tensor<?x2x5x7xf32>, tensor<?x2x5x7xf32>, tensor<?x2x5x7xf32>
}
