// RUN: attune-opt %s --attune-decompose --split-input-file | FileCheck %s

// Self-attention with a packed in_proj_weight: one GEMM for Q, K and V.
// CHECK-LABEL: func @mha_self
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x64xf32>, %[[W:[^:]*]]: tensor<192x64xf32>, %[[B:[^:]*]]: tensor<192xf32>, %[[WO:[^:]*]]: tensor<64x64xf32>, %[[BO:[^:]*]]: tensor<64xf32>, %[[LEN:[^:]*]]: tensor<?xi64>)
// CHECK:      %[[QKV:.*]] = attune.linear %[[X]], %[[W]], %[[B]] : {{.*}} -> tensor<?x?x192xf32>
// CHECK-NEXT: %[[Q:.*]] = attune.slice %[[QKV]] {axis = -1 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[K:.*]] = attune.slice %[[QKV]] {axis = -1 : i64, offset = 64 : i64, size = 64 : i64}
// CHECK-NEXT: %[[V:.*]] = attune.slice %[[QKV]] {axis = -1 : i64, offset = 128 : i64, size = 64 : i64}
// CHECK-NEXT: %[[QH:.*]] = attune.split_heads %[[Q]] {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
// CHECK-NEXT: %[[KH:.*]] = attune.split_heads %[[K]] {num_heads = 4 : i64}
// CHECK-NEXT: %[[VH:.*]] = attune.split_heads %[[V]] {num_heads = 4 : i64}
// CHECK-NEXT: %[[O:.*]] = attune.attention %[[QH]], %[[KH]], %[[VH]] key_lengths(%[[LEN]]) {causal}
// CHECK-NEXT: %[[M:.*]] = attune.merge_heads %[[O]] : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT: %[[Y:.*]] = attune.linear %[[M]], %[[WO]], %[[BO]]
// CHECK-NEXT: return %[[Y]]
func.func @mha_self(%x: tensor<?x?x64xf32>, %w: tensor<192x64xf32>, %b: tensor<192xf32>,
                    %wo: tensor<64x64xf32>, %bo: tensor<64xf32>, %len: tensor<?xi64>) -> tensor<?x?x64xf32> {
  %0 = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) in_proj_bias(%b)
      out_proj_weight(%wo) out_proj_bias(%bo) key_lengths(%len) {num_heads = 4 : i64, causal}
      : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>,
         tensor<64x64xf32>, tensor<64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

// Cross-attention with a packed weight: Q from the query, K and V from one
// GEMM over the memory with the weight's last 2E rows. Masks and bias pass on.
// CHECK-LABEL: func @mha_cross
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x5x64xf32>, %[[MEM:[^:]*]]: tensor<2x7x64xf32>, %[[W:[^:]*]]: tensor<192x64xf32>, %[[B:[^:]*]]: tensor<192xf32>, %[[WO:[^:]*]]: tensor<64x64xf32>, %[[BIAS:[^:]*]]: tensor<5x7xf32>)
// CHECK:      %[[WQ:.*]] = attune.slice %[[W]] {axis = 0 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[BQ:.*]] = attune.slice %[[B]] {axis = 0 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[Q:.*]] = attune.linear %[[X]], %[[WQ]], %[[BQ]]
// CHECK-NEXT: %[[WKV:.*]] = attune.slice %[[W]] {axis = 0 : i64, offset = 64 : i64, size = 128 : i64}
// CHECK-NEXT: %[[BKV:.*]] = attune.slice %[[B]] {axis = 0 : i64, offset = 64 : i64, size = 128 : i64}
// CHECK-NEXT: %[[KV:.*]] = attune.linear %[[MEM]], %[[WKV]], %[[BKV]] : {{.*}} -> tensor<2x7x128xf32>
// CHECK-NEXT: %[[K:.*]] = attune.slice %[[KV]] {axis = -1 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[V:.*]] = attune.slice %[[KV]] {axis = -1 : i64, offset = 64 : i64, size = 64 : i64}
// CHECK:      attune.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%[[BIAS]]) {align = #attune.align<bottom_right>, window = 3 : i64}
// CHECK:      attune.linear %{{.*}}, %[[WO]] : (tensor<2x5x64xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
func.func @mha_cross(%x: tensor<2x5x64xf32>, %m: tensor<2x7x64xf32>, %w: tensor<192x64xf32>, %b: tensor<192xf32>,
                     %wo: tensor<64x64xf32>, %bias: tensor<5x7xf32>) -> tensor<2x5x64xf32> {
  %0 = attune.multi_head_attention %x, %m, %m in_proj_weight(%w) in_proj_bias(%b) out_proj_weight(%wo)
      bias(%bias) {num_heads = 4 : i64, window = 3 : i64, align = #attune.align<bottom_right>}
      : (tensor<2x5x64xf32>, tensor<2x7x64xf32>, tensor<2x7x64xf32>, tensor<192x64xf32>, tensor<192xf32>,
         tensor<64x64xf32>, tensor<5x7xf32>) -> tensor<2x5x64xf32>
  return %0 : tensor<2x5x64xf32>
}

// -----

// Separate projections and grouped-query attention: K and V have 2 heads.
// CHECK-LABEL: func @mha_separate_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x5x64xf32>, %[[K:[^:]*]]: tensor<2x7x48xf32>, %[[V:[^:]*]]: tensor<2x7x40xf32>, %[[WQ:[^:]*]]: tensor<64x64xf32>, %[[WK:[^:]*]]: tensor<32x48xf32>, %[[WV:[^:]*]]: tensor<32x40xf32>, %[[B:[^:]*]]: tensor<128xf32>, %[[WO:[^:]*]]: tensor<64x64xf32>)
// CHECK:      %[[BQ:.*]] = attune.slice %[[B]] {axis = 0 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[PQ:.*]] = attune.linear %[[Q]], %[[WQ]], %[[BQ]]
// CHECK-NEXT: %[[BK:.*]] = attune.slice %[[B]] {axis = 0 : i64, offset = 64 : i64, size = 32 : i64}
// CHECK-NEXT: %[[PK:.*]] = attune.linear %[[K]], %[[WK]], %[[BK]] : {{.*}} -> tensor<2x7x32xf32>
// CHECK-NEXT: %[[BV:.*]] = attune.slice %[[B]] {axis = 0 : i64, offset = 96 : i64, size = 32 : i64}
// CHECK-NEXT: %[[PV:.*]] = attune.linear %[[V]], %[[WV]], %[[BV]]
// CHECK-NEXT: attune.split_heads %[[PQ]] {num_heads = 4 : i64} : (tensor<2x5x64xf32>) -> tensor<2x4x5x16xf32>
// CHECK-NEXT: attune.split_heads %[[PK]] {num_heads = 2 : i64} : (tensor<2x7x32xf32>) -> tensor<2x2x7x16xf32>
// CHECK-NEXT: attune.split_heads %[[PV]] {num_heads = 2 : i64}
// CHECK-NEXT: attune.attention {{.*}} : (tensor<2x4x5x16xf32>, tensor<2x2x7x16xf32>, tensor<2x2x7x16xf32>) -> tensor<2x4x5x16xf32>
func.func @mha_separate_gqa(%q: tensor<2x5x64xf32>, %k: tensor<2x7x48xf32>, %v: tensor<2x7x40xf32>,
                            %wq: tensor<64x64xf32>, %wk: tensor<32x48xf32>, %wv: tensor<32x40xf32>,
                            %b: tensor<128xf32>, %wo: tensor<64x64xf32>) -> tensor<2x5x64xf32> {
  %0 = attune.multi_head_attention %q, %k, %v q_proj_weight(%wq) k_proj_weight(%wk) v_proj_weight(%wv)
      in_proj_bias(%b) out_proj_weight(%wo) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : (tensor<2x5x64xf32>, tensor<2x7x48xf32>, tensor<2x7x40xf32>, tensor<64x64xf32>, tensor<32x48xf32>,
         tensor<32x40xf32>, tensor<128xf32>, tensor<64x64xf32>) -> tensor<2x5x64xf32>
  return %0 : tensor<2x5x64xf32>
}

// -----

// CHECK-LABEL: func @feed_forward
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x16x64xf32>, %[[W1:[^:]*]]: tensor<128x64xf32>, %[[B1:[^:]*]]: tensor<128xf32>, %[[W2:[^:]*]]: tensor<64x128xf32>)
// CHECK-NEXT: %[[H:.*]] = attune.linear %[[X]], %[[W1]], %[[B1]] : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
// CHECK-NEXT: %[[A:.*]] = attune.activation <gelu_tanh> %[[H]] : tensor<?x16x128xf32>
// CHECK-NEXT: %[[Y:.*]] = attune.linear %[[A]], %[[W2]] : (tensor<?x16x128xf32>, tensor<64x128xf32>) -> tensor<?x16x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @feed_forward(%x: tensor<?x16x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>,
                        %w2: tensor<64x128xf32>) -> tensor<?x16x64xf32> {
  %0 = attune.feed_forward %x linear1(%w1, %b1) linear2(%w2) {activation = #attune.activation<gelu_tanh>}
      : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>) -> tensor<?x16x64xf32>
  return %0 : tensor<?x16x64xf32>
}

// -----

// Post-norm (PyTorch's default): x = norm1(x + sa(x)); x = norm2(x + ff(x)).
// CHECK-LABEL: func @encoder_post_norm
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x64xf32>, {{.*}}, %[[N1W:[^:]*]]: tensor<64xf32>, %[[N1B:[^:]*]]: tensor<64xf32>, %[[N2W:[^:]*]]: tensor<64xf32>, %[[N2B:[^:]*]]: tensor<64xf32>)
// CHECK:      attune.linear %[[X]], {{.*}} -> tensor<?x?x192xf32>
// CHECK:      attune.attention {{.*}} {causal}
// CHECK:      %[[SA:.*]] = attune.linear
// CHECK-NEXT: %[[R1:.*]] = attune.add %[[X]], %[[SA]]
// CHECK-NEXT: %[[X1:.*]] = attune.layer_norm %[[R1]] weight(%[[N1W]]) bias(%[[N1B]]) {epsilon = 9.9999999999999995E-7 : f64}
// CHECK-NEXT: %[[H:.*]] = attune.linear %[[X1]]
// CHECK-NEXT: attune.activation <relu> %[[H]]
// CHECK-NEXT: %[[FF:.*]] = attune.linear
// CHECK-NEXT: %[[R2:.*]] = attune.add %[[X1]], %[[FF]]
// CHECK-NEXT: %[[X2:.*]] = attune.layer_norm %[[R2]] weight(%[[N2W]]) bias(%[[N2B]])
// CHECK-NEXT: return %[[X2]]
func.func @encoder_post_norm(%x: tensor<?x?x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>,
                             %opw: tensor<64x64xf32>, %opb: tensor<64xf32>, %w1: tensor<128x64xf32>,
                             %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %b2: tensor<64xf32>,
                             %n1w: tensor<64xf32>, %n1b: tensor<64xf32>, %n2w: tensor<64xf32>,
                             %n2b: tensor<64xf32>) -> tensor<?x?x64xf32> {
  %0 = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %opb) linear1(%w1, %b1) linear2(%w2, %b2)
      norm1(%n1w, %n1b) norm2(%n2w, %n2b) {num_heads = 4 : i64, causal, epsilon = 1.0e-6 : f64}
      : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

// Pre-norm: x = x + sa(norm1(x)); x = x + ff(norm2(x)).
// CHECK-LABEL: func @encoder_pre_norm
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x64xf32>, {{.*}}, %[[LEN:[^:]*]]: tensor<?xi32>)
// CHECK:      %[[N1:.*]] = attune.layer_norm %[[X]]
// CHECK-NEXT: attune.linear %[[N1]]
// CHECK:      attune.attention {{.*}} key_lengths(%[[LEN]]) :
// CHECK:      %[[SA:.*]] = attune.linear
// CHECK-NEXT: %[[X1:.*]] = attune.add %[[X]], %[[SA]]
// CHECK-NEXT: %[[N2:.*]] = attune.layer_norm %[[X1]]
// CHECK-NEXT: %[[H:.*]] = attune.linear %[[N2]]
// CHECK-NEXT: attune.activation <gelu> %[[H]]
// CHECK-NEXT: %[[FF:.*]] = attune.linear
// CHECK-NEXT: %[[X2:.*]] = attune.add %[[X1]], %[[FF]]
// CHECK-NEXT: return %[[X2]]
func.func @encoder_pre_norm(%x: tensor<?x?x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>,
                            %opw: tensor<64x64xf32>, %v: tensor<64xf32>, %w1: tensor<128x64xf32>,
                            %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %len: tensor<?xi32>) -> tensor<?x?x64xf32> {
  %0 = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v) linear1(%w1, %b1) linear2(%w2, %v)
      norm1(%v, %v) norm2(%v, %v) key_lengths(%len)
      {num_heads = 4 : i64, norm_first, activation = #attune.activation<gelu>}
      : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<?xi32>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

// Decoder layer, post-norm: masked self-attention, cross-attention over the
// memory (with its padding lengths), feed-forward; three residual + norm.
// CHECK-LABEL: func @decoder_post_norm
// CHECK-SAME: (%[[T:[^:]*]]: tensor<?x?x64xf32>, %[[MEM:[^:]*]]: tensor<?x?x64xf32>, {{.*}}, %[[MLEN:[^:]*]]: tensor<?xi64>)
// CHECK:      attune.linear %[[T]], {{.*}} -> tensor<?x?x192xf32>
// CHECK:      attune.attention {{.*}} {causal}
// CHECK:      %[[SA:.*]] = attune.linear
// CHECK-NEXT: %[[R1:.*]] = attune.add %[[T]], %[[SA]]
// CHECK-NEXT: %[[X1:.*]] = attune.layer_norm %[[R1]]
// CHECK:      attune.linear %[[X1]]
// CHECK:      attune.linear %[[MEM]], {{.*}} -> tensor<?x?x128xf32>
// CHECK:      attune.attention {{.*}} key_lengths(%[[MLEN]]) :
// CHECK:      %[[CA:.*]] = attune.linear
// CHECK-NEXT: %[[R2:.*]] = attune.add %[[X1]], %[[CA]]
// CHECK-NEXT: %[[X2:.*]] = attune.layer_norm %[[R2]]
// CHECK-NEXT: attune.linear %[[X2]]
// CHECK-NEXT: attune.activation <relu>
// CHECK-NEXT: %[[FF:.*]] = attune.linear
// CHECK-NEXT: %[[R3:.*]] = attune.add %[[X2]], %[[FF]]
// CHECK-NEXT: %[[X3:.*]] = attune.layer_norm %[[R3]]
// CHECK-NEXT: return %[[X3]]
func.func @decoder_post_norm(%t: tensor<?x?x64xf32>, %m: tensor<?x?x64xf32>, %ipw: tensor<192x64xf32>,
                             %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>,
                             %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>,
                             %mlen: tensor<?xi64>) -> tensor<?x?x64xf32> {
  %0 = attune.decoder_layer %t, %m self_attn(%ipw, %ipb, %opw, %v) cross_attn(%ipw, %ipb, %opw, %v)
      linear1(%w1, %b1) linear2(%w2, %v) norm1(%v, %v) norm2(%v, %v) norm3(%v, %v)
      memory_key_lengths(%mlen) {num_heads = 4 : i64, causal}
      : (tensor<?x?x64xf32>, tensor<?x?x64xf32>,
         tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
         tensor<?xi64>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

// Decoder layer, pre-norm.
// CHECK-LABEL: func @decoder_pre_norm
// CHECK-SAME: (%[[T:[^:]*]]: tensor<?x?x64xf32>, %[[MEM:[^:]*]]: tensor<?x?x64xf32>
// CHECK:      %[[N1:.*]] = attune.layer_norm %[[T]]
// CHECK-NEXT: attune.linear %[[N1]]
// CHECK:      %[[X1:.*]] = attune.add %[[T]], %{{.*}}
// CHECK-NEXT: %[[N2:.*]] = attune.layer_norm %[[X1]]
// CHECK:      attune.linear %[[N2]]
// CHECK:      %[[X2:.*]] = attune.add %[[X1]], %{{.*}}
// CHECK-NEXT: %[[N3:.*]] = attune.layer_norm %[[X2]]
// CHECK-NEXT: attune.linear %[[N3]]
// CHECK:      %[[X3:.*]] = attune.add %[[X2]], %{{.*}}
// CHECK-NEXT: return %[[X3]]
func.func @decoder_pre_norm(%t: tensor<?x?x64xf32>, %m: tensor<?x?x64xf32>, %ipw: tensor<192x64xf32>,
                            %ipb: tensor<192xf32>, %opw: tensor<64x64xf32>, %v: tensor<64xf32>,
                            %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>) -> tensor<?x?x64xf32> {
  %0 = attune.decoder_layer %t, %m self_attn(%ipw, %ipb, %opw, %v) cross_attn(%ipw, %ipb, %opw, %v)
      linear1(%w1, %b1) linear2(%w2, %v) norm1(%v, %v) norm2(%v, %v) norm3(%v, %v) {num_heads = 4 : i64, norm_first}
      : (tensor<?x?x64xf32>, tensor<?x?x64xf32>,
         tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
      -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

// CHECK-LABEL: func @seq2seq_dot
// CHECK-SAME: (%[[S:[^:]*]]: tensor<?x1x48xf32>, %[[H:[^:]*]]: tensor<?x?x48xf32>, %[[LEN:[^:]*]]: tensor<?xi64>)
// CHECK-NEXT: %[[SC:.*]] = attune.matmul %[[S]], %[[H]] {transpose_rhs} : (tensor<?x1x48xf32>, tensor<?x?x48xf32>) -> tensor<?x1x?xf32>
// CHECK-NEXT: %[[M:.*]] = attune.mask %[[SC]] key_lengths(%[[LEN]])
// CHECK-NEXT: %[[W:.*]] = attune.softmax %[[M]] : tensor<?x1x?xf32>
// CHECK-NEXT: %[[C:.*]] = attune.matmul %[[W]], %[[H]] : (tensor<?x1x?xf32>, tensor<?x?x48xf32>) -> tensor<?x1x48xf32>
// CHECK-NEXT: return %[[C]]
func.func @seq2seq_dot(%s: tensor<?x1x48xf32>, %h: tensor<?x?x48xf32>, %len: tensor<?xi64>) -> tensor<?x1x48xf32> {
  %0 = attune.seq2seq_attention <dot> %s, %h, %h key_lengths(%len)
      : (tensor<?x1x48xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>, tensor<?xi64>) -> tensor<?x1x48xf32>
  return %0 : tensor<?x1x48xf32>
}

// -----

// CHECK-LABEL: func @seq2seq_general
// CHECK-SAME: (%[[S:[^:]*]]: tensor<?x1x32xf32>, %[[H:[^:]*]]: tensor<?x?x48xf32>, %[[W:[^:]*]]: tensor<32x48xf32>)
// CHECK-NEXT: %[[HW:.*]] = attune.linear %[[H]], %[[W]] : (tensor<?x?x48xf32>, tensor<32x48xf32>) -> tensor<?x?x32xf32>
// CHECK-NEXT: %[[SC:.*]] = attune.matmul %[[S]], %[[HW]] {transpose_rhs}
// CHECK-NOT:  attune.mask
// CHECK-NEXT: %[[P:.*]] = attune.softmax %[[SC]]
// CHECK-NEXT: %[[C:.*]] = attune.matmul %[[P]], %[[H]]
// CHECK-NEXT: return %[[C]]
func.func @seq2seq_general(%s: tensor<?x1x32xf32>, %h: tensor<?x?x48xf32>, %w: tensor<32x48xf32>) -> tensor<?x1x48xf32> {
  %0 = attune.seq2seq_attention <general> %s, %h, %h weights(%w)
      : (tensor<?x1x32xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>, tensor<32x48xf32>) -> tensor<?x1x48xf32>
  return %0 : tensor<?x1x48xf32>
}

// -----

// Bahdanau: v^T tanh(W1 s + b + W2 h), broadcast over [B, Lq, Lk, A].
// CHECK-LABEL: func @seq2seq_additive
// CHECK-SAME: (%[[S:[^:]*]]: tensor<?x1x32xf32>, %[[H:[^:]*]]: tensor<?x?x48xf32>, %[[W1:[^:]*]]: tensor<40x32xf32>, %[[W2:[^:]*]]: tensor<40x48xf32>, %[[V:[^:]*]]: tensor<1x40xf32>, %[[B:[^:]*]]: tensor<40xf32>)
// CHECK-NEXT: %[[PQ:.*]] = attune.linear %[[S]], %[[W1]], %[[B]] : {{.*}} -> tensor<?x1x40xf32>
// CHECK-NEXT: %[[PK:.*]] = attune.linear %[[H]], %[[W2]] : {{.*}} -> tensor<?x?x40xf32>
// CHECK-NEXT: %[[EQ:.*]] = attune.expand_dims %[[PQ]] {axis = 2 : i64} : (tensor<?x1x40xf32>) -> tensor<?x1x1x40xf32>
// CHECK-NEXT: %[[EK:.*]] = attune.expand_dims %[[PK]] {axis = 1 : i64} : (tensor<?x?x40xf32>) -> tensor<?x1x?x40xf32>
// CHECK-NEXT: %[[SUM:.*]] = attune.add %[[EQ]], %[[EK]] : {{.*}} -> tensor<?x1x?x40xf32>
// CHECK-NEXT: %[[E:.*]] = attune.activation <tanh> %[[SUM]]
// CHECK-NEXT: %[[SV:.*]] = attune.linear %[[E]], %[[V]] : {{.*}} -> tensor<?x1x?x1xf32>
// CHECK-NEXT: %[[SC:.*]] = attune.squeeze %[[SV]] {axis = -1 : i64} : (tensor<?x1x?x1xf32>) -> tensor<?x1x?xf32>
// CHECK-NEXT: %[[P:.*]] = attune.softmax %[[SC]]
// CHECK-NEXT: %[[C:.*]] = attune.matmul %[[P]], %[[H]]
// CHECK-NEXT: return %[[C]], %[[P]]
func.func @seq2seq_additive(%s: tensor<?x1x32xf32>, %h: tensor<?x?x48xf32>, %w1: tensor<40x32xf32>,
                            %w2: tensor<40x48xf32>, %v: tensor<1x40xf32>, %b: tensor<40xf32>)
    -> (tensor<?x1x48xf32>, tensor<?x1x?xf32>) {
  %0:2 = attune.seq2seq_attention <additive> %s, %h, %h weights(%w1, %w2, %v, %b) {return_weights}
      : (tensor<?x1x32xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>, tensor<40x32xf32>, tensor<40x48xf32>,
         tensor<1x40xf32>, tensor<40xf32>) -> (tensor<?x1x48xf32>, tensor<?x1x?xf32>)
  return %0#0, %0#1 : tensor<?x1x48xf32>, tensor<?x1x?xf32>
}

// -----

// CHECK-LABEL: func @seq2seq_location
// CHECK-SAME: (%[[S:[^:]*]]: tensor<2x1x32xf32>, %[[H:[^:]*]]: tensor<2x10x48xf32>, %[[W:[^:]*]]: tensor<10x32xf32>, %[[B:[^:]*]]: tensor<10xf32>)
// CHECK-NEXT: %[[SC:.*]] = attune.linear %[[S]], %[[W]], %[[B]] : {{.*}} -> tensor<2x1x10xf32>
// CHECK-NEXT: %[[P:.*]] = attune.softmax %[[SC]]
// CHECK-NEXT: %[[C:.*]] = attune.matmul %[[P]], %[[H]]
func.func @seq2seq_location(%s: tensor<2x1x32xf32>, %h: tensor<2x10x48xf32>, %w: tensor<10x32xf32>,
                            %b: tensor<10xf32>) -> tensor<2x1x48xf32> {
  %0 = attune.seq2seq_attention <location> %s, %h, %h weights(%w, %b)
      : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<10x32xf32>, tensor<10xf32>)
      -> tensor<2x1x48xf32>
  return %0 : tensor<2x1x48xf32>
}

// -----

// Negative case: primitive ops are left alone.
// CHECK-LABEL: func @primitives_untouched
// CHECK-NEXT: attune.linear
// CHECK-NEXT: attune.attention
// CHECK-NEXT: attune.lstm
// CHECK-NEXT: return
func.func @primitives_untouched(%x: tensor<2x5x16xf32>, %w: tensor<16x16xf32>, %q: tensor<2x4x5x8xf32>,
                                %ih: tensor<64x16xf32>, %hh: tensor<64x16xf32>)
    -> (tensor<2x5x16xf32>, tensor<2x4x5x8xf32>, tensor<2x5x16xf32>) {
  %0 = attune.linear %x, %w : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %1 = attune.attention %q, %q, %q : (tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
  %2:3 = attune.lstm %x weights(%ih, %hh) {hidden_size = 16 : i64, has_biases = false}
      : (tensor<2x5x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>)
      -> (tensor<2x5x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>)
  return %0, %1, %2#0 : tensor<2x5x16xf32>, tensor<2x4x5x8xf32>, tensor<2x5x16xf32>
}
