"""fgrad.accelerator: torch.accelerator's questions, answered by fgrad's only accelerator, CUDA
(through CuPy): `device = torch.accelerator.current_accelerator().type if
torch.accelerator.is_available() else "cpu"`."""
from . import cuda
from .backend import Device

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available() -> bool:
    """Is an accelerator (a CUDA device) available?"""
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> Device | None:
    """The CUDA device when one is available, else None (`check_available` is torch's: fgrad
    names CUDA only when CuPy sees a device, so it checks either way)."""
    return Device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """The number of accelerator devices."""
    return cuda.device_count()
