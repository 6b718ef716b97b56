// RUN: bitfold-opt %S/Inputs/attention_shapes.onnx | filecheck %s

// PyTorch's attention shape subgraph on a static input (Inputs/make_inputs.py,
// tests/models/shape_computations.py): Shape -> Gather -> Unsqueeze -> Concat -> Reshape,
// Shape -> Slice -> Cast -> Sqrt -> Div and ConstantOfShape -> Mul -> Equal -> Where -> Expand
// fold at import into the constants they compute; only the ops on the data are left.

// CHECK:      func.func @attention_shapes(%x: tensor<2x8x16xf32> {onnx.name = "x"}) -> (tensor<2x8x16xf32> {onnx.name = "y"}) {
// CHECK-NEXT:   %bias = "onnx.Constant"()
// CHECK-NEXT:   %expand_shape = "onnx.Constant"() {value = dense<[2, 4, 8, 4]> : tensor<4xi64>}
// CHECK-NEXT:   %merge_shape = "onnx.Constant"() {value = dense<[2, 8, -1]> : tensor<3xi64>}
// CHECK-NEXT:   %scale = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<1xf32>}
// CHECK-NEXT:   %split_shape = "onnx.Constant"() {value = dense<[2, 8, 4, 4]> : tensor<4xi64>}
// CHECK-NEXT:   %split = "onnx.Reshape"(%x, %split_shape)
// CHECK-NEXT:   %heads_first = "onnx.Transpose"(%split)
// CHECK-NEXT:   %scaled = "onnx.Mul"(%heads_first, %scale)
// CHECK-NEXT:   %bias_heads = "onnx.Expand"(%bias, %expand_shape)
// CHECK-NEXT:   %biased = "onnx.Add"(%scaled, %bias_heads)
// CHECK-NEXT:   %sequence_first = "onnx.Transpose"(%biased)
// CHECK-NEXT:   %y = "onnx.Reshape"(%sequence_first, %merge_shape)
// CHECK-NEXT:   func.return %y : tensor<2x8x16xf32>
