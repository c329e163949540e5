"""Chapter 6's model and training loop, for the pages that reuse them: `SequenceClassifier` (embedding, packed
LSTM or GRU, final state, linear layer), `new_model`, `move_batch`, `train_one_epoch`, `evaluate`, `fit` with its
best-checkpoint rule, and `load_checkpoint`.

Every function and class here is the code that chapter 6 teaches, cell for cell (tests/test_one_source.py keeps
it so). What that code reads besides its arguments are this module's attributes: `device` (a GPU when there is
one), `QUIET` (no progress bars under CI, so stored outputs do not change), and chapter 5's `vocab` and
`LABEL_NAMES` from `padpack.course.reviews`. To run the models elsewhere, set `padpack.course.classifier.device`
before you build them.
"""

import os

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

from padpack.course.helpers import set_seed
from padpack.course.reviews import LABEL_NAMES, Vocabulary, collate_batch, test_set, val_set, vocab

__all__ = [
    "EPOCHS",
    "QUIET",
    "TEST_LOADER",
    "VAL_LOADER",
    "SequenceClassifier",
    "device",
    "evaluate",
    "fit",
    "load_checkpoint",
    "move_batch",
    "new_model",
    "train_one_epoch",
]

# Progress bars stay quiet under CI, so stored outputs do not change
QUIET = bool(os.environ.get("CI"))
device = "cuda" if torch.cuda.is_available() else "cpu"


# ---- The model: embedding, packed LSTM, final state, linear layer ----
class SequenceClassifier(nn.Module):
    """Embedding -> packed LSTM or GRU -> final hidden state -> linear."""

    def __init__(self, vocab_size, num_classes, hidden_size=64, cell="lstm"):
        super().__init__()
        self.config = {"vocab_size": vocab_size, "num_classes": num_classes}
        self.config |= {"hidden_size": hidden_size, "cell": cell}
        self.embedding = nn.Embedding(vocab_size, 32, padding_idx=0)
        rnn_class = {"lstm": nn.LSTM, "gru": nn.GRU}[cell]
        self.rnn = rnn_class(32, hidden_size, batch_first=True)
        self.classifier = nn.Linear(hidden_size, num_classes)

    def encode(self, padded, lengths):
        """Token ids (batch, longest), CPU lengths -> (batch, hidden)."""
        embedded = self.embedding(padded)
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        _, final_state = self.rnn(packed)
        # an LSTM also returns c_n
        h_n = final_state[0] if isinstance(self.rnn, nn.LSTM) else final_state
        return h_n[-1]

    def forward(self, padded, lengths):
        return self.classifier(self.encode(padded, lengths))


def new_model(model_class=SequenceClassifier, cell="lstm", seed=0):
    """A freshly initialized model on the device; same seed, same weights."""
    set_seed(seed)
    return model_class(len(vocab), len(LABEL_NAMES), cell=cell).to(device)


# ---- Device handling ----
def move_batch(padded, lengths, labels):
    """Ids and labels go to the device; lengths stay on the CPU for packing."""
    padded = padded.to(device, non_blocking=True)
    return padded, lengths, labels.to(device, non_blocking=True)


# ---- The training loop ----
def train_one_epoch(model, loader, optimizer, loss_fn, desc="train"):
    """One pass over the loader with updates; the mean loss and accuracy."""
    model.train()
    total_loss = torch.zeros((), device=device)
    correct = torch.zeros((), dtype=torch.int64, device=device)
    n = 0
    for batch in tqdm(loader, desc=desc, leave=False, disable=QUIET):
        padded, lengths, labels = move_batch(*batch)
        logits = model(padded, lengths)
        loss = loss_fn(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        total_loss += loss.detach() * len(labels)
        correct += (logits.argmax(dim=1) == labels).sum()
        n += len(labels)
    # one sync per epoch
    return {"loss": total_loss.item() / n, "accuracy": correct.item() / n}


@torch.inference_mode()
def evaluate(model, loader):
    """Mean loss, accuracy and every prediction, in the loader's order."""
    model.eval()
    total_loss, predictions, targets = 0.0, [], []
    for batch in loader:
        padded, lengths, labels = move_batch(*batch)
        logits = model(padded, lengths)
        loss = nn.functional.cross_entropy(logits, labels, reduction="sum")
        total_loss += loss.item()
        predictions.append(logits.argmax(dim=1).cpu())
        targets.append(labels.cpu())
    predictions, targets = torch.cat(predictions), torch.cat(targets)
    accuracy = (predictions == targets).float().mean().item()
    loss = total_loss / len(targets)
    return {"loss": loss, "accuracy": accuracy, "predictions": predictions}


# ---- Keeping the best checkpoint ----
EPOCHS = 3
# fixed order
VAL_LOADER = DataLoader(val_set, batch_size=64, collate_fn=collate_batch)
TEST_LOADER = DataLoader(test_set, batch_size=64, collate_fn=collate_batch)


def fit(model, train_loader, val_loader, checkpoint_path, epochs=EPOCHS, name="model"):
    """Train, keep the best checkpoint; return one row of metrics per epoch."""
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    history, best_accuracy = [], -1.0
    for epoch in tqdm(range(1, epochs + 1), desc=name, disable=QUIET):
        train = train_one_epoch(model, train_loader, optimizer, loss_fn, desc=f"epoch {epoch}")
        val = evaluate(model, val_loader)
        row = {f"train_{key}": value for key, value in train.items()}
        row |= {"val_loss": val["loss"], "val_accuracy": val["accuracy"]}
        history.append(row)
        if val["accuracy"] > best_accuracy:
            best_accuracy = val["accuracy"]
            state = {"model": model.state_dict(), "config": model.config}
            state |= {"optimizer": optimizer.state_dict(), "vocab": vocab.itos}
            state |= {"label_names": LABEL_NAMES, "epoch": epoch}
            state |= {"val_accuracy": val["accuracy"]}
            state["val_predictions"] = val["predictions"]
            torch.save(state, checkpoint_path)
    return history


def load_checkpoint(path):
    """Rebuild model, optimizer and vocabulary from a checkpoint of fit()."""
    checkpoint = torch.load(path, map_location=device, weights_only=True)
    vocabulary = Vocabulary(checkpoint["vocab"])
    model = SequenceClassifier(**checkpoint["config"]).to(device)
    model.load_state_dict(checkpoint["model"])
    optimizer = torch.optim.Adam(model.parameters())
    optimizer.load_state_dict(checkpoint["optimizer"])
    return model, optimizer, vocabulary, checkpoint
