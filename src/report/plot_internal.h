/* Internals of the figure builders (kedyn/plot.h): a CSV table, the gnuplot
 * driver and the per-analysis builders. */
#ifndef KEDYN_PLOT_INTERNAL_H
#define KEDYN_PLOT_INTERNAL_H

#include <stdio.h>

#include "kedyn/plot.h"

/* A CSV file read whole: a header row of names, then rows of cells. Numeric
 * cells are parsed (non-finite ones, e.g. "inf", become NaN); text cells
 * keep their text in `text` and are NaN in `val`. */
typedef struct csv_table {
    int ncol, nrow;
    char** name;                  /* (ncol) column names */
    double* val;                  /* (nrow x ncol) row-major */
    char** text;                  /* (nrow x ncol) cell text, NULL for numeric cells */
} csv_table;

kd_status csv_read(const char* path, csv_table* t, kd_error* err);
void csv_free(csv_table* t);
/* Index of the named column, or -1. */
int csv_col(const csv_table* t, const char* name);

#define KD_GP_FIGURES_MAX 256

/* A gnuplot session: a temporary directory under OUTDIR/figures for data
 * and scripts; figures are drawn one gnuplot run each and renamed into
 * OUTDIR/figures when both PNG and SVG are complete. */
typedef struct gnuplot_script {
    char gnuplot[1024];           /* the program */
    char figdir[1100];            /* OUTDIR/figures */
    char tmpdir[1200];            /* OUTDIR/figures/.tmp-XXXXXX */
    int ndata;                    /* data files written (unique names) */
    FILE* body;                   /* the figure being written, or NULL */
    char name[128];               /* its name */
    int width, height;            /* its size, pixels */
    kd_plot_result* res;
    /* figures drawn, for figures.json */
    int nfig;
    struct kd_gp_fig {
        char name[128];
        char title[256];
        char type[64];
        int analysis;
    } fig[KD_GP_FIGURES_MAX];
} gnuplot_script;

kd_status gp_open(gnuplot_script* g, const char* gnuplot, const char* outdir, kd_plot_result* res, kd_error* err);
/* Remove the temporary directory. */
void gp_close(gnuplot_script* g);

/* A new data file in the temporary directory: its path in path (for the
 * script) and an open stream, or NULL on error. */
FILE* gp_data(gnuplot_script* g, char* path, int n);

/* Start a figure: returns the stream of its gnuplot commands (the plot
 * itself; terminals and outputs are set by the driver), or NULL. */
FILE* gp_begin(gnuplot_script* g, const char* name, const char* title, const char* type, int analysis, int width,
                  int height);
/* Run gnuplot on the figure and move PNG and SVG into place. */
kd_status gp_end(gnuplot_script* g, kd_error* err);

/* Write s as a gnuplot single-quoted string: quotes doubled, control characters (a newline
 * would end the command and start another) written as spaces. */
void gp_quote(FILE* fp, const char* s);

/* Record a note (what was skipped, and why). */
void plot_note(kd_plot_result* res, const char* fmt, ...);

/* Builders: draw the figures of one analysis from its CSV file. `title` is
 * the model title, `stem` the file name without .csv (figure name prefix). */
kd_status plot_modes(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                        const double* freq_hz, int nfreq, kd_error* err);
kd_status plot_campbell(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                           kd_error* err);
/* omega_max: the largest speed searched; cells stable up to it are drawn
 * there as triangles. */
kd_status plot_stability(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                            double omega_max, kd_error* err);
/* Plates (plot_plate.c): the mode shapes of a modes .vtu (kedyn/vtk.h) as coloured surfaces,
 * PANELS_MAX modes per figure. */
kd_status plot_plate_modes(gnuplot_script* g, const char* path, const char* title, const char* stem, int analysis,
                           const double* freq_hz, int nfreq, kd_error* err);
/* Frequencies along the motion: all BODY.omega_k of a body in one panel. */
kd_status plot_along_motion(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, int analysis,
                               kd_error* err);
/* Hermite interpolation on an element of length h at t in [0, 1] from the
 * end values v, slopes d and curvatures c: quintic when the curvatures are
 * given, cubic when only the slopes are (NaN curvatures), linear without
 * slopes (NaN). */
double plot_hermite(double t, double h, double v0, double d0, double c0, double v1, double d1, double c1);

/* Figures of a mechanism analysis (kinematics, inverse_dynamics, dynamics of
 * a mechanism) when t has the layout src/run/run_mechanism.c writes; *handled = 0
 * leaves other files to the generic time histories. */
kd_status plot_mech(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, const char* type,
                       int analysis, int* handled, kd_error* err);

/* Time histories of any CSV whose first column is t, grouped by name. */
kd_status plot_history(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, const char* type,
                          int analysis, kd_error* err);

/* Record analyses (plot_measure.c): spectra, FRFs, the stabilisation diagram, the MAC matrix and
 * waterfalls; plot_measure_handles tells which analysis types it draws. */
int plot_measure_handles(const char* type, const char* stem);
kd_status plot_measure(gnuplot_script* g, const csv_table* t, const char* title, const char* stem, const char* type,
                       int analysis, kd_error* err);

#endif
