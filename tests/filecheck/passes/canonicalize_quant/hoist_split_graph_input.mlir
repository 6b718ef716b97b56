// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A graph input split into pieces that are each quantized to one type: the input is
// quantized once and the stored integers are split.
func.func @f(%x: tensor<1x4xf32>) -> (tensor<1x1x!quant.uniform<i8:f32, 0.5>>, tensor<1x3x!quant.uniform<i8:f32, 0.5>>) {
  %sizes = "onnx.Constant"() {value = dense<[1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a, %b = "onnx.Split"(%x, %sizes) {axis = 1 : i64} : (tensor<1x4xf32>, tensor<2xi64>) -> (tensor<1x1xf32>, tensor<1x3xf32>)
  %qa = quant.qcast %a : tensor<1x1xf32> to tensor<1x1x!quant.uniform<i8:f32, 0.5>>
  %qb = quant.qcast %b : tensor<1x3xf32> to tensor<1x3x!quant.uniform<i8:f32, 0.5>>
  func.return %qa, %qb : tensor<1x1x!quant.uniform<i8:f32, 0.5>>, tensor<1x3x!quant.uniform<i8:f32, 0.5>>
}
// CHECK:      %[[Q:.*]] = quant.qcast %x : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT: %a, %b = "onnx.Split"(%[[Q]], %sizes) {axis = 1 : i64} : (tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<2xi64>) -> (tensor<1x1x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<1x3x!quant.uniform<i8:f32, 5.000000e-01>>)
// CHECK-NEXT: func.return %a, %b
