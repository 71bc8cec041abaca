#!/usr/bin/env python3
"""Writes tests/data/hand_written.uff: a Universal File typed from the published layouts of
datasets 151, 15, 58, 58b and 55 (UC-SDRL/SDRC "Universal Dataset Number 58 - Function at Nodal
DOF", "The Binary 58 Universal File Format", dataset 15 nodes 4I10,1P3E13.5, dataset 55 "Data at
Nodes"), independently of kedyn's writer: every ASCII record is a literal line, column by column;
the 58b block's four doubles are packed big-endian (byte order 2) with struct. Read by
tests/records_test.c (test_uff_other_writer), which checks every value."""
import os
import struct

L = []


def line(s):
    assert len(s) <= 80, (len(s), s)
    L.append(s + "\n")


# dataset 151 (header): skipped by kedyn
line("    -1"); line("   151")
line("hand_written.uff"); line("NONE"); line("kedyn test data, typed from the published layout"); line("NONE")
line("NONE"); line("NONE"); line("NONE")
line("    -1")
# dataset 15: nodes, 4I10,1P3E13.5
line("    -1"); line("    15")
line("         1         0         0         0  0.00000E+00  0.00000E+00  0.00000E+00")
line("         2         0         0         0  5.00000E-01  0.00000E+00  0.00000E+00")
line("         3         0         0         0  1.00000E+00  2.50000E-01 -1.00000E-01")
line("    -1")
# dataset 58: time response, real single precision, even abscissa, 8 values in 6E13.5
line("    -1"); line("    58")
line("accel 2"); line("NONE"); line("26-NOV-26 07:00:00"); line("NONE"); line("NONE")
line("    1         1    0         0 NONE               2   2 NONE               1   2")
line("         2         8         1  0.00000E+00  1.00000E-03  0.00000E+00")
line("        17    0    0    0 Time                 s                   ")
line("        12    1    0    0 Acceleration         m/s^2               ")
line("         0    0    0    0 NONE                 NONE                ")
line("         0    0    0    0 NONE                 NONE                ")
line("  0.00000E+00  1.50000E+00 -2.25000E+00  3.12500E+00  4.00000E-03 -5.50000E+02")
line("  6.00000E+00  7.75000E-01")
line("    -1")
# dataset 58: FRF, complex double precision, uneven abscissa, E13.5,2E20.12 per point
line("    -1"); line("    58")
line("H3-1"); line("NONE"); line("NONE"); line("NONE"); line("NONE")
line("    4         2    1         0 NONE               3  -3 NONE               1   2")
line("         6         3         0  0.00000E+00  0.00000E+00  0.00000E+00")
line("        18    0    0    0 Frequency            Hz                  ")
line("        12    1   -1    0 Accelerance          m/s^2/N             ")
line("        13    0    1    0 Force                N                   ")
line("         0    0    0    0 NONE                 NONE                ")
line("  1.00000E+01  1.000000000000E+00 -2.000000000000E+00")
line("  1.25000E+01  5.000000000000E-01  2.500000000000E-01")
line("  2.00000E+01 -1.000000000000E-03  3.000000000000E-03")
line("    -1")
text_before_binary = "".join(L)
L = []
# dataset 58b: big-endian (byte order 2) IEEE doubles (format 2), 11 ASCII lines, 32 bytes
line("    -1")
line("    58b     2     2          11          32     0     0           0           0")
line("force big-endian"); line("NONE"); line("NONE"); line("NONE"); line("NONE")
line("    1         3    0         0 NONE               1   2 NONE               1   2")
line("         4         4         1  5.00000E-01  2.50000E-01  0.00000E+00")
line("        17    0    0    0 Time                 s                   ")
line("        13    0    1    0 Force                N                   ")
line("         0    0    0    0 NONE                 NONE                ")
line("         0    0    0    0 NONE                 NONE                ")
binary_header = "".join(L)
data = struct.pack(">4d", 1.0, -0.1, 3.0e-300, 12345.678901234567)
L = []
line("    -1")
# dataset 55: a normal mode, 3 real values per node
line("    -1"); line("    55")
line("mode 1"); line("NONE"); line("NONE"); line("NONE"); line("NONE")
line("         1         2         2         8         2         3")
line("         2         4         1         1")
line("  1.25000E+01  1.00000E+00  2.00000E-02  0.00000E+00")
line("         1")
line("  1.00000E+00  0.00000E+00 -5.00000E-01")
line("         3")
line(" -2.50000E-01  7.50000E-01  0.00000E+00")
line("    -1")
after = "".join(L)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hand_written.uff"), "wb") as f:
    f.write(text_before_binary.encode())
    f.write(binary_header.encode())
    f.write(data)
    f.write(after.encode())
