"""fgrad.config: the library-wide switches (update, read, overriding, environment variables)."""
import os
import subprocess
import sys

import pytest

import fgrad


def test_defaults_and_update():
    assert fgrad.config.values() == {"nan_safe_zeros": True, "debug_nans": False, "retrace_warning_after": 8}
    with fgrad.config.overriding(nan_safe_zeros=False, debug_nans="cheap", retrace_warning_after=2):
        assert (fgrad.config.nan_safe_zeros, fgrad.config.debug_nans, fgrad.config.retrace_warning_after) == \
            (False, "cheap", 2)
        fgrad.config.update("debug_nans", True)  # (True means every node checked, as jax_debug_nans)
        assert fgrad.config.debug_nans == "full"
    assert fgrad.config.values()["debug_nans"] is False  # (restored, even the value set inside the block)


@pytest.mark.parametrize("name, value, says", [
    ("nan_safe", True, "no switch named 'nan_safe'"),
    ("debug_nans", "loud", r"expected False, 'cheap' or 'full'"),
    ("nan_safe_zeros", 2, "expected True or False"),
    ("retrace_warning_after", -1, "a whole number >= 0"),
])
def test_bad_updates_name_the_switch(name, value, says):
    with pytest.raises((AttributeError, ValueError), match=says):
        fgrad.config.update(name, value)
    assert fgrad.config.values()["nan_safe_zeros"] is True


def test_attributes_are_set_through_update():
    with pytest.raises(AttributeError, match=r"fgrad\.config\.update"):
        fgrad.config.nan_safe_zeros = False


def test_environment_sets_the_default():
    env = {**os.environ, "FGRAD_DEBUG_NANS": "cheap", "FGRAD_NAN_SAFE_ZEROS": "0"}
    out = subprocess.run([sys.executable, "-c", "import fgrad; print(fgrad.config.values())"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert "'nan_safe_zeros': False" in out and "'debug_nans': 'cheap'" in out


def test_listeners_hear_every_change_restores_included():
    from fgrad.autograd import anomaly_mode
    from fgrad.config import _LISTENERS
    heard = []
    fgrad.config.on_update("retrace_warning_after", heard.append)
    try:
        fgrad.config.update("retrace_warning_after", 3)
        with fgrad.config.overriding(retrace_warning_after=5):
            pass
        assert heard == [8, 3, 5, 3]  # (now, the update, the block, its restore)
    finally:
        _LISTENERS["retrace_warning_after"].remove(heard.append)
        fgrad.config.update("retrace_warning_after", 8)
    with fgrad.config.overriding(debug_nans="full"):  # (the Tensor face's tape keeps its own flag)
        assert anomaly_mode.nan_full and anomaly_mode.active()
    assert not anomaly_mode.nan_full and not anomaly_mode.active()
