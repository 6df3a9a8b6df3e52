// RUN: attune-opt %s -split-input-file -verify-diagnostics
// RUN: not attune-opt %s -split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// Malformed input: each case is a located error, never a crash.
// EXIT: malformed.mlir:{{[0-9]+}}:{{[0-9]+}}: error:

func.func @typo_attribute(%q: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'attune.attention' op has unknown attribute 'casual' (known attributes: align, causal, dilation, return_weights, scale, score, selection, sparse, window)}}
  %r = attune.attention %q, %q, %q {casual} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return
}

// -----

func.func @attribute_without_attributes(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'attune.add' op has unknown attribute 'alpha' (it takes no attributes)}}
  %r = attune.add %x, %y {alpha = 2.0 : f32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Dialect-prefixed annotations are allowed.
func.func @annotation(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = attune.add %x, %y {test.note = "kept"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'attune.flash' is unknown}}
  %r = attune.flash %x : tensor<4xf32>
  return
}

// -----

func.func @unknown_enum_case(%q: tensor<1x2x4x8xf32>) {
  // expected-error @+2 {{expected ::mlir::attune::Selection to be one of: soft, hard}}
  // expected-error @+1 {{failed to parse Attune_SelectionAttr parameter 'value' which is to be a `::mlir::attune::Selection`}}
  %r = attune.attention %q, %q, %q {selection = #attune.selection<sparse>} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return
}

// -----

func.func @wrong_enum_kind(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{Invalid attribute `activation` in property conversion: #attune.align<top_left>}}
  %r = "attune.feed_forward"(%x, %x, %x) <{activation = #attune.align<top_left>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @operand_count(%x: tensor<4x8xf32>, %w: tensor<2x8xf32>) {
  // expected-error @+1 {{custom op 'attune.linear' number of operands and types do not match: got 2 operands and 3 types}}
  %r = attune.linear %x, %w : (tensor<4x8xf32>, tensor<2x8xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'attune.softmax' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %r = attune.softmax %x : tensor<*xf32>
  return
}

// -----

func.func @unranked_generic(%x: tensor<*xf32>) {
  // expected-error @+1 {{'attune.softmax' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %r = "attune.softmax"(%x) <{axis = -1 : i64}> : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @segment_sizes(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'attune.layer_norm' op operand count (1) does not match with the total size (4) specified in attribute 'operandSegmentSizes'}}
  %r = "attune.layer_norm"(%x) <{epsilon = 1.0e-5 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @truncated(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expected ':'}}
  %r = attune.softmax %x
}
