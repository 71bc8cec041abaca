/* Mode shapes of membranes, plates and shells as coloured surfaces (gnuplot
 * pm3d), from the modes' .vtu file (kedyn/vtk.h) of a finished run: the mesh
 * seen along its normal, each element a patch coloured by the mode's normal
 * displacement (bending) or, when the in-plane part dominates (membranes),
 * drawn deformed and coloured by the in-plane displacement's magnitude. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output_util.h"
#include "plot_internal.h"

#define PANELS_MAX 6

typedef struct vtu {
    int npoint, ncell;
    double* x;                    /* (npoint x 3) */
    int* conn;                    /* connectivity */
    int* offset;                  /* (ncell) end of each cell in conn */
    int* type;                    /* (ncell) VTK cell types */
    int nmode;
    double** mode;                /* (nmode) (npoint x 3) */
} vtu;

static void vtu_free(vtu* v) {
    free(v->x);
    free(v->conn);
    free(v->offset);
    free(v->type);
    for (int k = 0; k < v->nmode; k++) free(v->mode[k]);
    free(v->mode);
    memset(v, 0, sizeof(*v));
}

static long attr_value(const char* s, const char* name) {
    char key[64];
    snprintf(key, sizeof key, "%s=\"", name);
    const char* at = strstr(s, key);
    return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

/* The n numbers of the DataArray whose opening tag contains `tag`, after
 * `from`, into a new array (NULL when absent or short). */
static double* data_numbers(const char* from, const char* tag, size_t n) {
    const char* at = strstr(from, tag);
    if (!at || !(at = strchr(at, '>'))) return NULL;
    double* out = malloc(sizeof(double) * (n ? n : 1));
    char* p = (char*)at + 1;
    for (size_t i = 0; out && i < n; i++) {
        char* q;
        out[i] = strtod(p, &q);
        if (q == p) {
            free(out);
            return NULL;
        }
        p = q;
    }
    return out;
}

static int* to_ints(double* d, size_t n) {
    int* out = d ? malloc(sizeof(int) * (n ? n : 1)) : NULL;
    for (size_t i = 0; out && i < n; i++) out[i] = (int)d[i];
    free(d);
    return out;
}

/* Read the mesh and the mode_K arrays of a .vtu written by kd_write_vtu. */
static int vtu_read(const char* path, vtu* v) {
    memset(v, 0, sizeof(*v));
    char* s = io_read_all(path);
    if (!s) return -1;
    v->npoint = (int)attr_value(s, "NumberOfPoints");
    v->ncell = (int)attr_value(s, "NumberOfCells");
    const char* pts = strstr(s, "<Points>");
    int ok = v->npoint > 0 && v->ncell > 0 && pts;
    if (ok) {
        v->x = data_numbers(pts, "<DataArray", 3 * (size_t)v->npoint);
        double* off = data_numbers(s, "Name=\"offsets\"", (size_t)v->ncell);
        v->offset = to_ints(off, (size_t)v->ncell);
        v->type = to_ints(data_numbers(s, "Name=\"types\"", (size_t)v->ncell), (size_t)v->ncell);
        const size_t nconn = v->offset ? (size_t)v->offset[v->ncell - 1] : 0;
        v->conn = to_ints(data_numbers(s, "Name=\"connectivity\"", nconn), nconn);
        ok = v->x && v->offset && v->type && v->conn;
        for (size_t i = 0; ok && i < nconn; i++) ok = v->conn[i] >= 0 && v->conn[i] < v->npoint;
    }
    while (ok) {
        char tag[48];
        snprintf(tag, sizeof tag, "Name=\"mode_%d\"", v->nmode + 1);
        if (!strstr(s, tag)) break;
        double** nm = realloc(v->mode, sizeof(double*) * (size_t)(v->nmode + 1));
        if (!nm) ok = 0;
        else v->mode = nm, v->mode[v->nmode] = data_numbers(s, tag, 3 * (size_t)v->npoint);
        if (ok && !v->mode[v->nmode]) ok = 0;
        else if (ok) v->nmode++;
    }
    free(s);
    if (!ok) vtu_free(v);
    return ok ? 0 : -1;
}

static int is_surface(int type) { return type == 5 || type == 9 || type == 22 || type == 23 || type == 28; }

kd_status plot_plate_modes(gnuplot_script* g, const char* path, const char* title, const char* stem, int analysis,
                           const double* freq_hz, int nfreq, kd_error* err) {
    vtu v;
    if (vtu_read(path, &v)) {
        plot_note(g->res, "analysis %d (modes): %s cannot be read; no surfaces drawn", analysis + 1, path);
        return KD_OK;
    }
    /* the plane of the mesh: the normal of its first surface cell, an in-plane axis along its first side */
    double e1[3] = {1, 0, 0}, e2[3] = {0, 1, 0}, nrm[3] = {0, 0, 1};
    int first = -1;
    for (int c = 0; c < v.ncell && first < 0; c++)
        if (is_surface(v.type[c])) first = c;
    if (first < 0 || v.nmode == 0) {
        vtu_free(&v);
        return KD_OK;
    }
    {
        const int* cn = v.conn + (first ? v.offset[first - 1] : 0);
        const double *a = &v.x[3 * cn[0]], *b = &v.x[3 * cn[1]], *c = &v.x[3 * cn[2]];
        double u[3], w[3];
        for (int i = 0; i < 3; i++) u[i] = b[i] - a[i], w[i] = c[i] - a[i];
        nrm[0] = u[1] * w[2] - u[2] * w[1], nrm[1] = u[2] * w[0] - u[0] * w[2], nrm[2] = u[0] * w[1] - u[1] * w[0];
        const double nn = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        const double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int i = 0; i < 3; i++) nrm[i] /= nn, e1[i] = u[i] / nu;
        /* global x when it lies in the plane (plates in the x-y plane keep their axes) */
        if (fabs(nrm[0]) < 1e-9) e1[0] = 1, e1[1] = 0, e1[2] = 0;
        e2[0] = nrm[1] * e1[2] - nrm[2] * e1[1], e2[1] = nrm[2] * e1[0] - nrm[0] * e1[2], e2[2] = nrm[0] * e1[1] - nrm[1] * e1[0];
    }
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int p = 0; p < v.npoint; p++) {
        const double* x = &v.x[3 * p];
        const double s1 = x[0] * e1[0] + x[1] * e1[1] + x[2] * e1[2], s2 = x[0] * e2[0] + x[1] * e2[1] + x[2] * e2[2];
        lo[0] = fmin(lo[0], s1), hi[0] = fmax(hi[0], s1), lo[1] = fmin(lo[1], s2), hi[1] = fmax(hi[1], s2);
    }
    const double size = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    kd_status st = KD_OK;
    for (int k0 = 0; k0 < v.nmode && st == KD_OK; k0 += PANELS_MAX) {
        const int n = v.nmode - k0 < PANELS_MAX ? v.nmode - k0 : PANELS_MAX;
        const int cols = n <= 1 ? 1 : (n <= 4 ? 2 : 3), rows = (n + cols - 1) / cols;
        char data[PANELS_MAX][1400];
        double cmax[PANELS_MAX];
        int bending[PANELS_MAX];
        for (int j = 0; j < n && st == KD_OK; j++) {
            const double* d = v.mode[k0 + j];
            double wmax = 0, pmax = 0;
            for (int p = 0; p < v.npoint; p++) {
                const double* u = &d[3 * p];
                const double dn = u[0] * nrm[0] + u[1] * nrm[1] + u[2] * nrm[2];
                const double d1 = u[0] * e1[0] + u[1] * e1[1] + u[2] * e1[2], d2 = u[0] * e2[0] + u[1] * e2[1] + u[2] * e2[2];
                wmax = fmax(wmax, fabs(dn)), pmax = fmax(pmax, sqrt(d1 * d1 + d2 * d2));
            }
            bending[j] = wmax >= pmax;
            cmax[j] = bending[j] ? wmax : pmax;
            const double scale = (!bending[j] && pmax > 0) ? 0.08 * size / pmax : 0.0;
            FILE* fp = gp_data(g, data[j], (int)sizeof data[j]);
            if (!fp) {
                st = kd_error_set(err, KD_ERR_IO, data[j], KD_LOC_NONE, "cannot write figure data");
                break;
            }
            for (int c = 0; c < v.ncell; c++) {
                if (!is_surface(v.type[c])) continue;
                const int* cn = v.conn + (c ? v.offset[c - 1] : 0);
                const int tri = v.type[c] == 5 || v.type[c] == 22;
                /* corners as two scans: (0, 1) and (3, 2) (a triangle: (2, 2)) */
                const int order[4] = {cn[0], cn[1], tri ? cn[2] : cn[3], cn[2]};
                for (int q = 0; q < 4; q++) {
                    const double* x = &v.x[3 * order[q]];
                    const double* u = &d[3 * order[q]];
                    const double dn = u[0] * nrm[0] + u[1] * nrm[1] + u[2] * nrm[2];
                    const double d1 = u[0] * e1[0] + u[1] * e1[1] + u[2] * e1[2];
                    const double d2 = u[0] * e2[0] + u[1] * e2[1] + u[2] * e2[2];
                    const double s1 = x[0] * e1[0] + x[1] * e1[1] + x[2] * e1[2] + scale * d1;
                    const double s2 = x[0] * e2[0] + x[1] * e2[1] + x[2] * e2[2] + scale * d2;
                    fprintf(fp, "%.7g %.7g 0 %.7g\n", s1, s2, bending[j] ? dn : sqrt(d1 * d1 + d2 * d2));
                    if (q == 1) fputc('\n', fp);
                }
                fputs("\n\n", fp);
            }
            if (fclose(fp)) st = kd_error_set(err, KD_ERR_IO, data[j], KD_LOC_NONE, "cannot write figure data");
        }
        if (st) break;
        char name[160], what[200];
        if (k0 == 0) snprintf(name, sizeof name, "%s_surfaces", stem);
        else snprintf(name, sizeof name, "%s_surfaces_%d", stem, k0 / PANELS_MAX + 1);
        snprintf(what, sizeof what, "mode shapes (%s.vtu, modes %d-%d)", stem, k0 + 1, k0 + n);
        const double aspect = (hi[1] - lo[1]) / fmax(hi[0] - lo[0], 1e-300);
        FILE* fp = gp_begin(g, name, what, "modes", analysis, 330 * cols + 60, (int)(60 + rows * (330 * aspect + 70)));
        if (!fp) break;
        char buf[600];
        snprintf(buf, sizeof buf, "%s%s%s", title, title[0] ? " - " : "", what);
        fprintf(fp, "set multiplot layout %d,%d title ", rows, cols);
        gp_quote(fp, buf);
        fprintf(fp, " font ',11'\nset view map\nset size ratio -1\nunset key\nset tics font ',7'\n"
                    "set xlabel 'x [m]' font ',8'\nset ylabel 'y [m]' font ',8'\nset cbtics font ',7'\n");
        for (int j = 0; j < n; j++) {
            const int k = k0 + j;
            char ttl[160];
            if (k < nfreq) snprintf(ttl, sizeof ttl, "mode %d: %.5g Hz (%s)", k + 1, freq_hz[k], bending[j] ? "normal w" : "in-plane |u|, deformed");
            else snprintf(ttl, sizeof ttl, "mode %d (%s)", k + 1, bending[j] ? "normal w" : "in-plane |u|, deformed");
            fprintf(fp, "set title '%s' font ',9'\n", ttl);
            const double c = cmax[j] > 0 ? cmax[j] : 1;
            if (bending[j]) fprintf(fp, "set palette defined (-1 '#2166ac', 0 '#f7f7f7', 1 '#b2182b')\nset cbrange [%.6g:%.6g]\n", -c, c);
            else fprintf(fp, "set palette defined (0 '#f7f7f7', 1 '#b2182b')\nset cbrange [0:%.6g]\n", c);
            fprintf(fp, "splot ");
            gp_quote(fp, data[j]);
            fprintf(fp, " using 1:2:3:4 with pm3d\n");
        }
        st = gp_end(g, err);
    }
    vtu_free(&v);
    return st;
}
