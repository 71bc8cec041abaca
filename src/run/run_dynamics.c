/* The `dynamics` analysis of elastic bodies (docs/model-format.md, "Analyses"): the time
 * integration of the model, its history CSV streamed row by row, the instants of the animation
 * and the progress reports; and the dynamics part of summary.json, which every dynamics entry
 * carries (also those of mechanisms and elastic links, run by the hooks). */
#include "run_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "kedyn/kedyn.h"
#include "numerics/pair.h"
#include "output/fmt_num.h"
#include "output/output_util.h"

#define HISTORY_VTK_FRAMES 101

/* The dynamics history file: t, then every DOF of the requested nodes (by
 * default the last node of each beam), then the energy balance. Rows are
 * streamed as the integration goes. */
typedef struct history {
    FILE* fp;
    int ncol;
    int* eq;                      /* (ncol) equation of each column, -1 when fixed */
    int energy;
    kd_anim_recorder* anim;       /* animation instants, or NULL */
    const kd_run_options* opts;   /* progress reports, or NULL */
    int index, count;             /* this analysis among all */
    double t_end, t_reported;     /* progress: last time reported */
    int neq;                      /* the state's length (finite check) */
    int nonfinite;                /* 1: a value to write was inf or nan, at t_nonfinite */
    double t_nonfinite;
    /* plates: a VTK series of the displacements (kedyn/vtk.h), or vtk_stem[0] == 0 */
    const kd_model* m;
    const char* outdir;
    char vtk_stem[64];
    int nvtk;                     /* frames written */
    double vtk_t[HISTORY_VTK_FRAMES];
    int vtk_failed;
    io_row row;                   /* the rows, written in blocks (fmt_num.h) */
} history;

/* One .vtu of the displacements at each hundredth of the time span (frame k at t >= k t_end / 100). */
static void history_vtk(history* h, double t, const double* q) {
    if (!h->vtk_stem[0] || h->vtk_failed || h->nvtk >= HISTORY_VTK_FRAMES) return;
    if (t < h->nvtk * h->t_end / (HISTORY_VTK_FRAMES - 1) - 1e-9 * h->t_end) return;
    char path[1400];
    static const char* const name[1] = {"displacement"};
    snprintf(path, sizeof path, "%s/%s_%03d.vtu", h->outdir, h->vtk_stem, h->nvtk);
    kd_error e;
    if (kd_write_vtu(path, h->m, 1, name, &q, &e)) h->vtk_failed = 1;
    else h->vtk_t[h->nvtk++] = t;
}

/* The series file of the frames written. */
static kd_status history_vtk_pvd(history* h, kd_analysis_report* a, kd_error* err) {
    if (!h->vtk_stem[0] || h->nvtk == 0) return KD_OK;
    char(*files)[80] = malloc(sizeof(*files) * (size_t)h->nvtk);
    const char** fp = malloc(sizeof(char*) * (size_t)h->nvtk);
    kd_status st = files && fp ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int k = 0; k < h->nvtk && !st; k++) {
        snprintf(files[k], sizeof files[k], "%s_%03d.vtu", h->vtk_stem, k);
        fp[k] = files[k];
    }
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.pvd", h->outdir, h->vtk_stem);
    if (!st) st = kd_write_pvd(path, h->nvtk, h->vtk_t, fp, err);
    if (!st && a->nfiles < KD_RUN_FILES_MAX) snprintf(a->files[a->nfiles++], sizeof a->files[0], "%.56s.pvd", h->vtk_stem);
    free(files);
    free(fp);
    return st;
}

static kd_status history_columns(const kd_desc* d, const kd_model* m, history* h, kd_error* err) {
    int nodes[4096], nn = 0;
    for (int i = 0; i < d->noutput_nodes; i++)
        for (int k = 0; k < d->output_nodes[i].nnodes && nn < 4096; k++)
            nodes[nn++] = m->body[d->output_nodes[i].body].node_adr + d->output_nodes[i].nodes[k] - 1;
    if (d->noutput_nodes == 0)
        for (int b = 0; b < m->nbody && nn < 4096; b++)
            if (m->body[b].type == KD_BODY_BEAM) nodes[nn++] = m->body[b].node_adr + m->body[b].node_num - 1;
    int ncol = 0;
    for (int k = 0; k < nn; k++) ncol += m->node_dof_num[nodes[k]];
    h->eq = malloc(sizeof(int) * (size_t)(ncol ? ncol : 1));
    if (!h->eq) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    fprintf(h->fp, "t");
    for (int k = 0; k < nn; k++) {
        const int n = nodes[k];
        const kd_body* b = &m->body[m->node_body[n]];
        for (int a = 0; a < m->node_dof_num[n]; a++) {
            const int i = m->node_dof_adr[n] + a;
            fprintf(h->fp, ",%s.%d.%s", b->name, n - b->node_adr + 1, kd_dof_name_str(m->dof_name[i]));
            h->eq[h->ncol++] = m->dof_eq[i];
        }
    }
    if (h->energy) fprintf(h->fp, ",E_kinetic,E_strain,W_other,E_balance");
    fputc('\n', h->fp);
    return KD_OK;
}

static int history_row(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a;
    history* h = ctx;
    /* A state or energy that overflowed (above a critical speed the energies overflow before the
     * state does) is a numerical failure: no row of inf or nan, the rows before it kept. */
    double z = 0.0 * t;  /* 0 unless some value is NaN or Inf (in any order: four sums at once) */
    int i = 0;
#if KD_V2
    kd_v2 z0 = {0.0, 0.0}, z1 = {0.0, 0.0};
    for (; i + 3 < h->neq; i += 4) z0 += 0.0 * ld2(q + i), z1 += 0.0 * ld2(q + i + 2);
    z0 += z1;
    z += z0[0] + z0[1];
#endif
    for (; i < h->neq; i++) z += 0.0 * q[i];
    for (int k = 0; e && k < 4; k++) z += 0.0 * e[k];
    if (!isfinite(z)) {
        h->nonfinite = 1, h->t_nonfinite = t;
        return 1;
    }
    /* "%.10g" of t, then ",%.10e" of each value and ",%.4e" of the balance, without printf's
     * cost, in one call (src/output/fmt_num.h) */
    io_row_history(&h->row, t, q, h->eq, h->ncol, e);
    if (h->anim) kd_anim_record(h->anim, t, q);
    if (h->vtk_stem[0]) history_vtk(h, t, q);
    /* Progress at most every 0.1 % of the time span. */
    if (h->opts && h->opts->progress && t - h->t_reported >= 1e-3 * h->t_end) {
        h->t_reported = t;
        h->opts->progress(h->opts->progress_ctx, h->index, h->count, "dynamics", t / h->t_end);
    }
    /* a block that could not be written (the header's fprintf: at the commit's ferror) */
    return h->row.failed || kd_interrupted();
}

/* After a numerical failure the history up to it is still a whole CSV file and is kept under its
 * name; the run then reports the failure (summary.json: "complete": false). */
static kd_status run_dynamics(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a,
                              kd_error* err) {
    char path[1200];
    io_result_path(c->outdir, "dynamics", c->ordinal, a, path, sizeof(path));
    kd_dynamics_desc dy = ad->dynamics;  /* what runs: the elastic route's defaults for UNSET */
    kd_dynamics_resolve(&dy, KD_ROUTE_ELASTIC);
    a->t_end = dy.t_end;
    a->integrator = dy.integrator;
    a->formalism = dy.formalism;
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    history* h = malloc(sizeof(*h));  /* its block of rows: 64 kB */
    if (!h) {
        kd_atomic_abort(&f);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* the fields set one by one: a compound literal would zero the 64 kB block too (16 pages
     * touched before any row) */
    memset(h, 0, offsetof(history, row));
    h->fp = f.fp, h->energy = dy.energy, h->anim = c->anim, h->opts = c->opts, h->index = c->index;
    h->count = c->count, h->t_end = dy.t_end, h->neq = c->m->neq, h->m = c->m, h->outdir = c->outdir;
    for (int b = 0; b < c->m->nbody; b++)  /* plates: the displacement series for ParaView too */
        if (c->m->body[b].type == KD_BODY_PLATE) {
            if (c->ordinal == 1) snprintf(h->vtk_stem, sizeof h->vtk_stem, "%.40sdynamics", a->prefix);
            else snprintf(h->vtk_stem, sizeof h->vtk_stem, "%.40sdynamics_%d", a->prefix, c->ordinal);
        }
    st = history_columns(c->d, c->m, h, err);
    io_row_start(&h->row, h->fp);
    if (!st) st = kd_dynamics_run(c->m, ad, history_row, h, &a->dynamics, a->message, (int)sizeof(a->message), err);
    io_row_flush(&h->row);
    if (h->row.failed && (!st || st == KD_ERR_NUMERIC))  /* the rows' own writes (fmt_num.h) */
        st = kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot write '%s': %s", path, strerror(h->row.failed));
    if (h->nonfinite && st != KD_ERR_IO)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "at t = %g s: the state or its energy is no longer finite (divergence; above a critical "
                          "speed?)", h->t_nonfinite);
    free(h->eq);
    if (st && st != KD_ERR_NUMERIC) {
        kd_atomic_abort(&f);
        free(h);
        return st;
    }
    kd_error werr;
    const kd_status wst = kd_atomic_commit(&f, &werr);
    if (wst == KD_OK) a->nfiles++;
    else if (st == KD_OK) *err = werr, st = wst;
    const kd_status vst = history_vtk_pvd(h, a, &werr);
    if (vst && st == KD_OK) *err = werr, st = vst;
    free(h);
    return st;
}

/* Every dynamics entry, also after a failure (how far it got). */
static void write_dynamics_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    fprintf(fp, ", \"integrator\": \"%s\", \"formalism\": \"%s\", \"t_end\": %.12g, \"t_reached\": %.12g, "
                "\"steps\": %ld, \"factorizations\": %ld, \"rhs_evals\": %ld",
            kd_dynamics_integrator_name(a->integrator),
            a->mech.formalism ? a->mech.formalism : kd_dynamics_formalism_name(a->formalism), a->t_end,
            a->dynamics.t_reached, a->dynamics.steps, a->dynamics.factorizations, a->dynamics.rhs_evals);
}

const run_analysis run_dynamics_entry = {KD_ANALYSIS_DYNAMICS, run_dynamics, write_dynamics_summary, 1, NULL};
