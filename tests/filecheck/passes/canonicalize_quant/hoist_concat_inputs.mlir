// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Two graph inputs joined, then quantized: each input is quantized and the stored integers
// are joined.
func.func @f(%a: tensor<1x2xf32>, %b: tensor<1x3xf32>) -> tensor<1x5x!quant.uniform<u8:f32, 0.5:128>> {
  %c = "onnx.Concat"(%a, %b) {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x3xf32>) -> tensor<1x5xf32>
  %q = quant.qcast %c : tensor<1x5xf32> to tensor<1x5x!quant.uniform<u8:f32, 0.5:128>>
  func.return %q : tensor<1x5x!quant.uniform<u8:f32, 0.5:128>>
}
// CHECK:      %[[A:.*]] = quant.qcast %a : tensor<1x2xf32> to tensor<1x2x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %[[B:.*]] = quant.qcast %b : tensor<1x3xf32> to tensor<1x3x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %[[M:.*]] = "onnx.Concat"(%[[A]], %[[B]]) {axis = 1 : i64} : (tensor<1x2x!quant.uniform<u8:f32, 5.000000e-01:128>>, tensor<1x3x!quant.uniform<u8:f32, 5.000000e-01:128>>) -> tensor<1x5x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: func.return %[[M]]
