"""Devices: NumPy backs "cpu", CuPy backs "cuda:N"; values stay where they live."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.backend import Device, array_module, device_of, numpy_device


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


@pytest.mark.gpu
@pytest.mark.parametrize("name, a", [("inv", np.ones((3, 3))), ("solve", np.ones((3, 3))),
                                     ("cholesky", -np.eye(3))])
def test_cupy_linalg_raises_where_numpy_does(name, a):
    """CuPy's linalg returns NaNs for a singular (or not positive definite) matrix where NumPy
    raises; fgrad raises NumPy's LinAlgError, naming the function, on both."""
    import cupy as cp
    args = (cp.asarray(a), cp.ones(3)) if name == "solve" else (cp.asarray(a),)
    with pytest.raises(np.linalg.LinAlgError, match=f"fgrad.numpy.linalg.{name}"):
        getattr(fnp.linalg, name)(*args)


# ---- a second NumPy device: multi-device behaviour without a GPU ---------------------------
CPU1 = fgrad.backend.register_numpy_device(1)


def on(x, dev=CPU1):
    return dev.send(np.asarray(x))


def test_devices_lists_the_cpu_and_the_second_numpy_device():
    assert fgrad.devices()[0] == "cpu" and CPU1 in fgrad.devices() and str(CPU1) == "cpu:1"
    assert fgrad.device("cpu:1") == CPU1
    with pytest.raises(ValueError, match="unknown device 'cpu:7'"):
        fgrad.device("cpu:7")


def test_values_and_derivatives_stay_on_their_device():
    x = on([0.5, 1.0, 2.0])
    f = lambda x: fnp.sum(fnp.sin(x) * x ** 2)  # noqa: E731
    assert device_of(f(x)) == CPU1
    g = fgrad.grad(f)(x)
    assert device_of(g) == CPU1
    np.testing.assert_allclose(np.asarray(g), fgrad.grad(f)(np.asarray(x).view(np.ndarray)))
    t = on(np.ones(3))
    _, tangent = fgrad.jvp(f, (x,), (t,))
    assert device_of(tangent) == CPU1
    assert device_of(fgrad.hessian(f)(x)) == CPU1


def test_an_op_on_two_devices_names_both_and_the_op():
    with pytest.raises(fgrad.backend.DeviceMismatchError, match=r"add got arrays on two devices, cpu:1 and cpu"):
        fnp.add(on([1.0, 2.0]), np.array([1.0, 2.0]))
    with pytest.raises(fgrad.backend.DeviceMismatchError, match=r"matmul got arrays on two devices"):
        fgrad.grad(lambda w: fnp.sum(w @ np.ones((2, 2))))(on(np.ones((2, 2))))


def test_an_array_librarys_own_refusal_is_named_with_the_devices_and_the_op(monkeypatch):
    # CuPy refuses a NumPy operand with a TypeError naming neither devices nor op; the second
    # device made to refuse that way, fgrad's binding points still name both and the op.
    def refuse_as_cupy_does(name, operands):
        if len({device_of(x) for x in operands if isinstance(x, np.ndarray)}) > 1:
            raise TypeError("Unsupported type <class 'numpy.ndarray'>")
    monkeypatch.setattr(numpy_device, "check_one_device", refuse_as_cupy_does)
    x = on([1.0, 2.0])
    with pytest.raises(fgrad.backend.DeviceMismatchError, match=r"add got arrays on two devices, cpu:1 and cpu") as e:
        fnp.add(x, np.array([1.0, 2.0]))
    assert isinstance(e.value.__cause__, TypeError)  # (the library's own error stays attached)
    with pytest.raises(fgrad.backend.DeviceMismatchError, match=r"matmul got arrays on two devices"):
        fgrad.grad(lambda w: fnp.sum(w @ np.ones((2, 2))))(on(np.ones((2, 2))))
    with pytest.raises(fgrad.backend.DeviceMismatchError, match=r"multiply got arrays on two devices"):
        fgrad.jvp(lambda w: w * np.ones(2), (x,), (on(np.ones(2)),))
    with pytest.raises(TypeError):  # one device: the error stays the library's own
        fnp.add(x, "a")


def test_device_put_is_differentiable_and_sends_the_gradient_back():
    x = np.array([0.5, 1.0, 2.0])
    g = fgrad.grad(lambda x: fnp.sum(fgrad.device_put(x, "cpu:1") ** 2))(x)
    assert device_of(g) == fgrad.device("cpu") and np.allclose(g, 2 * x)
    moved = fgrad.device_put({"a": x, "b": 1.5}, CPU1)
    assert device_of(moved["a"]) == CPU1 and device_of(moved["b"]) == CPU1


def test_tensor_to_records_and_its_gradient_comes_back():
    x = fgrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = x.to("cpu:1")
    assert y.device == CPU1 and y.grad_fn.name() == "ToCopyBackward0"
    (y.sin() * y).sum().backward()
    assert x.grad.device == "cpu"
    np.testing.assert_allclose(x.grad.numpy(), np.sin([0.5, 1.0, 2.0]) + np.array([0.5, 1.0, 2.0]) *
                               np.cos([0.5, 1.0, 2.0]))


def test_nodes_on_the_second_device_run_on_its_worker_thread():
    import threading

    before = fgrad.get_num_threads()
    fgrad.set_num_threads(2)
    seen = []

    class Spy(fgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            seen.append((threading.current_thread().name, str(fgrad.backend.device_of(g.primal))))
            return g

    x = fgrad.tensor(on([1.0, 2.0]), requires_grad=True)
    z = fgrad.tensor([3.0, 4.0], requires_grad=True)
    loss = Spy.apply(x * 2.0).sum().to("cpu") + Spy.apply(z).sum()
    try:
        loss.backward()
    finally:
        fgrad.set_num_threads(before)
    assert ("fgrad-cpu:1_0", "cpu:1") in seen and any(dev == "cpu" for _, dev in seen)
    assert x.grad.device == CPU1 and x.grad.tolist() == [2.0, 2.0] and z.grad.tolist() == [1.0, 1.0]


def test_scipy_function_falls_back_to_the_host_where_the_device_library_lacks_it():
    # (CuPy's cupyx.scipy lacks some functions: SciPy's runs on host copies, results copied back)
    class DeviceArray(np.ndarray):
        pass

    class FakeModule:  # (an array module that is neither NumPy nor a second NumPy device)
        ndarray = DeviceArray

        @staticmethod
        def asarray(x):
            return np.asarray(x).view(DeviceArray)

    x = np.array([0.1, 0.7]).view(DeviceArray)
    erf = fgrad.backend.scipy_function(FakeModule, "special", "erf", on_device=False)
    out = erf(x)
    assert type(out) is DeviceArray
    np.testing.assert_allclose(out, [0.1124629160182849, 0.6778011938374184], rtol=1e-15)
    assert fgrad.backend.scipy_function(np, "signal", "convolve") is __import__("scipy.signal").signal.convolve


@pytest.mark.parametrize("dev", [pytest.param(CPU1, id="cpu:1"),
                                 pytest.param("cuda:0", id="cuda:0", marks=pytest.mark.gpu)])
def test_host_decisions_return_to_the_arrays_device(dev):
    """Functions whose results NumPy decides on the host (sort's order, unique's values, where
    the nonzeros are) give results on their input's device, with the CPU's values and
    derivatives (on CUDA they had raised CuPy's TypeError on np.asarray)."""
    dev = fgrad.device(dev)
    x = np.array([3.0, -1.0, 2.0, -1.0, 5.0])
    w = np.arange(5.0)
    for f in [lambda x, w: fnp.sort(x) * w, lambda x, w: fnp.unique(x) ** 2, lambda x, w: fnp.extract(x > 0, x) ** 3,
              lambda x, w: fnp.compress(x > 0, x) ** 3, lambda x, w: fnp.median(x) * w,
              lambda x, w: fnp.take(x, fnp.argwhere(x > 0)[:, 0]) ** 2, lambda x, w: fnp.partition(x, 2) * w,
              lambda x, w: fnp.bincount(fnp.argsort(x) // 2, weights=x),
              lambda x, w: fnp.piecewise(x, [x < 0, x >= 0], [lambda t: t * t, lambda t: t + 1.0]),
              lambda x, w: fnp.histogram(x, bins=3, weights=w, density=True)[0]]:
        moved = dev.send(x), dev.send(w)
        got, want = f(*moved), f(x, w)
        assert device_of(got) == dev
        np.testing.assert_allclose(fgrad.device("cpu").send(got), want, rtol=1e-12)
        g = fgrad.grad(lambda x, w: fnp.sum(f(x, w)))(*moved)
        assert device_of(g) == dev
        np.testing.assert_allclose(fgrad.device("cpu").send(g), fgrad.grad(lambda x, w: fnp.sum(f(x, w)))(x, w),
                                   rtol=1e-12)
    for f in [fnp.argwhere, fnp.flatnonzero, lambda x: fnp.unique(x, return_counts=True)[1],
              lambda x: fnp.argpartition(x, 2), lambda x: fnp.isin(x, x[:2]), lambda x: fnp.unravel_index(
                  fnp.flatnonzero(x > 0), (5,))[0], lambda x: fnp.geomspace(x[0], x[4], 4)]:
        got = f(dev.send(x))
        assert device_of(got) == dev
        np.testing.assert_array_equal(fgrad.device("cpu").send(got), f(x))
