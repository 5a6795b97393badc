"""torch.nn's recurrent layers: RNNCell, LSTMCell, GRUCell, and RNN (tanh or relu), LSTM, GRU
over whole sequences (num_layers, bias, batch_first, dropout between layers, bidirectional,
initial states), with torch 2.13's parameter names, shapes, initialization and numbers, so
state dicts load across.

A layer's input projection does not depend on the recurrence, so it is one matmul for all time
steps (with both biases added there); each step then costs one matmul with weight_hh and the
gates' elementwise ops. The steps are recorded as ordinary fgrad ops: backward through time is
the tape's backward, and everything differentiates again.
"""
import math
import warnings

import numpy as np

from .. import numpy as fnp
from ..autograd.dtypes import get_default_dtype
from ..autograd.dtypes import name as dtype_name
from ..autograd.factories import _rng
from ..autograd.tensor import Tensor
from ..backend import Device
from ..backend import device as to_device
from ..ops.special import expit
from ..typing import DTypeLike
from .dropout import dropout as _dropout
from .module import Module, Parameter
from .parameters import on_device_of

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _uniform_parameter(shape, bound, device, dtype):
    """U(-bound, bound), torch's reset_parameters for every recurrent weight and bias."""
    values = _rng[0].uniform(-bound, bound, shape).astype(dtype or get_default_dtype())
    return Parameter(values if device is None else to_device(device).send(values))


def _relu(x):
    return fnp.where(x > 0, x, 0.0)


# ---- one time step of each kind, on the input's projection xp = x W_ih^T + b_ih (+ b_hh); b_hn:
# GRU's n part of b_hh, which multiplies with r inside the step (None for the others) -------------
def _rnn_step(act):
    def step(xp, state, w_hh_t, b_hn):
        h = state[0]
        return (act(xp + fnp.matmul(h, w_hh_t)),)
    return step


def _lstm_step(xp, state, w_hh_t, b_hn):
    """Gates i, f, g, o (torch's order): c' = f c + i g, h' = o tanh(c')."""
    h, c = state
    gates = xp + fnp.matmul(h, w_hh_t)
    n = h.shape[-1]
    i, f = expit(gates[..., :n]), expit(gates[..., n:2 * n])
    g, o = fnp.tanh(gates[..., 2 * n:3 * n]), expit(gates[..., 3 * n:])
    c = f * c + i * g
    return o * fnp.tanh(c), c


def _gru_step(xp, state, w_hh_t, b_hn):
    """Gates r, z, n (torch's order): n = tanh(x_n + r (h W_hn^T + b_hn)), h' = (1 - z) n + z h;
    b_hh's r and z parts are in xp, its n part (b_hn) stays inside r's product."""
    h = state[0]
    hp = fnp.matmul(h, w_hh_t)
    n = h.shape[-1]
    rz = expit(xp[..., :2 * n] + hp[..., :2 * n])
    r, z = rz[..., :n], rz[..., n:]
    hn = hp[..., 2 * n:] if b_hn is None else hp[..., 2 * n:] + b_hn
    cand = fnp.tanh(xp[..., 2 * n:] + r * hn)
    return (cand + z * (h - cand),)


_STEPS = {"RNN_TANH": _rnn_step(fnp.tanh), "RNN_RELU": _rnn_step(_relu), "LSTM": _lstm_step, "GRU": _gru_step}


def _hn_bias(mode, b_hh):
    return b_hh[2 * (b_hh.shape[0] // 3):] if mode == "GRU" and b_hh is not None else None


def _projection(mode, x, w_ih, b_ih, b_hh):
    """x W_ih^T plus the biases that add outside the recurrence (all of b_hh but GRU's n part)."""
    xp = fnp.matmul(x, fnp.swapaxes(w_ih, -1, -2))
    if b_ih is None:
        return xp
    xp = xp + b_ih
    if mode != "GRU":
        return xp + b_hh
    n = b_hh.shape[0] // 3
    return xp + fnp.concatenate([b_hh[:2 * n], fnp.zeros_like(b_hh[2 * n:])])


def _check_dtype(input, weight):
    if fnp.result_type(input) != weight.dtype:
        raise RuntimeError(f"input must have the type {dtype_name(weight.dtype)}, got type "
                           f"{dtype_name(fnp.result_type(input))}")


# ---- the cells ---------------------------------------------------------------------------------
class RNNCellBase(Module):
    """weight_ih (G*hidden, input), weight_hh (G*hidden, hidden), bias_ih, bias_hh (G*hidden,)."""

    mode = None

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, num_chunks: int = 1,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
        g = num_chunks * hidden_size
        self.weight_ih = _uniform_parameter((g, input_size), bound, device, dtype)
        self.weight_hh = _uniform_parameter((g, hidden_size), bound, device, dtype)
        for name in ("bias_ih", "bias_hh"):
            self.register_parameter(name, _uniform_parameter((g,), bound, device, dtype) if bias else None)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _states(self, input, hx, count):
        """The input and states as batched (N, .), and whether to drop the batch axis after."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected "
                               f"{self.input_size}")
        _check_dtype(input, self.weight_ih)
        unbatched = input.ndim == 1
        if hx is None:
            zero = on_device_of(input, np.zeros(input.shape[:-1] + (self.hidden_size,), dtype=self.weight_ih.dtype))
            states = (zero,) * count
        else:
            states = tuple(hx) if count > 1 else (hx,)
            for h in states:
                if h.ndim != input.ndim:
                    raise RuntimeError(f"{type(self).__name__}: Expected hidden to be {input.ndim}D for "
                                       f"{input.ndim}D input, got {h.ndim}D instead")
        if unbatched:
            return input[None], tuple(h[None] for h in states), True
        return input, states, False

    def _run(self, input, hx, count):
        x, states, unbatched = self._states(input, hx, count)
        xp = _projection(self.mode, x, self.weight_ih, self.bias_ih, self.bias_hh)
        w_hh_t = fnp.swapaxes(self.weight_hh, -1, -2)
        out = _STEPS[self.mode](xp, states, w_hh_t, _hn_bias(self.mode, self.bias_hh))
        return tuple(h[0] for h in out) if unbatched else out


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu).

    Examples
    --------
    >>> cell = fgrad.nn.RNNCell(3, 5)
    >>> cell(fgrad.ones(2, 3)).shape  # h' = tanh(W_ih x + b_ih + W_hh h + b_hh)
    (2, 5)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        self.mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._run(input, hx, 1)[0]


class LSTMCell(RNNCellBase):
    """(h', c') from input and hx = (h, c) (zeros when None).

    Examples
    --------
    >>> h, c = fgrad.nn.LSTMCell(3, 5)(fgrad.ones(2, 3))
    >>> h.shape, c.shape
    ((2, 5), (2, 5))
    """

    mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        return self._run(input, hx, 2)


class GRUCell(RNNCellBase):
    """One step of a gated recurrent unit: h' from `input` (batch, input_size) or (input_size,) and
    `hx` (zeros when None), as torch.nn.GRUCell:

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h

    Parameters weight_ih (3*hidden_size, input_size), weight_hh (3*hidden_size, hidden_size) and,
    with `bias`, bias_ih and bias_hh, initialized from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

    Examples
    --------
    >>> fgrad.nn.GRUCell(3, 5)(fgrad.ones(2, 3)).shape
    (2, 5)
    """

    mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._run(input, hx, 1)[0]


# ---- the sequence layers -----------------------------------------------------------------------
class RNNBase(Module):
    """A stack of recurrent layers, each one or two directions, over a whole sequence.

    Examples
    --------
    >>> lstm = fgrad.nn.LSTM(3, 4)
    >>> isinstance(lstm, fgrad.nn.RNNBase), [name for name, _ in lstm.named_parameters()]
    (True, ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0'])
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          UserWarning, stacklevel=3)
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero" if isinstance(hidden_size, int)
                             else f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if proj_size:
            raise ValueError("proj_size (LSTM with projections) is not supported by fgrad.nn.LSTM")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        bound = 1.0 / math.sqrt(hidden_size)
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                size = input_size if layer == 0 else hidden_size * directions
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [("weight_ih", (gate, size)), ("weight_hh", (gate, hidden_size))]
                shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))] if bias else []
                for name, shape in shapes:
                    self.register_parameter(name + suffix, _uniform_parameter(shape, bound, device, dtype))
                    self._flat_weights_names.append(name + suffix)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer, direction):
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        return [getattr(self, n + suffix, None) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]

    def _check(self, input, hx, count):
        """Input as (L, N, H_in) and states as count tuples of (D*layers, N, H), and whether
        the input was unbatched."""
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")
        _check_dtype(input, self.weight_ih_l0)
        unbatched = input.ndim == 2
        x = input[:, None] if unbatched else (fnp.swapaxes(input, 0, 1) if self.batch_first else input)
        want = (self.num_layers * (2 if self.bidirectional else 1), x.shape[1], self.hidden_size)
        if hx is None:
            zero = on_device_of(input, np.zeros(want, dtype=self.weight_ih_l0.dtype))
            return x, (zero,) * count, unbatched
        states = tuple(hx) if count > 1 else (hx,)
        for k, h in enumerate(states):
            if h.ndim != (2 if unbatched else 3):
                raise RuntimeError(f"For {'unbatched 2-D' if unbatched else 'batched 3-D'} input, hx"
                                   f"{'' if count == 1 else ' and cx'} should also be "
                                   f"{'2-D' if unbatched else '3-D'} but got {h.ndim}-D tensor")
            got = tuple(h.shape) if not unbatched else (h.shape[0], 1, h.shape[-1])
            if got != want:
                which = "hidden" if count == 1 else f"hidden[{k}]"
                raise RuntimeError(f"Expected {which} size {want if not unbatched else (want[0], want[2])}, got "
                                   f"{list(h.shape)}")
        return x, tuple(h[:, None] if unbatched else h for h in states), unbatched

    def _direction(self, xs, state, weights, reverse):
        """One layer's one direction over the time steps: the outputs in time order, the last state."""
        w_ih, w_hh, b_ih, b_hh = weights
        xp = _projection(self.mode, xs, w_ih, b_ih, b_hh)
        w_hh_t = fnp.swapaxes(w_hh, -1, -2)
        step, b_hn = _STEPS[self.mode], _hn_bias(self.mode, b_hh)
        steps = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
        outputs = [None] * xs.shape[0]
        for t in steps:
            state = step(xp[t], state, w_hh_t, b_hn)
            outputs[t] = state[0]
        return fnp.stack(outputs), state

    def _run(self, input, hx, count):
        x, states, unbatched = self._check(input, hx, count)
        directions = 2 if self.bidirectional else 1
        last = [[] for _ in range(count)]
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                out, final = self._direction(x, tuple(s[k] for s in states), self._weights(layer, d), d == 1)
                outs.append(out)
                for j in range(count):
                    last[j].append(final[j])
            x = outs[0] if directions == 1 else fnp.concatenate(outs, axis=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = _dropout(x, self.dropout, True)
        finals = [fnp.stack(s) for s in last]
        if unbatched:
            return x[:, 0], [f[:, 0] for f in finals]
        return (fnp.swapaxes(x, 0, 1) if self.batch_first else x), finals


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu); returns
    (output, h_n).

    Examples
    --------
    >>> rnn = fgrad.nn.RNN(3, 4, num_layers=2, batch_first=True)
    >>> output, h = rnn(fgrad.ones(2, 6, 3))
    >>> output.shape, h.shape  # (batch, time, hidden), (layers, batch, hidden)
    ((2, 6, 4), (2, 2, 4))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        output, (h_n,) = self._run(input, hx, 1)
        return output, h_n


class LSTM(RNNBase):
    """Long short-term memory; forward(input, (h_0, c_0)) returns (output, (h_n, c_n)).

    Examples
    --------
    >>> lstm = fgrad.nn.LSTM(3, 4)
    >>> output, (h, c) = lstm(fgrad.ones(6, 2, 3))
    >>> output.shape, h.shape, c.shape
    ((6, 2, 4), (1, 2, 4), (1, 2, 4))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        output, (h_n, c_n) = self._run(input, hx, 2)
        return output, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit; forward(input, h_0) returns (output, h_n).

    Examples
    --------
    >>> gru = fgrad.nn.GRU(3, 4, bidirectional=True)
    >>> output, h = gru(fgrad.ones(6, 2, 3))
    >>> output.shape, h.shape
    ((6, 2, 8), (2, 2, 4))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
                         device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        output, (h_n,) = self._run(input, hx, 1)
        return output, h_n
