// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,12,16], k=f32[2,4,12,16], v=f32[2,4,12,16], lengths=i64[2]{1,13}
// torch.inputs: q=f32[1,4,5,16], k=f32[1,4,5,16], v=f32[1,4,5,16], lengths=i64[1]{1,6}
// torch.call: torch.matmul(torch.softmax((torch.matmul(q, k.transpose(-1, -2)) / 4.0).masked_fill(~(ref.visibility(q.shape[2], k.shape[2], causal=True)[None, None] & (torch.arange(k.shape[2])[None, :] < lengths[:, None])[:, None, None, :]), float("-inf")), -1), v)
//
// Attention written out op by op, as PyTorch code does it: matmul with the
// transposed keys, scaling by 1/sqrt(D), a causal and padding mask, softmax,
// matmul. The pipeline fuses it into one attune.attention ...
// RUN: attune-compile %s --emit=attune | FileCheck %s
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) {causal, scale = 2.500000e-01 : f64}
// CHECK-NOT: attune.softmax
// ... and the result is PyTorch's.
// RUN: %check-golden %s --work %t --atol 1e-5

!t = tensor<?x4x?x16xf32>
!s = tensor<?x4x?x?xf32>
func.func @forward(%q: !t {attune.name = "q"}, %k: !t {attune.name = "k"}, %v: !t {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"}) -> !t {
  %kt = attune.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (!t) -> tensor<?x4x16x?xf32>
  %s = attune.matmul %q, %kt : (!t, tensor<?x4x16x?xf32>) -> !s
  %cs = attune.scale %s {factor = 0.25 : f64} : !s
  %m = attune.mask %cs key_lengths(%len) {causal} : (!s, tensor<?xi64>) -> !s
  %p = attune.softmax %m : !s
  %o = attune.matmul %p, %v : (!s, !t) -> !t
  return %o : !t
}
