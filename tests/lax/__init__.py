"""fgrad.lax: structured control flow and implicit differentiation, against jax.lax."""
