"""Which edition of the book a build is: the release tag or the commit date, and the torch of the stored outputs.

One function, `edition()`, shared by everything that prints the edition (the PDF's title page,
scripts/build_pdf.py; the website's footer), so that they never disagree. It reads only git and
requirements.txt: no torch is needed to say which torch made the outputs.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Each edition's PDF, relative to that edition's root (the Chinese site is the English one's zh/): where
# `make pdf` (scripts/build_pdf.py) puts its copy in the site, what every page's download menu links
# (scripts/site_edition.py), and, by its file name, what _build/pdf/ and a release hold (scripts/release.py).
BOOK_PDF = {"en": "pdf/pad-pack-train.pdf", "zh": "pdf/pad-pack-train-zh.pdf"}


def git(*args: str, repo: Path = REPO) -> str | None:
    """Git's answer, stripped, or None where git fails (no tag here, no git, not a clone)."""
    try:
        result = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return None
    return result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else None


def torch_pin(repo: Path = REPO) -> str:
    """The version in requirements.txt's `torch==` pin: the torch that made the stored outputs."""
    match = re.search(r"^torch==(\S+)$", (repo / "requirements.txt").read_text(), re.MULTILINE)
    if match is None:
        raise ValueError("requirements.txt has no torch== pin")
    return match.group(1)


def edition(repo: Path = REPO) -> dict[str, str | None]:
    """The edition of the checkout at `repo`:

    - tag: the release tag (`v*`) HEAD is exactly at, else None (a build of main between releases);
    - label: the tag, else "main (YYYY-MM-DD)" with the date of HEAD's commit;
    - commit_date: HEAD's commit date, YYYY-MM-DD (None outside a git clone);
    - torch: the version of torch the stored outputs were made with (requirements.txt's pin).

    The commit date, not the build date, names an untagged edition: two builds of the same commit are the
    same book.
    """
    tag = git("describe", "--tags", "--exact-match", "--match", "v*", "HEAD", repo=repo)
    commit_date = git("log", "-1", "--format=%cs", "HEAD", repo=repo)
    label = tag or (f"main ({commit_date})" if commit_date else "main")
    return {"tag": tag, "label": label, "commit_date": commit_date, "torch": torch_pin(repo)}


if __name__ == "__main__":
    print(edition())
