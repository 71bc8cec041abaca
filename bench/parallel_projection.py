#!/usr/bin/env python3
"""Projection of a 10 000-case study on 64 and 1 024 MPI ranks (docs/performance.md, "Parallel
studies") from per-case costs and message sizes measured by bench/parallel.sh.

usage: bench/parallel_projection.py SWEEP_CASE_S STAB_CASE_S OVERHEAD_US [LAUNCH64_S LAUNCH1024_S]

Model (assumptions in docs/performance.md): the ranks compute cases at the measured serial cost
each; rank 0 receives every result one after the other, each costing the measured per-case
overhead of the scheduler plus its bytes over the network, and writes the files of a sweep run at
the disk's rate; a study ends when the slowest of (computing N / P cases, rank 0's serial work
on N cases) is done, plus one case (the last one handed out), plus the launch.
"""
import sys

N = 10_000
sweep_case, stab_case, overhead_us = (float(a) for a in sys.argv[1:4])
launch = {64: 1.0, 1024: 5.0}
if len(sys.argv) > 5:
    launch = {64: float(sys.argv[4]), 1024: float(sys.argv[5])}
studies = {  # name: (seconds per case, bytes per result to rank 0, bytes written by rank 0 per case)
    "sweep run (seed 001 bar, 10 000 steps, CSV)": (sweep_case, 2856 + 24 + 57969, 57969),
    "stability point (blade, bisection)": (stab_case, 24 + 8, 0),
}
networks = {"InfiniBand EDR, 10 GB/s": 10e9, "10 Gb Ethernet, 1 GB/s": 1e9}
disk = 0.5e9  # bytes/s rank 0 writes at
print(f"# {N} cases; overhead {overhead_us:.1f} us per case at rank 0; disk {disk / 1e9:.1f} GB/s; "
      f"launch {launch[64]:.0f} s (64 ranks), {launch[1024]:.0f} s (1 024 ranks)")
print("# study network P serial_s compute_s rank0_s wall_s speed-up efficiency")
for name, (c, m, w) in studies.items():
    for net, bw in networks.items():
        for P in (64, 1024):
            serial = N * c
            compute = N * c / P
            rank0 = N * (overhead_us * 1e-6 + m / bw + w / disk)
            wall = max(compute, rank0) + c + launch[P]
            print(f"{name} | {net} | {P} | {serial:.1f} | {compute:.3f} | {rank0:.3f} | {wall:.2f} | "
                  f"{serial / wall:.1f} | {serial / wall / P:.2f}")
