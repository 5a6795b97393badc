"""fgrad.cuda: torch.cuda's questions about CUDA devices (CuPy's), for scripts that pick their
device as `"cuda" if torch.cuda.is_available() else "cpu"`."""
from .backend.arrays import cupy, cupy_available

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    """Can fgrad put arrays on a CUDA device (CuPy imports and sees one)?"""
    return cupy_available()


def device_count() -> int:
    """The number of CUDA devices CuPy sees (0 without CuPy)."""
    return cupy.cuda.runtime.getDeviceCount() if cupy_available() else 0
