"""What a reader may reuse and how to cite it: LICENSE is the MIT licence (code), LICENSE-CONTENT the CC BY 4.0
legal code (text, figures, notebook prose, both editions), CITATION.cff valid Citation File Format 1.2.0, and the
intro's BibTeX entry the one the citation file gives."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap

import jsonschema
import pytest
import yaml

from conftest import REPO

# The MIT licence as SPDX and choosealicense.com give it; only the copyright line is the project's own.
MIT = """MIT License

Copyright (c) <year> <holders>

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation
the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of
the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO
THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""
# The CFF 1.2.0 schema, vendored from the citation-file-format project (via the cffconvert 2.0.0 wheel): the
# PyPI validator cffconvert pins an older jsonschema than the book's.
SCHEMA = REPO / "tests" / "schemas" / "citation-file-format-1.2.0.json"


def words(text: str) -> list[str]:
    return text.split()


def citation() -> dict:
    return yaml.safe_load((REPO / "CITATION.cff").read_text())


def test_licence_is_the_mit_text():
    text = (REPO / "LICENSE").read_text()
    holder = re.search(r"^Copyright \(c\) (\d{4}) (.+)$", text, flags=re.MULTILINE)
    assert holder, "LICENSE needs a 'Copyright (c) <year> <holders>' line"
    expected = MIT.replace("<year>", holder.group(1)).replace("<holders>", holder.group(2))
    assert words(text) == words(expected), "LICENSE is not the MIT licence word for word"


def test_the_licence_check_refuses_a_changed_licence(tmp_path):
    altered = MIT.replace("<year>", "2026").replace("<holders>", "X").replace("free of charge", "for a fee")
    assert words(altered) != words(MIT.replace("<year>", "2026").replace("<holders>", "X"))


def test_content_licence_is_the_cc_by_4_legal_code():
    text = (REPO / "LICENSE-CONTENT").read_text()
    assert text.startswith("Attribution 4.0 International\n")
    for part in ("Section 1 -- Definitions.", "Section 3 -- License Conditions.", "Section 8 -- Interpretation."):
        assert part in text, f"LICENSE-CONTENT lacks {part!r}"
    assert len(words(text)) > 2500, "LICENSE-CONTENT is not the whole legal code"


def test_citation_is_valid_citation_file_format_1_2_0():
    data = citation()
    schema = json.loads(SCHEMA.read_text())
    assert schema["$id"].endswith("/1.2.0/schema.json")
    jsonschema.validate(data, schema, format_checker=jsonschema.FormatChecker())
    for key in ("version", "date-released", "license", "repository-code", "url", "abstract", "keywords"):
        assert data.get(key), f"CITATION.cff lacks {key}"
    assert sorted(data["license"]) == ["CC-BY-4.0", "MIT"]
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    assert data["repository-code"] == config["repository"]["url"]


def test_the_schema_refuses_a_citation_without_authors():
    data = {key: value for key, value in citation().items() if key != "authors"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, json.loads(SCHEMA.read_text()))


def test_citation_version_is_an_edition_name():
    """Releases are tagged vYYYY.MM (README: Releases); before the first one, the version is the one it will
    carry."""
    version = citation()["version"]
    assert re.fullmatch(r"\d{4}\.\d{2}", version), f"version {version!r} is not YYYY.MM"


def latest_release_tag(repo) -> str | None:
    """The newest `v*` tag of the clone at `repo` (by version, so v2027.01 after v2026.12), or None where there
    is none; pytest.skip where git cannot say (no git, not a clone)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the release tags cannot be listed")
    listed = subprocess.run(
        ["git", "tag", "--list", "v*", "--sort=-v:refname"], cwd=repo, capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip(f"{repo} is not a git clone: the release tags cannot be listed")
    tags = listed.stdout.split()
    return tags[0] if tags else None


def test_citation_version_is_the_latest_release_tag():
    """The version equals the newest release tag once one exists (the release workflow refuses a tag that
    differs). A clone without tags (CI's shallow one) cannot check it."""
    tag = latest_release_tag(REPO)
    if tag is None:
        pytest.skip("no v* tag in this clone (no release yet, or a clone without tags)")
    version = citation()["version"]
    assert f"v{version}" == tag, f"CITATION.cff says {version}, the latest release is {tag}"


def test_the_latest_release_tag_is_the_newest_by_version(tmp_path):
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True)

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git("init", "-q")
    assert latest_release_tag(tmp_path) is None
    git("commit", "-q", "--allow-empty", "-m", "first")
    for tag in ("v2026.12", "v2027.01", "v2026.06", "draft"):
        git("tag", tag)
    assert latest_release_tag(tmp_path) == "v2027.01"


def bibtex(data: dict) -> str:
    """The BibTeX entry for CITATION.cff, as the intro shows it."""
    authors = " and ".join("{" + author["name"] + "}" for author in data["authors"])
    fields = {
        "title": data["title"],
        "author": authors,
        "year": str(data["date-released"])[:4],
        "version": data["version"],
        "url": data["url"],
        "note": "Code: MIT; text and figures: CC BY 4.0",
    }
    lines = [  # wrapped to the 79 columns a code block shows on the site
        textwrap.fill(
            f"  {key} = {{{value}}}",
            width=78,
            subsequent_indent=" " * (len(key) + 6),
            break_long_words=False,
            break_on_hyphens=False,
        )
        for key, value in fields.items()
    ]
    body = ",\n".join(lines)
    return f"@misc{{pad_pack_train,\n{body}\n}}"


def test_intro_shows_the_bibtex_of_the_citation_file():
    intro = (REPO / "book" / "intro.md").read_text()
    block = re.search(r"```bibtex\n(.*?)\n```", intro, flags=re.DOTALL)
    assert block, "book/intro.md has no ```bibtex block"
    assert block.group(1) == bibtex(citation()), f"the intro's BibTeX is not:\n{bibtex(citation())}"


@pytest.mark.parametrize("page", ["README.md", "book/intro.md"])
def test_readme_and_intro_name_both_licences_and_the_citation(page):
    text = (REPO / page).read_text()
    for name in ("LICENSE", "LICENSE-CONTENT", "CITATION.cff", "CC BY 4.0", "MIT"):
        assert name in text, f"{page} does not mention {name}"


def test_the_package_has_the_books_version():
    """The companion package is released with the book: one version, CITATION.cff's, in pyproject.toml and in
    padpack.__version__ (what a reader's `pip show padpack` and the setup page name)."""
    import tomllib

    import padpack

    version = str(yaml.safe_load((REPO / "CITATION.cff").read_text())["version"])
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["name"] == "padpack"
    assert project["version"] == padpack.__version__ == version
