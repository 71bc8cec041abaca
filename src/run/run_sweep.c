/* The `sweep` analysis (docs/model-format.md, "Sweeps"): an inner analysis once per value of
 * model or analysis numbers. The inner analysis runs through the dispatcher it is given
 * (run_context.dispatch), so this file does not depend on the table of analyses. Each run is a
 * case of the scheduler (run_cases.h: threads, MPI ranks, --resume): its files are written when it
 * finishes, and its report travels as bytes (run_pack_report) to the run that writes summary.json. */
#include "run_internal.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "kedyn/atomic_file.h"
#include "kedyn/kedyn.h"
#include "output/output_util.h"
#include "run_cases.h"

/* ---- a report as bytes -------------------------------------------------------- */

/* The names a report points to (formalism, method...) are static strings of the process that made
 * it: they travel as text and come back as strings kept for the life of the process. */
static const char* intern(const char* s) {
    static char* kept[64];
    static int nkept;
    for (int i = 0; i < nkept; i++)
        if (strcmp(kept[i], s) == 0) return kept[i];
    if (nkept == 64) return "";
    char* c = malloc(strlen(s) + 1);
    if (!c) return "";
    strcpy(c, s);
    return kept[nkept++] = c;
}

static void put_str(run_buf* b, const char* s) {
    const int n = s ? (int)strlen(s) : -1;
    run_buf_put_int(b, n);
    if (n > 0) run_buf_put(b, s, (size_t)n);
}

static const char* get_str(run_reader* r) {
    const int n = run_get_int(r);
    if (n < 0 || r->bad) return NULL;
    char buf[256];
    if (n >= (int)sizeof(buf)) {
        r->bad = 1;
        return NULL;
    }
    run_get(r, buf, (size_t)n);
    buf[n] = '\0';
    return intern(buf);
}

static void put_array(run_buf* b, const void* p, size_t n) {
    run_buf_put_int(b, p != NULL);
    if (p) run_buf_put(b, p, n);
}

static void* get_array(run_reader* r, size_t n) {
    if (!run_get_int(r)) return NULL;
    void* p = malloc(n ? n : 1);
    if (!p) {
        r->bad = 1;
        return NULL;
    }
    run_get(r, p, n);
    return p;
}

#define D sizeof(double)

static void pack_report(run_buf* b, const kd_analysis_report* a) {
    run_buf_put(b, a, sizeof(*a));
    const kd_modes* mo = &a->modes;
    const size_t k = (size_t)mo->count;
    put_array(b, mo->error_estimate, k * D);
    put_array(b, mo->lambda, k * D);
    put_array(b, mo->omega, k * D);
    put_array(b, mo->shape, k * (size_t)mo->neq * D);
    put_array(b, mo->shape_im, k * (size_t)mo->neq * D);
    put_array(b, mo->growth, k * D);
    const kd_campbell* c = &a->campbell;
    const size_t ns = (size_t)c->nspeeds, nc = ns * (size_t)c->count;
    put_array(b, c->speed, ns * D);
    put_array(b, c->omega, nc * D);
    put_array(b, c->growth, nc * D);
    put_array(b, c->unstable, ns * sizeof(int));
    put_array(b, c->mac_min, ns * D);
    const kd_stability_map* s = &a->stability;
    put_array(b, s->hub, (size_t)s->nhubs * D);
    put_array(b, s->length, (size_t)s->nlengths * D);
    put_array(b, s->thickness, (size_t)s->nthick * D);  /* a plate's thickness axis */
    put_array(b, s->omega_cr, (size_t)s->nhubs * (size_t)s->nlengths * (size_t)(s->nthick > 0 ? s->nthick : 1) * D);
    put_str(b, a->mech.formalism);
    put_str(b, a->mech.formulation);
    put_str(b, a->mech.stabilization);
    put_str(b, a->mech.method);
    put_str(b, a->ked.coupling);
}

static void unpack_report(run_reader* r, kd_analysis_report* a) {
    run_get(r, a, sizeof(*a));
    a->sweep = NULL, a->value = NULL, a->sub = NULL, a->nsub = 0;
    a->measure = NULL;  /* a record analysis's results stay with the run that made them */
    kd_modes* mo = &a->modes;
    const size_t k = (size_t)mo->count;
    mo->error_estimate = get_array(r, k * D);
    mo->lambda = get_array(r, k * D);
    mo->omega = get_array(r, k * D);
    mo->shape = get_array(r, k * (size_t)mo->neq * D);
    mo->shape_im = get_array(r, k * (size_t)mo->neq * D);
    mo->growth = get_array(r, k * D);
    kd_campbell* c = &a->campbell;
    const size_t ns = (size_t)c->nspeeds, nc = ns * (size_t)c->count;
    c->speed = get_array(r, ns * D);
    c->omega = get_array(r, nc * D);
    c->growth = get_array(r, nc * D);
    c->unstable = get_array(r, ns * sizeof(int));
    c->mac_min = get_array(r, ns * D);
    kd_stability_map* s = &a->stability;
    s->hub = get_array(r, (size_t)s->nhubs * D);
    s->length = get_array(r, (size_t)s->nlengths * D);
    s->thickness = get_array(r, (size_t)s->nthick * D);  /* a plate's thickness axis */
    s->omega_cr = get_array(r, (size_t)s->nhubs * (size_t)s->nlengths * (size_t)(s->nthick > 0 ? s->nthick : 1) * D);
    a->mech.formalism = get_str(r);
    a->mech.formulation = get_str(r);
    a->mech.stabilization = get_str(r);
    a->mech.method = get_str(r);
    a->ked.coupling = get_str(r);
}

/* ---- the files of a run on another rank -------------------------------------------- */

/* Every file the run wrote in its rank's private directory (its CSV, and the VTK files of a modes
 * analysis beyond the report's list), by name and bytes, then removed; by_path (the directory on
 * OUTDIR's file system, run_cases.c, which holds the files of the rank's runs that rank 0 has not
 * committed yet): the files of this run (their names begin with its prefix) by name and path
 * (size SHIP_MOVED), left for rank 0 to rename into OUTDIR when it commits the run. */
#define SHIP_MOVED (UINT64_MAX - 1)
static int ships(const char* name, const char* prefix) {
    return name[0] != '.' && (!prefix || strncmp(name, prefix, strlen(prefix)) == 0);
}

static void ship_files(const char* dir, const char* by_path, run_buf* out) {
    DIR* dp = opendir(dir);
    int n = 0;
    struct dirent* e;
    while (dp && (e = readdir(dp)))
        n += ships(e->d_name, by_path);
    run_buf_put_int(out, n);
    if (dp) rewinddir(dp);
    int k = 0;
    while (dp && k < n && (e = readdir(dp))) {
        if (!ships(e->d_name, by_path)) continue;
        k++;
        char path[1200];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (by_path) {
            const uint64_t moved = SHIP_MOVED;
            put_str(out, e->d_name);
            run_buf_put(out, &moved, sizeof(moved));
            put_str(out, path);
            continue;
        }
        FILE* fp = fopen(path, "rb");
        long len = -1;
        if (fp && fseek(fp, 0, SEEK_END) == 0) len = ftell(fp);
        unsigned char* data = len >= 0 ? malloc((size_t)len + 1) : NULL;
        if (fp && data && (fseek(fp, 0, SEEK_SET) != 0 || fread(data, 1, (size_t)len, fp) != (size_t)len)) len = -1;
        if (fp) fclose(fp);
        unlink(path);
        put_str(out, e->d_name);
        const uint64_t size = len >= 0 && data ? (uint64_t)len : UINT64_MAX;  /* MAX: unreadable */
        run_buf_put(out, &size, sizeof(size));
        if (size != UINT64_MAX) run_buf_put(out, data, (size_t)len);
        free(data);
    }
    for (; k < n; k++) {  /* the directory changed under the count: nothing more */
        put_str(out, "");
        const uint64_t size = UINT64_MAX;
        run_buf_put(out, &size, sizeof(size));
    }
    if (dp) closedir(dp);
}

/* ---- the runs ------------------------------------------------------------------- */

typedef struct sweep_cases {
    const run_context* c;
    const kd_analysis_desc* ad;
    kd_analysis_report* a;
} sweep_cases;

/* Run i on a copy of the description with its values, recompiled; run k of sweep s writes its
 * files as sweep[s]_vK_NAME.csv in outdir. Bytes: the report, then the files when remote. */
static kd_status sweep_compute(void* ctx, int i, const char* outdir, int remote, run_buf* out, kd_error* err) {
    const sweep_cases* sc = ctx;
    const run_context* c = sc->c;
    const kd_sweep_desc* sw = &sc->ad->sweep;
    kd_analysis_report r;
    memset(&r, 0, sizeof(r));
    r.type = sw->inner->type;
    r.sweep = sc->ad;
    r.value = sw->values + (size_t)i * sw->nset;
    if (c->ordinal == 1) snprintf(r.prefix, sizeof(r.prefix), "sweep_v%d_", i + 1);
    else snprintf(r.prefix, sizeof(r.prefix), "sweep%d_v%d_", c->ordinal, i + 1);
    const double t0 = util_now_s();
    kd_desc dv;
    kd_model* mv = NULL;
    kd_status st = kd_desc_with_param(c->d, sw->nset, sw->set, r.value, &dv, err);
    if (!st) {
        kd_analysis_desc inner;  /* the analysis with its own swept numbers (analysis.KEY) */
        st = kd_analysis_with_param(sw->inner, sw->nset, sw->set, r.value, &inner, err);
        if (!st) st = kd_desc_check(&dv, err);
        if (!st) st = kd_model_compile(&dv, &mv, err);
        /* no progress, animation or scheduler of its own */
        const run_context rc = {&dv, mv, outdir, 1, NULL, NULL, 0, 0, c->dispatch, NULL, 0, NULL, NULL, NULL};
        if (!st) st = c->dispatch(&rc, &inner, &r, err);
        kd_model_free(&mv);
        kd_desc_with_param_free(&dv);
    }
    if (st) {
        /* say which value failed */
        char msg[sizeof(err->msg) + 200];
        snprintf(msg, sizeof(msg), "%s = %g%s: %s", sw->set[0], r.value[0], sw->nset > 1 ? ", ..." : "", err->msg);
        memcpy(err->msg, msg, sizeof(err->msg) - 1);  /* a long message is cut */
        err->msg[sizeof(err->msg) - 1] = '\0';
        snprintf(r.message, sizeof(r.message), "%s", err->msg);
    }
    r.status = st;
    r.wall_s = util_now_s() - t0;
    pack_report(out, &r);
    if (remote) ship_files(outdir, remote == 2 ? r.prefix : NULL, out);
    else run_buf_put_int(out, 0);
    kd_modes_free(&r.modes);
    kd_campbell_free(&r.campbell);
    kd_stability_free(&r.stability);
    kd_measure_result_free(&r.measure);
    return KD_OK;  /* a failed run is in its report; the others go on */
}

static kd_status sweep_commit(void* ctx, int i, kd_status st, const char* msg, run_reader* in, kd_error* err) {
    sweep_cases* sc = ctx;
    const kd_sweep_desc* sw = &sc->ad->sweep;
    kd_analysis_report* r = &sc->a->sub[i];
    if (st) {  /* the case itself failed (lost with an MPI rank that died, out of memory): a failed run */
        memset(r, 0, sizeof(*r));
        r->type = sw->inner->type;
        r->sweep = sc->ad;
        r->value = sw->values + (size_t)i * sw->nset;
        r->status = st;
        snprintf(r->message, sizeof(r->message), "%s = %g%s: %s", sw->set[0], r->value[0], sw->nset > 1 ? ", ..." : "",
                 msg);
        sc->a->nsub = i + 1;
        return KD_OK;
    }
    unpack_report(in, r);
    r->sweep = sc->ad;
    r->value = sw->values + (size_t)i * sw->nset;
    sc->a->nsub = i + 1;
    const size_t at = (size_t)(in->p - in->base);
    const int nship = run_get_int(in);
    if (nship > 0 && !in->bad) {  /* the journal records the report, not the files (on disk now) */
        const int none = 0;
        memcpy(in->base + at, &none, sizeof(none));
        in->record = at + sizeof(none);
    }
    for (int k = 0; k < nship && !in->bad; k++) {  /* a remote run's files, written here */
        const int nlen = run_get_int(in);
        char name[256];
        if (nlen < 0 || nlen >= (int)sizeof(name)) {
            in->bad = 1;
            break;
        }
        run_get(in, name, (size_t)nlen);
        name[nlen] = '\0';
        uint64_t len;
        run_get(in, &len, sizeof(len));
        if (len == UINT64_MAX) continue;
        char path[1200];
        if (len == SHIP_MOVED) {  /* written on OUTDIR's file system by its rank: renamed in */
            const int plen = run_get_int(in);
            char from[1200];
            if (in->bad || plen <= 0 || plen >= (int)sizeof(from) || !name[0] || strchr(name, '/')) {
                in->bad = 1;
                break;
            }
            run_get(in, from, (size_t)plen);
            from[plen] = '\0';
            snprintf(path, sizeof(path), "%s/%s", sc->c->outdir, name);
            if (in->bad || rename(from, path) != 0)
                return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot move '%s' to '%s'", from, path);
            continue;
        }
        if (in->bad || len > in->left || !name[0] || strchr(name, '/')) {
            in->bad = 1;
            break;
        }
        snprintf(path, sizeof(path), "%s/%s", sc->c->outdir, name);
        kd_atomic_file f;
        kd_status wst = kd_atomic_open(&f, path, err);
        if (wst) return wst;
        fwrite(in->p, 1, (size_t)len, f.fp);
        in->p += len, in->left -= (size_t)len;
        wst = kd_atomic_commit(&f, err);
        if (wst) return wst;
    }
    if (in->bad) return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "sweep: a damaged result of run %d", i + 1);
    return KD_OK;
}

static kd_status run_sweep(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    const kd_sweep_desc* sw = &ad->sweep;
    a->sweep = ad;
    a->sub = calloc((size_t)sw->nruns + 1, sizeof(*a->sub));
    if (!a->sub) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    sweep_cases sc = {c, ad, a};
    const run_case_set set = {"sweep", sw->nruns, &sc, sweep_compute, sweep_commit};
    kd_status st = run_cases(c, &set, err);
    for (int i = 0; i < a->nsub && !st; i++)  /* the first failed run is the sweep's failure */
        if (a->sub[i].status) {
            st = kd_error_set(err, a->sub[i].status, "", KD_LOC_NONE, "%s", a->sub[i].message);
            if (a->nsub > 1) {
                int nfail = 0;
                for (int k = 0; k < a->nsub; k++) nfail += a->sub[k].status != KD_OK;
                const size_t len = strlen(err->msg);
                snprintf(err->msg + len, sizeof(err->msg) - len, " (%d of %d runs failed; the others are complete)",
                         nfail, a->nsub);
            }
        }
    return st;
}

/* The swept parameters and the runs made, also after a failure. */
static void write_sweep_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    if (!a->nsub) return;
    fprintf(fp, ", \"set\": [");
    for (int k = 0; k < a->sweep->sweep.nset; k++) {
        fprintf(fp, "%s", k ? ", " : "");
        io_json_string(fp, a->sweep->sweep.set[k]);
    }
    fprintf(fp, "],\n      \"runs\": [\n");
    for (int i = 0; i < a->nsub; i++) {
        fprintf(fp, "  ");
        entry(fp, &a->sub[i]);
        fprintf(fp, "%s\n", i + 1 < a->nsub ? "," : "");
    }
    fprintf(fp, "      ]");
}

const run_analysis run_sweep_entry = {KD_ANALYSIS_SWEEP, run_sweep, write_sweep_summary, 0, NULL};
