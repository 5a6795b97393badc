"""Op-database rows for fgrad.scipy.special's functions beyond the first ones (see op_db.py)."""

SPECIAL_OPS = []
