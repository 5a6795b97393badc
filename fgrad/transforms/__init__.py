"""fgrad.transforms: the functional transforms, each a fresh interpreter per call.

- reverse.py: the tape-recording `VJPTrace`; vjp, grad, value_and_grad.
- forward.py: dual numbers (`JVPTrace`); jvp, linearize.
- batching.py: the batching interpreter (`BatchTrace`); vmap.
- jacobians.py: jacfwd, jacrev, jacobian, hessian, hvp, as compositions on vmap.
- custom.py: custom_vjp, custom_jvp, checkpoint.
- graph.py: make_graph.
- trees.py: pytrees in and out, and the checks on what users pass and get back.
"""
