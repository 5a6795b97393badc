"""fgrad.nn.Module's attributes follow torch's Module.__setattr__: what parameters() yields is what
forward uses."""
import numpy as np
import pytest

import fgrad
from fgrad import nn, optim


def test_assigning_a_parameter_replaces_the_registered_one():
    model = nn.Sequential(nn.Linear(3, 1))
    new = nn.Parameter(np.zeros((1, 3)))
    model[0].weight = new
    params = list(model.parameters())
    assert len(params) == 2 and params[0] is new  # (the old weight was still trained before)
    opt = optim.SGD(model.parameters(), lr=1.0)
    model(fgrad.tensor(np.ones((1, 3)))).sum().backward()
    opt.step()
    np.testing.assert_allclose(model[0].weight.detach().numpy(), -np.ones((1, 3)))  # the weight forward uses


def test_a_parameter_over_a_child_module_replaces_it():
    model = nn.Sequential(nn.Linear(3, 1))
    model.extra = nn.Linear(2, 2)
    model.extra = nn.Parameter(np.zeros(2))  # the Linear's weight and bias are no longer trained
    assert [n for n, _ in model.named_parameters()] == ["extra", "0.weight", "0.bias"]
    del model.extra  # (a Module over a parameter raises, as in torch: delete it first)
    model.extra = nn.Linear(4, 4)
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias", "extra.weight", "extra.bias"]


@pytest.mark.parametrize("value,name", [(lambda: fgrad.tensor(np.zeros((1, 3))), "fgrad.Tensor"),
                                        (lambda: 3, "int"), (lambda: nn.Linear(2, 2), "Linear")])
def test_a_non_parameter_over_a_parameter_raises_as_torch(value, name):
    model = nn.Linear(3, 1)
    with pytest.raises(TypeError, match=f"cannot assign '.*{name}' as parameter 'weight' "
                                        r"\(fgrad.nn.Parameter or None expected\)"):
        model.weight = value()
    model.weight = None  # (None empties the slot, as in torch)
    assert [n for n, _ in model.named_parameters()] == ["bias"]


def test_child_modules_and_deletion_as_torch():
    seq = nn.Sequential(nn.Linear(2, 2))
    with pytest.raises(TypeError, match=r"cannot assign 'fgrad.Tensor' as child module '0'"):
        setattr(seq, "0", fgrad.tensor(np.zeros(2)))
    model = nn.Linear(2, 2)
    del model.weight  # then a plain tensor may take the name (forward_ad's tutorial does this)
    model.weight = fgrad.tensor(np.eye(2))
    assert [n for n, _ in model.named_parameters()] == ["bias"]
    no_bias = nn.Linear(2, 2, bias=False)
    assert no_bias.bias is None and [n for n, _ in no_bias.named_parameters()] == ["weight"]
    no_bias.bias = nn.Parameter(np.zeros(2))
    assert [n for n, _ in no_bias.named_parameters()] == ["weight", "bias"]


def test_torch_gives_the_same_messages():
    torch = pytest.importorskip("torch")
    lin = torch.nn.Linear(3, 1)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'weight' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        lin.weight = torch.zeros(1, 3)


def test_flatten_under_functional_call_of_arrays():
    """nn.Flatten called Tensor.flatten(start, end) on its input: under fgrad.func.functional_call
    of NumPy arrays (as a compiled training step passes them) that is ndarray.flatten(order)."""
    import fgrad.func
    model = fgrad.nn.Sequential(fgrad.nn.Flatten(), fgrad.nn.Linear(12, 2))
    x = np.random.default_rng(0).standard_normal((5, 3, 4))
    params = {k: v.detach().numpy() for k, v in model.named_parameters()}
    out = fgrad.func.functional_call(model, params, (x,))
    np.testing.assert_allclose(out, model(fgrad.tensor(x)).detach().numpy(), rtol=1e-12)
    g = fgrad.grad(lambda p: fgrad.func.functional_call(model, p, (x,)).sum())(params)
    assert g["1.weight"].shape == (2, 12)
