/* The runners of the analyses of elastic bodies (src/run): one file per analysis, each
 * defining one entry of the table that run.c dispatches over. Private to src/run.
 *
 * To add an analysis: write src/run/run_NAME.c defining `const run_analysis run_NAME_entry`
 * (its runner and its part of summary.json), declare it below and list it in run.c's table.
 * Mechanisms and elastic links take their analyses first, through the hooks of
 * run_mechanism.h and run_links.h. */
#ifndef KEDYN_RUN_INTERNAL_H
#define KEDYN_RUN_INTERNAL_H

#include <stdio.h>

#include "kedyn/report.h"
#include "kedyn/run.h"

typedef struct run_context run_context;

/* Runs one analysis by its route (run.c: the hooks, then the table). */
typedef kd_status (*run_dispatch_fn)(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a,
                                     kd_error* err);

/* Writes one whole entry of the "analyses" list of summary.json (run.c). */
typedef void (*run_entry_writer)(FILE* fp, const kd_analysis_report* a);

/* What a runner is given besides its analysis. */
struct run_context {
    const kd_desc* d;
    const kd_model* m;            /* d compiled */
    const char* outdir;
    int ordinal;                  /* this analysis among those of its type (file names) */
    kd_anim_recorder* anim;       /* instants to record for the animation, or NULL */
    const kd_run_options* opts;   /* progress reports, or NULL */
    int index, count;             /* this analysis among all (progress) */
    run_dispatch_fn dispatch;     /* runs an inner analysis (a sweep's runs) */
    kd_analysis_report* done;     /* the reports of the run, entries 0..index-1 finished (the
                                     record analyses read earlier results), or NULL */
    unsigned long long model_key; /* the model file's contents hashed (the journals of --resume) */
    /* summary.json rewritten (atomically, "complete": false) while a study runs: `done` of `n`
     * cases committed (run.c; NULL: none) */
    void (*checkpoint)(void* ctx, int done, int n);
    void* checkpoint_ctx;
    /* An MPI rank other than 0 (outdir ""): rank 0's OUTDIR, where its cases write their files
     * themselves when rank 0 marked it (run_cases.c, root_mark_matches), or NULL */
    const char* shared_outdir;
};

typedef struct run_analysis {
    kd_analysis_type type;
    /* Run the analysis: fill a (results, files, message); a file written is counted in a->nfiles
     * only once complete. */
    kd_status (*run)(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err);
    /* The analysis-specific part of its summary.json entry (", key: value..."), called for every
     * entry of this type, also after a failure (each decides what it writes then) and also when a
     * hook ran it (after the hook's own part). entry writes a whole entry (a sweep's runs). NULL:
     * nothing. */
    void (*write_summary)(FILE* fp, const kd_analysis_report* a, run_entry_writer entry);
    /* 1: with an animation asked for, the runner records its instants in run_context.anim
     * (kd_anim_record), which then make its animation set. */
    int records;
    /* Its own animation set (kedyn/report.h) instead of recorded instants: 1 when it has one
     * (*set filled for entry `index` of the run), 0 otherwise. NULL: none. */
    int (*animation_set)(const kd_analysis_report* a, const kd_analysis_desc* ad, int index, kd_anim_set* set);
} run_analysis;

extern const run_analysis run_modes_entry;     /* run_modes.c */
extern const run_analysis run_campbell_entry;  /* run_campbell.c */
extern const run_analysis run_stability_entry; /* run_stability.c */
extern const run_analysis run_dynamics_entry;  /* run_dynamics.c */
extern const run_analysis run_sweep_entry;     /* run_sweep.c */
/* run_measure.c: measured records */
extern const run_analysis run_spectrum_entry, run_frf_entry, run_identify_entry, run_correlate_entry,
    run_virtual_test_entry;

#endif
