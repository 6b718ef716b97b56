"""The `quant.type` entry of a function's argument and result attribute dictionaries: the
quantized type T whose signless storage integers the argument or result holds, written as T's
text (`quant.type = "!quant.uniform<i8:f32, 0.5>"`, which later passes leave alone). `integer-io`
records it; the kernel ABI (`backends/kernel`: ports, the C header, sub-byte outputs) reads it."""

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, StringAttr
from xdsl.parser import Parser

from bitfold.dialects.quant import Quant, QuantizedType

QUANT_TYPE = "quant.type"


def recorded_quant_type(entry: DictionaryAttr) -> QuantizedType | None:
    """The quantized type an argument or result attribute dictionary records under `quant.type`."""
    text = entry.data.get(QUANT_TYPE)
    if not isinstance(text, StringAttr):
        return None
    ctx = Context()
    ctx.load_dialect(Quant)
    qtype = Parser(ctx, text.data).parse_attribute()
    assert isinstance(qtype, QuantizedType)
    return qtype
