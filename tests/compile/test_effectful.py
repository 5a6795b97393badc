"""An effectful primitive (Primitive.effectful: a collective) is never folded, shared or
dropped by fgrad.compile's passes: every replay runs each of its steps (issue 30)."""
import numpy as np

import fgrad
import fgrad.numpy as fnp
from fgrad.ops.primitive import Primitive, current_trace

CALLS = []


class _Counted(Primitive):
    __slots__ = ()
    effectful = True


def _kernel(x):
    CALLS.append(x.shape)
    return x + 1.0


counted = _Counted("counted_for_test", _kernel, register=False)


def _bind(x):
    return current_trace().process(counted, (x,), {})  # (bound even on a constant, as collectives are)


def test_steps_of_constants_shared_and_unused_all_run_on_replay():
    const = np.ones(2)

    def f(x):
        _bind(const)            # constants alone: not folded
        _bind(x)                # its result unused: not dropped
        a, b = _bind(x), _bind(x)  # the same step twice: not merged
        return fnp.sum(a * b)
    step = fgrad.compile(f)
    x = np.arange(2.0)
    assert step(x) == f(x)
    CALLS.clear()
    assert step(x) == f(x)
    assert len(CALLS) == 8, CALLS  # four kernel calls on replay, four in the eager call
    assert str(step.lower(x)).count("counted_for_test") == 4


def test_an_ordinary_primitive_is_still_folded_and_shared():
    assert Primitive.effectful is False
    assert fgrad.ops.elementwise.sin.prim.effectful is False
