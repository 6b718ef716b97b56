"""bitfold-quantize's calibration (docs/calibration.md): the model run on chunks of samples
(`batched`, `observe`), the progress line (`progress`), BatchNormalization folding
(`batch_norm_folding`), cross-layer equalization (`equalization`) and bias correction
(`bias_correction`) of the float model's constants (`constants`), and data-free calibration from
BatchNormalization statistics (`data_free`, `activation_statistics`)."""
