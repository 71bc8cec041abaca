/* kedyn: running the analyses of a model and writing their results.
 *
 * kd_run executes every analysis of a description on its compiled model and
 * writes OUTDIR/summary.json and the CSV files of each analysis
 * (docs/model-format.md, "Outputs"). Files are written atomically
 * (kedyn/atomic_file.h) and summary.json last, so a directory whose
 * summary.json says "complete": true holds a whole run. When an analysis
 * fails numerically, what was computed so far stays on disk and summary.json
 * records "complete": false with the cause. Part of kedyn_io.
 */
#ifndef KEDYN_RUN_H
#define KEDYN_RUN_H

#include "kedyn/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_RUN_FILES_MAX 4

typedef struct kd_analysis_report {
    kd_analysis_type type;
    kd_status status;                       /* KD_OK, or why it failed */
    char message[512];                      /* failure cause or warning, "" when none */
    double wall_s;                          /* wall time of the analysis, s */
    int nfiles;
    char files[KD_RUN_FILES_MAX][64];       /* written files, relative to OUTDIR */
    kd_modes modes;                         /* modes analyses */
    kd_campbell campbell;                   /* campbell analyses */
    kd_stability_map stability;             /* stability analyses */
    kd_integrate_stats dynamics;            /* dynamics analyses */
    double t_end;                           /* dynamics: the requested end time */
    int integrator;                         /* dynamics: kd_integrator */
    char prefix[32];                        /* prepended to the names of its result files */
    const kd_analysis_desc* sweep;          /* a sweep and its runs: the sweep's description */
    const double* value;                    /* a run of a sweep: its parameter values (sweep->nset) */
    int nsub;                               /* sweep: runs attempted, one per value */
    struct kd_analysis_report* sub;         /* sweep: (nsub) their reports */
} kd_analysis_report;

typedef struct kd_run_report {
    int nanalyses;                          /* analyses attempted */
    kd_analysis_report* analyses;           /* (nanalyses) */
    int complete;                           /* 1 when every analysis succeeded */
} kd_run_report;

/* Run every analysis of d (compiled as m) and write the results to outdir,
 * created if needed. model_path is recorded in summary.json. Returns KD_OK,
 * KD_ERR_IO, or KD_ERR_NUMERIC after a failed analysis (results so far kept). */
kd_status kd_run(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                 kd_run_report* rep, kd_error* err);

/* Free the arrays of a report. */
void kd_run_report_free(kd_run_report* rep);

/* Write a Campbell diagram as CSV: speed_rad_s, omega_1..omega_K (rad/s),
 * unstable (0/1), one row per speed. */
kd_status kd_write_campbell_csv(const char* path, const kd_campbell* c, kd_error* err);

/* Write a stability map as CSV: hub_m, length_m, omega_cr_rad_s ("inf" when
 * stable up to omega_max), one row per grid point. */
kd_status kd_write_stability_csv(const char* path, const kd_stability_map* s, kd_error* err);

/* Write the mode shapes of r as CSV (long format: body,node,dof,x,y,z,
 * mode_1..mode_K; fixed DOFs as 0) to path, atomically. */
kd_status kd_write_modes_csv(const char* path, const kd_model* m, const kd_modes* r, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
