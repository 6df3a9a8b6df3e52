// torch.module: nn.Linear(3072, 768)
// torch.inputs: x=f32[1,1,3072]
// torch.inputs: x=f32[1,8,3072]
// torch.inputs: x=f32[1,128,3072]
// torch.inputs: x=f32[1,512,3072]
// torch.inputs: x=f32[1,2048,3072]
// torch.call: module(x)
//
// Benchmark: linear L x 3072 x 768 (anchor: OpenBLAS sgemm of the same shape).

func.func @forward(%x: tensor<1x?x3072xf32> {attune.name = "x"}) -> tensor<1x?x768xf32> {
  %w = attune.weight "weight" : tensor<768x3072xf32>
  %b = attune.weight "bias" : tensor<768xf32>
  %y = attune.linear %x, %w, %b : (tensor<1x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<1x?x768xf32>
  return %y : tensor<1x?x768xf32>
}
