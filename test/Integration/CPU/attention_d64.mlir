// torch.module: nn.Identity()
// torch.inputs: q=f32[2,4,150,64], k=f32[2,2,200,64], v=f32[2,2,200,64], lengths=i64[2]{60,201}
// torch.inputs: q=f32[1,4,256,64], k=f32[1,2,256,64], v=f32[1,2,256,64], lengths=i64[1]{1,257}
// torch.call: (ref.attention(q, k, v), ref.attention(q, k, v, causal=True), ref.attention(q, k, v, causal=True, align="bottom_right"), ref.attention(q, k, v, window=70), ref.attention(q, k, v, causal=True, window=100, align="bottom_right", lengths=lengths), ref.attention(q, k, v, lengths=lengths))
//
// Tiled attention with the CPU's default 64 x 64 tiles and a head dim of 64:
// the score and value products run on register tiles, the query tiles are
// transposed in 16 x 16 blocks, and key tiles that every query of a tile
// sees skip the mask while the others (causal diagonals, window edges, key
// lengths, the padding past Lk) are masked. Lengths that are and are not
// multiples of the tiles; windows wider than a tile, so that interior tiles
// exist between two masked edges.
// RUN: %check-golden %s --work %t --atol 1e-5

!q = tensor<?x4x?x64xf32>
!k = tensor<?x2x?x64xf32>

func.func @forward(%q: !q {attune.name = "q"}, %k: !k {attune.name = "k"}, %v: !k {attune.name = "v"},
                   %len: tensor<?xi64> {attune.name = "lengths"})
    -> (!q, !q, !q, !q, !q, !q) {
  %0 = attune.attention %q, %k, %v : (!q, !k, !k) -> !q
  %1 = attune.attention %q, %k, %v {causal} : (!q, !k, !k) -> !q
  %2 = attune.attention %q, %k, %v {causal, align = #attune.align<bottom_right>} : (!q, !k, !k) -> !q
  %3 = attune.attention %q, %k, %v {window = 70 : i64} : (!q, !k, !k) -> !q
  %4 = attune.attention %q, %k, %v key_lengths(%len) {causal, window = 100 : i64, align = #attune.align<bottom_right>} : (!q, !k, !k, tensor<?xi64>) -> !q
  %5 = attune.attention %q, %k, %v key_lengths(%len) : (!q, !k, !k, tensor<?xi64>) -> !q
  return %0, %1, %2, %3, %4, %5 : !q, !q, !q, !q, !q, !q
}
