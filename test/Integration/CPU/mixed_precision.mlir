// torch.module: nn.ModuleDict({"a": nn.Linear(16, 8).half(), "b": nn.Linear(16, 8).bfloat16()})
// torch.inputs: x=f32[3,16]
// torch.inputs: x=f32[1,16]
// torch.call: (F.linear(x, module["a"].weight.float(), module["a"].bias.float()), F.linear(x, module["b"].weight.float(), module["b"].bias.float()), F.linear(x, module["a"].weight.float(), module["a"].bias.float()).half())
//
// f32 activations with f16 and bf16 weights: attune.cast widens the
// weights (at compile time: the casts of bound weights fold) and narrows a
// result for an f16 output. The f32 results agree up to f32 rounding; the
// f16 one is compared with PyTorch's rounded result (equal).
// RUN: %check-golden %s --work %t --atol 1e-5 --rtol 0

func.func @forward(%x: tensor<?x16xf32> {attune.name = "x"})
    -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf16>) {
  %aw = attune.weight "a.weight" : tensor<8x16xf16>
  %ab = attune.weight "a.bias" : tensor<8xf16>
  %bw = attune.weight "b.weight" : tensor<8x16xbf16>
  %bb = attune.weight "b.bias" : tensor<8xbf16>
  %aw32 = attune.cast %aw : tensor<8x16xf16> to tensor<8x16xf32>
  %ab32 = attune.cast %ab : tensor<8xf16> to tensor<8xf32>
  %bw32 = attune.cast %bw : tensor<8x16xbf16> to tensor<8x16xf32>
  %bb32 = attune.cast %bb : tensor<8xbf16> to tensor<8xf32>
  %0 = attune.linear %x, %aw32, %ab32 : (tensor<?x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %1 = attune.linear %x, %bw32, %bb32 : (tensor<?x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %2 = attune.cast %0 : tensor<?x8xf32> to tensor<?x8xf16>
  return %0, %1, %2 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf16>
}
