// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Pieces quantized to different types have no one type for the input: the Split stays float.
func.func @f(%x: tensor<1x4xf32>) -> (tensor<1x1x!quant.uniform<i8:f32, 0.5>>, tensor<1x3x!quant.uniform<i8:f32, 0.25>>) {
  %sizes = "onnx.Constant"() {value = dense<[1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a, %b = "onnx.Split"(%x, %sizes) {axis = 1 : i64} : (tensor<1x4xf32>, tensor<2xi64>) -> (tensor<1x1xf32>, tensor<1x3xf32>)
  %qa = quant.qcast %a : tensor<1x1xf32> to tensor<1x1x!quant.uniform<i8:f32, 0.5>>
  %qb = quant.qcast %b : tensor<1x3xf32> to tensor<1x3x!quant.uniform<i8:f32, 0.25>>
  func.return %qa, %qb : tensor<1x1x!quant.uniform<i8:f32, 0.5>>, tensor<1x3x!quant.uniform<i8:f32, 0.25>>
}
// CHECK:      %a, %b = "onnx.Split"(%x, %sizes)
// CHECK-NEXT: %qa = quant.qcast %a
// CHECK-NEXT: %qb = quant.qcast %b
