"""julia.py: the Julia set computed in pure Python, the example the profiling guides start
from (the CPU in one function, calculate_z_serial_purepython, a pure-Python loop).

    python3 julia.py [WIDTH] [MAXITER]

A WIDTH x WIDTH grid over [-1.8, 1.8] for c = -0.62772 - 0.42193j; prints the total of the
escape counts. WIDTH 500 and MAXITER 150 take about 2 s of CPU on our machines.
"""
import sys

C = complex(-0.62772, -0.42193)


def calculate_z_serial_purepython(maxiter, zs, cs):
    """The escape count of each point: how many steps z -> z*z + c stay within 2."""
    output = [0] * len(zs)
    for i in range(len(zs)):
        steps = 0
        z = zs[i]
        c = cs[i]
        while abs(z) < 2 and steps < maxiter:
            z = z * z + c
            steps += 1
        output[i] = steps
    return output


def calc_pure_python(width, maxiter):
    """The grid's points as complex numbers, then their counts."""
    lo, hi = -1.8, 1.8
    step = (hi - lo) / width
    zs = []
    cs = []
    for row in range(width):
        y = hi - row * step
        for col in range(width):
            zs.append(complex(lo + col * step, y))
            cs.append(C)
    return calculate_z_serial_purepython(maxiter, zs, cs)


if __name__ == "__main__":
    width = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    maxiter = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    print(sum(calc_pure_python(width, maxiter)))
