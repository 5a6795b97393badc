"""Op-database rows for linear algebra, einsum and special functions (see op_db.py)."""
LINALG_OPS = []
