// torch.module: nn.Linear(768, 32001)
// torch.inputs: x=f32[1,1,768]
// torch.inputs: x=f32[1,128,768]
// torch.call: module(x)
//
// Benchmark: linear L x 768 x 32001, an output width that is no multiple of
// the register tile's (a vocabulary-sized LM head; anchor: OpenBLAS sgemm
// of the same shape).

func.func @forward(%x: tensor<1x?x768xf32> {attune.name = "x"}) -> tensor<1x?x32001xf32> {
  %w = attune.weight "weight" : tensor<32001x768xf32>
  %b = attune.weight "bias" : tensor<32001xf32>
  %y = attune.linear %x, %w, %b : (tensor<1x?x768xf32>, tensor<32001x768xf32>, tensor<32001xf32>) -> tensor<1x?x32001xf32>
  return %y : tensor<1x?x32001xf32>
}
