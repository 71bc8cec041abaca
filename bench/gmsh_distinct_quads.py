#!/usr/bin/env python3
# python3 bench/gmsh_distinct_quads.py [N] [OUT.msh]: the Gmsh plate of docs/performance.md
# "Element records sized by their DOFs".
# 40 x 40 quadrilateral Gmsh mesh (MSH 4.1 ASCII) of a 0.2 x 0.16 plate, interior corners moved
# by +-0.1 of a cell (fixed seed): every element distinct. Physical groups "clamped" (x = 0), "plate".
import random, sys
nx = ny = int(sys.argv[1]) if len(sys.argv) > 1 else 40
a, b = 0.2, 0.16
hx, hy = a / nx, b / ny
random.seed(12)
tag = lambda i, j: i * (ny + 1) + j + 1
xy = {}
for i in range(nx + 1):
    for j in range(ny + 1):
        x, y = i * hx, j * hy
        if 0 < i < nx and 0 < j < ny:
            x += random.uniform(-0.1, 0.1) * hx
            y += random.uniform(-0.1, 0.1) * hy
        xy[tag(i, j)] = (x, y)
nn = (nx + 1) * (ny + 1)
o = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$PhysicalNames", "2", '1 1 "clamped"', '2 2 "plate"',
     "$EndPhysicalNames", "$Entities", "0 1 1 0", f"1 0 0 0 0 {b} 0 1 1 0", f"1 0 0 0 {a} {b} 0 1 2 1 1",
     "$EndEntities", "$Nodes", f"1 {nn} 1 {nn}", f"2 1 0 {nn}"]
o += [str(t) for t in range(1, nn + 1)]
o += [f"{xy[t][0]:.17g} {xy[t][1]:.17g} 0" for t in range(1, nn + 1)]
o += ["$EndNodes", "$Elements", f"2 {ny + nx * ny} 1 {ny + nx * ny}", f"1 1 1 {ny}"]
o += [f"{j + 1} {tag(0, j)} {tag(0, j + 1)}" for j in range(ny)]
o += [f"2 1 3 {nx * ny}"]
k = ny
for i in range(nx):
    for j in range(ny):
        k += 1
        o.append(f"{k} {tag(i, j)} {tag(i + 1, j)} {tag(i + 1, j + 1)} {tag(i, j + 1)}")
o += ["$EndElements"]
open(sys.argv[2] if len(sys.argv) > 2 else "plate40.msh", "w").write("\n".join(o) + "\n")
