"""Version counters, retain_graph, create_graph, anomaly mode, saved-tensor hooks, grad(), hooks."""
import threading

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import autograd


def test_inplace_on_saved_value_raises_with_versions():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y          # saves y (version 0)
    y.add_(1)          # version 1
    with pytest.raises(RuntimeError,
                       match=r"modified by an inplace operation.*MulBackward0.*version 1; expected version 0"):
        z.sum().backward()


def test_inplace_on_output_used_by_rule_raises():
    # Through an alias (detach shares the version counter): y's own in-place ops give the node a
    # copy of its output first (tests/autograd/test_imperative_misuse.py), an alias's cannot.
    x = fgrad.tensor([0.5], requires_grad=True)
    y = fnp.exp(x)
    y.detach().mul_(2)
    with pytest.raises(RuntimeError, match="ExpBackward0"):
        y.sum().backward()


def test_inplace_on_unsaved_value_is_fine_and_differentiable():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x + 1          # add saves nothing
    y.mul_(3)          # y = 3 (x + 1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    assert y._version == 1 and y.grad_fn.name() == "MulBackward0"


def test_inplace_ops_bump_version():
    t = fgrad.zeros(3)
    for op in (lambda: t.add_(1), lambda: t.mul_(2), lambda: t.zero_(), lambda: t.clamp_(0, 1),
               lambda: t.__iadd__(1), lambda: t.__imul__(2), lambda: t.__setitem__(0, 5.0),
               lambda: t.__setitem__(t > 3, 0.0)):
        before = t._version
        op()
        assert t._version == before + 1


def test_inplace_on_leaf_requiring_grad_raises():
    x = fgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with fgrad.no_grad():
        x.add_(1)  # allowed, as in optimizers
    assert x.item() == 2.0


def test_setitem_records_gradient():
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = fgrad.tensor([10.0], requires_grad=True)
    y = x * 1
    y[1] = v[0] * 2
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0, 6.0])
    np.testing.assert_allclose(v.grad.numpy(), [2 * 20.0 * 2])


def test_inplace_through_view_updates_base_history():
    x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    row = y[0]
    row.mul_(10)
    np.testing.assert_allclose(y.detach().numpy(), [[10.0, 20.0], [3.0, 4.0]])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[10.0, 10.0], [1.0, 1.0]])


def test_retain_graph():
    x = fgrad.tensor([2.0], requires_grad=True)
    y = (x ** 3).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 24.0
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_create_graph_double_backward():
    x = fgrad.tensor([2.0], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = autograd.grad(y, x, create_graph=True)
    assert g.item() == 12.0 and g.requires_grad
    (h,) = autograd.grad(g.sum(), x)
    assert h.item() == 12.0  # 6 x
    y2 = (fnp.sin(x) * x).sum()
    y2.backward(create_graph=True)
    first = x.grad
    x.grad = None
    first.sum().backward()
    assert x.grad.item() == pytest.approx(2 * np.cos(2.0) - 2.0 * np.sin(2.0))


def test_non_scalar_backward_needs_gradient():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        y.backward()
    y.backward(gradient=fgrad.tensor([1.0, 0.5]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 1.0])


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        fgrad.tensor([1.0]).sum().backward()


def test_autograd_grad_allow_unused_and_nonleaf_inputs():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    z = fgrad.tensor([3.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None
    np.testing.assert_allclose(gx.numpy(), [18.0, 36.0])
    (gh,) = autograd.grad(y, h)
    np.testing.assert_allclose(gh.numpy(), [6.0, 12.0])
    assert x.grad is None  # grad() does not accumulate


def test_grad_outputs_shape_checked():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        autograd.grad(x * 2, x, grad_outputs=fgrad.tensor([1.0, 2.0, 3.0]))


def test_hooks_on_nodes_and_post_accumulate():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    calls = []
    y.grad_fn.register_prehook(lambda grad_outputs: calls.append("pre") or (grad_outputs[0] * 10,))
    h = y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: calls.append("post"))
    x.register_post_accumulate_grad_hook(lambda t: calls.append(("acc", t.grad.numpy().tolist())))
    y.sum().backward()
    assert calls == ["pre", "post", ("acc", [20.0, 40.0])]
    h.remove()


def test_nonleaf_tensor_hook_replaces_gradient():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 0 + 1.0)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_retain_grad():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [4.0, 8.0])


def test_grad_mode_is_thread_local_and_decorates():
    x = fgrad.tensor([1.0], requires_grad=True)
    results = {}

    def worker():
        results["other"] = fgrad.is_grad_enabled()
    with fgrad.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not fgrad.is_grad_enabled()
        with fgrad.enable_grad():
            assert (x * 2).requires_grad
    assert results["other"] is True

    @fgrad.no_grad()
    def infer(v):
        return v * 2
    assert not infer(x).requires_grad
    fgrad.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    fgrad.set_grad_enabled(True)
    assert (x * 2).requires_grad


def test_detect_anomaly_names_node_and_source_line():
    x = fgrad.tensor([-1.0, 4.0], requires_grad=True)
    with autograd.detect_anomaly():
        y = fnp.sqrt(x)  # creation line: shown in the error
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    message = str(info.value)
    assert "SqrtBackward0" in message and "nan" in message
    assert "y = fnp.sqrt(x)" in message


def test_detect_anomaly_wraps_errors_in_backward():
    class Broken(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")
    x = fgrad.tensor([1.0], requires_grad=True)
    with autograd.detect_anomaly():
        y = Broken.apply(x)
        with pytest.raises(RuntimeError, match=r"(?s)Error detected in BrokenBackward.*boom.*y = Broken.apply"):
            y.sum().backward()


def test_saved_tensors_hooks_pack_and_unpack():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return ("offloaded", t.detach().numpy().copy())

    def unpack(p):
        unpacked.append(p[0])
        return fgrad.tensor(p[1])
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    assert packed and not unpacked
    y.backward()
    assert unpacked
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_function_gradient_count_and_shape_checked():
    class TooFew(autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    class WrongShape(autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum()

        @staticmethod
        def backward(ctx, g):
            return fgrad.ones(5)
    a = fgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients \\(expected 2, got 1\\)"):
        TooFew.apply(a, a).sum().backward()
    with pytest.raises(RuntimeError, match="invalid gradient at index 0"):
        WrongShape.apply(a).backward()


class Cube(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2

    @staticmethod
    def jvp(ctx, t):
        return t * 0  # deliberately unused by reverse mode; forward mode through jvp is checked below


def test_function_under_functional_transforms_and_gradcheck():
    f = lambda x: fnp.sum(Cube.apply(x))  # noqa: E731
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(fgrad.grad(f)(x), 3 * x ** 2)
    np.testing.assert_allclose(fgrad.grad(lambda x: fgrad.grad(f)(x).sum())(x), 6 * x)
    assert fgrad.gradcheck(Cube.apply, (x,))
    assert fgrad.gradgradcheck(Cube.apply, (x,))
    _, t = fgrad.jvp(Cube.apply, (x,), (np.ones(2),))
    np.testing.assert_allclose(t, 0.0)  # the Function's own jvp is used in forward mode


def test_non_differentiable_outputs():
    class SortWithIndex(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = fgrad.tensor(np.argsort(x.detach().numpy()))
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x[idx.numpy()], idx

        @staticmethod
        def backward(ctx, g, g_idx):
            (idx,) = ctx.saved_tensors
            out = fgrad.zeros(len(idx))
            out[idx.numpy()] = g
            return out
    x = fgrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, idx = SortWithIndex.apply(x)
    assert values.requires_grad and not idx.requires_grad
    (values * fgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 1.0, 2.0])


def test_forward_ad_dual_numbers():
    from fgrad.autograd import forward_ad as fwAD
    x = fgrad.tensor([1.0, 2.0])
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, fgrad.tensor([1.0, 0.0]))
        y = fnp.sin(dual) * dual
        primal, tangent = fwAD.unpack_dual(y)
    np.testing.assert_allclose(primal.numpy(), np.sin([1.0, 2.0]) * [1.0, 2.0])
    np.testing.assert_allclose(np.asarray(tangent), [np.cos(1.0) + np.sin(1.0), 0.0])
    with pytest.raises(RuntimeError, match="dual_level"):
        fwAD.make_dual(x, x)


def test_profiler_table():
    x = fgrad.tensor(np.ones((3, 3)), requires_grad=True)
    with autograd.profiler.profile() as prof:
        for _ in range(3):
            (fnp.tanh(x @ x) * 2).sum().backward()
    events = {e.key: e for e in prof.key_averages()}
    assert events["tanh"].count == 3 and events["TanhBackward0"].count == 3
    assert events["MmBackward0"].cpu_time_total > 0
    table = prof.key_averages().table(sort_by="cpu_time_total")
    assert "TanhBackward0" in table and "Calls" in table


def test_second_backward_through_a_rule_based_node_raises():
    # matmul is not an elementwise node: the values it saved must be released all the same.
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = fnp.concatenate([x, x]) @ fnp.concatenate([x, x])
    y.backward()
    with pytest.raises(RuntimeError, match=r"backward through the graph a second time.*at DotBackward0"):
        y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0, 12.0])


def test_grads_own_their_arrays():
    # add passes its cotangent through unchanged: the two .grad must still not share it,
    # nor share the user's gradient array.
    a = fgrad.tensor([1.0, 2.0], requires_grad=True)
    b = fgrad.tensor([3.0, 4.0], requires_grad=True)
    gradient = np.array([1.0, 1.0])
    (a + b).backward(gradient)
    a.grad.mul_(0.5)
    np.testing.assert_allclose(a.grad.numpy(), [0.5, 0.5])
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(gradient, [1.0, 1.0])


def test_grads_own_their_arrays_through_views_and_hooks():
    # reshape's rule hands back a view of the cotangent another leaf gets whole.
    a = fgrad.tensor([1.0, 2.0], requires_grad=True)
    b = fgrad.tensor([[3.0, 4.0]], requires_grad=True)
    (a + b.reshape(2)).sum().backward()
    a.grad.mul_(0.5)
    np.testing.assert_allclose(b.grad.numpy(), [[1.0, 1.0]])
    # A hook's result may be kept by the hook's owner.
    kept = fgrad.tensor([7.0, 7.0])
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: kept)
    (x * 2.0).sum().backward()
    x.grad.mul_(0.0)
    np.testing.assert_allclose(kept.numpy(), [7.0, 7.0])


def test_saved_tensors_hooks_with_create_graph():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    with autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        z = (x * x * x).sum()
    (g,) = autograd.grad(z, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 12.0])
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


def test_set_grad_enabled_as_decorator_switches_only_inside():
    assert autograd.is_grad_enabled()

    @autograd.set_grad_enabled(False)
    def inside():
        return autograd.is_grad_enabled()
    assert autograd.is_grad_enabled()  # decorating switched nothing
    assert inside() is False
    assert autograd.is_grad_enabled()  # and the call restored the mode


@pytest.mark.parametrize("method", ["copy_", "fill_"])
def test_copy_and_fill_from_a_tracked_source_ignore_the_old_values(method):
    target = fgrad.tensor([np.inf, np.nan])
    src = fgrad.tensor([1.0, 2.0] if method == "copy_" else 2.0, requires_grad=True)
    getattr(target, method)(src)
    np.testing.assert_allclose(target.detach().numpy(), [1.0, 2.0] if method == "copy_" else [2.0, 2.0])
    (target * 3).sum().backward()
    np.testing.assert_allclose(src.grad.numpy(), [3.0, 3.0] if method == "copy_" else 6.0)


@pytest.mark.parametrize("materialize", [True, False])
def test_function_backward_gets_none_for_unused_outputs_unless_materialized(materialize):
    seen = []

    class Split(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx, g2, g3):
            seen.append(g3)
            return g2 * 2.0 + (0.0 if g3 is None else g3 * 3.0)

    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    Split.apply(x)[0].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    if materialize:
        np.testing.assert_allclose(seen[0].numpy(), [0.0, 0.0])
    else:
        assert seen[0] is None


def test_backward_inputs_may_be_non_leaf_tensors():
    a = fgrad.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3.0
    (b * b).sum().backward(inputs=[b])
    np.testing.assert_allclose(b.grad.numpy(), [6.0, 12.0])  # d sum(b^2) / db
    assert a.grad is None  # only the inputs named get a .grad
    with pytest.raises(RuntimeError, match=r"backward\(inputs=\.\.\.\): input 0 does not require grad"):
        (a * a).sum().backward(inputs=[fgrad.tensor([1.0])])


def test_nn_softmaxes_are_scipys_and_mse_loss_names_shapes():
    import scipy.special

    from fgrad.nn import functional as F
    x = np.array([[1.0, 2.0, 3.0], [0.0, -np.inf, 5.0]])
    np.testing.assert_allclose(F.log_softmax(fgrad.tensor(x), dim=1).numpy(), scipy.special.log_softmax(x, axis=1))
    np.testing.assert_allclose(F.softmax(fgrad.tensor(x), dim=0).numpy(), scipy.special.softmax(x, axis=0))
    with pytest.raises(ValueError, match=r"input shape \(2, 3\) and target shape \(1,\) differ"):
        F.mse_loss(fgrad.tensor(x), [1.0])


def test_tape_keeps_only_what_the_rules_read():
    import weakref
    x = fgrad.tensor(np.linspace(0.1, 1.0, 4), requires_grad=True)
    W = fgrad.tensor(np.eye(4) * 2.0, requires_grad=True)
    h = x @ W                       # matmul reads its inputs, not its output
    a = h + 1.0                     # add reads nothing
    refs = [weakref.ref(h.primal), weakref.ref(a.primal)]
    y = fnp.tanh(a)                 # tanh reads its output only
    del h, a
    assert [r() for r in refs] == [None, None], "an intermediate no rule reads outlived its tensor"
    assert y.grad_fn.next_functions[0][0].next_functions[0][0].out is None  # MvBackward0 keeps no output
    y.sum().backward()
    t = np.tanh(np.linspace(0.1, 1.0, 4) * 2.0 + 1.0)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * (1.0 - t * t))
    np.testing.assert_allclose(W.grad.numpy(), np.outer(np.linspace(0.1, 1.0, 4), 1.0 - t * t))


def test_saved_tensors_hooks_pack_only_values_a_rule_reads():
    packed = []
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        y = fnp.exp(x + 1.0).sum()  # add and exp read no input (exp reads its output); sum reads nothing
    assert packed == [(3,)]  # exp's output, as PyTorch packs ExpBackward0's result
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([2.0, 3.0, 4.0]))


def test_create_graph_through_nodes_that_keep_no_values():
    x = fgrad.tensor([0.5, -1.0], requires_grad=True)
    z = (fnp.tanh(x + 1.0) * 3.0).sum()  # add and tanh keep no input, sum keeps nothing
    (g,) = autograd.grad(z, x, create_graph=True)
    t = np.tanh(np.array([1.5, 0.0]))
    np.testing.assert_allclose(g.detach().numpy(), 3.0 * (1.0 - t * t))
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * -2.0 * t * (1.0 - t * t))


def _node_summary(result):
    """What a recorded node holds, by identity where it keeps objects."""
    node = result.grad_fn
    saved = [(pos, counter if pos >= 0 else "out", version) for pos, counter, version in node.meta.saved or ()]
    primals = [p if p is None or isinstance(p, (np.ndarray, float)) else (p.shape, p.dtype) for p in node.primals]
    return (node.name(), node.prim, node.params, list(node.inputs), primals, node.out is not None, saved)


@pytest.mark.parametrize("case", ["sin", "exp", "mul_by_nograd_tensor", "mul_by_float", "float_minus",
                                  "add_broadcast_dtype", "square_same_tensor"])
def test_short_record_path_builds_the_node_the_general_path_builds(case):
    from fgrad.autograd import tape
    from fgrad.ops import elementwise as ew

    x = fgrad.tensor(np.linspace(0.1, 0.9, 6), requires_grad=True) * 1.0  # a non-leaf: its grad_fn is the edge
    w = fgrad.tensor(np.full(6, 2.0))
    y = fgrad.tensor(np.ones((2, 1), np.float32), requires_grad=True)
    prim, args = {"sin": (ew.sin, (x,)), "exp": (ew.exp, (x,)), "mul_by_nograd_tensor": (ew.multiply, (x, w)),
                  "mul_by_float": (ew.multiply, (x, 1.5)), "float_minus": (ew.subtract, (3.0, x)),
                  "add_broadcast_dtype": (ew.add, (x, y)), "square_same_tensor": (ew.multiply, (x, x))}[case]
    prim = prim.prim  # the entry function's primitive
    short, general = tape.record(prim, args, {}), tape.record_general(prim, args, {})
    assert _node_summary(short) == _node_summary(general)
    np.testing.assert_array_equal(short.primal, general.primal)


@pytest.mark.parametrize("mode", ["saved_tensors_hooks", "detect_anomaly", "set_detect_anomaly"])
def test_the_first_use_of_a_rare_mode_reaches_the_short_record_path(monkeypatch, mode):
    # The short record path reads these thread-locals only once a mode was ever turned on
    # (saved_hooks.ever_used, anomaly_mode.ever_enabled): turning one on must set its flag.
    from fgrad.autograd import anomaly_mode, saved_hooks

    monkeypatch.setattr(saved_hooks, "ever_used", False)
    monkeypatch.setattr(anomaly_mode, "ever_enabled", False)
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    packed = []
    context = {"saved_tensors_hooks": lambda: autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t,
                                                                                 lambda t: t),
               "detect_anomaly": autograd.detect_anomaly,
               "set_detect_anomaly": lambda: autograd.set_detect_anomaly(True)}[mode]
    with context():
        y = fnp.sin(x)  # one argument, one output: the short path unless the mode is seen
    if mode == "saved_tensors_hooks":
        assert len(packed) == 1 and y.grad_fn.meta.packed
    else:
        assert "y = fnp.sin(x)" in y.grad_fn.meta.stack
