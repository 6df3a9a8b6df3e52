// RUN: attune-opt %s -split-input-file -verify-diagnostics

// One case per verifier error: each message names the operand and gives
// the expected and the actual value.

func.func @case0() {
  // expected-error @+1 {{'attune.weight' op name must be a non-empty state_dict key}}
  %r = attune.weight "" : tensor<4xf32>
  return
}

// -----

func.func @case1() {
  // expected-error @+1 {{'attune.weight' op weight 'w' must have a static shape, got [?, 4]}}
  %r = attune.weight "w" : tensor<?x4xf32>
  return
}

// -----

func.func @case2() {
  // expected-error @+1 {{'attune.weight' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %r = attune.weight "w" : tensor<4xi32>
  return
}

// -----

func.func @case3(%x: tensor<2x64xf32>, %w: tensor<8x32xf32>) {
  // expected-error @+1 {{'attune.linear' op weight dim 1 (in features) is 32, expected 64 (the last dim of input)}}
  %r = attune.linear %x, %w : (tensor<2x64xf32>, tensor<8x32xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @case4(%x: tensor<2x64xf32>, %w: tensor<8x64xf32>, %b: tensor<7xf32>) {
  // expected-error @+1 {{'attune.linear' op bias has shape [7], expected [8]}}
  %r = attune.linear %x, %w, %b : (tensor<2x64xf32>, tensor<8x64xf32>, tensor<7xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @case5(%x: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'attune.linear' op weight has rank 1, expected rank 2 ([out, in])}}
  %r = attune.linear %x, %w : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @case6(%x: tensor<2x64xf32>, %w: tensor<8x64xf16>) {
  // expected-error @+1 {{'attune.linear' op weight has element type 'f16', expected 'f32' (the element type of input)}}
  %r = attune.linear %x, %w : (tensor<2x64xf32>, tensor<8x64xf16>) -> tensor<2x8xf32>
  return
}

// -----

func.func @case7(%x: tensor<2x64xf32>, %w: tensor<8x64xf32>) {
  // expected-error @+2 {{'attune.linear' op inferred type(s) 'tensor<2x8xf32>' are incompatible with return type(s) of operation 'tensor<2x9xf32>'}}
  // expected-error @+1 {{'attune.linear' op failed to infer returned types}}
  %r = attune.linear %x, %w : (tensor<2x64xf32>, tensor<8x64xf32>) -> tensor<2x9xf32>
  return
}

// -----

func.func @case8(%x: tensor<0xf32>, %w: tensor<8x64xf32>) {
  // expected-error @+1 {{'attune.linear' op weight dim 1 (in features) is 64, expected 0 (the last dim of input)}}
  %r = attune.linear %x, %w : (tensor<0xf32>, tensor<8x64xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @case9(%a: tensor<4x8xf32>, %b: tensor<9x2xf32>) {
  // expected-error @+1 {{'attune.matmul' op contraction dims differ: lhs has K = 8 and rhs has K = 9}}
  %r = attune.matmul %a, %b : (tensor<4x8xf32>, tensor<9x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case10(%a: tensor<3x4x8xf32>, %b: tensor<5x8x2xf32>) {
  // expected-error @+1 {{'attune.matmul' op cannot broadcast lhs of shape [3] with rhs of shape [5]: extents 3 and 5 differ and neither is 1}}
  %r = attune.matmul %a, %b : (tensor<3x4x8xf32>, tensor<5x8x2xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

func.func @case11(%a: tensor<8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'attune.matmul' op lhs has rank 1, expected rank >= 2}}
  %r = attune.matmul %a, %b : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case12(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'attune.transpose' op permutation [0, 0, 1] is not a permutation of [0, 3) for an input of rank 3}}
  %r = attune.transpose %a {permutation = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @case13(%a: tensor<2x3x64xf32>) {
  // expected-error @+1 {{'attune.split_heads' op input dim 2 (64) is not divisible by num_heads (5)}}
  %r = attune.split_heads %a {num_heads = 5 : i64} : (tensor<2x3x64xf32>) -> tensor<2x5x3x12xf32>
  return
}

// -----

func.func @case14(%a: tensor<2x3x?xf32>) {
  // expected-error @+1 {{'attune.split_heads' op input dim 2 (H*D) must be static, got [2, 3, ?]}}
  %r = attune.split_heads %a {num_heads = 4 : i64} : (tensor<2x3x?xf32>) -> tensor<2x4x3x?xf32>
  return
}

// -----

func.func @case15(%a: tensor<2x3x64xf32>) {
  // expected-error @+1 {{'attune.split_heads' op num_heads must be >= 1, got 0}}
  %r = attune.split_heads %a {num_heads = 0 : i64} : (tensor<2x3x64xf32>) -> tensor<2x4x3x16xf32>
  return
}

// -----

func.func @case16(%a: tensor<3x64xf32>) {
  // expected-error @+1 {{'attune.split_heads' op input has rank 2, expected rank 3 ([B, L, H*D])}}
  %r = attune.split_heads %a {num_heads = 4 : i64} : (tensor<3x64xf32>) -> tensor<4x3x16xf32>
  return
}

// -----

func.func @case17(%a: tensor<2x?x3x16xf32>) {
  // expected-error @+1 {{'attune.merge_heads' op input dim 1 (H) must be static, got [2, ?, 3, 16]}}
  %r = attune.merge_heads %a : (tensor<2x?x3x16xf32>) -> tensor<2x3x?xf32>
  return
}

// -----

func.func @case18(%a: tensor<2x192xf32>) {
  // expected-error @+1 {{'attune.slice' op slice [150, +64) exceeds input dim 1 of extent 192}}
  %r = attune.slice %a {axis = 1 : i64, offset = 150 : i64, size = 64 : i64} : (tensor<2x192xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @case19(%a: tensor<2x192xf32>) {
  // expected-error @+1 {{'attune.slice' op axis 2 is out of range for rank 2 (expected -2 <= axis < 2)}}
  %r = attune.slice %a {axis = 2 : i64, offset = 0 : i64, size = 64 : i64} : (tensor<2x192xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @case20(%a: tensor<2x192xf32>) {
  // expected-error @+1 {{'attune.slice' op offset must be >= 0, got -1}}
  %r = attune.slice %a {axis = 1 : i64, offset = -1 : i64, size = 64 : i64} : (tensor<2x192xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @case21(%a: tensor<2x192xf32>) {
  // expected-error @+1 {{'attune.slice' op size must be >= 1, got 0}}
  %r = attune.slice %a {axis = 1 : i64, offset = 0 : i64, size = 0 : i64} : (tensor<2x192xf32>) -> tensor<2x0xf32>
  return
}

// -----

func.func @case21c0(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+1 {{'attune.concat' op input #1 has rank 3, expected rank 2}}
  %r = attune.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case21c1(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+1 {{'attune.concat' op input #1 has element type 'f16', expected 'f32' (the element type of input #0)}}
  %r = attune.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case21c2(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'attune.concat' op input #1 has shape [2, 4], expected extent 3 in dim 1 (all dims but axis 0 must agree, as input #0's [2, 3])}}
  %r = attune.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case21c3(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.concat' op axis 2 is out of range for rank 2 (expected -2 <= axis < 2)}}
  %r = attune.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case21c4(%a: tensor<f32>) {
  // expected-error @+1 {{'attune.concat' op inputs must have rank >= 1, got rank 0}}
  %r = attune.concat %a {axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @case21c5() {
  // expected-error @+1 {{'attune.concat' op needs at least one input}}
  %r = attune.concat {axis = 0 : i64} : () -> tensor<1xf32>
  return
}

// -----

func.func @case21c6(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>) {
  // expected-error @+2 {{'attune.concat' op inferred type(s) 'tensor<?x3xf32>' are incompatible with return type(s) of operation 'tensor<4x2xf32>'}}
  // expected-error @+1 {{'attune.concat' op failed to infer returned types}}
  %r = attune.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case22(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.expand_dims' op axis 3 is out of range for rank 3 (expected -3 <= axis < 3)}}
  %r = attune.expand_dims %a {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @case23(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'attune.squeeze' op input dim 1 has extent ?, expected a static 1}}
  %r = attune.squeeze %a {axis = 1 : i64} : (tensor<2x?xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case24(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.softmax' op axis 2 is out of range for rank 2 (expected -2 <= axis < 2)}}
  %r = attune.softmax %a {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @case25(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'attune.add' op cannot broadcast lhs of shape [2, 3] with rhs of shape [4, 3]: extents 2 and 4 differ and neither is 1}}
  %r = attune.add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case26(%a: tensor<2x3xf32>, %b: tensor<3xbf16>) {
  // expected-error @+1 {{'attune.mul' op rhs has element type 'bf16', expected 'f32' (the element type of lhs)}}
  %r = attune.mul %a, %b : (tensor<2x3xf32>, tensor<3xbf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case27(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{'attune.activation' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %r = attune.activation <relu> %a : tensor<2x3xi32>
  return
}

// -----

func.func @case28(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{expected ::mlir::attune::Activation to be one of: relu, gelu, gelu_tanh, tanh, sigmoid, silu}}
  // expected-error @+1 {{failed to parse Attune_ActivationAttr parameter 'value' which is to be a `::mlir::attune::Activation`}}
  %r = attune.activation <swish> %a : tensor<2x3xf32>
  return
}

// -----

func.func @case29(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.layer_norm' op normalized_rank 3 is out of range for an input of rank 2 (expected 1 <= normalized_rank <= 2)}}
  %r = attune.layer_norm %a {normalized_rank = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case30(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'attune.layer_norm' op input dim 1 (normalized) must be static, got [2, ?]}}
  %r = attune.layer_norm %a : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

// -----

func.func @layer_norm_residual(%a: tensor<2x3xf32>, %r: tensor<1x3xf32>) {
  // expected-error @+1 {{'attune.layer_norm' op residual has type 'tensor<1x3xf32>', expected the input's type 'tensor<2x3xf32>'}}
  %n = attune.layer_norm %a residual(%r) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @linear_activation(%x: tensor<2x64xf32>, %w: tensor<8x64xf32>) {
  // expected-error @+1 {{'attune.linear' op attribute 'activation' failed to satisfy constraint}}
  %r = attune.linear %x, %w {activation = 1 : i64} : (tensor<2x64xf32>, tensor<8x64xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @case31(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.layer_norm' op epsilon must be positive, got 0}}
  %r = attune.layer_norm %a {epsilon = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case32(%a: tensor<2x3xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'attune.layer_norm' op weight has shape [4], expected [3]}}
  %r = attune.layer_norm %a weight(%g) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case33(%i: tensor<4xi64>, %t: tensor<10xf32>) {
  // expected-error @+1 {{'attune.embedding' op table has rank 1, expected rank 2 ([V, E])}}
  %r = attune.embedding %i, %t : (tensor<4xi64>, tensor<10xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @case34(%i: tensor<4xf32>, %t: tensor<10x8xf32>) {
  // expected-error @+1 {{'attune.embedding' op operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %r = attune.embedding %i, %t : (tensor<4xf32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case35(%x: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'attune.positional_encoding' op learned positional encoding requires a table operand}}
  %r = attune.positional_encoding <learned> %x : (tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @case36(%x: tensor<2x5x8xf32>, %t: tensor<16x8xf32>) {
  // expected-error @+1 {{'attune.positional_encoding' op sinusoidal positional encoding takes no table operand}}
  %r = attune.positional_encoding <sinusoidal> %x, %t : (tensor<2x5x8xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @case37(%x: tensor<2x5x8xf32>, %t: tensor<16x8xf32>) {
  // expected-error @+1 {{'attune.positional_encoding' op positions [12, +5) exceed the table's 16 rows}}
  %r = attune.positional_encoding <learned> %x, %t {offset = 12 : i64} : (tensor<2x5x8xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @case38(%x: tensor<2x5x8xf32>, %t: tensor<16x4xf32>) {
  // expected-error @+1 {{'attune.positional_encoding' op table dim 1 (E) is 4, expected 8 (the last dim of input)}}
  %r = attune.positional_encoding <learned> %x, %t : (tensor<2x5x8xf32>, tensor<16x4xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @case39(%x: tensor<8xf32>) {
  // expected-error @+1 {{'attune.positional_encoding' op input has rank 1, expected rank >= 2 ([..., L, E])}}
  %r = attune.positional_encoding <sinusoidal> %x : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @case40(%x: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'attune.positional_encoding' op offset must be >= 0, got -1}}
  %r = attune.positional_encoding <sinusoidal> %x {offset = -1 : i64} : (tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @case41(%q: tensor<2x8x16x48xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op key head dim is 64, expected 48 (query head dim)}}
  %r = attune.attention %q, %k, %v : (tensor<2x8x16x48xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case42(%q: tensor<2x8x16x64xf32>, %k: tensor<2x3x16x64xf32>, %v: tensor<2x3x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op key heads (3) must divide query heads (8)}}
  %r = attune.attention %q, %k, %v : (tensor<2x8x16x64xf32>, tensor<2x3x16x64xf32>, tensor<2x3x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case43(%q: tensor<2x8x16x64xf32>, %k: tensor<3x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op key dim 0 (B) is 3, expected 2 (query batch)}}
  %r = attune.attention %q, %k, %v : (tensor<2x8x16x64xf32>, tensor<3x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case44(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x12x64xf32>) {
  // expected-error @+1 {{'attune.attention' op value dim 2 (Lk) is 12, expected 16 (key length)}}
  %r = attune.attention %q, %k, %v : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x12x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case45(%q: tensor<2x8x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x2x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op value dim 1 (Hk) is 2, expected 4 (key heads)}}
  %r = attune.attention %q, %k, %v : (tensor<2x8x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x2x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case46(%q: tensor<8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op query has rank 3, expected rank 4 ([B, H, Lq, D])}}
  %r = attune.attention %q, %k, %v : (tensor<8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case47(%q: tensor<2x?x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op query dim 1 (H) must be static, got [2, ?, 16, 64]}}
  %r = attune.attention %q, %k, %v : (tensor<2x?x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case48(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>, %len: tensor<3xi64>) {
  // expected-error @+1 {{'attune.attention' op key_lengths dim 0 (B) is 3, expected 2 (the batch size)}}
  %r = attune.attention %q, %k, %v key_lengths(%len)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<3xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case49(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>, %len: tensor<2x1xi64>) {
  // expected-error @+1 {{'attune.attention' op key_lengths has rank 2, expected rank 1 ([B])}}
  %r = attune.attention %q, %k, %v key_lengths(%len)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x1xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case50(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>, %b: tensor<8x16x15xf32>) {
  // expected-error @+1 {{'attune.attention' op bias of shape [8, 16, 15] is not broadcastable to [B, H, Lq, Lk] = [2, 8, 16, 16]}}
  %r = attune.attention %q, %k, %v bias(%b)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<8x16x15xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case51(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op window must be >= 1, got 0}}
  %r = attune.attention %q, %k, %v {window = 0 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case52(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op scale is only meaningful with score = scaled_dot}}
  %r = attune.attention %q, %k, %v {score = #attune.score<dot>, scale = 0.5 : f64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case53(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+2 {{'attune.attention' op inferred type(s) 'tensor<2x8x16x64xf32>', 'tensor<2x8x16x16xf32>' are incompatible with return type(s) of operation 'tensor<2x8x16x64xf32>'}}
  // expected-error @+1 {{'attune.attention' op failed to infer returned types}}
  %r = attune.attention %q, %k, %v {return_weights} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case54(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op attribute 'causal' failed to satisfy constraint: unit attribute}}
  %r = attune.attention %q, %k, %v {causal = 3 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @case55(%s: tensor<16xf32>) {
  // expected-error @+1 {{'attune.mask' op input has rank 1, expected rank >= 2 ([..., Lq, Lk])}}
  %r = attune.mask %s {causal} : (tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @case56(%s: tensor<2x4x16xf32>, %len: tensor<3xi32>) {
  // expected-error @+1 {{'attune.mask' op key_lengths dim 0 (B) is 3, expected 2 (the batch size)}}
  %r = attune.mask %s key_lengths(%len) : (tensor<2x4x16xf32>, tensor<3xi32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @case57(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op embedding dim 64 is not divisible by num_heads 5}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) out_proj_weight(%wo) {num_heads = 5 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case58(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op num_kv_heads 3 does not divide num_heads 4}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) out_proj_weight(%wo) {num_heads = 4 : i64, num_kv_heads = 3 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case59(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op num_heads must be >= 1, got 0}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) out_proj_weight(%wo) {num_heads = 0 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case60(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op in_proj_weight has shape [192, 64], expected [128, 64]}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) out_proj_weight(%wo) {num_heads = 4 : i64, num_kv_heads = 2 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case61(%x: tensor<2x5x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op expected in_proj_weight or all of q_proj_weight, k_proj_weight and v_proj_weight}}
  %r = attune.multi_head_attention %x, %x, %x out_proj_weight(%wo) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case62(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wq: tensor<64x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op expected either in_proj_weight or q/k/v_proj_weight, got both}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) q_proj_weight(%wq) out_proj_weight(%wo) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case63(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %b: tensor<64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op in_proj_bias has shape [64], expected [192]}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) in_proj_bias(%b) out_proj_weight(%wo) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case64(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<32x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op out_proj_weight has shape [32, 64], expected [64, 64]}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) out_proj_weight(%wo) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<32x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case65(%x: tensor<2x5x64xf32>, %m: tensor<2x7x32xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op key dim 2 (Ek) is 32, expected 64 (a packed in_proj_weight needs Ek = E)}}
  %r = attune.multi_head_attention %x, %m, %m in_proj_weight(%w) out_proj_weight(%wo) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x7x32xf32>, tensor<2x7x32xf32>, tensor<192x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case66(%x: tensor<2x5x64xf32>, %m: tensor<3x7x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op key dim 0 (B) is 3, expected 2 (query batch)}}
  %r = attune.multi_head_attention %x, %m, %m in_proj_weight(%w) out_proj_weight(%wo) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<3x7x64xf32>, tensor<3x7x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case67(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>, %len: tensor<5xi64>) {
  // expected-error @+1 {{'attune.multi_head_attention' op key_lengths dim 0 (B) is 5, expected 2 (the batch size)}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) out_proj_weight(%wo) key_lengths(%len) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>, tensor<5xi64>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case68(%x: tensor<2x5x64xf32>, %w: tensor<192x64xf32>, %wo: tensor<64x64xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op bias of shape [5, 6] is not broadcastable to [B, num_heads, Lq, Lk] = [2, 4, 5, 5]}}
  %r = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) out_proj_weight(%wo) bias(%b) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<64x64xf32>, tensor<5x6xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case69(%x: tensor<2x5x64xf32>, %q: tensor<64x64xf32>, %k: tensor<64x32xf32>, %wo: tensor<64x64xf32>) {
  // expected-error @+1 {{'attune.multi_head_attention' op k_proj_weight has shape [64, 32], expected [64, 64]}}
  %r = attune.multi_head_attention %x, %x, %x q_proj_weight(%q) k_proj_weight(%k) v_proj_weight(%q) out_proj_weight(%wo) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<2x5x64xf32>, tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case70(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>) {
  // expected-error @+1 {{'attune.seq2seq_attention' op keys dim 2 (Dk) is 48, expected 32 (dot scores need Dk = Dq)}}
  %r = attune.seq2seq_attention <dot> %s, %h, %h : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>) -> tensor<2x1x48xf32>
  return
}

// -----

func.func @case71(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>, %w: tensor<32x48xf32>) {
  // expected-error @+1 {{'attune.seq2seq_attention' op score dot expects weights (), got 1 weight operand(s)}}
  %r = attune.seq2seq_attention <dot> %s, %h, %h weights(%w) : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<32x48xf32>) -> tensor<2x1x48xf32>
  return
}

// -----

func.func @case72(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>, %w: tensor<48x32xf32>) {
  // expected-error @+1 {{'attune.seq2seq_attention' op W has shape [48, 32], expected [32, 48]}}
  %r = attune.seq2seq_attention <general> %s, %h, %h weights(%w) : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<48x32xf32>) -> tensor<2x1x48xf32>
  return
}

// -----

func.func @case73(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>, %w1: tensor<40x32xf32>, %w2: tensor<40x48xf32>, %v: tensor<40xf32>) {
  // expected-error @+1 {{'attune.seq2seq_attention' op v has shape [40], expected [1, 40]}}
  %r = attune.seq2seq_attention <additive> %s, %h, %h weights(%w1, %w2, %v) : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<40x32xf32>, tensor<40x48xf32>, tensor<40xf32>) -> tensor<2x1x48xf32>
  return
}

// -----

func.func @case74(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>, %w1: tensor<40x32xf32>) {
  // expected-error @+1 {{'attune.seq2seq_attention' op score additive expects weights (W1 [A, Dq], W2 [A, Dk], v [1, A][, b [A]]), got 1 weight operand(s)}}
  %r = attune.seq2seq_attention <additive> %s, %h, %h weights(%w1) : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<40x32xf32>) -> tensor<2x1x48xf32>
  return
}

// -----

func.func @case75(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>, %w: tensor<12x32xf32>) {
  // expected-error @+1 {{'attune.seq2seq_attention' op W has shape [12, 32], expected [10, 32]}}
  %r = attune.seq2seq_attention <location> %s, %h, %h weights(%w) : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<12x32xf32>) -> tensor<2x1x48xf32>
  return
}

// -----

func.func @case76(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>, %len: tensor<2x2xi64>) {
  // expected-error @+1 {{'attune.seq2seq_attention' op score general expects weights (W [Dq, Dk]), got 0 weight operand(s)}}
  %r = attune.seq2seq_attention <general> %s, %h, %h key_lengths(%len) : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<2x2xi64>) -> tensor<2x1x48xf32>
  return
}

// -----

func.func @case77(%x: tensor<2x64xf32>, %w1: tensor<128x64xf32>, %w2: tensor<64x96xf32>) {
  // expected-error @+1 {{'attune.feed_forward' op weight2 dim 1 (F) is 96, expected 128 (weight1 dim 0)}}
  %r = attune.feed_forward %x linear1(%w1) linear2(%w2) : (tensor<2x64xf32>, tensor<128x64xf32>, tensor<64x96xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @case78(%x: tensor<2x64xf32>, %w1: tensor<128x64xf32>, %b: tensor<64xf32>, %w2: tensor<64x128xf32>) {
  // expected-error @+1 {{'attune.feed_forward' op bias1 has shape [64], expected [128]}}
  %r = attune.feed_forward %x linear1(%w1, %b) linear2(%w2) : (tensor<2x64xf32>, tensor<128x64xf32>, tensor<64xf32>, tensor<64x128xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @case79(%x: tensor<2x5x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %n: tensor<64xf32>) {
  // expected-error @+1 {{'attune.encoder_layer' op activation must be relu or gelu (as in PyTorch), got silu}}
  %r = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%n, %v) norm2(%v, %v) {num_heads = 4 : i64, activation = #attune.activation<silu>} : (tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case80(%x: tensor<2x5x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %n: tensor<64xf32>) {
  // expected-error @+1 {{'attune.encoder_layer' op epsilon must be positive, got -1}}
  %r = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%n, %v) norm2(%v, %v) {num_heads = 4 : i64, epsilon = -1.0 : f64} : (tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

// PyTorch's name for it is not an attribute of the op: the message lists
// the ones it has.
func.func @case80b(%x: tensor<2x5x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %n: tensor<64xf32>) {
  // expected-error @+1 {{'attune.encoder_layer' op has unknown attribute 'layer_norm_eps' (known attributes: activation, causal, epsilon, norm_first, num_heads)}}
  %r = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%n, %v) norm2(%v, %v) {num_heads = 4 : i64, layer_norm_eps = 1.0e-6 : f64} : (tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case81(%x: tensor<2x5x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %n: tensor<32xf32>) {
  // expected-error @+1 {{'attune.encoder_layer' op norm1.weight has shape [32], expected [64]}}
  %r = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%n, %v) norm2(%v, %v) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<32xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case82(%x: tensor<2x5x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %n: tensor<64xf32>) {
  // expected-error @+1 {{'attune.encoder_layer' op embedding dim 64 is not divisible by num_heads 3}}
  %r = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%n, %v) norm2(%v, %v) {num_heads = 3 : i64} : (tensor<2x5x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case83(%x: tensor<2x5x64xf32>, %ipw: tensor<96x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>) {
  // expected-error @+1 {{'attune.encoder_layer' op self_attn.in_proj_weight has shape [96, 64], expected [192, 64]}}
  %r = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%v, %v) norm2(%v, %v) {num_heads = 4 : i64} : (tensor<2x5x64xf32>, tensor<96x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case84(%t: tensor<2x5x64xf32>, %m: tensor<2x9x32xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %len: tensor<2xi64>) {
  // expected-error @+1 {{'attune.decoder_layer' op memory dim 2 (E) is 32, expected 64 (tgt embedding dim)}}
  %r = attune.decoder_layer %t, %m self_attn(%ipw, %ipb, %opw, %v) cross_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%v, %v) norm2(%v, %v) norm3(%v, %v) {num_heads = 4 : i64, causal} : (tensor<2x5x64xf32>, tensor<2x9x32xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case85(%t: tensor<2x5x64xf32>, %m: tensor<3x9x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %len: tensor<2xi64>) {
  // expected-error @+1 {{'attune.decoder_layer' op memory dim 0 (B) is 3, expected 2 (tgt batch)}}
  %r = attune.decoder_layer %t, %m self_attn(%ipw, %ipb, %opw, %v) cross_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%v, %v) norm2(%v, %v) norm3(%v, %v) {num_heads = 4 : i64, causal} : (tensor<2x5x64xf32>, tensor<3x9x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case86(%t: tensor<2x5x64xf32>, %m: tensor<2x9x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %len: tensor<2xi64>) {
  // expected-error @+1 {{'attune.decoder_layer' op operand #20 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %r = attune.decoder_layer %t, %m self_attn(%ipw, %ipb, %opw, %v) cross_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v) norm1(%v, %v) norm2(%v, %v) norm3(%v, %v) memory_key_lengths(%m) {num_heads = 4 : i64, causal} : (tensor<2x5x64xf32>, tensor<2x9x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<2x9x64xf32>) -> tensor<2x5x64xf32>
  return
}

// -----

func.func @case87(%x: tensor<4x7x16xf32>, %ih: tensor<32x16xf32>, %hh: tensor<32x32xf32>) {
  // expected-error @+1 {{'attune.rnn' op expected 4 weight operands (1 layer(s) x 1 direction(s) x 4), got 2}}
  %r:2 = attune.rnn %x weights(%ih, %hh) {hidden_size = 32 : i64} : (tensor<4x7x16xf32>, tensor<32x16xf32>, tensor<32x32xf32>) -> (tensor<4x7x32xf32>, tensor<1x4x32xf32>)
  return
}

// -----

func.func @case88(%x: tensor<4x7x16xf32>, %ih: tensor<32x16xf32>, %hh: tensor<32x32xf32>) {
  // expected-error @+1 {{'attune.rnn' op nonlinearity must be tanh or relu (as in PyTorch), got gelu}}
  %r:2 = attune.rnn %x weights(%ih, %hh) {hidden_size = 32 : i64, has_biases = false, nonlinearity = #attune.activation<gelu>} : (tensor<4x7x16xf32>, tensor<32x16xf32>, tensor<32x32xf32>) -> (tensor<4x7x32xf32>, tensor<1x4x32xf32>)
  return
}

// -----

func.func @case89(%x: tensor<4x7x16xf32>, %ih: tensor<32x16xf32>, %hh: tensor<32x32xf32>) {
  // expected-error @+1 {{'attune.rnn' op hidden_size must be >= 1, got 0}}
  %r:2 = attune.rnn %x weights(%ih, %hh) {hidden_size = 0 : i64, has_biases = false} : (tensor<4x7x16xf32>, tensor<32x16xf32>, tensor<32x32xf32>) -> (tensor<4x7x32xf32>, tensor<1x4x32xf32>)
  return
}

// -----

func.func @case90(%x: tensor<4x7x16xf32>, %ih: tensor<128x16xf32>, %hh: tensor<128x32xf32>, %b: tensor<128xf32>) {
  // expected-error @+1 {{'attune.lstm' op weight_ih_l1 has shape [128, 16], expected [128, 32]}}
  %r:3 = attune.lstm %x weights(%ih, %hh, %b, %b, %ih, %hh, %b, %b) {hidden_size = 32 : i64, num_layers = 2 : i64} : (tensor<4x7x16xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x7x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>)
  return
}

// -----

func.func @case91(%x: tensor<4x7x16xf32>, %ih: tensor<128x16xf32>, %hh: tensor<128x32xf32>, %b: tensor<128xf32>, %h0: tensor<1x4x32xf32>, %c0: tensor<1x5x32xf32>) {
  // expected-error @+1 {{'attune.lstm' op initial_c has shape [1, 5, 32], expected [1, 4, 32]}}
  %r:3 = attune.lstm %x weights(%ih, %hh, %b, %b) initial_h(%h0) initial_c(%c0) {hidden_size = 32 : i64} : (tensor<4x7x16xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>, tensor<1x4x32xf32>, tensor<1x5x32xf32>) -> (tensor<4x7x32xf32>, tensor<1x4x32xf32>, tensor<1x4x32xf32>)
  return
}

// -----

func.func @case92(%x: tensor<4x7x16xf32>, %ih: tensor<96x16xf32>, %hh: tensor<96x32xf32>, %b: tensor<96xf32>, %h0: tensor<1x4x32xf32>) {
  // expected-error @+1 {{'attune.gru' op initial_h has shape [1, 4, 32], expected [2, 4, 32]}}
  %r:2 = attune.gru %x weights(%ih, %hh, %b, %b, %ih, %hh, %b, %b) initial_h(%h0) {hidden_size = 32 : i64, bidirectional} : (tensor<4x7x16xf32>, tensor<96x16xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>, tensor<96x16xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>, tensor<1x4x32xf32>) -> (tensor<4x7x64xf32>, tensor<2x4x32xf32>)
  return
}

// -----

func.func @case93(%x: tensor<4x7x16xf32>, %ih: tensor<96x16xf32>, %hh: tensor<96x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'attune.gru' op bias_ih_l0 has shape [32], expected [96]}}
  %r:2 = attune.gru %x weights(%ih, %hh, %b, %b) {hidden_size = 32 : i64} : (tensor<4x7x16xf32>, tensor<96x16xf32>, tensor<96x32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<4x7x32xf32>, tensor<1x4x32xf32>)
  return
}

// -----

func.func @case94(%x: tensor<4x7x?xf32>, %ih: tensor<96x16xf32>, %hh: tensor<96x32xf32>) {
  // expected-error @+1 {{'attune.gru' op input dim 2 (I) must be static, got [4, 7, ?]}}
  %r:2 = attune.gru %x weights(%ih, %hh) {hidden_size = 32 : i64, has_biases = false} : (tensor<4x7x?xf32>, tensor<96x16xf32>, tensor<96x32xf32>) -> (tensor<4x7x32xf32>, tensor<1x4x32xf32>)
  return
}

// -----

func.func @case95(%x: tensor<4x7x16xf32>, %ih: tensor<96x16xf32>, %hh: tensor<96x32xf32>) {
  // expected-error @+1 {{'attune.gru' op num_layers must be >= 1, got 0}}
  %r:2 = attune.gru %x weights(%ih, %hh) {hidden_size = 32 : i64, has_biases = false, num_layers = 0 : i64} : (tensor<4x7x16xf32>, tensor<96x16xf32>, tensor<96x32xf32>) -> (tensor<4x7x32xf32>, tensor<1x4x32xf32>)
  return
}

// -----

func.func @case96(%x: tensor<4x16xf32>, %h: tensor<4x32xf32>, %ih: tensor<128x16xf32>, %hh: tensor<128x32xf32>, %b: tensor<128xf32>) {
  // expected-error @+1 {{'attune.lstm_cell' op expected 2 weight operands (weight_ih, weight_hh) or 4 (with bias_ih, bias_hh), got 3}}
  %r:2 = attune.lstm_cell %x, %h, %h weights(%ih, %hh, %b) : (tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>)
  return
}

// -----

func.func @case97(%x: tensor<4x16xf32>, %h: tensor<4x32xf32>, %c: tensor<4x16xf32>, %ih: tensor<128x16xf32>, %hh: tensor<128x32xf32>) {
  // expected-error @+1 {{'attune.lstm_cell' op c has shape [4, 16], expected [4, 32]}}
  %r:2 = attune.lstm_cell %x, %h, %c weights(%ih, %hh) : (tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x16xf32>, tensor<128x16xf32>, tensor<128x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>)
  return
}

// -----

func.func @case98(%x: tensor<4x16xf32>, %h: tensor<5x32xf32>, %ih: tensor<96x16xf32>, %hh: tensor<96x32xf32>) {
  // expected-error @+1 {{'attune.gru_cell' op h dim 0 (B) is 5, expected 4 (input batch)}}
  %r = attune.gru_cell %x, %h weights(%ih, %hh) : (tensor<4x16xf32>, tensor<5x32xf32>, tensor<96x16xf32>, tensor<96x32xf32>) -> tensor<4x32xf32>
  return
}

// -----

func.func @case99(%x: tensor<4x16xf32>, %h: tensor<4x32xf32>, %ih: tensor<32x16xf32>, %hh: tensor<32x16xf32>) {
  // expected-error @+1 {{'attune.rnn_cell' op weight_hh has shape [32, 16], expected [32, 32]}}
  %r = attune.rnn_cell %x, %h weights(%ih, %hh) : (tensor<4x16xf32>, tensor<4x32xf32>, tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  return
}

// -----

func.func @case100(%x: tensor<4x16xf32>, %h: tensor<4x32xf32>, %ih: tensor<32x16xf32>, %hh: tensor<32x32xf32>) {
  // expected-error @+1 {{'attune.rnn_cell' op nonlinearity must be tanh or relu (as in PyTorch), got sigmoid}}
  %r = attune.rnn_cell %x, %h weights(%ih, %hh) {nonlinearity = #attune.activation<sigmoid>} : (tensor<4x16xf32>, tensor<4x32xf32>, tensor<32x16xf32>, tensor<32x32xf32>) -> tensor<4x32xf32>
  return
}

// -----

func.func @scale_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'attune.scale' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %r = attune.scale %x {factor = 2.0 : f64} : tensor<4xi32>
  return
}

// -----

func.func @scale_missing_factor(%x: tensor<4xf32>) {
  // expected-error @+1 {{'attune.scale' op requires attribute 'factor'}}
  %r = "attune.scale"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @repeat_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{'attune.repeat' op count must be in [1, 4096], got 0}}
  %r = attune.repeat %x {count = 0 : i64, prefix = "l.{i}."} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%h: tensor<2xf32>):
    attune.yield %h : tensor<2xf32>
  }
  return
}

// -----

func.func @repeat_prefix(%x: tensor<2xf32>) {
  // expected-error @+1 {{'attune.repeat' op prefix 'layers.' must contain {i} (each iteration's weights are named apart by its index)}}
  %r = attune.repeat %x {count = 2 : i64, prefix = "layers."} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%h: tensor<2xf32>):
    attune.yield %h : tensor<2xf32>
  }
  return
}

// -----

func.func @repeat_results(%x: tensor<2xf32>) {
  // expected-error @+1 {{'attune.repeat' op result types 'tensor<3xf32>' must be the types of the inits 'tensor<2xf32>'}}
  %r = attune.repeat %x {count = 2 : i64, prefix = "l.{i}."} : (tensor<2xf32>) -> tensor<3xf32> {
  ^bb0(%h: tensor<2xf32>):
    attune.yield %h : tensor<2xf32>
  }
  return
}

// -----

func.func @repeat_arguments(%x: tensor<2xf32>) {
  // expected-error @+1 {{'attune.repeat' op body arguments 'tensor<?xf32>' must have the types of the inits 'tensor<2xf32>'}}
  %r = attune.repeat %x {count = 2 : i64, prefix = "l.{i}."} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%h: tensor<?xf32>):
    %c = tensor.cast %h : tensor<?xf32> to tensor<2xf32>
    attune.yield %c : tensor<2xf32>
  }
  return
}

// -----

func.func @repeat_yield(%x: tensor<2xf32>, %y: tensor<?xf32>) {
  %r = attune.repeat %x {count = 2 : i64, prefix = "l.{i}."} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%h: tensor<2xf32>):
    // expected-error @+1 {{'attune.yield' op yields 'tensor<?xf32>', expected the types of the repeat's inits 'tensor<2xf32>'}}
    attune.yield %y : tensor<?xf32>
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<2xf32>) {
  // expected-error @+1 {{'attune.yield' op expects parent op 'attune.repeat'}}
  attune.yield %x : tensor<2xf32>
}

// -----

func.func @repeat_huge(%x: tensor<2xf32>) {
  // expected-error @+1 {{'attune.repeat' op count must be in [1, 4096], got 2147483648}}
  %r = attune.repeat %x {count = 2147483648 : i64, prefix = "l.{i}."} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%h: tensor<2xf32>):
    attune.yield %h : tensor<2xf32>
  }
  return
}

// -----

func.func @mask_bias_shape(%m: tensor<2x?xi1>) {
  // expected-error @+1 {{'attune.mask_bias' op result shape [2, 3] differs from the mask's [2, ?]}}
  %r = attune.mask_bias %m : tensor<2x?xi1> to tensor<2x3xf32>
  return
}

// -----

func.func @mask_bias_not_bool(%m: tensor<2x3xi64>) {
  // expected-error @+1 {{'attune.mask_bias' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<2x3xi64>'}}
  %r = attune.mask_bias %m : tensor<2x3xi64> to tensor<2x3xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<2x?xf32>) {
  // expected-error @+1 {{'attune.cast' op result shape [2, 3] differs from the input's [2, ?] (a cast keeps the shape)}}
  %r = attune.cast %x : tensor<2x?xf32> to tensor<2x3xf16>
  return
}

// -----

func.func @cast_to_integer(%x: tensor<4xf32>) {
  // expected-error @+1 {{'attune.cast' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %r = attune.cast %x : tensor<4xf32> to tensor<4xi32>
  return
}

// -----

func.func @cast_from_f64(%x: tensor<4xf64>) {
  // expected-error @+1 {{'attune.cast' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf64>'}}
  %r = attune.cast %x : tensor<4xf64> to tensor<4xf32>
  return
}

// -----

func.func @positional_offsets_and_offset(%x: tensor<2x5x8xf32>, %t: tensor<16x8xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.positional_encoding' op offset 3 and an offsets operand are exclusive}}
  %r = attune.positional_encoding <learned> %x, %t offsets(%p) {offset = 3 : i64} : (tensor<2x5x8xf32>, tensor<16x8xf32>, tensor<2xi64>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @positional_offsets_rank(%x: tensor<5x8xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.positional_encoding' op input has rank 2, expected rank 3 ([B, L, E]) with offsets}}
  %r = attune.positional_encoding <sinusoidal> %x offsets(%p) : (tensor<5x8xf32>, tensor<2xi64>) -> tensor<5x8xf32>
  return
}

// -----

func.func @positional_offsets_batch(%x: tensor<2x5x8xf32>, %p: tensor<3xi64>) {
  // expected-error @+1 {{'attune.positional_encoding' op offsets dim 0 (B) is 3, expected 2 (the batch size)}}
  %r = attune.positional_encoding <sinusoidal> %x offsets(%p) : (tensor<2x5x8xf32>, tensor<3xi64>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @attention_query_offsets_bottom_right(%q: tensor<2x4x1x16xf32>, %k: tensor<2x4x8x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.attention' op query_offsets and align = bottom_right are exclusive (both place the queries)}}
  %r = attune.attention %q, %k, %k query_offsets(%p) {causal, align = #attune.align<bottom_right>} : (tensor<2x4x1x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2xi64>) -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @attention_query_offsets_batch(%q: tensor<2x4x1x16xf32>, %k: tensor<2x4x8x16xf32>, %p: tensor<3xi64>) {
  // expected-error @+1 {{'attune.attention' op query_offsets dim 0 (B) is 3, expected 2 (the batch size)}}
  %r = attune.attention %q, %k, %k query_offsets(%p) {causal} : (tensor<2x4x1x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<3xi64>) -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @cache_write_types(%c: tensor<2x4x8x16xf32>, %u: tensor<2x4x1x16xf16>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.cache_write' op}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x4x8x16xf32>, tensor<2x4x1x16xf16>, tensor<2xi64>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @cache_write_rank(%c: tensor<2x8x16xf32>, %u: tensor<2x1x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.cache_write' op cache has rank 3, expected rank 4 ([B, H, C, D])}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x8x16xf32>, tensor<2x1x16xf32>, tensor<2xi64>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @cache_write_heads(%c: tensor<2x4x8x16xf32>, %u: tensor<2x2x1x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.cache_write' op update dim 1 (H) is 2, expected 4 (the cache's heads)}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x4x8x16xf32>, tensor<2x2x1x16xf32>, tensor<2xi64>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @cache_write_head_dim(%c: tensor<2x4x8x16xf32>, %u: tensor<2x4x1x8xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.cache_write' op update dim 3 (D) is 8, expected 16 (the cache's head dim)}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x4x8x16xf32>, tensor<2x4x1x8xf32>, tensor<2xi64>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @cache_write_batch(%c: tensor<2x4x8x16xf32>, %u: tensor<3x4x1x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.cache_write' op update dim 0 (B) is 3, expected 2 (the cache's batch)}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x4x8x16xf32>, tensor<3x4x1x16xf32>, tensor<2xi64>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @cache_write_capacity(%c: tensor<2x4x8x16xf32>, %u: tensor<2x4x9x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.cache_write' op update of 9 positions does not fit the cache's capacity of 8}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x4x8x16xf32>, tensor<2x4x9x16xf32>, tensor<2xi64>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @cache_write_positions(%c: tensor<2x4x8x16xf32>, %u: tensor<2x4x1x16xf32>, %p: tensor<2x1xi64>) {
  // expected-error @+1 {{'attune.cache_write' op positions has rank 2, expected rank 1 ([B])}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x4x8x16xf32>, tensor<2x4x1x16xf32>, tensor<2x1xi64>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @cache_write_static_heads(%c: tensor<2x?x8x16xf32>, %u: tensor<2x4x1x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'attune.cache_write' op}}
  %r = attune.cache_write %c, %u, %p : (tensor<2x?x8x16xf32>, tensor<2x4x1x16xf32>, tensor<2xi64>) -> tensor<2x?x8x16xf32>
  return
}

// -----

func.func @select_last_rank(%x: tensor<5xf32>, %l: tensor<1xi64>) {
  // expected-error @+1 {{'attune.select_last' op input has rank 1, expected rank >= 2 ([B, L, ...])}}
  %r = attune.select_last %x, %l : (tensor<5xf32>, tensor<1xi64>) -> tensor<f32>
  return
}

// -----

func.func @select_last_batch(%x: tensor<2x5x8xf32>, %l: tensor<3xi64>) {
  // expected-error @+1 {{'attune.select_last' op lengths dim 0 (B) is 3, expected 2 (the batch size)}}
  %r = attune.select_last %x, %l : (tensor<2x5x8xf32>, tensor<3xi64>) -> tensor<2x8xf32>
  return
}

// -----

func.func @select_last_empty(%x: tensor<2x0x8xf32>, %l: tensor<2xi64>) {
  // expected-error @+1 {{'attune.select_last' op input has no positions (L = 0) to select from}}
  %r = attune.select_last %x, %l : (tensor<2x0x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): expected (tokens, positions, lengths, then its contexts and states), got 3 argument(s)}}
func.func @step_no_state(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>) -> tensor<?x10xf32>
    attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e : tensor<?x10xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): argument #0 (tokens) must be an i32 or i64 tensor [B, T], got 'tensor<?xi64>'}}
func.func @step_tokens(%t: tensor<?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): argument #2 (lengths) must be an i32 or i64 tensor [B], got 'tensor<?xf32>'}}
func.func @step_lengths(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xf32>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): argument #3 must be a state (attune.state = "name") or a context (attune.context = "name"): every argument after lengths is one of them}}
func.func @step_not_state(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32>)
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32>) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): argument #1 must not be a state or a context}}
func.func @step_state_early(%t: tensor<?x?xi64>, %p: tensor<?xi64> {attune.state = "p"}, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): two states or contexts are named 'k'}}
func.func @step_duplicate(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"}, %v: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k, %v : tensor<?x10xf32>, tensor<?x2x8x4xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): state 'k' must be a float tensor [B, ...], got 'tensor<?x2xi64>'}}
func.func @step_int_state(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2xi64> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2xi64> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2xi64>
}

// -----

// After the states only attention maps may follow: float [B, (H,) T, Lk]
// results named attn.<site>.
// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): expected 2 results (logits, then the 1 states, then any attention maps), got 3}}
func.func @step_extra_result(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}, tensor<?x1x8xf32> {attune.name = "extra"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  %m = tensor.empty(%n) : tensor<?x1x8xf32>
  return %e, %k, %m : tensor<?x10xf32>, tensor<?x2x8x4xf32>, tensor<?x1x8xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): expected 2 results (logits, then the 1 states, then any attention maps), got 1}}
func.func @step_results(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> tensor<?x10xf32> attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e : tensor<?x10xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): result #0 (logits) must be a float tensor [B, V], got 'tensor<?x3x10xf32>'}}
func.func @step_logits(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x3x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x3x10xf32>
  return %e, %k : tensor<?x3x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): result #1 must be the state 'k' (attune.state = "k"), the order of the arguments}}
func.func @step_unmarked_result(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32>) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): state 'k' is 'tensor<?x2x8x4xf32>' as an argument but 'tensor<?x2x9x4xf32>' as a result}}
func.func @step_state_type(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x9x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  %f = tensor.empty(%n) : tensor<?x2x9x4xf32>
  return %e, %f : tensor<?x10xf32>, tensor<?x2x9x4xf32>
}

// -----

// expected-error @+1 {{attune.state on argument #0 must be a non-empty string, got 3 : i64}}
func.func @state_not_string(%k: tensor<2xf32> {attune.state = 3}) {
  return
}

// -----

// expected-error @+1 {{attune.generation_step is a unit attribute of a func.func}}
func.func @step_not_unit() attributes {attune.generation_step = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): it has no state (attune.state): a step updates at least one}}
func.func @step_only_context(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %m: tensor<?x5x8xf32> {attune.context = "memory"})
    -> tensor<?x10xf32> attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e : tensor<?x10xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): argument #3 must be a state (attune.state = "name") or a context (attune.context = "name"): every argument after lengths is one of them}}
func.func @step_both(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k", attune.context = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation step (attune.generation_step): context 'm' must be a tensor [B, ...], got 'tensor<f32>'}}
func.func @step_scalar_context(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %m: tensor<f32> {attune.context = "m"}, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation encoder (attune.generation_encoder): result #1 must be a context [B, ...] (attune.context = "name") or the initial value of a state (attune.state = "name"), got 'tensor<?x4xf32>'}}
func.func @encoder_unmarked(%src: tensor<?x5x8xf32>) -> (tensor<?x5x8xf32> {attune.context = "memory"}, tensor<?x4xf32>)
    attributes {attune.generation_encoder} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %src, %c0 : tensor<?x5x8xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  return %src, %e : tensor<?x5x8xf32>, tensor<?x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation encoder (attune.generation_encoder): two results are named 'memory'}}
func.func @encoder_duplicate(%src: tensor<?x5x8xf32>) -> (tensor<?x5x8xf32> {attune.context = "memory"}, tensor<?x5x8xf32> {attune.context = "memory"})
    attributes {attune.generation_encoder} {
  return %src, %src : tensor<?x5x8xf32>, tensor<?x5x8xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a generation encoder (attune.generation_encoder): it returns no context}}
func.func @encoder_nothing(%src: tensor<?x5x8xf32>) attributes {attune.generation_encoder} {
  return
}

// -----

// expected-error @+1 {{'func.func' op cannot be both the generation step and its encoder}}
func.func @step_and_encoder(%t: tensor<?x?xi64>, %p: tensor<?xi64>, %l: tensor<?xi64>, %k: tensor<?x2x8x4xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x2x8x4xf32> {attune.state = "k"}) attributes {attune.generation_step, attune.generation_encoder} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  return %e, %k : tensor<?x10xf32>, tensor<?x2x8x4xf32>
}

// -----

func.func @overwrite_type(%h: tensor<2x4xf32>, %v: tensor<2x4xf16>) {
  // expected-error @+1 {{'attune.overwrite' op}}
  %r = attune.overwrite %h, %v : (tensor<2x4xf32>, tensor<2x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @overwrite_rank(%h: tensor<2x4xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'attune.overwrite' op value has rank 1, expected rank 2}}
  %r = attune.overwrite %h, %v : (tensor<2x4xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @overwrite_shape(%h: tensor<2x4xf32>, %v: tensor<2x5xf32>) {
  // expected-error @+1 {{'attune.overwrite' op value dim 1 is 5, expected 4 (the dest's)}}
  %r = attune.overwrite %h, %v : (tensor<2x4xf32>, tensor<2x5xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @binary_broadcast(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'attune.binary' op cannot broadcast lhs of shape [2, 3] with rhs of shape [4, 3]: extents 2 and 4 differ and neither is 1}}
  %r = attune.binary <div> %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+1 {{'attune.binary' op rhs has element type 'f16', expected 'f32' (the element type of lhs)}}
  %r = attune.binary <pow> %a, %b : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @compare_element_type(%a: tensor<2x3xi64>, %b: tensor<i32>) {
  // expected-error @+1 {{'attune.compare' op rhs has element type 'i32', expected 'i64' (the element type of lhs)}}
  %r = attune.compare <eq> %a, %b : (tensor<2x3xi64>, tensor<i32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @compare_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'attune.compare' op cannot broadcast lhs of shape [2, 3] with rhs of shape [2]: extents 3 and 2 differ and neither is 1}}
  %r = attune.compare <lt> %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @select_element_type(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<bf16>) {
  // expected-error @+1 {{'attune.select' op rhs has element type 'bf16', expected 'f32' (the element type of lhs)}}
  %r = attune.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<bf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @select_values_broadcast(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'attune.select' op cannot broadcast lhs of shape [2, 3] with rhs of shape [2]: extents 3 and 2 differ and neither is 1}}
  %r = attune.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @select_condition_broadcast(%c: tensor<4x1xi1>, %a: tensor<2x3xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{'attune.select' op cannot broadcast condition of shape [4, 1] with lhs and rhs of shape [2, 3]: extents 4 and 2 differ and neither is 1}}
  %r = attune.select %c, %a, %b : (tensor<4x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.reduce' op axis 2 is out of range for rank 2 (expected -2 <= axis < 2)}}
  %r = attune.reduce <sum> %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_axis_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.reduce' op axis -1 is repeated in axes (dim 1 is reduced once)}}
  %r = attune.reduce <sum> %x {axes = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_axis_range(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'attune.gather' op axis -3 is out of range for rank 2 (expected -2 <= axis < 2)}}
  %r = attune.gather %x, %i {axis = -3 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_rank0(%x: tensor<f32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'attune.gather' op input has rank 0, expected rank >= 1}}
  %r = attune.gather %x, %i {axis = 0 : i64} : (tensor<f32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @trilu_rank(%x: tensor<3xf32>) {
  // expected-error @+1 {{'attune.trilu' op input has rank 1, expected rank >= 2 ([..., M, N])}}
  %r = attune.trilu %x {upper} : tensor<3xf32>
  return
}

// -----

func.func @reshape_dynamic_count(%x: tensor<?x?x8xf32>) {
  // expected-error @+1 {{'attune.reshape' op input [?, ?, 8] has 2 dynamic dims and result [?, 16] has 1 (without sizes, a reshape keeps the dynamic dims)}}
  %r = attune.reshape %x : tensor<?x?x8xf32> to tensor<?x16xf32>
  return
}

// -----

func.func @reshape_elements(%x: tensor<?x6x4xf32>) {
  // expected-error @+1 {{'attune.reshape' op static dims after dynamic dim 1 hold 24 elements in the input [?, 6, 4] and 20 in the result [?, 5, 4]}}
  %r = attune.reshape %x : tensor<?x6x4xf32> to tensor<?x5x4xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'attune.reshape' op result element type 'f16' differs from the input's 'f32'}}
  %r = attune.reshape %x : tensor<2x3xf32> to tensor<6xf16>
  return
}

// -----

func.func @unary_integer(%x: tensor<4xi64>) {
  // expected-error @+1 {{'attune.unary' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi64>'}}
  %r = attune.unary <sqrt> %x : tensor<4xi64>
  return
}

// -----

func.func @reshape_sizes(%x: tensor<?x8xf32>, %n: index) {
  // expected-error @+1 {{'attune.reshape' op has 1 sizes for 2 dynamic dims of the result [?, ?, 8] (one per dynamic dim, in order)}}
  %r = attune.reshape %x sizes(%n) : tensor<?x8xf32> to tensor<?x?x8xf32>
  return
}

// -----

func.func @broadcast_sizes(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{'attune.broadcast' op has 0 sizes for 1 dynamic dims of the result [?, 8] (one per dynamic dim, in order)}}
  %r = attune.broadcast %x : tensor<1x8xf32> to tensor<?x8xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<3x8xf32>) {
  // expected-error @+1 {{'attune.broadcast' op input dim 0 is 3, expected 1 or the result's 4 (result [4, 8])}}
  %r = attune.broadcast %x : tensor<3x8xf32> to tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<2x3x8xf32>) {
  // expected-error @+1 {{'attune.broadcast' op input [2, 3, 8] has more dims than the result [3, 8]}}
  %r = attune.broadcast %x : tensor<2x3x8xf32> to tensor<3x8xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{'attune.broadcast' op result element type 'f16' differs from the input's 'f32'}}
  %r = attune.broadcast %x : tensor<8xf32> to tensor<2x8xf16>
  return
}

// -----

func.func @la_element_type(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf16>) {
  // expected-error @+1 {{'attune.linear_attention' op key has element type 'f16', expected 'f32' (the element type of query)}}
  %r = attune.linear_attention %q, %k, %k  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_rank(%q: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op query has rank 3, expected rank 4 ([B, H, Lq, D])}}
  %r = attune.linear_attention %q, %q, %q  : (tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32>) -> tensor<8x16x64xf32>
  return
}

// -----

func.func @la_static_heads(%q: tensor<2x?x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op query dim 1 (H) must be static, got [2, ?, 16, 64]}}
  %r = attune.linear_attention %q, %q, %q  : (tensor<2x?x16x64xf32>, tensor<2x?x16x64xf32>, tensor<2x?x16x64xf32>) -> tensor<2x?x16x64xf32>
  return
}

// -----

func.func @la_heads(%q: tensor<2x8x16x64xf32>, %k: tensor<2x3x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op key heads (3) must divide query heads (8)}}
  %r = attune.linear_attention %q, %k, %k  : (tensor<2x8x16x64xf32>, tensor<2x3x16x64xf32>, tensor<2x3x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_key_batch(%q: tensor<2x8x16x64xf32>, %k: tensor<3x8x16x64xf32>, %v: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op key dim 0 (B) is 3, expected 2 (query batch)}}
  %r = attune.linear_attention %q, %k, %v  : (tensor<2x8x16x64xf32>, tensor<3x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_value_batch(%q: tensor<2x8x16x64xf32>, %v: tensor<3x8x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op value dim 0 (B) is 3, expected 2 (query batch)}}
  %r = attune.linear_attention %q, %q, %v  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<3x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_value_heads(%q: tensor<2x8x16x64xf32>, %v: tensor<2x4x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op value dim 1 (Hk) is 4, expected 8 (key heads)}}
  %r = attune.linear_attention %q, %q, %v  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x4x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_head_dim(%q: tensor<2x8x16x48xf32>, %k: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op key head dim is 64, expected 48 (query head dim)}}
  %r = attune.linear_attention %q, %k, %k  : (tensor<2x8x16x48xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_value_length(%q: tensor<2x8x16x64xf32>, %v: tensor<2x8x12x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op value dim 2 (Lk) is 12, expected 16 (key length)}}
  %r = attune.linear_attention %q, %q, %v  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x12x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_lengths(%q: tensor<2x8x16x64xf32>, %len: tensor<3xi64>) {
  // expected-error @+1 {{'attune.linear_attention' op key_lengths dim 0 (B) is 3, expected 2 (the batch size)}}
  %r = attune.linear_attention %q, %q, %q key_lengths(%len)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<3xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_window(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op linear attention cannot honour a window mask (window = 4): its sums run over every visible key; expected no window (use attune.attention for a sliding window)}}
  %r = attune.linear_attention %q, %q, %q {window = 4 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_causal_lengths(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x20x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op key length (Lk) with causal is 20, expected 16 (query length)}}
  %r = attune.linear_attention %q, %k, %k {causal} : (tensor<2x8x16x64xf32>, tensor<2x8x20x64xf32>, tensor<2x8x20x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_eps(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op eps must be finite and >= 0, got -1.000000e+00}}
  %r = attune.linear_attention %q, %q, %q {eps = -1.0} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @la_state_count(%q: tensor<2x8x16x64xf32>, %kv: tensor<2x8x64x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op state takes 2 operands (kv [B, Hk, D, Dv], ksum [B, Hk, D]), got 1}}
  %r:2 = attune.linear_attention %q, %q, %q state(%kv)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x64x64xf32>) -> (tensor<2x8x16x64xf32>, tensor<2x8x64x64xf32>)
  return
}

// -----

func.func @la_state_type(%q: tensor<2x8x16x64xf32>, %kv: tensor<2x8x64x64xf16>, %z: tensor<2x8x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op state kv must be f32 (the sums accumulate in f32), got 'f16'}}
  %r:3 = attune.linear_attention %q, %q, %q state(%kv, %z)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x64x64xf16>, tensor<2x8x64xf32>) -> (tensor<2x8x16x64xf32>, tensor<2x8x64x64xf16>, tensor<2x8x64xf32>)
  return
}

// -----

func.func @la_state_shape(%q: tensor<2x8x16x64xf32>, %kv: tensor<2x8x64x64xf32>, %z: tensor<2x4x64xf32>) {
  // expected-error @+1 {{'attune.linear_attention' op state ksum has shape [2, 4, 64], expected [2, 8, 64]}}
  %r:3 = attune.linear_attention %q, %q, %q state(%kv, %z)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x64x64xf32>, tensor<2x4x64xf32>) -> (tensor<2x8x16x64xf32>, tensor<2x8x64x64xf32>, tensor<2x8x64xf32>)
  return
}

// -----

func.func @globals_no_window(%q: tensor<2x8x16x64xf32>, %g: tensor<2x2xi64>) {
  // expected-error @+1 {{'attune.attention' op global tokens need a window (expected window = w; without one every key is visible already)}}
  %r = attune.attention %q, %q, %q globals(%g)  : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @globals_query_offsets(%q: tensor<2x8x16x64xf32>, %g: tensor<2x2xi64>, %o: tensor<2xi64>) {
  // expected-error @+1 {{'attune.attention' op global tokens and query_offsets are exclusive}}
  %r = attune.attention %q, %q, %q query_offsets(%o) globals(%g) {window = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2xi64>, tensor<2x2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @globals_rank(%q: tensor<2x8x16x64xf32>, %g: tensor<2xi64>) {
  // expected-error @+1 {{'attune.attention' op globals has rank 1, expected rank 2 ([B, G])}}
  %r = attune.attention %q, %q, %q globals(%g) {window = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @globals_static(%q: tensor<2x8x16x64xf32>, %g: tensor<2x?xi64>) {
  // expected-error @+1 {{'attune.attention' op globals dim 1 (G) must be static, got [2, ?]}}
  %r = attune.attention %q, %q, %q globals(%g) {window = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x?xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @globals_batch(%q: tensor<2x8x16x64xf32>, %g: tensor<3x2xi64>) {
  // expected-error @+1 {{'attune.attention' op globals dim 0 (B) is 3, expected 2 (the batch size)}}
  %r = attune.attention %q, %q, %q globals(%g) {window = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<3x2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @globals_range(%q: tensor<2x8x16x64xf32>) {
  %g = arith.constant dense<[[0, 16], [1, 2]]> : tensor<2x2xi64>
  // expected-error @+1 {{'attune.attention' op global token position 16 is outside the keys [0, 16)}}
  %r = attune.attention %q, %q, %q globals(%g) {window = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @globals_twice(%q: tensor<2x8x16x64xf32>) {
  %g = arith.constant dense<[[0, 1], [2, 2]]> : tensor<2x2xi64>
  // expected-error @+1 {{'attune.attention' op global token position 2 is given twice in one row (expected distinct positions)}}
  %r = attune.attention %q, %q, %q globals(%g) {window = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @sparse_globals(%q: tensor<2x8x16x64xf32>, %g: tensor<2x2xi64>) {
  // expected-error @+1 {{'attune.attention' op a sparse layout and global tokens are exclusive (expected the layout's global blocks)}}
  %r = attune.attention %q, %q, %q globals(%g) {window = 2 : i64, sparse = #attune.sparse<block = 4, local = 1>} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @sparse_split_odd_heads(%q: tensor<2x3x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op a split sparse layout alternates its two factors over the heads: expected an even number of query heads, got 3}}
  %r = attune.attention %q, %q, %q {sparse = #attune.sparse<block = 4, local = 1, stride = 2, split = true>} : (tensor<2x3x16x64xf32>, tensor<2x3x16x64xf32>, tensor<2x3x16x64xf32>) -> tensor<2x3x16x64xf32>
  return
}

// -----

func.func @dilation_no_window(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op dilation spaces a window's keys: expected a window = w with it}}
  %r = attune.attention %q, %q, %q {dilation = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @dilation_zero(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op dilation must be in [1, 2^31], got 0}}
  %r = attune.attention %q, %q, %q {window = 4 : i64, dilation = 0 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @dilated_window_too_wide(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'attune.attention' op a dilated window must be at most 2^31, got 4294967296}}
  %r = attune.attention %q, %q, %q {window = 4294967296 : i64, dilation = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}
