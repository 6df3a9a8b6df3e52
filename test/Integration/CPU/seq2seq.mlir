// torch.module: nn.ModuleDict({"general": nn.Linear(10, 12, bias=False), "w1": nn.Linear(12, 9), "w2": nn.Linear(10, 9, bias=False), "v": nn.Linear(9, 1, bias=False), "loc": nn.Linear(12, 7)})
// torch.inputs: s=f32[2,1,12], s10=f32[2,3,10], h=f32[2,7,10], lengths=i64[2]{1,8}
// torch.call: (ref.seq2seq("dot", s10, h, h, lengths=lengths), ref.seq2seq("general", s, h, h, (module["general"].weight,), lengths=lengths)) + ref.seq2seq("additive", s, h, h, (module["w1"].weight, module["w2"].weight, module["v"].weight, module["w1"].bias), lengths=lengths, return_weights=True) + (ref.seq2seq("location", s, h, h, (module["loc"].weight, module["loc"].bias)),)
//
// The seq2seq score functions (Luong dot, general, location; Bahdanau
// additive), decomposed and lowered, with key padding.
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%s: tensor<?x1x12xf32> {attune.name = "s"}, %s10: tensor<?x?x10xf32> {attune.name = "s10"},
                   %h: tensor<?x7x10xf32> {attune.name = "h"}, %len: tensor<?xi64> {attune.name = "lengths"})
    -> (tensor<?x?x10xf32>, tensor<?x1x10xf32>, tensor<?x1x10xf32>, tensor<?x1x7xf32>, tensor<?x1x10xf32>) {
  %wg = attune.weight "general.weight" : tensor<12x10xf32>
  %w1 = attune.weight "w1.weight" : tensor<9x12xf32>
  %b1 = attune.weight "w1.bias" : tensor<9xf32>
  %w2 = attune.weight "w2.weight" : tensor<9x10xf32>
  %v = attune.weight "v.weight" : tensor<1x9xf32>
  %wl = attune.weight "loc.weight" : tensor<7x12xf32>
  %bl = attune.weight "loc.bias" : tensor<7xf32>
  %0 = attune.seq2seq_attention <dot> %s10, %h, %h key_lengths(%len)
      : (tensor<?x?x10xf32>, tensor<?x7x10xf32>, tensor<?x7x10xf32>, tensor<?xi64>) -> tensor<?x?x10xf32>
  %1 = attune.seq2seq_attention <general> %s, %h, %h weights(%wg) key_lengths(%len)
      : (tensor<?x1x12xf32>, tensor<?x7x10xf32>, tensor<?x7x10xf32>, tensor<12x10xf32>, tensor<?xi64>) -> tensor<?x1x10xf32>
  %2:2 = attune.seq2seq_attention <additive> %s, %h, %h weights(%w1, %w2, %v, %b1) key_lengths(%len) {return_weights}
      : (tensor<?x1x12xf32>, tensor<?x7x10xf32>, tensor<?x7x10xf32>, tensor<9x12xf32>, tensor<9x10xf32>,
         tensor<1x9xf32>, tensor<9xf32>, tensor<?xi64>) -> (tensor<?x1x10xf32>, tensor<?x1x7xf32>)
  %3 = attune.seq2seq_attention <location> %s, %h, %h weights(%wl, %bl)
      : (tensor<?x1x12xf32>, tensor<?x7x10xf32>, tensor<?x7x10xf32>, tensor<7x12xf32>, tensor<7xf32>) -> tensor<?x1x10xf32>
  return %0, %1, %2#0, %2#1, %3 : tensor<?x?x10xf32>, tensor<?x1x10xf32>, tensor<?x1x10xf32>, tensor<?x1x7xf32>, tensor<?x1x10xf32>
}
