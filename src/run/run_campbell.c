/* The `campbell` analysis (docs/model-format.md, "Analyses"): the modes of a rotating body over
 * its speeds, followed by MAC. The modes at each speed are a case of the scheduler (run_cases.h:
 * threads, MPI ranks, --resume); the tracking from speed to speed runs as they are committed, in
 * speed order. */
#include <stdlib.h>

#include "run_cases.h"
#include "run_internal.h"

#include "kedyn/kedyn.h"
#include "output/output_util.h"

typedef struct camp_cases {
    const kd_model* m;
    const kd_campbell_desc* ad;
    int body;
    kd_campbell* out;
    kd_campbell_track t;
} camp_cases;

/* The modes at speed i: count, neq, unstable, omega, growth, shapes. */
static kd_status camp_compute(void* ctx, int i, const char* outdir, int remote, run_buf* out, kd_error* err) {
    (void)outdir, (void)remote;
    const camp_cases* cc = ctx;
    kd_modes r;
    const kd_status st =
        kd_campbell_modes_at(cc->m, cc->body, cc->ad->speeds[i], kd_campbell_modes_wanted(&cc->t, i), &r, err);
    if (st) return st;
    run_buf_put_int(out, r.count);
    run_buf_put_int(out, r.neq);
    run_buf_put_int(out, r.unstable);
    run_buf_put_doubles(out, r.omega, (size_t)r.count);
    run_buf_put_doubles(out, r.growth, (size_t)r.count);
    run_buf_put_doubles(out, r.shape, (size_t)r.count * (size_t)r.neq);
    run_buf_put_int(out, r.shape_im != NULL);
    if (r.shape_im) run_buf_put_doubles(out, r.shape_im, (size_t)r.count * (size_t)r.neq);
    kd_modes_free(&r);
    return KD_OK;
}

static kd_status camp_commit(void* ctx, int i, kd_status st, const char* msg, run_reader* in, kd_error* err) {
    camp_cases* cc = ctx;
    if (st) return kd_error_set(err, st, "", KD_LOC_NONE, "%s", msg);
    kd_modes r = {0};
    r.count = run_get_int(in);
    r.neq = run_get_int(in);
    r.unstable = run_get_int(in);
    if (in->bad || r.count < 0 || r.neq != cc->t.n || r.count > cc->t.extra)
        return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "campbell: a damaged result at speed %d", i + 1);
    r.omega = malloc(sizeof(double) * ((size_t)r.count + 1));
    r.growth = malloc(sizeof(double) * ((size_t)r.count + 1));
    r.shape = malloc(sizeof(double) * ((size_t)r.count * (size_t)r.neq + 1));
    if (!r.omega || !r.growth || !r.shape) {
        kd_modes_free(&r);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the Campbell diagram");
    }
    run_get_doubles(in, r.omega, (size_t)r.count);
    run_get_doubles(in, r.growth, (size_t)r.count);
    run_get_doubles(in, r.shape, (size_t)r.count * (size_t)r.neq);
    if (run_get_int(in) && !in->bad) {  /* the imaginary parts of a moving system's shapes */
        r.shape_im = malloc(sizeof(double) * ((size_t)r.count * (size_t)r.neq + 1));
        if (!r.shape_im) {
            kd_modes_free(&r);
            return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the Campbell diagram");
        }
        run_get_doubles(in, r.shape_im, (size_t)r.count * (size_t)r.neq);
    }
    kd_campbell_add(cc->out, &cc->t, i, &r);
    kd_modes_free(&r);
    return in->bad ? kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "campbell: a damaged result at speed %d", i + 1)
                   : KD_OK;
}

static kd_status run_campbell(const run_context* c, const kd_analysis_desc* analysis, kd_analysis_report* a,
                              kd_error* err) {
    const kd_campbell_desc* ad = &analysis->campbell;
    camp_cases cc = {c->m, ad, kd_desc_rotating_body(c->d, ad->body), &a->campbell, {0}};
    kd_status st = kd_campbell_begin(c->m, ad->speeds, ad->nspeeds, ad->count, &a->campbell, &cc.t, err);
    if (st) return st;
    const run_case_set set = {"campbell", ad->nspeeds, &cc, camp_compute, camp_commit};
    st = run_cases(c, &set, err);
    kd_campbell_track_free(&cc.t);
    if (st || run_cases_worker(c)) {
        kd_campbell_free(&a->campbell);
        return st;
    }
    for (int i = 0; i < a->campbell.nspeeds; i++)
        if (a->campbell.unstable[i]) {
            snprintf(a->message, sizeof(a->message), "unstable from %g rad/s on (above the critical speed)",
                     a->campbell.speed[i]);
            break;
        }
    char path[1200];
    io_result_path(c->outdir, "campbell", c->ordinal, a, path, sizeof(path));
    st = kd_write_campbell_csv(path, &a->campbell, err);
    if (st == KD_OK) a->nfiles++;
    return st;
}

static void write_campbell_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    if (a->status != KD_OK) return;
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
}

const run_analysis run_campbell_entry = {KD_ANALYSIS_CAMPBELL, run_campbell, write_campbell_summary, 0, NULL};
