"""Libraries the passes share (none of them a pass): building `linalg.generic`s
(`linalg_building`), a quantized type's parameter tables inside one (`parameter_tables`), the
quant casts around a value (`quant_casts`), requantization multipliers (`requantization`),
observing values as extra results (`observed_values`) and how a pass stops (`pass_failure`).
A pass imports these, never another pass's package."""
