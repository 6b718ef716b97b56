"""bitfold's entry in xDSL's plugin registry (`xdsl.universe` entry point): once bitfold is
installed, plain `xdsl-opt` knows the quant dialect and bitfold's passes."""

from xdsl.universe import Universe

from bitfold.registry import get_all_dialects, get_all_passes, get_all_targets

UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)
