"""fgrad.transforms: the functional transforms, each a fresh interpreter per call.

- reverse.py: the tape-recording `VJPTrace`; vjp, grad, value_and_grad.
- forward.py: dual numbers (`JVPTrace`); jvp, linearize.
- jacobians.py: jacfwd, jacrev, hessian, hvp.
- custom.py: custom_vjp, custom_jvp, checkpoint.
- graph.py: make_graph.
- trees.py: pytrees in and out, and the checks on what users pass and get back.
"""
