// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,200,64], k=f32[2,2,200,64], v=f32[2,2,200,64], lengths=i64[2]{120,201}
// torch.inputs: q=f32[1,4,70,64], k=f32[1,2,70,64], v=f32[1,2,70,64], lengths=i64[1]{30,71}
// torch.call: (ref.attention(q, k, v, causal=True, lengths=lengths, sparse=dict(block=16, local=3, stride=3)), ref.attention(q, k, v, sparse=dict(block=32, fixed=2, summary=1, split=True)), ref.attention(q, k, v, lengths=lengths, sparse=dict(block=64, local=2, **{"global": 1})), ref.attention(q, k, v, causal=True, sparse=dict(block=1, local=8, stride=8)), *ref.attention(q, k, v, causal=True, return_weights=True, sparse=dict(block=8, fixed=4, summary=2)))
//
// Sparse attention (Child et al. 2019, BigBird): block-sparse layouts given
// by rules over block indices, with grouped-query heads, causal and key
// padding; lengths not multiples of the blocks or the 64-row tiles.
//   %0 strided (merged head): local = 3, stride = 3 blocks of 16, causal
//   %1 fixed, split across heads (even: own segment, odd: summary blocks)
//   %2 window + global blocks of one tile each (the tiled kernel skips the
//      invisible key tiles)
//   %3 the paper's strided pattern over single positions (block = 1)
//   %4 fixed with its weights returned (the materialized form)
// RUN: %check-golden %s --work %t --atol 1e-5
// RUN: %check-golden %s --work %t.parallel --atol 1e-5 --compile-arg=--parallel
// RUN: %check-golden %s --work %t.tiles --atol 1e-5 --compile-arg=--attention-tile-q=32 --compile-arg=--attention-tile-k=24

!q = tensor<?x4x?x64xf32>
!k = tensor<?x2x?x64xf32>
!w = tensor<?x4x?x?xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"})
    -> (!q, !q, !q, !q, !q, !w) {
  %0 = attune.attention %q, %k, %v key_lengths(%len)
      {causal, sparse = #attune.sparse<block = 16, local = 3, stride = 3>}
      : (!q, !k, !k, tensor<?xi64>) -> !q
  %1 = attune.attention %q, %k, %v {sparse = #attune.sparse<block = 32, fixed = 2, summary = 1, split = true>}
      : (!q, !k, !k) -> !q
  %2 = attune.attention %q, %k, %v key_lengths(%len) {sparse = #attune.sparse<block = 64, local = 2, global = 1>}
      : (!q, !k, !k, tensor<?xi64>) -> !q
  %3 = attune.attention %q, %k, %v {causal, sparse = #attune.sparse<block = 1, local = 8, stride = 8>}
      : (!q, !k, !k) -> !q
  %4, %5 = attune.attention %q, %k, %v {causal, return_weights, sparse = #attune.sparse<block = 8, fixed = 4, summary = 2>}
      : (!q, !k, !k) -> (!q, !w)
  return %0, %1, %2, %3, %4, %5 : !q, !q, !q, !q, !q, !w
}
