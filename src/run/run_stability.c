/* The `stability` analysis (docs/model-format.md, "Analyses"): the critical speed of a rotating
 * beam or plate over a grid of hub radii and lengths (and a plate's thicknesses), each grid point a case of the scheduler
 * (run_cases.h: threads, MPI ranks, --resume). */
#include "run_cases.h"
#include "run_internal.h"

#include "core/util.h"
#include "kedyn/kedyn.h"
#include "output/output_util.h"

typedef struct stab_cases {
    const kd_desc* d;
    const kd_stability_desc* ad;
    int body;
    kd_stability_map* map;
} stab_cases;

/* Grid point i = ((hub, length), thickness) in [hub][length][thickness] order (one thickness,
 * the body's own, without `thicknesses`): omega_cr. */
static kd_status stab_compute(void* ctx, int i, const char* outdir, int remote, run_buf* out, kd_error* err) {
    (void)outdir, (void)remote;
    const stab_cases* sc = ctx;
    const kd_stability_desc* ad = sc->ad;
    const int nt = ad->nthicknesses > 0 ? ad->nthicknesses : 1, hl = i / nt;
    double w = 0.0;
    const kd_status st = kd_stability_point_thickness(sc->d, sc->body, ad->hubs[hl / ad->nlengths],
                                                      ad->lengths[hl % ad->nlengths],
                                                      ad->nthicknesses > 0 ? ad->thicknesses[i % nt] : 0.0,
                                                      ad->omega_max, &w, err);
    run_buf_put_doubles(out, &w, 1);
    return st;
}

static kd_status stab_commit(void* ctx, int i, kd_status st, const char* msg, run_reader* in, kd_error* err) {
    stab_cases* sc = ctx;
    if (st) return kd_error_set(err, st, "", KD_LOC_NONE, "%s", msg);
    run_get_doubles(in, &sc->map->omega_cr[i], 1);
    return KD_OK;
}

static kd_status run_stability(const run_context* c, const kd_analysis_desc* analysis, kd_analysis_report* a,
                               kd_error* err) {
    const kd_stability_desc* ad = &analysis->stability;
    const int body = kd_desc_rotating_body(c->d, ad->body);
    kd_status st = kd_stability_map_init(&a->stability, ad->hubs, ad->nhubs, ad->lengths, ad->nlengths, ad->omega_max, err);
    if (!st) st = kd_stability_map_thicknesses(&a->stability, ad->thicknesses, ad->nthicknesses, err);
    if (st) return st;
    stab_cases sc = {c->d, ad, body, &a->stability};
    const int nt = ad->nthicknesses > 0 ? ad->nthicknesses : 1;
    const run_case_set set = {"stability", ad->nhubs * ad->nlengths * nt, &sc, stab_compute, stab_commit};
    st = run_cases(c, &set, err);
    if (st || run_cases_worker(c)) {
        kd_stability_free(&a->stability);
        return st;
    }
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
    if (m->nthick > 0) {  /* a plate's third axis: omega_cr [hub][length][thickness] */
        fprintf(fp, ", \"thickness_m\": ");
        io_json_array(fp, m->thickness, m->nthick, 1.0);
    }
    fprintf(fp, ", \"omega_max_rad_s\": %.12g,\n      \"omega_cr_rad_s\": [", m->omega_max);
    for (int i = 0; i < m->nhubs; i++) {
        fprintf(fp, "%s", i ? ", " : "");
        if (m->nthick > 0) {
            fprintf(fp, "[");
            for (int j = 0; j < m->nlengths; j++) {
                fprintf(fp, "%s", j ? ", " : "");
                util_json_numbers(fp, "%.12g", ", ", m->omega_cr + ((size_t)i * m->nlengths + j) * m->nthick, m->nthick,
                                  "null");
            }
            fprintf(fp, "]");
        } else {
            util_json_numbers(fp, "%.12g", ", ", m->omega_cr + (size_t)i * m->nlengths, m->nlengths, "null");
        }
    }
    fprintf(fp, "]");
}

const run_analysis run_stability_entry = {KD_ANALYSIS_STABILITY, run_stability, write_stability_summary, 0, NULL};
