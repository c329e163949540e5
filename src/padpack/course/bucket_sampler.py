# Chapter 10's ddp_run/bucket_sampler.py, as its %%writefile cell writes it (tests/exercises/test_ch10.py keeps the two
# the same code); deep dive 17's training processes import it from here.
"""A length-bucketing batch sampler whose batches are dealt out to ranks."""

import torch
from torch.utils.data import Sampler


class DistributedBucketBatchSampler(Sampler[list[int]]):
    """Batches of similar length under a token budget, split over ranks.

    Each rank builds the same batch list from seed + epoch and keeps every
    num_replicas-th batch from position rank on. drop_last=True drops the
    last len % num_replicas batches; False repeats batches from the start.
    """

    def __init__(
        self,
        lengths,
        max_tokens,
        num_replicas=1,
        rank=0,
        seed=0,
        drop_last=True,
    ):
        if not 0 <= rank < num_replicas:
            raise ValueError(f"rank {rank} is not in [0, {num_replicas})")
        self.lengths, self.max_tokens = list(lengths), max_tokens
        self.num_replicas, self.rank, self.seed = num_replicas, rank, seed
        self.drop_last = drop_last  # False: pad by repeating batches
        self.chunk_size = 256  # examples shuffled, then sorted together
        self.epoch = 0
        self._key, self._batches = None, []  # the batch list, cached

    def set_epoch(self, epoch: int) -> None:
        """Call before every epoch, with the same epoch on every rank."""
        self.epoch = epoch

    def global_batches(self) -> list[list[int]]:
        """This epoch's batches of all ranks; rank r takes r, r + W, ..."""
        key = tuple(self.state_dict().values())  # built once per epoch
        if key != self._key:
            self._key, self._batches = key, self._build()
        return list(self._batches)

    def _build(self) -> list[list[int]]:
        generator = torch.Generator().manual_seed(self.seed + self.epoch)
        order = torch.randperm(len(self.lengths), generator=generator)
        batches = []
        for start in range(0, len(order), self.chunk_size):
            chunk = order[start : start + self.chunk_size].tolist()
            batch = []
            for index in sorted(chunk, key=self.lengths.__getitem__):
                # sorted by length: the newcomer is the batch's longest
                too_long = (len(batch) + 1) * self.lengths[index]
                if batch and too_long > self.max_tokens:
                    batches.append(batch)
                    batch = []
                batch.append(index)
            batches.append(batch)
        shuffle = torch.randperm(len(batches), generator=generator).tolist()
        batches = [batches[i] for i in shuffle]
        extra = len(batches) % self.num_replicas
        if extra and self.drop_last:
            batches = batches[: len(batches) - extra]
        elif extra:  # pad: repeat batches from the start of the list
            repeats = self.num_replicas - extra
            batches += [batches[i % len(batches)] for i in range(repeats)]
        return batches

    def __iter__(self):
        return iter(self.global_batches()[self.rank :: self.num_replicas])

    def __len__(self) -> int:
        return len(self.global_batches()) // self.num_replicas

    def state_dict(self) -> dict:
        keys = ("max_tokens", "seed", "chunk_size", "drop_last", "epoch")
        return {key: getattr(self, key) for key in keys}

    def load_state_dict(self, state: dict) -> None:
        for key, value in state.items():
            setattr(self, key, value)
