// torch.module: nn.ModuleDict({"a": nn.Linear(70, 129), "b": nn.Linear(129, 768), "c": nn.Linear(768, 17), "d": nn.Linear(17, 3), "e": nn.Linear(200, 1), "f": nn.Linear(200, 33, bias=False)})
// torch.inputs: x=f32[1,7,70] y=f32[1,7,200]
// torch.inputs: x=f32[1,11,70] y=f32[1,11,200]
// torch.inputs: x=f32[1,13,70] y=f32[1,13,200]
// torch.inputs: x=f32[2,7,70] y=f32[2,7,200]
// torch.inputs: x=f32[1,1,70] y=f32[1,1,200]
// torch.call: (module["d"](torch.relu(module["c"](torch.relu(module["b"](module["a"](x)))))), module["e"](y), module["f"](torch.relu(y)))
//
// The rows after the last full register tile (M mod 8 on 8-row tiles) run
// in full tiles of half the rows, then half that, then one row at a time
// (attune-tile-gemm): M = 7 is 4 + 2 + 1 rows, 11 is 8 + 2 + 1, 13 is
// 8 + 4 + 1, 14 (two batches of 7) 8 + 4 + 2 (on 8-row tiles). Register
// tiles of 4 x 64 (128 and 768 columns) and 8 x 16 (16), with ReLU
// epilogues and bias inits; 129, 17 and 33 columns split into 128 + 1,
// 16 + 1 and 32 + 1 (the last column a GEMM of its own, each part's bias
// broadcast or, for 33 without a bias (on relu(y), so that it is not
// packed with 200 -> 1), zero fill its own init,
// attune-select-cpu-tiling; 17's ReLU then a row kernel over the joined
// columns); the heads of 3 columns and 1 (and
// the split-off columns) as dot products along K (17 = 16 + the last 1 of
// K; 200 = 192 + 8); serial, on 2 threads, with the weights packed at load
// time (--weights-external), and other targets' tiles (AVX2's 4 x 24 in
// chunks and 8 lanes, SSE's): against PyTorch.
// RUN: %check-golden %s --work %t/serial --atol 2e-5
// RUN: %check-golden %s --work %t/parallel --atol 2e-5 --compile-arg=--parallel --run-arg=--threads --run-arg=2
// RUN: %check-golden %s --work %t/external --atol 2e-5 --compile-arg=--weights-external
// RUN: %check-golden %s --work %t/haswell --atol 2e-5 --compile-arg=--cpu=haswell
// RUN: %check-golden %s --work %t/sse --atol 2e-5 --compile-arg=--cpu=x86-64-v2
// The tiles chosen for Zen 4 (pinned; any host compiles them):
// RUN: attune-compile %s --weights %golden/linear-row-remainders/weights.safetensors --cpu=znver4 --explain-tiling -o %t/znver4.so 2>&1 | FileCheck %s
// CHECK-DAG: GEMM ? x 70 -> 128 on znver4 {{.*}} register tile 4 x 64
// CHECK-DAG: GEMM ? x 70 -> 1 on znver4 {{.*}} dot products along K {{.*}} the last 6 of K after them
// CHECK-DAG: GEMM ? x 129 -> 768 on znver4 {{.*}} register tile 4 x 64
// CHECK-DAG: GEMM ? x 768 -> 16 on znver4 {{.*}} register tile 8 x 16
// CHECK-DAG: GEMM ? x 768 -> 1 on znver4 {{.*}} dot products along K {{.*}} the last 0 of K after them
// CHECK-DAG: GEMM ? x 17 -> 3 on znver4 {{.*}} dot products along K {{.*}} register tile 4 rows x 3 columns x 16 lanes {{.*}} the last 1 of K after them
// CHECK-DAG: GEMM ? x 200 -> 1 on znver4 {{.*}} dot products along K {{.*}} register tile 8 rows x 1 columns x 16 lanes {{.*}} the last 8 of K after them
// CHECK-DAG: GEMM ? x 200 -> 32 on znver4 {{.*}} register tile 8 x 32

func.func @forward(%x: tensor<?x?x70xf32> {attune.name = "x"}, %y: tensor<?x?x200xf32> {attune.name = "y"}) -> (tensor<?x?x3xf32>, tensor<?x?x1xf32>, tensor<?x?x33xf32>) {
  %wa = attune.weight "a.weight" : tensor<129x70xf32>
  %ba = attune.weight "a.bias" : tensor<129xf32>
  %wb = attune.weight "b.weight" : tensor<768x129xf32>
  %bb = attune.weight "b.bias" : tensor<768xf32>
  %wc = attune.weight "c.weight" : tensor<17x768xf32>
  %bc = attune.weight "c.bias" : tensor<17xf32>
  %wd = attune.weight "d.weight" : tensor<3x17xf32>
  %bd = attune.weight "d.bias" : tensor<3xf32>
  %we = attune.weight "e.weight" : tensor<1x200xf32>
  %be = attune.weight "e.bias" : tensor<1xf32>
  %wf = attune.weight "f.weight" : tensor<33x200xf32>
  %a = attune.linear %x, %wa, %ba : (tensor<?x?x70xf32>, tensor<129x70xf32>, tensor<129xf32>) -> tensor<?x?x129xf32>
  %b = attune.linear %a, %wb, %bb {activation = #attune.activation<relu>} : (tensor<?x?x129xf32>, tensor<768x129xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  %c = attune.linear %b, %wc, %bc {activation = #attune.activation<relu>} : (tensor<?x?x768xf32>, tensor<17x768xf32>, tensor<17xf32>) -> tensor<?x?x17xf32>
  %d = attune.linear %c, %wd, %bd : (tensor<?x?x17xf32>, tensor<3x17xf32>, tensor<3xf32>) -> tensor<?x?x3xf32>
  %e = attune.linear %y, %we, %be : (tensor<?x?x200xf32>, tensor<1x200xf32>, tensor<1xf32>) -> tensor<?x?x1xf32>
  %ry = attune.activation <relu> %y : tensor<?x?x200xf32>
  %f = attune.linear %ry, %wf : (tensor<?x?x200xf32>, tensor<33x200xf32>) -> tensor<?x?x33xf32>
  return %d, %e, %f : tensor<?x?x3xf32>, tensor<?x?x1xf32>, tensor<?x?x33xf32>
}
