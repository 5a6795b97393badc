"""fgrad.ops: the primitives, each declared once with its kernel and its derivative rules.

- primitive.py: `Primitive`, the traces' interface (`Trace.process`) and `bind`.
- entries.py: the entry functions of elementwise primitives (what `fnp.sin` and `x * y` are).
- elementwise.py, special.py: ufuncs and their partial derivatives, one line each.
- broadcasting.py: broadcast_to and sum (each other's transposes), convert, and fitting a
  derivative to its primal's shape and dtype.
- shape.py, indexing.py, reductions.py, einsum.py, linalg.py: the other primitives.
- zeros.py: concrete zeros where a rule needs one; transpose.py: vjps of the matrix
  decompositions, by transposing their jvp rules; stop_gradient.py.

Rules are written in these ops, so an enclosing transform traces them. Ops sit below the
transforms and never import them (what they need of one is set from above: see
transpose.vjp and primitive.record_tensor_op).
"""
