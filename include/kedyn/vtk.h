/* kedyn: results as VTK files that ParaView opens.
 *
 * A .vtu (VTK XML unstructured grid, ASCII) holds the model's undeformed
 * mesh in global coordinates, m (every node; beams as lines, membranes,
 * plates and shells as triangles and quadrilaterals of their node count:
 * VTK types 3, 5, 9, 22, 23, 28) and point vectors: the global translation
 * (u, v, w) of each node for each field. A .pvd (VTK collection) lists one
 * .vtu per step of a series (mode k at "time" k, or the instants of a
 * dynamics), so ParaView plays it; "Warp By Vector" draws the deformed shape.
 *
 * Files are written through kedyn/atomic_file.h (never half-written).
 */
#ifndef KEDYN_VTK_H
#define KEDYN_VTK_H

#include "kedyn/model.h"
#include "kedyn/modes.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One .vtu: the mesh of m and nfield point vectors, named names[k], from
 * the reduced vectors field[k] (m->neq values each; fixed DOFs are zero). */
kd_status kd_write_vtu(const char* path, const kd_model* m, int nfield, const char* const* names,
                       const double* const* field, kd_error* err);

/* A .pvd collection of n datasets: files[k] (relative to the .pvd) at
 * time[k]. */
kd_status kd_write_pvd(const char* path, int n, const double* time, const char* const* files, kd_error* err);

/* The mode shapes r of m: DIR/STEM.vtu with every mode as a vector
 * `mode_K`, DIR/STEM_mode_K.vtu with mode K as `displacement`, and
 * DIR/STEM.pvd listing those at time K. */
kd_status kd_write_modes_vtk(const char* dir, const char* stem, const kd_model* m, const kd_modes* r, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
