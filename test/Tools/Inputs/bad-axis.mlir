func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = attune.softmax %x {axis = 3 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
