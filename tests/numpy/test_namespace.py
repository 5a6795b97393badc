"""fgrad.numpy's namespace is NumPy's names and fgrad's documented extras, and nothing of its
own machinery (issue 28: a computed `__all__` had exported six internals); splitting the
package by concept lost no name; the primitives' entry functions are exported themselves
(no call in between, the hot path); and every module of the package has a literal `__all__`."""
import ast
import pathlib
import types

import numpy as np

import fgrad.numpy as fnp
from fgrad.ops import elementwise as ew

PACKAGE = pathlib.Path(fnp.__file__).parent

# What fgrad.numpy exported before the split by concept (issue 28), the six leaked internals
# (CPU, decided, device_of, is_batched, is_staged, peek) left out: none may go missing.
BEFORE = set("""
abs absolute acos acosh add all allclose amax amin angle any append apply_along_axis apply_over_axes arange
arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around array
array_equal array_equiv array_split asarray asin asinh astype at atan atan2 atanh atleast_1d atleast_2d
atleast_3d average bartlett bincount bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not
bitwise_or bitwise_right_shift bitwise_xor blackman block bool bool_ bridge broadcast_arrays broadcast_shapes
broadcast_to c_ can_cast cbrt cdouble ceil character choose clip column_stack complex128 complex64
complexfloating compress concat concatenate conj conjugate convolve copy copysign corrcoef correlate cos cosh
count_nonzero cov cross csingle cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag
diag_indices diag_indices_from diagflat diagonal diff digitize divide divmod dot double dsplit dstack dtype e
ediff1d einsum einsum_path empty empty_like equal errstate euler_gamma exp exp2 expand_dims expm1 extract eye
fabs fill_diagonal finfo fix flatnonzero flexible flip fliplr flipud float16 float32 float64 float_power
floating floor floor_divide fmax fmin fmod frexp fromfunction full full_like gcd generic geomspace geterr
geterrcall getitem gradient greater greater_equal hamming hanning heaviside histogram histogram2d
histogram_bin_edges histogramdd hsplit hstack hypot i0 identity iinfo imag index_exp indices inexact inf inner
insert int16 int32 int64 int8 int_ integer interp intersect1d invert isclose iscomplex iscomplexobj isdtype
isfinite isin isinf isnan isneginf isposinf isreal isrealobj isscalar issubdtype iterable ix_ kaiser kron lcm
ldexp left_shift less less_equal lexsort linalg linspace log log10 log1p log2 logaddexp logaddexp2 logical_and
logical_not logical_or logical_xor logspace mask_indices matmul matrix_transpose matvec max maximum mean
median meshgrid methods mgrid min minimum mod modf moveaxis multiply nan nan_to_num nanargmax nanargmin
nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar
ndarray ndim negative newaxis nextafter nonzero not_equal number object_ ogrid ones ones_like outer packbits
pad partition percentile permute_dims pi piecewise place poly polyadd polyder polydiv polyfit polyint polymul
polysub polyval positive pow power prod promote_types ptp put put_along_axis quantile r_ rad2deg radians ravel
ravel_multi_index real reciprocal remainder repeat reshape resize result_type right_shift rint roll rollaxis
roots rot90 round row_stack s_ searchsorted select setdiff1d seterr seterrcall setxor1d shape sign signbit
signedinteger sin sinc single sinh size sort sort_complex spacing split sqrt square squeeze stack std subtract
sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose trapezoid tri tril tril_indices
tril_indices_from trim_zeros triu triu_indices triu_indices_from true_divide trunc ufunc uint uint16 uint32
uint64 uint8 union1d unique unique_all unique_counts unique_inverse unique_values unpackbits unravel_index
unsignedinteger unstack unwrap vander var vdot vecdot vecmat vectorize vsplit vstack where zeros zeros_like
""".split())

LEAKED = {"CPU", "decided", "device_of", "is_batched", "is_staged", "peek"}

# fgrad's own names in fgrad.numpy, each documented where it is defined.
EXTRAS = {
    "at": "functional updates, as JAX's x.at[i]: fnp.at(x)[i].set(v) (docs/sharp-bits.md)",
    "getitem": "a[index] as a function: traced values' __getitem__",
}


def _public(module):
    return {name for name in dir(module) if not name.startswith("_")}


def _is_own_module(name):
    """A module of this package (bridge, linalg, methods: its files, listed in its docstring)."""
    value = getattr(fnp, name)
    return isinstance(value, types.ModuleType) and value.__name__ == f"fgrad.numpy.{name}"


def test_none_of_the_internals_is_exported():
    assert not _public(fnp) & LEAKED, f"fgrad.numpy exports internals: {sorted(_public(fnp) & LEAKED)}"


def test_every_exported_name_is_numpys_or_a_documented_extra():
    odd = sorted(name for name in _public(fnp)
                 if not hasattr(np, name) and name not in EXTRAS and not _is_own_module(name))
    assert not odd, f"fgrad.numpy exports names NumPy does not have: {odd} (an internal, or an extra to document)"


def test_no_exported_name_was_lost():
    lost = sorted(BEFORE - _public(fnp))
    assert not lost, f"fgrad.numpy no longer exports {lost}"


def test_the_entry_functions_are_exported_under_every_numpy_name_they_declare():
    """fgrad.numpy.sin is ops.elementwise.sin, under each NumPy name the primitive declares
    (np.copy aside: fgrad.numpy.copy also takes lists)."""
    wrong = sorted(name for entry in vars(ew).values() for name in getattr(entry, "numpy_names", ())
                   if name != "copy" and getattr(fnp, name, None) is not entry)
    assert not wrong, f"not the primitives' entry functions in fgrad.numpy: {wrong}"


def _all_of(path):
    """The module's `__all__` as written: a literal list of strings, or None."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            value = node.value
            if isinstance(value, ast.List) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                   for e in value.elts):
                return [e.value for e in value.elts]
    return None


def test_every_module_has_a_literal_all_naming_what_it_defines():
    modules = sorted(p for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert len(modules) > 10
    for path in modules:
        names = _all_of(path)
        assert names is not None, f"fgrad/numpy/{path.name}: give it a literal __all__ (a list of names)"
        module = __import__(f"fgrad.numpy.{path.stem}", fromlist=["_"])
        missing = [name for name in names if not hasattr(module, name)]
        assert not missing, f"fgrad/numpy/{path.name}'s __all__ names what it does not define: {missing}"
        assert len(set(names)) == len(names), f"fgrad/numpy/{path.name}'s __all__ names a name twice"


def test_the_modules_star_imported_export_each_name_once():
    """A name in two modules' `__all__` would be exported from whichever is imported last."""
    seen = {}
    for path in sorted(PACKAGE.glob("_*.py")):
        for name in _all_of(path) or ():
            if not name.startswith("_"):
                seen.setdefault(name, []).append(path.name)
    twice = {name: files for name, files in seen.items() if len(files) > 1}
    assert not twice, f"exported by more than one module: {twice}"
