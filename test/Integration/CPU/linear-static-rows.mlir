// torch.module: nn.ModuleDict({"a": nn.Linear(70, 129), "b": nn.Linear(129, 768), "c": nn.Linear(200, 33, bias=False), "d": nn.Linear(200, 1), "e": nn.Linear(768, 256), "f": nn.Linear(256, 17), "g": nn.Linear(64, 256)})
// torch.inputs: x=f32[1,3,70] y=f32[2,200] z=f32[2,1,768] v=f32[1,256,64]
// torch.call: (module["b"](torch.relu(module["a"](x))), module["c"](y), module["d"](torch.relu(y)), module["f"](torch.relu(module["e"](z))), module["g"](v))
//
// Linear layers whose rows are known at compile time and few: a decoding
// step compiled for its shape ([B, 1, K]), an ONNX graph of fixed batch,
// a [1, K] input. They get the GEMM kernels a dynamic length gets (register
// and cache tiles, packed panels, --gemm-weights); they used to be left to
// the plain contraction, 70-270x slower (768 -> 3072 at M = 1: 6.6 ms
// against 0.09; at M = 8: 51 ms against 0.19, Zen 5), and --gemm-weights
// did not apply to them. M = 3 runs on a full-height tile's remainder
// (half tiles, then a row kernel), [2, 200] is a 2-D input, 129 -> 128 + 1
// and 33 -> 32 + 1 split off their last column, 200 -> 1 and 129 -> 1 are
// dot products along K over a static M smaller than their tile, 256 -> 17
// pads its panel; [2, 1, 768] is one GEMM of 2 rows, not 2 of one row
// (PyTorch exports a batch-first memory's projection as [L, 1, E]); 256
// rows make cache tiles of 132 rows, not 128 (whose static register-tile
// loop transform.loop.peel refuses: a static linear of 128 rows did not
// compile). Serial, on 2 threads, with weights packed at load time,
// and on AVX2 (whose dot-product tiles of 2 rows make M = 2 one tile): against
// PyTorch.
// RUN: %check-golden %s --work %t/serial --atol 2e-5
// RUN: %check-golden %s --work %t/parallel --atol 2e-5 --compile-arg=--parallel --run-arg=--threads --run-arg=2
// RUN: %check-golden %s --work %t/external --atol 2e-5 --compile-arg=--weights-external
// RUN: %check-golden %s --work %t/haswell --atol 2e-5 --compile-arg=--cpu=haswell
// Every one is tiled as a GEMM of its static rows (pinned target):
// RUN: attune-compile %s --weights %golden/linear-static-rows/weights.safetensors --cpu=znver4 --explain-tiling -o %t/znver4.so 2>&1 | FileCheck %s
// CHECK-DAG: GEMM 3 x 70 -> 128 on znver4 {{.*}} register tile 4 x 64
// CHECK-DAG: GEMM 3 x 70 -> 1 on znver4 {{.*}} dot products along K
// CHECK-DAG: GEMM 3 x 129 -> 768 on znver4 {{.*}} register tile 4 x 64
// CHECK-DAG: GEMM 2 x 200 -> 32 on znver4 {{.*}} register tile 2 x 32
// CHECK-DAG: GEMM 2 x 200 -> 1 on znver4 {{.*}} dot products along K
// CHECK-DAG: GEMM 2 x 768 -> 256 on znver4 {{.*}} register tile 2 x 64
// CHECK-DAG: GEMM 2 x 256 -> 17 on znver4 {{.*}} register tile 2 x 32
// CHECK-DAG: GEMM 256 x 64 -> 256 on znver4 {{.*}} cache_rows 132
// And --gemm-weights applies to them: the decoding step's panels are bf16.
// RUN: attune-compile %s --weights %golden/linear-static-rows/weights.safetensors --cpu=znver4 --gemm-weights=bf16 --emit=linalg | FileCheck %s --check-prefix=BF16
// BF16: arith.constant dense_resource<e.weight_t_p64x2_bf16> : tensor<4x384x64x2xbf16>

func.func @forward(%x: tensor<1x3x70xf32> {attune.name = "x"}, %y: tensor<2x200xf32> {attune.name = "y"}, %z: tensor<2x1x768xf32> {attune.name = "z"}, %v: tensor<1x256x64xf32> {attune.name = "v"}) -> (tensor<1x3x768xf32>, tensor<2x33xf32>, tensor<2x1xf32>, tensor<2x1x17xf32>, tensor<1x256x256xf32>) {
  %wa = attune.weight "a.weight" : tensor<129x70xf32>
  %ba = attune.weight "a.bias" : tensor<129xf32>
  %wb = attune.weight "b.weight" : tensor<768x129xf32>
  %bb = attune.weight "b.bias" : tensor<768xf32>
  %wc = attune.weight "c.weight" : tensor<33x200xf32>
  %wd = attune.weight "d.weight" : tensor<1x200xf32>
  %bd = attune.weight "d.bias" : tensor<1xf32>
  %we = attune.weight "e.weight" : tensor<256x768xf32>
  %be = attune.weight "e.bias" : tensor<256xf32>
  %wf = attune.weight "f.weight" : tensor<17x256xf32>
  %bf = attune.weight "f.bias" : tensor<17xf32>
  %wg = attune.weight "g.weight" : tensor<256x64xf32>
  %bg = attune.weight "g.bias" : tensor<256xf32>
  %a = attune.linear %x, %wa, %ba : (tensor<1x3x70xf32>, tensor<129x70xf32>, tensor<129xf32>) -> tensor<1x3x129xf32>
  %ra = attune.activation <relu> %a : tensor<1x3x129xf32>
  %b = attune.linear %ra, %wb, %bb : (tensor<1x3x129xf32>, tensor<768x129xf32>, tensor<768xf32>) -> tensor<1x3x768xf32>
  %c = attune.linear %y, %wc : (tensor<2x200xf32>, tensor<33x200xf32>) -> tensor<2x33xf32>
  %ry = attune.activation <relu> %y : tensor<2x200xf32>
  %d = attune.linear %ry, %wd, %bd : (tensor<2x200xf32>, tensor<1x200xf32>, tensor<1xf32>) -> tensor<2x1xf32>
  %e = attune.linear %z, %we, %be {activation = #attune.activation<relu>} : (tensor<2x1x768xf32>, tensor<256x768xf32>, tensor<256xf32>) -> tensor<2x1x256xf32>
  %f = attune.linear %e, %wf, %bf : (tensor<2x1x256xf32>, tensor<17x256xf32>, tensor<17xf32>) -> tensor<2x1x17xf32>
  %g = attune.linear %v, %wg, %bg : (tensor<1x256x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<1x256x256xf32>
  return %b, %c, %d, %f, %g : tensor<1x3x768xf32>, tensor<2x33xf32>, tensor<2x1xf32>, tensor<2x1x17xf32>, tensor<1x256x256xf32>
}
