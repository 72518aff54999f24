#!/usr/bin/python3
"""A small pure-Python CPU-bound program: the bundled example for cperfwatch.

It counts primes by trial division for about two seconds, in one process, so cperfwatch
should call it cpu-bound and point out that it uses one of the machine's cores.
"""
import sys
import time


def count_primes(limit):
    count = 0
    for n in range(2, limit):
        d = 2
        while d * d <= n:
            if n % d == 0:
                break
            d += 1
        else:
            count += 1
    return count


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    deadline = time.monotonic() + seconds
    rounds = 0
    while time.monotonic() < deadline:
        count_primes(20000)
        rounds += 1
    print(f"busy.py: {rounds} rounds of prime counting in {seconds:g}s")


if __name__ == "__main__":
    main()
