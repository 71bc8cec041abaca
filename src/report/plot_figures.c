/* The figure builders, one per kind of result (plot_internal.h): mode
 * shapes, Campbell diagram, critical speed map, frequencies along the
 * motion, and generic time histories. Each writes its data to the gnuplot
 * session's temporary directory and the plot commands to a figure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

#define PANELS_MAX 6          /* panels per figure */
#define ENVELOPE_BUCKETS 1000 /* long histories: min and max of each bucket */

static kd_status data_error(gnuplot_script* g, const char* path, kd_error* err) {
    (void)g;
    return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot write plot data");
}

/* The figure title: model title, then what is drawn. */
static void set_title(FILE* fp, const char* title, const char* what, int multiplot, int rows, int cols) {
    char buf[600];
    snprintf(buf, sizeof(buf), "%s%s%s", title, title[0] ? " - " : "", what);
    if (multiplot) {
        fprintf(fp, "set multiplot layout %d,%d title ", rows, cols);
        gp_quote(fp, buf);
        fprintf(fp, " font ',11'\n");
    } else {
        fprintf(fp, "set title ");
        gp_quote(fp, buf);
        fputc('\n', fp);
    }
    fprintf(fp, "set grid lc rgb '#dddddd'\nset key top right box opaque\nset border lw 1\n");
}

/* ---- mode shapes -------------------------------------------------------- */

typedef struct shape_series {
    char label[96];
    char path[1400];          /* curve: s, then mode_1..K, inside the elements */
    char nodes[1400];         /* the nodal values, for markers */
    double* amax;             /* (nmodes) largest |entry| per mode */
} shape_series;

double plot_hermite(double t, double h, double v0, double d0, double c0, double v1, double d1, double c1) {
    const double t2 = t * t, t3 = t2 * t, t4 = t3 * t, t5 = t4 * t;
    if (isnan(d0) || isnan(d1)) return (1 - t) * v0 + t * v1;
    if (isnan(c0) || isnan(c1))
        return (2 * t3 - 3 * t2 + 1) * v0 + (t3 - 2 * t2 + t) * h * d0 + (-2 * t3 + 3 * t2) * v1 + (t3 - t2) * h * d1;
    return (1 - 10 * t3 + 15 * t4 - 6 * t5) * v0 + (t - 6 * t3 + 8 * t4 - 3 * t5) * h * d0 +
           (0.5 * t2 - 1.5 * t3 + 1.5 * t4 - 0.5 * t5) * h * h * c0 + (10 * t3 - 15 * t4 + 6 * t5) * v1 +
           (-4 * t3 + 7 * t4 - 3 * t5) * h * d1 + (0.5 * t3 - t4 + 0.5 * t5) * h * h * c1;
}

/* The DOF names of modes.csv in kedyn's order (kd_dof_name). */
static int dof_index(const char* name) {
    static const char* const names[8] = {"u", "v", "w", "rx", "ry", "rz", "kz", "ky"};
    for (int i = 0; i < 8; i++)
        if (name && strcmp(name, names[i]) == 0) return i;
    return -1;
}

/* One node of a body in modes.csv: position along the body and the row of
 * each DOF (-1 when absent). */
typedef struct shape_node {
    double s;
    int row[8];
} shape_node;

/* The series of one body (rows r0..r1 of t) for translation a (u, v, w):
 * nodal values, and inside each element the Hermite interpolation of the
 * nodal values, slopes and curvatures that the element itself uses (theory.md
 * sec. 5: v' = rz, v'' = kz; w' = -ry, w'' = ky), so the curve is the finite
 * element field of an Euler-Bernoulli or Rayleigh beam. Returns 1 when
 * written, 0 when the body has no such DOF, -1 on a write error. */
static int shape_series_write(gnuplot_script* g, const csv_table* t, const shape_node* nd, int nn, int a, int c1,
                              int nmodes, shape_series* ser) {
    int any = 0;
    for (int i = 0; i < nn; i++) any |= nd[i].row[a] >= 0;
    if (!any) return 0;
    const int slope = a == 1 ? 5 : (a == 2 ? 4 : -1), curv = a == 1 ? 6 : (a == 2 ? 7 : -1);
    const double sign = a == 2 ? -1.0 : 1.0;
    FILE* fn = gp_data(g, ser->nodes, (int)sizeof(ser->nodes));
    FILE* fc = gp_data(g, ser->path, (int)sizeof(ser->path));
    if (!fn || !fc) {
        if (fn) fclose(fn);
        if (fc) fclose(fc);
        return -1;
    }
    /* Points per element on the curve: 8 for up to 100 elements, fewer for
     * more; beyond 1000 nodes, every k-th node only (a figure is about 800
     * pixels wide). Node markers up to 100 nodes. */
    const int nel = nn - 1;
    const int nsub = nel <= 100 ? 8 : (nel <= 250 ? 4 : (nel <= 500 ? 2 : 1));
    const int stride = nn > 1000 ? (nn + 999) / 1000 : 1;
#define CELL(i, d, k) (nd[i].row[d] >= 0 ? t->val[(size_t)nd[i].row[d] * t->ncol + c1 + (k)] : NAN)
    for (int i = 0; i < nn; i++) {
        for (int k = 0; k < nmodes; k++) {
            const double v = CELL(i, a, k);
            if (fabs(v) > ser->amax[k]) ser->amax[k] = fabs(v);
        }
        if (i % stride && i + 1 < nn) continue;
        if (nn <= 101) {
            fprintf(fn, "%.9g", nd[i].s);
            for (int k = 0; k < nmodes; k++) {
                const double v = CELL(i, a, k);
                fprintf(fn, isnan(v) ? " NaN" : " %.9g", v);
            }
            fputc('\n', fn);
        }
        const int sub = i + 1 < nn && stride == 1 ? nsub : 1;
        for (int j = 0; j < sub; j++) {
            const double tt = (double)j / nsub, h = i + 1 < nn ? nd[i + 1].s - nd[i].s : 0.0;
            fprintf(fc, "%.9g", nd[i].s + tt * h);
            for (int k = 0; k < nmodes; k++) {
                double v = CELL(i, a, k);
                if (j > 0) {
                    const double d0 = slope >= 0 ? sign * CELL(i, slope, k) : NAN;
                    const double d1 = slope >= 0 ? sign * CELL(i + 1, slope, k) : NAN;
                    const double k0 = curv >= 0 ? CELL(i, curv, k) : NAN, k1 = curv >= 0 ? CELL(i + 1, curv, k) : NAN;
                    v = plot_hermite(tt, h, v, d0, k0, CELL(i + 1, a, k), d1, k1);
                }
                fprintf(fc, isnan(v) ? " NaN" : " %.9g", v);
            }
            fputc('\n', fc);
        }
    }
#undef CELL
    const int bad = fclose(fn) | fclose(fc);
    return bad ? -1 : 1;
}

kd_status plot_modes(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                        const double* freq_hz, int nfreq, kd_error* err) {
    const int cb = csv_col(t, "body"), cn = csv_col(t, "node"), cd = csv_col(t, "dof");
    const int cx = csv_col(t, "x"), c1 = csv_col(t, "mode_1");
    if (cb < 0 || cn < 0 || cd < 0 || cx < 0 || c1 < 0) {
        plot_note(g->res, "%s.csv: not in the modes.csv format; no mode shapes drawn", stem);
        return KD_OK;
    }
    const int nmodes = t->ncol - c1;
    static const char* const trans[3] = {"u", "v", "w"};
    const size_t nr = (size_t)(t->nrow ? t->nrow : 1);
    shape_series* ser = calloc(3 * nr, sizeof(*ser));
    double* amax_all = calloc(3 * nr * (size_t)nmodes, sizeof(double));
    shape_node* nd = malloc(sizeof(*nd) * nr);
    if (!ser || !amax_all || !nd) {
        free(ser), free(amax_all), free(nd);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    int nser = 0;
    kd_status st = KD_OK;
    /* Body by body (consecutive rows of one body), node by node. */
    for (int r0 = 0; r0 < t->nrow && st == KD_OK;) {
        const char* body = t->text[(size_t)r0 * t->ncol + cb];
        int r1 = r0 + 1;
        while (r1 < t->nrow && body && t->text[(size_t)r1 * t->ncol + cb] &&
               strcmp(t->text[(size_t)r1 * t->ncol + cb], body) == 0)
            r1++;
        int nn = 0;
        double prev[3] = {0, 0, 0};
        for (int r = r0; r < r1; r++) {
            const double* v = t->val + (size_t)r * t->ncol;
            /* a new node where the node number changes */
            if (nn == 0 || v[cn] != t->val[(size_t)(r - 1) * t->ncol + cn]) {
                shape_node* n = &nd[nn];
                n->s = nn == 0 ? 0.0
                               : nd[nn - 1].s + sqrt((v[cx] - prev[0]) * (v[cx] - prev[0]) +
                                                     (v[cx + 1] - prev[1]) * (v[cx + 1] - prev[1]) +
                                                     (v[cx + 2] - prev[2]) * (v[cx + 2] - prev[2]));
                memcpy(prev, v + cx, sizeof(prev));
                for (int d = 0; d < 8; d++) n->row[d] = -1;
                nn++;
            }
            const int d = dof_index(t->text[(size_t)r * t->ncol + cd]);
            if (d >= 0) nd[nn - 1].row[d] = r;
        }
        for (int a = 0; a < 3 && body; a++) {
            shape_series* s = &ser[nser];
            s->amax = amax_all + (size_t)nser * nmodes;
            const int w = shape_series_write(g, t, nd, nn, a, c1, nmodes, s);
            if (w < 0) st = data_error(g, s->path, err);
            if (w > 0) snprintf(s->label, sizeof(s->label), "%s %s", body, trans[a]), nser++;
        }
        r0 = r1;
    }
    free(nd);
    /* Figures of up to PANELS_MAX modes: each panel shows every series that
     * carries at least 1e-3 of the mode's largest entry. */
    for (int k0 = 0; k0 < nmodes && st == KD_OK; k0 += PANELS_MAX) {
        const int n = nmodes - k0 < PANELS_MAX ? nmodes - k0 : PANELS_MAX;
        const int cols = n <= 3 ? 1 : 2, rows = (n + cols - 1) / cols;
        char name[160], what[160];
        if (k0 == 0) snprintf(name, sizeof(name), "%s_shapes", stem);
        else snprintf(name, sizeof(name), "%s_shapes_%d", stem, k0 / PANELS_MAX + 1);
        snprintf(what, sizeof(what), "mode shapes (%s.csv, modes %d-%d)", stem, k0 + 1, k0 + n);
        FILE* fp = gp_begin(g, name, what, "modes", analysis, cols == 1 ? 800 : 1000, 60 + 230 * rows);
        if (!fp) break;
        set_title(fp, title, what, 1, rows, cols);
        fprintf(fp, "set xlabel 's along the body [m]'\nset ylabel 'mode shape (modes.csv)'\nset key font ',8'\n");
        for (int k = k0; k < k0 + n; k++) {
            double big = 0;
            for (int i = 0; i < nser; i++) big = ser[i].amax[k] > big ? ser[i].amax[k] : big;
            if (k < nfreq) fprintf(fp, "set title 'mode %d: %.5g Hz'\n", k + 1, freq_hz[k]);
            else fprintf(fp, "set title 'mode %d'\n", k + 1);
            fprintf(fp, "plot 0 with lines lc rgb '#999999' dt 2 notitle");
            for (int i = 0; i < nser; i++) {
                if (big > 0 && ser[i].amax[k] < 1e-3 * big) continue;
                fprintf(fp, ", ");
                gp_quote(fp, ser[i].path);
                fprintf(fp, " using 1:%d with lines lw 2 lc %d title ", k + 2, i + 1);
                gp_quote(fp, ser[i].label);
                fprintf(fp, ", ");
                gp_quote(fp, ser[i].nodes);
                fprintf(fp, " using 1:%d with points pt 7 ps 0.6 lc %d notitle", k + 2, i + 1);
            }
            fputc('\n', fp);
        }
        st = gp_end(g, err);
    }
    free(ser);
    free(amax_all);
    return st;
}

/* ---- Campbell diagram --------------------------------------------------- */

/* Copy the numeric table to a data file (NaN for missing cells). */
static kd_status write_table(gnuplot_script* g, const csv_table* t, char* path, int n, kd_error* err) {
    FILE* fp = gp_data(g, path, n);
    if (!fp) return data_error(g, path, err);
    for (int r = 0; r < t->nrow; r++) {
        for (int j = 0; j < t->ncol; j++) {
            const double v = t->val[(size_t)r * t->ncol + j];
            if (isnan(v)) fprintf(fp, "%sNaN", j ? " " : "");
            else fprintf(fp, j ? " %.10g" : "%.10g", v);
        }
        fputc('\n', fp);
    }
    return fclose(fp) ? data_error(g, path, err) : KD_OK;
}

kd_status plot_campbell(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                           kd_error* err) {
    const int cs = csv_col(t, "speed_rad_s"), cu = csv_col(t, "unstable");
    if (cs != 0 || t->ncol < 2) {
        plot_note(g->res, "%s.csv: not in the campbell.csv format; no Campbell diagram drawn", stem);
        return KD_OK;
    }
    char path[1400];
    kd_status st = write_table(g, t, path, (int)sizeof(path), err);
    if (st) return st;
    char what[160];
    snprintf(what, sizeof(what), "Campbell diagram (%s.csv)", stem);
    FILE* fp = gp_begin(g, stem, what, "campbell", analysis, 900, 600);
    if (!fp) return KD_OK;
    set_title(fp, title, what, 0, 1, 1);
    fprintf(fp, "set xlabel 'spin speed Omega [rad/s]'\nset ylabel 'natural frequency omega [rad/s]'\n"
                "set yrange [0:*]\nset key outside right top\n");
    /* The lines omega = n Omega: their crossings are resonances. */
    fprintf(fp, "plot x with lines lc rgb '#888888' dt 2 title '1 x Omega', 2*x with lines lc rgb '#bbbbbb' dt 3 "
                "title '2 x Omega'");
    for (int j = 1; j < t->ncol; j++) {
        if (j == cu) continue;
        fprintf(fp, ", ");
        gp_quote(fp, path);
        fprintf(fp, " using 1:%d with linespoints pt 7 ps 0.7 lw 2 title ", j + 1);
        gp_quote(fp, t->name[j]);
    }
    if (cu > 0) {
        int any = 0;
        for (int r = 0; r < t->nrow; r++) any |= t->val[(size_t)r * t->ncol + cu] == 1.0;
        if (any) {
            fprintf(fp, ", ");
            gp_quote(fp, path);
            fprintf(fp, " using 1:($%d == 1 ? 0 : 1/0) with points pt 2 ps 2 lw 2 lc rgb 'red' title 'unstable'",
                    cu + 1);
        }
    }
    fputc('\n', fp);
    return gp_end(g, err);
}

/* ---- critical speed map ------------------------------------------------- */

static int count_distinct(const csv_table* t, int col, double* out) {
    int n = 0;
    for (int r = 0; r < t->nrow; r++) {
        const double v = t->val[(size_t)r * t->ncol + col];
        int seen = 0;
        for (int i = 0; i < n && !seen; i++) seen = out[i] == v;
        if (!seen) out[n++] = v;
    }
    return n;
}

kd_status plot_stability(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                            double omega_max, kd_error* err) {
    const int ch = csv_col(t, "hub_m"), cl = csv_col(t, "length_m"), cw = csv_col(t, "omega_cr_rad_s");
    const int ct = csv_col(t, "thickness_m");  /* a plate's thickness axis (theory.md sec. 14.8), or -1 */
    if (ch < 0 || cl < 0 || cw < 0 || t->nrow == 0) {
        plot_note(g->res, "%s.csv: not in the stability.csv format; no critical speed map drawn", stem);
        return KD_OK;
    }
    double* hubs = malloc(sizeof(double) * (size_t)t->nrow * 5);
    if (!hubs) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    double *lens = hubs + t->nrow, *ths = lens + t->nrow, *gkey = ths + t->nrow;  /* gkey: 2 per group */
    const int nh = count_distinct(t, ch, hubs), nl = count_distinct(t, cl, lens), nt = ct >= 0 ? count_distinct(t, ct, ths) : 0;
    /* x: the parameter with the most values; one curve per value of the others (pairs with a
     * thickness axis) */
    const int by_length = nl >= nh, by_thick = nt > (by_length ? nl : nh);
    const int cx = by_thick ? ct : by_length ? cl : ch, cg = by_thick ? ch : by_length ? ch : cl;
    const int cg2 = ct < 0 ? -1 : by_thick ? cl : ct;
    const char* gname = by_length || by_thick ? "hub" : "length";
    const char* gname2 = by_thick ? "length" : "t";
    int ngroups = 0;
    for (int r = 0; r < t->nrow; r++) {
        const double* v = t->val + (size_t)r * t->ncol;
        const double k2 = cg2 >= 0 ? v[cg2] : 0.0;
        int seen = 0;
        for (int i = 0; i < ngroups && !seen; i++) seen = gkey[2 * i] == v[cg] && gkey[2 * i + 1] == k2;
        if (!seen) gkey[2 * ngroups] = v[cg], gkey[2 * ngroups + 1] = k2, ngroups++;
    }
    char path[1400];
    FILE* dp = gp_data(g, path, (int)sizeof(path));
    if (!dp) return free(hubs), data_error(g, path, err);
    /* Column 3: omega_max where stable up to it (drawn as a triangle). */
    int finite = 0;
    char* stable = calloc((size_t)ngroups, 1);  /* per group: some cell stable up to omega_max */
    if (!stable) return free(hubs), fclose(dp), kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int i = 0; i < ngroups; i++) {
        for (int r = 0; r < t->nrow; r++) {
            const double* v = t->val + (size_t)r * t->ncol;
            if (v[cg] != gkey[2 * i] || (cg2 >= 0 && v[cg2] != gkey[2 * i + 1])) continue;
            if (isnan(v[cw])) fprintf(dp, "%.10g NaN %.10g\n", v[cx], omega_max), stable[i] = 1;
            else fprintf(dp, "%.10g %.10g NaN\n", v[cx], v[cw]), finite++;
        }
        fprintf(dp, "\n\n");  /* gnuplot: next data set (index) */
    }
    if (fclose(dp)) return free(hubs), free(stable), data_error(g, path, err);
    char what[160];
    snprintf(what, sizeof(what), "critical speed (%s.csv)", stem);
    FILE* fp = gp_begin(g, stem, what, "stability", analysis, 900, 600);
    kd_status st = KD_OK;
    if (fp) {
        set_title(fp, title, what, 0, 1, 1);
        fprintf(fp, "set xlabel '%s'\nset ylabel 'critical speed [rad/s]'\nset offsets graph 0.03, graph 0.03\n",
                by_thick ? "plate thickness [m]" : by_length ? "beam length [m]" : "hub distance [m]");
        if (omega_max > 0) fprintf(fp, "set yrange [0:%.10g]\n", 1.08 * omega_max);
        else fprintf(fp, "set yrange [0:*]\n");
        if (!finite && !(omega_max > 0))
            fprintf(fp, "set label 1 'stable everywhere' at graph 0.5,0.5 center\nset yrange [0:1]\n");
        fprintf(fp, "set key outside right top\nplot ");
        for (int i = 0; i < ngroups; i++) {
            fprintf(fp, "%s", i ? ", " : "");
            gp_quote(fp, path);
            fprintf(fp, " index %d using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc %d title '%s = %g m", i, i + 1, gname,
                    gkey[2 * i]);
            if (cg2 >= 0) fprintf(fp, ", %s = %g m", gname2, gkey[2 * i + 1]);
            fprintf(fp, "'");
            if (stable[i] && omega_max > 0) {
                fprintf(fp, ", ");
                gp_quote(fp, path);
                fprintf(fp, " index %d using 1:3 with points pt 9 ps 1.5 lc %d title '  stable up to %g rad/s'", i,
                        i + 1, omega_max);
            }
        }
        fputc('\n', fp);
        st = gp_end(g, err);
    }
    free(hubs);
    free(stable);
    return st;
}

/* ---- time histories ----------------------------------------------------- */

/* A unit for a column from the last part of its name (kedyn's own names). */
static const char* unit_of(const char* name) {
    const char* s = strrchr(name, '.');
    s = s ? s + 1 : name;
    static const char* const tab[][2] = {
        {"u", "m"},     {"v", "m"},      {"w", "m"},   {"rx", "rad"}, {"ry", "rad"}, {"rz", "rad"},
        {"kz", "1/m"},  {"ky", "1/m"},   {"x", "m"},   {"y", "m"},    {"z", "m"},    {"phi", "rad"},
        {"Fx", "N"},    {"Fy", "N"},     {"Fz", "N"},  {"M", "N m"},  {"Mz", "N m"}, {"sigma", "Pa"},
        {"sigma_max", "Pa"},
    };
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strcmp(s, tab[i][0]) == 0) return tab[i][1];
    if (strncmp(s, "omega", 5) == 0) return "rad/s";
    if (strncmp(s, "E_", 2) == 0 || strncmp(s, "W_", 2) == 0) return "J";
    return NULL;
}

/* The group of a column: its name up to the last '.', "" without one. */
static int group_len(const char* name) {
    const char* s = strrchr(name, '.');
    return s ? (int)(s - name) : 0;
}

/* A shell link's largest stress (BODY.sigma_max, docs/model-format.md): one figure of all links'. */
static int is_sigma_max(const char* name) {
    const char* s = strrchr(name, '.');
    return s && strcmp(s, ".sigma_max") == 0;
}

/* One column against t, with long histories reduced to the minimum and
 * maximum of each of ENVELOPE_BUCKETS buckets, in time order (the envelope
 * and every peak survive). */
static kd_status write_column(gnuplot_script* g, const csv_table* t, int col, char* path, int n, kd_error* err) {
    FILE* fp = gp_data(g, path, n);
    if (!fp) return data_error(g, path, err);
    const int nrow = t->nrow;
    const int bucket = nrow > 4 * ENVELOPE_BUCKETS ? (nrow + ENVELOPE_BUCKETS - 1) / ENVELOPE_BUCKETS : 1;
    for (int r0 = 0; r0 < nrow; r0 += bucket) {
        const int r1 = r0 + bucket < nrow ? r0 + bucket : nrow;
        int imin = -1, imax = -1;
        for (int r = r0; r < r1; r++) {
            const double v = t->val[(size_t)r * t->ncol + col];
            if (isnan(v)) continue;
            if (imin < 0 || v < t->val[(size_t)imin * t->ncol + col]) imin = r;
            if (imax < 0 || v > t->val[(size_t)imax * t->ncol + col]) imax = r;
        }
        if (imin < 0) {
            fprintf(fp, "%.10g NaN\n", t->val[(size_t)r0 * t->ncol]);
            continue;
        }
        const int a = imin < imax ? imin : imax, b = imin < imax ? imax : imin;
        fprintf(fp, "%.10g %.10g\n", t->val[(size_t)a * t->ncol], t->val[(size_t)a * t->ncol + col]);
        if (b != a) fprintf(fp, "%.10g %.10g\n", t->val[(size_t)b * t->ncol], t->val[(size_t)b * t->ncol + col]);
    }
    return fclose(fp) ? data_error(g, path, err) : KD_OK;
}

/* A figure of stacked panels, one per column in cols (n <= PANELS_MAX). */
static kd_status history_figure(gnuplot_script* g, const csv_table* t, const int* cols, int n, const char* title,
                                const char* name, const char* what, const char* type, int analysis, kd_error* err) {
    char paths[PANELS_MAX][1400];
    for (int i = 0; i < n; i++) {
        const kd_status st = write_column(g, t, cols[i], paths[i], (int)sizeof(paths[i]), err);
        if (st) return st;
    }
    FILE* fp = gp_begin(g, name, what, type, analysis, 900, 80 + 170 * n);
    if (!fp) return KD_OK;
    set_title(fp, title, what, 1, n, 1);
    fprintf(fp, "set key off\nset format y '%%.3g'\nset lmargin 14\n");
    for (int i = 0; i < n; i++) {
        const char* u = unit_of(t->name[cols[i]]);
        char ylabel[160];
        snprintf(ylabel, sizeof(ylabel), "%s%s%s%s", t->name[cols[i]], u ? " [" : "", u ? u : "", u ? "]" : "");
        fprintf(fp, "set ylabel ");
        gp_quote(fp, ylabel);
        fprintf(fp, "\n%s\nplot ", i + 1 == n ? "set xlabel 't [s]'" : "unset xlabel");
        gp_quote(fp, paths[i]);
        fprintf(fp, " using 1:2 with lines lw 1.5 lc %d\n", i + 1);
    }
    return gp_end(g, err);
}

kd_status plot_history(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, const char* type,
                          int analysis, kd_error* err) {
    int* cols = malloc(sizeof(int) * (size_t)(t->ncol ? t->ncol : 1));
    char* done = calloc((size_t)(t->ncol ? t->ncol : 1), 1);
    if (!cols || !done) {
        free(cols), free(done);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_status st = KD_OK;
    /* Groups in order of first appearance: same name up to the last '.'. */
    for (int j = 1; j < t->ncol && st == KD_OK; j++) {
        if (done[j]) continue;
        const int gl = group_len(t->name[j]), sm = is_sigma_max(t->name[j]);
        int n = 0;
        for (int k = j; k < t->ncol; k++)
            if (!done[k] && (sm ? is_sigma_max(t->name[k])
                                : !is_sigma_max(t->name[k]) && group_len(t->name[k]) == gl &&
                                      strncmp(t->name[k], t->name[j], (size_t)gl) == 0))
                cols[n++] = k, done[k] = 1;
        char group[128];
        if (sm) snprintf(group, sizeof(group), "sigma_max");
        else if (gl) snprintf(group, sizeof(group), "%.*s", gl, t->name[j]);
        else snprintf(group, sizeof(group), "%s", strncmp(t->name[j], "E_", 2) == 0 ? "energy" : "other");
        for (int c0 = 0; c0 < n && st == KD_OK; c0 += PANELS_MAX) {
            const int m = n - c0 < PANELS_MAX ? n - c0 : PANELS_MAX;
            char name[300], what[300];
            if (c0 == 0) snprintf(name, sizeof(name), "%s_%s", stem, group);
            else snprintf(name, sizeof(name), "%s_%s_%d", stem, group, c0 / PANELS_MAX + 1);
            snprintf(what, sizeof(what), "%s.csv: %s", stem, group);
            st = history_figure(g, t, cols + c0, m, title, name, what, type, analysis, err);
        }
    }
    free(cols);
    free(done);
    return st;
}

/* ---- frequencies along the motion --------------------------------------- */

kd_status plot_along_motion(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                               kd_error* err) {
    /* One figure per body (link): its frequencies against t, and below each one's change
     * relative to its mean over the cycle, in percent (a variation of a few percent is flat
     * on the common scale of frequencies spanning a decade). */
    char* done = calloc((size_t)(t->ncol ? t->ncol : 1), 1);
    if (!done) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = KD_OK;
    for (int j = 1; j < t->ncol && st == KD_OK; j++) {
        if (done[j]) continue;
        const int gl = group_len(t->name[j]);
        char path[1400];
        st = write_table(g, t, path, (int)sizeof(path), err);
        if (st) break;
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_%.*s", stem, gl ? gl : 5, gl ? t->name[j] : "other");
        snprintf(what, sizeof(what), "%.*s: frequencies along the motion (%s.csv)", gl ? gl : 5,
                 gl ? t->name[j] : "other", stem);
        FILE* fp = gp_begin(g, name, what, "modes_along_motion", analysis, 900, 800);
        if (!fp) break;
        set_title(fp, strlen(title) + strlen(what) > 100 ? "" : title, what, 1, 2, 1);
        for (int panel = 0; panel < 2; panel++) {
            fprintf(fp, "set xlabel '%s'\nset ylabel '%s'\n%s\nplot ", panel ? "t [s] (position in the cycle)" : "",
                    panel ? "omega / mean - 1 [%]" : "omega [rad/s]", panel ? "set yrange [*:*]" : "set yrange [0:*]");
            int first = 1;
            for (int k = j; k < t->ncol; k++) {
                if (group_len(t->name[k]) != gl || strncmp(t->name[k], t->name[j], (size_t)gl) != 0) continue;
                if (panel == 0 && done[k]) continue;
                if (panel == 1 && !done[k]) continue;
                done[k] = 1;
                double mean = 0.0;
                int n = 0;
                for (int r = 0; r < t->nrow; r++) {
                    const double v = t->val[(size_t)r * t->ncol + k];
                    if (isfinite(v)) mean += v, n++;
                }
                mean = n ? mean / n : 0.0;
                fprintf(fp, "%s", first ? "" : ", ");
                first = 0;
                gp_quote(fp, path);
                if (panel == 0 || !(mean > 0)) fprintf(fp, " using 1:%d with lines lw 2 lc %d title ", k + 1, k - j + 1);
                else fprintf(fp, " using 1:(100*($%d/%.12g - 1)) with lines lw 2 lc %d title ", k + 1, mean, k - j + 1);
                gp_quote(fp, t->name[k] + (gl ? gl + 1 : 0));
            }
            fputc('\n', fp);
        }
        fprintf(fp, "unset multiplot\n");
        st = gp_end(g, err);
    }
    free(done);
    return st;
}
