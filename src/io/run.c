/* Running the analyses of a model and writing summary.json (kedyn/run.h). */
#include "kedyn/run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kedyn/atomic_file.h"
#include "kedyn/kedyn.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kd_run_report_free(kd_run_report* rep) {
    if (!rep) return;
    for (int i = 0; i < rep->nanalyses; i++) kd_modes_free(&rep->analyses[i].modes);
    free(rep->analyses);
    memset(rep, 0, sizeof(*rep));
}

/* A JSON string literal. */
static void json_string(FILE* fp, const char* s) {
    fputc('"', fp);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(fp, "\\%c", c);
        else if (c < 0x20) fprintf(fp, "\\u%04x", c);
        else fputc(c, fp);
    }
    fputc('"', fp);
}

static void json_array(FILE* fp, const double* v, int n, double scale) {
    fputc('[', fp);
    for (int i = 0; i < n; i++) fprintf(fp, "%s%.12g", i ? ", " : "", v[i] * scale);
    fputc(']', fp);
}

static const char* solver_name(kd_eigen_solver s) {
    return s == KD_EIGEN_LANCZOS ? "lanczos" : (s == KD_EIGEN_DENSE ? "dense" : "auto");
}

static void write_analysis(FILE* fp, const kd_analysis_report* a) {
    const double pi = 3.14159265358979323846;
    fprintf(fp, "    {\"type\": \"modes\", \"status\": \"%s\"", kd_status_name(a->status));
    if (a->message[0]) {
        fprintf(fp, ", \"message\": ");
        json_string(fp, a->message);
    }
    if (a->status == KD_OK) {
        const kd_modes* r = &a->modes;
        fprintf(fp, ", \"count\": %d, \"solver\": \"%s\",\n      \"omega_rad_s\": ", r->count, solver_name(r->solver));
        json_array(fp, r->omega, r->count, 1.0);
        fprintf(fp, ",\n      \"frequency_hz\": ");
        json_array(fp, r->omega, r->count, 0.5 / pi);
    }
    fprintf(fp, ",\n      \"files\": [");
    for (int k = 0; k < a->nfiles; k++) {
        fprintf(fp, "%s", k ? ", " : "");
        json_string(fp, a->files[k]);
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
    json_string(fp, model_path);
    fprintf(fp, ",\n  \"title\": ");
    json_string(fp, d->title);
    fprintf(fp, ",\n  \"complete\": %s,\n  \"dof\": %d,\n  \"nodes\": %d,\n  \"elements\": %d,\n",
            rep->complete ? "true" : "false", m->neq, m->nnode, m->nelem);
    fprintf(fp, "  \"mass_kg\": %.12g,\n  \"bodies\": [\n", m->total_mass);
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* body = &m->body[b];
        fprintf(fp, "    {\"name\": ");
        json_string(fp, body->name);
        if (body->type == KD_BODY_BEAM)
            fprintf(fp,
                    ", \"type\": \"beam\", \"theory\": \"%s\", \"interpolation\": \"%s\", \"planar\": %s, "
                    "\"elements\": %d, \"nodes\": %d, \"length\": %.12g, \"mass_kg\": %.12g}",
                    kd_theory_str(body->kind.theory), kd_interp_str(body->kind.interp),
                    body->kind.planar ? "true" : "false", body->elem_num, body->node_num, body->length, body->mass);
        else
            fprintf(fp, ", \"type\": \"ground\"}");
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

/* One modes analysis: solve, then write modes.csv (modes_K.csv for the K-th). */
static kd_status run_modes(const kd_analysis_desc* ad, const kd_model* m, const char* outdir, int ordinal,
                           kd_analysis_report* a, kd_error* err) {
    kd_status st = kd_modes_solve(m, ad->count, ad->solver, &a->modes, err);
    if (st) return st;
    if (a->modes.count < ad->count)
        snprintf(a->message, sizeof(a->message), "count %d exceeds the %d free DOFs; computed %d modes", ad->count,
                 m->neq, a->modes.count);
    char name[64], path[1200];
    if (ordinal == 1) snprintf(name, sizeof(name), "modes.csv");
    else snprintf(name, sizeof(name), "modes_%d.csv", ordinal);
    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    st = kd_write_modes_csv(path, m, &a->modes, err);
    if (st == KD_OK) snprintf(a->files[a->nfiles++], sizeof(a->files[0]), "%s", name);
    return st;
}

kd_status kd_run(const kd_desc* d, const kd_model* m, const char* model_path, const char* outdir,
                 kd_run_report* rep, kd_error* err) {
    kd_error local;
    if (!err) err = &local;
    memset(rep, 0, sizeof(*rep));
    kd_status st = kd_make_dirs(outdir, err);
    if (st) return st;
    rep->analyses = calloc((size_t)(d->nanalyses ? d->nanalyses : 1), sizeof(*rep->analyses));
    if (!rep->analyses) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");

    int nmodes = 0;
    for (int i = 0; i < d->nanalyses && st == KD_OK; i++) {
        const kd_analysis_desc* ad = &d->analyses[i];
        kd_analysis_report* a = &rep->analyses[rep->nanalyses++];
        a->type = ad->type;
        const double t0 = now_s();
        switch (ad->type) {
        case KD_ANALYSIS_MODES: st = run_modes(ad, m, outdir, ++nmodes, a, err); break;
        }
        a->wall_s = now_s() - t0;
        a->status = st;
        if (st) snprintf(a->message, sizeof(a->message), "%s", err->msg);
    }
    rep->complete = st == KD_OK;

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
