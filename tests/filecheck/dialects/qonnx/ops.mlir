// RUN: bitfold-opt %s | bitfold-opt | filecheck %s

// The qonnx ops in generic syntax, one per QONNX node, every attribute present.

func.func @quant(%x: tensor<2x3xf32>, %scale: tensor<2x1xf32>, %zeropt: tensor<f32>, %bits: tensor<f32>) -> tensor<2x3xf32> {
  %y = "qonnx.Quant"(%x, %scale, %zeropt, %bits) {signed = 1 : i64, narrow = 0 : i64, rounding_mode = "HALF_UP"} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @quant
// CHECK-NEXT:    %y = "qonnx.Quant"(%x, %scale, %zeropt, %bits) {signed = 1 : i64, narrow = 0 : i64, rounding_mode = "HALF_UP"} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>

func.func @bipolar_quant(%x: tensor<4xf32>, %scale: tensor<f32>) -> tensor<4xf32> {
  %y = "qonnx.BipolarQuant"(%x, %scale) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @bipolar_quant
// CHECK-NEXT:    %y = "qonnx.BipolarQuant"(%x, %scale) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>

func.func @trunc_v1(%x: tensor<4xf32>, %scale: tensor<f32>, %zeropt: tensor<f32>, %in_bits: tensor<f32>, %out_bits: tensor<f32>) -> tensor<4xf32> {
  %y = "qonnx.Trunc_v1"(%x, %scale, %zeropt, %in_bits, %out_bits) {rounding_mode = "FLOOR"} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @trunc_v1
// CHECK-NEXT:    %y = "qonnx.Trunc_v1"(%x, %scale, %zeropt, %in_bits, %out_bits) {rounding_mode = "FLOOR"} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>

func.func @trunc(%x: tensor<4xf32>, %scale: tensor<f32>, %zeropt: tensor<f32>, %in_bits: tensor<f32>, %out_scale: tensor<f32>, %out_bits: tensor<f32>) -> tensor<4xf32> {
  %y = "qonnx.Trunc"(%x, %scale, %zeropt, %in_bits, %out_scale, %out_bits) {rounding_mode = "ROUND", narrow = 1 : i64, signed = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @trunc
// CHECK-NEXT:    %y = "qonnx.Trunc"(%x, %scale, %zeropt, %in_bits, %out_scale, %out_bits) {rounding_mode = "ROUND", narrow = 1 : i64, signed = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
