"""The front doors tell the truth (issue 28): every package's docstring lists every file and
subfolder of its folder, one `- name.py: what it holds` line each, and lists nothing that is
not there; docs/design.md's index of the Notes names every `Note [...]` the code defines, at
the file that defines it, and nothing else.

The file lists are read with ast, so a new engineer can trust `help(fgrad.ops)` as a map."""
import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "fgrad"
PACKAGES = sorted(p.parent for p in ROOT.rglob("__init__.py"))
# A listing line: "- a.py: ..." or "- a.py, b.py: ..." or "- stats/: ...".
LISTED = re.compile(r"^\s*- ((?:[\w]+(?:\.py|/))(?:, [\w]+(?:\.py|/))*):", re.M)


def _contents(package):
    """The files and subfolders a package's docstring must list (its own __init__.py aside)."""
    files = {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    folders = {p.name + "/" for p in package.iterdir() if (p / "__init__.py").exists()}
    return files | folders


def _listed(package):
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    return {name for group in LISTED.findall(doc) for name in group.split(", ")}


def _label(package):
    return str(package.relative_to(ROOT.parent))


@pytest.mark.parametrize("package", PACKAGES, ids=_label)
def test_package_docstring_lists_its_files(package):
    missing = sorted(_contents(package) - _listed(package))
    stale = sorted(_listed(package) - _contents(package))
    assert not missing and not stale, (
        f"{_label(package)}/__init__.py's docstring: add a '- name.py: what it holds' line for {missing}"
        if missing else f"{_label(package)}/__init__.py's docstring lists {stale}, which are not there")


def test_every_package_is_checked():
    """Checked where it would fail: this test's own parsing sees the listing lines."""
    assert len(PACKAGES) > 10
    assert _listed(ROOT / "ops") >= {"primitive.py", "entries.py"}
    assert LISTED.findall("x\n- a.py, b.py: two\n  - c/: a folder\n- not a listing") == ["a.py, b.py", "c/"]


DESIGN = ROOT.parent / "docs" / "design.md"
DEFINED = re.compile(r"Note \[([^\]\n]+)\](?::| -{3})")  # "Note [x]: ..." or a "# ---- Note [x] ----" banner
CITED = re.compile(r"Note \[([^\]\n]+)\]")
INDEX_ROW = re.compile(r"^\| (.+?) \| `(fgrad/[\w/]+\.py)` \|$", re.M)


def _notes():
    """{name: the files that define it}: a Note is defined where its name is followed by a colon
    (or heads a banner of dashes)."""
    defined = {}
    for path in sorted(ROOT.rglob("*.py")):
        for name in DEFINED.findall(path.read_text()):
            defined.setdefault(name, set()).add(str(path.relative_to(ROOT.parent)))
    return defined


def _index():
    """The rows of docs/design.md's "Notes" section: [(name, file)]."""
    page = DESIGN.read_text()
    section = page.split("\n## Notes\n", 1)[1].split("\n## ", 1)[0] if "\n## Notes\n" in page else ""
    return INDEX_ROW.findall(section)


def index_markdown():
    """The table the index should hold (`python -m tests.test_house` prints it)."""
    rows = [f"| {name} | `{min(files)}` |" for name, files in sorted(_notes().items(), key=lambda i: i[0].lower())]
    return "\n".join(["| Note | defined in |", "|---|---|", *rows])


def test_each_note_is_defined_in_one_file():
    twice = {name: files for name, files in _notes().items() if len(files) > 1}
    assert not twice, f"Notes defined in more than one file: {twice}"


def test_every_cited_note_is_defined():
    cited = {(name, str(path.relative_to(ROOT.parent)))
             for path in ROOT.rglob("*.py") for name in CITED.findall(path.read_text())}
    unknown = sorted((name, where) for name, where in cited if name not in _notes())
    assert not unknown, f"Notes cited but defined nowhere: {unknown}"


def test_the_notes_index_matches_the_code():
    defined = {(name, min(files)) for name, files in _notes().items()}
    listed = _index()
    assert len(listed) == len(set(listed)), "docs/design.md lists a Note twice"
    missing, stale = sorted(defined - set(listed)), sorted(set(listed) - defined)
    assert not missing and not stale, (
        f"docs/design.md's Notes index: missing {missing}, listed but not defined there {stale}; "
        f"`python -m tests.test_house` prints the table")


if __name__ == "__main__":
    print(index_markdown())
