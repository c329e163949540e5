"""Claims the reviews retired stay retired: every phrasing a fix removed is a forbidden pattern over the
chapters, the pages, the README and both editions, each with the one-line reason it went.

English patterns are searched in the sources (every notebook cell, book/*.md, README.md) and in the Chinese
notebooks (whose code is the English code); Chinese patterns (the zh review's retired renderings) in the
catalogues' translations and the Chinese notebooks. The list comes from the fixes of issue #29 and the three
reviews in shared/reviews/ (review_ch7_ch8.md, errata14_check.md, zh_review.md)."""

from __future__ import annotations

import json
import re

import pytest
from babel.messages.pofile import read_po

from conftest import REPO

CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")
RETIRED = [
    (
        "[Ss]elect with\\s+`torch\\.where`\\s+instead of multiplying",
        "torch.where keeps the loss finite, its gradients stay NaN (MHA need_weights=True); keep such rows out",
    ),
    (
        "[Kk]eep such rows out,\\s+or select with\\s+`torch\\.where`",
        "torch.where is no fix in training: NaN gradients behind a finite loss",
    ),
    (
        "select with `torch\\.where`, not a product",
        "same (old cheatsheet wording): NaN gradients behind a finite torch.where loss",
    ),
    (
        "SDPA defines the empty average as zero",
        "zeros are an undocumented implementation choice (torch 2.5, pytorch#131060/#133882), CPU-measured only",
    ),
    (
        "exact only with a \\*\\*block-diagonal document mask\\*\\* and \\*\\*per-document position\\s+ids\\*\\*",
        "with RoPE (relative positions) the document mask alone is exact",
    ),
    (
        "contaminated\\. The document mask alone is not enough",
        "only for absolute position embeddings; with RoPE the mask alone is exact",
    ),
    ("kernels for packed rows need no mask at all", "a causal LM still needs causal=True / window_size=(-1, 0)"),
    (
        "take a jagged tensor's offsets as `cu_seqlens` and need no mask\\.",
        "same: the varlen kernels need causality asked for",
    ),
    ("took over a minute on the 2-core machine", 'an unmeasured timing; now "can take minutes (not measured here)"'),
    ("eager FlexAttention has no backward", "FlexAttention has no backward on a CPU at all, compiled or not"),
    (
        "\\(the default\\),\\s+in eval mode, without gradients, and given a `src_key_padding_mask`, it converts",
        "incomplete fast-path conditions: also use_nested_tensor (no norm_first, batch_first), right padding, no mask",
    ),
    (
        "drops the empty sequence\\s+and returns zeros for it\\.",
        "only under the nested path's conditions; otherwise NaN",
    ),
    ("asks\\s+seven code paths", "the deep dive now asks twelve"),
    ("they depend on the mode\\.", "they depend on the code path (mode, layer options, padding side, mask)"),
    (
        "leaves the others waiting in an all-reduce\\s+until",
        "a rank that exits fails the others at once; only one waiting in another collective waits until the timeout",
    ),
    (
        "waiting in an all-reduce forever",
        "a rank that exits fails the others at once; otherwise the timeout ends the wait",
    ),
    ("Nothing fails at once: rank 0 waits", "if the finished rank exits, gloo fails the others at once"),
    ("30 min by default here", 'the default is 30 min for gloo and mixed backends, 10 for "nccl" alone'),
    (
        "compute, not communication,?\\s+sets\\s+the pace",
        "compared the step with an all-reduce timed apart; the waiting was not measured",
    ),
    ("shrinks by orders of\\s+magnitude", "only for large models; a 7k-parameter LSTM stays launch- and sync-bound"),
    (
        "autocast works with packed sequences",
        "on the CPU autocast leaves a packed LSTM in float32 (a padded one is cast to bfloat16)",
    ),
    ("It works with packed sequences: packing only rearranges", "on the CPU a packed LSTM is not autocast"),
    (
        "includes\\s+`NLLLoss`, which `cross_entropy` uses",
        "only nll_loss2d (3-D+ logits) alerts on CUDA; (N, C) cross_entropy does not",
    ),
    (
        "keep the loss out of the check, as the GPU branch below does",
        "the (N, C) loss runs in deterministic mode by the source",
    ),
    (
        "lists NLLLoss\\s+\\(under `cross_entropy`\\) among the CUDA operations that raise",
        "only the nll_loss2d path raises",
    ),
    ("It also holds what resuming needs", "it resumes at epoch boundaries only and must check the world size"),
    ("batches\\.append\\(batch\\) if batch else None", "a conditional expression used for its side effect"),
    ("select with `torch.where`, not a product", "torch.where keeps the loss finite but leaves NaN gradients (7.1)"),
    ("SDPA returns\\s+zeros there;", "zeros are this build's undocumented choice, measured on a CPU only (7.5)"),
    (
        "runs on nested\\s+tensors inside and returns `0\\.0` at the pad positions",
        "only with use_nested_tensor and right padding; else NaN (7.2)",
    ),
    (
        "exact only with a block-diagonal document mask\\s+\\*\\*and\\*\\* position ids",
        "with RoPE/ALiBi the mask alone is exact (7.3)",
    ),
    (
        "`default_pg_timeout`: 30 minutes",
        "NCCL's default is 10 minutes; an exiting rank fails the others at once (8.2)",
    ),
    (
        "leaves the others waiting until the process group's timeout",
        "depends on what the finished rank does next (8.2)",
    ),
    (
        '\\(CPU\\) or `"nccl"`\\s+\\(GPUs\\) reads them',
        "NCCL needs set_device/device_ids and has no CPU collectives (8.1)",
    ),
    ("zeros, no error, no NaN", "SDPA's zeros are undocumented (7.5)"),
    ("so the state keeps moving", "the state converges to a fixed point of the zero-input step (N12)"),
    (
        "every\\s+speed claim is measured on \\*your\\* machine\\.",
        "pages quote the committed machine; GPU claims are not measured (N12)",
    ),
    ("variable-length sequences for PyTorch RNNs, correctly", "the book also covers Transformers and DDP (B.3)"),
    (
        "Only a state that is exactly zero, with no biases, stays where it is",
        "a state at a fixed point of the zero-input step also stays (deep dive 13 asserts one with bias)",
    ),
    (
        "With `bias=False`, the zero state: every gate term",
        "the zero state is one state pads leave alone, not the only one",
    ),
    ("must be a CPU `?int64`?", "lengths must be on the CPU; any integer type (or a list) is converted to int64"),
    ("CPU int64, as packing (needs|requires)", "packing needs the lengths on the CPU, not int64"),
    ("\\*\\*int64 tensor on the CPU\\*\\*: that is what", "pack_padded_sequence needs CPU lengths, any integer type"),
    (
        "one short line that names the device the chapter runs on",
        "several setup cells print nothing or the torch version",
    ),
    (
        "keep `True` only when you need ONNX export",
        "enforce_sorted=True matters only to the legacy exporter (dynamo=False), not to the default one",
    ),
    (
        "(?i)sorting( by hand)? is only needed for ONNX export(?! with the legacy)",
        "only the legacy dynamo=False exporter; the default cannot export packed RNNs at all",
    ),
    ("discuss\\.pytorch\\.org, topic 132898", "a bare id is no link text"),
    ("step_size\\[0\\] > 0\\.1 and step_size\\[39\\] < 1e-4", "holds for the stored seed only (fails at shift 3)"),
    (
        "distance first shrinks and then grows",
        "describes the seed-0 path only; with other seeds the drift need not shrink first",
    ),
    ("first pad step jumps past it", "the overshoot happens for some seeds only"),
    (
        "after 40 pad steps each one moves `h` by less than",
        "an absolute bound is seed-lucky; the decay ratio is what holds",
    ),
    ("distance_after\\[0\\] > 0\\.1", "fails at shift 4"),
    (
        "lengths that do not match the batch size, a length of zero",
        "torch checks the count only with enforce_sorted=True; with False it raises IndexError or silently drops rows",
    ),
    (
        "the correct loss needs no luck",
        "the per-batch mean weighs tokens up to 16.7x apart on bucketed batches (15, next section)",
    ),
    (
        "you still need it for ONNX export",
        "only the legacy dynamo=False exporter needs sorting; the default cannot export a packed LSTM at all",
    ),
    (
        "Sorting by hand is only needed for ONNX export\\.",
        "only with the legacy dynamo=False exporter; the default cannot export a packed LSTM at all",
    ),
    (
        "keep `torch\\.set_num_threads\\(1\\)` for models this small",
        "set globally it changes the whole process; set it around the training and restore it",
    ),
    ("For large models, remove the line", "the advice is to keep the default, not to edit a global call"),
    (
        "The model agrees with the rule on sentences it has never seen",
        "five examples prove nothing and the count changes with the seed; the test accuracy is the claim",
    ),
    (
        "assert model_labels == \\[LABEL_NAMES",
        "an exact match on a few hand-written reviews holds only for lucky seeds",
    ),
    ("runs\\[name, 0\\]", "a hard-coded seed key breaks when SEEDS change; use SEEDS[0]"),
    (
        "rests on a modest difference of\\s+medians",
        "the GRU's bucket-then-pack lead is inside the spread; the page now applies the stated no-clear-winner rule",
    ),
    (
        "GRU: \\*\\*bucket by length, then pack\\*\\* \\| forward",
        "at inference the GRU bucket-then-pack lost once and won beyond the spread in 4 of 7: no clear winner",
    ),
    (
        "bucketing and padding is close behind",
        "replaced by the computed per-configuration counts of each no-clear-winner cell",
    ),
    (
        "The fastest correct way to train on this",
        "whole-epoch sorting is only the fastest way to batch; the book recommends sorting within large random chunks",
    ),
    (
        "The book's recipe \\(length-bucketed batches, padded, the state read at `lengths - 1`\\) trains an epoch in",
        'the "In short" bullet leads with the chunked sort that the decision table recommends',
    ),
    (
        "\\| inference, batches cannot be regrouped, long-tailed lengths \\| \\*\\*pack\\*\\* \\|",
        "packing lost configurations (LSTM at batch 8: 2.24x): no clear winner, time both",
    ),
    ("GRU 在推理时的\\*按长度分桶，然后打包\\*", "zh form of the retired GRU-margin paragraph"),
    ("反向方向", "zh T7: 反向 already means the backward direction"),
    ("填充错误", '"padding bug" is 填充 bug; 错误 means an error/exception'),
    ("有错误的模型", "the buggy model is 有 bug 的模型"),
    ("静默错误", '"silent bug" is 静默 bug (静默错误：没有报错 contradicted itself)'),
    ("错误信息|错误消息", '"error message" is 报错信息'),
    ("修正方法", '"fix" is 修复/修复方法'),
    ("排布", '"layout" is 布局'),
    ("预先计算好的画面", "animation frames are 帧"),
    ("遮盖", 'the verb "mask" is 掩码/掩码掉'),
    ("更新门、新状态", "the GRU's gate n is the new gate 新门（候选状态）, not the new hidden state"),
    ("第 7 个词", "the source means the word whose id is 7, not the 7th word"),
    ("毫无怨言", "said of people; use 不报错 / 照单全收"),
    ("与该列相遇|两者才可以相遇|谁和谁相遇", 'literal "meet"; 做点积 / 注意到该键 / 分到同一批次'),
    ("也叫\\*标注\\*", "tautological: 序列标注（sequence labelling，也称 *tagging*）"),
    ("批次合在一起时算出", "reads as a time condition; 合并而成的数据上算出"),
    ("平衡会发生变化", 'literal "balance moves"; 情况有所不同'),
    ("一个轮（epoch）", "ungrammatical; 一轮（epoch）"),
    ("零会移动状态", "ch3 says 改变状态"),
    ("流行答案弄错的事实", "stiff; 流行说法中的误区"),
    ("进行(比较|核对)", "进行+verb 翻译腔; 比较 / 核对"),
    ("填充位置零", "parses as 填充位置 + 零; 把填充位设为零"),
    ("\\d %(?=[。（，])", "Chinese writes 25% without a space"),
    ("页眉中的 \\*\\*中文\\*\\* 按钮", "no space between bold Chinese and Chinese"),
    ("查询–键", "hyphen 查询-键 as in ch9"),
    ("（0, 1, \\.\\.\\.）", "全角 enumeration （0、1、……）"),
    ("列印成 PDF", "Taiwanese; the zh site shows 打印为 PDF (build_book.localize_chinese_site)"),
]


def english_sources() -> dict[str, str]:
    texts = {}
    for path in sorted((REPO / "notebooks").glob("*.ipynb")) + sorted(
        (REPO / "i18n" / "zh_CN" / "notebooks").glob("*.ipynb")
    ):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts[str(path.relative_to(REPO))] = "\n".join("".join(cell["source"]) for cell in cells)
    for path in sorted((REPO / "book").glob("*.md")) + [REPO / "README.md"]:
        texts[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8")
    return texts


def chinese_sources() -> dict[str, str]:
    texts = {}
    for path in sorted((REPO / "locales" / "zh_CN" / "LC_MESSAGES").rglob("*.po")):
        with path.open(encoding="utf-8") as handle:
            catalog = read_po(handle)
        texts[str(path.relative_to(REPO))] = "\n".join(
            message.string for message in catalog if message.id and message.string
        )
    for path in sorted((REPO / "i18n" / "zh_CN" / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts[str(path.relative_to(REPO))] = "\n".join(
            "".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"
        )
    return texts


SOURCES = {"en": english_sources(), "zh": chinese_sources()}


@pytest.mark.parametrize("pattern, reason", RETIRED, ids=[pattern[:40] for pattern, _ in RETIRED])
def test_retired_phrasing_is_gone_everywhere(pattern, reason):
    language = "zh" if CJK.search(pattern) else "en"
    regex = re.compile(pattern)
    found = [
        f"{name}: {match.group(0)[:80]!r}" for name, text in SOURCES[language].items() for match in regex.finditer(text)
    ]
    assert not found, f"retired ({reason}), but back in:\n" + "\n".join(found)


def test_the_check_finds_a_retired_phrasing():
    pattern, _ = RETIRED[0]
    assert re.search(pattern, "Select with `torch.where` instead of multiplying")
