"""Every file of docs/ is named in the README's "Documentation" list, so none is
left where no user finds it."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_readme_lists_every_file_of_docs() -> None:
    readme = (REPO / "README.md").read_text()
    start = readme.index("\n## Documentation\n")
    end = readme.find("\n## ", start + 1)
    listed = readme[start:end if end != -1 else len(readme)]
    names = sorted(path.name for path in (REPO / "docs").iterdir() if path.is_file())
    assert [name for name in names if f"docs/{name}" not in listed] == []
