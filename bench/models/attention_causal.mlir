// torch.module: nn.Identity()
// torch.inputs: q=f32[1,12,128,64], k=f32[1,12,128,64], v=f32[1,12,128,64]
// torch.inputs: q=f32[1,12,512,64], k=f32[1,12,512,64], v=f32[1,12,512,64]
// torch.inputs: q=f32[1,12,1024,64], k=f32[1,12,1024,64], v=f32[1,12,1024,64]
// torch.inputs: q=f32[1,12,2048,64], k=f32[1,12,2048,64], v=f32[1,12,2048,64]
// torch.inputs: q=f32[1,12,4096,64], k=f32[1,12,4096,64], v=f32[1,12,4096,64]
// torch.call: torch.matmul(torch.softmax((torch.matmul(q, k.transpose(-1, -2)) / 8.0).masked_fill(torch.triu(torch.ones(q.shape[2], q.shape[2], dtype=torch.bool), 1), float("-inf")), -1), v)
//
// Benchmark: attention, H = 12, D = 64, causal; the PyTorch anchor is
// matmul-softmax-matmul.

func.func @forward(%q: tensor<1x12x?x64xf32> {attune.name = "q"}, %k: tensor<1x12x?x64xf32> {attune.name = "k"}, %v: tensor<1x12x?x64xf32> {attune.name = "v"}) -> tensor<1x12x?x64xf32> {
  %o = attune.attention %q, %k, %v {causal} : (tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32>
  return %o : tensor<1x12x?x64xf32>
}
