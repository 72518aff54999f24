#!/usr/bin/env python3
# torch_work.py: PyTorch workloads for tests/device/gpu_check.sh, the motivating
# case (a training run that cperfwatch called cpu-bound: its main thread spins in the CUDA
# driver while it waits for the device). Needs python3 with torch and a CUDA device.
#
#   torch_work.py train SECONDS    forward and backward of a wide MLP on the GPU, batches
#                                  made on the device: the GPU busy, gpu-bound
#   torch_work.py loader SECONDS   a DataLoader with 2 workers whose items cost about 20 ms
#                                  of pure Python each, and a small step on the GPU per
#                                  batch: the GPU idles, starved by its input pipeline
import sys
import time

import torch


def train(secs):
    dev = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(8192, 8192), torch.nn.ReLU(),
        torch.nn.Linear(8192, 8192), torch.nn.ReLU(),
        torch.nn.Linear(8192, 1024)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(4096, 8192, device=dev)
    y = torch.randn(4096, 1024, device=dev)
    end = time.monotonic() + secs
    steps = 0
    while time.monotonic() < end:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        steps += 1
    print("train: %d steps" % steps)


class SlowItems(torch.utils.data.Dataset):
    """Each item costs about 20 ms of pure-Python work (a decode, an augmentation)."""

    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        end = time.monotonic() + 0.02
        acc = 0
        while time.monotonic() < end:
            for j in range(1000):
                acc += j * j
        return torch.full((256,), float(acc % 7))


def loader(secs):
    dev = torch.device("cuda")
    w = torch.randn(256, 256, device=dev)
    data = torch.utils.data.DataLoader(SlowItems(), batch_size=8, num_workers=2)
    end = time.monotonic() + secs
    batches = 0
    for batch in data:
        (batch.to(dev) @ w).sum().item()
        batches += 1
        if time.monotonic() >= end:
            break
    print("loader: %d batches" % batches)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("train", "loader"):
        print("usage: torch_work.py train|loader SECONDS", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_work: no CUDA device", file=sys.stderr)
        return 2
    (train if sys.argv[1] == "train" else loader)(float(sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
