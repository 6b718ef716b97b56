// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Strides 2 and dilations 2 on a 7x7 input, 2x2 kernel, no pads: output o reads
// x[o * 2 + k * 2]; out = (7 - 2 * (2 - 1) - 1) / 2 + 1 = 3 and the last window reads index
// 2 * 2 + 1 * 2 = 6, inside the input, so no onnx.Pad: the contraction reads x itself. zp_x = 0: the init is all 0 and x is
// read with extsi (i8). |acc| <= 128 * (1 + 2 + 3 + 4) = 1280 at S = 0.5 * 0.25.

func.func @strided_dilated(%x: tensor<1x1x7x7xf32>) -> tensor<1x1x3x3xf32> {
  %xq = quant.qcast %x : tensor<1x1x7x7xf32> to tensor<1x1x7x7x!quant.uniform<i8:f32, 0.5>>
  %xf = quant.dcast %xq : tensor<1x1x7x7x!quant.uniform<i8:f32, 0.5>> to tensor<1x1x7x7xf32>
  %c = "onnx.Constant"() {value = dense<[[[[1, -2], [3, -4]]]]> : tensor<1x1x2x2xi8>} : () -> tensor<1x1x2x2xi8>
  %wq = quant.scast %c : tensor<1x1x2x2xi8> to tensor<1x1x2x2x!quant.uniform<i8:f32, 0.25>>
  %w = quant.dcast %wq : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.25>> to tensor<1x1x2x2xf32>
  %y = "onnx.Conv"(%xf, %w) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 2, 2>, dilations = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x7x7xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32> loc("sd")
  %yq = quant.qcast %y : tensor<1x1x3x3xf32> to tensor<1x1x3x3x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<1x1x3x3x!quant.uniform<i8:f32, 0.5>> to tensor<1x1x3x3xf32>
  func.return %yf : tensor<1x1x3x3xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<1x1x7x7x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<1x1x7x7xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1, -2], [3, -4]]]]> : tensor<1x1x2x2xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<0> : tensor<1xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x1x3x3xi32>
// CHECK-NEXT: %[[FILLED:.*]] = linalg.generic {{.*}} ins(%[[INIT]] : tensor<1xi32>) outs(%[[E]] : tensor<1x1x3x3xi32>) {
// CHECK:      %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, ((d2 * 2) + (d5 * 2)), ((d3 * 2) + (d6 * 2)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[W]] : tensor<1x1x7x7xi8>, tensor<1x1x2x2xi8>) outs(%[[FILLED]] : tensor<1x1x3x3xi32>) {
// CHECK-NEXT: ^bb0(%[[XV:.*]]: i8, %[[WV:.*]]: i8, %[[OUT:.*]]: i32):
// CHECK-NEXT:   %[[XE:.*]] = arith.extsi %[[XV]] : i8 to i32
// CHECK-NEXT:   %[[WE:.*]] = arith.extsi %[[WV]] : i8 to i32
// CHECK:      } -> tensor<1x1x3x3xi32>
// CHECK-NEXT: %[[ACCQ:.*]] = quant.scast %[[ACC]] : tensor<1x1x3x3xi32> to tensor<1x1x3x3x!quant.uniform<i32<-1280:1280>:f32, 1.250000e-01>>
// CHECK-NEXT: %yq = quant.requant %[[ACCQ]] : tensor<1x1x3x3x!quant.uniform<i32<-1280:1280>:f32, 1.250000e-01>> to tensor<1x1x3x3x!quant.uniform<i8:f32, 5.000000e-01>>
