"""fgrad.ops: the primitives, each declared once with its kernel and its derivative rules.

- primitive.py: `Primitive`, the traces' interface (`Trace.process`), the trace stack and `bind`.
- entries.py: the entry functions of elementwise primitives (what `fnp.sin` and `x * y` are).
- elementwise.py: NumPy's ufuncs as primitives, each with its partial derivatives in one line.
- special.py: scipy.special's kernels as elementwise primitives, with their partials.
- broadcasting.py: broadcast_to and sum (each other's transposes), and fitting a derivative
  to its primal's shape and dtype.
- conversion.py: convert between dtypes, and the complex parts (real, imag, conj): where real
  and complex values meet (Note [complex derivatives]).
- axes.py: reshape and transpose, and the composites written with them (moveaxis, expand_dims).
- shape.py: the other structural primitives: concatenate, flip, pad, diagonal.
- indexing.py: `x[index]`, gather and their transposes, scatter-adds into zeros.
- reductions.py: max, min, prod, cumsum, cumprod and the arg-reductions.
- einsum.py: one primitive for every Einstein summation.
- linalg.py: matmul, solve, inv, det, slogdet and the matrix decompositions.
- scipy_linalg.py: the primitives of fgrad.scipy.linalg (expm, triangular_solve, lu, sqrtm, ...).
- signal.py: the N-D convolution primitive of fgrad.scipy.signal.
- conv.py: windows (im2col) and unwindows (col2im), behind fgrad.nn's convolutions and pools; window_max for max pools.
- fft.py: the FFT primitives of fgrad.numpy.fft (complex to complex, rfft, irfft).
- devices.py: the transfer primitive between devices, and device_put.
- batching.py: what the batching rules share (the elementwise rule, moving a batch axis).
- zeros.py: concrete zeros where a rule needs an array (None is the one symbolic zero).
- transpose.py: vjps of the matrix decompositions, by transposing their jvp rules.
- stop_gradient.py: the identity whose derivative is zero.

Rules are written in these ops, so an enclosing transform traces them. Ops sit below the
transforms and never import them (what they need of one is set from above: see
transpose.vjp, primitive.record_tensor_op and primitive.record_tensor_custom).
"""
