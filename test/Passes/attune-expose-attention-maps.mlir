// RUN: attune-opt %S/../../examples/decoder_layer.mlir --attune-expose-attention-maps | FileCheck %s --check-prefix=ALL
// RUN: attune-opt %S/../../examples/decoder_layer.mlir --attune-expose-attention-maps="select=multihead_attn" | FileCheck %s --check-prefix=CROSS
// RUN: attune-opt %s --attune-expose-attention-maps="select=1,attention0" --split-input-file --verify-diagnostics | FileCheck %s

// A decoder layer is decomposed; its two attentions are sites named after
// their projections' weights (self_attn, multihead_attn), each returning its
// weights [B, H, Lq, Lk] and their head average after the layer's output.
// ALL-LABEL: func.func @forward
// ALL-SAME:  -> (tensor<?x?x64xf32>, tensor<?x4x?x?xf32> {attune.name = "attn.self_attn"}, tensor<?x?x?xf32> {attune.name = "attn.self_attn.mean"}, tensor<?x4x?x?xf32> {attune.name = "attn.multihead_attn"}, tensor<?x?x?xf32> {attune.name = "attn.multihead_attn.mean"})
// ALL:       %{{.*}}, %[[W0:.*]] = attune.attention {{.*}} {causal, return_weights}
// ALL:       %{{.*}}, %[[W1:.*]] = attune.attention {{.*}} {return_weights}
// ALL:       %[[M0:.*]] = attune.reduce <mean> %[[W0]] {axes = array<i64: 1>}
// ALL:       %[[M1:.*]] = attune.reduce <mean> %[[W1]] {axes = array<i64: 1>}
// ALL:       return %{{.*}}, %[[W0]], %[[M0]], %[[W1]], %[[M1]]

// Selected by name: only the cross-attention returns its weights; the
// self-attention keeps its form (and its fused kernels later).
// CROSS-LABEL: func.func @forward
// CROSS-SAME:  -> (tensor<?x?x64xf32>, tensor<?x4x?x?xf32> {attune.name = "attn.multihead_attn"}, tensor<?x?x?xf32> {attune.name = "attn.multihead_attn.mean"})
// CROSS:       attune.attention {{.*}} {causal} :
// CROSS:       attune.attention {{.*}} {return_weights}

// Sites without a weight path are attention<N>; selected by number (1) and
// name (attention0). A seq2seq attention's weights have no heads: no mean.
// An attention that returns its weights already gives them as they are.
// CHECK-LABEL: func.func @plain
// CHECK-SAME:  -> (tensor<2x4x8x16xf32>, tensor<2x1x16xf32>, tensor<2x4x8x8xf32> {attune.name = "attn.attention0"}, tensor<2x8x8xf32> {attune.name = "attn.attention0.mean"}, tensor<2x1x8xf32> {attune.name = "attn.attention1"})
// CHECK:       %{{.*}}, %[[W:.*]] = attune.attention %{{.*}}, %{{.*}}, %{{.*}} {return_weights}
// CHECK:       %{{.*}}, %[[S:.*]] = attune.seq2seq_attention <dot> {{.*}} {return_weights}
// CHECK:       %[[M:.*]] = attune.reduce <mean> %[[W]]
// CHECK:       return %{{.*}}, %{{.*}}, %[[W]], %[[M]], %[[S]]
func.func @plain(%q: tensor<2x4x8x16xf32>, %s: tensor<2x1x16xf32>, %h: tensor<2x8x16xf32>)
    -> (tensor<2x4x8x16xf32>, tensor<2x1x16xf32>) {
  %o = attune.attention %q, %q, %q : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %c = attune.seq2seq_attention <dot> %s, %h, %h : (tensor<2x1x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x1x16xf32>
  return %o, %c : tensor<2x4x8x16xf32>, tensor<2x1x16xf32>
}

// -----

// A selection that matches no site lists the sites there are.
// expected-error @+1 {{--attention-maps: '1' selects no attention; the model has: 0 (attention0)}}
module {
  func.func @one(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
    %o = attune.attention %q, %q, %q : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
    return %o : tensor<2x4x8x16xf32>
  }
}
