"""Each ONNX form writes the canonical quant form so that the exported model, run by the
form's oracle (onnxruntime for QDQ, QCDQ, QOp; qonnx's executor for QONNX), computes what
the IR computes, and refuses what it cannot express with one line naming the node and the
form that can.

What the IR computes is `bitfold.run`'s: its quant ops are checked bit for bit against onnx's
reference QuantizeLinear / DequantizeLinear and qonnx's `int_quant` in
`tests/dialects/test_quant_semantics.py`, so it stands for those oracles here. Where several
forms hold the same IR, their models must also agree with one another under their own
oracles, with no bitfold numbers involved (`test_forms_agree_under_their_own_oracles`)."""


import numpy as np
import onnx
import pytest
from models.runners import run_onnxruntime, run_qonnx
from xdsl.parser import Parser

import bitfold
from bitfold.backends.onnx import ExportError, export_model
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.load import full_context

ORACLES = {QdqForm: run_onnxruntime, QcdqForm: run_onnxruntime, QopForm: run_onnxruntime, QonnxForm: run_qonnx}


def parse(text: str):
    return Parser(full_context(), text).parse_module()


def inputs_for(shape, scale: float, seed: int = 0) -> dict[str, np.ndarray]:
    """Random values plus exact ties of the grid (k + 1/2) * scale, where orders and rounding differ."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 8 * scale).astype(np.float32)
    ties = ((rng.integers(-12, 12, shape) + 0.5) * scale).astype(np.float32)
    return {"x": np.where(rng.random(shape) < 0.5, x, ties).astype(np.float32)}


def assert_exports_exactly(text: str, form, shape=(2, 8), scale=0.25):
    module = parse(text)
    model = export_model(module, form())
    for seed in (0, 1, 2):
        inputs = inputs_for(shape, scale, seed)
        expected = bitfold.run(module, inputs)
        actual = ORACLES[form](model, inputs)
        assert actual.keys() == expected.keys()
        for name, want in expected.items():
            assert actual[name].dtype == want.dtype, name
            np.testing.assert_array_equal(actual[name], want, err_msg=name)
    return model


def fake_quant(storage: str, attributes: str = "", name: str = "q") -> str:
    """A function returning dcast(qcast(x)) to `storage` (a full `!quant.*` type)."""
    return f"""
func.func @f(%x: tensor<2x8xf32> {{onnx.name = "x"}}) -> (tensor<2x8xf32> {{onnx.name = "y"}}) {{
  %q = quant.qcast %x {attributes} : tensor<2x8xf32> to tensor<2x8x{storage}> loc("{name}")
  %y = quant.dcast %q : tensor<2x8x{storage}> to tensor<2x8xf32> loc("{name}_dq")
  func.return %y : tensor<2x8xf32>
}}"""


WEIGHTED = """
func.func @f(%x: tensor<2x4xf32> {onnx.name = "x"}) -> (tensor<2x4xf32> {onnx.name = "y"}) {
  %c = "onnx.Constant"() {value = dense<[[1, -2, 3, -7], [0, 5, -6, 7]]> : tensor<2x4xi4>} : () -> tensor<2x4xi4> loc("w")
  %w = quant.scast %c : tensor<2x4xi4> to tensor<2x4x!quant.uniform<i4:f32:0, {0.25, 0.5}>>
  %wf = quant.dcast %w : tensor<2x4x!quant.uniform<i4:f32:0, {0.25, 0.5}>> to tensor<2x4xf32> loc("w_dq")
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32, 0.25>> loc("x_q")
  %d = quant.dcast %q : tensor<2x4x!quant.uniform<i8:f32, 0.25>> to tensor<2x4xf32> loc("x_dq")
  %s = "onnx.Add"(%d, %wf) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("add")
  %t = quant.qcast %s : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i4<-7:7>:f32, 0.5>> loc("add_q")
  %y = quant.dcast %t : tensor<2x4x!quant.uniform<i4<-7:7>:f32, 0.5>> to tensor<2x4xf32> loc("add_dq")
  func.return %y : tensor<2x4xf32>
}"""


# -- what each form writes, computing the IR's numbers ------------------------------------


@pytest.mark.parametrize("storage", ["!quant.uniform<u8:f32, 0.25:3>", "!quant.uniform<i8:f32:1, {" + ", ".join(["0.25", "0.5"] * 4) + "}>",
                                     "!quant.uniform<i4:f32, 0.25:-1>", "!quant.uniform<u16:f32, 0.25:1000>"])
def test_qdq_writes_native_types(storage):
    model = assert_exports_exactly(fake_quant(storage), QdqForm)
    assert [n.op_type for n in model.graph.node] == ["QuantizeLinear", "DequantizeLinear"]
    assert [n.name for n in model.graph.node] == ["q", "q_dq"]
    assert model.opset_import[0].version == (21 if "i4" in storage or "16" in storage else 13)


@pytest.mark.parametrize("form", [QcdqForm, QonnxForm], ids=lambda f: f.name)
def test_narrow_weights_and_activations(form):
    model = assert_exports_exactly(WEIGHTED, form, shape=(2, 4))
    if form is QcdqForm:
        assert [n.op_type for n in model.graph.node].count("Clip") == 2  # the weight and the activation
        assert model.opset_import[0].version == 13


def run_onnx_reference(model: onnx.ModelProto, inputs) -> dict[str, np.ndarray]:
    """onnx's reference evaluator: onnxruntime 1.31 has no int16 Clip kernel."""
    from onnx.reference import ReferenceEvaluator

    names = [o.name for o in model.graph.output]
    return dict(zip(names, ReferenceEvaluator(model).run(names, inputs), strict=True))


def test_qcdq_holds_twelve_bits_in_int16(monkeypatch):
    monkeypatch.setitem(ORACLES, QcdqForm, run_onnx_reference)
    model = assert_exports_exactly(fake_quant("!quant.uniform<i16<-2048:2047>:f32, 0.25>"), QcdqForm)
    assert [n.op_type for n in model.graph.node] == ["QuantizeLinear", "Clip", "DequantizeLinear"]
    assert model.opset_import[0].version == 21


@pytest.mark.parametrize("attributes", ['{rounding = "floor", zero_point_first}', '{rounding = "half_away_from_zero", zero_point_first}',
                                        '{zero_point_first}', '{rounding = "ceil"}'])
def test_qonnx_writes_quant_with_rounding_and_order(attributes):
    storage = "!quant.uniform<u4:f32, 0.25:3>" if "zero_point_first" in attributes else "!quant.uniform<i4<-7:7>:f32, 0.25>"
    model = assert_exports_exactly(fake_quant(storage, attributes), QonnxForm)
    assert [(n.op_type, n.domain) for n in model.graph.node] == [("Quant", "qonnx.custom_op.general")]


def test_qonnx_writes_onnx_order_u8_zero_point_128_as_int8():
    model = assert_exports_exactly(fake_quant("!quant.uniform<u8:f32, 0.25:128>"), QonnxForm)
    attributes = {a.name: onnx.helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
    assert attributes["signed"] == 1 and attributes["narrow"] == 0


@pytest.mark.parametrize(("storage", "attributes"), [
    ("!quant.uniform<u8:f32, 0.25:3>", ""),  # ONNX order: [-3, 252] is no QONNX range
    ("!quant.uniform<u8<0:200>:f32, 0.25>", "{zero_point_first}"),  # [0, 200] is none either
])
def test_qonnx_clamps_a_range_no_quant_holds_to_its_grid(storage, attributes):
    model = assert_exports_exactly(fake_quant(storage, attributes), QonnxForm)
    assert [n.op_type for n in model.graph.node] == ["Quant", "Min", "Max"]


def test_qonnx_writes_bipolar_and_trunc():
    text = """
func.func @f(%x: tensor<2x8xf32> {onnx.name = "x"}) -> (tensor<2x8xf32> {onnx.name = "y"}, tensor<2x8xf32> {onnx.name = "b"}) {
  %q = quant.qcast %x : tensor<2x8xf32> to tensor<2x8x!quant.uniform<i8:f32, 0.25>> loc("q")
  %t = quant.requant %q {rounding = "floor", zero_point_first} : tensor<2x8x!quant.uniform<i8:f32, 0.25>> to tensor<2x8x!quant.uniform<i4:f32, 1.0>> loc("trunc")
  %y = quant.dcast %t : tensor<2x8x!quant.uniform<i4:f32, 1.0>> to tensor<2x8xf32>
  %p = quant.qcast %x : tensor<2x8xf32> to tensor<2x8x!quant.bipolar<f32, 0.5>> loc("bipolar")
  %b = quant.dcast %p : tensor<2x8x!quant.bipolar<f32, 0.5>> to tensor<2x8xf32>
  func.return %y, %b : tensor<2x8xf32>, tensor<2x8xf32>
}"""
    model = assert_exports_exactly(text, QonnxForm)
    assert sorted(n.op_type for n in model.graph.node) == ["BipolarQuant", "Quant", "Trunc"]
    assert {o.domain: o.version for o in model.opset_import}["qonnx.custom_op.general"] == 2


def test_qdq_writes_exact_requantization_as_dq_q():
    text = """
func.func @f(%x: tensor<2x8xf32> {onnx.name = "x"}) -> (tensor<2x8xf32> {onnx.name = "y"}) {
  %q = quant.qcast %x : tensor<2x8xf32> to tensor<2x8x!quant.uniform<i8:f32, 0.25>> loc("q")
  %t = quant.requant %q : tensor<2x8x!quant.uniform<i8:f32, 0.25>> to tensor<2x8x!quant.uniform<i8:f32, 1.0:3>> loc("r")
  %y = quant.dcast %t : tensor<2x8x!quant.uniform<i8:f32, 1.0:3>> to tensor<2x8xf32> loc("y")
  func.return %y : tensor<2x8xf32>
}"""
    model = assert_exports_exactly(text, QdqForm)
    assert [n.op_type for n in model.graph.node] == ["QuantizeLinear", "DequantizeLinear", "QuantizeLinear", "DequantizeLinear"]


CONV = """
func.func @f(%x: tensor<1x2x5x5xf32> {onnx.name = "x"}) -> (tensor<1x3x3x3xf32> {onnx.name = "y"}) {
  %xq = quant.qcast %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!quant.uniform<u8:f32, 0.05:128>> loc("x_q")
  %xd = quant.dcast %xq : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.05:128>> to tensor<1x2x5x5xf32> loc("x_dq")
  %wc = "onnx.Constant"() {value = dense<%W%> : tensor<3x2x3x3xi8>} : () -> tensor<3x2x3x3xi8> loc("w")
  %w = quant.scast %wc : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.015}>>
  %wd = quant.dcast %w : tensor<3x2x3x3x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.015}>> to tensor<3x2x3x3xf32> loc("w_dq")
  %bc = "onnx.Constant"() {value = dense<[100, -2000, 35]> : tensor<3xi32>} : () -> tensor<3xi32> loc("b")
  %b = quant.scast %bc : tensor<3xi32> to tensor<3x!quant.uniform<i32:f32:0, {%BS%}>>
  %bd = quant.dcast %b : tensor<3x!quant.uniform<i32:f32:0, {%BS%}>> to tensor<3xf32> loc("b_dq")
  %c = "onnx.Conv"(%xd, %wd, %bd) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {auto_pad = "NOTSET", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32> loc("conv")
  %yq = quant.qcast %c : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!quant.uniform<u8:f32, 0.04:100>> loc("y_q")
  %y = quant.dcast %yq : tensor<1x3x3x3x!quant.uniform<u8:f32, 0.04:100>> to tensor<1x3x3x3xf32> loc("y_dq")
  func.return %y : tensor<1x3x3x3xf32>
}"""


def conv_module(bias_scales=None) -> str:
    weights = np.random.default_rng(7).integers(-127, 128, (3, 2, 3, 3)).tolist()
    scales = bias_scales or [float(np.float32(0.05) * np.float32(s)) for s in (0.01, 0.02, 0.015)]
    return CONV.replace("%W%", str(weights)).replace("%BS%", ", ".join(repr(s) for s in scales))


def test_qop_writes_qlinearconv_within_one_step():
    module = parse(conv_module())
    model = export_model(module, QopForm())
    assert [n.op_type for n in model.graph.node] == ["QuantizeLinear", "QLinearConv", "DequantizeLinear"]
    differing = compared = 0
    for seed in range(8):
        inputs = {"x": np.random.default_rng(seed).standard_normal((1, 2, 5, 5)).astype(np.float32)}
        want, got = bitfold.run(module, inputs)["y"], run_onnxruntime(model, inputs)["y"]
        assert np.max(np.abs(want - got)) <= 0.04 * 1.0001  # at most one step of the output scale
        differing, compared = differing + int(np.count_nonzero(want != got)), compared + want.size
    print(f"\nQLinearConv against DQ -> Conv -> Q: {differing} of {compared} elements differ")


def test_qop_falls_back_to_qdq_when_the_bias_scale_differs():
    model = export_model(parse(conv_module([0.001, 0.001, 0.001])), QopForm())
    assert "QLinearConv" not in [n.op_type for n in model.graph.node]


@pytest.mark.parametrize(("text", "shape", "holding"), [
    (fake_quant("!quant.uniform<u8:f32, 0.25:3>"), (2, 8), [QdqForm, QcdqForm, QonnxForm, QopForm]),
    (fake_quant("!quant.uniform<i8:f32:1, {" + ", ".join(["0.25", "0.5"] * 4) + "}>"), (2, 8), [QdqForm, QcdqForm, QonnxForm]),
    (fake_quant("!quant.uniform<i4<-7:7>:f32, 0.25>"), (2, 8), [QcdqForm, QonnxForm]),
    (WEIGHTED, (2, 4), [QcdqForm, QonnxForm]),
], ids=["u8-zp3", "i8-per-axis", "i4-narrow", "weighted"])
def test_forms_agree_under_their_own_oracles(text, shape, holding):
    """onnxruntime on the QDQ / QCDQ / QOp models against qonnx's executor on the QONNX one."""
    module = parse(text)
    models = {form: export_model(module, form()) for form in holding}
    for seed in (0, 1, 2):
        inputs = inputs_for(shape, 0.25, seed)
        outputs = {form: ORACLES[form](model, inputs) for form, model in models.items()}
        reference = outputs[QonnxForm]
        for form, actual in outputs.items():
            assert actual.keys() == reference.keys()
            for name, want in reference.items():
                np.testing.assert_array_equal(actual[name], want, err_msg=f"{form.name} {name}")


# -- refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize(("form", "text", "message"), [
    (QdqForm, fake_quant("!quant.uniform<i8:f32, 0.25>", '{rounding = "ceil"}'), r"QDQ cannot express rounding 'ceil' at node 'q'; QONNX \(Quant\) can"),
    (QdqForm, fake_quant("!quant.uniform<i4<-7:7>:f32, 0.25>"), r"QDQ cannot express the range \[-7, 7\] .* at node 'q' .*QCDQ \(Clip\) or QONNX"),
    (QdqForm, fake_quant("!quant.uniform<u8:f32, 0.25:3>", "{zero_point_first}"), r"QDQ cannot express the zero point added before rounding .* at node 'q'; QONNX"),
    (QdqForm, fake_quant("!quant.bipolar<f32, 0.25>"), r"QDQ cannot express the bipolar type .* at node 'q'; QONNX \(BipolarQuant\) can"),
    (QcdqForm, fake_quant("!quant.uniform<i32<-65536:65535>:f32, 0.25>"), r"no ONNX form quantizes to 32 bits .* at node 'q'"),
])
def test_what_a_form_cannot_express_is_one_clear_line(form, text, message):
    with pytest.raises(ExportError, match=message) as error:
        export_model(parse(text), form())
    assert "\n" not in str(error.value)


def test_qonnx_refuses_integer_outputs():
    text = """
func.func @f(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xi8> {onnx.name = "y"}) {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.25>> loc("q")
  %i = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 0.25>> to tensor<4xi8> loc("ints")
  func.return %i : tensor<4xi8>
}"""
    with pytest.raises(ExportError, match=r"QONNX holds no integer tensors: node 'ints' .*; QDQ or QCDQ can"):
        export_model(parse(text), QonnxForm())
    model = export_model(parse(text), QdqForm())
    assert [o.name for o in model.graph.output] == ["y"]
