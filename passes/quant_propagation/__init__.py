"""Quant-level rewrites of the canonical quant form: the patterns that move quantization through
data-movement ops (`sink_dequantize`, `hoist_quantize`) and fold moved constants
(`fold_moved_constants`); where a value's quantization is: `passes.utils.quant_casts`."""
