"""fgrad.cuda and fgrad.accelerator answer torch's device questions as CuPy sees the machine."""
import fgrad
from fgrad.backend.arrays import cupy_available


def test_the_answers_agree_with_cupy():
    assert fgrad.cuda.is_available() is cupy_available() is fgrad.accelerator.is_available()
    assert (fgrad.cuda.device_count() > 0) is cupy_available()
    device = fgrad.accelerator.current_accelerator()
    assert (device is None) is (not cupy_available())
    if device is not None:
        assert device.kind == "cuda" and fgrad.zeros(2, device=device.kind).device == device
