/* The `stability` analysis (docs/model-format.md, "Analyses"): the critical speed of a rotating
 * beam over a grid of hub radii and lengths. */
#include "run_internal.h"

#include "core/util.h"
#include "kedyn/kedyn.h"
#include "output/output_util.h"

static kd_status run_stability(const run_context* c, const kd_analysis_desc* analysis, kd_analysis_report* a,
                               kd_error* err) {
    const kd_stability_desc* ad = &analysis->stability;
    const int body = kd_desc_rotating_body(c->d, ad->body);
    kd_status st = kd_stability_run(c->d, body, ad->hubs, ad->nhubs, ad->lengths, ad->nlengths, ad->omega_max,
                                    &a->stability, err);
    if (st) return st;
    char path[1200];
    io_result_path(c->outdir, "stability", c->ordinal, a, path, sizeof(path));
    st = kd_write_stability_csv(path, &a->stability, err);
    if (st == KD_OK) a->nfiles++;
    return st;
}

static void write_stability_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    if (a->status != KD_OK) return;
    const kd_stability_map* m = &a->stability;
    fprintf(fp, ",\n      \"hub_m\": ");
    io_json_array(fp, m->hub, m->nhubs, 1.0);
    fprintf(fp, ", \"length_m\": ");
    io_json_array(fp, m->length, m->nlengths, 1.0);
    fprintf(fp, ", \"omega_max_rad_s\": %.12g,\n      \"omega_cr_rad_s\": [", m->omega_max);
    for (int i = 0; i < m->nhubs; i++) {
        fprintf(fp, "%s", i ? ", " : "");
        util_json_numbers(fp, "%.12g", ", ", m->omega_cr + (size_t)i * m->nlengths, m->nlengths, "null");
    }
    fprintf(fp, "]");
}

const run_analysis run_stability_entry = {KD_ANALYSIS_STABILITY, run_stability, write_stability_summary, 0, NULL};
