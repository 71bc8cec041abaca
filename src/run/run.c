/* Running the analyses of a model and writing summary.json (kedyn/run.h): the dispatch of each
 * analysis to its route (the mechanism and elastic-link hooks, then the table of runners, one
 * file per analysis: run_internal.h), the animation and the common part of summary.json. */
#include "kedyn/run.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "kedyn/atomic_file.h"
#include "kedyn/kedyn.h"
#include "kedyn/report.h"
#include "output/output_util.h"
#include "run_cases.h"
#include "run_internal.h"
#include "run_links.h"
#include "run_mechanism.h"
#include "run_spatial.h"

static void analysis_report_free(kd_analysis_report* a) {
    kd_modes_free(&a->modes);
    kd_campbell_free(&a->campbell);
    kd_stability_free(&a->stability);
    kd_measure_result_free(&a->measure);
    for (int i = 0; i < a->nsub; i++) analysis_report_free(&a->sub[i]);
    free(a->sub);
    a->sub = NULL, a->nsub = 0;
}

void kd_run_report_free(kd_run_report* rep) {
    if (!rep) return;
    for (int i = 0; i < rep->nanalyses; i++) analysis_report_free(&rep->analyses[i]);
    free(rep->analyses);
    memset(rep, 0, sizeof(*rep));
}

static const char* analysis_name(kd_analysis_type t) { return kd_analysis_type_name(t); }

/* The runners of elastic-body analyses, one file each (run_internal.h). */
static const run_analysis* const runners[] = {
    &run_modes_entry, &run_campbell_entry, &run_stability_entry, &run_dynamics_entry, &run_sweep_entry,
    &run_spectrum_entry, &run_frf_entry, &run_identify_entry, &run_correlate_entry, &run_virtual_test_entry,
};

static const run_analysis* runner_of(kd_analysis_type t) {
    for (size_t i = 0; i < sizeof(runners) / sizeof(runners[0]); i++)
        if (runners[i]->type == t) return runners[i];
    return NULL;
}

/* One entry of "analyses": the common part, the hooks' parts (mechanisms, elastic links), the
 * analysis' own part (its runner file), then the files and the wall time. */
static void write_analysis(FILE* fp, const kd_analysis_report* a) {
    fprintf(fp, "    {\"type\": \"%s\", \"status\": \"%s\"", analysis_name(a->type), kd_status_name(a->status));
    if (a->message[0]) {
        fprintf(fp, ", \"message\": ");
        io_json_string(fp, a->message);
    }
    if (a->value) {  /* a run of a sweep */
        fprintf(fp, ", \"value\": ");
        io_json_array(fp, a->value, a->sweep->sweep.nset, 1.0);
    }
    run_mechanism_summary(fp, a);  /* mechanism analyses, also after a failure */
    run_links_summary(fp, a);      /* elastic links of mechanisms */
    const run_analysis* r = runner_of(a->type);
    if (r && r->write_summary) r->write_summary(fp, a, write_analysis);
    fprintf(fp, ",\n      \"files\": [");
    for (int k = 0; k < a->nfiles; k++) {
        fprintf(fp, "%s", k ? ", " : "");
        io_json_string(fp, a->files[k]);
    }
    fprintf(fp, "], \"wall_s\": %.6f}", a->wall_s);
}

/* first: the run's first summary, committed by removing the earlier one (kd_atomic_commit_removing) */
static kd_status write_summary(const char* path, const kd_desc* d, const kd_model* m, const char* model_path,
                               const kd_run_report* rep, int first, kd_error* err) {
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    FILE* fp = f.fp;
    fprintf(fp, "{\n  \"kedyn\": \"%s\",\n  \"model\": ", KD_VERSION_STRING);
    io_json_string(fp, model_path);
    fprintf(fp, ",\n  \"title\": ");
    io_json_string(fp, d->title);
    if (rep->animation) fprintf(fp, ",\n  \"animation\": \"animation.json\"");
    run_mechanism_model_summary(fp, d, m);  /* bodies, joints, DOF of a mechanism */
    run_spatial_model_summary(fp, d);       /* a spatial mechanism (run_spatial.c) */
    fprintf(fp, ",\n  \"complete\": %s,\n  \"dof\": %d,\n  \"nodes\": %d,\n  \"elements\": %d,\n",
            rep->complete ? "true" : "false", m->neq, m->nnode, m->nelem);
    fprintf(fp, "  \"mass_kg\": %.12g,\n  \"bodies\": [\n", m->total_mass);
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* body = &m->body[b];
        fprintf(fp, "    {\"name\": ");
        io_json_string(fp, body->name);
        if (body->type == KD_BODY_BEAM)
            fprintf(fp,
                    ", \"type\": \"beam\", \"theory\": \"%s\", \"interpolation\": \"%s\", \"planar\": %s, "
                    "\"elements\": %d, \"nodes\": %d, \"length\": %.12g, \"mass_kg\": %.12g}",
                    kd_theory_str(body->kind.theory), kd_interp_str(body->kind.interp),
                    body->kind.planar ? "true" : "false", body->elem_num, body->node_num, body->length, body->mass);
        else if (body->type == KD_BODY_PLATE)
            fprintf(fp,
                    ", \"type\": \"plate\", \"theory\": \"%s\", \"interpolation\": \"%s\", \"elements\": %d, "
                    "\"nodes\": %d, \"thickness\": %.12g, \"mass_kg\": %.12g}",
                    kd_theory_str(body->kind.theory), kd_interp_str(body->kind.interp), body->elem_num, body->node_num,
                    b < d->nbodies ? d->bodies[b].thickness : 0.0, body->mass);
        else if (body->type == KD_BODY_RIGID && b < d->nbodies)
            fprintf(fp, ", \"type\": \"rigid\", \"mass_kg\": %.12g}", d->bodies[b].mass);
        else
            fprintf(fp, ", \"type\": \"%s\"}", body->type == KD_BODY_RIGID ? "rigid" : "ground");
        fprintf(fp, "%s\n", b + 1 < m->nbody ? "," : "");
    }
    fprintf(fp, "  ],\n  \"analyses\": [\n");
    for (int i = 0; i < rep->nanalyses; i++) {
        write_analysis(fp, &rep->analyses[i]);
        fprintf(fp, "%s\n", i + 1 < rep->nanalyses ? "," : "");
    }
    fprintf(fp, "  ]\n}\n");
    return first ? kd_atomic_commit_removing(&f, err) : kd_atomic_commit(&f, err);
}

/* Runs one analysis: elastic links of a mechanism (run_links.c) and rigid mechanisms
 * (run_mechanism.c) first, then the runner of its type. */
static kd_status run_one(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    if (run_spatial_handles(c->d)) return run_spatial_analysis(c->d, ad, c->outdir, c->ordinal, c->anim, a, err);
    if (run_links_handles(c->d, ad)) return run_links_analysis(c, ad, a, err);
    if (run_mechanism_handles(c->d, ad))
        return run_mechanism_analysis(c->d, ad, c->outdir, c->ordinal, c->anim, a, err);
    const run_analysis* r = runner_of(ad->type);
    return r && r->run ? r->run(c, ad, a, err) : KD_OK;
}

kd_status kd_run(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                 kd_run_report* rep, kd_error* err) {
    return kd_run_with(d, m, model_path, outdir, NULL, rep, err);
}

/* 1 when the analysis records instants for the animation: every dynamics, the mechanism
 * analyses, not modes_along_motion. */
static int records(const kd_desc* d, const kd_analysis_desc* ad) {
    if (run_spatial_handles(d))  /* the poses of its bodies (run_spatial.c) */
        return ad->type == KD_ANALYSIS_DYNAMICS || ad->type == KD_ANALYSIS_KINEMATICS ||
               ad->type == KD_ANALYSIS_INVERSE_DYNAMICS;
    if (run_links_handles(d, ad)) return ad->type == KD_ANALYSIS_DYNAMICS;
    if (run_mechanism_handles(d, ad)) return 1;
    const run_analysis* r = runner_of(ad->type);
    return r && r->records;
}

/* The end time of an analysis that has one (0 otherwise). */
static double analysis_t_end(const kd_analysis_desc* ad) {
    switch (ad->type) {
    case KD_ANALYSIS_DYNAMICS: return ad->dynamics.t_end;
    case KD_ANALYSIS_KINEMATICS: return ad->kinematics.t_end;
    case KD_ANALYSIS_INVERSE_DYNAMICS: return ad->inverse_dynamics.t_end;
    case KD_ANALYSIS_MODES_ALONG_MOTION: {
        kd_modes_along_motion_desc ma = ad->modes_along_motion;
        kd_modes_along_motion_resolve(&ma);
        return ma.t_end;
    }
    default: return 0.0;
    }
}

/* The animation sets of a run (kedyn/report.h): the sets of analyses that have their own
 * (modes) and every analysis with recorded instants. */
static kd_status write_animation(const kd_desc* d, const kd_model* m, const char* outdir, kd_run_report* rep,
                                 kd_anim_recorder** rec, kd_error* err) {
    kd_anim_set sets[64];
    int n = 0;
    for (int i = 0; i < rep->nanalyses && n < 64; i++) {
        const kd_analysis_report* a = &rep->analyses[i];
        const run_analysis* r = runner_of(a->type);
        if (r && r->animation_set && r->animation_set(a, &d->analyses[i], i, &sets[n]))
            n++;
        else if (kd_anim_recorder_frames(rec[i]) > 0)  /* dynamics, and mechanism analyses */
            sets[n++] = (kd_anim_set){i, a->nfiles ? a->files[0] : "dynamics", NULL, 0.0, rec[i], analysis_name(a->type)};
    }
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", outdir);
    if (run_spatial_handles(d)) {  /* drawn in 3D from its bodies' poses */
        const kd_status sst = run_spatial_animation(d, path, sets, n, err);
        if (sst == KD_OK) rep->animation = 1;
        return sst;
    }
    kd_anim_shape* shapes = NULL;  /* rigid bodies and the ground of a mechanism */
    if (kd_desc_is_mechanism(d) && !(shapes = calloc((size_t)d->nbodies, sizeof(*shapes))))
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (shapes) kd_anim_mech_shapes(d, shapes);
    kd_status st = kd_write_animation_with(path, m, d->title, shapes, sets, n, err);
    free(shapes);
    if (st == KD_OK) rep->animation = 1;
    return st;
}

/* Parallel studies (run_cases.h): the key of the journals of --resume, the model file's bytes and
 * the version hashed (FNV-1a); and an MPI rank other than 0, which computes the cases of the
 * studies rank 0 hands out and writes nothing. */
static unsigned long long model_key(const char* model_path) {
    unsigned long long h = 14695981039346656037ull;
    for (const char* v = KD_VERSION_STRING; *v; v++) h = (h ^ (unsigned char)*v) * 1099511628211ull;
    FILE* fp = model_path ? fopen(model_path, "rb") : NULL;
    if (!fp) return h;
    int ch;
    while ((ch = getc(fp)) != EOF) h = (h ^ (unsigned char)ch) * 1099511628211ull;
    fclose(fp);
    return h;
}

/* summary.json during a study: what is committed so far, the study "in progress". */
typedef struct summary_checkpoint {
    const char* path;
    const kd_desc* d;
    const kd_model* m;
    const char* model_path;
    const kd_run_report* rep;
    kd_analysis_report* a;
} summary_checkpoint;

static void checkpoint_summary(void* ctx, int done, int n) {
    summary_checkpoint* ck = ctx;
    char keep[sizeof(ck->a->message)];
    memcpy(keep, ck->a->message, sizeof(keep));
    const kd_status status = ck->a->status;
    /* not finished: "numeric" with the count, so that no partial map or diagram reads as a result
     * (a sweep lists its runs so far) */
    ck->a->status = KD_ERR_NUMERIC;
    snprintf(ck->a->message, sizeof(ck->a->message), "in progress: %d of %d cases done", done, n);
    kd_error err;
    write_summary(ck->path, ck->d, ck->m, ck->model_path, ck->rep, 0, &err);  /* the final one says if it fails */
    memcpy(ck->a->message, keep, sizeof(keep));
    ck->a->status = status;
}

static int is_study(const kd_desc* d, const kd_analysis_desc* ad) {
    if (ad->type == KD_ANALYSIS_MODES_ALONG_MOTION)  /* its instants; a spatial mechanism's on rank 0 */
        return run_links_handles(d, ad) && !run_spatial_handles(d);
    return (ad->type == KD_ANALYSIS_SWEEP || ad->type == KD_ANALYSIS_CAMPBELL || ad->type == KD_ANALYSIS_STABILITY) &&
           !run_links_handles(d, ad) && !run_mechanism_handles(d, ad);
}

static kd_status run_worker_rank(const kd_desc* d, const kd_model* m, const char* outdir, unsigned long long key,
                                 const kd_run_options* opts, kd_error* err) {
    kd_status st = KD_OK;
    int ordinal[KD_ANALYSIS_TYPES] = {0};
    for (int i = 0; i < d->nanalyses && !st; i++) {
        const kd_analysis_desc* ad = &d->analyses[i];
        const int k = ++ordinal[ad->type];
        if (!is_study(d, ad)) continue;
        kd_analysis_report a;
        memset(&a, 0, sizeof(a));
        a.type = ad->type;
        const run_context c = {d, m, "", k, NULL, opts, i, d->nanalyses, run_one, NULL, key, NULL, NULL, outdir};
        st = run_one(&c, ad, &a, err);
        analysis_report_free(&a);
    }
    return st;
}

kd_status kd_run_with(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                      const kd_run_options* opts, kd_run_report* rep, kd_error* err) {
    kd_error local;
    if (!err) err = &local;
    memset(rep, 0, sizeof(*rep));
    const unsigned long long key = model_key(model_path);
    if (opts && opts->backend && opts->backend->rank > 0) return run_worker_rank(d, m, outdir, key, opts, err);
    kd_status st = kd_desc_check_resources(d, err);  /* steps and output sizes, before any file */
    if (!st) st = run_mechanism_precheck(d, err);       /* undriven kinematics: a model error */
    if (st) return st;
    st = kd_make_dirs(outdir, err);
    if (st) return st;
    /* One run at a time in OUTDIR: a second one stops here, before it writes anything. */
    int lock = -1;
    st = kd_outdir_lock(outdir, &lock, err);
    if (st) return st;
    if (opts && opts->resume) run_cases_clean_temps(outdir);  /* left by a killed run */
    char path[1200];
    snprintf(path, sizeof(path), "%s/summary.json", outdir);
    /* First a summary.json of this model with "complete": false and no analyses: an earlier
     * run's summary cannot describe the files this run renames in, even if it is killed. The
     * earlier one is removed just before the rename, not renamed over (kd_atomic_commit_removing):
     * the final summary then frees no blocks on the disk when it replaces this one
     * (docs/performance.md, "Replacing a file"). */
    st = write_summary(path, d, m, model_path, rep, 1, err);
    if (st) {
        kd_outdir_unlock(&lock);
        return st;
    }
    rep->analyses = calloc((size_t)(d->nanalyses ? d->nanalyses : 1), sizeof(*rep->analyses));
    kd_anim_recorder** rec = calloc((size_t)(d->nanalyses ? d->nanalyses : 1), sizeof(*rec));
    if (!rep->analyses || !rec) {
        free(rec);
        kd_outdir_unlock(&lock);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    const kd_progress_fn progress = opts ? opts->progress : NULL;

    int ordinal[KD_ANALYSIS_TYPES] = {0};  /* per analysis type, for file names */
    for (int i = 0; i < d->nanalyses && st == KD_OK && !kd_interrupted(); i++) {
        const kd_analysis_desc* ad = &d->analyses[i];
        kd_analysis_report* a = &rep->analyses[rep->nanalyses++];
        a->type = ad->type;
        const double t0 = util_now_s();
        const int k = ++ordinal[ad->type];
        if (progress) progress(opts->progress_ctx, i, d->nanalyses, analysis_name(ad->type), 0.0);
        summary_checkpoint ck = {path, d, m, model_path, rep, a};
        run_context c = {d, m, outdir, k, NULL, opts, i, d->nanalyses, run_one, rep->analyses, key, checkpoint_summary, &ck, NULL};
        if (opts && opts->animation && records(d, ad)) {
            st = run_spatial_handles(d) ? kd_anim_recorder_new_poses(run_spatial_bodies(d), analysis_t_end(ad), &rec[i], err)
                                        : kd_anim_recorder_new(m, analysis_t_end(ad), &rec[i], err);
            c.anim = rec[i];
        }
        if (st == KD_OK) st = run_one(&c, ad, a, err);
        if (progress && st == KD_OK) progress(opts->progress_ctx, i, d->nanalyses, analysis_name(ad->type), 1.0);
        a->wall_s = util_now_s() - t0;
        if (kd_interrupted()) {  /* the runner stopped at a row: what it wrote is kept */
            if (st == KD_OK || st == KD_ERR_NUMERIC)
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "interrupted by signal %d after %.3g s",
                                  kd_interrupted(), a->wall_s);
        }
        a->status = st;
        if (st) snprintf(a->message, sizeof(a->message), "%s", err->msg);
    }
    if (st == KD_OK && kd_interrupted())  /* between analyses */
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "interrupted by signal %d", kd_interrupted());
    rep->complete = st == KD_OK;

    /* The animation before summary.json, also after a numerical failure
     * (what was computed can be looked at). */
    if (opts && opts->animation && (st == KD_OK || st == KD_ERR_NUMERIC)) {
        kd_error aerr;
        if (write_animation(d, m, outdir, rep, rec, &aerr) && st == KD_OK) {
            *err = aerr;
            st = aerr.status;
        }
    }
    for (int i = 0; i < d->nanalyses; i++) kd_anim_recorder_free(&rec[i]);
    free(rec);

    /* summary.json last, also after a failure, so what was computed is described. */
    kd_error werr;
    const kd_status wst = write_summary(path, d, m, model_path, rep, 0, &werr);
    if (wst && st == KD_OK) {
        *err = werr;
        st = wst;
    }
    if (st == KD_OK) run_cases_forget(outdir);  /* complete: no case left to resume */
    kd_outdir_unlock(&lock);
    return st;
}
