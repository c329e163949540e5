"""Reading times: every page within its limit, the core path within six hours, and every stated time (each
notebook's first cell, the chapter maps of the intro and README) within 25 % of the time computed now."""

from __future__ import annotations

import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import reading_time

from i18n_notebooks import mechanical_translation

ROWS = reading_time.table()


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["path"].name)
def test_page_within_its_limit(row):
    limit = reading_time.LIMIT_MIN[row["kind"]]
    assert row["minutes"] <= limit, (
        f"{row['path'].name}: {row['minutes']:.0f} min of reading, a {row['kind']} ≤ {limit}"
    )


def test_core_path_within_six_hours():
    core = sum(row["minutes"] for row in ROWS if row["core"])
    assert core <= reading_time.CORE_LIMIT_MIN, f"the core path reads in {reading_time.hours(core)}"
    assert [row["kind"] for row in ROWS if row["core"]].count("deep dive") == 0, "a deep dive on the core path"


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["path"].name)
def test_stated_reading_time_is_close(row):
    assert row["stated"] is not None, f"{row['path'].name}: no '**Reading time** about N min.'; run make reading-time"
    assert abs(row["stated"] - row["minutes"]) <= reading_time.TOLERANCE * row["minutes"], (
        f"{row['path'].name} states {row['stated']} min, reads in {row['minutes']:.0f}: run make reading-time"
    )


def test_chapter_maps_state_close_reading_times():
    assert not reading_time.map_problems(ROWS), reading_time.map_problems(ROWS)
    for page in reading_time.MAPS:
        text = page.read_text()
        missing = [row["path"].name for row in ROWS if f"notebooks/{row['path'].name}" not in text]
        assert not missing, f"{page.name}: the chapter map lacks {missing}"
        assert reading_time.CORE_ROW_TIME.search(text), f"{page.name}: no core-path total"


def test_the_formula_counts_what_the_site_shows():
    markdown = {"cell_type": "markdown", "source": ["Two [linked words](https://x.org) and `code`.\n", "$$a+b$$"]}
    shown = {"cell_type": "code", "metadata": {}, "source": ["x = 1\n", "\n", "print(x)\n"]}
    folded = {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": ["y = 2\n"]}
    minutes = reading_time.minutes({"cells": [markdown, shown, folded]})
    assert minutes == pytest.approx(5 / 200 + 2 * 10 / 60)


def test_reading_times_are_translated_by_rule():
    assert mechanical_translation("**Reading time** about 12 min.") == "**阅读时间**：约 12 分钟。"
    assert mechanical_translation("about 7 min") == "约 7 分钟"
    assert mechanical_translation("**about 5 h 40 min**") == "**约 5 小时 40 分钟**"
    assert mechanical_translation("Reading about 7 min of code") is None
