"""Tests of the functional transforms: structure, errors, nesting, custom rules."""
