"""Complex values through the functional transforms, by JAX's convention (Note [complex
derivatives] in fgrad/ops/conversion.py): the non-holomorphic rules against finite
differences in both directions, `holomorphic=True` and the refusals with JAX's messages,
and complex values under vmap, compile, custom rules and checkpoint. (Values against JAX
itself: tests/test_jax_complex.py.)"""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.testing import check_grads

Z = np.array([1.0 + 2.0j, -0.5 + 0.3j, 0.7 - 1.1j])
X = np.array([0.3, -1.2, 2.0])


@pytest.mark.parametrize("fun", [
    fnp.real, fnp.imag, fnp.conj, fnp.conjugate, fnp.abs, fnp.angle, fnp.sign,
    lambda z: z.real * z.imag, lambda z: z.conj() * z, lambda z: abs(z) ** 3,
    lambda z: fnp.astype(z, np.float64),
    lambda z: fnp.sin(z) * fnp.conj(z), lambda z: fnp.angle(z, deg=True),
], ids=["real", "imag", "conj", "conjugate", "abs", "angle", "sign", "parts", "conj_product", "abs_cubed",
        "astype_real", "sin_conj", "angle_deg"])
def test_non_holomorphic_rules_against_finite_differences(fun):
    """jvp and vjp against central differences along random complex tangents and the real and
    imaginary directions of every element, to second order, and the transpose identity."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # (astype to float64: NumPy's own)
        check_grads(fun, (Z,), order=2)


def test_complex64_stays_complex64():
    z = Z.astype(np.complex64)
    g = fgrad.grad(lambda z: fnp.sum(fnp.abs(z * z)))(z)
    assert g.dtype == np.complex64
    np.testing.assert_allclose(g, fgrad.grad(lambda z: fnp.sum(fnp.abs(z * z)))(Z), rtol=1e-5)
    g = fgrad.grad(lambda z: fnp.sum(fnp.abs(fnp.astype(z, np.complex64))))(Z)  # a cast's cotangent: back to complex128
    assert g.dtype == np.complex128
    check_grads(lambda z: fnp.astype(z, np.complex128) * z, (z,), order=1)


@pytest.mark.parametrize("fun", [
    lambda x: x * 1j, lambda x: fnp.exp(1j * x), lambda x: x + 0j, lambda x: fnp.astype(x, np.complex128),
    lambda x: fnp.abs(fnp.sqrt(x + 0j)), lambda x: (x * (1 + 2j)).imag, lambda x: fnp.sum(fnp.abs(x * (1 - 1j))),
], ids=["times_i", "phase", "plus_0j", "astype", "sqrt_of_negative", "imag_part", "abs_sum"])
def test_real_to_complex_and_back_against_finite_differences(fun):
    """A real input's cotangent is the real part of what reaches it (JAX's convert_element_type)."""
    check_grads(fun, (X,), order=2)


def test_grad_of_a_real_function_of_complex_input_is_jaxs():
    """jax.grad's values (the conjugate of the steepest-ascent direction: df/dx - i df/dy)."""
    assert fgrad.grad(lambda z: fnp.abs(z) ** 2)(3 + 4j) == 6 - 8j
    assert fgrad.grad(lambda z: z.imag ** 2)(2j) == -4j
    assert fgrad.grad(lambda z: (z * z).real)(1 + 2j) == 2 + 4j
    assert fgrad.grad(fnp.angle)(1 + 1j) == pytest.approx(-0.5 - 0.5j)
    np.testing.assert_allclose(fgrad.grad(lambda z: fnp.sum(fnp.abs(z)))(np.array([3 + 4j, 0j])), [0.6 - 0.8j, 0])
    assert fgrad.grad(lambda x: fnp.abs(x + 0j))(-2.0) == -1.0


def test_holomorphic_derivatives_are_f_prime():
    z = 1.0 + 1.0j
    assert fgrad.grad(lambda z: z * z * z, holomorphic=True)(z) == pytest.approx(3 * z * z)
    v, g = fgrad.value_and_grad(fnp.sin, holomorphic=True)(z)
    assert v == pytest.approx(np.sin(z)) and g == pytest.approx(np.cos(z))
    zs = np.array([0.5 + 1j, -1 + 0.2j])
    for jac in (fgrad.jacfwd, fgrad.jacrev, fgrad.jacobian):
        np.testing.assert_allclose(jac(fnp.exp, holomorphic=True)(zs), np.diag(np.exp(zs)), rtol=1e-14)
    assert fgrad.hessian(lambda z: z ** 3, holomorphic=True)(z) == pytest.approx(6 * z)


def test_jacobians_of_real_and_complex_sides():
    """jacrev of complex input and real output, jacfwd of real input and complex output: the
    columns are the cotangents and tangents, as JAX's."""
    np.testing.assert_allclose(fgrad.jacrev(lambda z: fnp.abs(z) ** 2)(Z[:1]), [[2 * np.conj(Z[0])]])
    np.testing.assert_allclose(fgrad.jacfwd(lambda x: fnp.exp(1j * x))(X), np.diag(1j * np.exp(1j * X)))
    # jacobian picks the mode that takes each (whatever the sizes say)
    np.testing.assert_allclose(fgrad.jacobian(lambda z: fnp.sum(fnp.abs(z) ** 2))(Z), 2 * np.conj(Z))
    np.testing.assert_allclose(fgrad.jacobian(lambda x: fnp.stack([x[0] * 1j, x[0] + 0j]))(X[:1]), [[1j], [1]])


_GRAD_COMPLEX_OUT = ("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got "
                     "complex128. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
                     "non-holomorphic functions involving complex outputs, use fgrad.vjp directly.")
_JACFWD_COMPLEX_IN = ("jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got "
                      "complex128. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
                      "non-holomorphic functions involving complex inputs or integer inputs, use fgrad.jvp directly.")


@pytest.mark.parametrize("run, message", [
    (lambda: fgrad.grad(lambda z: z * z)(1 + 1j), _GRAD_COMPLEX_OUT),
    (lambda: fgrad.grad(lambda x: x * 1j)(1.0), _GRAD_COMPLEX_OUT),
    (lambda: fgrad.value_and_grad(lambda z: z * z)(1 + 1j), _GRAD_COMPLEX_OUT.replace("grad", "value_and_grad", 1)),
    (lambda: fgrad.jacrev(lambda z: z * z)(Z), _GRAD_COMPLEX_OUT.replace("grad", "jacrev", 1)),
    (lambda: fgrad.jacfwd(lambda z: z * z)(Z), _JACFWD_COMPLEX_IN),
    (lambda: fgrad.hessian(lambda z: fnp.sum(z * z))(Z), _JACFWD_COMPLEX_IN.replace("jacfwd", "hessian", 1)),
    (lambda: fgrad.jacobian(lambda z: z * z)(Z), _GRAD_COMPLEX_OUT.replace("grad", "jacobian", 1)),
    (lambda: fgrad.grad(lambda x: x * 1j, holomorphic=True)(1.0),
     "grad with holomorphic=True requires inputs with complex dtype, but got float64."),
    (lambda: fgrad.grad(lambda z: fnp.abs(z), holomorphic=True)(1.0 + 1j),
     "grad with holomorphic=True requires outputs with complex dtype, but got float64."),
    (lambda: fgrad.jacfwd(lambda z: fnp.abs(z), holomorphic=True)(Z),
     "jacfwd with holomorphic=True requires outputs with complex dtype, but got float64."),
    (lambda: fgrad.jacrev(lambda x: x, holomorphic=True)(X),
     "jacrev with holomorphic=True requires inputs with complex dtype, but got float64."),
    (lambda: fgrad.jacfwd(lambda x: x, holomorphic=True)(X),
     "jacfwd with holomorphic=True requires inputs with complex dtype, but got float64."),
], ids=["grad", "grad_real_input", "value_and_grad", "jacrev", "jacfwd", "hessian", "jacobian",
        "holomorphic_real_input", "holomorphic_real_output", "jacfwd_real_output", "jacrev_real_input",
        "jacfwd_real_input"])
def test_refusals_carry_jaxs_messages(run, message):
    with pytest.raises(TypeError) as e:
        run()
    assert str(e.value) == message


def test_vjp_and_jvp_take_anything_complex():
    """vjp and jvp have no holomorphic flag (as JAX): the linear map and its transpose."""
    out, pull = fgrad.vjp(lambda z: z * z.conj(), Z)
    np.testing.assert_allclose(out, np.abs(Z) ** 2)
    ct = np.array([1.0 + 0.5j, 2.0, -1j])
    np.testing.assert_allclose(pull(ct)[0], ct * np.conj(Z) + np.conj(ct * Z))  # z's factor, and conj's transpose
    _, t = fgrad.jvp(lambda z: z * z.conj(), (Z,), (ct,))
    np.testing.assert_allclose(t, ct * np.conj(Z) + Z * np.conj(ct))
    _, f_jvp = fgrad.linearize(lambda z: fnp.exp(z).imag, Z)
    np.testing.assert_allclose(f_jvp(ct), np.imag(np.exp(Z) * ct))


def test_complex_values_under_vmap_compile_and_custom_rules():
    f = lambda z: fnp.abs(fnp.sin(z)) ** 2  # noqa: E731
    g = fgrad.grad(lambda z: fnp.sum(f(z)))
    zs = np.stack([Z, 2 * Z])
    np.testing.assert_allclose(fgrad.vmap(g)(zs), np.stack([g(Z), g(2 * Z)]), rtol=1e-14)
    compiled = fgrad.compile(g)
    compiled(Z * 1.01)
    np.testing.assert_allclose(compiled(Z), g(Z), rtol=1e-14)
    assert compiled.cache_info().misses == 1
    np.testing.assert_allclose(fgrad.grad(lambda z: fnp.sum(fgrad.checkpoint(f)(z)))(Z), g(Z), rtol=1e-14)

    @fgrad.custom_vjp
    def square(z):
        return z * z

    square.defvjp(lambda z: (z * z, z), lambda z, ct: (2.0 * z * ct,))  # holomorphic: no conjugate
    np.testing.assert_allclose(fgrad.grad(lambda z: fnp.sum(fnp.abs(square(z))))(Z),
                               fgrad.grad(lambda z: fnp.sum(fnp.abs(z * z)))(Z), rtol=1e-14)

    @fgrad.custom_jvp
    def cube(z):
        return z ** 3

    cube.defjvp(lambda primals, tangents: (primals[0] ** 3, 3.0 * primals[0] ** 2 * tangents[0]))
    np.testing.assert_allclose(fgrad.grad(lambda z: fnp.sum(cube(z).real))(Z), 3 * Z ** 2, rtol=1e-14)
