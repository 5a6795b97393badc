"""NumPy's override protocols: `np.sin(x)`, `np.sum(x, axis=0)`, `np.linalg.solve(A, b)`
on traced values run fgrad's differentiable versions, so unmodified NumPy code is
differentiated. A NumPy function fgrad does not cover raises a TypeError naming it.
"""


from ..ir.value import Tracer

_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
_SKIP = {"test", "bridge", "methods", "linalg"}


def _table():
    """name -> fgrad function, for numpy and numpy.linalg (built once, on first use)."""
    from .. import numpy as fnp
    table = {}
    for module, prefix in ((fnp, "numpy."), (fnp.linalg, "numpy.linalg.")):
        for name in dir(module):
            fn = getattr(module, name)
            if not name.startswith("_") and name not in _SKIP and callable(fn) and not isinstance(fn, type) \
                    and not (module is fnp and getattr(fn, "__module__", "").startswith("numpy")):
                table[prefix + name] = fn
    return table


_TABLE = None


def covered():
    """Sorted names of the NumPy functions fgrad differentiates (numpy.x, numpy.linalg.x)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _table()
    return sorted(_TABLE)


def _lookup(qualname):
    if _TABLE is None:
        covered()
    return _TABLE.get(qualname)


def _unsupported(what):
    return TypeError(f"fgrad: {what} is not supported on traced values (fgrad cannot differentiate it); "
                     f"see fgrad.numpy.bridge.covered() for the NumPy functions fgrad supports")


_BY_UFUNC = {}  # ufunc -> fgrad function, filled on first use of each ufunc


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__" and not kwargs:  # the common case: ndarray (op) traced value
        fn = _BY_UFUNC.get(ufunc)
        if fn is None:
            fn = _lookup(f"numpy.{ufunc.__name__}")
            if fn is None:
                raise _unsupported(f"the ufunc numpy.{ufunc.__name__}")
            _BY_UFUNC[ufunc] = fn
        return fn(*inputs)
    if kwargs.get("out") is not None:
        raise TypeError(f"fgrad: numpy.{ufunc.__name__}(..., out=...) cannot write into a traced value")
    if method == "__call__":
        if kwargs.pop("where", True) is not True or kwargs.pop("dtype", None) is not None:
            raise _unsupported(f"numpy.{ufunc.__name__} with where= or dtype=")
        kwargs.pop("out", None)
        fn = _lookup(f"numpy.{ufunc.__name__}")
        if fn is None:
            raise _unsupported(f"the ufunc numpy.{ufunc.__name__}")
        return fn(*inputs, **kwargs)
    table = _REDUCE if method == "reduce" else _ACCUMULATE if method == "accumulate" else {}
    name = table.get(ufunc.__name__)
    if name is None:
        raise _unsupported(f"numpy.{ufunc.__name__}.{method}")
    kwargs.pop("out", None)
    if method == "reduce" and "axis" not in kwargs:
        kwargs["axis"] = 0
    if method == "accumulate" and "axis" not in kwargs:
        kwargs["axis"] = 0
    return _lookup(f"numpy.{name}")(*inputs, **kwargs)


def array_function(self, func, types, args, kwargs):
    module = getattr(func, "__module__", None) or "numpy"
    qualname = f"{module}.{func.__name__}"
    fn = _lookup(qualname)
    if fn is None:
        raise _unsupported(qualname)
    return fn(*args, **kwargs)


Tracer.__array_ufunc__ = array_ufunc
Tracer.__array_function__ = array_function

