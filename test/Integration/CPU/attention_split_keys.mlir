// torch.module: nn.Identity()
// torch.inputs: q=f32[2,2,70,64], k=f32[2,1,700,64], v=f32[2,1,700,64], lengths=i64[2]{1,701}
// torch.inputs: q=f32[1,2,20,64], k=f32[1,1,1030,64], v=f32[1,1,1030,64], lengths=i64[1]{300,1031}
// torch.call: (ref.attention(q, k, v), ref.attention(q, k, v, causal=True), ref.attention(q, k, v, causal=True, align="bottom_right", lengths=lengths), ref.attention(q, k, v, window=300, align="bottom_right"), ref.attention(q, k, v, lengths=lengths), ref.attention(q, k, v, sparse=dict(block=64, local=2, **{"global": 1})))
//
// Few heads (grouped: two query heads over one key head): the parallel
// form splits each head's keys into ranges of whole 64-key tiles, one
// thread's work each (one range per 4 tiles: 3 ranges over 700 keys, 5 over
// 1,030), and combines the ranges' states. Lengths and causal and window
// spans that leave ranges empty for some rows or whole query tiles (top-left
// causal: 70 queries see at most 70 keys), rows fewer than a tile (20
// queries: still the static form, which fewer than 16 would not take), and
// a sparse layout whose key tiles are skipped inside a range. The serial
// build has no ranges: the same references hold for both.
// RUN: %check-golden %s --work %t --atol 1e-5
// RUN: %check-golden %s --work %t.parallel --atol 1e-5 --compile-arg=--parallel

!q = tensor<?x2x?x64xf32>
!k = tensor<?x1x?x64xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"})
    -> (!q, !q, !q, !q, !q, !q) {
  %0 = attune.attention %q, %k, %v : (!q, !k, !k) -> !q
  %1 = attune.attention %q, %k, %v {causal} : (!q, !k, !k) -> !q
  %2 = attune.attention %q, %k, %v key_lengths(%len) {causal, align = #attune.align<bottom_right>}
      : (!q, !k, !k, tensor<?xi64>) -> !q
  %3 = attune.attention %q, %k, %v {window = 300 : i64, align = #attune.align<bottom_right>} : (!q, !k, !k) -> !q
  %4 = attune.attention %q, %k, %v key_lengths(%len) : (!q, !k, !k, tensor<?xi64>) -> !q
  %5 = attune.attention %q, %k, %v {sparse = #attune.sparse<block = 64, local = 2, global = 1>} : (!q, !k, !k) -> !q
  return %0, %1, %2, %3, %4, %5 : !q, !q, !q, !q, !q, !q
}
