/* Figures of the record analyses (docs/cli.md, "Figures"): spectra, FRF magnitude, phase and
 * coherence, the stabilisation diagram, the MAC matrix and the waterfall, each from its CSV file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

static kd_status data_error(const char* path, kd_error* err) {
    return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot write plot data");
}

/* The table as numbers; two blank lines wherever column `block` changes (separate curves). */
static kd_status write_numbers(gnuplot_script* g, const csv_table* t, int block, char* path, int n, kd_error* err) {
    FILE* fp = gp_data(g, path, n);
    if (!fp) return data_error(path, err);
    for (int r = 0; r < t->nrow; r++) {
        if (block >= 0 && r > 0 && t->val[(size_t)r * t->ncol + block] != t->val[(size_t)(r - 1) * t->ncol + block])
            fputs("\n\n", fp);
        for (int j = 0; j < t->ncol; j++) {
            const double v = t->val[(size_t)r * t->ncol + j];
            if (isnan(v)) fprintf(fp, "%sNaN", j ? " " : "");
            else fprintf(fp, j ? " %.10g" : "%.10g", v);
        }
        fputc('\n', fp);
    }
    return fclose(fp) ? data_error(path, err) : KD_OK;
}

static void head(FILE* fp, const char* title, const char* what, int multiplot, int rows) {
    char buf[600];
    snprintf(buf, sizeof buf, "%s%s%s", title, title[0] ? " - " : "", what);
    if (multiplot) {
        fprintf(fp, "set multiplot layout %d,1 title ", rows);
        gp_quote(fp, buf);
        fprintf(fp, " font ',11'\n");
    } else {
        fprintf(fp, "set title ");
        gp_quote(fp, buf);
        fputc('\n', fp);
    }
    fprintf(fp, "set grid lc rgb '#dddddd'\nset key top right box opaque\n");
}

/* The columns NAME.SUFFIX of t, plotted against column 1 (one curve each). */
static void curves(FILE* fp, const csv_table* t, const char* path, const char* suffix, const char* expr) {
    int first = 1;
    const size_t ls = strlen(suffix);
    fprintf(fp, "plot ");
    for (int j = 1; j < t->ncol; j++) {
        const size_t ln = strlen(t->name[j]);
        if (ln <= ls || strcmp(t->name[j] + ln - ls, suffix) != 0) continue;
        fprintf(fp, "%s", first ? "" : ", ");
        gp_quote(fp, path);
        if (expr) fprintf(fp, " using 1:(%s($%d)) with lines lw 1.5 title ", expr, j + 1);
        else fprintf(fp, " using 1:%d with lines lw 1.5 title ", j + 1);
        char label[256];
        snprintf(label, sizeof label, "%.*s", (int)(ln - ls), t->name[j]);
        gp_quote(fp, label);
        first = 0;
    }
    if (first) fprintf(fp, "NaN notitle");
    fputc('\n', fp);
}

static kd_status plot_spectrum(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                               kd_error* err) {
    char path[1400], what[160];
    kd_status st = write_numbers(g, t, -1, path, (int)sizeof path, err);
    if (st) return st;
    const int orders = !strncmp(stem, "orders", 6);  /* the order spectrum: against orders of the shaft */
    snprintf(what, sizeof what, "%s (%s.csv)", orders ? "order spectra" : "spectra", stem);
    FILE* fp = gp_begin(g, stem, what, "spectrum", analysis, 900, 800);
    if (!fp) return KD_OK;
    head(fp, title, what, 1, 2);
    fprintf(fp, "set xlabel '%s'\nset ylabel 'amplitude'\nset logscale y\n", orders ? "order" : "f [Hz]");
    curves(fp, t, path, ".amplitude", NULL);
    fprintf(fp, "set ylabel '%s'\n", orders ? "PSD [unit^2/order]" : "PSD [unit^2/Hz]");
    curves(fp, t, path, ".psd", NULL);
    fprintf(fp, "unset multiplot\n");
    return gp_end(g, err);
}

static kd_status plot_frf(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                          kd_error* err) {
    char path[1400], what[160];
    kd_status st = write_numbers(g, t, -1, path, (int)sizeof path, err);
    if (st) return st;
    snprintf(what, sizeof what, "frequency response functions H1 (%s.csv)", stem);
    FILE* fp = gp_begin(g, stem, what, "frf", analysis, 900, 1000);
    if (!fp) return KD_OK;
    head(fp, title, what, 1, 3);
    fprintf(fp, "set xlabel 'f [Hz]'\nset ylabel '|H| [dB]'\n");
    curves(fp, t, path, ".mag_db", NULL);
    fprintf(fp, "set ylabel 'phase [deg]'\nset yrange [-180:180]\nset ytics 90\n");
    curves(fp, t, path, ".phase_deg", NULL);
    fprintf(fp, "set ylabel 'coherence'\nset yrange [0:1.05]\nset ytics auto\n");
    curves(fp, t, path, ".coherence", NULL);
    fprintf(fp, "unset multiplot\n");
    return gp_end(g, err);
}

static kd_status plot_stabilisation(gnuplot_script* g, const csv_table* t, const char* title, const char* stem,
                                    int analysis, kd_error* err) {
    const int co = csv_col(t, "order"), cf = csv_col(t, "f_hz"), c1 = csv_col(t, "stable_frequency"),
              c2 = csv_col(t, "stable_damping"), c3 = csv_col(t, "stable_shape");
    if (co < 0 || cf < 0 || c1 < 0 || c2 < 0 || c3 < 0 || t->nrow == 0) {
        plot_note(g->res, "%s.csv: no poles; no stabilisation diagram drawn", stem);
        return KD_OK;
    }
    char path[1400], what[160];
    kd_status st = write_numbers(g, t, -1, path, (int)sizeof path, err);
    if (st) return st;
    snprintf(what, sizeof what, "stabilisation diagram (%s.csv)", stem);
    FILE* fp = gp_begin(g, stem, what, "stabilisation", analysis, 900, 600);
    if (!fp) return KD_OK;
    head(fp, title, what, 0, 1);
    fprintf(fp, "set xlabel 'f [Hz]'\nset ylabel 'model order'\nset key outside right top\n");
    const int F = c1 + 1, D = c2 + 1, S = c3 + 1, X = cf + 1, O = co + 1;
    fprintf(fp, "plot ");
    gp_quote(fp, path);
    fprintf(fp, " using ($%d == 0 ? $%d : 1/0):%d with points pt 6 ps 0.6 lc rgb '#aaaaaa' title 'new', ", F, X, O);
    gp_quote(fp, path);
    fprintf(fp, " using ($%d == 1 && $%d == 0 ? $%d : 1/0):%d with points pt 1 ps 0.8 lc rgb '#1f77b4' title 'f', ", F, D, X,
            O);
    gp_quote(fp, path);
    fprintf(fp, " using ($%d == 1 && $%d == 1 && $%d == 0 ? $%d : 1/0):%d with points pt 2 ps 0.8 lc rgb '#ff7f0e' "
                "title 'f, zeta', ",
            F, D, S, X, O);
    gp_quote(fp, path);
    fprintf(fp, " using ($%d == 1 && $%d == 1 && $%d == 1 ? $%d : 1/0):%d with points pt 7 ps 0.8 lc rgb '#2ca02c' "
                "title 'stable'\n",
            F, D, S, X, O);
    return gp_end(g, err);
}

static kd_status plot_mac(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                          kd_error* err) {
    const int nc = t->ncol - 2, nm = t->nrow;
    if (nc < 1 || nm < 1 || csv_col(t, "f_measured_hz") != 1) {
        plot_note(g->res, "%s.csv: no MAC matrix to draw", stem);
        return KD_OK;
    }
    char path[1400], what[160];
    FILE* dp = gp_data(g, path, (int)sizeof path);
    if (!dp) return data_error(path, err);
    for (int i = 0; i < nm; i++) {  /* image rows: measured i, computed k, MAC */
        for (int k = 0; k < nc; k++) fprintf(dp, "%d %d %.6f\n", k + 1, i + 1, t->val[(size_t)i * t->ncol + 2 + k]);
        fputc('\n', dp);
    }
    if (fclose(dp)) return data_error(path, err);
    snprintf(what, sizeof what, "MAC, measured against computed modes (%s.csv)", stem);
    FILE* fp = gp_begin(g, stem, what, "mac", analysis, 800, 650);
    if (!fp) return KD_OK;
    head(fp, title, what, 0, 1);
    fprintf(fp, "set xlabel 'computed mode'\nset ylabel 'measured mode'\nset cblabel 'MAC'\nset cbrange [0:1]\n"
                "set palette defined (0 'white', 0.5 '#9ecae1', 1 '#08306b')\nset xtics 1\nset ytics 1\n"
                "set xrange [0.5:%d.5]\nset yrange [0.5:%d.5]\nunset grid\nunset key\n",
            nc, nm);
    fprintf(fp, "plot ");
    gp_quote(fp, path);
    fprintf(fp, " using 1:2:3 with image, ");
    gp_quote(fp, path);
    fprintf(fp, " using 1:2:(sprintf('%%.2f', $3)):($3 > 0.6 ? 0xffffff : 0) with labels tc rgb variable\n");
    return gp_end(g, err);
}

static kd_status plot_waterfall(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                                kd_error* err) {
    const int ct = csv_col(t, "t_s"), cs = csv_col(t, "speed_rpm"), cf = csv_col(t, "f_hz");
    if (ct < 0 || cs < 0 || cf < 0 || t->ncol < 4) {
        plot_note(g->res, "%s.csv: not a waterfall", stem);
        return KD_OK;
    }
    char path[1400], what[160];
    kd_status st = write_numbers(g, t, ct, path, (int)sizeof path, err);
    if (st) return st;
    snprintf(what, sizeof what, "waterfall (%s.csv, %s)", stem, t->name[3]);
    FILE* fp = gp_begin(g, stem, what, "waterfall", analysis, 900, 700);
    if (!fp) return KD_OK;
    head(fp, title, what, 0, 1);
    fprintf(fp, "set xlabel 'f [Hz]'\nset ylabel 'speed [rpm]'\nset zlabel 'amplitude'\nset view 65,20\nset xyplane 0\nunset key\n"
                "splot ");
    gp_quote(fp, path);
    fprintf(fp, " using %d:%d:%d with lines lc rgb '#1f77b4'\n", cf + 1, cs + 1, 4);
    return gp_end(g, err);
}

/* Measured spectral peaks (dashed) over the computed frequencies along the motion. */
static kd_status plot_along(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                            kd_error* err) {
    if (t->ncol < 2 || strcmp(t->name[0], "t") != 0 || t->nrow == 0) {
        plot_note(g->res, "%s.csv: nothing to draw", stem);
        return KD_OK;
    }
    char path[1400], what[160];
    kd_status st = write_numbers(g, t, -1, path, (int)sizeof path, err);
    if (st) return st;
    snprintf(what, sizeof what, "measured peaks over the frequencies along the motion (%s.csv)", stem);
    FILE* fp = gp_begin(g, stem, what, "along_motion", analysis, 900, 650);
    if (!fp) return KD_OK;
    head(fp, title, what, 0, 1);
    fprintf(fp, "set xlabel 't [s]'\nset ylabel 'f [Hz]'\nset key outside right top\nplot ");
    for (int j = 1; j < t->ncol; j++) {
        const int measured = !strncmp(t->name[j], "measured_", 9);
        fprintf(fp, "%s", j > 1 ? ", " : "");
        gp_quote(fp, path);
        fprintf(fp, measured ? " using 1:%d with lines dt 2 lw 1.5 lc rgb 'black' title " : " using 1:%d with lines lw 2 title ",
                j + 1);
        gp_quote(fp, t->name[j]);
    }
    fputc('\n', fp);
    return gp_end(g, err);
}

int plot_measure_handles(const char* type, const char* stem) {
    return (!strcmp(type, "spectrum") || !strcmp(type, "frf") || !strcmp(type, "identify") || !strcmp(type, "correlate")) &&
           stem[0] != '\0';
}

kd_status plot_measure(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, const char* type,
                       int analysis, kd_error* err) {
    if (!strncmp(stem, "waterfall", 9)) return plot_waterfall(g, t, title, stem, analysis, err);
    if (!strcmp(type, "spectrum")) return plot_spectrum(g, t, title, stem, analysis, err);
    if (!strcmp(type, "frf")) return plot_frf(g, t, title, stem, analysis, err);
    if (!strncmp(stem, "stabilisation", 13)) return plot_stabilisation(g, t, title, stem, analysis, err);
    if (!strncmp(stem, "mac", 3)) return plot_mac(g, t, title, stem, analysis, err);
    if (!strncmp(stem, "along_motion", 12)) return plot_along(g, t, title, stem, analysis, err);
    return KD_OK;  /* identify.csv, correlate.csv: tables of the report */
}
