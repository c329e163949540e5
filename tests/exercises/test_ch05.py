"""Chapter 5's checks under the attack of exercise_checks_attack.md: wrong answers it misnamed or hid, a correct
reading of the question it rejected (now answered by the question's wording), and correct answers written
differently from the solutions."""

import json

from exercise_harness import WRONG, each_is_named, each_is_told, each_passes, notebook_path, printed

# 1. sorted_collate

INT32_LENGTHS = (
    "def sorted_collate(batch, pad_id):\n"
    "    batch = sorted(batch, key=lambda pair: len(pair[0]), reverse=True)\n"
    "    sequences, labels = zip(*batch)\n"
    "    padded = pad_sequence(list(sequences), batch_first=True, padding_value=pad_id)\n"
    "    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int32)\n"
    "    return padded, lengths, torch.tensor(labels)\n"
)


def test_int32_lengths_without_the_named_mistake_show_the_element_and_its_dtype(chapter):
    check = chapter.check("sorted_collate")
    function = chapter.define(INT32_LENGTHS, "sorted_collate")
    case = check.make_cases()[0]
    unnamed = [m for m in check.mistakes if "int32" not in m.message]
    sentence = type(check)(check.cases, unnamed, check.hint_text).verdict(function, case)[1]
    assert "What it returned[1]" in sentence and "torch.int32" in sentence and "torch.int64" in sentence


# 2. chunk_batches: sorting longest first was rejected with a raw list; the question now says shortest first

LONGEST_FIRST = (
    "def chunk_batches(order, lengths, batch_size, chunk_size):\n"
    "    batches = []\n"
    "    for start in range(0, len(order), chunk_size):\n"
    "        chunk = sorted(order[start : start + chunk_size], key=lambda i: lengths[i], reverse=True)\n"
    "        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]\n"
    "    return batches\n"
)


def test_the_question_says_shortest_first():
    nb = json.loads(notebook_path("05").read_text(encoding="utf-8"))
    (question,) = [cell for cell in nb["cells"] if "".join(cell["source"]).startswith("**2. Sort inside chunks.**")]
    assert "shortest first" in "".join(question["source"])


# 3. padding_efficiency


def test_an_answer_hard_coded_to_the_listed_cases_fails_on_a_hidden_one(chapter):
    check = chapter.check("padding_efficiency")
    listed = {repr(case.args): case.want for case in check.make_cases() if case.shown}
    namespace = {"listed": listed}
    exec("def padding_efficiency(batch_lengths):\n    return listed.get(repr((batch_lengths,)), 0.5)\n", namespace)
    assert printed(check, namespace["padding_efficiency"]).startswith(WRONG)


# Correct answers written differently from the solutions, which the checks must accept.
CORRECT = {
    "sorted_collate": [
        # argsort, then index every part with the order
        (
            "def sorted_collate(batch, pad_id):\n"
            "    lengths = torch.tensor([len(ids) for ids, _ in batch])\n"
            "    lengths, order = lengths.sort(descending=True)\n"
            "    sequences = [batch[i][0] for i in order.tolist()]\n"
            "    labels = torch.tensor([label for _, label in batch])[order]\n"
            "    padded = pad_sequence(sequences, batch_first=True, padding_value=pad_id)\n"
            "    return padded, lengths, labels\n"
        ),
        # chapter 5's collate_batch, then the pads swapped and the rows sorted
        (
            "def sorted_collate(batch, pad_id):\n"
            "    from padpack.course.reviews import collate_batch\n"
            "\n"
            "    padded, lengths, labels = collate_batch(batch)\n"
            "    lengths, order = lengths.sort(descending=True)\n"
            "    padded = padded[order]\n"
            "    rows = torch.arange(padded.shape[1]) >= lengths[:, None]\n"
            "    return padded.masked_fill(rows, pad_id), lengths, labels[order]\n"
        ),
    ],
    "chunk_batches": [
        # torch's stable sort inside each chunk
        (
            "def chunk_batches(order, lengths, batch_size, chunk_size):\n"
            "    out = []\n"
            "    for chunk in torch.tensor(order).split(chunk_size):\n"
            "        keys = torch.tensor(lengths)[chunk]\n"
            "        chunk = chunk[torch.sort(keys, stable=True).indices]\n"
            "        out += [b.tolist() for b in chunk.split(batch_size)]\n"
            "    return out\n"
        ),
        # list.sort in place on a slice (a copy), as BucketBatchSampler does
        (
            "def chunk_batches(order, lengths, batch_size, chunk_size):\n"
            "    batches = []\n"
            "    for start in range(0, len(order), chunk_size):\n"
            "        chunk = order[start : start + chunk_size]\n"
            "        chunk.sort(key=lambda i: lengths[i])\n"
            "        while chunk:\n"
            "            batches.append(chunk[:batch_size])\n"
            "            chunk = chunk[batch_size:]\n"
            "    return batches\n"
        ),
    ],
}
test_correct_answers_pass = each_passes(CORRECT)


# Wrong answers, each with the start of the mistake the check must name.
NAMED_MISTAKES = {
    "sorted_collate": [
        # int32 lengths are named, not hidden in a truncated repr
        (INT32_LENGTHS, "The lengths are an int32 tensor"),
        # an answer that never sorts is told to sort, not that it forgot to put reordered rows back
        (
            (
                "def sorted_collate(batch, pad_id):\n"
                "    sequences = [ids for ids, _ in batch]\n"
                "    padded = pad_sequence(sequences, batch_first=True, padding_value=pad_id)\n"
                "    lengths = torch.tensor([len(ids) for ids in sequences])\n"
                "    return padded, lengths, torch.tensor([label for _, label in batch])\n"
            ),
            "The batch is in its original order",
        ),
    ],
    "chunk_batches": [
        # longest first is named and told why
        (LONGEST_FIRST, "Each chunk is sorted longest first"),
        # a batch that straddles two chunks is caught on a hidden case
        (
            (
                "def chunk_batches(order, lengths, batch_size, chunk_size):\n"
                "    flat = []\n"
                "    for start in range(0, len(order), chunk_size):\n"
                "        flat += sorted(order[start : start + chunk_size], key=lengths.__getitem__)\n"
                "    return [flat[i : i + batch_size] for i in range(0, len(flat), batch_size)]\n"
            ),
            "The sorted chunks are joined",
        ),
    ],
    "padding_efficiency": [
        # floor division is named
        (
            (
                "def padding_efficiency(batch_lengths):\n"
                "    real = sum(int(n.sum()) for n in batch_lengths)\n"
                "    return real // sum(len(n) * int(n.max()) for n in batch_lengths)\n"
            ),
            "Floor division",
        ),
    ],
}
test_wrong_answers_are_named = each_is_named(NAMED_MISTAKES)


# Wrong answers, each with words the check's rejection must say.
SAID = {
    "chunk_batches": [
        # sorting the callers order in place is caught
        (
            (
                "def chunk_batches(order, lengths, batch_size, chunk_size):\n"
                "    batches = []\n"
                "    for start in range(0, len(order), chunk_size):\n"
                "        stop = start + chunk_size\n"
                "        order[start:stop] = sorted(order[start:stop], key=lengths.__getitem__)\n"
                "        chunk = order[start:stop]\n"
                "        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]\n"
                "    return batches\n"
            ),
            "`order` in place",
        ),
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)
