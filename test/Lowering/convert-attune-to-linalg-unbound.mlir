// RUN: attune-opt %s --convert-attune-to-linalg=require-bound-weights --verify-diagnostics --split-input-file
// RUN: not attune-opt %s --attune-cpu-pipeline=cpu=icelake-server 2>&1 | FileCheck %s

// The pipelines require every weight bound: an unbound one is named at
// once, not after compiling the rest (the mutation test found a 64-layer
// model failing at bufferization after a minute).
// CHECK: error: 'attune.weight' op weight 'w' is not bound: compile with attune-compile --weights FILE, or run --attune-bind-weights before the pipeline
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'attune.weight' op weight 'w' is not bound: compile with attune-compile --weights FILE, or run --attune-bind-weights before the pipeline}}
  %w = attune.weight "w" : tensor<4xf32>
  %y = attune.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
