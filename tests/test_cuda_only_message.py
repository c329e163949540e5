"""The CUDA-only message of book/errors.md, checked on a CPU.

With lengths on a GPU, `pack_padded_sequence` raises "'lengths' argument should be a 1D CPU int64 tensor, but
got 1D cuda:0 Long tensor". The check behind it (aten/src/ATen/native/PackedSequence.cpp) rejects lengths on any
device but the CPU and names the device with `Device::str()`. On the `meta` device, which every torch build has,
the same snippet raises the same message with `meta` where a GPU gives `cuda:0`: so the quoted text is what the
installed torch raises, even on a machine without a GPU (test_error_messages.py runs the snippet as written
where there is one)."""

from __future__ import annotations

import pytest
import torch
from test_error_messages import CUDA_MARKER, ERROR_ENTRIES, entry_id, raised_message

# The lengths-device entry only: the cuDNN-only entries (eval-mode backward, flatten_parameters) come from
# aten/src/ATen/native/cudnn/RNN.cpp, which a CPU build does not contain and the meta device does not reach.
CUDA_ENTRIES = [
    entry
    for entry in ERROR_ENTRIES
    if entry.snippets
    and entry.snippets[0].lstrip().startswith(CUDA_MARKER)
    and "'lengths' argument" in entry.messages[0]
]


def test_the_error_index_has_a_cuda_only_entry():
    assert CUDA_ENTRIES, "no snippet of book/errors.md starts with the CUDA marker: did the page change?"


@pytest.mark.parametrize("entry", CUDA_ENTRIES, ids=entry_id)
def test_cuda_only_message_is_what_torch_raises_on_the_meta_device(entry):
    code = entry.snippets[0]
    assert 'device="cuda"' in code, f'{entry.title!r}: expected the snippet to put tensors on device="cuda"'
    raised = raised_message(code.replace('device="cuda"', 'device="meta"'))
    assert raised is not None, f"{entry.title!r}: on the meta device the snippet raised nothing"
    meta, first_gpu = str(torch.device("meta")), str(torch.device("cuda", 0))
    assert f" {meta} " in raised, f"{entry.title!r}: the message does not name the device: {raised}"
    assert raised.replace(f" {meta} ", f" {first_gpu} ") == entry.messages[0], (
        f"{entry.title!r}: torch {torch.__version__} would say\n  {raised.replace(meta, first_gpu)}\n"
        f"but errors.md quotes\n  {entry.messages[0]}"
    )
