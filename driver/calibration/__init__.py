"""bitfold-quantize's calibration (docs/calibration.md): the model run on chunks of samples
(`batched`, `observe`), the progress line (`progress`), BatchNormalization folding
(`batch_norm_folding`), cross-layer equalization (`equalization`) and bias correction
(`bias_correction`) of the float model's constants (`constants`), data-free calibration from
BatchNormalization statistics (`data_free`, `activation_statistics`), and mixed precision:
per-layer weight widths for a budget (`mixed_precision`, its knapsack `width_selection`)."""
