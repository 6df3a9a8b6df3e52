// torch.module: nn.ModuleDict({"a": nn.Linear(64, 320), "b": nn.Linear(320, 192)})
// torch.inputs: x=f32[1,300,64]
// torch.inputs: x=f32[3,130,64]
// torch.inputs: x=f32[1,256,64]
// torch.inputs: x=f32[2,1,64]
// torch.call: module["b"](torch.nn.functional.gelu(module["a"](x)))
//
// The parallel GEMM schedule (--parallel: an scf.forall over 128-row x
// 128-column tiles, rows outer) on the shapes where its tiles are partial:
// 300 and 130 rows (a last row block of 44 and 2 rows, and 3 batches of
// them), 320 and 192 columns (a last 64-column tile), K = 64 and 320 (k
// tiles of 128 that do not divide them), a GELU epilogue on the first GEMM
// and a bias init on the second, one row; serial and on 2 threads, against
// PyTorch.
// RUN: %check-golden %s --work %t/serial --atol 1e-5
// RUN: %check-golden %s --work %t/parallel --atol 1e-5 --compile-arg=--parallel --run-arg=--threads --run-arg=2
// The --parallel build on 1 thread: the same answer.
// RUN: %check-golden %s --work %t/one-thread --atol 1e-5 --compile-arg=--parallel --run-arg=--threads --run-arg=1
// The worksharing loops' other schedules (attune-omp-schedule; guided is
// the default): static, dynamic with chunks of 3 tiles, and OMP_SCHEDULE's.
// RUN: %check-golden %s --work %t/static --atol 1e-5 --compile-arg=--parallel --compile-arg=--omp-schedule=static --run-arg=--threads --run-arg=2
// RUN: %check-golden %s --work %t/dynamic --atol 1e-5 --compile-arg=--parallel --compile-arg=--omp-schedule=dynamic --compile-arg=--omp-chunk=3 --run-arg=--threads --run-arg=2
// RUN: env OMP_SCHEDULE=dynamic,1 %check-golden %s --work %t/runtime --atol 1e-5 --compile-arg=--parallel --compile-arg=--omp-schedule=runtime --run-arg=--threads --run-arg=2

func.func @forward(%x: tensor<?x?x64xf32> {attune.name = "x"}) -> tensor<?x?x192xf32> {
  %wa = attune.weight "a.weight" : tensor<320x64xf32>
  %ba = attune.weight "a.bias" : tensor<320xf32>
  %wb = attune.weight "b.weight" : tensor<192x320xf32>
  %bb = attune.weight "b.bias" : tensor<192xf32>
  %h = attune.linear %x, %wa, %ba {activation = #attune.activation<gelu>} : (tensor<?x?x64xf32>, tensor<320x64xf32>, tensor<320xf32>) -> tensor<?x?x320xf32>
  %y = attune.linear %h, %wb, %bb : (tensor<?x?x320xf32>, tensor<192x320xf32>, tensor<192xf32>) -> tensor<?x?x192xf32>
  return %y : tensor<?x?x192xf32>
}
