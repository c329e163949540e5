"""The files of a GitHub release, for the release workflow (.github/workflows/release.yml; README: Releases).

Usage: python scripts/release.py vYYYY.MM DIR   (after `make book`, `make pdf` and `make student`)
       python scripts/release.py vYYYY.MM --check   (only the checks below, before anything is built)

Writes into DIR the two PDFs (scripts/build_pdf.py), a zip of every notebook in both languages with its stored
outputs, a zip of the student edition (scripts/student_edition.py), each zip with the licences and the citation,
and notes.md: the release notes, which name the torch the outputs were stored with and link the website.
The names carry no version, so that .../releases/latest/download/pad-pack-train.pdf always gives the newest.

It refuses (exit status 1) a tag that is not the edition: CITATION.cff's `version` must be the tag without its
`v` (the citation names the release), and HEAD must be at the tag (scripts/edition.py; else the PDFs' title
pages and the site's footer would name another edition).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import zipfile
from pathlib import Path

import yaml
from build_pdf import EDITIONS, PDF_FOLDER
from edition import edition

REPO = Path(__file__).resolve().parent.parent
PDFS = [PDF_FOLDER / edition_.pdf_name for edition_ in EDITIONS]
STUDENT = REPO / "_build" / "student"
NOTEBOOKS_ZIP = "pad-pack-train-notebooks.zip"
STUDENT_ZIP = "pad-pack-train-student.zip"
# In every zip beside the notebooks: what a reader may do with them and how to cite them.
TERMS = ["LICENSE", "LICENSE-CONTENT", "CITATION.cff"]
# What a chapter's Colab line installs: the book's package from this repository, at main in the repository and
# at the release's tag in a release's notebooks, so that a reader of a release runs the checks of that edition.
PACKAGE_INSTALL = re.compile(r'"padpack @ git\+(?P<url>[^"@]+)@(?P<ref>[^"]+)"')


def citation(repo: Path = REPO) -> dict:
    return yaml.safe_load((repo / "CITATION.cff").read_text())


def edition_problems(tag: str, version: str, head_tag: str | None) -> list[str]:
    """Why `tag` cannot be released from this checkout (none when it can)."""
    problems = []
    if version != tag.removeprefix("v"):
        problems.append(f"CITATION.cff's version is {version!r}, the tag {tag!r}: set version to {tag[1:]!r}")
    if head_tag != tag:
        problems.append(f"HEAD is at tag {head_tag!r}, not {tag!r} (scripts/edition.py)")
    return problems


def notes(tag: str, torch: str, site: str) -> str:
    """The release notes (Markdown)."""
    return f"""Pad, Pack, Train, edition {tag}.

- Read it online: {site} (中文版: {site}zh/). Every page's footer names its edition.
- The stored outputs were made with **torch {torch}** (`requirements.txt` pins it); another version of torch may
  print slightly different numbers.
- Attached: `pad-pack-train.pdf` (the book in English) and `pad-pack-train-zh.pdf` (中文版); `{NOTEBOOKS_ZIP}`,
  every chapter with its stored outputs in English (`notebooks/`) and in Chinese (`i18n/zh_CN/notebooks/`);
  `{STUDENT_ZIP}`, the student edition for instructors: every chapter without its exercise solutions and
  outputs (`student/`, Chinese in `student/zh/`).
- Code MIT, text and figures CC BY 4.0; cite it with `CITATION.cff` (version {tag.removeprefix("v")}).
"""


def pin_edition(text: str, tag: str) -> str:
    """A notebook's text with the book's package installed at `tag` instead of main."""
    return PACKAGE_INSTALL.sub(lambda match: f'"padpack @ git+{match["url"]}@{tag}"', text)


def write_zip(path: Path, files: dict[str, Path], tag: str | None = None) -> Path:
    """A zip of `files` (name in the zip -> file), in the order given; with a tag, its notebooks install the
    book's package of that edition."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, file in files.items():
            if tag and name.endswith(".ipynb"):
                archive.writestr(name, pin_edition(file.read_text(encoding="utf-8"), tag))
            else:
                archive.write(file, name)
    return path


def notebook_files(repo: Path = REPO) -> dict[str, Path]:
    folders = [repo / "notebooks", repo / "i18n" / "zh_CN" / "notebooks"]
    files = {str(path.relative_to(repo)): path for folder in folders for path in sorted(folder.glob("*.ipynb"))}
    return files | {name: repo / name for name in TERMS}


def student_files(student: Path = STUDENT, repo: Path = REPO) -> dict[str, Path]:
    found = sorted(student.glob("*.ipynb")) + sorted((student / "zh").glob("*.ipynb"))
    files = {str(path.relative_to(student.parent)): path for path in found}
    return files | {name: repo / name for name in TERMS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tag", help="the release tag, vYYYY.MM")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("out", nargs="?", type=Path, help="the folder to write the release's files into")
    target.add_argument("--check", action="store_true", help="only check that the tag is the edition")
    args = parser.parse_args(argv)
    found = edition()
    problems = edition_problems(args.tag, str(citation()["version"]), found["tag"])
    if not args.check:
        missing = [str(path.relative_to(REPO)) for path in [*PDFS, STUDENT] if not path.exists()]
        problems += [f"{name} is missing: run `make book pdf student` first" for name in missing]
    if problems:
        print("error: " + "\n       ".join(problems), file=sys.stderr)
        return 1
    if args.check:
        print(f"{args.tag} is the edition of CITATION.cff and of HEAD")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for pdf in PDFS:
        shutil.copyfile(pdf, args.out / pdf.name)
    write_zip(args.out / NOTEBOOKS_ZIP, notebook_files(), args.tag)
    write_zip(args.out / STUDENT_ZIP, student_files(), args.tag)
    (args.out / "notes.md").write_text(notes(args.tag, found["torch"], citation()["url"]), encoding="utf-8")
    for path in sorted(args.out.iterdir()):
        print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
