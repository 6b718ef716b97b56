// RUN: bitfold-opt %s -p 'calibrated-to-uniform{symmetric=true power_of_two=true}' | filecheck %s

// A calibration point observed in [-1, 2] becomes the narrow signed 8-bit type of the symmetric
// power-of-two scheme: s = 2^ceil(log2(max(|-1|, |2|) / 127)) = 2^ceil(-5.99) = 2^-5 = 0.03125,
// zero point 0, storage [-127, 127] (passes/calibration/schemes.py).

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.calibrated<f32<-1.0:2.0>>>
  %d = quant.dcast %q : tensor<4x!quant.calibrated<f32<-1.0:2.0>>> to tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// CHECK:      %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8<-127:127>:f32, 3.125000e-02>>
// CHECK-NEXT: %d = quant.dcast %q : tensor<4x!quant.uniform<i8<-127:127>:f32, 3.125000e-02>> to tensor<4xf32>
