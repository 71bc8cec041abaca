/* The independent cases of a study (the runs of a sweep, the speeds of a Campbell diagram, the
 * grid points of a stability map) computed serially, by a pool of threads or across the ranks of
 * an MPI launch (kd_case_backend, kedyn/run.h), and handed back in case order (docs/architecture.md,
 * "Parallel studies"). Private to src/run.
 *
 * A driver describes its cases by a run_case_set: `compute` computes case i into bytes on any
 * thread or rank (it must touch no shared mutable state: it works on its own copies and its own
 * workspace), `commit` takes them on the calling thread in case order 0, 1, 2... (out-of-order
 * completions wait in a buffer). The bytes of a case are the same whichever thread or rank made
 * them, so the results are those of --jobs 1, bit for bit.
 *
 * With kd_run_options.resume, the cases recorded complete in OUTDIR/.kedyn-cases/ (one journal per
 * study; each record checksummed, so a record cut by a kill is never trusted) are committed from
 * their records instead of computed again. */
#ifndef KEDYN_RUN_CASES_H
#define KEDYN_RUN_CASES_H

#include <stddef.h>

#include "run_internal.h"

/* A growable byte buffer: a case's result. */
typedef struct run_buf {
    unsigned char* data;
    size_t size, cap;
    int failed;  /* out of memory on a put */
} run_buf;

void run_buf_put(run_buf* b, const void* p, size_t n);
void run_buf_put_int(run_buf* b, int v);
void run_buf_put_doubles(run_buf* b, const double* v, size_t n);
void run_buf_free(run_buf* b);

/* Reading back: a cursor over bytes; a read past the end zeroes and sets bad. */
typedef struct run_reader {
    const unsigned char* p;
    size_t left;
    int bad;
    unsigned char* base;  /* the case's bytes (commit: may be shortened for its journal record) */
    size_t record;        /* set by commit: record only the first `record` bytes of base (0: all) */
} run_reader;

void run_get(run_reader* r, void* out, size_t n);
int run_get_int(run_reader* r);
void run_get_doubles(run_reader* r, double* v, size_t n);

typedef struct run_case_set {
    const char* name;  /* for progress: "sweep", "campbell", "stability" */
    int ncases;
    void* ctx;
    /* Case i into out (any thread or rank). outdir: where files of the case go; remote: 1 when it
     * runs in another process than the one writing OUTDIR (its files travel in out), 2 when that
     * process's outdir is on OUTDIR's file system (their paths travel in out: the committing
     * process renames them into OUTDIR). A failure: its status with err->msg; out is still passed
     * on. */
    kd_status (*compute)(void* ctx, int i, const char* outdir, int remote, run_buf* out, kd_error* err);
    /* Case i on the calling thread, in case order: its status, message and bytes. A non-zero
     * return (an output error) stops the study. */
    kd_status (*commit)(void* ctx, int i, kd_status st, const char* msg, run_reader* in, kd_error* err);
} run_case_set;

/* Runs the cases of set for the analysis of c (threads: c->opts->jobs; ranks: c->opts->backend).
 * Returns the first error of a commit, KD_ERR_NUMERIC when interrupted, else KD_OK. On an MPI rank
 * other than 0 it computes the cases rank 0 asks for and returns KD_OK (nothing committed). */
kd_status run_cases(const run_context* c, const run_case_set* set, kd_error* err);

/* 1 on an MPI rank other than 0: the runner computes cases only and writes nothing. */
int run_cases_worker(const run_context* c);

/* Remove the temporary files (NAME.tmpPID.N) a killed run left in OUTDIR; only while this run
 * holds OUTDIR's lock (--resume). */
void run_cases_clean_temps(const char* outdir);

/* Remove the journals of OUTDIR (a complete run). */
void run_cases_forget(const char* outdir);

#endif
