// torch.module: nn.Linear(768, 3072)
// torch.inputs: x=f32[1,1,768]
// torch.inputs: x=f32[1,8,768]
// torch.inputs: x=f32[1,128,768]
// torch.inputs: x=f32[1,512,768]
// torch.inputs: x=f32[1,2048,768]
// torch.call: module(x)
//
// Benchmark: linear L x 768 x 3072 (anchor: OpenBLAS sgemm of the same shape).

func.func @forward(%x: tensor<1x?x768xf32> {attune.name = "x"}) -> tensor<1x?x3072xf32> {
  %w = attune.weight "weight" : tensor<3072x768xf32>
  %b = attune.weight "bias" : tensor<3072xf32>
  %y = attune.linear %x, %w, %b : (tensor<1x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<1x?x3072xf32>
  return %y : tensor<1x?x3072xf32>
}
