// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Concat inputs dequantized from different types cannot be joined as integers: kept.
func.func @f(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>, %b: tensor<2x!quant.uniform<i8:f32, 0.2>>) -> tensor<4xf32> {
  %ad = quant.dcast %a : tensor<2x!quant.uniform<i8:f32, 0.1>> to tensor<2xf32>
  %bd = quant.dcast %b : tensor<2x!quant.uniform<i8:f32, 0.2>> to tensor<2xf32>
  %c = "onnx.Concat"(%ad, %bd) {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
// CHECK:      %ad = quant.dcast %a
// CHECK-NEXT: %bd = quant.dcast %b
// CHECK-NEXT: %c = "onnx.Concat"(%ad, %bd) {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
