"""fgrad.config: the library-wide switches, as jax.config.

    fgrad.config.update("nan_safe_zeros", False)
    fgrad.config.nan_safe_zeros          # -> False
    with fgrad.config.overriding(debug_nans="cheap"):
        ...

Each switch has a default, a check of the values it takes, and an environment variable that
sets it at import (FGRAD_<NAME in capitals>, as JAX_DEBUG_NANS). The switches:

- nan_safe_zeros (bool, True): a derivative contribution whose cotangent or tangent is
  exactly zero is zero, even where the partial is infinite or NaN (docs/sharp-bits.md).
- debug_nans (False, "cheap" or "full"): where a NaN or inf in a derivative comes from.
  "cheap" checks each transform's results (one dot per array) and, on a hit, runs the call
  again with every op checked, raising NonFiniteError naming the op and the line; "full"
  runs every call checked and raises at the first NaN made (Note [NaN provenance] in
  transforms/debug_nans.py).
- retrace_warning_after (int, 8): fgrad.compile warns, once per function, after this many
  traces of it; 0 never warns.

Hot paths read a switch as an attribute (`config.nan_safe_zeros`): one slot load.
This module sits beneath every layer (tests/test_layers.py): it imports nothing of fgrad.
"""
import contextlib
import os

__all__ = ["config"]


def _bool(value):
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off", ""):
            return False
    elif isinstance(value, (bool, int)) and value in (0, 1):
        return bool(value)
    raise ValueError(f"expected True or False, got {value!r}")


def _debug_nans(value):
    if isinstance(value, str) and value.strip().lower() in ("cheap", "full"):
        return value.strip().lower()
    if isinstance(value, str) and value.strip().lower() in ("0", "false", "off", "no", ""):
        return False
    if value is False or value == 0:
        return False
    if value is True or value == 1:
        return "full"  # (True, as jax_debug_nans: check every node)
    raise ValueError(f"expected False, 'cheap' or 'full', got {value!r}")


def _count(value):
    number = int(value)
    if number < 0 or number != float(value):
        raise ValueError(f"expected a whole number >= 0, got {value!r}")
    return number


_SWITCHES = {  # name -> (default, check)
    "nan_safe_zeros": (True, _bool),
    "debug_nans": (False, _debug_nans),
    "retrace_warning_after": (8, _count),
}


_LISTENERS = {}  # name -> [fn(value)]: Config.on_update


class Config:
    """The switches' current values, one slot each; change them with `update`."""

    __slots__ = tuple(_SWITCHES)

    def __init__(self):
        for name, (default, check) in _SWITCHES.items():
            var = f"FGRAD_{name.upper()}"
            env = os.environ.get(var)
            object.__setattr__(self, name, default if env is None else _checked(name, env, check, var))

    def update(self, name: str, value) -> None:
        """Set switch `name` to `value` (checked), library-wide."""
        if name not in _SWITCHES:
            raise AttributeError(f"fgrad.config.update: no switch named {name!r}; the switches are "
                                 f"{', '.join(sorted(_SWITCHES))}")
        self._set(name, _checked(name, value, _SWITCHES[name][1], "fgrad.config.update"))

    def on_update(self, name: str, fn) -> None:
        """Call fn(value) with switch `name`'s value now and after each change: for a layer
        above that keeps a flag of its own where a hot path reads it."""
        _LISTENERS.setdefault(name, []).append(fn)
        fn(getattr(self, name))

    def _set(self, name, value):
        object.__setattr__(self, name, value)
        for fn in _LISTENERS.get(name, ()):
            fn(value)

    @contextlib.contextmanager
    def overriding(self, **values):
        """Set switches for the block's length, then restore them (for tests and one-off runs)."""
        old = {name: getattr(self, name) for name in values if name in _SWITCHES}
        try:
            for name, value in values.items():
                self.update(name, value)
            yield self
        finally:
            for name, value in old.items():
                self._set(name, value)

    def values(self) -> dict:
        """{name: current value} of every switch."""
        return {name: getattr(self, name) for name in _SWITCHES}

    def __setattr__(self, name, value):
        raise AttributeError(f"fgrad.config: set switches with fgrad.config.update({name!r}, value)")

    def __repr__(self):
        return "fgrad.config(" + ", ".join(f"{k}={v!r}" for k, v in self.values().items()) + ")"


def _checked(name, value, check, where):
    try:
        return check(value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where}: {name}: {e}") from None


config = Config()
