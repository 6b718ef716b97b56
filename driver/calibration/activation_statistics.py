"""Activation statistics of a float model without data: per channel (axis 1) a mean, a variance
and a range [low, high], propagated through the graph from seeds (the output statistics of
BatchNormalization, `batch_norm_folding`, and the model inputs' ranges), after Nagel et al. 2019,
"Data-Free Quantization Through Weight Equalization and Bias Correction".

    statistics = propagate_statistics(function, seeds, sigmas=6.0)   # {value: ChannelStatistics}

A seed N(m, s^2) (a BatchNormalization output: m = beta, s = |gamma| sqrt(var / (var + eps)))
has the range m +- n s, n = `sigmas` (default `DEFAULT_SIGMAS`). The rules, in program order:
- Relu, Clip(lo, hi): x taken as N(m, s^2) (its mean and variance), the moments of the clipped
  normal (`clipped_normal_moments`: with a = (lo - m)/s, b = (hi - m)/s, Phi and phi the standard
  normal cdf and pdf,
      E[y]   = lo Phi(a) + hi (1 - Phi(b)) + m (Phi(b) - Phi(a)) + s (phi(a) - phi(b)),
      E[y^2] = lo^2 Phi(a) + hi^2 (1 - Phi(b)) + (m^2 + s^2)(Phi(b) - Phi(a))
               + 2 m s (phi(a) - phi(b)) + s^2 (a phi(a) - b phi(b)),
  as the paper's bias correction computes E[relu(x)]); the range is clipped the same way;
- Conv, Gemm with constant weights W and bias b, no BatchNormalization after them: each output
  channel a sum of many products, taken as normal with E[y] = W E[x] + b and Var[y] = W^2 Var[x]
  (inputs independent; zero padding not counted), range E[y] +- n sqrt(Var[y]);
- Add: means and variances add (independent operands), range the normal E +- n sqrt(Var)
  within the sum of the operands' ranges;
- MaxPool, GlobalMaxPool, AveragePool, GlobalAveragePool, Identity: range kept (a maximum or an
  average of values in [low, high] stays there), mean and variance kept (exact for the average's
  mean; the variance of an average is at most the input's, equal when the window is correlated;
  the mean of a maximum is at least the input's, taken as equal);
- Reshape, Flatten, Squeeze, Unsqueeze (the elements in the same order): where the result's axis 1
  holds k consecutive elements of each input channel (N x C x H x W -> N x CHW, k = HW; N x C x 1 x
  1 -> N x C, k = 1), each channel's statistics repeated k times; otherwise, and for the other
  data-movement ops, the channels pooled into one (mixture mean and variance, overall range);
- Concat along axis 1: the operands' channels side by side; along another axis the channels'
  mixture of the operands, channel by channel.
Any other op's results have no statistics (`data_free` says so for a quantization point).
A value of rank < 2 is one channel."""

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from bitfold.calibration.bias_correction import weighted_channel_sums
from bitfold.dialects.onnx import replication, shape
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.elementwise import AddOp, ClipOp, IdentityOp, ReluOp
from bitfold.dialects.onnx.nn import AveragePoolOp, ConvOp, GemmOp, GlobalAveragePoolOp, MaxPoolOp

DEFAULT_SIGMAS = 6.0
"""n of the range m +- n s (Nagel et al.'s beta +- n gamma): a normal leaves +- 6 sigma with
probability 2e-9; docs/calibration.md measures other n."""
ORDER_KEEPING = (shape.ReshapeOp, shape.FlattenOp, shape.SqueezeOp, shape.UnsqueezeOp)
RANGE_KEEPING = (MaxPoolOp, AveragePoolOp, GlobalAveragePoolOp, IdentityOp)
MOVING = (*(op for op in shape.OPS if op is not shape.ConcatOp), *replication.OPS)
SMALLEST_STD = 1e-12


@dataclass(frozen=True)
class ChannelStatistics:
    """Per channel of a value (float64 arrays of one element a channel): E[x], Var[x], [low, high]."""

    mean: np.ndarray
    variance: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @staticmethod
    def normal(mean: np.ndarray, variance: np.ndarray, sigmas: float) -> "ChannelStatistics":
        """N(mean, variance) with the range mean +- sigmas sqrt(variance)."""
        std = np.sqrt(np.maximum(variance, 0.0))
        return ChannelStatistics(mean, variance, mean - sigmas * std, mean + sigmas * std)

    @staticmethod
    def uniform(low: float, high: float, channels: int) -> "ChannelStatistics":
        """Values spread uniformly over [low, high] (a model input's given range)."""
        full = np.ones(channels)
        return ChannelStatistics(full * (low + high) / 2, full * (high - low) ** 2 / 12, full * low, full * high)

    def pooled(self) -> "ChannelStatistics":
        """One channel: the mixture of the channels (equal weights)."""
        mean = self.mean.mean()
        second = (self.variance + self.mean**2).mean()
        return ChannelStatistics(np.array([mean]), np.array([second - mean**2]), np.array([self.low.min()]),
                                 np.array([self.high.max()]))

    def repeated(self, count: int) -> "ChannelStatistics":
        """Each channel `count` times in a row."""
        return ChannelStatistics(*(np.repeat(a, count) for a in (self.mean, self.variance, self.low, self.high)))

    def broadcast(self, channels: int) -> "ChannelStatistics":
        """`channels` channels: these, or one channel's (or the pooled channels') repeated."""
        if len(self.mean) == channels:
            return self
        source = self if len(self.mean) == 1 else self.pooled()
        return source.repeated(channels)


def _cdf(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))


def _pdf(z: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * z**2) / math.sqrt(2.0 * math.pi)


def clipped_normal_moments(mean: np.ndarray, std: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """E[y] and Var[y] of y = clip(x, low, high), x ~ N(mean, std^2) (module docstring; low may be
    -inf, high +inf)."""
    std = np.maximum(std, SMALLEST_STD)
    a, b = (low - mean) / std, (high - mean) / std
    below, above = _cdf(a), 1.0 - _cdf(b)
    inside = 1.0 - below - above
    pa, pb = _pdf(a), _pdf(b)
    a_term = a * pa if np.isfinite(low) else 0.0  # z phi(z) -> 0 at infinity
    b_term = b * pb if np.isfinite(high) else 0.0
    low_mass = low * below if np.isfinite(low) else 0.0
    high_mass = high * above if np.isfinite(high) else 0.0
    first = low_mass + high_mass + mean * inside + std * (pa - pb)
    second = ((low**2 * below if np.isfinite(low) else 0.0) + (high**2 * above if np.isfinite(high) else 0.0)
              + (mean**2 + std**2) * inside + 2 * mean * std * (pa - pb) + std**2 * (a_term - b_term))
    return first, np.maximum(second - first**2, 0.0)


def channel_count(value: SSAValue) -> int:
    """The size of `value`'s axis 1 (1 below rank 2)."""
    dims = value.type.get_shape() if isinstance(value.type, TensorType) else ()
    return dims[1] if len(dims) >= 2 else 1


def _clip_bounds(op: Operation) -> tuple[float, float] | None:
    if isinstance(op, ReluOp):
        return 0.0, math.inf
    bounds = []
    for operand, default in ((op.min, -math.inf), (op.max, math.inf)):
        array = None if operand is None else constant_array(operand)
        if operand is not None and (array is None or array.size != 1):
            return None
        bounds.append(default if array is None else float(array.ravel()[0]))
    return bounds[0], bounds[1]


def _clipped(op: Operation, x: ChannelStatistics) -> ChannelStatistics | None:
    if (bounds := _clip_bounds(op)) is None:
        return None
    low, high = bounds
    mean, variance = clipped_normal_moments(x.mean, np.sqrt(x.variance), low, high)
    return ChannelStatistics(mean, variance, np.clip(x.low, low, high), np.clip(x.high, low, high))


def _contraction(op: ConvOp | GemmOp, x: ChannelStatistics, sigmas: float) -> ChannelStatistics | None:
    weights = constant_array(op.operands[1])
    bias = constant_array(op.operands[2]) if len(op.operands) > 2 else np.zeros(())
    if weights is None or bias is None:
        return None
    weights = weights.astype(np.float64)
    means = x.broadcast(channel_count(op.operands[0]))
    mean = weighted_channel_sums(op, weights, means.mean)
    variance = weighted_channel_sums(op, weights**2, means.variance)
    if mean is None or variance is None:
        return None
    return ChannelStatistics.normal(mean + np.broadcast_to(bias.astype(np.float64).ravel(), mean.shape), variance,
                                    sigmas)


def _sum(a: ChannelStatistics, b: ChannelStatistics, sigmas: float) -> ChannelStatistics:
    normal = ChannelStatistics.normal(a.mean + b.mean, a.variance + b.variance, sigmas)
    return ChannelStatistics(normal.mean, normal.variance, np.maximum(normal.low, a.low + b.low),
                             np.minimum(normal.high, a.high + b.high))


def _moved(op: Operation, x: ChannelStatistics) -> ChannelStatistics:
    """Statistics of a data-movement op's result (module docstring)."""
    channels_in, channels_out = len(x.mean), channel_count(op.results[0])
    if isinstance(op, ORDER_KEEPING) and channels_out % channels_in == 0:
        return x.repeated(channels_out // channels_in)
    return x.pooled().broadcast(channels_out)


def _concatenated(op: shape.ConcatOp, inputs: list[ChannelStatistics]) -> ChannelStatistics:
    rank = len(op.results[0].type.get_shape())
    if op.int_attr("axis") % max(rank, 1) == 1:
        return ChannelStatistics(*(np.concatenate([getattr(s, f) for s in inputs])
                                   for f in ("mean", "variance", "low", "high")))
    mean = np.mean([s.mean for s in inputs], axis=0)
    second = np.mean([s.variance + s.mean**2 for s in inputs], axis=0)
    return ChannelStatistics(mean, second - mean**2, np.min([s.low for s in inputs], axis=0),
                             np.max([s.high for s in inputs], axis=0))


def _result_statistics(op: Operation, inputs: list[ChannelStatistics | None],
                       sigmas: float) -> ChannelStatistics | None:
    """The statistics of `op`'s first result by the module docstring's rules, None without a rule."""
    x = inputs[0] if inputs else None
    if isinstance(op, ConvOp | GemmOp):
        return None if x is None else _contraction(op, x, sigmas)
    if isinstance(op, shape.ConcatOp):
        return None if any(s is None for s in inputs) else _concatenated(op, inputs)
    if x is None:
        return None
    if isinstance(op, ReluOp | ClipOp):
        return _clipped(op, x)
    if isinstance(op, AddOp):
        y = inputs[1]
        return None if y is None else _sum(x, y, sigmas)
    if isinstance(op, RANGE_KEEPING):
        return x
    if isinstance(op, MOVING):
        return _moved(op, x)
    return None


def propagate_statistics(function: func.FuncOp, seeds: Mapping[SSAValue, ChannelStatistics],
                         sigmas: float = DEFAULT_SIGMAS) -> dict[SSAValue, ChannelStatistics]:
    """The statistics of every value of `function` the rules reach from `seeds` (module
    docstring); a seed's own statistics are kept."""
    statistics = dict(seeds)
    for op in function.body.walk():
        if not op.results or op.results[0] in statistics:
            continue
        inputs = [statistics.get(operand) for operand in op.operands]
        if (result := _result_statistics(op, inputs, sigmas)) is not None:
            statistics[op.results[0]] = result.broadcast(channel_count(op.results[0]))
    return statistics
