"""Anomaly detection: remember where each node was created; fail loudly on NaN.

Under `detect_anomaly()`, every recorded node keeps the user's forward traceback, so
an error or a NaN in backward names the node and shows the line that created it.
Off by default: capturing tracebacks is far too slow for the hot path.
fgrad.config's debug_nans "full" runs the tape so too, library-wide (`active`), and checks
every op, forward and backward (nan_check.py).
"""
import threading

import numpy as np

from ..config import config
from ..engine.threads import THREAD_STATE
from ..ir.value import concrete

__all__ = ["detect_anomaly", "is_anomaly_enabled", "set_detect_anomaly"]

class _State(threading.local):
    enabled = False  # the defaults in every thread
    check_nan = True


_state = _State()

# Set once any thread turns anomaly mode (or debug_nans "full") on, never reset: until then the
# imperative tape reads no thread-local to record an op or to run a node (see saved_hooks.ever_used).
ever_enabled = False
nan_full = False  # fgrad.config.debug_nans == "full", kept here for the tape


def _on_debug_nans(value):
    global ever_enabled, nan_full
    nan_full = value == "full"
    ever_enabled = ever_enabled or nan_full


config.on_update("debug_nans", _on_debug_nans)


def is_enabled():
    return _state.enabled


def active():
    """Does the tape keep forward stacks and check each node: anomaly mode in this thread, or
    debug_nans "full"?"""
    return _state.enabled or nan_full


is_anomaly_enabled = is_enabled


def _set_state(state):
    _state.enabled, _state.check_nan = state


THREAD_STATE.append((lambda: (_state.enabled, _state.check_nan), _set_state))  # (as grad mode's)


def check_nan_enabled():
    return _state.enabled and _state.check_nan


def check_nan(meta, grads):
    for i, g in enumerate(grads):
        if g is not None and np.any(np.isnan(np.asarray(concrete(g)))):
            where = f"\nTraceback of forward call that caused the error:\n{meta.stack}" if meta.stack else ""
            raise RuntimeError(f"Function '{meta.name}' returned nan values in its {i}th output.{where}")


class set_detect_anomaly:
    """Turn anomaly detection on or off: called, from now on; as a context manager, inside the
    `with` block, the previous setting restored at its end (torch.autograd.set_detect_anomaly).

    What anomaly detection does is detect_anomaly's: each recorded node keeps its forward
    traceback, and (with `check_nan`) a backward step whose result has a NaN raises. The
    setting is per thread, as grad mode is; the engine's worker threads follow the thread that
    runs backward.

    Parameters
    ----------
    mode : bool
        Turn anomaly detection on (True) or off (False).
    check_nan : bool
        With `mode`, also check each backward step's results for NaN (default True).

    Examples
    --------
    >>> from fgrad.autograd import anomaly_mode
    >>> with fgrad.autograd.set_detect_anomaly(True):
    ...     anomaly_mode.is_enabled()
    True
    >>> anomaly_mode.is_enabled()  # restored
    False
    >>> _ = fgrad.autograd.set_detect_anomaly(True); anomaly_mode.is_enabled()
    True
    >>> _ = fgrad.autograd.set_detect_anomaly(False)
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        global ever_enabled
        ever_enabled = ever_enabled or bool(mode)
        self.prev = (is_enabled(), _state.check_nan)
        _state.enabled, _state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> "set_detect_anomaly":
        return self

    def __exit__(self, *exc: object) -> bool:
        _state.enabled, _state.check_nan = self.prev
        return False


class detect_anomaly(set_detect_anomaly):
    """A context manager that turns anomaly detection on inside its block
    (torch.autograd.detect_anomaly).

    Under it, every node recorded in the forward pass keeps the traceback of the user's code that
    made it, so an error in backward names the node and shows the forward line that created it;
    and with `check_nan`, a backward step whose result has a NaN raises RuntimeError naming the
    node ("Function 'MulBackward0' returned nan values in its 0th output.") with that traceback
    in the message (torch prints it as a warning instead). For debugging only: keeping a traceback
    per op makes the forward pass many times slower. fgrad.config.update("debug_nans", "full")
    checks the forward pass and the functional transforms too.

    Parameters
    ----------
    check_nan : bool
        Raise when a backward step returns NaN (default True); False keeps the tracebacks alone.

    Raises
    ------
    RuntimeError
        In backward, from a node whose gradient has a NaN (with `check_nan`).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, float("nan")], requires_grad=True)  # a NaN that came with the data
    >>> with fgrad.autograd.detect_anomaly():
    ...     y = (x * x).sum()
    ...     y.backward()
    Traceback (most recent call last):
    ...
    RuntimeError: Function 'MulBackward0' returned nan values in its 0th output...
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = None

    def __enter__(self) -> "detect_anomaly":
        global ever_enabled
        ever_enabled = True
        self.prev = (is_enabled(), _state.check_nan)
        _state.enabled, _state.check_nan = True, bool(self.check_nan)
        return self
