// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Split of a dequantized tensor (ShuffleNet's channel split) runs on the stored integers;
// each piece is dequantized for its readers.
func.func @f(%x: tensor<1x4x2xf32>) -> (tensor<1x1x2xf32>, tensor<1x3x2xf32>) {
  %sizes = "onnx.Constant"() {value = dense<[1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %q = quant.qcast %x : tensor<1x4x2xf32> to tensor<1x4x2x!quant.uniform<u8:f32, 0.5:128>>
  %d = quant.dcast %q : tensor<1x4x2x!quant.uniform<u8:f32, 0.5:128>> to tensor<1x4x2xf32>
  %a, %b = "onnx.Split"(%d, %sizes) {axis = 1 : i64} : (tensor<1x4x2xf32>, tensor<2xi64>) -> (tensor<1x1x2xf32>, tensor<1x3x2xf32>)
  func.return %a, %b : tensor<1x1x2xf32>, tensor<1x3x2xf32>
}
// CHECK:      %q = quant.qcast %x
// CHECK-NEXT: %a, %b = "onnx.Split"(%q, %sizes) {axis = 1 : i64} : (tensor<1x4x2x!quant.uniform<u8:f32, 5.000000e-01:128>>, tensor<2xi64>) -> (tensor<1x1x2x!quant.uniform<u8:f32, 5.000000e-01:128>>, tensor<1x3x2x!quant.uniform<u8:f32, 5.000000e-01:128>>)
// CHECK-NEXT: %{{.*}} = quant.dcast %a
// CHECK-NEXT: %{{.*}} = quant.dcast %b
