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


def wrong(chapter: str, exercise: str, signature: str, expected: str | None, function: str = "", *, body: str):
    """One row: the learner's `function` (the exercise's name unless given) with `body`, and what must be named.
    The lists below keep one row's call on one line, the learner's code under it (hence fmt: off)."""
    return chapter, exercise, answer(function or exercise, signature, body), expected


GATHER = "output, lengths"
# fmt: off
WRONG_ANSWERS = [
    # The dimension of gather: indices of one dimension used along another.
    wrong("07", "gather_last_step", GATHER, "@index_dimension", body="""
idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(0, idx).squeeze(1)
"""),
    wrong("07", "gather_last_step", GATHER, "@index_dimension", body="""
idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(2, idx).squeeze(1)
"""),
    wrong("03", "last_valid_time_major", GATHER, "@index_dimension", body="""
idx = (lengths - 1).view(1, -1, 1).expand(1, -1, output.size(2))
return output.gather(1, idx).squeeze(0)
"""),
    wrong("03", "last_valid_time_major", GATHER, "@index_range", body="""
return output.index_select(1, lengths - 1).diagonal(dim1=0, dim2=1).T
"""),
    # Glued rows: a reshape or view where dimensions must be swapped.
    wrong("06", "bidirectional_summary", "h_n", "reshape of the (2, batch, hidden) block", body="""
return h_n[-2:].reshape(h_n.size(1), -1)
"""),
    wrong("13", "top_layer_state", "h_n, num_layers, bidirectional", "@glued", body="""
if not bidirectional:
    return h_n[-1]
return h_n[-2:].view(h_n.size(1), 2 * h_n.size(2))
"""),
    wrong("04", "wide_hand_over", "h_n, num_layers", "h_n.view(num_layers, B, 2 * H)", body="""
return h_n.reshape(num_layers, h_n.size(1), 2 * h_n.size(2))
"""),
    wrong("04", "wide_hand_over", "h_n, num_layers", "h_n.view(num_layers, B, 2 * H)", body="""
return h_n.view(num_layers, 2, h_n.size(1), h_n.size(2)).reshape(num_layers, h_n.size(1), -1)
"""),
    wrong("03", "left_pad", "sequences", "@glued", body="""
T = max(len(s) for s in sequences)
out = sequences[0].new_zeros(T, len(sequences), sequences[0].size(-1))
for b, s in enumerate(sequences):
    out[T - len(s):, b] = s
return out.view(len(sequences), T, -1)
"""),
    # NumPy or list answers where a tensor is asked.
    wrong("02", "batch_sizes_from_lengths", "lengths", "The counts are right, but in a Python list", body="""
return [int((lengths > t).sum()) for t in range(int(lengths.max()))]
"""),
    wrong("02", "batch_sizes_from_lengths", "lengths", "@numpy_for_tensor", body="""
import numpy as np
n = lengths.numpy()
return np.array([(n > t).sum() for t in range(n.max())])
"""),
    wrong("09", "packed_causal_mask", "doc_lengths", "@numpy_for_tensor", body="""
import numpy as np
doc = np.repeat(np.arange(len(doc_lengths)), doc_lengths)
return (doc[:, None] == doc[None, :]) & np.tri(len(doc), dtype=bool)
"""),
    wrong("16", "varlen_inputs", "doc_lengths", "@list_for_tensor", body="""
cu = [0]
for n in doc_lengths:
    cu.append(cu[-1] + n)
return torch.tensor(cu, dtype=torch.int32), [t for n in doc_lengths for t in range(n)]
"""),
    wrong("04", "sentence_vector", "rnn, padded, lengths", "@list_for_tensor", body="""
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
_, h = rnn(packed)
h_n = h[0] if isinstance(h, tuple) else h
return [torch.cat([h_n[-2, b], h_n[-1, b]]) for b in range(len(lengths))]
"""),
    wrong("01", "real_step_mask", "lengths, steps", "@list_for_tensor", body="""
return [[t < n for t in range(steps)] for n in lengths.tolist()]
"""),
    wrong("10", "step_counts", "batches, world_size", "@tensor_for_list", body="""
sizes = torch.tensor([len(b) for b in batches])
return sizes.view(-1, world_size).sum(1)
"""),
    # In-place operations on a leaf that requires grad.
    wrong("10", "scaled_losses", "sums, counts", "@inplace_leaf", body="""
sums /= counts.sum()
sums *= len(counts)
return sums
"""),
    wrong("17", "global_mean_loss", "loss_sums, counts", "@inplace_leaf", body="""
loss_sums.div_(counts.sum())
return loss_sums.sum()
"""),
    wrong("17", "global_mean_loss", "loss_sums, counts", "@inplace_leaf", body="""
loss_sums[0] = loss_sums[0] + 0
return loss_sums.sum() / counts.sum()
"""),
    # backward() inside the function.
    wrong("10", "scaled_losses", "sums, counts", "@graph_freed", body="""
loss = sums * len(counts) / counts.sum()
loss.sum().backward()
return loss
"""),
    wrong("17", "global_mean_loss", "loss_sums, counts", "@graph_freed", body="""
loss = loss_sums.sum() / counts.sum()
loss.backward()
return loss
"""),
    # Half of a pair sorted.
    wrong("05", "sorted_collate", "batch, pad_id", "@half_sorted", body="""
lengths = torch.tensor([len(ids) for ids, _ in batch])
order = lengths.argsort(descending=True)
padded = pad_sequence([ids for ids, _ in batch], batch_first=True, padding_value=pad_id)
labels = torch.tensor([label for _, label in batch])
return padded[order], lengths, labels[order]
"""),
    wrong("05", "sorted_collate", "batch, pad_id", "@half_sorted", body="""
lengths = torch.tensor([len(ids) for ids, _ in batch])
order = lengths.argsort(descending=True)
padded = pad_sequence([ids for ids, _ in batch], batch_first=True, padding_value=pad_id)
labels = torch.tensor([label for _, label in batch])
return padded, lengths[order], labels[order]
"""),
    wrong("05", "sorted_collate", "batch, pad_id", "The sequences and lengths are sorted but the labels", body="""
ordered = sorted(batch, key=lambda pair: len(pair[0]), reverse=True)
padded = pad_sequence([ids for ids, _ in ordered], batch_first=True, padding_value=pad_id)
lengths = torch.tensor([len(ids) for ids, _ in ordered])
return padded, lengths, torch.tensor([label for _, label in batch])
"""),
    # Two mistakes that one case cannot tell apart.
    wrong("04", "sentence_vector", "rnn, padded, lengths", "The rows were put back twice", body="""
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
_, h = rnn(packed)
h_n = h[0] if isinstance(h, tuple) else h
summary = torch.cat([h_n[-2], h_n[-1]], dim=-1)
return summary[packed.unsorted_indices]
"""),
    wrong("06", "accuracy", "model, loader", "Each batch's accuracy was weighed by batch_size", body="""
model.eval()
total = 0.0
with torch.no_grad():
    for padded, lengths, labels in loader:
        predicted = model(padded.to(next(model.parameters()).device), lengths).argmax(1).cpu()
        total += (predicted == labels).float().mean().item() * loader.batch_size
return total / len(loader.dataset)
"""),
    wrong("06", "accuracy", "model, loader", "Only the last batch counts", body="""
model.eval()
with torch.no_grad():
    for padded, lengths, labels in loader:
        predicted = model(padded.to(next(model.parameters()).device), lengths).argmax(1).cpu()
        right = (predicted == labels).sum().item()
        seen = len(labels)
return right / seen
"""),
    # Wrong in a way no mistake of the tables is: what differs is the answer.
    wrong("01", "batch_efficiency", "lengths", None, body="""
return lengths.float().mean().item() / lengths.max().item() + 0.01
"""),
    wrong("02", "batch_sizes_from_lengths", "lengths", None, body="""
return torch.stack([(lengths > t).sum() for t in range(int(lengths.max()) + 1)])
"""),
    wrong("17", "global_mean_loss", "loss_sums, counts", None, body="""
return loss_sums.sum() / (counts.sum() + 1)
"""),
]
# fmt: on


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
# fmt: off
HELD_OUT = [
    wrong("01", "real_step_mask", "lengths, steps", "The mask is transposed", body="""
return torch.arange(steps)[:, None] < lengths[None, :]
"""),
    wrong("01", "real_step_mask", "lengths, steps", "@numpy_for_tensor", body="""
import numpy as np
return np.arange(steps)[None, :] < lengths.numpy()[:, None]
"""),
    wrong("01", "real_step_mask", "lengths, steps", "With <= each row gets one step too many", body="""
mask = torch.zeros(len(lengths), steps, dtype=torch.bool)
for i, n in enumerate(lengths):
    mask[i, : n + 1] = True
return mask
"""),
    wrong("01", "batch_efficiency", "lengths", "The first length was taken as the longest", body="""
return float(lengths.sum() / (len(lengths) * lengths[0]))
"""),
    wrong("07", "gather_last_step", GATHER, "The gather index has one column", body="""
return output.gather(1, (lengths - 1).view(-1, 1, 1)).squeeze(1)
"""),
    wrong("07", "gather_last_step", GATHER, "The result keeps the time dimension", body="""
idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(1, idx)
"""),
    wrong("07", "gather_last_step", GATHER, "Off by one", body="""
idx = lengths.view(-1, 1, 1).expand(-1, 1, output.size(2))
return output.gather(1, idx).squeeze(1)
"""),
    wrong("08", "accuracy_from_lengths", "predictions, tags, lengths", "A mask built with <=", body="""
mask = torch.arange(tags.size(1))[None] <= lengths[:, None]
return ((predictions == tags) & mask).sum().item() / mask.sum().item()
"""),
    wrong("08", "accuracy_from_lengths", "predictions, tags, lengths", "This counts every position", body="""
return (predictions == tags).float().mean().item()
"""),
    wrong("08", "accuracy_from_lengths", "predictions, tags, lengths", "It returns a tensor", body="""
mask = torch.arange(tags.size(1))[None] < lengths[:, None]
return ((predictions == tags) & mask).sum() / mask.sum()
"""),
    wrong("12", "unpack_left", "packed, total_length", "The pads are on the right", body="""
padded, _ = pad_packed_sequence(packed, batch_first=True, total_length=total_length)
return padded
"""),
    wrong("12", "unpack_left", "packed, total_length", "Flipping the row", body="""
padded, _ = pad_packed_sequence(packed, batch_first=True, total_length=total_length)
return padded.flip(1)
"""),
    wrong("16", "varlen_inputs", "doc_lengths", "cumsum returns int64", body="""
lengths = torch.tensor(doc_lengths)
cu = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)])
return cu, torch.cat([torch.arange(n) for n in doc_lengths])
"""),
    wrong("16", "varlen_inputs", "doc_lengths", "These positions run on across the documents", body="""
lengths = torch.tensor(doc_lengths, dtype=torch.int32)
cu = torch.cat([torch.zeros(1, dtype=torch.int32), lengths.cumsum(0, dtype=torch.int32)])
return cu, torch.arange(sum(doc_lengths))
"""),
    wrong("17", "global_mean_loss", "loss_sums, counts", "This averages the per-rank means", body="""
return (loss_sums / counts).mean()
"""),
    wrong("17", "global_mean_loss", "loss_sums, counts", ".item() turns the loss into a Python number", body="""
return loss_sums.sum().item() / counts.sum().item()
"""),
    wrong("10", "scaled_losses", "sums, counts", "A per-rank mean lets DDP average", body="""
return sums / counts
"""),
    wrong("05", "padding_efficiency", "batch_lengths", "This is the mean of the batches' efficiencies", body="""
effs = [b.sum().item() / (len(b) * b.max().item()) for b in batch_lengths]
return sum(effs) / len(effs)
"""),
    wrong("03", "left_pad", "sequences", "pad_sequence pads on the right", body="""
return pad_sequence(sequences, batch_first=True)
"""),
    wrong("13", "top_layer_state", "h_n, num_layers, bidirectional", "h_n[-1] of a bidirectional RNN", body="""
return h_n[-1]
"""),
    wrong("04", "right_pad", "batch, lengths", "flip(1) moves the pads to the end", body="""
return batch.flip(1)
"""),
    wrong("09", "sdpa_mask", "key_padding_mask", "The key padding mask unchanged", body="""
return key_padding_mask[:, None, None, :]
"""),
    wrong("11", "wasted_flops", "cell, input_size, hidden_size, lengths", "That is multiply-adds", body="""
gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell]
pads = len(lengths) * int(lengths.max()) - int(lengths.sum())
return pads * gates * hidden_size * (input_size + hidden_size)
"""),
    wrong("06", "bidirectional_summary", "h_n", "@glued", body="""
return torch.stack([h_n[-2], h_n[-1]], dim=2).reshape(h_n.size(1), -1)
"""),
    wrong("15", "step_losses", "scores, tags", "Each micro-batch is divided by its own token count", body="""
import torch.nn.functional as F
return torch.stack([F.cross_entropy(s.flatten(0, 1), t.flatten()) for s, t in zip(scores, tags)])
"""),
    wrong("02", "packed_data", "sequences", "This lists each sequence whole", body="""
return torch.cat(sequences)
"""),
    wrong("07", "gather_last_step", GATHER, "@list_for_tensor", body="""
last = []
for b in range(output.size(0)):
    last.append(output[b, lengths[b] - 1])
return last
"""),
    wrong("17", "global_mean_loss", "loss_sums, counts", "@inplace_leaf", body="""
loss_sums /= counts.sum()
return loss_sums.sum()
"""),
    wrong("05", "padding_efficiency", "batch_lengths", None, body="""
real = sum(b.sum() for b in batch_lengths)
slots = sum(len(b) * b.max() for b in batch_lengths)
return (real / slots).item() * 100
"""),
    wrong("13", "top_layer_state", "h_n, num_layers, bidirectional", "The directions are in the wrong order", body="""
if not bidirectional:
    return h_n[num_layers - 1]
return torch.cat([h_n[2 * num_layers - 1], h_n[2 * num_layers - 2]], dim=-1)
"""),
]
# fmt: on


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    for label, answers in (("seen", WRONG_ANSWERS), ("held out", HELD_OUT)):
        result = measure(answers, verbose="-v" in sys.argv)
        print(label, result, f"named share {result['named'] / max(result['rejected'], 1):.0%}")
