"""Op-database rows for fgrad.scipy.linalg, fgrad.scipy.signal and fgrad.scipy.integrate (see op_db.py)."""

SCIPY_OPS = []
