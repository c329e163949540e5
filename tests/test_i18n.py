"""The Chinese edition's catalogues and notebooks stay in step with the English source (scripts/i18n.py).

- The .po files hold exactly the messages the English pages have now (none stale), every prose message is
  translated (the share per page is in the failure message), and the lint finds none of the silent traps.
- The lint itself catches each trap, and the notebook translator replaces every kind of block.
- The Chinese notebooks are what the generator makes from the English notebooks and the .po files, and equal
  the English ones in everything but the markdown cells' text.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import sys

import pytest

from conftest import REPO, notebook_paths

sys.path.insert(0, str(REPO / "scripts"))
import i18n
import i18n_notebooks

PAGE_PO_FILES = sorted(i18n.CATALOGUES.rglob("*.po"))
# The book's package prints its exercise checks from catalogues of its own, held to the same glossary.
PO_FILES = PAGE_PO_FILES + sorted(i18n.PACKAGE_CATALOGUES.glob("*.po"))


def po_id(path) -> str:
    if path.is_relative_to(i18n.PACKAGE_CATALOGUES):
        return f"padpack/{path.stem}"
    return path.relative_to(i18n.CATALOGUES).with_suffix("").as_posix()


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """The English messages as the gettext builder extracts them now (about 10 s)."""
    return i18n.extract(output=tmp_path_factory.mktemp("gettext"))


def test_catalogues_hold_exactly_the_messages_of_the_english_pages(extracted):
    problems = i18n.stale(extracted)
    assert not problems, "stale catalogues: run `make translations`, then translate:\n" + "\n".join(problems)


def test_every_prose_message_is_translated():
    stats = i18n.statistics()
    table = "\n".join(f"{item.page:<52} {item.translated:>5}/{item.prose:<5} {item.share:7.1%}" for item in stats)
    missing = [f"{item.page}: {msgid[:100]!r}" for item in stats for msgid in item.untranslated]
    assert not missing, f"translated share per page:\n{table}\nuntranslated:\n" + "\n".join(missing)
    assert {item.page for item in stats} == {po_id(path) for path in PAGE_PO_FILES}


@pytest.mark.parametrize("po", PAGE_PO_FILES, ids=po_id)
def test_catalogue_has_no_lint_findings(po):
    findings = i18n.lint([po])
    assert not findings, "\n".join(findings)


def test_a_message_of_two_chapters_reads_the_same_in_both():
    """The package looks a message up in all its catalogues at once, and the glossary wants one term for one
    thing: the same English message gets the same translation in every chapter's catalogue."""
    seen: dict[str, tuple[str, str]] = {}
    clashes = []
    for po in sorted(i18n.PACKAGE_CATALOGUES.glob("*.po")):
        for message in i18n._read(po):
            if message.id and message.string:
                earlier = seen.setdefault(message.id, (po.stem, message.string))
                if earlier[1] != message.string:
                    clashes.append(f"{message.id!r}: {earlier[0]} says {earlier[1]!r}, {po.stem} {message.string!r}")
    assert not clashes, "\n".join(clashes)


def test_the_package_catalogues_are_current_translated_and_lint_free():
    """padpack's check messages: every N_ message merged, translated, its placeholders and code kept."""
    problems = i18n.package_problems()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("msgid", "msgstr", "finding"),
    [
        ("{name} is wrong on {case}.", "{name} 出错。", "placeholders"),
        ("Is a `return` missing?", "是不是少了 return？", "code spans"),
        ("Fill it in\nthen run it.", "补全后运行。", "line breaks"),
    ],
)
def test_the_package_lint_finds_what_a_check_translation_loses(msgid, msgstr, finding):
    message = i18n.Catalog().add(msgid, msgstr)
    assert any(finding in text for text in i18n.lint_package(msgid, message))


@pytest.mark.parametrize(
    ("msgid", "msgstr", "finding"),
    [
        ("Steps are listed here.", "1. 步骤如下。", "starts like a list"),
        # A numbered heading: its English source line is a heading, but the translation is parsed alone.
        ("1. Why padding wastes compute", "1. 为什么填充会浪费计算", "starts like a list"),
        ("A dash starts it.", "- 破折号。", "starts like a list"),
        ("The **pads** cost time.", "**填充位，**要花时间。", "bold (**)"),
        ("An *aside*, really.", "一个*旁注，*真的。", "italics (*)"),
        ("See [the docs](https://docs.pytorch.org/x).", "见[文档](https://docs.pytorch.org/y)。", "link targets"),
        ("See [the docs](https://docs.pytorch.org/x).", "见文档。", "links: 1 in English, 0"),
        ("Read {ref}`the setup <setup-page>`.", "阅读{ref}`设置 <setup>`。", "role targets"),
        ("Call `pack_padded_sequence` first.", "先调用 `打包函数`。", "code spans"),
        ("It prints `RuntimeError: boom`.", "它打印 `运行时错误`。", "code spans"),
        ("Where $T$ steps run.", "运行 T 步的地方。", "inline math"),
    ],
)
def test_lint_finds_each_trap(msgid, msgstr, finding):
    assert any(finding in line for line in i18n.lint_message(msgid, msgstr)), i18n.lint_message(msgid, msgstr)


@pytest.mark.parametrize(
    ("msgid", "msgstr"),
    [
        ("The **pads** cost time.", "**填充位**要花时间。"),
        ("1. Why padding wastes compute", "1\\. 为什么填充会浪费计算"),
        ("Steps are listed here.", "步骤如下：1\\. 填充。"),
        ("Read {ref}`the setup <setup-page>`.", "阅读{ref}`环境配置 <setup-page>`。"),
        ("Call `pack_padded_sequence` on [the batch](#batch).", "对[批次](#batch)调用 `pack_padded_sequence`。"),
        ("Where $T$ steps run.", "运行 $T$ 步的地方。"),
    ],
)
def test_lint_accepts_faithful_translations(msgid, msgstr):
    assert i18n.lint_message(msgid, msgstr) == []


def test_lint_refuses_a_translated_equation():
    equation = r"\text{padding efficiency} = \frac{\text{real}}{\text{padded}}"
    assert i18n.lint_message(equation, r"\text{填充效率}", frozenset({equation}))


def test_a_new_english_message_makes_its_catalogue_stale(tmp_path):
    page = "book/intro"
    template = i18n._read(i18n.CATALOGUES / f"{page}.po")
    for message in template:
        message.string = ""
    template.add("A sentence the English page gained today.")
    i18n._write(tmp_path / f"{page}.pot", template)
    problems = [line for line in i18n.stale(tmp_path) if line.startswith(page)]
    assert problems and "1 English messages not merged" in problems[0], problems


MARKDOWN = """\
# 3. A chapter

A paragraph that
spans two lines.

- an item
  continued
- **bold** item

1. first step

| Head | Other |
|---|---|
| same | same |

> a quote

$$
x = 1
$$

<div class="badge"><a href="https://example.org/x.ipynb">badge</a></div>

Untranslated stays."""


def test_translated_markdown_replaces_every_kind_of_block_and_keeps_its_prefix():
    table = {
        "3. A chapter": "3. 一章",
        "A paragraph that spans two lines.": "一个段落。",
        "an item continued": "一项",
        "**bold** item": "**粗体**项",
        "first step": "第一步",
        "Head": "表头",
        "Other": "其他",
        "same": "相同",
        "a quote": "引文",
        '<div class="badge"><a href="https://example.org/x.ipynb">badge</a></div>': "<div>徽章</div>",
    }
    text, replaced = i18n_notebooks.translate_markdown(MARKDOWN, table.get)
    assert replaced == len(table) + 1  # "same" is two cells
    assert text.split("\n") == [
        "# 3. 一章",
        "",
        "一个段落。",
        "",
        "- 一项",
        "- **粗体**项",
        "",
        "1. 第一步",
        "",
        "| 表头 | 其他 |",
        "|---|---|",
        "| 相同 | 相同 |",
        "",
        "> 引文",
        "",
        "$$",
        "x = 1",
        "$$",
        "",
        "<div>徽章</div>",
        "",
        "Untranslated stays.",
    ]


def without_stdout(cell: dict) -> dict:
    """A code cell without its source, the text of its stdout outputs and its widgets' plain-text summaries."""
    outputs = []
    for output in cell["outputs"]:
        if output.get("name") == "stdout":
            output = {**output, "text": ""}
        if i18n_notebooks.WIDGET_VIEW in output.get("data", {}):
            output = {**output, "data": {**output["data"], "text/plain": ""}}
        outputs.append(output)
    return {**cell, "source": "", "outputs": outputs}


WIDGET_WORDS = ("value", "description", "_options_labels")


def without_widget_words(metadata: dict) -> dict:
    """A notebook's metadata without the words of its widgets: the HTML of its frames and its controls' labels."""
    metadata = json.loads(json.dumps(metadata))
    for model in metadata.get("widgets", {}).get(i18n_notebooks.WIDGET_STATE, {}).get("state", {}).values():
        for key in WIDGET_WORDS:
            if key in model["state"] and (key != "value" or model["state"]["_model_name"] == "HTMLModel"):
                model["state"][key] = ""
    return metadata


@pytest.mark.parametrize("english", notebook_paths(), ids=lambda path: path.name)
def test_chinese_notebook_is_generated_and_equals_the_english_but_for_text(english, tmp_path):
    """The Chinese notebook is what `make translations` makes, and differs from the English one only in its text:
    markdown, the setup cell's language line, Colab's form titles, the sentences its `print` calls write (in the
    code and in what they printed), the package's printed messages, and the words of its sliders (their frames
    and labels). Code, metadata and every other output are the same."""
    committed = i18n.ZH_NOTEBOOKS / english.name
    assert committed.exists(), f"no {committed.relative_to(REPO)}: run `make translations`"
    (fresh,) = i18n_notebooks.write_translated_notebooks([english], tmp_path)
    assert committed.read_text() == fresh.read_text(), (
        f"{committed.relative_to(REPO)} is not what the English notebook and the .po files make: run "
        "`make translations`"
    )
    en, zh = json.loads(english.read_text()), json.loads(committed.read_text())
    assert {key: value for key, value in en.items() if key not in ("cells", "metadata")} == {
        key: value for key, value in zh.items() if key not in ("cells", "metadata")
    }
    assert without_widget_words(en["metadata"]) == without_widget_words(zh["metadata"]), (
        "notebook metadata (widget state beyond its words, kernel) differs"
    )
    assert len(en["cells"]) == len(zh["cells"])
    table = i18n_notebooks.translations(f"notebooks/{english.stem}")
    for index, (en_cell, zh_cell) in enumerate(zip(en["cells"], zh["cells"], strict=True)):
        if en_cell["cell_type"] == "markdown":
            assert {k: v for k, v in en_cell.items() if k != "source"} == {
                k: v for k, v in zh_cell.items() if k != "source"
            }, f"cell {index}: metadata differs"
            continue
        # the code: the same but for the literals of its print calls, Colab's form title, and in the setup cell the
        # language line
        source = i18n_notebooks.translate_colab_title(i18n_notebooks.translate_code("".join(en_cell["source"]), table))
        if index == 1:
            source = i18n_notebooks.ENGLISH_CHECKS.sub(i18n_notebooks.CHINESE_CHECKS, source, count=1)
        assert source == "".join(zh_cell["source"]), f"cell {index}: the code differs beyond its print calls"
        # printed text (stdout) is stored translated: what the cell's print calls write, check messages, answers,
        # the doctor's and the planner's output; everything else is the same
        assert without_stdout(en_cell) == without_stdout(zh_cell), f"cell {index}: more than its printed text differs"
    printed = set(i18n_notebooks.printed_messages(english))
    translated = {msgid: msgstr for msgid, msgstr in table.items() if msgid not in printed}
    zh_markdown = "".join("".join(cell["source"]) for cell in zh["cells"] if cell["cell_type"] == "markdown")
    en_markdown = "".join("".join(cell["source"]) for cell in en["cells"] if cell["cell_type"] == "markdown")
    # Every block's translation is in the Chinese notebook (figure captions and alt texts live in metadata).
    figure_texts = set(i18n.figure_messages(english))
    absent = [msgid for msgid, msgstr in translated.items() if msgid not in figure_texts and msgstr not in zh_markdown]
    assert not absent, f"{len(absent)} translations missing from the Chinese notebook, e.g. {absent[0][:100]!r}"
    assert zh_markdown != en_markdown


def test_chinese_search_dictionary_has_the_glossary_terms(tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    import build_book

    terms = build_book.jieba_dictionary(REPO, tmp_path / "dict.txt").read_text().splitlines()
    words = [line.split()[0] for line in terms]
    assert {"打包序列", "隐藏状态", "分桶", "掩码"} <= set(words)
    assert "中文" not in words  # the table's header
    assert all(line.endswith(" n") for line in terms)
    # What the dictionary is for: jieba alone splits the terms, so 打包序列 was no word of the search index.
    import jieba

    tokenizer = jieba.Tokenizer()
    assert "打包序列" not in tokenizer.cut_for_search("打包序列会跳过填充位")
    tokenizer.load_userdict(str(tmp_path / "dict.txt"))
    assert {"打包序列", "填充位"} <= set(tokenizer.cut_for_search("打包序列会跳过填充位"))


def test_chinese_config_sets_language_catalogues_search_and_colab_path(tmp_path):
    import shutil

    import yaml

    import build_book

    source = tmp_path / "book"
    (source / "_build").mkdir(parents=True)
    (source / "locales" / "zh_CN").mkdir(parents=True)
    shutil.copy(REPO / "_config.yml", source)
    shutil.copy(REPO / "locales" / "zh_CN" / "glossary.md", source / "locales" / "zh_CN")
    config = yaml.safe_load(build_book.chinese_config(source, source / "_config.yml").read_text())
    sphinx_config = config["sphinx"]["config"]
    assert sphinx_config["language"] == "zh_CN"
    # The committed catalogues plus the reading times, translated by rule (i18n_notebooks.MECHANICAL)
    assert sphinx_config["locale_dirs"] == [str(source / "_build" / "zh-locales")]
    assert sphinx_config["gettext_compact"] is False
    assert sphinx_config["html_search_language"] == "zh"
    assert config["repository"]["path_to_book"] == "i18n/zh_CN"
    assert all(path.startswith("/") for path in config["sphinx"]["local_extensions"].values())


def test_a_moved_message_keeps_its_translation_and_a_gone_page_its_catalogue_goes(tmp_path, monkeypatch):
    """A paragraph that moves to another page (or a page that is renamed) keeps its Chinese; the catalogue of
    a page that no longer exists is removed."""
    from babel.messages.catalog import Catalog

    catalogues, pots = tmp_path / "LC_MESSAGES", tmp_path / "pot"
    monkeypatch.setattr(i18n, "CATALOGUES", catalogues)
    old = Catalog(locale="zh_CN")
    old.add("A paragraph that moved.", "一段移走的文字。")
    i18n._write(catalogues / "notebooks" / "05_old_name.po", old)
    template = Catalog()
    template.add("A paragraph that moved.")
    template.add("A new paragraph.")
    i18n._write(pots / "notebooks" / "06_new_name.pot", template)
    i18n.update(pots)
    assert not (catalogues / "notebooks" / "05_old_name.po").exists()
    merged = {m.id: m.string for m in i18n._read(catalogues / "notebooks" / "06_new_name.po") if m.id}
    assert merged == {"A paragraph that moved.": "一段移走的文字。", "A new paragraph.": ""}


# Issue #48 item 4: a fuzzy entry is a translation of older English that no reader sees (Sphinx and the Chinese
# notebooks skip it); clearing the flag of a wrong one would publish it.
def test_no_catalogue_holds_a_fuzzy_entry():
    found = i18n.fuzzy_entries(PO_FILES)
    assert not found, "\n".join(found)


def test_changed_english_leaves_a_fuzzy_entry_that_the_check_finds(tmp_path, monkeypatch):
    """make translations keeps the old translation of changed English as a fuzzy entry, the check names it; a
    changed cell of the performance page's generated tables loses its translation instead (it shows English,
    which the tables may, until a translator translates it again)."""
    from babel.messages.catalog import Catalog

    catalogues, pots = tmp_path / "LC_MESSAGES", tmp_path / "pot"
    monkeypatch.setattr(i18n, "CATALOGUES", catalogues)
    monkeypatch.setattr(i18n, "performance_table_cells", lambda source=REPO: {"GRU recipe (s)", "GRU ratio"})
    old = Catalog(locale="zh_CN")
    old.add("The recipe pads least of any split.", "方案的填充是所有划分方式中最少的。")
    old.add("GRU recipe", "GRU 方案")
    for page in ("notebooks/05_batches", i18n.GENERATED_TABLES_PAGE):
        i18n._write(catalogues / f"{page}.po", old)
        template = Catalog()
        template.add("The recipe pads the least of any split.")
        template.add("GRU recipe (s)")
        i18n._write(pots / f"{page}.pot", template)
    i18n.update(pots)
    chapter, tables = catalogues / "notebooks/05_batches.po", catalogues / f"{i18n.GENERATED_TABLES_PAGE}.po"
    assert [m.id for m in i18n._read(chapter) if m.id and m.fuzzy] == [
        "The recipe pads the least of any split.",
        "GRU recipe (s)",
    ]
    found = i18n.fuzzy_entries([chapter, tables])
    assert len(found) == 3 and all("fuzzy" in line for line in found), found
    assert {m.id: m.string for m in i18n._read(tables) if m.id}["GRU recipe (s)"] == ""


def test_reading_times_stay_out_of_the_catalogues_and_reach_both_chinese_editions(tmp_path):
    """A script rewrites the reading times: they are translated by rule in the Chinese notebooks and in the
    catalogues the Chinese build reads, and never enter the committed catalogues (no stale .po per edit)."""
    card = "**Reading time** about 12 min."
    assert i18n_notebooks.mechanical_translation(card) == "**阅读时间**：约 12 分钟。"
    committed = {m.id for po in i18n.CATALOGUES.rglob("*.po") for m in i18n._read(po) if m.id}
    assert not [msgid for msgid in committed if i18n_notebooks.mechanical_translation(msgid)]
    built = i18n_notebooks.write_build_catalogues(REPO, tmp_path)
    quick_start = i18n._read(built / "zh_CN" / "LC_MESSAGES" / "notebooks" / "00_quick_start.po")
    card = next(m.string for m in quick_start if m.id and m.id.startswith("**Reading time**"))
    assert card.startswith("**阅读时间**")
    chinese = json.loads((i18n.ZH_NOTEBOOKS / "00_quick_start.ipynb").read_text())
    assert "**阅读时间**：约" in "".join(chinese["cells"][0]["source"])


def test_every_chinese_notebook_has_its_english_notebook():
    """A renamed chapter leaves no Chinese notebook behind under its old name (make translations removes it)."""
    english = {path.name for path in notebook_paths()}
    chinese = {path.name for path in i18n.ZH_NOTEBOOKS.glob("*.ipynb")}
    assert chinese == english, f"no English: {sorted(chinese - english)}; no Chinese: {sorted(english - chinese)}"


def test_an_untranslated_table_cell_keeps_its_place_and_code_spans_stay_english():
    """zh_review R1: a word of a later cell was found inside an earlier, untranslated cell's code span."""
    row = "| 0 `negative` | negative | negative |"
    table = {"negative": "负面"}
    text, replaced = i18n_notebooks.translate_markdown(f"| label | a | b |\n|---|---|---|\n{row}", table.get)
    assert text.split("\n")[2] == "| 0 `negative` | 负面 | 负面 |"
    assert replaced == 2


def _markdown_blocks(source: str) -> list[tuple[str, str, list[str]]]:
    """Each translatable block of a markdown cell as the generator sees it: its kind ("cell" for a table cell,
    "html", "block"), its message, and the code spans it renders."""
    blocks = []
    tokens = i18n_notebooks.PARSER.parse(source)
    for index, token in enumerate(tokens):
        if token.type == "html_block":
            blocks.append(("html", token.content.rstrip("\n"), []))
        elif token.type == "inline" and token.map is not None:
            kind = "cell" if tokens[index - 1].type in {"th_open", "td_open"} else "block"
            codes = [child.content for child in token.children or [] if child.type == "code_inline"]
            blocks.append((kind, i18n_notebooks.message_of(token.content), codes))
    return blocks


def markdown_differences(english: dict, chinese: dict, table: dict[str, str]) -> list[str]:
    """Where a Chinese notebook's markdown is not what the catalogue gives: block by block and table cell by
    table cell, msgstr (or msgid where untranslated); and every code span exactly as in English."""
    problems = []
    for index, (en_cell, zh_cell) in enumerate(zip(english["cells"], chinese["cells"], strict=True)):
        if en_cell["cell_type"] != "markdown":
            continue
        en_blocks = _markdown_blocks("".join(en_cell["source"]))
        zh_blocks = _markdown_blocks("".join(zh_cell["source"]))
        expected = [(kind, i18n_notebooks.translate_message(table, msgid) or msgid) for kind, msgid, _ in en_blocks]
        got = [(kind, message) for kind, message, _ in zh_blocks]
        if len(expected) != len(got):
            problems.append(f"cell {index}: {len(en_blocks)} blocks in English, {len(zh_blocks)} in Chinese")
        for want, have in zip(expected, got, strict=False):
            if want != have:
                problems.append(f"cell {index}: {want[0]} {want[1][:80]!r} is {have[1][:80]!r}")
        for (_, msgid, en_codes), (_, _, zh_codes) in zip(en_blocks, zh_blocks, strict=False):
            if sorted(en_codes) != sorted(zh_codes):
                problems.append(f"cell {index}: code spans of {msgid[:60]!r}: {en_codes} became {zh_codes}")
    return problems


@pytest.mark.parametrize("english", notebook_paths(), ids=lambda path: path.name)
def test_chinese_markdown_equals_the_catalogue_cell_by_cell_and_no_code_span_is_translated(
    english, tmp_path, monkeypatch
):
    """zh_review R1: every block and every table cell of the generated Chinese notebook is the catalogue's msgstr,
    or the msgid where there is none, and its code spans are the English ones. Checked twice: with the
    catalogues as they are, and with every msgstr that equals its msgid dropped (an untranslated cell, the case
    where the generator once matched a later cell's English inside an earlier cell's code span)."""
    en = json.loads(english.read_text())
    table = i18n_notebooks.translations(f"notebooks/{english.stem}")
    untranslated = {msgid: msgstr for msgid, msgstr in table.items() if msgid != msgstr}
    for name, catalogue in (("catalogue", table), ("identical msgstrs dropped", untranslated)):
        monkeypatch.setattr(i18n_notebooks, "translations", lambda page, catalogue=catalogue: catalogue)
        (fresh,) = i18n_notebooks.write_translated_notebooks([english], tmp_path / name.split()[0])
        problems = markdown_differences(en, json.loads(fresh.read_text()), catalogue)
        assert not problems, f"{name}:\n" + "\n".join(problems[:20])
    # The committed notebook is this generated one: test_chinese_notebook_is_generated_and_equals_... checks it.


def test_the_markdown_check_finds_a_code_span_rewritten_in_a_table():
    """The check above fails on what the generator once wrote (zh_review R1)."""
    source = "| label | a |\n|---|---|\n| 0 `negative` | negative |"
    broken = "| label | a |\n|---|---|\n| 0 `负面` | negative |"
    problems = markdown_differences(
        {"cells": [{"cell_type": "markdown", "source": source}]},
        {"cells": [{"cell_type": "markdown", "source": broken}]},
        {"negative": "负面"},
    )
    assert any("'0 `negative`' is '0 `负面`'" in line for line in problems), problems
    assert any("code spans" in line for line in problems), problems
    assert any("'负面' is 'negative'" in line for line in problems), problems


GLOSSARY = REPO / "locales" / "zh_CN" / "glossary.md"
# zh_review T1–T8 and M1 (issue #29): the renderings the glossary retired. 错误 itself stays right for "error".
REQUIRED_RETIRED = {
    "填充错误",
    "有错误的模型",
    "静默错误",
    "错误信息",
    "错误消息",
    "修正方法",
    "排布",
    "预先计算好的画面",
    "反向方向",
    "遮盖",
    "新状态",
    # zh_round2 (issue #39): F1, T6, T8, T10, T11, T12, T15, T17 and M6 in the prose; T1, T3, T5 and M1 in the
    # exercise checks' messages and their stored outputs.
    "把文档放进行",
    "打包进行中",
    "全局数量",
    "最顶层",
    "最上层",
    "无处可注意",
    "槽位",
    "还原顺序",
    "簿记",
    "旋转位置嵌入",
    "不要让这样的行出现",
    "逆排列",
    "右填充",
    "相互关注",
    "评论",
    "批大小",
}
# The exercise checks print 新状态 for h′, the updated state (chapter 3: "took the new state at the pad steps"),
# which is right; the retired sense is the GRU's new gate, which only prose names.
PROSE_ONLY = {"新状态"}


def retired_renderings() -> dict[str, str]:
    """The glossary's table of retired renderings: retired -> the term to use instead."""
    text = GLOSSARY.read_text().split("## Retired renderings", 1)[1]
    rows = [line.strip().strip("|").split("|") for line in text.splitlines() if line.startswith("|")]
    return {old.strip(): new.strip() for _, old, new in rows[2:]}


def test_the_glossary_retires_each_rendering_the_review_named():
    retired = retired_renderings()
    assert REQUIRED_RETIRED <= set(retired), sorted(REQUIRED_RETIRED - set(retired))
    terms = GLOSSARY.read_text().split("## Retired renderings", 1)[0]
    for old, new in retired.items():
        assert old not in terms, f"the glossary still lists the retired {old}"
        assert all(part in terms for part in new.replace("（", " ").replace("）", " ").split()), new


def test_retired_renderings_are_gone_from_every_catalogue_and_chinese_notebook(tmp_path):
    """The catalogues, and the Chinese notebooks as `make translations` makes them from those (the test above
    compares them with the committed ones)."""
    retired = retired_renderings()
    found = []
    for po in PO_FILES:
        checks = po.is_relative_to(i18n.PACKAGE_CATALOGUES)  # the exercise checks' messages
        for message in i18n._read(po):
            for old in retired:
                if checks and old in PROSE_ONLY:
                    continue
                if message.id and message.string and old in message.string:
                    found.append(f"{po_id(po)}: {old} (use {retired[old]}) in {message.string[:60]!r}")
    for path in i18n_notebooks.write_translated_notebooks(notebook_paths(), tmp_path):
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            texts = ["".join(cell["source"])]
            texts += ["".join(output.get("text", "")) for output in cell.get("outputs", [])]
            for old in retired:
                if (cell["cell_type"] == "markdown" or old not in PROSE_ONLY) and any(old in t for t in texts):
                    found.append(f"{path.name} cell {index} ({cell['cell_type']}): {old} (use {retired[old]})")
    assert not found, "\n".join(found)


# Issue #39 (zh_round2 P6, E1, E2): what a Chinese notebook prints fits the page and speaks Chinese.
PAGE_COLUMNS = 79


def test_no_line_of_a_chinese_notebook_is_wider_than_the_page():
    """Every line of a Chinese notebook's code (its translated print literals) and every line it stores as printed
    (stdout) fits 79 display columns, where an East Asian wide character counts two (padpack.i18n.display_width;
    textwrap counts characters, so a Chinese line it wraps comes out up to twice as wide). A printed line with an
    address is exempt: a link is not broken."""
    width = i18n_notebooks.package_i18n().display_width
    too_wide = []
    for path in sorted(i18n.ZH_NOTEBOOKS.glob("*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] != "code":
                continue
            lines = [("code", line) for line in "".join(cell["source"]).splitlines()]
            for output in cell.get("outputs", []):
                if output.get("output_type") == "stream" and output.get("name") == "stdout":
                    lines += [("printed", line) for line in "".join(output["text"]).splitlines()]
            for kind, line in lines:
                if width(line) > PAGE_COLUMNS and not (kind == "printed" and "https://" in line):
                    too_wide.append(f"{path.name} cell {index}, {kind}: {width(line)} columns: {line!r}")
    assert not too_wide, f"{len(too_wide)} lines wider than {PAGE_COLUMNS} columns:\n" + "\n".join(too_wide)


# labels of values the code names otherwise: unsorted_indices, a layer's output, FlashAttention's max_seqlen
CODE_WORDS = {"unsorted", "output", "max_seqlen"}


WORD = re.compile(r"[A-Za-z_]\w+")


def code_names(path) -> set[str]:
    """The names a notebook's code uses (variables, attributes, keyword arguments), and CODE_WORDS."""
    names = set(CODE_WORDS)
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            for node in ast.walk(i18n_notebooks._python("".join(cell["source"]))):
                names.update(filter(None, (getattr(node, field, None) for field in ("id", "attr", "arg"))))
    return names


def literal_text(node) -> list[str]:
    """The text a string literal or f-string writes itself, without its {fields}."""
    parts = node.values if isinstance(node, ast.JoinedStr) else [node]
    return [part.value for part in parts if isinstance(part, ast.Constant) and isinstance(part.value, str)]


def test_every_sentence_a_chapter_prints_reaches_the_catalogue():
    """`make translations` reads a print call's literals one by one: a sentence split into implicitly joined
    literals (`f"..." f"..."`), or printed with `end=`, `file=` or a starred argument, would stay English in the
    Chinese notebook without any test noticing. Each must be one literal of a plain print call, unless its
    words only name code, or it prints the machine line (`platform.machine()`), which stays English."""
    unread = []
    for path in notebook_paths():
        names = code_names(path)
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            lines = source.split("\n")
            for node in ast.walk(i18n_notebooks._python(source)):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"):
                    continue
                texts = [
                    arg
                    for arg in node.args
                    if isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
                ]
                words = {
                    word for arg in texts for text in literal_text(arg) for word in re.findall(r"[A-Za-z_]\w+", text)
                }
                if not words - names or "platform.machine()" in ast.unparse(node):
                    continue
                worded = [arg for arg in texts if any(re.search(r"[A-Za-z]{2,}", text) for text in literal_text(arg))]
                plain = not ({keyword.arg for keyword in node.keywords} - {"sep"}) and not any(
                    isinstance(arg, ast.Starred) for arg in node.args
                )
                if worded and (not plain or any(i18n_notebooks._literal(lines, arg) is None for arg in worded)):
                    unread.append(f"{path.name} cell {index}: {ast.unparse(node)[:100]}")
    assert not unread, "print calls whose words make translations cannot read:\n" + "\n".join(unread)


def test_a_printed_line_stays_english_only_where_it_names_code():
    """Every print literal with words is a catalogue entry that `make check-translations` wants translated; one
    whose translation is the English itself (msgstr = msgid) may only name code: each of its words is a name the
    notebook's code uses ("lengths:", "batch_first  num_layers"), so no English sentence hides as "translated"."""
    kept_english = []
    for path in notebook_paths():
        names = code_names(path)
        catalogue = i18n._read(i18n_notebooks.CATALOGUES / f"notebooks/{path.stem}.po")
        for message in catalogue:
            if message.context == i18n_notebooks.PRINT_CONTEXT and message.string == message.id:
                text = "".join(t for kind, t in i18n_notebooks.fstring_parts(message.id) if kind == "text")
                words = re.findall(r"[A-Za-z_]\w*", text)
                if not words or not set(words) <= names:
                    kept_english.append(f"{path.name}: {message.id!r} ({sorted(set(words) - names)})")
    assert not kept_english, "printed English that names no code, left untranslated:\n" + "\n".join(kept_english)


def test_a_frame_s_message_is_translated_in_a_text_run_and_in_a_single_quoted_attribute():
    """A slider's frame as chapter 1 draws it: messages that fill the text runs between its tags (the key's runs end
    at its swatches) and the value of an attribute in single quotes (the grid's aria-label) become what a Chinese
    run of the same cell builds."""
    from padpack.course.chapters.ch01 import FRAME
    from padpack.i18n import translate, use_language

    def frame() -> str:
        heading = translate(FRAME["heading"], batch_size=4)
        label = translate(FRAME["grid"], batch_size=4, longest=9)
        return (
            translate(FRAME["longest"], heading=f"<b>{heading}</b>", longest=9)
            + "<svg aria-hidden='true'></svg>"
            + translate(FRAME["real tokens"], real_tokens=20)
            + f"<br><svg role='img' aria-label='{label}' style='display:block'></svg>"
        )

    english = frame()
    use_language("zh_CN")
    try:
        chinese = frame()
    finally:
        use_language("en")
    assert "aria-label='填充后的批次" in chinese
    assert i18n_notebooks.translate_html(english, "course/chapters/ch01") == chinese


def test_a_list_that_a_frame_joins_with_its_chapter_s_separator_is_translated_item_by_item():
    """Chapter 9's packed caption lists its documents, and chapter 2's frame the sequences that ended together,
    joined by the chapter's ", " message: the Chinese frame joins the translated items with "、", as a Chinese run
    of the same cell does (Z10B.1), rather than reading the whole list as one document's letter."""
    from padpack.course.chapters import ch02, ch09
    from padpack.i18n import translate, use_language

    def captions() -> list[str]:
        documents = translate(ch09.FRAME["separator"]).join(
            translate(ch09.FRAME["document"], letter=letter, length=length) for letter, length in (("A", 5), ("B", 3))
        )
        ended = translate(ch02.FRAME["separator"]).join(["1", "2"])
        values = {"heading": "<b>t</b>", "length": 2, "previous": 1, "step": 2, "before": 4, "size": 2}
        return [
            translate(ch09.FRAME["packed caption"], row=0, documents=documents, useful=18, scores=144, share=0.125),
            translate(ch02.FRAME["several ended"], sequences=ended, **values),
        ]

    english = captions()
    use_language("zh_CN")
    try:
        chinese = captions()
    finally:
        use_language("en")
    assert "A（5 个词元）、B（3 个词元）" in chinese[0] and "1、2" in chinese[1]
    for module, en, zh in zip(("ch09", "ch02"), english, chinese, strict=True):
        assert i18n_notebooks.translate_html(f"<div>{en}</div>", f"course/chapters/{module}") == f"<div>{zh}</div>"


def test_no_printed_chinese_paragraph_ends_on_a_line_of_one_or_two_characters():
    """padpack.i18n.wrap moves a character down rather than leave one or two alone on the last line ("进⏎程。",
    zh_round3 Z3.44; "回⏎合。"... "的⏎回合。", Z4.20): no stored printed line is one or two Chinese characters with
    their punctuation under a longer line."""
    widow = re.compile(r"\s*[\u4e00-\u9fff]{1,2}[。，；：！？）]?")
    widows = []
    for path in sorted(i18n.ZH_NOTEBOOKS.glob("*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            for output in cell.get("outputs", []):
                lines = "".join(output.get("text", "")).splitlines() if output.get("name") == "stdout" else []
                widows += [
                    f"{path.name} cell {index}: {before!r} / {line!r}"
                    for before, line in itertools.pairwise(lines)
                    if widow.fullmatch(line) and len(before) > 20
                ]
    assert not widows, "\n".join(widows)


def test_the_sentences_a_chinese_notebook_prints_for_the_reader_are_chinese():
    """The answers the solutions print (`check_x.answer()`) and the sentences the cells marked translated_stdout
    compute from the reader's numbers (`say`) are stored in Chinese: no English answer line, and no sentence of
    such a cell that a package template matches is left in English."""
    answer = i18n_notebooks.check_messages()["answer"]
    sentences = i18n_notebooks.package_templates("course/chapters")
    answers, marked, english = 0, 0, []
    for path in sorted(i18n.ZH_NOTEBOOKS.glob("*.ipynb")):
        en = json.loads((REPO / "notebooks" / path.name).read_text())
        for index, (en_cell, cell) in enumerate(zip(en["cells"], json.loads(path.read_text())["cells"], strict=True)):
            en_text = "".join("".join(output.get("text", "")) for output in en_cell.get("outputs", []))
            text = "".join("".join(output.get("text", "")) for output in cell.get("outputs", []))
            answers += en_text.count(f"\n{answer} ") + en_text.startswith(f"{answer} ")
            if f"{answer} " in text:
                english.append(f"{path.name} cell {index}: an English answer")
            if cell["metadata"].get(i18n_notebooks.TRANSLATED_STDOUT):
                marked += 1
                if i18n_notebooks.translate_sentences(text, sentences) != text:
                    english.append(f"{path.name} cell {index}: an English sentence in {text[:200]!r}")
    assert answers >= 13, f"only {answers} solutions print their answer"
    assert marked >= 4, f"only {marked} cells marked {i18n_notebooks.TRANSLATED_STDOUT}"
    assert not english, "\n".join(english)


def test_a_check_s_hidden_cases_line_is_translated_for_one_case_and_for_several():
    from padpack.checks import TEXT
    from padpack.i18n import catalogue

    table = catalogue("zh_CN")
    english = "\n".join([TEXT["hidden_one"], TEXT["hidden"].format(count=3)])
    chinese = i18n_notebooks.translate_check_output(english)
    assert chinese == "\n".join([table[TEXT["hidden_one"]], table[TEXT["hidden"]].format(count=3)])


def widget_texts(notebook: dict) -> list[str]:
    """What a notebook's widgets show a reader: each frame's text (code spans left out) and aria-label, and each
    control's labels."""
    texts = []
    for model in notebook["metadata"].get("widgets", {}).get(i18n_notebooks.WIDGET_STATE, {}).get("state", {}).values():
        state = model["state"]
        if state.get("_model_name") == "HTMLModel":
            html = re.sub(r"<code\b[^>]*>.*?</code>", " ", state["value"], flags=re.DOTALL)
            labels = re.findall(r"""aria-label=(?:"([^"]*)"|'([^']*)')""", html)
            texts += [double or single for double, single in labels]
            texts += re.split(r"<[^>]*>", html)
        texts += [state.get("description", "")] + list(state.get("_options_labels", []))
    return [text.strip() for text in texts if text.strip()]


# English words a slider may show in Chinese: names of code and data (token letters, "t"), none a sentence.
ENGLISH_IN_SLIDERS = re.compile(r"[A-Za-z][A-Za-z'-]+(?: +[A-Za-z][A-Za-z'-]+)+")


def test_the_sliders_of_a_chinese_notebook_speak_chinese():
    """Every frame and label of a Chinese notebook's sliders is Chinese: no run of two English words is left in
    what they show (code spans aside). `make test-zh` proves that a Chinese run draws exactly these frames."""
    english, sliders = [], 0
    for path in sorted(i18n.ZH_NOTEBOOKS.glob("*.ipynb")):
        texts = widget_texts(json.loads(path.read_text()))
        sliders += bool(texts)
        english += [f"{path.name}: {text[:120]!r}" for text in texts if ENGLISH_IN_SLIDERS.search(text)]
    assert sliders >= 6, f"only {sliders} Chinese notebooks have sliders"
    assert not english, f"{len(english)} English texts in the sliders:\n" + "\n".join(sorted(set(english))[:40])


def test_an_error_the_chapter_raises_is_translated_as_expect_error_prints_it():
    """A chapter's own error message (one literal of words) is a message of its page, translated in the Chinese
    code and in the line `expect_error` printed; an error raised with a name (deep dive 12 keeps torch's messages
    in names, word for word) is not."""
    source = 'raise ValueError(f"no tokens: {blank}")'
    table = {"no tokens: {blank}": "没有词元：{blank}"}
    (call,) = i18n_notebooks.print_calls(source)
    assert i18n_notebooks.translate_code(source, table) == 'raise ValueError(f"没有词元：{blank}")'
    pattern, chinese = i18n_notebooks.print_template(call, table)
    assert chinese(pattern.fullmatch("ValueError: no tokens: {1: ' '}")) == "ValueError: 没有词元：{1: ' '}"
    assert i18n_notebooks.print_calls("raise RuntimeError(EMPTY)") == []


def test_a_placeholder_formatted_as_an_integer_matches_only_digits():
    """Chapter 5's slider option "batch {number:d}" must not be found in chapter 7's "batch independence; pad
    values" (it once turned that printed line into 第 independence; … 个批次)."""
    ((pattern, chinese, _, _),) = i18n_notebooks.message_templates({"batch {number:d}": "第 {number:d} 个批次"})
    assert chinese.format(**pattern.fullmatch("batch 12").groupdict()) == "第 12 个批次"
    assert pattern.fullmatch("batch independence; pad values") is None
