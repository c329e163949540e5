"""The padding doctor and the batching planner in Chinese (issue #48), over the zoo of tests/test_doctor.py and
the planner's and the command line's wrong inputs of tests/test_batching.py.

Everything they print in zh_CN:
- is made of whole catalogue entries: no message the package looks up is missing from the zh_CN catalogue (a
  miss would print English);
- holds no rendering the glossary retired (locales/zh_CN/glossary.md) and no retired Chinese phrasing of
  tests/test_retired_claims.py, and no run of three English words (code, names and addresses aside);
- and, for the doctor's reports, equals the English report translated the way `make translations` translates a
  notebook's stored output (scripts/i18n_notebooks.py), so that the Chinese notebooks store what a Chinese reader
  gets when running them.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys

import pytest
import test_batching as planner_cases
import test_doctor as zoo
from test_i18n import PROSE_ONLY, retired_renderings
from test_retired_claims import CJK, RETIRED

import padpack.__main__
import padpack.batching
import padpack.checks
import padpack.doctor
import padpack.i18n
from conftest import REPO
from padpack.doctor import PaddingCheckError, check_batches, check_padding
from padpack.i18n import catalogue, language, use_language

sys.path.insert(0, str(REPO / "scripts"))
import i18n_notebooks

MODULES = (padpack.doctor, padpack.batching, padpack.checks, padpack.__main__)
RETIRED_ZH = [
    (re.compile(re.escape(old)), f"retired by the glossary: use {new}")
    for old, new in retired_renderings().items()
    if old not in PROSE_ONLY
] + [(re.compile(pattern), reason) for pattern, reason in RETIRED if CJK.search(pattern)]
ADDRESS = re.compile(r"https://\S+")
# Three English words in a row: a sentence left English (names such as Hugging Face are two words, code has
# underscores, brackets or dots between its words)
ENGLISH = re.compile(r"(?<![\w.\[(-])[A-Za-z]+ [A-Za-z]+ [A-Za-z]+(?![\w(\[.])")


@pytest.fixture
def chinese(monkeypatch):
    """zh_CN, with every message the package looks up that the catalogue lacks recorded in the list it yields."""
    table = catalogue("zh_CN")
    missed: list[str] = []

    def gettext(message: str) -> str:
        if language() == "en":
            return message
        if message not in table:
            missed.append(message)
        return table.get(message, message)

    for module in MODULES:
        monkeypatch.setattr(module, "gettext", gettext)
    use_language("zh_CN")
    try:
        yield missed
    finally:
        use_language("en")


def problems(text: str, quoted: str = "") -> list[str]:
    """Retired renderings and English sentences in `text`; `quoted` is torch's own error text, which it quotes."""
    found = [f"{reason}: {match[0]!r}" for regex, reason in RETIRED_ZH for match in regex.finditer(text)]
    found += [
        f"English: {match[0]!r}"
        for match in ENGLISH.finditer(ADDRESS.sub(" ", text.replace(quoted, " ") if quoted else text))
    ]
    return found


def as_stored(english: str) -> str:
    """An English report as `make translations` stores it in a Chinese notebook (a cell marked translated_stdout)."""
    doctor = i18n_notebooks.package_templates("doctor")
    return i18n_notebooks.translate_sentences(i18n_notebooks.translate_findings(english, doctor), doctor)


def zoo_reports():
    """(name, a function that runs the doctor and returns its report) for every model, loss and batch of the zoo."""
    for name, (make, arguments, *_) in {**zoo.CORRECT, **zoo.BUGGY}.items():
        yield name, lambda make=make, arguments=arguments: zoo.run(make(), arguments)
    data = zoo.sequences()
    for name, (loss_fn, *_) in zoo.LOSSES.items():
        yield (
            f"loss {name}",
            lambda loss_fn=loss_fn: check_padding(zoo.Tagger(), data, labels=zoo.tagger_labels(data), loss_fn=loss_fn),
        )
    yield "the book's collate_fn", lambda: check_batches(zoo.loader())
    for name, (options, _) in zoo.DATA_BUGS.items():
        yield f"batches {name}", lambda options=options: check_batches(zoo.loader(**options))


REPORTS = dict(zoo_reports())


@pytest.mark.parametrize("name", REPORTS)
def test_every_report_of_the_zoo_is_whole_chinese_sentences_and_what_the_notebooks_store(name, chinese):
    report = REPORTS[name]()
    text, short = str(report), "\n".join(finding.describe(page=False) for finding in report)
    use_language("en")
    report = REPORTS[name]()
    english, english_short = str(report), "\n".join(finding.describe(page=False) for finding in report)
    assert not chinese, f"not in the zh_CN catalogue: {chinese}"
    assert not problems(text), "\n".join([*problems(text), text])
    assert as_stored(english) == text, f"stored:\n{as_stored(english)}\nprinted:\n{text}"
    assert as_stored(english_short) == short, f"stored:\n{as_stored(english_short)}\nprinted:\n{short}"


@pytest.mark.parametrize("name", zoo.WRONG_INPUTS)
def test_every_padding_check_error_is_one_chinese_sentence(name, chinese):
    arguments, _ = zoo.WRONG_INPUTS[name]
    with pytest.raises(PaddingCheckError) as caught:
        check_padding(zoo.Model("h_n[-1]"), **arguments)
    quoted = str(caught.value.__cause__ or "")  # the model's own error, which the sentence quotes
    assert not chinese, f"not in the zh_CN catalogue: {chinese}"
    assert CJK.search(str(caught.value)) and not problems(str(caught.value), quoted), str(caught.value)


def test_a_retired_rendering_and_an_english_sentence_are_found():
    assert problems("输出忽略了双向 rnn 的正向方向：模型只保留了反向方向")  # the doctor's retired sentence (Z3.10)
    assert problems("✗ 两个方向：the output ignores the forward direction")
    assert not problems("请给注意力一个填充掩码（key_padding_mask，Hugging Face 模型则是 attention_mask）")


@pytest.mark.parametrize("lengths", [[3, 1, 4, 1, 5, 9, 2, 6] * 8, list(range(1, 300)) * 3])
def test_the_planners_printout_is_chinese(lengths, chinese):
    text = str(padpack.batching.plan_batches(lengths, batch_size=4))
    assert not chinese, f"not in the zh_CN catalogue: {chinese}"
    assert not problems(text), "\n".join([*problems(text), text])


@pytest.mark.parametrize(("arguments", "words"), planner_cases.PLAN_ERRORS)
def test_every_batch_plan_error_is_chinese(arguments, words, chinese):
    with pytest.raises(padpack.batching.BatchPlanError) as caught:
        padpack.batching.plan_batches(**arguments)
    assert not chinese, f"not in the zh_CN catalogue: {chinese}"
    assert CJK.search(str(caught.value)) and not problems(str(caught.value)), str(caught.value)


def command_line(*arguments: str, stdin: str = "", language: list[str] | None = None) -> str:
    """What `python -m padpack` prints (stdout and stderr), run in this process with --language zh_CN (or with the
    arguments `language`, put first)."""
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        real_stdin, sys.stdin = sys.stdin, io.StringIO(stdin)
        try:
            padpack.__main__.run_command_line(
                [*language, *arguments] if language is not None else [*arguments, "--language", "zh_CN"]
            )
        except SystemExit:
            pass
        finally:
            sys.stdin = real_stdin
    return output.getvalue()


@pytest.mark.parametrize("arguments", [["--help"], ["plan", "--help"], ["plan", "-", "--batch-size", "4"]])
def test_the_command_lines_help_and_output_are_chinese(arguments, chinese):
    text = command_line(*arguments, stdin="3\n1\n4\n1\n5\n9\n2\n6\n")
    assert not chinese, f"not in the zh_CN catalogue: {chinese}"
    assert CJK.search(text) and not problems(text), text
    if "--help" in arguments:
        assert "用法：python -m padpack" in text and "选项：" in text and "显示此帮助信息并退出" in text, text


@pytest.mark.parametrize(("content", "arguments", "words"), planner_cases.CLI_ERRORS)
def test_every_command_line_error_of_the_planner_is_chinese(content, arguments, words, chinese):
    text = command_line("plan", "-", *arguments, stdin=content)
    assert not chinese, f"not in the zh_CN catalogue: {chinese}"
    assert text.startswith("python -m padpack: ") and CJK.search(text) and not problems(text), text


def test_the_see_label_of_a_finding_is_never_split():
    """Review round 6 (Z6E.4): a finding whose sentence ended near the margin printed "…打包。参" and then "见：" alone
    on the next line above its address; in English "See:" is one word and never split."""
    use_language("zh_CN")
    try:
        for count in range(20, 80):  # the sentence ends at every column of the first and the second line
            finding = padpack.doctor.Finding("batch independence", False, "填" * count + "。")
            lines = str(finding).split("\n")
            assert any(line.rstrip().endswith("参见：") for line in lines), lines
            assert lines[-1] == f"  {finding.page}" and all(padpack.i18n.display_width(x) <= 79 for x in lines[:-1])
    finally:
        use_language("en")
    lines = str(padpack.doctor.Finding("batch independence", False, "x" * 70 + ".")).split("\n")
    assert lines[-2].endswith(" See:") or lines[-2] == "  See:", lines


@pytest.mark.parametrize("language", [["--language", "zh"], ["--lang=zh"]])
def test_the_command_line_takes_zh_as_use_language_does(language):
    """Review round 6 (Z6E.11): --language zh was refused, in English, to exactly the reader who wanted Chinese."""
    for arguments in ([*language, "plan", "-", "--batch-size", "4"], ["plan", "-", "--batch-size", "4", *language]):
        text = command_line(*arguments, stdin="3\n1\n4\n", language=[])
        assert "推荐" in text and "invalid choice" not in text, text
    assert "{en,zh_CN}" in command_line("plan", "--help")


# argparse's own errors, which the standard library writes in English: padpack.__main__ gives each its sentence of
# the catalogue (an unknown option is among planner_cases.CLI_ERRORS above).
@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["plan"], "LENGTHS"),
        (["plan", "-", "--batch-size"], "--batch-size"),
        (["plan", "-", "--max", "4"], "--max-tokens"),
        (["plan", "-", "--language", "fr"], "'fr'"),
        (["nope"], "'nope'"),
    ],
    ids=["missing-lengths", "no-value", "ambiguous", "invalid-language", "invalid-command"],
)
def test_argparse_s_own_errors_are_chinese_sentences(arguments, words, chinese):
    text = command_line(*arguments, stdin="3\n")
    assert not chinese, f"not in the zh_CN catalogue: {chinese}"
    assert text.startswith("python -m padpack: ") and CJK.search(text) and not problems(text), text
    assert words in text and text.rstrip().endswith("。"), text
