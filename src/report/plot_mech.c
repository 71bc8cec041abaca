/* Figures of mechanism analyses (plot_internal.h), from the columns that
 * src/run/run_mechanism.c writes (docs/model-format.md, "Mechanisms"):
 * kinematics.csv: positions, velocities and accelerations of every body
 * (one figure each, one curve per body), trajectories of the named points
 * (x-y, equal axes) and the condition number of Phi_q; inverse_dynamics.csv:
 * the reaction of each joint (Fx, Fy, |F|, and its moment when it carries
 * one), the driving torques or forces by both routes, and the power
 * balance; dynamics.csv of a mechanism: positions, the energy balance and
 * the constraint drift. A file in another layout is left to the generic
 * time histories. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

#define CURVES_MAX 24
#define MPANELS_MAX 6
#define ROWS_DRAWN 4000       /* longer tables: every k-th row */
#define KD_POINTS_MAX_PLOT 32 /* named points of one body drawn at t = 0 */

typedef struct curve {
    char using[256];          /* gnuplot `using` of the table */
    char label[256];
    int style;                /* 0 line, 1 dashed, 2 points */
    const char* file;         /* its own data file, or NULL: the table */
} curve;

typedef struct panel {
    char ylabel[96];
    char xlabel[64];          /* "" = t [s] */
    int log;                  /* logarithmic y (values <= 0 are left out) */
    int equal;                /* x-y plot with equal axes */
    int n;
    curve c[CURVES_MAX];
} panel;

/* The table as a gnuplot data file: column j of the CSV is column j + 1. */
static kd_status table_file(gnuplot_script* g, const csv_table* t, char* path, int n, kd_error* err) {
    FILE* fp = gp_data(g, path, n);
    if (!fp) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot write plot data");
    const int stride = t->nrow > ROWS_DRAWN ? (t->nrow + ROWS_DRAWN / 2 - 1) / (ROWS_DRAWN / 2) : 1;
    for (int r = 0; r < t->nrow; r++) {
        if (r % stride && r + 1 < t->nrow) continue;
        for (int j = 0; j < t->ncol; j++) {
            const double v = t->val[(size_t)r * t->ncol + j];
            if (j) fputc(' ', fp);
            if (isnan(v)) fprintf(fp, "NaN");
            else fprintf(fp, "%.10g", v);
        }
        fputc('\n', fp);
    }
    return fclose(fp) ? kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot write plot data") : KD_OK;
}

static void add_curve(panel* p, const char* using, const char* label, int style) {
    if (p->n >= CURVES_MAX) return;
    snprintf(p->c[p->n].using, sizeof(p->c[0].using), "%s", using);
    snprintf(p->c[p->n].label, sizeof(p->c[0].label), "%s", label);
    p->c[p->n++].style = style;
}

/* A column against t as a curve, when the column exists. */
static int add_column(panel* p, const csv_table* t, const char* col, const char* label, int style) {
    const int j = csv_col(t, col);
    if (j < 0) return 0;
    char u[32];
    snprintf(u, sizeof(u), "1:%d", j + 1);
    add_curve(p, u, label, style);
    return 1;
}

/* Largest |value| of a column (0 when absent). */
static double col_max(const csv_table* t, int j) {
    double m = 0;
    for (int r = 0; j >= 0 && r < t->nrow; r++) {
        const double v = fabs(t->val[(size_t)r * t->ncol + j]);
        if (v > m) m = v;
    }
    return m;
}

/* A figure of stacked panels over one data file. */
static kd_status panels_figure(gnuplot_script* g, const char* data, const char* title, const char* name, const char* what,
                               const char* type, int analysis, const panel* p, int n, int width, kd_error* err) {
    int any = 0;
    for (int i = 0; i < n; i++) any |= p[i].n > 0;
    if (!any) return KD_OK;
    const int height = n == 1 && p[0].equal ? 700 : 80 + 200 * n;
    FILE* fp = gp_begin(g, name, what, type, analysis, width, height);
    if (!fp) return KD_OK;
    char buf[600];
    /* the model title too when both fit on the line */
    if (strlen(title) + strlen(what) + 3 <= (size_t)width / 8) snprintf(buf, sizeof(buf), "%s%s%s", title, title[0] ? " - " : "", what);
    else snprintf(buf, sizeof(buf), "%s", what);
    fprintf(fp, "set multiplot layout %d,1 title ", n);
    gp_quote(fp, buf);
    fprintf(fp, " font ',11'\nset grid lc rgb '#dddddd'\nset border lw 1\nset format y '%%.3g'\nset lmargin 14\n"
                "set key outside right top font ',8'\nset rmargin 22\nset autoscale xfix\n");
    for (int i = 0; i < n; i++) {
        if (!p[i].n) continue;
        fprintf(fp, "set ylabel ");
        gp_quote(fp, p[i].ylabel);
        fprintf(fp, "\nset xlabel ");
        gp_quote(fp, p[i].xlabel[0] ? p[i].xlabel : (i + 1 == n ? "t [s]" : ""));
        fprintf(fp, "\n%s\n%s\n", p[i].log ? "set logscale y\nset format y '%.0e'" : "unset logscale y",
                p[i].equal ? "set size ratio -1\nset offsets graph 0.04, graph 0.04, graph 0.04, graph 0.04"
                           : "set size noratio\nset offsets 0, 0, 0, 0");
        fprintf(fp, "plot ");
        for (int k = 0; k < p[i].n; k++) {
            const curve* c = &p[i].c[k];
            fprintf(fp, "%s", k ? ", " : "");
            gp_quote(fp, c->file ? c->file : data);
            fprintf(fp, " using %s", c->using);
            if (c->style == 2) fprintf(fp, " with points pt 6 ps 0.6 lc %d title ", k / 2 + 1);
            else if (c->style == 3) fprintf(fp, " with linespoints lw 3 pt 7 ps 0.8 lc rgb '#999999' title ");
            else if (c->style == 4) fprintf(fp, " with points pt 9 ps 2 lc rgb '#444444' title ");
            else fprintf(fp, " with lines lw 2 dt %d lc %d title ", c->style ? 2 : 1, p[i].n > 1 ? k + 1 : i + 1);
            gp_quote(fp, c->label);
        }
        fputc('\n', fp);
        if (p[i].log) fprintf(fp, "set format y '%%.3g'\n");
    }
    return gp_end(g, err);
}

/* Body names: every B with B.x, B.y and B.phi columns (in column order). */
static int body_names(const csv_table* t, char names[][128], int max) {
    int n = 0;
    for (int j = 1; j < t->ncol && n < max; j++) {
        const size_t l = strlen(t->name[j]);
        if (l < 3 || strcmp(t->name[j] + l - 2, ".x") != 0) continue;
        char b[128], col[160];
        snprintf(b, sizeof(b), "%.*s", (int)(l - 2), t->name[j]);
        if (strchr(b, '.')) continue;  /* BODY.POINT.x: a named point */
        snprintf(col, sizeof(col), "%s.phi", b);
        if (csv_col(t, col) < 0) continue;
        snprintf(names[n++], 128, "%s", b);
    }
    return n;
}

/* One figure of three panels (x, y, angle, or their rates) with a curve per body. */
static kd_status body_figure(gnuplot_script* g, const csv_table* t, const char* data, const char* title, const char* stem,
                             const char* type, int analysis, char names[][128], int nb, const char* const q[3],
                             const char* const ylab[3], const char* suffix, const char* what_kind, kd_error* err) {
    panel* p = calloc(3, sizeof(panel));
    if (!p) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int k = 0; k < 3; k++) {
        snprintf(p[k].ylabel, sizeof(p[k].ylabel), "%s", ylab[k]);
        for (int b = 0; b < nb; b++) {
            char col[160];
            snprintf(col, sizeof(col), "%s.%s", names[b], q[k]);
            add_column(&p[k], t, col, names[b], 0);
        }
    }
    char name[300], what[300];
    snprintf(name, sizeof(name), "%s_%s", stem, suffix);
    snprintf(what, sizeof(what), "%s.csv: %s of the bodies' centres of mass", stem, what_kind);
    const kd_status st = panels_figure(g, data, title, name, what, type, analysis, p, 3, 1000, err);
    free(p);
    return st;
}

/* Each body's named points at the first row, as one polyline per body (a
 * closed polygon ordered about its centroid for three or more points). */
static kd_status mechanism_at_start(gnuplot_script* g, const csv_table* t, char names[][128], int nb, char* path, int n,
                                    kd_error* err) {
    FILE* fp = gp_data(g, path, n);
    if (!fp) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot write plot data");
    for (int b = 0; b < nb; b++) {
        double x[KD_POINTS_MAX_PLOT], y[KD_POINTS_MAX_PLOT], key[KD_POINTS_MAX_PLOT];
        int np = 0;
        const size_t lb = strlen(names[b]);
        for (int j = 1; j < t->ncol && np < KD_POINTS_MAX_PLOT; j++) {
            const char* c = t->name[j];
            const size_t l = strlen(c);
            if (l <= lb + 3 || strncmp(c, names[b], lb) != 0 || c[lb] != '.' || strcmp(c + l - 2, ".x") != 0 ||
                memchr(c + lb + 1, '.', l - lb - 3))
                continue;
            char col[300];
            snprintf(col, sizeof(col), "%.*s.y", (int)(l - 2), c);
            const int jy = csv_col(t, col);
            if (jy < 0) continue;
            x[np] = t->val[j], y[np++] = t->val[jy];
        }
        if (np < 2) continue;
        double cx = 0, cy = 0;
        for (int i = 0; i < np; i++) cx += x[i] / np, cy += y[i] / np;
        for (int i = 0; i < np; i++) key[i] = atan2(y[i] - cy, x[i] - cx);
        for (int i = 1; np > 2 && i < np; i++)
            for (int k = i; k > 0 && key[k] < key[k - 1]; k--) {
                double tmp = key[k]; key[k] = key[k - 1]; key[k - 1] = tmp;
                tmp = x[k]; x[k] = x[k - 1]; x[k - 1] = tmp;
                tmp = y[k]; y[k] = y[k - 1]; y[k - 1] = tmp;
            }
        for (int i = 0; i <= np; i++) {
            if (i == np && np < 3) break;
            fprintf(fp, "%.10g %.10g\n", x[i % np], y[i % np]);
        }
        fprintf(fp, "\n");
    }
    return fclose(fp) ? kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot write plot data") : KD_OK;
}

static kd_status plot_kinematics(gnuplot_script* g, const csv_table* t, const char* data, const char* title, const char* stem,
                                 const char* type, int analysis, char names[][128], int nb, kd_error* err) {
    static const char* const pos[3] = {"x", "y", "phi"}, *vel[3] = {"vx", "vy", "omega"},
                             *acc[3] = {"ax", "ay", "alpha"};
    static const char* const lpos[3] = {"x [m]", "y [m]", "phi [rad]"},
                             *lvel[3] = {"vx [m/s]", "vy [m/s]", "omega [rad/s]"},
                             *lacc[3] = {"ax [m/s^2]", "ay [m/s^2]", "alpha [rad/s^2]"};
    kd_status st = body_figure(g, t, data, title, stem, type, analysis, names, nb, pos, lpos, "positions",
                               "positions and angles", err);
    if (!st && csv_col(t, "cond") >= 0 && csv_col(t, "cond") >= 0) {
        char col[160];
        snprintf(col, sizeof(col), "%s.vx", names[0]);
        if (csv_col(t, col) >= 0)
            st = body_figure(g, t, data, title, stem, type, analysis, names, nb, vel, lvel, "velocities",
                             "velocities and angular velocities", err);
        snprintf(col, sizeof(col), "%s.ax", names[0]);
        if (!st && csv_col(t, col) >= 0)
            st = body_figure(g, t, data, title, stem, type, analysis, names, nb, acc, lacc, "accelerations",
                             "accelerations and angular accelerations", err);
    }
    /* trajectories of the named points: BODY.POINT.x with BODY.POINT.y */
    panel* p = calloc(1, sizeof(panel));
    if (!p) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    snprintf(p->ylabel, sizeof(p->ylabel), "y [m]");
    snprintf(p->xlabel, sizeof(p->xlabel), "x [m]");
    p->equal = 1;
    double scale = 0;  /* the largest coordinate of a point: what "fixed" and "the same" are relative to */
    for (int j = 1; j < t->ncol; j++) {
        const size_t l = strlen(t->name[j]);
        if (l > 2 && (strcmp(t->name[j] + l - 2, ".x") == 0 || strcmp(t->name[j] + l - 2, ".y") == 0))
            scale = fmax(scale, col_max(t, j));
    }
    double fixed[64][2];
    int nfixed = 0;
    for (int j = 1; j < t->ncol && !st; j++) {
        const size_t l = strlen(t->name[j]);
        if (l < 3 || strcmp(t->name[j] + l - 2, ".x") != 0) continue;
        char pt[128], col[160];
        snprintf(pt, sizeof(pt), "%.*s", (int)(l - 2), t->name[j]);
        if (!strchr(pt, '.')) continue;  /* bodies have BODY.x */
        snprintf(col, sizeof(col), "%s.y", pt);
        const int jy = csv_col(t, col);
        if (jy < 0) continue;
        /* a fixed point has no trajectory; a point met before (a joint's
         * point on its second body) adds its name to the first curve */
        double moved = 0;
        for (int r = 0; r < t->nrow; r++) {
            const double* v = t->val + (size_t)r * t->ncol;
            moved = fmax(moved, hypot(v[j] - t->val[j], v[jy] - t->val[jy]));
        }
        if (!(moved > 1e-9 * scale)) {
            if (nfixed < 64) fixed[nfixed][0] = t->val[j], fixed[nfixed++][1] = t->val[jy];
            continue;
        }
        int same = -1;
        for (int k = 0; k < p->n && same < 0; k++) {
            int a = 0, b = 0, r;
            sscanf(p->c[k].using, "%d:%d", &a, &b);
            for (r = 0; r < t->nrow; r++) {
                const double* v = t->val + (size_t)r * t->ncol;
                if (hypot(v[a - 1] - v[j], v[b - 1] - v[jy]) > 1e-9 * scale) break;
            }
            if (r == t->nrow) same = k;
        }
        if (same >= 0) {
            const size_t l0 = strlen(p->c[same].label);
            snprintf(p->c[same].label + l0, sizeof(p->c[0].label) - l0, " = %s", pt);
            continue;
        }
        char u[32];
        snprintf(u, sizeof(u), "%d:%d", j + 1, jy + 1);
        add_curve(p, u, pt, 0);
    }
    /* the mechanism at t = 0 under its trajectories: each body through its
     * named points, and the fixed points */
    char at0[1400], fix0[1400];
    if (!st && p->n) st = mechanism_at_start(g, t, names, nb, at0, (int)sizeof(at0), err);
    if (!st && p->n) {
        add_curve(p, "1:2", "bodies at t = 0", 3);
        p->c[p->n - 1].file = at0;
        FILE* ff = nfixed ? gp_data(g, fix0, (int)sizeof(fix0)) : NULL;
        for (int i = 0; ff && i < nfixed; i++) fprintf(ff, "%.10g %.10g\n", fixed[i][0], fixed[i][1]);
        if (ff && fclose(ff) == 0) {
            add_curve(p, "1:2", "fixed points", 4);
            p->c[p->n - 1].file = fix0;
        }
    }
    if (!st && p->n) {
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_trajectories", stem);
        snprintf(what, sizeof(what), "%s.csv: trajectories of the named points", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 1, 900, err);
    }
    /* how far from a singular position */
    const int jc = csv_col(t, "cond");
    if (!st && jc >= 0) {
        memset(p, 0, sizeof(*p));
        snprintf(p->ylabel, sizeof(p->ylabel), "condition number of Phi_q");
        p->log = col_max(t, jc) > 0;
        add_column(p, t, "cond", "cond(Phi_q)", 0);
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_condition", stem);
        snprintf(what, sizeof(what), "%s.csv: condition number of the constraint Jacobian", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 1, 900, err);
    }
    free(p);
    return st;
}

/* Joint names: every J with J.Fx, J.Fy and J.M columns. */
static int joint_names(const csv_table* t, char names[][128], int max) {
    int n = 0;
    for (int j = 1; j < t->ncol && n < max; j++) {
        const size_t l = strlen(t->name[j]);
        if (l < 4 || strcmp(t->name[j] + l - 3, ".Fx") != 0) continue;
        char col[160];
        snprintf(names[n], 128, "%.*s", (int)(l - 3), t->name[j]);
        snprintf(col, sizeof(col), "%s.Fy", names[n]);
        if (csv_col(t, col) == j + 1) n++;
    }
    return n;
}

static kd_status plot_inverse(gnuplot_script* g, const csv_table* t, const char* data, const char* title, const char* stem,
                              const char* type, int analysis, char names[][128], int nj, kd_error* err) {
    panel* p = calloc(4, sizeof(panel));
    if (!p) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = KD_OK;
    /* the reaction of each joint: Fx, Fy, |F|, and M when it carries a moment */
    for (int k = 0; k < nj && !st; k++) {
        memset(p, 0, 4 * sizeof(panel));
        char col[160], u[96];
        snprintf(col, sizeof(col), "%s.Fx", names[k]);
        const int jx = csv_col(t, col);
        snprintf(col, sizeof(col), "%s.M", names[k]);
        const int jm = csv_col(t, col);
        snprintf(p[0].ylabel, 96, "Fx [N]");
        snprintf(p[1].ylabel, 96, "Fy [N]");
        snprintf(p[2].ylabel, 96, "|F| [N]");
        snprintf(col, sizeof(col), "%s.Fx", names[k]);
        add_column(&p[0], t, col, col, 0);
        snprintf(col, sizeof(col), "%s.Fy", names[k]);
        add_column(&p[1], t, col, col, 0);
        snprintf(u, sizeof(u), "1:(sqrt($%d**2 + $%d**2))", jx + 1, jx + 2);
        snprintf(col, sizeof(col), "|%s.F|", names[k]);
        add_curve(&p[2], u, col, 0);
        int n = 3;
        if (jm >= 0 && col_max(t, jm) > 0) {
            snprintf(p[3].ylabel, 96, "M [N m]");
            snprintf(col, sizeof(col), "%s.M", names[k]);
            add_column(&p[3], t, col, col, 0);
            n = 4;
        }
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_%s", stem, names[k]);
        snprintf(what, sizeof(what), "%s.csv: reaction of joint %s on its second body", stem, names[k]);
        st = panels_figure(g, data, title, name, what, type, analysis, p, n, 900, err);
    }
    /* the driving torques and forces, by multipliers and (dashed) by projection */
    memset(p, 0, 4 * sizeof(panel));
    int nd = 0;
    for (int j = 1; j < t->ncol && nd < 4; j++) {
        const char* c = t->name[j];
        const size_t l = strlen(c);
        const int torque = l > 8 && strcmp(c + l - 8, ".drive_M") == 0, force = l > 2 && strcmp(c + l - 2, ".F") == 0;
        if (!torque && !force) continue;
        char proj[200];
        snprintf(proj, sizeof(proj), "%s.projection", c);
        snprintf(p[nd].ylabel, 96, "%s [%s]", torque ? "driving torque" : "driving force", torque ? "N m" : "N");
        add_column(&p[nd], t, c, c, 0);
        add_column(&p[nd], t, proj, "by projection", 1);
        nd++;
    }
    if (!st && nd) {
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_drive", stem);
        snprintf(what, sizeof(what), "%s.csv: driving torques and forces", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, nd, 900, err);
    }
    /* energies, and the power of the drivers against d(E_kinetic + E_potential)/dt */
    const int jk = csv_col(t, "E_kinetic"), jp = csv_col(t, "E_potential"), jw = csv_col(t, "P_drive");
    if (!st && jk >= 0 && jp >= 0 && jw >= 0) {
        memset(p, 0, 4 * sizeof(panel));
        snprintf(p[0].ylabel, 96, "energy [J]");
        add_column(&p[0], t, "E_kinetic", "E_kinetic", 0);
        add_column(&p[0], t, "E_potential", "E_potential", 0);
        snprintf(p[1].ylabel, 96, "power [W]");
        add_column(&p[1], t, "P_drive", "P_drive", 0);
        /* the rate of the mechanical energy by differences of consecutive
         * rows, at the mid time: equal to P_drive without other work */
        char rate[1400];
        FILE* fr = gp_data(g, rate, (int)sizeof(rate));
        if (!fr) st = kd_error_set(err, KD_ERR_IO, rate, KD_LOC_NONE, "cannot write plot data");
        for (int r = 1; fr && r < t->nrow; r++) {
            const double* a = t->val + (size_t)(r - 1) * t->ncol;
            const double* b = t->val + (size_t)r * t->ncol;
            if (b[0] > a[0]) fprintf(fr, "%.10g %.10g\n", 0.5 * (a[0] + b[0]), (b[jk] + b[jp] - a[jk] - a[jp]) / (b[0] - a[0]));
        }
        if (fr && fclose(fr)) st = kd_error_set(err, KD_ERR_IO, rate, KD_LOC_NONE, "cannot write plot data");
        add_curve(&p[1], "1:2", "d(E_kinetic + E_potential)/dt", 2);
        p[1].c[p[1].n - 1].file = rate;
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_energy", stem);
        snprintf(what, sizeof(what), "%s.csv: energies and the power of the drivers", stem);
        if (!st) st = panels_figure(g, data, title, name, what, type, analysis, p, 2, 900, err);
    }
    free(p);
    return st;
}

static kd_status plot_forward(gnuplot_script* g, const csv_table* t, const char* data, const char* title, const char* stem,
                              const char* type, int analysis, char names[][128], int nb, kd_error* err) {
    static const char* const pos[3] = {"x", "y", "phi"};
    static const char* const lpos[3] = {"x [m]", "y [m]", "phi [rad]"};
    kd_status st = body_figure(g, t, data, title, stem, type, analysis, names, nb, pos, lpos, "positions",
                               "positions and angles", err);
    panel* p = calloc(3, sizeof(panel));
    if (!p) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    snprintf(p[0].ylabel, 96, "energy [J]");
    add_column(&p[0], t, "E_kinetic", "E_kinetic", 0);
    add_column(&p[0], t, "W_applied", "W_applied", 0);
    snprintf(p[1].ylabel, 96, "E_kinetic - E_kinetic(0) - W_applied [J]");
    add_column(&p[1], t, "energy_balance", "energy balance", 0);
    if (!st) {
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_energy", stem);
        snprintf(what, sizeof(what), "%s.csv: energy balance", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 2, 900, err);
    }
    memset(p, 0, 3 * sizeof(panel));
    const int jp = csv_col(t, "drift_position"), jv = csv_col(t, "drift_velocity");
    snprintf(p[0].ylabel, 96, "|Phi| [m, rad]");
    p[0].log = col_max(t, jp) > 0;
    add_curve(&p[0], "1:($%d > 0 ? $%d : 1/0)", "drift_position", 0);
    snprintf(p[0].c[0].using, sizeof(p[0].c[0].using), p[0].log ? "1:($%d > 0 ? $%d : 1/0)" : "1:%d", jp + 1, jp + 1);
    snprintf(p[1].ylabel, 96, "|Phi_q v + Phi_t| [m/s, rad/s]");
    p[1].log = col_max(t, jv) > 0;
    add_curve(&p[1], "", "drift_velocity", 0);
    snprintf(p[1].c[0].using, sizeof(p[1].c[0].using), p[1].log ? "1:($%d > 0 ? $%d : 1/0)" : "1:%d", jv + 1, jv + 1);
    if (!st) {
        char name[300], what[300];
        snprintf(name, sizeof(name), "%s_drift", stem);
        snprintf(what, sizeof(what), "%s.csv: constraint drift", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 2, 900, err);
    }
    free(p);
    return st;
}

/* ---- elastic links (dynamics.csv of src/run/run_links.c) ---------------------- */

/* Nodes of link b: the count of consecutive B.N.v columns. */
static int link_nodes(const csv_table* t, const char* b) {
    int n = 0;
    char col[200];
    for (;; n++) {
        snprintf(col, sizeof(col), "%s.%d.v", b, n + 1);
        if (csv_col(t, col) < 0) return n;
    }
}

/* The nodes drawn of a link of nn nodes: its ends, quarter points and midspan (1-based, distinct). */
static int link_sample_nodes(int nn, int ends, int out[5]) {
    static const double at[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
    int n = 0;
    for (int k = 0; k < 5; k++) {
        if (!ends && (k == 0 || k == 4)) continue;
        const int node = 1 + (int)floor((nn - 1) * at[k] + 0.5);
        if (n == 0 || out[n - 1] != node) out[n++] = node;
    }
    return n;
}

static const char* node_label(char* buf, size_t n, int node, int nn) {
    const char* where = node == 1 || node == nn ? "end" : 2 * (node - 1) == nn - 1 ? "midspan" : "";
    snprintf(buf, n, "node %d%s%s%s", node, where[0] ? " (" : "", where, where[0] ? ")" : "");
    return buf;
}

/* Per link: deflection histories (v and u at the quarter points and midspan, in the floating
 * frame) and section forces (N, M, sigma at the ends, quarter points and midspan); the
 * links' frames; the joint forces (|F| and, one-way, the elastic part |dF|); two-way: the
 * energy balance and the constraint drift. */
static kd_status plot_links(gnuplot_script* g, const csv_table* t, const char* data, const char* title, const char* stem,
                            const char* type, int analysis, char names[][128], int nb, kd_error* err) {
    panel* p = calloc(4, sizeof(panel));
    if (!p) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = KD_OK;
    char name[300], what[300], col[200], lab[64];
    for (int b = 0; b < nb && !st; b++) {
        const int nn = link_nodes(t, names[b]);
        if (nn < 2) continue;
        int nodes[5];
        int k = link_sample_nodes(nn, 0, nodes);
        if (k == 0) k = link_sample_nodes(nn, 1, nodes);
        memset(p, 0, 4 * sizeof(panel));
        snprintf(p[0].ylabel, 96, "v (transverse) [m]");
        snprintf(p[1].ylabel, 96, "u (axial) [m]");
        for (int i = 0; i < k; i++) {
            node_label(lab, sizeof(lab), nodes[i], nn);
            snprintf(col, sizeof(col), "%s.%d.v", names[b], nodes[i]);
            add_column(&p[0], t, col, lab, 0);
            snprintf(col, sizeof(col), "%s.%d.u", names[b], nodes[i]);
            add_column(&p[1], t, col, lab, 0);
        }
        snprintf(name, sizeof(name), "%s_%s_deflection", stem, names[b]);
        snprintf(what, sizeof(what), "%s.csv: deflection of link %s in its floating frame", stem, names[b]);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 2, 1000, err);
        if (st) break;
        memset(p, 0, 4 * sizeof(panel));
        k = link_sample_nodes(nn, 1, nodes);
        static const char* const q[3] = {"N", "M", "sigma"};
        static const char* const ql[3] = {"N (axial force) [N]", "M (bending moment) [N m]", "sigma (largest) [Pa]"};
        for (int c = 0; c < 3; c++) {
            snprintf(p[c].ylabel, 96, "%s", ql[c]);
            for (int i = 0; i < k; i++) {
                snprintf(col, sizeof(col), "%s.%d.%s", names[b], nodes[i], q[c]);
                add_column(&p[c], t, col, node_label(lab, sizeof(lab), nodes[i], nn), 0);
            }
        }
        snprintf(name, sizeof(name), "%s_%s_forces", stem, names[b]);
        snprintf(what, sizeof(what), "%s.csv: section forces and stress of link %s", stem, names[b]);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 3, 1000, err);
    }
    /* the bodies' frames (a link: node 1 and its chord or root frame) */
    if (!st) {
        static const char* const pos[3] = {"x", "y", "phi"};
        static const char* const lpos[3] = {"x [m]", "y [m]", "phi [rad]"};
        memset(p, 0, 4 * sizeof(panel));
        for (int c = 0; c < 3; c++) {
            snprintf(p[c].ylabel, 96, "%s", lpos[c]);
            for (int b = 0; b < nb; b++) {
                snprintf(col, sizeof(col), "%s.%s", names[b], pos[c]);
                add_column(&p[c], t, col, names[b], 0);
            }
        }
        snprintf(name, sizeof(name), "%s_frames", stem);
        snprintf(what, sizeof(what), "%s.csv: frames of the bodies (a link: node 1, floating frame)", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 3, 1000, err);
    }
    /* joint forces on the joints' second bodies */
    char(*joints)[128] = malloc(sizeof(*joints) * 64);
    const int nj = joints ? joint_names(t, joints, 64) : 0;
    if (!joints && !st) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st && nj > 0) {
        memset(p, 0, 4 * sizeof(panel));
        snprintf(p[0].ylabel, 96, "|F| [N]");
        snprintf(p[1].ylabel, 96, "|dF| elastic part [N]");
        snprintf(p[2].ylabel, 96, "M (drive) [N m]");
        for (int j = 0; j < nj; j++) {
            char u[128];
            snprintf(col, sizeof(col), "%s.Fx", joints[j]);
            const int jx = csv_col(t, col);
            snprintf(u, sizeof(u), "1:(sqrt($%d**2 + $%d**2))", jx + 1, jx + 2);
            add_curve(&p[0], u, joints[j], 0);
            snprintf(col, sizeof(col), "%s.dFx", joints[j]);
            const int jd = csv_col(t, col);
            if (jd >= 0) {
                snprintf(u, sizeof(u), "1:(sqrt($%d**2 + $%d**2))", jd + 1, jd + 2);
                add_curve(&p[1], u, joints[j], 0);
            }
        }
        double mmax = 0;  /* moments: the joints that carry one (round-off elsewhere) */
        for (int j = 0; j < nj; j++) {
            snprintf(col, sizeof(col), "%s.M", joints[j]);
            mmax = fmax(mmax, col_max(t, csv_col(t, col)));
        }
        for (int j = 0; j < nj; j++) {
            snprintf(col, sizeof(col), "%s.M", joints[j]);
            if (col_max(t, csv_col(t, col)) > 1e-9 * mmax) add_column(&p[2], t, col, joints[j], 0);
        }
        int np = 0;  /* the panels with curves, in order */
        for (int i = 0; i < 3; i++)
            if (p[i].n) {
                if (np != i) p[np] = p[i];
                np++;
            }
        snprintf(name, sizeof(name), "%s_joints", stem);
        snprintf(what, sizeof(what), "%s.csv: joint forces (on each joint's second body)", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, np, 1000, err);
    }
    free(joints);
    /* two-way: energy and drift */
    if (!st && csv_col(t, "E_total") >= 0) {
        memset(p, 0, 4 * sizeof(panel));
        snprintf(p[0].ylabel, 96, "energy [J]");
        add_column(&p[0], t, "E_kinetic", "E_kinetic", 0);
        add_column(&p[0], t, "V_gravity", "V_gravity", 0);
        add_column(&p[0], t, "U_strain", "U_strain", 0);
        add_column(&p[0], t, "E_total", "E_total", 0);
        snprintf(p[1].ylabel, 96, "|Phi| [m, rad]");
        add_column(&p[1], t, "drift_position", "drift_position", 0);
        snprintf(name, sizeof(name), "%s_energy", stem);
        snprintf(what, sizeof(what), "%s.csv: energy and constraint drift", stem);
        st = panels_figure(g, data, title, name, what, type, analysis, p, 2, 900, err);
    }
    free(p);
    return st;
}

kd_status plot_mech(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, const char* type,
                       int analysis, int* handled, kd_error* err) {
    *handled = 0;
    char (*names)[128] = malloc(sizeof(*names) * 256);
    if (!names) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    const int nb = body_names(t, names, 256);
    int kind = 0;  /* 1 kinematics, 2 inverse dynamics, 3 forward dynamics */
    if (strcmp(type, "kinematics") == 0 && nb > 0 && csv_col(t, "cond") >= 0) kind = 1;
    else if (strcmp(type, "inverse_dynamics") == 0 && csv_col(t, "E_kinetic") >= 0 &&
             csv_col(t, "P_drive") >= 0)
        kind = 2;
    else if (strcmp(type, "dynamics") == 0 && nb > 0 && csv_col(t, "drift_position") >= 0 &&
             csv_col(t, "drift_velocity") >= 0 && csv_col(t, "energy_balance") >= 0)
        kind = 3;
    int links = 0;  /* elastic links: B.1.v and B.1.sigma columns */
    for (int b = 0; b < nb && !kind; b++) {
        char col[160];
        snprintf(col, sizeof(col), "%s.1.sigma", names[b]);
        links += link_nodes(t, names[b]) > 1 && csv_col(t, col) >= 0;
    }
    if (strcmp(type, "dynamics") == 0 && links > 0) kind = 4;
    kd_status st = KD_OK;
    if (kind) {
        char data[1400];
        st = table_file(g, t, data, (int)sizeof(data), err);
        if (!st && kind == 1) st = plot_kinematics(g, t, data, title, stem, type, analysis, names, nb, err);
        if (!st && kind == 2)
            st = plot_inverse(g, t, data, title, stem, type, analysis, names, joint_names(t, names, 256), err);
        if (!st && kind == 3) st = plot_forward(g, t, data, title, stem, type, analysis, names, nb, err);
        if (!st && kind == 4) st = plot_links(g, t, data, title, stem, type, analysis, names, nb, err);
        *handled = 1;
    }
    free(names);
    return st;
}
