"""NaN provenance (fgrad.config's debug_nans, Note [NaN provenance] in transforms/debug_nans.py):
a derivative that holds a NaN or inf its inputs did not raises NonFiniteError naming the op
that made it and the user's line: made in the forward pass, in the backward pass, in a custom
rule, inside vmap and compile, and on the Tensor face. The nan_safe_zeros policy is switched
off where a case needs the NaN it would otherwise prevent."""
import inspect
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.errors import NonFiniteError

X = np.array([0.0, 1.0, 4.0])


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's own divide-by-zero warnings)
        yield


def _line(fn, text):
    """The number of the line of fn's source that holds `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def masked_sqrt(x):
    y = fnp.sqrt(x)  # made here
    return fnp.sum(fnp.where(x > 0, y, 0.0))


def shifted_sqrt(x):
    return fnp.sum(fnp.sqrt(x - 2.0))  # nan in the forward pass below 2


def plain_sqrt(x):
    return fnp.sqrt(x)


def x_log_x(x):
    z = fnp.log(x)  # -inf at 0
    return fnp.sum(x * z)  # 0 * -inf: nan


def _raises(call, *needles):
    with pytest.raises(NonFiniteError) as info:
        call()
    for needle in needles:
        assert needle in str(info.value), (needle, str(info.value))
    return info.value


def test_a_nan_made_in_the_backward_pass_names_the_rule_and_the_forward_line():
    line = _line(masked_sqrt, "made here")
    with fgrad.config.overriding(debug_nans="cheap", nan_safe_zeros=False):
        e = _raises(lambda: fgrad.grad(masked_sqrt)(X), "grad's gradient holds nan", "derivative rule of `sqrt`",
                    f"line {line}", "y = fnp.sqrt(x)")
        assert isinstance(e, FloatingPointError)
        assert e.origin.node == "sqrt" and e.origin.node_where[1] == line and e.origin.kind == "nan"
        _raises(lambda: fgrad.vjp(masked_sqrt, X)[1](1.0), "vjp's cotangent of primals[0]", f"line {line}")
        _raises(lambda: fgrad.jacrev(masked_sqrt)(X), "jacrev", f"line {line}")
        _raises(lambda: fgrad.value_and_grad(masked_sqrt)(X), "value_and_grad's gradient", f"line {line}")
    with fgrad.config.overriding(nan_safe_zeros=False):  # (the switch off: JAX's numbers, no check)
        assert np.isnan(fgrad.grad(masked_sqrt)(X)[0])


def test_a_nan_made_in_the_forward_pass_names_its_op_and_line():
    line = _line(shifted_sqrt, "nan in the forward pass")
    with fgrad.config.overriding(debug_nans="cheap"):
        e = _raises(lambda: fgrad.grad(shifted_sqrt)(X), "`sqrt` of float64[3] made nan from finite values",
                    f"line {line}")
        assert e.origin.node is None and e.origin.operands == ["float64[3]"]
        # inf, then nan from it: both ops named, each with its line
        _raises(lambda: fgrad.grad(x_log_x)(X), "`multiply`", "made nan from inf", f"line {_line(x_log_x, '0 * -inf')}",
                "`log` of float64[3] made inf", f"line {_line(x_log_x, '-inf at 0')}")


def test_a_nan_made_in_a_custom_rule_names_the_rules_line():
    @fgrad.custom_vjp
    def h(x):
        return fnp.sin(x)

    def h_bwd(x, g):
        return (g * fnp.log(x - 1.0),)  # the rule's nan
    h.defvjp(lambda x: (fnp.sin(x), x), h_bwd)
    with fgrad.config.overriding(debug_nans="cheap"):
        _raises(lambda: fgrad.grad(lambda x: fnp.sum(h(x)))(X), "`log`", "custom_vjp[h]",
                f"line {_line(h_bwd, 'the rule')}")


def test_inside_vmap_jvp_hessian_and_compile():
    line = _line(masked_sqrt, "made here")
    batch = np.stack([X, X + 1.0])
    with fgrad.config.overriding(debug_nans="cheap", nan_safe_zeros=False):
        _raises(lambda: fgrad.vmap(fgrad.grad(masked_sqrt))(batch), "vmap's result", f"line {line}",
                "float64[2, 3]")
        _raises(lambda: fgrad.hessian(masked_sqrt)(X), "hessian", f"line {line}")
        _raises(lambda: fgrad.jvp(plain_sqrt, (X,), (np.ones(3),)), "jvp's tangent output", "made inf",
                f"line {_line(plain_sqrt, 'return')}")  # (the tangent's inf, made as the primal runs)
        step = fgrad.compile(fgrad.grad(masked_sqrt))
        np.testing.assert_allclose(step(X + 1.0), 0.5 / np.sqrt(X + 1.0))  # (finite: one isfinite per result)
        _raises(lambda: step(X), "compile's result", "derivative rule of `sqrt`", f"line {line}")
        np.testing.assert_allclose(step(X + 2.0), 0.5 / np.sqrt(X + 2.0))
        assert step.cache_info().traces == 1  # (the hit re-ran fun eagerly; the program stays)


def test_non_finite_inputs_and_finite_results_do_not_raise():
    with fgrad.config.overriding(debug_nans="cheap", nan_safe_zeros=False):
        g = fgrad.grad(masked_sqrt)(np.array([np.nan, 1.0]))  # (the NaN came in: not fgrad's to name)
        assert np.isnan(g[0]) and g[1] == 0.5
        np.testing.assert_allclose(fgrad.grad(masked_sqrt)(X + 1.0), 0.5 / np.sqrt(X + 1.0))
        assert fgrad.grad(lambda x: fnp.sum(x ** 2))(X).tolist() == [0.0, 2.0, 8.0]


def test_full_mode_raises_at_the_first_nan_even_where_it_is_masked_later():
    def masked_log(x):
        return fnp.sum(fnp.where(x > 0, fnp.log(x), 0.0))  # log(-1): nan, masked
    x = np.array([-1.0, 2.0])
    with fgrad.config.overriding(debug_nans="cheap"):  # (the gradient is finite: cheap lets it be)
        np.testing.assert_allclose(fgrad.grad(masked_log)(x), [0.0, 0.5])
    with fgrad.config.overriding(debug_nans="full"):
        _raises(lambda: fgrad.grad(masked_log)(x), "`log` of float64[2] made nan",
                f"line {_line(masked_log, 'log(-1)')}")
        assert fgrad.grad(lambda x: fnp.sum(x ** 2))(x).tolist() == [-2.0, 4.0]


def test_the_tensor_face_names_the_node_of_the_graph_that_is_still_there():
    with fgrad.config.overriding(debug_nans="cheap", nan_safe_zeros=False):
        x = fgrad.tensor(X, requires_grad=True)
        y = fgrad.where(x > 0, fgrad.sqrt(x), fgrad.zeros(3))
        _raises(lambda: y.sum().backward(), "backward() gave a leaf of shape (3,) a gradient holding nan",
                "SqrtBackward0", "detect_anomaly")
        assert np.isnan(x.grad.numpy()[0])  # (accumulated, as without the check)
        w = fgrad.tensor([1.0, 2.0], requires_grad=True)
        loss = (w * w).sum()
        loss.backward()  # (finite: the saved values go as without the check)
        with pytest.raises(fgrad.errors.FreedGraphError):
            loss.backward()
        loss = (w * w).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        np.testing.assert_allclose(w.grad.numpy(), [6.0, 12.0])


def test_python_number_inputs_are_followed():
    with fgrad.config.overriding(debug_nans="cheap"):
        _raises(lambda: fgrad.grad(plain_sqrt)(0.0), "grad's gradient holds inf", "derivative rule of `sqrt`",
                f"line {_line(plain_sqrt, 'return')}")
        _raises(lambda: fgrad.jvp(plain_sqrt, (0.0,), (1.0,)), "jvp's tangent output", "made inf")
        assert fgrad.grad(lambda x: x * x)(3.0) == 6.0


def forward_nan(x):
    y = fgrad.sqrt(x - 2.0)  # nan below 2
    return (y * 0.0).sum()


class NanRule(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        return fgrad.tensor(np.log(g.numpy() - 2.0))  # (NumPy's own op: the rule's result is checked)


class NanOpRule(NanRule):
    @staticmethod
    def backward(ctx, g):
        return g * fgrad.log(g - 2.0)  # the rule's op's nan


def test_full_mode_on_the_tensor_face_checks_every_op_forward_and_backward():
    x = fgrad.tensor(X + 3.0, requires_grad=True)
    with fgrad.config.overriding(debug_nans="full"):
        forward_nan(x).backward()  # (finite everywhere: no raise, the same gradient as off)
        np.testing.assert_allclose(x.grad.numpy(), np.zeros(3))
        x.grad = None
        _raises(lambda: forward_nan(fgrad.tensor(X, requires_grad=True)), "`sqrt` of float64[3] made nan",
                f"line {_line(forward_nan, 'nan below 2')}")
        _raises(lambda: forward_nan(fgrad.tensor(X)), "`sqrt`")  # (no grad recorded: checked all the same)
        inf = fgrad.tensor([np.inf, 1.0])
        _raises(lambda: inf - inf, "`subtract` of float64[2], float64[2] made nan from inf", "with an operand")
        error = _raises(lambda: NanRule.apply(x).sum().backward(), "backward() made a NaN: NanRuleBackward",
                        "the forward call", "NanRule.apply(x)")
        assert error.node is not None and x.grad is None
        error = _raises(lambda: NanOpRule.apply(x).sum().backward(), "`log` of float64[3] made nan",
                        f"line {_line(NanOpRule.backward, 'op')}", "in the backward of NanOpRuleBackward")
        assert error.node is not None and error.origin is not None and x.grad is None
    forward_nan(fgrad.tensor(X))  # (off again: the tape checks nothing)
    NanRule.apply(x).sum().backward()
    assert np.isnan(x.grad.numpy()).all()


def test_a_checked_call_in_one_thread_names_its_own_node_while_another_thread_differentiates():
    import threading
    a_in_rule, b_in_rule, a_done, reruns = threading.Event(), threading.Event(), threading.Event(), []

    @fgrad.custom_vjp
    def rule_a(x):
        return fnp.sin(x)

    def rule_a_bwd(x, g):
        reruns.append(1)
        if len(reruns) == 2:  # (the checked rerun: let thread B's backward start in between)
            a_in_rule.set()
            b_in_rule.wait(10)
        return (g * fnp.sqrt(x - 10.0),)  # nan: x is below 10
    rule_a.defvjp(lambda x: (fnp.sin(x), x), rule_a_bwd)

    @fgrad.custom_vjp
    def rule_b(x):
        return fnp.cos(x)

    def rule_b_bwd(x, g):
        b_in_rule.set()
        a_done.wait(10)
        return (g,)
    rule_b.defvjp(lambda x: (fnp.cos(x), x), rule_b_bwd)
    results = []

    def b():
        a_in_rule.wait(10)
        results.append(fgrad.grad(lambda x: fnp.sum(rule_b(x)))(X))
    with fgrad.config.overriding(debug_nans="cheap"):
        thread = threading.Thread(target=b)
        thread.start()
        try:
            error = _raises(lambda: fgrad.grad(lambda x: fnp.sum(rule_a(x)))(X), "custom_vjp[rule_a]",
                            f"line {_line(rule_a_bwd, 'nan: x is below 10')}")
            assert "rule_b" not in str(error)
        finally:
            a_done.set()
            thread.join(10)
    np.testing.assert_allclose(results[0], np.ones(3))
