// RUN: bitfold-opt %s -p 'calibrated-to-uniform{layer-weight-bits=2,1}' | filecheck %s

// layer-weight-bits gives each MatMul/Conv/Gemm with a constant weight its own width, in program
// order. The first weight is ternary (2 bits, i2<-1:1>) with the least-squares scale: of
// s = a max|w|, a in 0.30..1.00, a = 0.75 gives [[1, -1], [0, 1]] x 0.75, squared error 0.1875
// (s = 1 would round 0.5 to 0 and 0.25 to 0: 0.375). The second is bipolar, s = mean|w| = 0.46875.

builtin.module attributes {onnx.opset = 13 : i64} {
  func.func @g(%x: tensor<1x2xf32> {onnx.name = "x"}) -> (tensor<1x2xf32> {onnx.name = "y"}) {
    %0 = quant.qcast %x : tensor<1x2xf32> to tensor<1x2x!quant.calibrated<f32<-2.000000e+00:3.000000e+00>>>
    %x_1 = quant.dcast %0 : tensor<1x2x!quant.calibrated<f32<-2.000000e+00:3.000000e+00>>> to tensor<1x2xf32>
    %w1 = "onnx.Constant"() {value = dense<[[5.000000e-01, -1.000000e+00], [2.500000e-01, 7.500000e-01]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
    %w2 = "onnx.Constant"() {value = dense<[[1.000000e+00, -5.000000e-01], [1.250000e-01, 2.500000e-01]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
    %h = "onnx.MatMul"(%x_1, %w1) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %1 = quant.qcast %h : tensor<1x2xf32> to tensor<1x2x!quant.calibrated<f32<-2.500000e+00:1.750000e+00>>>
    %h_1 = quant.dcast %1 : tensor<1x2x!quant.calibrated<f32<-2.500000e+00:1.750000e+00>>> to tensor<1x2xf32>
    %y = "onnx.MatMul"(%h_1, %w2) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %2 = quant.qcast %y : tensor<1x2xf32> to tensor<1x2x!quant.calibrated<f32<-6.250000e-01:1.218750e+00>>>
    %y_1 = quant.dcast %2 : tensor<1x2x!quant.calibrated<f32<-6.250000e-01:1.218750e+00>>> to tensor<1x2xf32>
    func.return %y_1 : tensor<1x2xf32>
  }
}

// CHECK:      %[[T:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}1, -1], [0, 1]]> : tensor<2x2xi2>}
// CHECK-NEXT: %[[TS:.*]] = quant.scast %[[T]] : tensor<2x2xi2> to tensor<2x2x!quant.uniform<i2<-1:1>:f32, 7.500000e-01>>
// CHECK-NEXT: %[[TD:.*]] = quant.dcast %[[TS]]
// CHECK-NEXT: %h = "onnx.MatMul"(%x_1, %[[TD]])
// CHECK:      %[[B:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}true, false], [true, true]]> : tensor<2x2xi1>}
// CHECK-NEXT: %[[BS:.*]] = quant.scast %[[B]] : tensor<2x2xi1> to tensor<2x2x!quant.bipolar<f32, 4.687500e-01>>
// CHECK-NEXT: %[[BD:.*]] = quant.dcast %[[BS]]
// CHECK-NEXT: %y = "onnx.MatMul"(%h_1, %[[BD]])
