// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// MaxPool 2x2, stride 2, pads 1 on quantized values (the dcast is sunk below it first): the
// window maximum of the storage integers, compared signed (i8), padded with the storage
// minimum -128 (never a maximum: every window has a tap inside). 4x4 + pads -> 6x6, out 3x3.

func.func @maxpool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %xq = quant.qcast %x : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5:3>>
  %xf = quant.dcast %xq : tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5:3>> to tensor<1x1x4x4xf32>
  %y = "onnx.MaxPool"(%xf) <{resultSegmentSizes = array<i32: 1, 0>}> {storage_order = 0 : i64, auto_pad = "NOTSET", ceil_mode = 0 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> loc("pool")
  func.return %y : tensor<1x1x3x3xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<1x1x4x4x!quant.uniform<i8:f32, 5.000000e-01:3>> to tensor<1x1x4x4xi8>
// CHECK-NEXT: %[[PADS:.*]] = arith.constant dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>
// CHECK-NEXT: %[[FILL:.*]] = arith.constant dense<-128> : tensor<i8>
// CHECK-NEXT: %[[XP:.*]] = "onnx.Pad"(%[[X]], %[[PADS]], %[[FILL]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x1x4x4xi8>, tensor<8xi64>, tensor<i8>) -> tensor<1x1x6x6xi8>
// CHECK-NEXT: %[[LOW:.*]] = arith.constant dense<-128> : tensor<i8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x1x3x3xi8>
// CHECK-NEXT: %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[LOW]] : tensor<i8>) outs(%[[E]] : tensor<1x1x3x3xi8>) {
// CHECK:      %[[WINDOW:.*]] = tensor.empty() : tensor<2x2xi8>
// CHECK-NEXT: %[[M:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[XP]], %[[WINDOW]] : tensor<1x1x6x6xi8>, tensor<2x2xi8>) outs(%[[INIT]] : tensor<1x1x3x3xi8>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %{{.*}}: i8, %[[OUT:.*]]: i8):
// CHECK-NEXT:   %[[MAX:.*]] = arith.maxsi %[[OUT]], %[[V]] : i8
// CHECK-NEXT:   linalg.yield %[[MAX]] : i8
// CHECK-NEXT: } -> tensor<1x1x3x3xi8>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[M]] : tensor<1x1x3x3xi8> to tensor<1x1x3x3x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK-NEXT: %[[Y:.*]] = quant.dcast %[[Q]] : tensor<1x1x3x3x!quant.uniform<i8:f32, 5.000000e-01:3>> to tensor<1x1x3x3xf32>
// CHECK-NEXT: func.return %[[Y]] : tensor<1x1x3x3xf32>
