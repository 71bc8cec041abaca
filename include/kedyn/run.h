/* kedyn: running the analyses of a model and writing their results.
 *
 * kd_run executes every analysis of a description on its compiled model and
 * writes OUTDIR/summary.json and the CSV files of each analysis
 * (docs/model-format.md, "Outputs"). Files are written atomically
 * (kedyn/atomic_file.h) and summary.json last, so a directory whose
 * summary.json says "complete": true holds a whole run. When an analysis
 * fails numerically, what was computed so far stays on disk and summary.json
 * records "complete": false with the cause. Part of the library.
 */
#ifndef KEDYN_RUN_H
#define KEDYN_RUN_H

#include "kedyn/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_RUN_FILES_MAX 4

/* What a mechanism analysis (kinematics, inverse_dynamics) reports. */
typedef struct kd_mech_run_stats {
    int steps;                              /* output times solved */
    double t_reached;                       /* last time solved, s */
    int dof, dof_undriven, gruebler;        /* mobility at the assembled position */
    int nredundant;                         /* redundant constraint equations */
    char redundant[256];                    /* their joints, by name */
    double cond_max, t_cond_max;            /* largest condition number of Phi_q, and when */
    double route_diff;                      /* inverse: largest difference between the multipliers
                                               and projection results, relative to the largest value */
    double qdd_diff;                        /* inverse: largest |q''| difference, augmented system
                                               versus kinematics, relative */
    const char* formalism;                  /* dynamics: the formalism (kedyn/mech_formalism.h) */
    const char* formulation;                /* dynamics: formulation, stabilization and integration */
    const char* stabilization;              /*   method names (static strings, kedyn/mbs.h) */
    const char* method;
    double drift_pos, drift_vel;            /* dynamics: largest |Phi| and |Phi_q q' + Phi_t| */
} kd_mech_run_stats;

/* What an analysis of a mechanism with elastic links reports (src/run/run_links.c). */
#define KD_KED_REPORT_LINKS 4
#define KD_KED_REPORT_MODES 12
typedef struct kd_ked_run_stats {
    int links;                              /* elastic links (0: not such an analysis) */
    int samples;                            /* instants of the rigid solution */
    int forward;                            /* 1: the rigid motion by forward dynamics */
    const char* coupling;                   /* "one-way" (static string) */
    double max_deflection;                  /* dynamics: largest |v| of a link node, m */
    double max_sigma;                       /* dynamics: largest stress sigma at a node, Pa */
    char max_deflection_at[160], max_sigma_at[160];  /* "BODY node N at t = T s" */
    double max_dF, max_F;                   /* dynamics: largest elastic and rigid joint force, N */
    double speed;                           /* the first driver's speed, rad/s (0: as given) */
    int count, swaps;                       /* modes_along_motion: modes, instants re-ordered by MAC */
    double mac_min;                         /* smallest MAC of a followed pair */
    char link_name[KD_KED_REPORT_LINKS][64];
    double omega_min[KD_KED_REPORT_LINKS][KD_KED_REPORT_MODES];  /* rad/s over the motion */
    double omega_max[KD_KED_REPORT_LINKS][KD_KED_REPORT_MODES];
} kd_ked_run_stats;

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
    kd_dynamics_integrator integrator;      /* dynamics: the integrator that ran */
    kd_dynamics_formalism formalism;        /* dynamics: the formalism of an elastic model */
    kd_mech_run_stats mech;                 /* mechanism analyses */
    char prefix[32];                        /* prepended to the names of its result files */
    const kd_analysis_desc* sweep;          /* a sweep and its runs: the sweep's description */
    const double* value;                    /* a run of a sweep: its parameter values (sweep->nset) */
    int nsub;                               /* sweep: runs attempted, one per value */
    struct kd_analysis_report* sub;         /* sweep: (nsub) their reports */
    kd_ked_run_stats ked;                   /* mechanisms with elastic links */
    struct kd_measure_result* measure;      /* record analyses (kedyn/measure.h), owned */
} kd_analysis_report;

typedef struct kd_run_report {
    int nanalyses;                          /* analyses attempted */
    kd_analysis_report* analyses;           /* (nanalyses) */
    int complete;                           /* 1 when every analysis succeeded */
    int animation;                          /* 1 when animation.json was written */
} kd_run_report;

/* Run every analysis of d (compiled as m) and write the results to outdir,
 * created if needed. model_path is recorded in summary.json. Returns KD_OK,
 * KD_ERR_IO, or KD_ERR_NUMERIC after a failed analysis (results so far kept). */
kd_status kd_run(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                 kd_run_report* rep, kd_error* err);

/* Progress of a run: analysis `index` (0-based) of `count`, of type `type`
 * ("modes", "dynamics", ...), is `fraction` (0..1) done. Called at the start
 * and end of each analysis and, for dynamics, at most about a thousand times
 * in between; it must not block. */
typedef void (*kd_progress_fn)(void* ctx, int index, int count, const char* type, double fraction);

/* The ranks of an MPI launch sharing the cases of a study (the module kedyn_mpi.so implements
 * it; docs/cli.md, "Parallel studies"). Rank 0 writes every file; the others compute. */
typedef struct kd_case_backend {
    int rank, size;
    void* impl;
    /* Rank 0, on one thread, computing nothing else: hand the cases next(sched) (< 0: none
     * left) to each other rank that asks, deliver(sched, i, bytes) each result that
     * comes back, until every rank has been told that study `set` is over. 0, or -1 when the
     * communication failed. */
    int (*serve)(void* impl, int set, void* sched, int (*next)(void* sched),
                 void (*deliver)(void* sched, int i, const unsigned char* data, size_t size));
    /* Rank 0, from the threads that compute cases, one at a time: the messages of study `set`
     * that came handled as serve does, waiting at most wait_s seconds for one (0: not waiting);
     * the first call starts the study. 1 once it is over for every other rank, 0 before, -1 when
     * the communication failed (the study is then over too). */
    int (*serve_poll)(void* impl, int set, void* sched, int (*next)(void* sched),
                      void (*deliver)(void* sched, int i, const unsigned char* data, size_t size), double wait_s);
    /* Other ranks: compute(ctx, i, &data, &size) (data from malloc, freed here) every case rank 0
     * sends until study `set` is over (returns 0) or the whole run is (1); -1 on a failure. */
    int (*work)(void* impl, int set, void* ctx, int (*compute)(void* ctx, int i, unsigned char** data, size_t* size));
    /* Rank 0: the run is over; the other ranks stop waiting. */
    void (*finish)(void* impl);
    int root_pid;  /* rank 0's process id, on every rank (0: unknown): a rank that finds OUTDIR
                      marked by it writes its cases' files there itself */
} kd_case_backend;

typedef struct kd_run_options {
    kd_progress_fn progress;                /* NULL: no progress reports */
    void* progress_ctx;
    int animation;                          /* 1: also write OUTDIR/animation.json
                                               (kedyn/report.h) */
    int jobs;                               /* threads over the cases of a sweep, campbell,
                                               stability or the instants of a
                                               modes_along_motion (0 or 1: one) */
    int resume;                             /* 1: skip the cases recorded complete in OUTDIR */
    const kd_case_backend* backend;         /* MPI ranks over the cases, NULL: this process */
} kd_run_options;

/* kd_run with options (NULL: none, as kd_run). */
kd_status kd_run_with(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                      const kd_run_options* opts, kd_run_report* rep, kd_error* err);

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
