"""Tests of fgrad.compile: staging, the Program and its passes, generated code, replay and its cache."""
