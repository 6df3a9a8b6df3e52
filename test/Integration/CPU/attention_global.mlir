// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,150,64], k=f32[2,2,150,64], v=f32[2,2,150,64], lengths=i64[2]{100,151}, globals=i64[2,3]{0,150}
// torch.inputs: q=f32[1,4,64,64], k=f32[1,2,64,64], v=f32[1,2,64,64], lengths=i64[1]{30,65}, globals=i64[1,3]{0,64}
// torch.call: (ref.attention(q, k, v, window=5, global_indices=globals), ref.attention(q, k, v, window=9, causal=True, lengths=lengths, global_indices=globals), ref.attention(q, k, v, window=3, causal=True, align="bottom_right", global_indices=globals))
//
// Local + global attention (Longformer): a sliding window plus global
// tokens that see every key and are seen by every query, with grouped-query
// heads, causal and key padding; lengths that span several 64-row tiles and
// are not multiples of them. The global positions are random inputs
// (distinct in each row for these seeds: a repeat would fail the run-time
// check, not pass silently).
// RUN: %check-golden %s --work %t --atol 1e-5
// RUN: %check-golden %s --work %t.parallel --atol 1e-5 --compile-arg=--parallel

!q = tensor<?x4x?x64xf32>
!k = tensor<?x2x?x64xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"}, %g: tensor<?x3xi64> {attune.name = "globals"})
    -> (!q, !q, !q) {
  %0 = attune.attention %q, %k, %v globals(%g) {window = 5 : i64} : (!q, !k, !k, tensor<?x3xi64>) -> !q
  %1 = attune.attention %q, %k, %v key_lengths(%len) globals(%g) {causal, window = 9 : i64}
      : (!q, !k, !k, tensor<?xi64>, tensor<?x3xi64>) -> !q
  %2 = attune.attention %q, %k, %v globals(%g) {causal, window = 3 : i64, align = #attune.align<bottom_right>}
      : (!q, !k, !k, tensor<?x3xi64>) -> !q
  return %0, %1, %2 : !q, !q, !q
}
