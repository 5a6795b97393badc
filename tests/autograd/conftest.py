"""Fixtures of the Tensor face's tests against torch."""
import pytest

import fgrad


@pytest.fixture(params=["float64", "float32"])
def default(request):
    """Both libraries' default dtype set to float64, then float32 (restored after the test)."""
    torch = pytest.importorskip("torch")
    before_torch, before_fgrad = torch.get_default_dtype(), fgrad.get_default_dtype()
    torch.set_default_dtype(getattr(torch, request.param))
    fgrad.set_default_dtype(getattr(fgrad, request.param))
    yield request.param
    torch.set_default_dtype(before_torch)
    fgrad.set_default_dtype(before_fgrad)
