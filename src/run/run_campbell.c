/* The `campbell` analysis (docs/model-format.md, "Analyses"): the modes of a rotating body over
 * its speeds, followed by MAC. */
#include "run_internal.h"

#include "kedyn/kedyn.h"
#include "output/output_util.h"

static kd_status run_campbell(const run_context* c, const kd_analysis_desc* analysis, kd_analysis_report* a,
                              kd_error* err) {
    const kd_campbell_desc* ad = &analysis->campbell;
    const int body = kd_desc_rotating_body(c->d, ad->body);
    kd_status st = kd_campbell_run(c->m, body, ad->speeds, ad->nspeeds, ad->count, &a->campbell, err);
    if (st) return st;
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
