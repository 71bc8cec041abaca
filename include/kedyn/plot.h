/* kedyn: figures of the results in an output directory.
 *
 * kd_plot_outdir reads OUTDIR/summary.json and, for every analysis it lists,
 * draws figures from the analysis' CSV files with gnuplot (run as a
 * subprocess; Debian package gnuplot-nox), as OUTDIR/figures/NAME.png and
 * NAME.svg, and lists them in OUTDIR/figures/figures.json. Known analysis
 * types get their own figures (mode shapes, Campbell diagram, critical speed
 * map, frequencies along the motion); any CSV whose first column is `t` gets
 * time histories with its columns grouped by name (BODY.NODE.DOF by
 * BODY.NODE, JOINT.Fx by JOINT, ...). An analysis with nothing to draw is
 * skipped with a note, never an error. Part of the library.
 */
#ifndef KEDYN_PLOT_H
#define KEDYN_PLOT_H

#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_PLOT_NOTES_MAX 16

typedef struct kd_plot_result {
    int nfigures;                        /* figures written (each as PNG and SVG) */
    int nnotes;
    char notes[KD_PLOT_NOTES_MAX][256];  /* what was skipped and why */
} kd_plot_result;

/* The gnuplot program to run: $KEDYN_GNUPLOT when set, else `gnuplot`
 * found on PATH. Returns 1 and the path in buf when it is executable, 0 when
 * not found. */
int kd_plot_find_gnuplot(char* buf, int n);

/* Draw every figure of the run in outdir. Returns KD_OK; KD_ERR_IO when
 * summary.json cannot be read or parsed, gnuplot is missing or fails, or a
 * figure cannot be written (err says which). */
kd_status kd_plot_outdir(const char* outdir, kd_plot_result* res, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
