// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Relu of a bipolar value (-0.5 or +0.5 by bit b): relu(0.5 (2b - 1)) = 0.5 b, the same bit read
// as !quant.uniform<u1:f32, 0.5>; no arithmetic at all.

func.func @relu_bipolar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.bipolar<f32, 0.5>>
  %xf = quant.dcast %xq : tensor<4x!quant.bipolar<f32, 0.5>> to tensor<4xf32>
  %y = "onnx.Relu"(%xf) : (tensor<4xf32>) -> tensor<4xf32> loc("relu")
  func.return %y : tensor<4xf32>
}

// CHECK:      %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.bipolar<f32, 5.000000e-01>>
// CHECK-NEXT: %[[B:.*]] = quant.scast %xq : tensor<4x!quant.bipolar<f32, 5.000000e-01>> to tensor<4xi1>
// CHECK-NEXT: %[[U:.*]] = quant.scast %[[B]] : tensor<4xi1> to tensor<4x!quant.uniform<u1:f32, 5.000000e-01>>
// CHECK-NEXT: %y = quant.dcast %[[U]] : tensor<4x!quant.uniform<u1:f32, 5.000000e-01>> to tensor<4xf32>
// CHECK-NEXT: func.return %y : tensor<4xf32>
