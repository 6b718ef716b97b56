"""bitfold's entry in xDSL's plugin registry (`xdsl.universe` entry point): once bitfold is
installed, plain `xdsl-opt` knows bitfold's dialects, passes and text targets. The ONNX exporters are
`bitfold-opt` targets only: xdsl-opt gives a target a text buffer, and an ONNX model is bytes."""

from xdsl.universe import Universe

from bitfold.registry import get_all_dialects, get_all_passes, get_text_targets

UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_text_targets(),
)
