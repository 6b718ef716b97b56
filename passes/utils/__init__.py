"""Libraries the passes share (none of them a pass): building `linalg.generic`s
(`linalg_building`), a quantized type's parameter tables inside one (`parameter_tables`), the
quant casts around a value (`quant_casts`), requantization multipliers (`requantization`),
observing values as extra results (`observed_values`), how a pass stops (`pass_failure`), canonical
storage types (`canonical_storage`), padding a window's input (`padding`) and erasing the ONNX ops
rewrites orphan (`onnx_cleanup`).
A pass imports these, never another pass's package."""
