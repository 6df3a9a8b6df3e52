// torch.module: nn.ModuleDict({"w": nn.Linear(96, 32)})
// torch.inputs: context=f32[2,5,64] state=f32[2,5,32] extra=f32[2,3,32]
// torch.inputs: context=f32[1,1,64] state=f32[1,1,32] extra=f32[1,4,32]
// torch.call: torch.cat([torch.tanh(module["w"](torch.cat([context, state], -1))), extra, state], 1)
//
// The classic attention decoder's `tanh(W [context; state])` with one weight
// over the concatenation (as PyTorch stores it, no hand-split halves), then
// a concatenation of three along the (dynamic) sequence dim: torch.cat,
// dynamic batch and lengths, one binary for both cases.
// RUN: %check-golden %s --work %t --atol 1e-5
// A batch that disagrees between the inputs is caught at run time, with
// the op's location.
// RUN: %python -c "import numpy; numpy.save('%t/bad.npy', numpy.zeros((3, 5, 32), 'float32'))"
// RUN: not attune-run %t/concat.so --input context=%golden/concat/case0/context.npy --input state=%t/bad.npy --input extra=%golden/concat/case0/extra.npy 2>&1 | FileCheck %s
// CHECK: concat.mlir:[[@LINE+7]]:9: input shapes disagree: dim 0 of concat input #1 differs from input #0's

func.func @forward(%context: tensor<?x?x64xf32> {attune.name = "context"},
                   %state: tensor<?x?x32xf32> {attune.name = "state"},
                   %extra: tensor<?x?x32xf32> {attune.name = "extra"}) -> tensor<?x?x32xf32> {
  %w = attune.weight "w.weight" : tensor<32x96xf32>
  %b = attune.weight "w.bias" : tensor<32xf32>
  %cs = attune.concat %context, %state {axis = -1 : i64}
      : (tensor<?x?x64xf32>, tensor<?x?x32xf32>) -> tensor<?x?x96xf32>
  %h = attune.linear %cs, %w, %b : (tensor<?x?x96xf32>, tensor<32x96xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %t = attune.activation <tanh> %h : tensor<?x?x32xf32>
  %y = attune.concat %t, %extra, %state {axis = 1 : i64}
      : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}
