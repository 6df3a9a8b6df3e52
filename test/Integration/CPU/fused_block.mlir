// torch.module: nn.ModuleDict({"q": nn.Linear(32, 32), "k": nn.Linear(32, 32, bias=False), "v": nn.Linear(32, 32), "o": nn.Linear(32, 32), "ln": nn.LayerNorm(32), "fc": nn.Linear(32, 64, bias=False), "b": nn.Linear(1, 64)})
// torch.inputs: x=f32[2,7,32]
// torch.inputs: x=f32[1,33,32]
// torch.inputs: x=f32[1,1,32]
// torch.call: (lambda q, k, v: torch.nn.functional.gelu(module["fc"](module["ln"](x + module["o"]((torch.softmax(q @ k.transpose(-1, -2) * 0.35355339059327373, -1) @ v).transpose(1, 2).reshape(x.shape)))) + module["b"].bias))(*(module[n](x).view(x.shape[0], x.shape[1], 4, 8).transpose(1, 2) for n in ("q", "k", "v")))
//
// A block written the way imported models write it, op by op: separate
// Q / K / V projections of one input (K without a bias), attention as
// matmul -> scale -> softmax -> matmul, a residual add before the norm, and a
// linear whose bias and GELU come as separate ops. The pipeline packs the
// three projections into one GEMM, raises the attention, folds the residual
// into the norm and the bias and GELU into the last linear's epilogue ...
// RUN: attune-compile %s --weights %golden/fused_block/weights.safetensors --emit=attune --explain-fusion 2>&1 | FileCheck %s
// CHECK-DAG: remark: packed 3 projections of one input into one GEMM (96 output features)
// CHECK-DAG: remark: fused matmul -> scale -> softmax -> matmul into attune.attention
// CHECK-DAG: remark: fused the residual add into attune.layer_norm
// CHECK-DAG: remark: fused the bias add into attune.linear
// CHECK-DAG: remark: fused the gelu activation into attune.linear as its epilogue
// CHECK:     attune.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<?x?x96xf32>
// CHECK:     attune.attention
// CHECK:     attune.layer_norm %{{.*}} residual(%{{.*}}) weight
// CHECK:     attune.linear %{{.*}}, %{{.*}}, %{{.*}} {activation = #attune.activation<gelu>}
// CHECK-NOT: attune.add
// ... and the result is PyTorch's (dynamic batch and length, L = 1, L not a
// multiple of the vector width).
// RUN: %check-golden %s --work %t --atol 5e-6

func.func @forward(%x: tensor<?x?x32xf32> {attune.name = "x"}) -> tensor<?x?x64xf32> {
  %wq = attune.weight "q.weight" : tensor<32x32xf32>
  %bq = attune.weight "q.bias" : tensor<32xf32>
  %wk = attune.weight "k.weight" : tensor<32x32xf32>
  %wv = attune.weight "v.weight" : tensor<32x32xf32>
  %bv = attune.weight "v.bias" : tensor<32xf32>
  %wo = attune.weight "o.weight" : tensor<32x32xf32>
  %bo = attune.weight "o.bias" : tensor<32xf32>
  %g = attune.weight "ln.weight" : tensor<32xf32>
  %beta = attune.weight "ln.bias" : tensor<32xf32>
  %wf = attune.weight "fc.weight" : tensor<64x32xf32>
  %bf = attune.weight "b.bias" : tensor<64xf32>
  %q = attune.linear %x, %wq, %bq : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %k = attune.linear %x, %wk : (tensor<?x?x32xf32>, tensor<32x32xf32>) -> tensor<?x?x32xf32>
  %v = attune.linear %x, %wv, %bv : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %qh = attune.split_heads %q {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
  %s = attune.matmul %qh, %kh {transpose_rhs} : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x?xf32>
  %t = attune.scale %s {factor = 0.35355339059327373 : f64} : tensor<?x4x?x?xf32>
  %p = attune.softmax %t : tensor<?x4x?x?xf32>
  %a = attune.matmul %p, %vh : (tensor<?x4x?x?xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  %m = attune.merge_heads %a : (tensor<?x4x?x8xf32>) -> tensor<?x?x32xf32>
  %o = attune.linear %m, %wo, %bo : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %r = attune.add %x, %o : (tensor<?x?x32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  %n = attune.layer_norm %r weight(%g) bias(%beta) : (tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %f = attune.linear %n, %wf : (tensor<?x?x32xf32>, tensor<64x32xf32>) -> tensor<?x?x64xf32>
  %fb = attune.add %f, %bf : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %y = attune.activation <gelu> %fb : tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}
