"""bitfold-quantize's calibration: batched observation of a float model's values
(`batched`), the progress line (`progress`)."""
