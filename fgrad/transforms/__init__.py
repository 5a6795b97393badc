"""fgrad.transforms: the functional transforms, each a fresh interpreter per call.

- reverse.py: the tape-recording `VJPTrace`; vjp, grad, value_and_grad.
- forward.py: dual numbers (`JVPTrace`); jvp, linearize.
- batching.py: the batching interpreter (`BatchTrace`); vmap.
- jacobians.py: jacfwd, jacrev, jacobian, hessian, hvp, as compositions on vmap.
- custom.py: custom_vjp, custom_jvp, checkpoint.
- graph.py: make_graph.
- trees.py: pytrees in and out, leaf labels (`args[1]`), aux values, the wrappers returned.
- checks.py: the checks on what users pass (inputs, argnums, has_aux, cotangents, the seed).
- owned.py: what a transform hands back is the caller's own (Note [returned derivatives are owned]).
- faces.py: the Tensor face among a transform's arguments: every decision about a Tensor.
- debug_nans.py: NaN provenance: a checked call's op that made a NaN or inf (`CheckTrace`).
"""
