"""Learners' wrong answers by class, for measuring how often the exercise checks name the mistake (issue #47).

Each row: (chapter, exercise, source of the answer, what the rejection must name). What it must name is the start
of one of the check's mistakes, `"@key"` for one of the engine's own diagnoses (padpack.checks.TEXT[key]), or None
where no named mistake fits (the learner gets what differs). A rejection that names anything else names the
mistake wrongly. tests/test_check_diagnoses.py runs them; `python tests/check_wrong_answers.py` prints the share.
"""

from __future__ import annotations


def answer(name: str, signature: str, body: str) -> str:
    lines = body.strip("\n").splitlines()
    return f"def {name}({signature}):\n" + "\n".join("    " + line for line in lines) + "\n"


GATHER = "output, lengths"
WRONG_ANSWERS = [
    # The dimension of gather: indices of one dimension used along another.
    (
        "07",
        "gather_last_step",
        answer(
            "gather_last_step",
            GATHER,
            """
idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(0, idx).squeeze(1)
""",
        ),
        "@index_dimension",
    ),
    (
        "07",
        "gather_last_step",
        answer(
            "gather_last_step",
            GATHER,
            """
idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(2, idx).squeeze(1)
""",
        ),
        "@index_dimension",
    ),
    (
        "03",
        "last_valid_time_major",
        answer(
            "last_valid_time_major",
            GATHER,
            """
idx = (lengths - 1).view(1, -1, 1).expand(1, -1, output.size(2))
return output.gather(1, idx).squeeze(0)
""",
        ),
        "@index_dimension",
    ),
    (
        "03",
        "last_valid_time_major",
        answer(
            "last_valid_time_major",
            GATHER,
            """
return output.index_select(1, lengths - 1).diagonal(dim1=0, dim2=1).T
""",
        ),
        "@index_range",
    ),
    # Glued rows: a reshape or view where dimensions must be swapped.
    (
        "06",
        "bidirectional_summary",
        answer(
            "bidirectional_summary",
            "h_n",
            """
return h_n[-2:].reshape(h_n.size(1), -1)
""",
        ),
        "reshape of the (2, batch, hidden) block",
    ),
    (
        "13",
        "top_layer_state",
        answer(
            "top_layer_state",
            "h_n, num_layers, bidirectional",
            """
if not bidirectional:
    return h_n[-1]
return h_n[-2:].view(h_n.size(1), 2 * h_n.size(2))
""",
        ),
        "@glued",
    ),
    (
        "04",
        "wide_hand_over",
        answer(
            "wide_hand_over",
            "h_n, num_layers",
            """
return h_n.reshape(num_layers, h_n.size(1), 2 * h_n.size(2))
""",
        ),
        "h_n.view(num_layers, B, 2 * H)",
    ),
    (
        "04",
        "wide_hand_over",
        answer(
            "wide_hand_over",
            "h_n, num_layers",
            """
return h_n.view(num_layers, 2, h_n.size(1), h_n.size(2)).reshape(num_layers, h_n.size(1), -1)
""",
        ),
        "h_n.view(num_layers, B, 2 * H)",
    ),
    (
        "03",
        "left_pad",
        answer(
            "left_pad",
            "sequences",
            """
T = max(len(s) for s in sequences)
out = sequences[0].new_zeros(T, len(sequences), sequences[0].size(-1))
for b, s in enumerate(sequences):
    out[T - len(s):, b] = s
return out.view(len(sequences), T, -1)
""",
        ),
        "@glued",
    ),
    # NumPy or list answers where a tensor is asked.
    (
        "02",
        "batch_sizes_from_lengths",
        answer(
            "batch_sizes_from_lengths",
            "lengths",
            """
return [int((lengths > t).sum()) for t in range(int(lengths.max()))]
""",
        ),
        "The counts are right, but in a Python list",
    ),
    (
        "02",
        "batch_sizes_from_lengths",
        answer(
            "batch_sizes_from_lengths",
            "lengths",
            """
import numpy as np
n = lengths.numpy()
return np.array([(n > t).sum() for t in range(n.max())])
""",
        ),
        "@numpy_for_tensor",
    ),
    (
        "09",
        "packed_causal_mask",
        answer(
            "packed_causal_mask",
            "doc_lengths",
            """
import numpy as np
doc = np.repeat(np.arange(len(doc_lengths)), doc_lengths)
return (doc[:, None] == doc[None, :]) & np.tri(len(doc), dtype=bool)
""",
        ),
        "@numpy_for_tensor",
    ),
    (
        "16",
        "varlen_inputs",
        answer(
            "varlen_inputs",
            "doc_lengths",
            """
cu = [0]
for n in doc_lengths:
    cu.append(cu[-1] + n)
return torch.tensor(cu, dtype=torch.int32), [t for n in doc_lengths for t in range(n)]
""",
        ),
        "@list_for_tensor",
    ),
    (
        "04",
        "sentence_vector",
        answer(
            "sentence_vector",
            "rnn, padded, lengths",
            """
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
_, h = rnn(packed)
h_n = h[0] if isinstance(h, tuple) else h
return [torch.cat([h_n[-2, b], h_n[-1, b]]) for b in range(len(lengths))]
""",
        ),
        "@list_for_tensor",
    ),
    (
        "01",
        "real_step_mask",
        answer(
            "real_step_mask",
            "lengths, steps",
            """
return [[t < n for t in range(steps)] for n in lengths.tolist()]
""",
        ),
        "@list_for_tensor",
    ),
    (
        "10",
        "step_counts",
        answer(
            "step_counts",
            "batches, world_size",
            """
sizes = torch.tensor([len(b) for b in batches])
return sizes.view(-1, world_size).sum(1)
""",
        ),
        "@tensor_for_list",
    ),
    # In-place operations on a leaf that requires grad.
    (
        "10",
        "scaled_losses",
        answer(
            "scaled_losses",
            "sums, counts",
            """
sums /= counts.sum()
sums *= len(counts)
return sums
""",
        ),
        "@inplace_leaf",
    ),
    (
        "17",
        "global_mean_loss",
        answer(
            "global_mean_loss",
            "loss_sums, counts",
            """
loss_sums.div_(counts.sum())
return loss_sums.sum()
""",
        ),
        "@inplace_leaf",
    ),
    (
        "17",
        "global_mean_loss",
        answer(
            "global_mean_loss",
            "loss_sums, counts",
            """
loss_sums[0] = loss_sums[0] + 0
return loss_sums.sum() / counts.sum()
""",
        ),
        "@inplace_leaf",
    ),
    # backward() inside the function.
    (
        "10",
        "scaled_losses",
        answer(
            "scaled_losses",
            "sums, counts",
            """
loss = sums * len(counts) / counts.sum()
loss.sum().backward()
return loss
""",
        ),
        "@graph_freed",
    ),
    (
        "17",
        "global_mean_loss",
        answer(
            "global_mean_loss",
            "loss_sums, counts",
            """
loss = loss_sums.sum() / counts.sum()
loss.backward()
return loss
""",
        ),
        "@graph_freed",
    ),
    # Half of a pair sorted.
    (
        "05",
        "sorted_collate",
        answer(
            "sorted_collate",
            "batch, pad_id",
            """
lengths = torch.tensor([len(ids) for ids, _ in batch])
order = lengths.argsort(descending=True)
padded = pad_sequence([ids for ids, _ in batch], batch_first=True, padding_value=pad_id)
labels = torch.tensor([label for _, label in batch])
return padded[order], lengths, labels[order]
""",
        ),
        "@half_sorted",
    ),
    (
        "05",
        "sorted_collate",
        answer(
            "sorted_collate",
            "batch, pad_id",
            """
lengths = torch.tensor([len(ids) for ids, _ in batch])
order = lengths.argsort(descending=True)
padded = pad_sequence([ids for ids, _ in batch], batch_first=True, padding_value=pad_id)
labels = torch.tensor([label for _, label in batch])
return padded, lengths[order], labels[order]
""",
        ),
        "@half_sorted",
    ),
    (
        "05",
        "sorted_collate",
        answer(
            "sorted_collate",
            "batch, pad_id",
            """
ordered = sorted(batch, key=lambda pair: len(pair[0]), reverse=True)
padded = pad_sequence([ids for ids, _ in ordered], batch_first=True, padding_value=pad_id)
lengths = torch.tensor([len(ids) for ids, _ in ordered])
return padded, lengths, torch.tensor([label for _, label in batch])
""",
        ),
        "The sequences and lengths are sorted but the labels",
    ),
    # Two mistakes that one case cannot tell apart.
    (
        "04",
        "sentence_vector",
        answer(
            "sentence_vector",
            "rnn, padded, lengths",
            """
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
_, h = rnn(packed)
h_n = h[0] if isinstance(h, tuple) else h
summary = torch.cat([h_n[-2], h_n[-1]], dim=-1)
return summary[packed.unsorted_indices]
""",
        ),
        "The rows were put back twice",
    ),
    (
        "06",
        "accuracy",
        answer(
            "accuracy",
            "model, loader",
            """
model.eval()
total = 0.0
with torch.no_grad():
    for padded, lengths, labels in loader:
        predicted = model(padded.to(next(model.parameters()).device), lengths).argmax(1).cpu()
        total += (predicted == labels).float().mean().item() * loader.batch_size
return total / len(loader.dataset)
""",
        ),
        "Each batch's accuracy was weighed by batch_size",
    ),
    (
        "06",
        "accuracy",
        answer(
            "accuracy",
            "model, loader",
            """
model.eval()
with torch.no_grad():
    for padded, lengths, labels in loader:
        predicted = model(padded.to(next(model.parameters()).device), lengths).argmax(1).cpu()
        right = (predicted == labels).sum().item()
        seen = len(labels)
return right / seen
""",
        ),
        "Only the last batch counts",
    ),
    # Wrong in a way no mistake of the tables is: what differs is the answer.
    (
        "01",
        "batch_efficiency",
        answer(
            "batch_efficiency",
            "lengths",
            """
return lengths.float().mean().item() / lengths.max().item() + 0.01
""",
        ),
        None,
    ),
    (
        "02",
        "batch_sizes_from_lengths",
        answer(
            "batch_sizes_from_lengths",
            "lengths",
            """
return torch.stack([(lengths > t).sum() for t in range(int(lengths.max()) + 1)])
""",
        ),
        None,
    ),
    (
        "17",
        "global_mean_loss",
        answer(
            "global_mean_loss",
            "loss_sums, counts",
            """
return loss_sums.sum() / (counts.sum() + 1)
""",
        ),
        None,
    ),
]


def measure(answers: list | None = None, verbose: bool = False) -> dict[str, int]:
    """Rejected, named (rightly), named wrongly, and accepted, over `answers` (WRONG_ANSWERS and HELD_OUT)."""
    from exercise_harness import Chapter, printed

    from padpack.checks import TEXT
    from padpack.i18n import use_language

    use_language("en")
    counts = {"rejected": 0, "named": 0, "named wrongly": 0, "accepted": 0}
    engine_keys = [
        key
        for key in TEXT
        if key.startswith(
            ("index_", "glued", "list_", "numpy_", "tensor_for", "inplace_", "graph_", "half_", "rows_", "detached")
        )
    ]
    for number, name, text, expected in WRONG_ANSWERS + HELD_OUT if answers is None else answers:
        chapter = Chapter.load(number)
        check = chapter.check(name)
        output = printed(check, chapter.define(text, name))
        flat = " ".join(output.split())
        if not output.startswith("✗"):
            counts["accepted"] += 1
            named = "accepted"
        else:
            counts["rejected"] += 1
            said = [m.message[:40] for m in check.mistakes if " ".join(m.message.split()) in flat]
            said += ["@" + key for key in engine_keys if _said(TEXT[key], flat)]
            if not said:
                named = "generic"
            elif expected is not None and any(s.startswith(expected[:40]) or expected.startswith(s) for s in said):
                counts["named"] += 1
                named = "named"
            else:
                counts["named wrongly"] += 1
                named = f"named wrongly {said}"
        if verbose:
            print(f"{number} {name} [{expected}] -> {named}\n    {flat[:300]}")
    return counts


def _said(template: str, flat: str) -> bool:
    """Whether `flat` holds the sentence of `template`, its placeholders anything."""
    import re

    parts = [re.escape(" ".join(part.split())) for part in re.split(r"\{[^}]*\}", template)]
    return re.search(".*?".join(part for part in parts if part.strip()), flat) is not None


# Written after the engine's diagnoses and measured once, untuned (see the report of issue #47): classic mistakes
# written as a learner would, and a few that no table holds.
HELD_OUT = [
    (
        "01",
        "real_step_mask",
        answer(
            "real_step_mask",
            "lengths, steps",
            """
return torch.arange(steps)[:, None] < lengths[None, :]
""",
        ),
        "The mask is transposed",
    ),
    (
        "01",
        "real_step_mask",
        answer(
            "real_step_mask",
            "lengths, steps",
            """
import numpy as np
return np.arange(steps)[None, :] < lengths.numpy()[:, None]
""",
        ),
        "@numpy_for_tensor",
    ),
    (
        "01",
        "real_step_mask",
        answer(
            "real_step_mask",
            "lengths, steps",
            """
mask = torch.zeros(len(lengths), steps, dtype=torch.bool)
for i, n in enumerate(lengths):
    mask[i, : n + 1] = True
return mask
""",
        ),
        "With <= each row gets one step too many",
    ),
    (
        "01",
        "batch_efficiency",
        answer(
            "batch_efficiency",
            "lengths",
            """
return float(lengths.sum() / (len(lengths) * lengths[0]))
""",
        ),
        "The first length was taken as the longest",
    ),
    (
        "07",
        "gather_last_step",
        answer(
            "gather_last_step",
            GATHER,
            """
return output.gather(1, (lengths - 1).view(-1, 1, 1)).squeeze(1)
""",
        ),
        "The gather index has one column",
    ),
    (
        "07",
        "gather_last_step",
        answer(
            "gather_last_step",
            GATHER,
            """
idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(1, idx)
""",
        ),
        "The result keeps the time dimension",
    ),
    (
        "07",
        "gather_last_step",
        answer(
            "gather_last_step",
            GATHER,
            """
idx = lengths.view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(1, idx).squeeze(1)
""",
        ),
        "Off by one",
    ),
    (
        "08",
        "accuracy_from_lengths",
        answer(
            "accuracy_from_lengths",
            "predictions, tags, lengths",
            """
mask = torch.arange(tags.size(1))[None] <= lengths[:, None]
return ((predictions == tags) & mask).sum().item() / mask.sum().item()
""",
        ),
        "A mask built with <=",
    ),
    (
        "08",
        "accuracy_from_lengths",
        answer(
            "accuracy_from_lengths",
            "predictions, tags, lengths",
            """
return (predictions == tags).float().mean().item()
""",
        ),
        "This counts every position",
    ),
    (
        "08",
        "accuracy_from_lengths",
        answer(
            "accuracy_from_lengths",
            "predictions, tags, lengths",
            """
mask = torch.arange(tags.size(1))[None] < lengths[:, None]
return ((predictions == tags) & mask).sum() / mask.sum()
""",
        ),
        "It returns a tensor",
    ),
    (
        "12",
        "unpack_left",
        answer(
            "unpack_left",
            "packed, total_length",
            """
padded, _ = pad_packed_sequence(packed, batch_first=True, total_length=total_length)
return padded
""",
        ),
        "The pads are on the right",
    ),
    (
        "12",
        "unpack_left",
        answer(
            "unpack_left",
            "packed, total_length",
            """
padded, _ = pad_packed_sequence(packed, batch_first=True, total_length=total_length)
return padded.flip(1)
""",
        ),
        "Flipping the row",
    ),
    (
        "16",
        "varlen_inputs",
        answer(
            "varlen_inputs",
            "doc_lengths",
            """
lengths = torch.tensor(doc_lengths)
cu = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)])
return cu, torch.cat([torch.arange(n) for n in doc_lengths])
""",
        ),
        "cumsum returns int64",
    ),
    (
        "16",
        "varlen_inputs",
        answer(
            "varlen_inputs",
            "doc_lengths",
            """
lengths = torch.tensor(doc_lengths, dtype=torch.int32)
cu = torch.cat([torch.zeros(1, dtype=torch.int32), lengths.cumsum(0, dtype=torch.int32)])
return cu, torch.arange(sum(doc_lengths))
""",
        ),
        "These positions run on across the documents",
    ),
    (
        "17",
        "global_mean_loss",
        answer(
            "global_mean_loss",
            "loss_sums, counts",
            """
return (loss_sums / counts).mean()
""",
        ),
        "This averages the per-rank means",
    ),
    (
        "17",
        "global_mean_loss",
        answer(
            "global_mean_loss",
            "loss_sums, counts",
            """
return loss_sums.sum().item() / counts.sum().item()
""",
        ),
        ".item() turns the loss into a Python number",
    ),
    (
        "10",
        "scaled_losses",
        answer(
            "scaled_losses",
            "sums, counts",
            """
return sums / counts
""",
        ),
        "A per-rank mean lets DDP average",
    ),
    (
        "05",
        "padding_efficiency",
        answer(
            "padding_efficiency",
            "batch_lengths",
            """
effs = [b.sum().item() / (len(b) * b.max().item()) for b in batch_lengths]
return sum(effs) / len(effs)
""",
        ),
        "This is the mean of the batches' efficiencies",
    ),
    (
        "03",
        "left_pad",
        answer(
            "left_pad",
            "sequences",
            """
return pad_sequence(sequences, batch_first=True)
""",
        ),
        "pad_sequence pads on the right",
    ),
    (
        "13",
        "top_layer_state",
        answer(
            "top_layer_state",
            "h_n, num_layers, bidirectional",
            """
return h_n[-1]
""",
        ),
        "h_n[-1] of a bidirectional RNN",
    ),
    (
        "04",
        "right_pad",
        answer(
            "right_pad",
            "batch, lengths",
            """
return batch.flip(1)
""",
        ),
        "flip(1) moves the pads to the end",
    ),
    (
        "09",
        "sdpa_mask",
        answer(
            "sdpa_mask",
            "key_padding_mask",
            """
return key_padding_mask[:, None, None, :]
""",
        ),
        "The key padding mask unchanged",
    ),
    (
        "11",
        "wasted_flops",
        answer(
            "wasted_flops",
            "cell, input_size, hidden_size, lengths",
            """
gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell]
pads = len(lengths) * int(lengths.max()) - int(lengths.sum())
return pads * gates * hidden_size * (input_size + hidden_size)
""",
        ),
        "That is multiply-adds",
    ),
    (
        "06",
        "bidirectional_summary",
        answer(
            "bidirectional_summary",
            "h_n",
            """
return torch.stack([h_n[-2], h_n[-1]], dim=2).reshape(h_n.size(1), -1)
""",
        ),
        "@glued",
    ),
    (
        "15",
        "step_losses",
        answer(
            "step_losses",
            "scores, tags",
            """
import torch.nn.functional as F
return torch.stack([F.cross_entropy(s.flatten(0, 1), t.flatten()) for s, t in zip(scores, tags)])
""",
        ),
        "Each micro-batch is divided by its own token count",
    ),
    (
        "02",
        "packed_data",
        answer(
            "packed_data",
            "sequences",
            """
return torch.cat(sequences)
""",
        ),
        "This lists each sequence whole",
    ),
    (
        "07",
        "gather_last_step",
        answer(
            "gather_last_step",
            GATHER,
            """
last = []
for b in range(output.size(0)):
    last.append(output[b, lengths[b] - 1])
return last
""",
        ),
        "@list_for_tensor",
    ),
    (
        "17",
        "global_mean_loss",
        answer(
            "global_mean_loss",
            "loss_sums, counts",
            """
loss_sums /= counts.sum()
return loss_sums.sum()
""",
        ),
        "@inplace_leaf",
    ),
    (
        "05",
        "padding_efficiency",
        answer(
            "padding_efficiency",
            "batch_lengths",
            """
real = sum(b.sum() for b in batch_lengths)
slots = sum(len(b) * b.max() for b in batch_lengths)
return (real / slots).item() * 100
""",
        ),
        None,
    ),
    (
        "13",
        "top_layer_state",
        answer(
            "top_layer_state",
            "h_n, num_layers, bidirectional",
            """
if not bidirectional:
    return h_n[num_layers - 1]
return torch.cat([h_n[2 * num_layers - 1], h_n[2 * num_layers - 2]], dim=-1)
""",
        ),
        "The directions are in the wrong order",
    ),
]


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    for label, answers in (("seen", WRONG_ANSWERS), ("held out", HELD_OUT)):
        result = measure(answers, verbose="-v" in sys.argv)
        print(label, result, f"named share {result['named'] / max(result['rejected'], 1):.0%}")
