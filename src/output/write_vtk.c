/* VTK files (kedyn/vtk.h): the VTK XML formats "UnstructuredGrid" (.vtu)
 * and "Collection" (.pvd), ASCII, as described in "VTK File Formats" of the
 * VTK User's Guide. Cell node orders of VTK's linear and quadratic cells are
 * those of kedyn's element families (corners counter-clockwise, then
 * mid-sides, then the centre). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "kedyn/vtk.h"

/* The VTK cell type of element e (0 when it has none). */
static int vtk_cell_type(const kd_model* m, int e) {
    const kd_element_props* p = &m->prop[m->elem_prop[e]];
    const int nn = m->elem_node_adr[e + 1] - m->elem_node_adr[e];
    switch (p->family->domain) {
    case KD_DOMAIN_LINE: return nn == 2 ? 3 : 0;                                          /* VTK_LINE */
    case KD_DOMAIN_TRIANGLE: return nn == 3 ? 5 : nn == 6 ? 22 : 0;                       /* (QUADRATIC_)TRIANGLE */
    case KD_DOMAIN_QUADRILATERAL: return nn == 4 ? 9 : nn == 8 ? 23 : nn == 9 ? 28 : 0;  /* QUAD, QUADRATIC_QUAD, BIQUADRATIC_QUAD */
    case KD_DOMAIN_HEXAHEDRON: return nn == 8 ? 12 : 0;                                   /* VTK_HEXAHEDRON */
    }
    return 0;
}

/* The global translation of node n in the reduced vector x. */
static void node_translation(const kd_model* m, int n, const double* x, double out[3]) {
    double loc[3] = {0, 0, 0};
    for (int a = 0; a < m->node_dof_num[n]; a++) {
        const int i = m->node_dof_adr[n] + a, eq = m->dof_eq[i];
        const kd_dof_name dn = m->dof_name[i];
        if (eq >= 0 && dn <= KD_DOF_W) loc[dn] = x[eq];
    }
    const double* R = m->body[m->node_body[n]].rot;
    for (int i = 0; i < 3; i++) out[i] = R[i * 3] * loc[0] + R[i * 3 + 1] * loc[1] + R[i * 3 + 2] * loc[2];
}

kd_status kd_write_vtu(const char* path, const kd_model* m, int nfield, const char* const* names,
                       const double* const* field, kd_error* err) {
    int ncell = 0;
    size_t nconn = 0;
    for (int e = 0; e < m->nelem; e++)
        if (vtk_cell_type(m, e)) ncell++, nconn += (size_t)(m->elem_node_adr[e + 1] - m->elem_node_adr[e]);
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    FILE* fp = f.fp;
    fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n",
            m->nnode, ncell);
    fprintf(fp, "      <PointData%s%s%s>\n", nfield ? " Vectors=\"" : "", nfield ? names[0] : "", nfield ? "\"" : "");
    for (int k = 0; k < nfield; k++) {
        fprintf(fp, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"3\" format=\"ascii\">\n", names[k]);
        for (int n = 0; n < m->nnode; n++) {
            double u[3];
            node_translation(m, n, field[k], u);
            fprintf(fp, "          %.9e %.9e %.9e\n", u[0], u[1], u[2]);
        }
        fprintf(fp, "        </DataArray>\n");
    }
    fprintf(fp, "      </PointData>\n      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for (int n = 0; n < m->nnode; n++) {
        double x[3];
        kd_model_node_position(m, n, x);
        fprintf(fp, "          %.12g %.12g %.12g\n", x[0], x[1], x[2]);
    }
    fprintf(fp, "        </DataArray>\n      </Points>\n      <Cells>\n"
                "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
    for (int e = 0; e < m->nelem; e++) {
        if (!vtk_cell_type(m, e)) continue;
        const int* nodes;
        const int nn = kd_model_elem_nodes(m, e, &nodes);
        fprintf(fp, "         ");
        for (int a = 0; a < nn; a++) fprintf(fp, " %d", nodes[a]);
        fputc('\n', fp);
    }
    fprintf(fp, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    size_t off = 0;
    for (int e = 0; e < m->nelem; e++) {
        if (!vtk_cell_type(m, e)) continue;
        off += (size_t)(m->elem_node_adr[e + 1] - m->elem_node_adr[e]);
        fprintf(fp, "          %zu\n", off);
    }
    fprintf(fp, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
    for (int e = 0; e < m->nelem; e++)
        if (vtk_cell_type(m, e)) fprintf(fp, "          %d\n", vtk_cell_type(m, e));
    fprintf(fp, "        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    (void)nconn;
    return kd_atomic_commit(&f, err);
}

kd_status kd_write_pvd(const char* path, int n, const double* time, const char* const* files, kd_error* err) {
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    fprintf(f.fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                  "  <Collection>\n");
    for (int k = 0; k < n; k++)
        fprintf(f.fp, "    <DataSet timestep=\"%.12g\" group=\"\" part=\"0\" file=\"%s\"/>\n", time[k], files[k]);
    fprintf(f.fp, "  </Collection>\n</VTKFile>\n");
    return kd_atomic_commit(&f, err);
}

kd_status kd_write_modes_vtk(const char* dir, const char* stem, const kd_model* m, const kd_modes* r, kd_error* err) {
    const int n = r->count;
    char path[1400];
    if (n < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "no modes to write");
    char(*names)[32] = malloc(sizeof(*names) * (size_t)n);
    char(*files)[128] = malloc(sizeof(*files) * (size_t)n);
    const char** np = malloc(sizeof(char*) * (size_t)n);
    const char** fp = malloc(sizeof(char*) * (size_t)n);
    const double** fields = malloc(sizeof(double*) * (size_t)n);
    double* time = malloc(sizeof(double) * (size_t)n);
    kd_status st = (names && files && np && fp && fields && time) ? KD_OK : KD_ERR_NOMEM;
    if (st) kd_error_set(err, st, "", KD_LOC_NONE, "out of memory");
    for (int k = 0; k < n && !st; k++) {
        snprintf(names[k], sizeof names[k], "mode_%d", k + 1);
        snprintf(files[k], sizeof files[k], "%s_mode_%d.vtu", stem, k + 1);
        np[k] = names[k];
        fp[k] = files[k];
        fields[k] = r->shape + (size_t)k * r->neq;
        time[k] = k + 1;
    }
    if (!st) {
        snprintf(path, sizeof path, "%s/%s.vtu", dir, stem);
        st = kd_write_vtu(path, m, n, np, fields, err);
    }
    for (int k = 0; k < n && !st; k++) {
        static const char* const disp[1] = {"displacement"};
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        st = kd_write_vtu(path, m, 1, disp, &fields[k], err);
    }
    if (!st) {
        snprintf(path, sizeof path, "%s/%s.pvd", dir, stem);
        st = kd_write_pvd(path, n, time, fp, err);
    }
    free(names);
    free(files);
    free(np);
    free(fp);
    free(fields);
    free(time);
    return st;
}
