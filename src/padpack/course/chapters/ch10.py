"""What chapter 10's setup cell imports: chapter 5's vocabulary and label names, the simpler reviews it trains on,
`predict_cpu`, and the process plumbing that starts torchrun and checks that nothing is left.

The chapter writes its own worker modules (bucket_sampler.py, review_model.py, train_ddp.py) in visible cells;
`padpack.course.bucket_sampler` and `padpack.course.review_model` hold the same code for deep dive 17.
"""

import torch
from torch.nn.utils.rnn import pad_sequence

from padpack.course.processes import new_workdir, nobody_listens_on, processes_using, run_and_wait
from padpack.course.reviews import LABEL_NAMES, Vocabulary
from padpack.course.simple_reviews import make_simple_review

__all__ = [
    "LABEL_NAMES",
    "Vocabulary",
    "make_simple_review",
    "new_workdir",
    "nobody_listens_on",
    "predict_cpu",
    "processes_using",
    "run_and_wait",
]


@torch.inference_mode()
def predict_cpu(model, vocab, texts: list[str], batch_size: int = 64):
    """Label each string; every string needs at least one token. Chapter 6's predict, for a model on the CPU."""
    encoded = [torch.tensor(vocab.encode(text), dtype=torch.int64) for text in texts]
    empty = [i for i, ids in enumerate(encoded) if len(ids) == 0]
    if empty:
        raise ValueError(f"texts without tokens at positions {empty}")
    model.eval()
    names = []
    for start in range(0, len(encoded), batch_size):
        chunk = encoded[start : start + batch_size]
        lengths = torch.tensor([len(ids) for ids in chunk])
        padded = pad_sequence(chunk, batch_first=True, padding_value=0)
        predicted = model(padded, lengths).argmax(dim=1).tolist()
        names += [LABEL_NAMES[i] for i in predicted]
    return names
