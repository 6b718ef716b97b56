"""Calibration: from a float model and sample data to the canonical quant form.

    points.py                 where a float model is quantized; `!quant.calibrated` annotations
    statistics.py             ranges from observed values (minmax, percentile, mse)
    schemes.py                uniform types from ranges and weights (bits, symmetric, power of two)
    calibrated_to_uniform.py  the pass `calibrated-to-uniform`

The driver `bitfold.quantize` runs them with bitfold's interpreter (bitfold-quantize)."""
