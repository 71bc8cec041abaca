/* Running the analyses of a model and writing summary.json (kedyn/run.h). */
#include "kedyn/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kedyn/atomic_file.h"
#include "output/output_util.h"
#include "kedyn/kedyn.h"
#include "kedyn/report.h"
#include "run_links.h"
#include "run_mechanism.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void analysis_report_free(kd_analysis_report* a) {
    kd_modes_free(&a->modes);
    kd_campbell_free(&a->campbell);
    kd_stability_free(&a->stability);
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

static const char* solver_name(kd_eigen_solver s) {
    return s == KD_EIGEN_LANCZOS ? "lanczos" : (s == KD_EIGEN_DENSE ? "dense" : "auto");
}

static const char* analysis_name(kd_analysis_type t) { return kd_analysis_type_name(t); }

/* A JSON number, or null for a non-finite value. */
static void json_number(FILE* fp, double v) {
    if (isfinite(v)) fprintf(fp, "%.12g", v);
    else fprintf(fp, "null");
}

static void write_analysis(FILE* fp, const kd_analysis_report* a);

static void write_results(FILE* fp, const kd_analysis_report* a) {
    const double pi = 3.14159265358979323846;
    switch (a->type) {
    case KD_ANALYSIS_MODES: {
        const kd_modes* r = &a->modes;
        fprintf(fp, ", \"count\": %d, \"solver\": \"%s\",\n      \"omega_rad_s\": ", r->count,
                r->growth ? "state-space" : solver_name(r->solver));
        io_json_array(fp, r->omega, r->count, 1.0);
        fprintf(fp, ",\n      \"frequency_hz\": ");
        io_json_array(fp, r->omega, r->count, 0.5 / pi);
        if (r->growth) {
            fprintf(fp, ",\n      \"growth_rate_1_s\": ");
            io_json_array(fp, r->growth, r->count, 1.0);
            fprintf(fp, ", \"unstable\": %s", r->unstable ? "true" : "false");
        }
        break;
    }
    case KD_ANALYSIS_CAMPBELL: {
        const kd_campbell* c = &a->campbell;
        fprintf(fp, ", \"count\": %d,\n      \"speeds_rad_s\": ", c->count);
        io_json_array(fp, c->speed, c->nspeeds, 1.0);
        fprintf(fp, ",\n      \"omega_rad_s\": [");
        for (int i = 0; i < c->nspeeds; i++) {
            fprintf(fp, "%s", i ? ", " : "");
            io_json_array(fp, c->omega + (size_t)i * c->count, c->count, 1.0);
        }
        fprintf(fp, "],\n      \"tracking_mac_min\": ");
        io_json_array(fp, c->mac_min, c->nspeeds, 1.0);
        break;
    }
    case KD_ANALYSIS_STABILITY: {
        const kd_stability_map* m = &a->stability;
        fprintf(fp, ",\n      \"hub_m\": ");
        io_json_array(fp, m->hub, m->nhubs, 1.0);
        fprintf(fp, ", \"length_m\": ");
        io_json_array(fp, m->length, m->nlengths, 1.0);
        fprintf(fp, ", \"omega_max_rad_s\": %.12g,\n      \"omega_cr_rad_s\": [", m->omega_max);
        for (int i = 0; i < m->nhubs; i++) {
            fprintf(fp, "%s[", i ? ", " : "");
            for (int j = 0; j < m->nlengths; j++) {
                fprintf(fp, "%s", j ? ", " : "");
                json_number(fp, m->omega_cr[(size_t)i * m->nlengths + j]);
            }
            fprintf(fp, "]");
        }
        fprintf(fp, "]");
        break;
    }
    case KD_ANALYSIS_DYNAMICS: break;
    case KD_ANALYSIS_KINEMATICS:
    case KD_ANALYSIS_INVERSE_DYNAMICS:
    case KD_ANALYSIS_SWEEP:
    case KD_ANALYSIS_MODES_ALONG_MOTION:
    case KD_ANALYSIS_TYPES: break;
    }
    if (a->nsub) {  /* a sweep, also after a failure: the runs made */
        fprintf(fp, ", \"set\": [");
        for (int k = 0; k < a->sweep->sweep.nset; k++) {
            fprintf(fp, "%s", k ? ", " : "");
            io_json_string(fp, a->sweep->sweep.set[k]);
        }
        fprintf(fp, "],\n      \"runs\": [\n");
        for (int i = 0; i < a->nsub; i++) {
            fprintf(fp, "  ");
            write_analysis(fp, &a->sub[i]);
            fprintf(fp, "%s\n", i + 1 < a->nsub ? "," : "");
        }
        fprintf(fp, "      ]");
    }
}

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
    if (a->status == KD_OK || a->nsub) write_results(fp, a);
    run_mechanism_summary(fp, a);  /* mechanism analyses, also after a failure */
    run_links_summary(fp, a);   /* elastic links of mechanisms */
    if (a->type == KD_ANALYSIS_DYNAMICS)  /* also after a failure: how far it got */
        fprintf(fp, ", \"integrator\": \"%s\", \"formalism\": \"%s\", \"t_end\": %.12g, \"t_reached\": %.12g, "
                    "\"steps\": %ld, \"factorizations\": %ld",
                kd_dynamics_integrator_name(a->integrator), a->mech.formalism ? a->mech.formalism : kd_dynamics_formalism_name(a->formalism), a->t_end, a->dynamics.t_reached, a->dynamics.steps,
                a->dynamics.factorizations);
    fprintf(fp, ",\n      \"files\": [");
    for (int k = 0; k < a->nfiles; k++) {
        fprintf(fp, "%s", k ? ", " : "");
        io_json_string(fp, a->files[k]);
    }
    fprintf(fp, "], \"wall_s\": %.6f}", a->wall_s);
}

static kd_status write_summary(const char* path, const kd_desc* d, const kd_model* m, const char* model_path,
                               const kd_run_report* rep, kd_error* err) {
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
    return kd_atomic_commit(&f, err);
}

static int model_moves(const kd_model* m) {
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].motion.type != KD_MOTION_NONE) return 1;
    return 0;
}

/* One modes analysis: symmetric solvers for a structure at rest, the
 * state-space solver (gyroscopic, damping) when a frame moves. */
static kd_status run_modes(const kd_modes_desc* ad, const kd_model* m, const char* outdir, int ordinal,
                           kd_analysis_report* a, kd_error* err) {
    kd_status st;
    if (model_moves(m)) {
        kd_system s;
        st = kd_system_init(&s, m, err);
        if (st) return st;
        st = kd_modes_state_space(&s, ad->at, ad->count, &a->modes, err);
        kd_system_free(&s);
    } else {
        st = kd_modes_solve(m, ad->count, ad->solver, &a->modes, err);
    }
    if (st) return st;
    if (a->modes.count < ad->count)
        snprintf(a->message, sizeof(a->message), "count %d exceeds the %d modes of the model; computed %d", ad->count,
                 m->neq, a->modes.count);
    if (a->modes.unstable)
        snprintf(a->message, sizeof(a->message),
                 "unstable at t = %g s: an eigenvalue has a positive real part (above the critical speed?)", ad->at);
    char path[1200];
    io_result_path(outdir, "modes", ordinal, a, path, sizeof(path));
    st = kd_write_modes_csv(path, m, &a->modes, err);
    if (st == KD_OK) a->nfiles++;
    return st;
}

static kd_status run_campbell(const kd_desc* d, const kd_campbell_desc* ad, const kd_model* m, const char* outdir,
                              int ordinal, kd_analysis_report* a, kd_error* err) {
    const int body = kd_desc_rotating_body(d, ad->body);
    kd_status st = kd_campbell_run(m, body, ad->speeds, ad->nspeeds, ad->count, &a->campbell, err);
    if (st) return st;
    for (int i = 0; i < a->campbell.nspeeds; i++)
        if (a->campbell.unstable[i]) {
            snprintf(a->message, sizeof(a->message), "unstable from %g rad/s on (above the critical speed)",
                     a->campbell.speed[i]);
            break;
        }
    char path[1200];
    io_result_path(outdir, "campbell", ordinal, a, path, sizeof(path));
    st = kd_write_campbell_csv(path, &a->campbell, err);
    if (st == KD_OK) a->nfiles++;
    return st;
}

static kd_status run_stability(const kd_desc* d, const kd_stability_desc* ad, const char* outdir, int ordinal,
                               kd_analysis_report* a, kd_error* err) {
    const int body = kd_desc_rotating_body(d, ad->body);
    kd_status st = kd_stability_run(d, body, ad->hubs, ad->nhubs, ad->lengths, ad->nlengths, ad->omega_max,
                                    &a->stability, err);
    if (st) return st;
    char path[1200];
    io_result_path(outdir, "stability", ordinal, a, path, sizeof(path));
    st = kd_write_stability_csv(path, &a->stability, err);
    if (st == KD_OK) a->nfiles++;
    return st;
}

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
} history;

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
    fprintf(h->fp, "%.10g", t);
    for (int c = 0; c < h->ncol; c++) fprintf(h->fp, ",%.10e", h->eq[c] < 0 ? 0.0 : q[h->eq[c]]);
    if (e) fprintf(h->fp, ",%.10e,%.10e,%.10e,%.4e", e[0], e[1], e[2], e[3]);
    fputc('\n', h->fp);
    kd_anim_record(h->anim, t, q);
    /* Progress at most every 0.1 % of the time span. */
    if (h->opts && h->opts->progress && t - h->t_reported >= 1e-3 * h->t_end) {
        h->t_reported = t;
        h->opts->progress(h->opts->progress_ctx, h->index, h->count, "dynamics", t / h->t_end);
    }
    return ferror(h->fp) != 0;
}

/* A dynamics analysis. After a numerical failure the history up to it is
 * still a whole CSV file and is kept under its name; the run then reports
 * the failure (summary.json: "complete": false). */
static kd_status run_dynamics(const kd_desc* d, const kd_analysis_desc* ad, const kd_model* m, const char* outdir,
                              int ordinal, history* hist, kd_analysis_report* a, kd_error* err) {
    char path[1200];
    io_result_path(outdir, "dynamics", ordinal, a, path, sizeof(path));
    kd_dynamics_desc dy = ad->dynamics;  /* what runs: the elastic route's defaults for UNSET */
    kd_dynamics_resolve(&dy, KD_ROUTE_ELASTIC);
    a->t_end = dy.t_end;
    a->integrator = dy.integrator;
    a->formalism = dy.formalism;
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    history h = *hist;
    h.fp = f.fp, h.energy = dy.energy, h.t_end = dy.t_end;
    st = history_columns(d, m, &h, err);
    if (!st) st = kd_dynamics_run(m, ad, history_row, &h, &a->dynamics, a->message, (int)sizeof(a->message), err);
    free(h.eq);
    if (st && st != KD_ERR_NUMERIC) {
        kd_atomic_abort(&f);
        return st;
    }
    kd_error werr;
    const kd_status wst = kd_atomic_commit(&f, &werr);
    if (wst == KD_OK) a->nfiles++;
    else if (st == KD_OK) *err = werr, st = wst;
    return st;
}

static kd_status run_one(const kd_desc* d, const kd_analysis_desc* ad, const kd_model* m, const char* outdir,
                         int ordinal, history* h, kd_analysis_report* a, kd_error* err);

/* A sweep: the inner analysis once per value of the parameter, each on a
 * copy of the description with that value, recompiled; run k of sweep s
 * writes its files as sweep[s]_vK_NAME.csv. Stops at the first failure. */
static kd_status run_sweep(const kd_desc* d, const kd_analysis_desc* ad, const char* outdir, int ordinal,
                           kd_analysis_report* a, kd_error* err) {
    const kd_sweep_desc* sw = &ad->sweep;
    a->sweep = ad;
    a->sub = calloc((size_t)sw->nruns, sizeof(*a->sub));
    if (!a->sub) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = KD_OK;
    for (int i = 0; i < sw->nruns && !st; i++) {
        kd_analysis_report* r = &a->sub[a->nsub++];
        r->type = sw->inner->type;
        r->sweep = ad;
        r->value = sw->values + (size_t)i * sw->nset;
        if (ordinal == 1) snprintf(r->prefix, sizeof(r->prefix), "sweep_v%d_", i + 1);
        else snprintf(r->prefix, sizeof(r->prefix), "sweep%d_v%d_", ordinal, i + 1);
        const double t0 = now_s();
        kd_desc dv;
        kd_model* mv = NULL;
        st = kd_desc_with_param(d, sw->nset, sw->set, r->value, &dv, err);
        if (st) {
            r->status = st;
            break;
        }
        kd_analysis_desc inner;  /* the analysis with its own swept numbers (analysis.KEY) */
        st = kd_analysis_with_param(sw->inner, sw->nset, sw->set, r->value, &inner, err);
        if (!st) st = kd_desc_check(&dv, err);
        if (!st) st = kd_model_compile(&dv, &mv, err);
        history h = {NULL, 0, NULL, 0, NULL, NULL, 0, 0, 0.0, 0.0};  /* no progress or animation per run */
        if (!st) st = run_one(&dv, &inner, mv, outdir, 1, &h, r, err);
        if (st) {
            /* say which value failed */
            char msg[sizeof(err->msg) + 200];
            snprintf(msg, sizeof(msg), "%s = %g%s: %s", sw->set[0], r->value[0], sw->nset > 1 ? ", ..." : "", err->msg);
            memcpy(err->msg, msg, sizeof(err->msg) - 1);  /* a long message is cut */
            err->msg[sizeof(err->msg) - 1] = '\0';
            snprintf(r->message, sizeof(r->message), "%s", err->msg);
        }
        r->status = st;
        r->wall_s = now_s() - t0;
        kd_model_free(&mv);
        kd_desc_with_param_free(&dv);
    }
    return st;
}

static kd_status run_one(const kd_desc* d, const kd_analysis_desc* ad, const kd_model* m, const char* outdir,
                         int ordinal, history* h, kd_analysis_report* a, kd_error* err) {
    /* elastic links of a mechanism (run_links.c), rigid mechanisms (run_mechanism.c) */
    if (run_links_handles(d, ad)) return run_links_analysis(d, ad, outdir, ordinal, h->anim, a, err);
    if (run_mechanism_handles(d, ad)) return run_mechanism_analysis(d, ad, outdir, ordinal, h->anim, a, err);
    switch (ad->type) {
    case KD_ANALYSIS_MODES: return run_modes(&ad->modes, m, outdir, ordinal, a, err);
    case KD_ANALYSIS_CAMPBELL: return run_campbell(d, &ad->campbell, m, outdir, ordinal, a, err);
    case KD_ANALYSIS_STABILITY: return run_stability(d, &ad->stability, outdir, ordinal, a, err);
    case KD_ANALYSIS_DYNAMICS: return run_dynamics(d, ad, m, outdir, ordinal, h, a, err);
    case KD_ANALYSIS_SWEEP: return run_sweep(d, ad, outdir, ordinal, a, err);
    case KD_ANALYSIS_KINEMATICS:
    case KD_ANALYSIS_INVERSE_DYNAMICS:
    case KD_ANALYSIS_MODES_ALONG_MOTION:
    case KD_ANALYSIS_TYPES: break;
    }
    return KD_OK;
}

kd_status kd_run(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                 kd_run_report* rep, kd_error* err) {
    return kd_run_with(d, m, model_path, outdir, NULL, rep, err);
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

/* The animation sets of a run: every successful modes analysis and every
 * dynamics analysis with recorded instants (kedyn/report.h). */
static kd_status write_animation(const kd_desc* d, const kd_model* m, const char* outdir, kd_run_report* rep,
                                 kd_anim_recorder** rec, kd_error* err) {
    kd_anim_set sets[64];
    int n = 0;
    for (int i = 0; i < rep->nanalyses && n < 64; i++) {
        const kd_analysis_report* a = &rep->analyses[i];
        if (a->type == KD_ANALYSIS_MODES && a->status == KD_OK && a->modes.count > 0)
            sets[n++] = (kd_anim_set){i, a->files[0], &a->modes, d->analyses[i].modes.at, NULL, NULL};
        else if (kd_anim_recorder_frames(rec[i]) > 0)  /* dynamics, and mechanism analyses */
            sets[n++] = (kd_anim_set){i, a->nfiles ? a->files[0] : "dynamics", NULL, 0.0, rec[i], analysis_name(a->type)};
    }
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", outdir);
    kd_anim_shape* shapes = NULL;  /* rigid bodies and the ground of a mechanism */
    if (kd_desc_is_mechanism(d) && !(shapes = calloc((size_t)d->nbodies, sizeof(*shapes))))
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (shapes) kd_anim_mech_shapes(d, shapes);
    kd_status st = kd_write_animation_with(path, m, d->title, shapes, sets, n, err);
    free(shapes);
    if (st == KD_OK) rep->animation = 1;
    return st;
}

kd_status kd_run_with(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                      const kd_run_options* opts, kd_run_report* rep, kd_error* err) {
    kd_error local;
    if (!err) err = &local;
    memset(rep, 0, sizeof(*rep));
    kd_status st = kd_make_dirs(outdir, err);
    if (st) return st;
    rep->analyses = calloc((size_t)(d->nanalyses ? d->nanalyses : 1), sizeof(*rep->analyses));
    kd_anim_recorder** rec = calloc((size_t)(d->nanalyses ? d->nanalyses : 1), sizeof(*rec));
    if (!rep->analyses || !rec) {
        free(rec);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    const kd_progress_fn progress = opts ? opts->progress : NULL;

    int ordinal[KD_ANALYSIS_TYPES] = {0};  /* per analysis type, for file names */
    for (int i = 0; i < d->nanalyses && st == KD_OK; i++) {
        const kd_analysis_desc* ad = &d->analyses[i];
        kd_analysis_report* a = &rep->analyses[rep->nanalyses++];
        a->type = ad->type;
        const double t0 = now_s();
        const int k = ++ordinal[ad->type];
        if (progress) progress(opts->progress_ctx, i, d->nanalyses, analysis_name(ad->type), 0.0);
        history h = {NULL, 0, NULL, 0, NULL, opts, i, d->nanalyses, 0.0, 0.0};
        if (opts && opts->animation && (!run_links_handles(d, ad) || ad->type == KD_ANALYSIS_DYNAMICS) &&
            (run_mechanism_handles(d, ad) || ad->type == KD_ANALYSIS_DYNAMICS)) {
            st = kd_anim_recorder_new(m, analysis_t_end(ad), &rec[i], err);
            h.anim = rec[i];
        }
        if (st == KD_OK) st = run_one(d, ad, m, outdir, k, &h, a, err);
        if (progress && st == KD_OK) progress(opts->progress_ctx, i, d->nanalyses, analysis_name(ad->type), 1.0);
        a->wall_s = now_s() - t0;
        a->status = st;
        if (st) snprintf(a->message, sizeof(a->message), "%s", err->msg);
    }
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
    char path[1200];
    snprintf(path, sizeof(path), "%s/summary.json", outdir);
    kd_error werr;
    const kd_status wst = write_summary(path, d, m, model_path, rep, &werr);
    if (wst && st == KD_OK) {
        *err = werr;
        st = wst;
    }
    return st;
}
