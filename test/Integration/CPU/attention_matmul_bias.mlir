// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,16,32] k=f32[2,4,20,32] v=f32[2,4,20,32] p=f32[2,4,16,8] r=f32[2,4,8,20]
// torch.inputs: q=f32[1,4,5,32] k=f32[1,4,7,32] v=f32[1,4,7,32] p=f32[1,4,5,8] r=f32[1,4,8,7]
// torch.call: torch.softmax(p @ r + (q @ k.transpose(-1, -2)) * 0.1767766952966369, -1) @ v
//
// Attention whose additive bias is itself a matmul (a position bias from
// two tables, p r), written first in the add: attune-fuse-attention takes
// as the scores the operand that leads back to the query-key matmul, fuses
// the chain into attune.attention with p r as its bias, and the result is
// PyTorch's.
// RUN: attune-compile %s --emit=attune --explain-fusion 2>&1 | FileCheck %s
// CHECK: remark: fused matmul -> scale -> bias -> softmax -> matmul into attune.attention
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}})
// RUN: %check-golden %s --work %t --atol 1e-5

!q = tensor<?x4x?x32xf32>
!s = tensor<?x4x?x?xf32>
func.func @forward(%q: !q {attune.name = "q"}, %k: !q {attune.name = "k"}, %v: !q {attune.name = "v"},
                   %p: tensor<?x4x?x8xf32> {attune.name = "p"}, %r: tensor<?x4x8x?xf32> {attune.name = "r"}) -> !q {
  %bias = attune.matmul %p, %r : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> !s
  %s = attune.matmul %q, %k {transpose_rhs} : (!q, !q) -> !s
  %t = attune.scale %s {factor = 0.1767766952966369 : f64} : !s
  %b = attune.add %bias, %t : (!s, !s) -> !s
  %sm = attune.softmax %b : !s
  %o = attune.matmul %sm, %v : (!s, !q) -> !q
  return %o : !q
}
