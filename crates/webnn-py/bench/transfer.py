"""The cost of moving NumPy data in and out of an MLTensor, against NumPy copying the same
array in the same run (one memcpy's worth, the floor for a write or a read that lands in
memory the backend owns):

    python bench/transfer.py [--mib 64] [--runs 20]   # prints one line per direction

A ratio near 1 means the binding adds no copy of its own."""

import argparse
import statistics
import time

import numpy as np

import webnn


def median_ms(f, runs):
    f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mib", type=int, default=64)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--backend", default="cpu")
    a = p.parse_args()
    n = a.mib * 1024 * 1024 // 4
    ctx = webnn.create_context(backend=a.backend)
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    t = ctx.create_tensor([n], "float32", readable=True, writable=True)
    copy = median_ms(lambda: np.copy(x), a.runs)
    write = median_ms(lambda: ctx.write_tensor(t, x), a.runs)
    read = median_ms(lambda: ctx.read_tensor(t), a.runs)
    assert np.array_equal(ctx.read_tensor(t), x)
    print(f"{a.mib} MiB float32 on {ctx.backend}: numpy copy {copy:.2f} ms")
    print(f"  write_tensor {write:.2f} ms ({write / copy:.2f}x a copy)")
    print(f"  read_tensor  {read:.2f} ms ({read / copy:.2f}x a copy)")


if __name__ == "__main__":
    main()
