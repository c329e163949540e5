"""book/references.md lists every source the book cites.

Every external address in the prose of a chapter (the markdown cells of notebooks/*.ipynb) or of a page of the
book (book/*.md) must appear in references.md, compared without its #fragment and trailing slash. The book's own
addresses (its repository, its site, its Colab badges) are not sources and are left out.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import REPO, load_config

URL = re.compile(r"https?://[^\s)\]>\"'`]+")
REFERENCES = REPO / "book" / "references.md"


def normal(url: str) -> str:
    return url.rstrip(".,;:").split("#")[0].rstrip("/")


def own(url: str) -> bool:
    """An address of the book itself: its repository, its site, its Colab links."""
    repository = load_config()["repository"]["url"].removeprefix("https://")  # github.com/owner/name
    owner = repository.split("/")[1]
    return any(
        part in url
        for part in (
            repository,
            f"github.com/{owner}/",
            f"{owner}.github.io",
            f"colab.research.google.com/github/{owner}/",
        )
    )


def cited() -> dict[str, set[str]]:
    """Every external address the prose cites: address -> the files that cite it."""
    found: dict[str, set[str]] = {}
    texts = [
        (path.name, "".join(cell["source"]))
        for path in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
        for cell in json.loads(path.read_text())["cells"]
        if cell["cell_type"] == "markdown"
    ]
    texts += [(path.name, path.read_text()) for path in sorted((REPO / "book").glob("*.md")) if path != REFERENCES]
    for name, text in texts:
        for url in URL.findall(text):
            if not own(url):
                found.setdefault(normal(url), set()).add(name)
    return found


def test_the_prose_cites_sources() -> None:
    assert len(cited()) > 50, "the pattern found almost no addresses: is it broken?"


@pytest.mark.parametrize(
    "url, listed",
    [
        ("https://docs.pytorch.org/docs/2.13/amp.html#autocasting", "https://docs.pytorch.org/docs/2.13/amp.html"),
        ("https://pytorch.org/blog/flexattention/.", "https://pytorch.org/blog/flexattention"),
    ],
)
def test_normal_form_ignores_fragments_and_punctuation(url: str, listed: str) -> None:
    assert normal(url) == normal(listed)


def test_the_book_s_own_addresses_are_not_sources() -> None:
    assert own("https://colab.research.google.com/github/pad-pack-train/pad-pack-train/blob/main/notebooks/x.ipynb")
    assert own("https://pad-pack-train.github.io/pad-pack-train/")
    assert not own("https://github.com/pytorch/pytorch/issues/88000")


def test_references_list_every_cited_source() -> None:
    listed = {normal(url) for url in URL.findall(REFERENCES.read_text())}
    missing = {url: sorted(files) for url, files in cited().items() if url not in listed}
    assert not missing, "cited but not in book/references.md:\n" + "\n".join(
        f"  {url}  ({', '.join(files)})" for url, files in sorted(missing.items())
    )
