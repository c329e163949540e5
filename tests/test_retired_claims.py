"""Claims the reviews retired stay retired: every phrasing a fix removed is a forbidden pattern over the
chapters, the pages, the README and both editions, each with the one-line reason it went.

English patterns are searched in the sources (every notebook cell, book/*.md, README.md) and in the Chinese
notebooks (whose code is the English code); Chinese patterns (the zh review's retired renderings) in the
translations of the book's catalogues and of the package's (the sentences its checks and chapters print), and in
the Chinese notebooks' markdown and printed outputs. The list comes from the fixes of issue #29 and the three
reviews in shared/reviews/ (review_ch7_ch8.md, errata14_check.md, zh_review.md), then round three's four reports
(round3_part1.md to round3_part3.md, quickstart_learner.md)."""

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
    # Round three in the Chinese edition: the old translations of the sentences retired above
    (
        "\\*\\*没有捷径\\*\\*",
        "an order-free counts rule scores 0.74: there is no *easy* shortcut (round 3, P2.1)",
    ),
    (
        "只能停在一半左右",
        "a counts rule that ignores order scores 0.74 (P2.1)",
    ),
    (
        "相等的损失应当给出相等的梯度",
        "equal loss values prove nothing about gradients (P2.4)",
    ),
    (
        "只有打包还能给出正确的 `c_n`",
        "the masked LSTMCell loop gives the right c_n too (P1.9)",
    ),
    (
        "让填充向量为零且被冻结",
        "padding_idx only starts the pad row at zero (P1.10)",
    ),
    (
        "因此训练可以从中断的地方继续",
        "the checkpoint holds the best epoch and no sampler or RNG state (P2.3)",
    ),
    (
        "对本书的小模型来说它一样快甚至更快",
        "unproved thread-speed claim (P2.6)",
    ),
    (
        "0\\.815 的测试准确率",
        "stale numbers from an experiment chapter 7 no longer runs",
    ),
    (
        "无法掩盖它的 bug",
        "false: a GRU that reads pads scored 0.96-1.0 on the quick start's task",
    ),
    (
        "打包很少能让 LSTM 变快",
        "true only in training; at inference packing can win (P1.7)",
    ),
    (
        "用 `torch\\.finfo\\(dtype\\)\\.min` 而不是 `-inf` 做掩码",
        "under autocast the float32 minimum rounds to -inf (P3.2)",
    ),
    (
        "单独打分（没有填充位）",
        "those reviews are batched with reviews of their own length (P2.13)",
    ),
    (
        "为什么你的 LSTM 的 `h_n` 不等于 `output\\[:, -1\\]`",
        "a one-direction padded run's h_n IS output[:, -1] (P1.8)",
    ),
    (
        "在还没有使用打包时",
        "reads as a time order; the page says without packing (P1.12)",
    ),
    # Round three (#38): shared/reviews/round3_part1-3.md and quickstart_learner.md
    (
        "The longer the pad runs grow beyond those it met",
        "unasserted: chapter 7 asserts only that the sweep ends lower than it started (P2.2)",
    ),
    (
        "`padding_idx` keeps the pad vector at zero",
        "padding_idx only starts the pad row at zero; a later re-initialisation overwrites it (P1.10)",
    ),
    (
        "as fast for tiny models",
        "unproved thread-speed claim: deep dive 11 times 1 vs default threads (P2.6)",
    ),
    (
        "reached 0\\.815 test accuracy on an AVX-512 CPU",
        "stale numbers from an experiment chapter 7 no longer runs (it scores no test set)",
    ),
    (
        "its first cell says about how long: 10 to 40 seconds",
        "the run-time cards say each page's time; setup.md points to them",
    ),
    (
        "form titled \\*Setup\\* \\(",
        'the Colab form\'s title is "Setup: run this cell first"',
    ),
    (
        "one thread, which is as fast or faster for the book's tiny models",
        "unproved: deep dive 11's thread timing is confounded (round 3, P2.6)",
    ),
    (
        "spread 10% of the median, more than 10%",
        "the spread is 10.1%: printed with one decimal",
    ),
    (
        "\\| inference only, long-tailed lengths \\|",
        "its medians included bidirectional models, whose padded outputs are wrong",
    ),
    (
        "chapter 10 also psutil\\)",
        "deep dive 17 needs psutil too",
    ),
    (
        "\\| inference, unidirectional RNN, batches cannot be regrouped, long-tailed lengths \\| \\*\\*pack\\*\\* \\|",
        "packing lost configurations (LSTM at batch 8: 2.24x): no clear winner, time both (the row renamed)",
    ),
    (
        "def sentence_vector\\([\\s\\S]{0,400}?with torch\\.no_grad\\(\\):",
        "a summary built under no_grad blocks gradients to the encoder (round 3, P1.1)",
    ),
    (
        "Use `torch\\.cat\\(\\[h_n\\[-2\\], h_n\\[-1\\]\\], dim=-1\\)`, which equals",
        "it equals the output ends only for a packed run (P1.2)",
    ),
    (
        "after each sequence's last step, for every layer and direction",
        "a padded run's h_n is after the pads (P1.3)",
    ),
    (
        "each (pad )?step moves it less",
        "seed 0 with bias: pad step 4 moves h more than step 3 (P1.4)",
    ),
    (
        "The docs describe the split",
        "the 2.13 docs give the shapes, not the layer-major order of h_n's rows (P1.5)",
    ),
    (
        "docs\\]\\([^)]*\\) describe both tensors",
        "the docs give the shapes, not the order of h_n's rows (P1.5)",
    ),
    (
        "(A|Why a) pad step moves an RNN's state even with a zero input and no biases",
        "a zero state without biases stays put (P1.6)",
    ),
    (
        "`h_n` is not `output\\[:, -1\\]`",
        "in a padded run h_n IS output[:, -1] (P1.8)",
    ),
    (
        "only packing also gives the\\s+right `c_n`",
        "the masked LSTMCell loop (chapter 3, exercise 3) gives it too (P1.9)",
    ),
    (
        "makes the pad vector zero and\\s+frozen",
        "re-initialising the weight leaves a frozen non-zero pad row (P1.10)",
    ),
    (
        "So `padded\\[sorted_indices\\]` sorts a batch",
        "on a time-major tensor it silently picks time steps (P1.11)",
    ),
    (
        "exercise 3 rebuilds an LSTM step",
        "it rebuilds the time loop; LSTMCell is PyTorch's step (P1.13)",
    ),
    (
        "A popular answer in \\[a thread of the PyTorch forum\\]",
        "unverified quotation: the book paraphrases it (P1.14)",
    ),
    (
        "on the PyTorch forum quoted in",
        "unverified quotation: the book paraphrases it (P1.14)",
    ),
    (
        "PyTorch uses for LSTMs and convolutions on a\\s+CPU",
        "oneDNN runs only padded LSTMs without proj_size (P1.15)",
    ),
    (
        "without attention, jagged takes .{1,16}x the time of padded",
        "the timer copied globals() and measured the previous layout (round 3, P3.1)",
    ),
    (
        "or mask with `finfo\\.min`\\)",
        "under autocast the float32 minimum rounds to -inf (P3.2)",
    ),
    (
        "mask\\s+with `torch\\.finfo\\(dtype\\)\\.min`, not `-inf`",
        "under autocast the float32 minimum rounds to -inf (P3.2)",
    ),
    (
        "not -inf: never 0 / 0",
        "it holds in float32 only: autocast rounds finfo(float32).min to -inf (P3.2)",
    ),
    (
        "If one condition fails, an empty sequence gives NaN",
        "training mode or gradients on give finite results (P3.3)",
    ),
    (
        "dot product, scaled by \\$\\\\sqrt\\{d\\}\\$",
        "the code divides by sqrt(d) (P3.13)",
    ),
    (
        "gives exact\\s+results without padding",
        "the packed rows keep tail padding (P3.13)",
    ),
    (
        "lies below it at every\\s+batch size\\.",
        "at batch size 1 every share is 1 (P3.13)",
    ),
    (
        "\\(no `is_causal`; checked\\s+below\\)",
        "torch 2.10's varlen_attn has is_causal; 2.11 replaced it with window_size (pytorch#172245)",
    ),
    (
        "cannot hide its bug",
        "false: a GRU that reads pads scored 0.96-1.0 on the quick start's task (round 3, quick-start learner)",
    ),
    (
        "before\\s+packing was used",
        'reads as a time order; the page says "without packing" (P1.12)',
    ),
    (
        "packing is rarely a speed-up",
        "true only in training; at inference packing can win (P1.7)",
    ),
    (
        "From a packed run, `h_n\\[-1\\]` is each sequence's final state\\.",
        "one direction only: for a bidirectional RNN h_n[-1] is the backward direction",
    ),
    (
        "pad id has a zero vector",
        "the row is zero only for a freshly built layer (P1.10)",
    ),
    (
        "\\*\\*No shortcut\\.\\*\\*",
        "an order-free counts rule scores 0.74 (round 3, P2.1)",
    ),
    (
        "or ignores order,\\s+stays near half right",
        "an order-free counts rule scores 0.74 (P2.1)",
    ),
    (
        "to beat them, a model must read the whole review",
        "the counts alone already beat the two shortcuts (P2.1)",
    ),
    (
        "The bucketed loader below is seeded the same way",
        "the sampler, not the DataLoader, holds the generator (P2.11)",
    ),
    (
        "Seed the `DataLoader` with its own `torch\\.Generator`",
        "the sampler, not the DataLoader, holds the generator (P2.11)",
    ),
    (
        "resume where it stopped",
        "the checkpoint holds the best epoch and no sampler or RNG state (P2.3)",
    ),
    (
        "label new\\s+text and resume training",
        "the checkpoint holds the best epoch and no sampler or RNG state (P2.3)",
    ),
    (
        "Packed training steps \\(forward plus\\s+backward\\) were slower than padded ones",
        "for the LSTM; the GRU's result is mixed (P2.8)",
    ),
    (
        "`\\.batch_sizes` `\\(T,\\)`",
        "it has max(lengths) entries, not T (P2.9)",
    ),
    (
        "\\*\\*`h_n` is not `output\\[:, -1\\]`\\*\\*",
        "a padded run's h_n IS output[:, -1] (P1.8)",
    ),
    (
        "which is what pack_padded_sequence wants",
        "packing accepts a list too; the contract is for .sum() and .to() (P2.12)",
    ),
    (
        "Equal losses should give equal gradients",
        "equal values at one point prove nothing about gradients (round 3, P2.4)",
    ),
    (
        "depends on the padding, not on\\s+the predictions",
        "it depends on both (P2.14)",
    ),
    (
        "scored alone \\(no pads\\)",
        "those reviews are batched with reviews of their own length (P2.13)",
    ),
    (
        "far below the packed model's or\\s+much closer to it",
        "not shown on the page; replaced by what is asserted for every seed (P2.2)",
    ),
    (
        "less work to spread over the cores",
        "the Timer runs on one thread (P2.15)",
    ),
    (
        "one batch is enough, and many threads can be very slow",
        "the threads row timed other batches than its baseline (P2.6)",
    ),
    (
        "tiny models run as fast or faster",
        "deep dive 11 only times 1 thread against the default on the reader's CPU (P2.6)",
    ),
    (
        "fast for tiny models; global",
        "deep dive 11 only times 1 thread against the default on the reader's CPU (P2.6)",
    ),
    (
        "`int\\(total\\)`, `loss_sum\\.item\\(\\)` and `int\\(batch\\[1\\]\\.sum\\(\\)\\)`\\s+each wait",
        "the count and the lengths are CPU tensors; only .item() waits for the GPU (round 3, P3.4)",
    ),
    (
        "would leave the others waiting\\s+until the process group's timeout \\(chapter 10\\)",
        "a rank that runs out can make the others fail, wait or pair up silently (P3.5)",
    ),
    (
        "a rank that exits fails the others at once;",
        "with gloo only; NCCL hangs until the timeout (P3.6)",
    ),
    (
        "makes the others fail at once if it\\s+exits, or wait",
        "with gloo only; NCCL hangs until the timeout (P3.6)",
    ),
    (
        "\\[`Loss\\.cu`\\]\\([^)]*\\)\\s+only the CUDA kernel of `nll_loss2d`",
        "the determinism alert is in NLLLoss2d.cu (P3.7)",
    ),
    (
        "the graph breaks there,\\s+and what follows runs eagerly",
        "with allow_rnn, Dynamo traces the ops after the LSTM (P3.9)",
    ),
    (
        "leaves a packed LSTM whose lengths vary, where most of\\s+the compute is, in float32",
        "CPU autocast runs the packed LSTM's matrix products in bfloat16",
    ),
    (
        "autocast leaves a packed\\s+LSTM in float32",
        "CPU autocast runs the packed LSTM's matrix products in bfloat16",
    ),
    (
        "packing opted the LSTM out",
        "CPU autocast runs the packed LSTM's matrix products in bfloat16",
    ),
    (
        "a port that\\s+the operating system tells us is free right now",
        "probing a port and then binding it is a race; torchrun --standalone avoids it (P3.12)",
    ),
    (
        "why your LSTM's `h_n` is not `output\\[:, -1\\]`",
        "a one-direction padded run's h_n IS output[:, -1] (P1.8)",
    ),
    # R4.1.1
    (
        "too many\\s+lengths raise an `IndexError`, too few",
        "an IndexError batch-first only; time-major input raises a RuntimeError (R4.1.1)",
    ),
    # R4.1.2
    (
        "always\\s+pass `total_length=padded\\.size\\(1\\)` when you unpack",
        "size(1) is the batch size of a time-major tensor; total_length is the time dimension (R4.1.2)",
    ),
    # R4.1.3
    (
        "a padded run's `h_n` is `output\\[:, -1\\]`",
        "only h_n[-1] of one layer and one direction; a backward direction ends at step 0 (R4.1.3)",
    ),
    (
        "填充运行的 `h_n` 就是 `output\\[:, -1\\]`",
        "the Chinese glossary's rendering: one layer, one direction (R4.1.3)",
    ),
    # R4.1.4
    (
        "Left padding only moves the damage to the forward direction",
        "only for one layer: with two or more layers both halves are wrong again (R4.1.4)",
    ),
    (
        "With a bidirectional RNN it only moves the damage",
        "only for one layer: layer 1's backward direction reads layer 0's poisoned forward half (R4.1.4)",
    ),
    ("左侧填充只是把损害转移到正向", "the Chinese summary's rendering: one layer only (R4.1.4)"),
    ("对于双向 RNN，这只是转移了损害", "the Chinese Pitfall 5's rendering: one layer only (R4.1.4)"),
    # R4.1.5
    (
        "Return \\(output padded to max_len, h_n\\)",
        "a hidden max_len of the chapter's batch; run pads to the longest sequence or total_length (R4.1.5)",
    ),
    # R4.1.6
    (
        "corrupts the backward direction at every real position of a short sequence",
        "true of the page's lengths; the damage decays below float rounding on long sequences (R4.1.6)",
    ),
    (
        "corrupts the backward direction of a short sequence at every real position",
        "same, in deep dive 14: it decays on long sequences (R4.1.6)",
    ),
    ("在短序列的每个真实位置上破坏反向", "the Chinese summary's rendering: true of the page's lengths only (R4.1.6)"),
    # R4.1.7
    (
        "why `bias=False` is no fix",
        "bias=False fixes a one-layer model's backward direction, not a two-layer one's (R4.1.7)",
    ),
    # R4.1.8
    (
        "return rows\\[packed\\.unsorted_indices\\]",
        "a CPU tensor indexed with unsorted_indices, which lives on the data's device: fails on a GPU (R4.1.8)",
    ),
    # R4.1.10
    (
        "which stays right when lengths differ \\(Pitfall 3 proves it\\)",
        "only from a packed run; unpacked, h_n[-2] is the state after the pads (R4.1.10, P1.2)",
    ),
    # R4.1.11
    (
        "new_zeros\\(1, len\\(lengths\\), rnn\\.hidden_size\\)",
        "one layer and one direction only: h_n has a row per layer and direction (R4.1.11)",
    ),
    # R4.1.12
    (
        "useful to show what a call does\\s+with devices on a machine without a GPU",
        "meta trips the CPU checks only; it checks no other device rule (R4.1.12)",
    ),
    # issue 47, item 5: deep dive 13
    (
        "with bias,\\s+pad step 4 moves `h` more than pad step 3",
        "true for seed 0 only; the page now shows the first seed it computes to have a growing step",
    ),
    # Chinese edition, round three (#48, shared/reviews/zh_round3.md): the renderings it retired
    (
        "读过了?(影评)?结尾的模型",
        "the model that reads past the end reads on into the pads; 读过结尾 is the correct model (Z3.9)",
    ),
    ("种最快的策略是分桶", "misparses as kinds of fastest strategy: 有 N 种情况最快的是分桶 (Z3.12)"),
    ("：(快|慢) (\\{ratio\\}|[\\d.]+)x", "快 N 倍 is ambiguous: 速度是后者的 N 倍 / 用时是后者的 N 倍 (Z3.13)"),
    ("填充位先运行", "pads do not run: the LSTM runs over them (Z3.14)"),
    ("填充位是一个专门的词元", "the pad token (填充词元) has an id of its own; 填充位 is a position (Z3.15)"),
    ("组批(策略|选择)|两种组批方式", "batching is 分批, as in 分批规划器 (Z3.19)"),
    ("整个 loader", "the loader is 加载器 in Chinese prose and messages (Z3.21)"),
    ("最底层", "the bottom layer is 底层, as the top layer is 顶层 (Z3.23)"),
    (
        "最后一个\\*?填充后的\\*?(时间)?步|填充位的时间步",
        "a pad step is 填充步; the last column of a padded batch is 填充后批次的最后一步 (Z3.24)",
    ),
    # R4.3.1
    (
        "[Ee]very step then costs about the same",
        "a token budget evens out padded slots, not an RNN's step time: chapter 10 measures a several-fold spread",
    ),
    (
        "the ideal is 2x\\)",
        "batches of unequal time make a 2-process step last as long as the slower: deep dive 17 computes the ideal",
    ),
    (
        "每一步的开销都大致相同",
        "the old translation of the retired token-budget sentence (R4.3.1)",
    ),
    # R4.3.2
    (
        "launch_seconds > 5 \\* duo_seconds",
        "the whole run's wall time (3 epochs, a 2 s timeout) judged as start-up: the verdict fired by construction",
    ),
    # R4.3.3
    (
        'beat = ratio\\["forward\\+backward", name\\] < 1',
        "beat or lost decided on medians of 3 rounds whose ranges overlapped: the verdict flipped under load",
    ),
    # R4.3.4
    (
        "backward pass goes through the softmax that made the NaN",
        "the NaN gradients come from 0 x NaN in every weight gradient after the NaN rows, out_proj's too",
    ),
    (
        "still sends the gradient through\\s+that softmax",
        "same, errors.md: the output projection's weight gradient is NaN too, and nan_to_num does not help",
    ),
    (
        "反向传播会经过产生 NaN 的那个 softmax",
        "the old translation of the retired NaN-gradient cause (R4.3.4)",
    ),
    # R4.3.6
    (
        "a few examples sit out",
        "dropping up to W - 1 whole batches dropped 176 of 1000 and 135 of 301 examples on 8 ranks",
    ),
    (
        "up to `W - 1` batches\\s+are seen twice",
        "padding can deal one batch to every rank, W times, not twice",
    ),
    (
        "少数样本(在这一轮中)?轮空",
        "the old translation of the retired drop_last sentences (R4.3.6)",
    ),
    # R4.3.8
    (
        "runs first in\\s+\\[`flex_attention`",
        "three validations run before _validate_device; the refusal comes before anything is computed",
    ),
    (
        "concern GPUs and are not run here\\.",
        "flex_attention.py's CPU backward refusal runs live in chapter 9",
    ),
    # zh_round3 (issue #48): the tools' Chinese and the performance page
    ("双向 rnn", "Z3.10: rnn is the submodule's name, read as a typo; 双向 RNN 子模块 rnn"),
    ("与批次无关：", "Z3.17: the doctor's check is named 批次无关性, as on the glossary and API pages"),
    (
        "就像方案的一轮中大多数批次前面的那个批次",
        "Z3.11: cold means the batch before it has another shape, as most recipe batches' predecessors do",
    ),
    ("也不是通信线路", "Z3.32: 网络传输"),
    ("随机填充批次的 [\\d.]+x \\(forward\\)", "Z3.8: English fragments joined in code; one template, 前向传播"),
    # R4.2.7
    (
        "the same reviews (would )?share a batch (in )?every epoch",
        "a whole-epoch sort breaks ties at random: about a third of the pairs meet again (the planner's pairs again)",
    ),
    ("nearly the same batch mates every epoch", "on the benchmark's lengths plan_batches measures pairs again 0.27"),
    # R4.2.8
    (
        "accuracy barely shows it",
        "chapter 7's gap is +0.10 to +0.49 over seeds and instruction sets, wherever many pads follow a review",
    ),
    # R4.2.9
    ("on varied lengths by more than 2 times", "two varied-length LSTM configurations were 1.65x and 1.87x (cpu.csv)"),
    # R4.2.10
    (
        "keeps the long batches of the tail from dominating the epoch",
        "no committed run has denormal flushing off: its effect was not measured",
    ),
    ("It is part of the\\s+recipe on CPU", "an optional setting whose effect on time was not measured"),
    ("batches of constant shape \\(the ideal\\) never pay", "malloc's settings were never timed against the defaults"),
    # R4.2.12
    ("on most setups the epoch's time", "the data of the machines measured, not of most setups"),
    (
        "on the first 6 batches of each loader",
        "the first six batches do not stand for the epoch; the timed sample now spans its batch sizes",
    ),
    # R4.2.14
    ("every ignored cell asserts what it prints", "deep dive 11's timing and verdict cells assert nothing they print"),
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
    catalogues = sorted((REPO / "locales" / "zh_CN" / "LC_MESSAGES").rglob("*.po"))
    catalogues += sorted((REPO / "src" / "padpack" / "locale" / "zh_CN" / "LC_MESSAGES").glob("*.po"))
    for path in catalogues:
        with path.open(encoding="utf-8") as handle:
            catalog = read_po(handle)
        texts[str(path.relative_to(REPO))] = "\n".join(
            message.string for message in catalog if message.id and message.string
        )
    for path in sorted((REPO / "i18n" / "zh_CN" / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        markdown = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]
        printed = ["".join(output.get("text", "")) for cell in cells for output in cell.get("outputs", [])]
        texts[str(path.relative_to(REPO))] = "\n".join(markdown + printed)
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
