// torch.module: nn.ModuleDict({"a": nn.Linear(200, 320), "b": nn.Linear(320, 96)})
// torch.inputs: x=f32[1,300,200]
// torch.inputs: x=f32[3,130,200]
// torch.inputs: x=f32[2,5,200]
// torch.inputs: x=f32[1,1,200]
// torch.call: torch.nn.functional.gelu(module["b"](torch.relu(module["a"](x))))
//
// Activation epilogues applied in the register tiles of the last k tile
// (attune-epilogue-in-registers), where the k tiles do not divide K: a ReLU
// after 200 -> 320 (64-column panels, a panel-major intermediate, k tiles of
// 128 and 72) and a GELU after 320 -> 96 (32-column panels, a row-major
// intermediate, k tiles of 256 and 64); 300 and 130 rows (partial cache
// tiles, a remainder of rows that are not a whole register tile), 5 rows
// and one; serial and on 2 threads, against PyTorch.
// RUN: %check-golden %s --work %t/serial --atol 1e-5
// RUN: %check-golden %s --work %t/parallel --atol 1e-5 --compile-arg=--parallel --run-arg=--threads --run-arg=2

func.func @forward(%x: tensor<?x?x200xf32> {attune.name = "x"}) -> tensor<?x?x96xf32> {
  %wa = attune.weight "a.weight" : tensor<320x200xf32>
  %ba = attune.weight "a.bias" : tensor<320xf32>
  %wb = attune.weight "b.weight" : tensor<96x320xf32>
  %bb = attune.weight "b.bias" : tensor<96xf32>
  %h = attune.linear %x, %wa, %ba {activation = #attune.activation<relu>} : (tensor<?x?x200xf32>, tensor<320x200xf32>, tensor<320xf32>) -> tensor<?x?x320xf32>
  %y = attune.linear %h, %wb, %bb {activation = #attune.activation<gelu>} : (tensor<?x?x320xf32>, tensor<96x320xf32>, tensor<96xf32>) -> tensor<?x?x96xf32>
  return %y : tensor<?x?x96xf32>
}
