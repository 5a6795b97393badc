"""Type checkers see fgrad (issue 34): it ships `py.typed`; fgrad.numpy's and fgrad.scipy's names
have signatures in stubs generated from the runtime (tools/make_stubs.py), which must agree with
it name for name and parameter for parameter; and `mypy --strict` on a user program of the docs,
functional and imperative, finds no error, while it does find the type errors of a wrong program
(so the types are not all Any).

mypy reads fgrad from this checkout (MYPYPATH), its modules followed silently as an installed,
typed package's are: errors inside fgrad's own bodies are not the user's to see."""
import ast
import importlib
import importlib.util
import inspect
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("make_stubs", ROOT / "tools" / "make_stubs.py")
make_stubs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_stubs)


# ---- the stubs and the runtime ----------------------------------------------------------
def test_py_typed_is_shipped():
    assert (ROOT / "fgrad" / "py.typed").exists()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'fgrad = \[.*"py\.typed".*"\*\*/\*\.pyi".*\]', pyproject), "package data: py.typed and .pyi"


def test_stubs_are_up_to_date():
    """Each stub is what tools/make_stubs.py writes from the runtime now."""
    stale = sorted(str(path.relative_to(ROOT)) for path, text in make_stubs.stubs().items()
                   if not path.exists() or path.read_text() != text)
    assert not stale, f"stale stubs {stale}: run `python tools/make_stubs.py` (a name or a signature changed)"


def _stub_names(tree):
    """{name: its def node or None}: what a stub's top level declares."""
    names = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = None
        elif isinstance(node, ast.ImportFrom):  # (a stub re-exports `from m import a as a`, not `import m as n`)
            names.update({alias.asname: None for alias in node.names if alias.asname == alias.name})
    return names


def _stub_parameters(node):
    a = node.args
    return ([(p.arg, "positional-only") for p in a.posonlyargs] + [(p.arg, "positional") for p in a.args]
            + ([(a.vararg.arg, "*")] if a.vararg else []) + [(p.arg, "keyword-only") for p in a.kwonlyargs]
            + ([(a.kwarg.arg, "**")] if a.kwarg else []))


_KINDS = {inspect.Parameter.POSITIONAL_ONLY: "positional-only", inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
          inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.KEYWORD_ONLY: "keyword-only",
          inspect.Parameter.VAR_KEYWORD: "**"}


@pytest.mark.parametrize("path", sorted(p for p in make_stubs.stubs() if p.name != "_tensor_methods.pyi"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_stub_declares_the_runtime_names_and_parameters(path):
    """Read independently of the generator: the stub's names are the module's public names (none
    missing, none extra), and each function's parameters are the runtime's, in order and kind."""
    modname = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    module = importlib.import_module(modname)
    declared = _stub_names(ast.parse(path.read_text()))
    runtime = set(make_stubs.public_names(module))
    missing = sorted(runtime - set(declared))
    assert not missing, f"{path.name} lacks {missing}: rerun tools/make_stubs.py"
    extra = {name for name in set(declared) - runtime if not name.startswith("_")}
    assert not extra, f"{path.name} declares {sorted(extra)}, which {modname} does not have"
    for name, node in declared.items():
        if isinstance(node, ast.FunctionDef):
            sig = inspect.signature(getattr(module, name))
            assert _stub_parameters(node) == [(p.name, _KINDS[p.kind]) for p in sig.parameters.values()], (
                f"{modname}.{name}: the stub's parameters are not the runtime's {sig}")


def test_the_stubs_do_not_hang_on_what_was_imported_before():
    """fgrad.numpy's implementation modules (coverage, bridge) are its attributes once imported;
    the stub is the same either way (the fresh-clone CI imported coverage first and failed)."""
    import fgrad.numpy
    import fgrad.numpy.coverage
    names = make_stubs.public_names(fgrad.numpy)
    assert "coverage" not in names and "bridge" not in names and {"linalg", "fft", "sum"} <= set(names)
    assert make_stubs.render("fgrad.numpy")[0] == (ROOT / "fgrad/numpy/__init__.pyi").read_text()


def _functions_on_a_tensor():
    """(stub module, name, what the function gives for a Tensor first argument) for each stubbed
    function that runs on one Tensor alone."""
    import warnings

    import numpy as np

    import fgrad
    t = fgrad.tensor(np.eye(3) + 0.5, requires_grad=True)
    for path in make_stubs.stubs():
        modname = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        if path.name == "_tensor_methods.pyi" or modname in make_stubs.ALIASES:
            continue
        module = importlib.import_module(modname)
        for name in make_stubs.public_names(module):
            fn = getattr(module, name)
            if not inspect.isfunction(fn) or make_stubs.RETURNS.get(f"{modname}:{name}", "Array") != "Array":
                continue
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    result = fn(t)
            except Exception:  # (it needs more arguments, or another kind of first argument)
                continue
            if not isinstance(result, tuple):  # (where(t) alone is nonzero(t): its stub's result is Array's)
                yield modname, name, result


def test_the_tensor_overloads_are_the_runtimes():
    """A stubbed array function gives a Tensor for a Tensor (its stub's overload says so), except
    those of make_stubs.NOT_TENSOR, which give a constant array, a bool or a count."""
    import fgrad
    wrong = [f"{modname}:{name} gives {type(result).__name__}" for modname, name, result in _functions_on_a_tensor()
             if isinstance(result, fgrad.Tensor) == (f"{modname}:{name}" in make_stubs.NOT_TENSOR)]
    assert not wrong, f"make_stubs.NOT_TENSOR disagrees with the runtime: {wrong}"


def test_every_public_name_of_fgrad_numpy_has_a_stub():
    """The stubs cover the namespaces users import (fgrad.numpy and its linalg and fft)."""
    paths = {str(p.relative_to(ROOT)) for p in make_stubs.stubs()}
    assert {"fgrad/numpy/__init__.pyi", "fgrad/numpy/linalg.pyi", "fgrad/numpy/fft.pyi",
            "fgrad/scipy/special.pyi"} <= paths
    text = (ROOT / "fgrad/numpy/__init__.pyi").read_text()
    assert "def sum(a: Any, axis: Any = ..., dtype: Any = ..., out: Any = ..., keepdims: Any = ...) -> Array" in text


# ---- the torch face's annotations ---------------------------------------------------------
# The namespaces of the imperative face, written as Python (no stubs): every public function, and
# every public method, constructor and forward of their classes, is annotated, parameters and result
# (an unannotated one is "untyped" to mypy --strict: calling it is an error in a user's program).
ANNOTATED = ["fgrad", "fgrad.nn", "fgrad.nn.functional", "fgrad.nn.init", "fgrad.nn.utils", "fgrad.optim",
             "fgrad.optim.lr_scheduler", "fgrad.utils.data", "fgrad.linalg", "fgrad.fft", "fgrad.special",
             "fgrad.autograd", "fgrad.autograd.functional", "fgrad.autograd.forward_ad", "fgrad.autograd.profiler",
             "fgrad.tree_util", "fgrad.flatten_util"]
# What a trace calls, not a user: the interpreter protocol of custom rules and of a dual level.
NOT_USERS = {"custom_jvp", "custom_vjp", "DualLevel"}


def _unannotated(fn):
    params = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("self", "cls")]
    return inspect.signature(fn).return_annotation is inspect.Parameter.empty or any(
        p.annotation is inspect.Parameter.empty for p in params)


def _callables(module):
    for name in make_stubs.public_names(module):
        obj = getattr(module, name)
        if (getattr(obj, "__module__", None) or "").startswith("fgrad") and name not in NOT_USERS:
            if inspect.isclass(obj):  # (its own methods: those bound at import are in _tensor_methods.pyi)
                yield from ((f"{name}.{m}", f) for m, f in vars(obj).items()
                            if inspect.isfunction(f) and (not m.startswith("_") or m in ("__init__", "__call__"))
                            and f.__qualname__.startswith(f"{obj.__qualname__}."))
            elif inspect.isfunction(obj):
                yield name, obj


@pytest.mark.parametrize("modname", ANNOTATED)
def test_the_torch_face_is_annotated(modname):
    module = importlib.import_module(modname)
    missing = sorted(name for name, fn in _callables(module) if _unannotated(fn))
    assert not missing, f"{modname}: not annotated (untyped to mypy --strict): {missing}"


# ---- mypy --strict on user programs -------------------------------------------------------
USER_PROGRAM = '''
"""Fit a small model twice: the functional face (fgrad.numpy, grad, vmap, compile) and the
imperative one (Tensor, nn, optim), as docs/getting-started.md and docs/autograd-users.md do."""
import io

import numpy as np

import fgrad
import fgrad.fft
import fgrad.linalg
import fgrad.numpy as fnp
import fgrad.nn.functional as F
import fgrad.special
from fgrad import nn, optim
from fgrad.typing import Array
from fgrad.utils.data import DataLoader, TensorDataset


# ---- the functional face ----------------------------------------------------------------
def loss(w: Array, x: Array, y: Array) -> Array:
    pred = fnp.tanh(x @ w)
    return fnp.mean((pred - y) ** 2) + 0.1 * fnp.sum(fnp.sin(w) ** 2)


def predict(w: Array, x: Array) -> Array:
    return fnp.dot(x, w)


rng = np.random.default_rng(0)
x = rng.normal(size=(8, 3))
y = rng.normal(size=8)
w = np.zeros(3)

g = fgrad.grad(loss)(w, x, y)
value, g2 = fgrad.value_and_grad(loss)(w, x, y)
batched = fgrad.vmap(predict, in_axes=(None, 0))(w, x)
per_example = fgrad.vmap(fgrad.grad(loss), in_axes=(None, 0, 0))(w, x, y)
fast_loss = fgrad.compile(loss)
l2: Array = fast_loss(w, x, y)
jac = fgrad.jacfwd(predict)(w, x)
jac2 = fgrad.jacrev(predict, argnums=1)(w, x)
hess = fgrad.hessian(loss)(w, x, y)
out, pullback = fgrad.vjp(predict, w, x)
dw, dx = pullback(np.ones(8))
primal, tangent = fgrad.jvp(predict, (w, x), (np.ones(3), np.zeros((8, 3))))
step = fgrad.compile(fgrad.grad(loss))
for _ in range(3):
    w = w - 0.1 * step(w, x, y)

z = fnp.linalg.norm(fnp.exp(w)) + fnp.fft.fft(w).real.sum()
stacked = fnp.stack([fnp.zeros(3), fnp.ones(3)], axis=0)
m = fnp.where(stacked > 0.5, stacked, 0.0).reshape(-1)
u, s, vt = fnp.linalg.svd(stacked)
eig = fnp.linalg.eigh(stacked @ stacked.T)
n: int = fnp.ndim(stacked) + len(fnp.shape(stacked))
if fnp.allclose(m, m):
    print(float(value), g.shape, g2.dtype, batched.shape, per_example.shape, jac.shape, jac2, hess.shape, l2)
print(out, dw, dx, primal, tangent, z, u, s, vt, eig.eigenvalues, n, fnp.pi, fnp.float32(1.0))


@fgrad.custom_vjp
def clip_gradient(v: Array) -> Array:
    return v


def clip_fwd(v: Array) -> tuple[Array, None]:
    return v, None


def clip_bwd(res: None, gr: Array) -> tuple[Array]:
    return (fnp.clip(gr, -1.0, 1.0),)


clip_gradient.defvjp(clip_fwd, clip_bwd)
clipped: Array = clip_gradient(w)
print(clipped, fgrad.grad(lambda v: fnp.sum(clip_gradient(v)))(w))


# ---- the imperative face ----------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(3, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, inputs: fgrad.Tensor) -> fgrad.Tensor:
        hidden: fgrad.Tensor = self.hidden(inputs)
        result: fgrad.Tensor = self.out(hidden.relu())
        return result


model = MLP().float()  # (float32, as its inputs)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
inputs = fgrad.tensor(x, dtype=fgrad.float32)
targets = fgrad.tensor(y, dtype=fgrad.float32).reshape(-1, 1)
for _ in range(3):
    opt.zero_grad()
    err = ((model(inputs) - targets) ** 2).mean()
    err.backward()
    opt.step()
t = fgrad.tensor([1.0, 2.0], requires_grad=True)
(t * t + 2 * t).sum().backward()
grad: fgrad.Tensor | None = t.grad
assert t.requires_grad and t.grad_fn is None and t.is_leaf
with fgrad.no_grad():
    doubled = t * 2
shape: tuple[int, ...] = t.shape
print(err.item(), shape, t.dtype, t.data, grad, doubled.numpy(), model.hidden.weight.grad, t @ t)
fnp.sum(fnp.tanh(t) * fnp.concatenate([t, t])[:2]).backward()  # (fgrad.numpy on Tensors gives Tensors)

# torch's layers, losses, containers, optimizers and functions, as docs/pytorch-users.md uses them
net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2)).double()
adam = optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.99))
labels = fgrad.tensor([0, 1, 1, 0, 1, 0, 0, 1])
logits: fgrad.Tensor = net(fgrad.tensor(x))
ce = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels) + F.cross_entropy(logits, labels)
adam.zero_grad(set_to_none=True)
ce.backward()
adam.step()
hidden_t: fgrad.Tensor = F.relu(logits) + F.softmax(logits, dim=1) + fgrad.relu(logits) + fgrad.exp(logits)
hidden_a: Array = F.relu(x) + F.tanh(x)
total: fgrad.Tensor = fgrad.sum(logits, dim=1) + fgrad.cat([logits, logits], dim=0).mean() + logits.norm()
names = [name for name, _ in net.named_parameters()]
net.load_state_dict(net.state_dict())
print(hidden_t, hidden_a, total, names, net.eval(), fgrad.where(logits > 0, logits, 0.0), fgrad.split(logits, 1, 1))

# batches, a schedule, clipping, a checkpoint
loader = DataLoader(TensorDataset(inputs, targets), batch_size=4, shuffle=True,
                    generator=fgrad.Generator().manual_seed(0))
sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
for xb, yb in loader:
    opt.zero_grad()
    ((model(xb) - yb) ** 2).mean().backward()
    norm: fgrad.Tensor = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
lrs: list[float] = sched.get_last_lr()
buffer = io.BytesIO()
fgrad.save({"model": model.state_dict(), "opt": opt.state_dict()}, buffer)
print(len(loader), norm, lrs, fgrad.load(io.BytesIO(buffer.getvalue()))["model"].keys())

# torch's namespaces (fgrad.linalg, fgrad.fft, fgrad.special), forward mode and pytrees
square = fgrad.tensor(np.eye(3) * 2.0, requires_grad=True)
spectral: fgrad.Tensor = fgrad.linalg.inv(square).sum() + fgrad.fft.fft(square).abs().sum() + fgrad.special.erf(square)
q, r = fgrad.linalg.qr(square)
with fgrad.autograd.forward_ad.dual_level():
    dual = fgrad.autograd.forward_ad.make_dual(square, fgrad.ones(3, 3))
    tangent = fgrad.autograd.forward_ad.unpack_dual(dual.sin()).tangent
leaves, treedef = fgrad.tree_util.tree_flatten({"w": w, "b": [w, w]})
print(spectral, q, r, tangent, fgrad.tree_util.tree_unflatten(treedef, leaves))
'''

# Each line that mypy must flag, and the error code it must give.
WRONG_PROGRAM = '''
import numpy as np

import fgrad
import fgrad.numpy as fnp
from fgrad.typing import Array


def f(w: Array) -> Array:
    return fnp.sum(w ** 2)


x = np.ones(3)
fgrad.grad("not a function")  # E: arg-type
fnp.sum(x, axes=0)  # E: call-overload
fnp.linalg.norm(x, 2, 0, False, 1)  # E: call-overload
fgrad.grad(f)(x, x)  # E: call-arg
fgrad.compile(f)(x, extra=1)  # E: call-arg
label: str = fgrad.compile(f)(x)  # E: assignment
count: int = fnp.sum(x)  # E: assignment
fnp.sum(x).backward()  # E: attr-defined
t = fgrad.tensor([1.0])
t.requires_grad = "yes"  # E: assignment
t.no_such_method()  # E: attr-defined
fgrad.optim.SGD([t], lr="fast")  # E: arg-type
on_tensor: fgrad.Tensor = fgrad.nn.functional.relu(x)  # E: assignment
fgrad.nn.Linear(3, 2).train("yes")  # E: arg-type
fgrad.relu(t).no_such_method()  # E: attr-defined
fgrad.utils.data.DataLoader([1.0, 2.0], batch_size="4")  # E: arg-type
'''


def _expected_errors(source):
    return {i: code for i, line in enumerate(source.splitlines(), 1)
            for code in re.findall(r"# E: ([\w-]+)", line)}


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory):
    """mypy --strict on both programs, one run: {file name: [(line, code, message)]}."""
    pytest.importorskip("mypy")
    tmp = tmp_path_factory.mktemp("mypy")
    (tmp / "user_program.py").write_text(textwrap.dedent(USER_PROGRAM).lstrip())
    (tmp / "wrong_program.py").write_text(textwrap.dedent(WRONG_PROGRAM).lstrip())
    (tmp / "mypy.ini").write_text("[mypy]\nstrict = True\n\n[mypy-fgrad.*]\nfollow_imports = silent\n")
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir",
                          str(tmp / "cache"), "--show-error-codes", "--no-pretty", "--no-color-output",
                          "user_program.py", "wrong_program.py"],
                         cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    errors = {}
    for line in run.stdout.splitlines():
        match = re.match(r"(\w+\.py):(\d+): error: (.*)  \[([\w-]+)\]$", line)
        if match:
            errors.setdefault(match[1], []).append((int(match[2]), match[4], match[3]))
    assert run.returncode in (0, 1) and "error: INTERNAL" not in run.stderr, run.stdout + run.stderr
    return errors, run.stdout


def test_the_user_program_runs(tmp_path):
    """It is a program, not only text to type-check: what mypy accepts also runs."""
    (tmp_path / "user_program.py").write_text(textwrap.dedent(USER_PROGRAM).lstrip())
    run = subprocess.run([sys.executable, "user_program.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr[-3000:]


@pytest.mark.slow
def test_mypy_strict_passes_on_a_user_program(mypy_output):
    errors, stdout = mypy_output
    assert not errors.get("user_program.py"), "mypy --strict on the user program:\n" + "\n".join(
        line for line in stdout.splitlines() if line.startswith("user_program.py"))


@pytest.mark.slow
def test_mypy_catches_type_errors_through_fgrads_types(mypy_output):
    errors, stdout = mypy_output
    found = {line: code for line, code, _ in errors.get("wrong_program.py", [])}
    expected = _expected_errors(textwrap.dedent(WRONG_PROGRAM).lstrip())
    missed = {line: code for line, code in expected.items() if found.get(line) != code}
    unexpected = {line: code for line, code in found.items() if line not in expected}
    assert not missed and not unexpected, f"missed {missed}, unexpected {unexpected}:\n{stdout}"
