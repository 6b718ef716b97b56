"""Quant-level rewrites of the canonical quant form: where a value's quantization is
(`casts`), and the patterns that move it through data-movement ops (`sink_dequantize`)."""
