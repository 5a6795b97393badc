"""Devices: NumPy backs "cpu", CuPy backs "cuda:N"; values stay where they live."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.backend import Device, array_module, device_of


def test_cpu_device():
    cpu = fgrad.device("cpu")
    assert cpu == Device("cpu") == "cpu" and str(cpu) == "cpu" and cpu.xp is np
    assert device_of(np.ones(2)) == cpu and device_of(1.0) == cpu
    assert array_module(np.ones(2), 3.0) is np
    assert cpu.send([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_unknown_device_is_named():
    with pytest.raises(ValueError, match="unknown device 'tpu:0'"):
        fgrad.device("tpu:0")


def test_cuda_without_gpu_says_so():
    if fgrad.backend.cupy_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match=r"cuda:0.*CuPy and a GPU"):
        fgrad.device("cuda:0")


def test_tensor_device_and_to_cpu():
    t = fgrad.tensor([1.0, 2.0])
    assert t.device == "cpu" and t.to("cpu").tolist() == [1.0, 2.0]


@pytest.mark.gpu
def test_grad_on_cupy_arrays_stays_on_the_gpu():
    import cupy as cp
    x = cp.linspace(-1.0, 1.0, 8)
    g = fgrad.grad(lambda x: fnp.sum(fnp.tanh(x) * fnp.exp(x)))(x)
    assert isinstance(g, cp.ndarray)
    expected = (1 - np.tanh(x.get()) ** 2) * np.exp(x.get()) + np.tanh(x.get()) * np.exp(x.get())
    np.testing.assert_allclose(g.get(), expected, rtol=1e-12)


@pytest.mark.gpu
def test_matmul_hessian_on_cupy():
    import cupy as cp
    A = cp.asarray(np.random.default_rng(0).standard_normal((5, 5)))
    x = cp.ones(5)
    H = fgrad.hessian(lambda x: fnp.sum(fnp.tanh(A @ x) ** 2))(x)
    H_cpu = fgrad.hessian(lambda x: fnp.sum(fnp.tanh(A.get() @ x) ** 2))(np.ones(5))
    assert isinstance(H, cp.ndarray)
    np.testing.assert_allclose(H.get(), H_cpu, rtol=1e-10)


@pytest.mark.gpu
def test_tensor_backward_on_cuda():
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True, device="cuda:0")
    (x * x).sum().backward()
    assert x.grad.device == "cuda:0"
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
