// RUN: attune-opt %s --split-input-file --attune-fuse-epilogues="explain=true" --verify-diagnostics | FileCheck %s

!x = tensor<?x16x64xf32>
!h = tensor<?x16x128xf32>

// A post-norm feed-forward block: bias add and activation join the first
// linear, the residual add joins the norm.
// CHECK-LABEL: func @post_norm
// CHECK-SAME: (%[[X:[^:]*]]: {{[^,]*}}, %[[W1:[^:]*]]: {{[^,]*}}, %[[B1:[^:]*]]: {{[^,]*}}, %[[W2:[^:]*]]: {{[^,]*}}, %[[B2:[^:]*]]: {{[^,]*}}, %[[G:[^:]*]]: {{[^,]*}}, %[[BETA:[^:]*]]: {{[^)]*}})
// CHECK-NEXT: %[[H:.*]] = attune.linear %[[X]], %[[W1]], %[[B1]] {activation = #attune.activation<gelu>}
// CHECK-NEXT: %[[Y:.*]] = attune.linear %[[H]], %[[W2]], %[[B2]] :
// CHECK-NEXT: %[[N:.*]] = attune.layer_norm %[[X]] residual(%[[Y]]) weight(%[[G]]) bias(%[[BETA]])
// CHECK-NEXT: return %[[N]]
func.func @post_norm(%x: !x, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>,
                     %b2: tensor<64xf32>, %g: tensor<64xf32>, %beta: tensor<64xf32>) -> !x {
  // expected-remark @+2 {{fused the bias add into attune.linear}}
  // expected-remark @+1 {{fused the gelu activation into attune.linear as its epilogue}}
  %h = attune.linear %x, %w1 : (!x, tensor<128x64xf32>) -> !h
  %hb = attune.add %h, %b1 : (!h, tensor<128xf32>) -> !h
  %a = attune.activation <gelu> %hb : !h
  %y = attune.linear %a, %w2, %b2 : (!h, tensor<64x128xf32>, tensor<64xf32>) -> !x
  %s = attune.add %x, %y : (!x, !x) -> !x
  // expected-remark @+1 {{fused the residual add into attune.layer_norm}}
  %n = attune.layer_norm %s weight(%g) bias(%beta) : (!x, tensor<64xf32>, tensor<64xf32>) -> !x
  return %n : !x
}

// -----

!x = tensor<?x16x64xf32>

// Pre-norm: the residual stream feeds the norm and the return; the add stays.
// CHECK-LABEL: func @pre_norm
// CHECK:      %[[S:.*]] = attune.add
// CHECK-NEXT: attune.layer_norm %[[S]] :
func.func @pre_norm(%x: !x, %y: !x) -> (!x, !x) {
  %s = attune.add %x, %y : (!x, !x) -> !x
  // expected-remark @+1 {{residual add not fused into attune.layer_norm: the sum has another use (a pre-norm residual stream)}}
  %n = attune.layer_norm %s : (!x) -> !x
  return %s, %n : !x, !x
}

// -----

// A broadcasting add is not a residual.
// CHECK-LABEL: func @broadcast
// CHECK:      %[[S:.*]] = attune.add
// CHECK-NEXT: attune.layer_norm %[[S]] :
func.func @broadcast(%x: tensor<4x16x64xf32>, %p: tensor<16x64xf32>) -> tensor<4x16x64xf32> {
  %s = attune.add %x, %p : (tensor<4x16x64xf32>, tensor<16x64xf32>) -> tensor<4x16x64xf32>
  // expected-remark @+1 {{residual add not fused into attune.layer_norm: the add broadcasts}}
  %n = attune.layer_norm %s : (tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  return %n : tensor<4x16x64xf32>
}

// -----

!h = tensor<8x128xf32>

// The linear's result is also returned: its bias add stays (and so the
// activation, which reads the add, is no candidate).
// CHECK-LABEL: func @shared
// CHECK:      %[[H:.*]] = attune.linear %{{.*}}, %{{.*}} :
// CHECK-NEXT: %[[B:.*]] = attune.add %[[H]]
// CHECK-NEXT: %[[A:.*]] = attune.activation <relu> %[[B]]
func.func @shared(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> (!h, !h, !h) {
  %h = attune.linear %x, %w : (tensor<8x64xf32>, tensor<128x64xf32>) -> !h
  // expected-remark @+1 {{bias add not fused into attune.linear: the linear's result has another use}}
  %hb = attune.add %h, %b : (!h, tensor<128xf32>) -> !h
  %a = attune.activation <relu> %hb : !h
  return %h, %hb, %a : !h, !h, !h
}

// -----

!h = tensor<8x128xf32>

// CHECK-LABEL: func @shared_activation
// CHECK:      %[[H:.*]] = attune.linear %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NEXT: attune.activation <relu> %[[H]]
func.func @shared_activation(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> (!h, !h) {
  %h = attune.linear %x, %w, %b : (tensor<8x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> !h
  // expected-remark @+1 {{activation not fused into attune.linear: the linear's result has another use}}
  %a = attune.activation <relu> %h : !h
  return %h, %a : !h, !h
}

// -----

!h = tensor<8x128xf32>

// A linear with a bias keeps a second bias add separate; an activation of
// something that is not a linear is no candidate.
// CHECK-LABEL: func @has_bias
// CHECK:      attune.linear %{{.*}}, %{{.*}}, %{{.*}} {activation = #attune.activation<tanh>}
// CHECK-NEXT: attune.add
// CHECK-NEXT: attune.activation <sigmoid>
func.func @has_bias(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> !h {
  // expected-remark @+1 {{fused the tanh activation into attune.linear as its epilogue}}
  %h = attune.linear %x, %w, %b : (tensor<8x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> !h
  %t = attune.activation <tanh> %h : !h
  %u = attune.add %t, %b : (!h, tensor<128xf32>) -> !h
  %s = attune.activation <sigmoid> %u : !h
  return %s : !h
}
