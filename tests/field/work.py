# work.py - the workload of CPython in `make field`: a loop calling one
# Python function N times (the C functions evaluating it run a known number
# of times), which calls divmod and appends to a list.
import sys


def step(i, out):
    q, r = divmod(i, 7)
    out.append(q + r)


def main(n):
    out = []
    for i in range(n):
        step(i, out)
    print(len(out), sum(out))


main(int(sys.argv[1]))
