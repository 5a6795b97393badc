"""Every ```python block in docs/ runs: the docs never rot.

The blocks of one page run in order in one namespace, as a reader would type them.
"""
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_examples_run(page, capsys):
    namespace = {"__name__": f"docs.{page.stem}"}
    blocks = BLOCK.findall(page.read_text())
    for k, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name} block {k + 1}", "exec"), namespace)
        except Exception as exc:  # name the block a reader should look at
            raise AssertionError(f"{page.name}, code block {k + 1} failed: {type(exc).__name__}: {exc}") from exc


def test_numpy_coverage_page_is_current():
    from fgrad.numpy.coverage import markdown
    page = (DOCS / "numpy-coverage.md").read_text()
    assert page == markdown(), \
        "docs/numpy-coverage.md is stale: run python -m fgrad.numpy.coverage > docs/numpy-coverage.md"


def test_scipy_coverage_page_is_current():
    from fgrad.scipy.coverage import markdown
    page = (DOCS / "scipy-coverage.md").read_text()
    assert page == markdown(), \
        "docs/scipy-coverage.md is stale: run python -m fgrad.scipy.coverage > docs/scipy-coverage.md"
