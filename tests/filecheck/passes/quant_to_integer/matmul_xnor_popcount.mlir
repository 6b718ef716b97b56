// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Bipolar x bipolar MatMul (1x36) @ (36x2) as XNOR-popcount. K = 36 channels fill two i32
// words, channel 32 u + j at bit 31 - j, channels 36..63 zero in both operands. Weight column 0
// is all +1: words 0xFFFFFFFF = -1 and 0xF0000000 = -268435456; column 1 alternates +1, -1:
// 0xAAAAAAAA = -1431655766 and 0xA0000000 = -1610612736 (channel first: (2, 2)).
// x is padded to 64 bits (onnx.Pad with 0), packed by a generic reducing 32 bits into a word
// (shift table 31..0), then count = sum_u ctpop(x ^ w) and acc = 36 - 2 * count at scale
// 0.5 * 0.25; |acc| <= 36.

func.func @xnor(%a: tensor<1x36xf32>) -> tensor<1x2xf32> {
  %aq = quant.qcast %a : tensor<1x36xf32> to tensor<1x36x!quant.bipolar<f32, 0.5>>
  %af = quant.dcast %aq : tensor<1x36x!quant.bipolar<f32, 0.5>> to tensor<1x36xf32>
  %c = "onnx.Constant"() {value = dense<[[true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true], [true, false]]> : tensor<36x2xi1>} : () -> tensor<36x2xi1>
  %bq = quant.scast %c : tensor<36x2xi1> to tensor<36x2x!quant.bipolar<f32, 0.25>>
  %b = quant.dcast %bq : tensor<36x2x!quant.bipolar<f32, 0.25>> to tensor<36x2xf32>
  %y = "onnx.MatMul"(%af, %b) : (tensor<1x36xf32>, tensor<36x2xf32>) -> tensor<1x2xf32> loc("xnor")
  %yq = quant.qcast %y : tensor<1x2xf32> to tensor<1x2x!quant.uniform<i8:f32, 0.125>>
  %yf = quant.dcast %yq : tensor<1x2x!quant.uniform<i8:f32, 0.125>> to tensor<1x2xf32>
  func.return %yf : tensor<1x2xf32>
}

// CHECK:      %[[BITS:.*]] = quant.scast %aq : tensor<1x36x!quant.bipolar<f32, 5.000000e-01>> to tensor<1x36xi1>
// CHECK-NEXT: %[[PADS:.*]] = arith.constant dense<[0, 0, 0, 28]> : tensor<4xi64>
// CHECK-NEXT: %[[FALSE:.*]] = arith.constant dense<false> : tensor<i1>
// CHECK-NEXT: %[[X64:.*]] = "onnx.Pad"(%[[BITS]], %[[PADS]], %[[FALSE]]) {{.*}} -> tensor<1x64xi1>
// CHECK-NEXT: %[[SHIFTS:.*]] = arith.constant dense<[31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]> : tensor<32xi32>
// CHECK:      %[[WORDS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, ((d1 * 32) + d2))>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X64]], %[[SHIFTS]] : tensor<1x64xi1>, tensor<32xi32>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: i1, %[[S:.*]]: i32, %[[W:.*]]: i32):
// CHECK-NEXT:   %[[E:.*]] = arith.extui %[[B]] : i1 to i32
// CHECK-NEXT:   %[[SH:.*]] = arith.shli %[[E]], %[[S]] : i32
// CHECK-NEXT:   %[[OR:.*]] = arith.ori %[[W]], %[[SH]] : i32
// CHECK-NEXT:   linalg.yield %[[OR]] : i32
// CHECK:      %[[WEIGHTS:.*]] = arith.constant dense<{{\[\[}}-1, -268435456], [-1431655766, -1610612736]]> : tensor<2x2xi32>
// CHECK:      %[[COUNT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[WORDS]], %[[WEIGHTS]] : tensor<1x2xi32>, tensor<2x2xi32>)
// CHECK-NEXT: ^bb0(%[[XW:.*]]: i32, %[[WW:.*]]: i32, %[[C:.*]]: i32):
// CHECK-NEXT:   %[[DIFF:.*]] = arith.xori %[[XW]], %[[WW]] : i32
// CHECK-NEXT:   %[[POP:.*]] = math.ctpop %[[DIFF]] : i32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addi %[[C]], %[[POP]] : i32
// CHECK-NEXT:   linalg.yield %[[SUM]] : i32
// CHECK:      %[[INIT:.*]] = arith.constant dense<36> : tensor<2xi8>
// CHECK:      %[[DOT:.*]] = linalg.generic {{.*}} ins(%[[COUNT]], %[[INIT]] : tensor<1x2xi32>, tensor<2xi8>)
// CHECK:        %[[TWICE:.*]] = arith.shli
// CHECK-NEXT:   %[[D:.*]] = arith.subi %{{.*}}, %[[TWICE]] : i32
// CHECK:      %[[Q:.*]] = quant.scast %[[DOT]] : tensor<1x2xi32> to tensor<1x2x!quant.uniform<i32<-36:36>:f32, 1.250000e-01>>
// CHECK-NEXT: %yq = quant.requant %[[Q]]
