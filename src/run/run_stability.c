/* The `stability` analysis (docs/model-format.md, "Analyses"): the critical speed of a rotating
 * beam or plate over a grid of hub radii and lengths (and a plate's thicknesses), each grid point a case of the scheduler
 * (run_cases.h: threads, MPI ranks, --resume). The thread (or rank) that computes a point formats
 * its CSV row, and the rows are written as the points are committed, into the file's temporary
 * name, renamed when the map is complete (docs/performance.md, "The serial part of a study"). */
#include "run_cases.h"
#include "run_internal.h"

#include <math.h>
#include <string.h>

#include "kedyn/kedyn.h"
#include "output/output_util.h"
#include "output/stability_rows.h"

typedef struct stab_cases {
    const kd_desc* d;
    const kd_stability_desc* ad;
    int body;
    kd_stability_map* map;
    kd_atomic_file csv;  /* the map's CSV, under its temporary name (not on a rank other than 0) */
} stab_cases;

/* Grid point i = ((hub, length), thickness) in [hub][length][thickness] order (one thickness,
 * the body's own, without `thicknesses`): omega_cr, then its CSV row (the map's axes are set
 * before the cases and only read here). */
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
    char row[IO_STABILITY_ROW_MAX];
    run_buf_put(out, row, (size_t)io_stability_csv_row(row, sc->map, (size_t)i, w));
    return st;
}

static kd_status stab_commit(void* ctx, int i, kd_status st, const char* msg, run_reader* in, kd_error* err) {
    stab_cases* sc = ctx;
    if (st) return kd_error_set(err, st, "", KD_LOC_NONE, "%s", msg);
    run_get_doubles(in, &sc->map->omega_cr[i], 1);
    if (in->bad) return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "stability: a damaged result of point %d", i + 1);
    char row[IO_STABILITY_ROW_MAX];
    const char* p = (const char*)in->p;
    size_t len = in->left;
    if (!len) p = row, len = (size_t)io_stability_csv_row(row, sc->map, (size_t)i, sc->map->omega_cr[i]);  /* a journal record of an older kedyn: no row */
    if (fwrite(p, 1, len, sc->csv.fp) != len)
        return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot write the stability map's CSV");
    in->p += in->left, in->left = 0;
    return KD_OK;
}

static kd_status run_stability(const run_context* c, const kd_analysis_desc* analysis, kd_analysis_report* a,
                               kd_error* err) {
    const kd_stability_desc* ad = &analysis->stability;
    const int body = kd_desc_rotating_body(c->d, ad->body);
    kd_status st = kd_stability_map_init(&a->stability, ad->hubs, ad->nhubs, ad->lengths, ad->nlengths, ad->omega_max, err);
    if (!st) st = kd_stability_map_thicknesses(&a->stability, ad->thicknesses, ad->nthicknesses, err);
    if (st) return st;
    stab_cases sc = {c->d, ad, body, &a->stability, {0}};
    const int worker = run_cases_worker(c);
    if (!worker) {  /* the file as kd_write_stability_csv writes it, row by row */
        st = io_open_result(&sc.csv, c->outdir, "stability", c->ordinal, a, err);
        if (st) {
            kd_stability_free(&a->stability);
            return st;
        }
        fputs(io_stability_csv_head(&a->stability), sc.csv.fp);
    }
    const int nt = ad->nthicknesses > 0 ? ad->nthicknesses : 1;
    const run_case_set set = {"stability", ad->nhubs * ad->nlengths * nt, &sc, stab_compute, stab_commit};
    st = run_cases(c, &set, err);
    if (st || worker) {
        if (!worker) kd_atomic_abort(&sc.csv);
        kd_stability_free(&a->stability);
        return st;
    }
    st = kd_atomic_commit(&sc.csv, err);
    if (st == KD_OK) a->nfiles++;
    return st;
}

/* The critical speeds as util_json_numbers(fp, "%.12g", ", ", v, n, "null") writes them, with
 * the number formatter of the CSV files (fmt_num.h, byte for byte printf's): 1 600 of them were a
 * third of what the committing thread did after a 40 x 40 map's cases (docs/performance.md, "The
 * serial part of a study"). */
static void json_speeds(FILE* fp, const double* v, int n) {
    char buf[IO_FMT_MAX + 2];
    fputc('[', fp);
    for (int i = 0; i < n; i++) {
        int len = 0;
        if (i) buf[len++] = ',', buf[len++] = ' ';
        if (isfinite(v[i])) len += io_fmt_g(buf + len, v[i], 12);
        else memcpy(buf + len, "null", 4), len += 4;
        fwrite(buf, 1, (size_t)len, fp);
    }
    fputc(']', fp);
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
                json_speeds(fp, m->omega_cr + ((size_t)i * m->nlengths + j) * m->nthick, m->nthick);
            }
            fprintf(fp, "]");
        } else {
            json_speeds(fp, m->omega_cr + (size_t)i * m->nlengths, m->nlengths);
        }
    }
    fprintf(fp, "]");
}

const run_analysis run_stability_entry = {KD_ANALYSIS_STABILITY, run_stability, write_stability_summary, 0, NULL};
