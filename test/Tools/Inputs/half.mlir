// f16 and bf16 tensors in and out: softmax in f16 (it computes in f32),
// bf16 -> f32 and f32 -> bf16 casts.
func.func @forward(%x: tensor<2x8xf16> {attune.name = "x"}, %y: tensor<2x8xbf16> {attune.name = "y"},
                   %z: tensor<2x8xf32> {attune.name = "z"})
    -> (tensor<2x8xf16>, tensor<2x8xf32>, tensor<2x8xbf16>) {
  %0 = attune.softmax %x : tensor<2x8xf16>
  %1 = attune.cast %y : tensor<2x8xbf16> to tensor<2x8xf32>
  %2 = attune.cast %z : tensor<2x8xf32> to tensor<2x8xbf16>
  return %0, %1, %2 : tensor<2x8xf16>, tensor<2x8xf32>, tensor<2x8xbf16>
}
