#!/usr/bin/env python3
"""Where the time of an MPI study goes (docs/performance.md, "Where 2 MPI ranks lost time").

Reads the `trace RANK SECONDS EVENT A B` lines that KEDYN_MPI_TRACE=1 makes kedyn write to stderr
(src/mpi/kedyn_mpi.c, src/run/run_cases.c) and prints, for the first study of the run: its span on
rank 0, each rank's computing time, when each rank started its first case and ended its last, the
time the other ranks waited for cases, and how long a result took from its send to its commit.

usage: KEDYN_MPI_TRACE=1 mpirun -n 2 kedyn run MODEL -o OUT --quiet 2> trace.txt
       python3 bench/mpi_timeline.py trace.txt
Events: rank 0 (run_cases.c): B/Z the study, C the process's CPU time (us) at B and Z, S/E a
case computed there, M/N a commit;
(kedyn_mpi.c) c CASE sent (A: to rank, B: first case), p a message probed (A: from rank,
B: bytes), v received, l waiting for messages (A: us); other ranks: r CASE received (A: cases,
B: first), s/e a case computed, i its result sent (A: cases, B: bytes); every rank: o/z the MPI
module opened (after MPI_Init) and closed, U the process's CPU time there (A: user us, B: system us).
"""
import statistics as st
import sys


def main(path):
    ev = {}
    for line in open(path):
        f = line.split()
        if len(f) != 6 or f[0] != "trace":
            continue
        ev.setdefault(int(f[1]), []).append((float(f[2]), f[3], int(f[4]), int(f[5])))
    r0 = sorted(ev.get(0, []))
    b = next((t for t, e, _, _ in r0 if e == "B"), None)
    z = next((t for t, e, _, _ in r0 if e == "Z"), None)
    if b is None or z is None:
        sys.exit("no study on rank 0 in %s" % path)
    span = z - b
    ms = lambda x: "%.2f" % (1e3 * x)
    print("study on rank 0: %s ms (B to Z)" % ms(span))
    for r in sorted(ev):
        es = sorted(x for x in ev[r] if b - 0.5 <= x[0] <= z + 0.5)
        start, end = ("S", "E") if r == 0 else ("s", "e")
        t_s = {}
        busy, first, last, n = 0.0, None, None, 0
        for t, e, a, _ in es:
            if e == start:
                t_s[a] = t
                first = t if first is None else first
            elif e == end and a in t_s:
                busy += t - t_s.pop(a)
                last, n = t, n + 1
        line = "rank %d: %d cases, computing %s ms (%.0f %% of the study)" % (r, n, ms(busy), 100 * busy / span)
        if first is not None:
            line += ", first case at +%s ms, last ends %s ms before the end" % (ms(first - b), ms(z - last))
        cpu = [a for t, e, a, _ in es if e == "C"]
        if len(cpu) >= 2:
            line += "; CPU in the study %s ms" % ms(1e-6 * (cpu[-1] - cpu[0]))
        print(line)
        u = sorted((t, a, c) for t, e, a, c in ev[r] if e == "U")
        if len(u) >= 2:
            print("  CPU from the MPI open to its close (the whole run but MPI_Init and MPI_Finalize): user %s ms, "
                  "system %s ms over %s ms; before it (MPI_Init, the start): %s ms" % (
                      ms(1e-6 * (u[-1][1] - u[0][1])), ms(1e-6 * (u[-1][2] - u[0][2])), ms(u[-1][0] - u[0][0]),
                      ms(1e-6 * (u[0][1] + u[0][2]))))
        if r == 0:
            tc = sum(es[k + 1][0] - es[k][0] for k in range(len(es) - 1) if es[k][1] == "M" and es[k + 1][1] == "N")
            print("  rank 0 committing: %s ms; serving (probe to received): %s ms in %d messages" % (
                ms(tc), ms(sum(t2 - t1 for (t1, e1, _, _), (t2, e2, _, _) in zip(es, es[1:]) if e1 == "p" and e2 == "v")),
                sum(1 for x in es if x[1] == "v")))
        else:
            # idle: from a result sent (or the start) to the next case's start
            idle, prev = [], next((t for t, e, _, _ in es if e == "w"), None)
            for t, e, a, _ in es:
                if e in "ie":
                    prev = t
                elif e == "s" and prev is not None:
                    idle.append(t - prev)
                    prev = None
            if idle:
                print("  waits between cases: total %s ms, longest %s ms" % (ms(sum(idle)), ms(max(idle))))
            # result latency: sent (i) -> probed on rank 0 (p from r) -> received (v)
            sends = [t for t, e, _, _ in es if e == "i"]
            pv = [(t, e) for t, e, a, c in r0 if e in "pv" and a == r and b <= t <= z + 0.5]
            # results only (READY messages are 4 bytes): a probe of more than 64 bytes and its receive
            probes = [t for (t, e), (t2, e2) in zip(pv, pv[1:]) if e == "p" and e2 == "v" and
                      next(c for t3, e3, a3, c in r0 if t3 == t and e3 == "p") > 64]
            recvs = [t2 for (t, e), (t2, e2) in zip(pv, pv[1:]) if e == "p" and e2 == "v" and
                     next(c for t3, e3, a3, c in r0 if t3 == t and e3 == "p") > 64]
            lat = [p - s for s, p in zip(sends, probes)]
            rec = [v - p for p, v in zip(probes, recvs)]
            if lat:
                print("  result sent -> seen by rank 0: median %s ms, max %s ms; seen -> received: median %s ms, max %s ms" % (
                    ms(st.median(lat)), ms(max(lat)), ms(st.median(rec)), ms(max(rec))))


if __name__ == "__main__":
    main(sys.argv[1])
