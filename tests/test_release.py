"""scripts/release.py, which the release workflow runs: it refuses a tag that is not the edition, its notes name
the torch of the outputs, the website and every attached file, and its zips hold both languages' notebooks."""

from __future__ import annotations

import re
import sys
import zipfile

import yaml

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import edition
import release


def test_a_release_needs_the_citation_version_and_head_at_the_tag():
    assert release.edition_problems("v2026.12", "2026.12", "v2026.12") == []
    (problem,) = release.edition_problems("v2027.01", "2026.12", "v2027.01")
    assert "CITATION.cff" in problem and "'2027.01'" in problem
    (problem,) = release.edition_problems("v2026.12", "2026.12", None)
    assert "HEAD" in problem


def test_the_notes_name_the_torch_the_website_and_every_attached_file():
    site = yaml.safe_load((REPO / "CITATION.cff").read_text())["url"]
    text = release.notes("v2026.12", edition.torch_pin(), site)
    assert f"torch {edition.torch_pin()}" in text and f"{site} " in text and f"{site}zh/" in text
    attached = [pdf.name for pdf in release.PDFS] + [release.NOTEBOOKS_ZIP, release.STUDENT_ZIP]
    assert [name for name in attached if f"`{name}`" not in text] == []


def test_the_workflow_attaches_what_the_notes_name():
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text()
    assert "scripts/release.py" in workflow and re.search(r"gh release create .*dist/\*\.pdf dist/\*\.zip", workflow)


def test_the_notebooks_zip_holds_both_languages_and_the_terms(tmp_path):
    path = release.write_zip(tmp_path / release.NOTEBOOKS_ZIP, release.notebook_files())
    names = zipfile.ZipFile(path).namelist()
    english = [name for name in names if name.startswith("notebooks/")]
    chinese = [name for name in names if name.startswith("i18n/zh_CN/notebooks/")]
    assert len(english) == len(list((REPO / "notebooks").glob("*.ipynb"))) > 10
    assert [name.removeprefix("i18n/zh_CN/") for name in chinese] == english
    assert set(release.TERMS) <= set(names)


def test_the_student_zip_holds_the_student_edition_of_both_languages(tmp_path):
    student = tmp_path / "student"
    (student / "zh").mkdir(parents=True)
    for folder in (student, student / "zh"):
        (folder / "01_a.ipynb").write_text("{}")
    names = zipfile.ZipFile(release.write_zip(tmp_path / "s.zip", release.student_files(student))).namelist()
    assert names == ["student/01_a.ipynb", "student/zh/01_a.ipynb", *release.TERMS]


def test_a_release_installs_the_package_of_its_edition_never_main(tmp_path):
    path = release.write_zip(tmp_path / release.NOTEBOOKS_ZIP, release.notebook_files(), "v2026.12")
    archive = zipfile.ZipFile(path)
    installs = {}
    for name in archive.namelist():
        if name.endswith(".ipynb"):
            text = archive.read(name).decode()
            installs[name] = [match["ref"] for match in release.PACKAGE_INSTALL.finditer(text)]
            assert "pad-pack-train@main" not in text, f"{name}: a release's notebook installs the package of main"
    assert all(refs == ["v2026.12"] for refs in installs.values() if refs), installs
    assert sum(bool(refs) for refs in installs.values()) == len(installs), "a notebook installs no package"
