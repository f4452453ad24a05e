# work.py - the workload of CPython in `make field`: a loop calling one
# Python function N times (the C functions evaluating it run a known number
# of times), which calls divmod and appends to a list.  With a second
# argument, "timed", it also prints the CPU time of its loop in ns
# (time.process_time_ns: on a loaded machine the clock's time is mostly
# other programs'), the uninstrumented measurement the report's
# Application time is compared with.  Without it the loop is not timed:
# the size of a time value decides which C function makes its int (one
# below 2**30 ns is a one-digit int), so the calls made would depend on how
# much CPU the process had used.
import sys
import time


def step(i, out):
    q, r = divmod(i, 7)
    out.append(q + r)


def main(n, timed):
    out = []
    t0 = time.process_time_ns() if timed else 0
    for i in range(n):
        step(i, out)
    t1 = time.process_time_ns() if timed else 0
    print(len(out), sum(out))
    if timed:
        print("loop_ns", t1 - t0)


main(int(sys.argv[1]), len(sys.argv) > 2 and sys.argv[2] == "timed")
