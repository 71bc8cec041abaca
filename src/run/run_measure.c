/* The analyses of measured records (docs/model-format.md, "Records"): spectrum, frf, identify,
 * correlate and virtual_test. Each keeps its result in its report (kedyn/measure.h) for the
 * analyses after it: a virtual test's record, the FRFs, the identified modes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/kedyn.h"
#include "output/output_util.h"
#include "run_internal.h"

#define PI 3.14159265358979323846

static kd_measure_result* result_of(kd_analysis_report* a, kd_error* err) {
    if (!a->measure && !(a->measure = calloc(1, sizeof(kd_measure_result))))
        kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    return a->measure;
}

/* The latest successful analysis of type t before this one, or NULL. */
static const kd_analysis_report* latest(const run_context* c, kd_analysis_type t) {
    for (int i = c->index - 1; i >= 0; i--)
        if (c->done[i].type == t && c->done[i].status == KD_OK) return &c->done[i];
    return NULL;
}

/* The record named `name`: a `records` entry read now (*owned set, free it), or the record of an
 * earlier virtual test. */
static kd_status find_record(const run_context* c, const char* name, kd_record** rec, int* owned, kd_error* err) {
    *rec = NULL, *owned = 0;
    const int r = kd_desc_find_record(c->d, name);
    if (r >= 0) {
        *owned = 1;
        return kd_record_read(c->d->records[r].path, c->d->records[r].time, c->d->records[r].rate, rec, err);
    }
    for (int i = c->index - 1; i >= 0; i--)
        if (c->done[i].type == KD_ANALYSIS_VIRTUAL_TEST && c->done[i].measure &&
            strcmp(c->done[i].measure->record_name, name) == 0 && c->done[i].measure->record) {
            *rec = c->done[i].measure->record;
            return KD_OK;
        }
    return kd_error_set(err, KD_ERR_INPUT, c->d->file, KD_LOC_NONE, "record '%s' is not available", name);
}

/* The channel of a column name, or of the sensor of that name. */
static const kd_channel* channel_of(const kd_desc* d, const kd_record* r, const char* name, int* sensor) {
    int k = kd_record_find_channel(r, name);
    const int s = kd_desc_find_sensor(d, name);
    if (sensor) *sensor = s;
    if (k < 0 && s >= 0) k = kd_record_find_channel(r, d->sensors[s].column);
    if (sensor && s < 0 && k >= 0)  /* a column: the sensor reading it */
        for (int i = 0; i < d->nsensors; i++)
            if (strcmp(d->sensors[i].column, name) == 0) *sensor = i;
    return k >= 0 ? &r->channels[k] : NULL;
}

static kd_status time_channel(const kd_desc* d, const kd_channel* ch, const char* name, kd_error* err) {
    if (!ch) return kd_error_set(err, KD_ERR_INPUT, d->file, KD_LOC_NONE, "the record has no column '%s'", name);
    if (ch->im || ch->x || !(ch->dx > 0) || (ch->function != KD_FUNCTION_TIME && ch->function != 0))
        return kd_error_set(err, KD_ERR_INPUT, d->file, KD_LOC_NONE,
                            "column '%s' is not an evenly sampled real time history", name);
    return KD_OK;
}

/* OUTDIR/PREFIX STEM[_K].EXT, named in a->files[a->nfiles]. */
static void result_path(const run_context* c, kd_analysis_report* a, const char* stem, const char* ext, char* path,
                        size_t n) {
    char* name = a->files[a->nfiles];
    if (c->ordinal == 1) snprintf(name, sizeof a->files[0], "%s%s.%s", a->prefix, stem, ext);
    else snprintf(name, sizeof a->files[0], "%s%s_%d.%s", a->prefix, stem, c->ordinal, ext);
    snprintf(path, n, "%s/%s", c->outdir, name);
}

static void progress(const run_context* c, double f) {
    if (c->opts && c->opts->progress) c->opts->progress(c->opts->progress_ctx, c->index, c->count, kd_analysis_type_name(c->d->analyses[c->index].type), f);
}

/* ---- virtual_test ------------------------------------------------------------------------ */

static int vt_progress(void* ctx, double f) {
    progress(ctx, f);
    return kd_interrupted() != 0;
}

static kd_status run_virtual_test(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a,
                                  kd_error* err) {
    kd_measure_result* r = result_of(a, err);
    if (!r) return KD_ERR_NOMEM;
    snprintf(r->record_name, sizeof r->record_name, "%s", ad->virtual_test.record);
    kd_status st = kd_virtual_test_run(c->d, &ad->virtual_test, vt_progress, (void*)c, &r->record, err);
    char path[1200];
    if (!st) {
        result_path(c, a, "virtual_test", "csv", path, sizeof path);
        if (!(st = kd_record_write_csv(path, r->record, err))) a->nfiles++;
    }
    if (!st) {
        result_path(c, a, "virtual_test", "uff", path, sizeof path);
        if (!(st = kd_uff_write(path, r->record, 0, err))) a->nfiles++;
    }
    return st;
}

static void write_virtual_test_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    const kd_measure_result* r = a->measure;
    if (a->status != KD_OK || !r || !r->record) return;
    const kd_channel* c0 = &r->record->channels[0];
    fprintf(fp, ", \"record\": ");
    io_json_string(fp, r->record_name);
    fprintf(fp, ", \"channels\": %d, \"samples\": %d, \"rate_hz\": %.12g", r->record->nchannels, c0->n, 1.0 / c0->dx);
}

/* ---- spectrum ---------------------------------------------------------------------------- */

/* The order spectrum (theory.md, "Order tracking"): each column resampled at constant shaft angle,
 * the angle a column (rad) or the speed column (rpm) integrated by the trapezoidal rule. */
static kd_status spectrum_orders(const run_context* c, const kd_spectrum_desc* sd, const kd_record* rec, const kd_channel* const* ch,
                                 char (*names)[KD_NAME_MAX], int n, const kd_channel* speed, const kd_welch_opts* wo,
                                 kd_analysis_report* a, kd_measure_result* r, kd_error* err) {
    const kd_channel* ang = NULL;
    kd_status st = KD_OK;
    if (sd->angle[0]) {
        ang = channel_of(c->d, rec, sd->angle, NULL);
        st = time_channel(c->d, ang, sd->angle, err);
    } else if (!speed) {
        return kd_error_set(err, KD_ERR_INPUT, c->d->file, KD_LOC_NONE, "orders need an angle or a speed column");
    }
    if (!st && ((ang ? ang : speed)->n != ch[0]->n || (ang ? ang : speed)->dx != ch[0]->dx))
        st = kd_error_set(err, KD_ERR_INPUT, c->d->file, KD_LOC_NONE, "the shaft's column and '%s' differ in rate or length",
                          names[0]);
    if (st) return st;
    const long N = ch[0]->n;
    double* theta = malloc(sizeof(double) * (size_t)N);
    kd_order_spectrum* os = calloc((size_t)n, sizeof(kd_order_spectrum));
    if (!theta || !os) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st && ang) memcpy(theta, ang->re, sizeof(double) * (size_t)N);
    if (!st && !ang) kd_angle_from_speed(speed->re, N, 1.0 / speed->dx, 1.0 / 60.0, theta);
    const kd_order_opts oo = {sd->samples_per_rev, sd->revs_per_segment, wo->overlap, wo->window, wo->detrend};
    for (int k = 0; k < n && !st; k++) st = kd_order_track(ch[k]->re, theta, N, 1.0 / ch[k]->dx, &oo, &os[k], err);
    if (!st) {
        r->order_lines = os[0].nf, r->order_segments = os[0].nseg, r->dorder = os[0].dorder;
        kd_atomic_file f;
        char path[1200];
        result_path(c, a, "orders", "csv", path, sizeof path);
        if (!(st = kd_atomic_open(&f, path, err))) {
            fprintf(f.fp, "order");
            for (int k = 0; k < n; k++) fprintf(f.fp, ",%s.psd,%s.amplitude", names[k], names[k]);
            fputc('\n', f.fp);
            for (int i = 0; i < os[0].nf; i++) {
                fprintf(f.fp, "%.12g", os[0].order[i]);
                for (int k = 0; k < n; k++) fprintf(f.fp, ",%.12g,%.12g", os[k].psd[i], os[k].amplitude[i]);
                fputc('\n', f.fp);
            }
            if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
        }
    }
    for (int k = 0; os && k < n; k++) kd_order_spectrum_free(&os[k]);
    free(os);
    free(theta);
    return st;
}

static kd_status run_spectrum(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    const kd_spectrum_desc* sd = &ad->spectrum;
    kd_measure_result* r = result_of(a, err);
    if (!r) return KD_ERR_NOMEM;
    kd_record* rec;
    int owned;
    kd_status st = find_record(c, sd->record, &rec, &owned, err);
    if (st) return st;
    const kd_channel* ch[KD_COLUMNS_MAX];
    char names[KD_COLUMNS_MAX][KD_NAME_MAX];
    int n = 0;
    for (int k = 0; k < (sd->ncolumns ? sd->ncolumns : rec->nchannels) && n < KD_COLUMNS_MAX && !st; k++) {
        const char* nm = sd->ncolumns ? sd->columns[k] : rec->channels[k].name;
        ch[n] = channel_of(c->d, rec, nm, NULL);
        snprintf(names[n], sizeof names[n], "%s", nm);
        st = time_channel(c->d, ch[n], nm, err);
        if (!st && n > 0 && (ch[n]->dx != ch[0]->dx || ch[n]->n != ch[0]->n))
            st = kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "columns '%s' and '%s' differ in rate or length", nm,
                              names[0]);
        n++;
    }
    const kd_channel* speed = NULL;
    if (!st && sd->speed[0]) {
        speed = channel_of(c->d, rec, sd->speed, NULL);
        st = time_channel(c->d, speed, sd->speed, err);
    }
    kd_welch_opts o = {sd->segment, sd->overlap, {(kd_window_type)sd->window, sd->window_param}, (kd_detrend)sd->detrend};
    kd_welch* w = NULL;
    double *psd = NULL, *amp = NULL;
    if (!st) st = kd_welch_new(&w, &o, 1.0 / ch[0]->dx, err);
    const int nf = st ? 0 : kd_welch_lines(w);
    if (!st) {
        psd = malloc(sizeof(double) * (size_t)nf * n);
        amp = malloc(sizeof(double) * (size_t)nf * n);
        if (!psd || !amp) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    for (int k = 0; k < n && !st; k++) {
        st = kd_welch_spectrum(w, ch[k]->re, ch[k]->n, psd + (size_t)k * nf, amp + (size_t)k * nf, err);
        progress(c, (k + 1.0) / (n + (speed ? n : 0)));
    }
    if (!st) {
        r->ncolumns = n, r->nf = nf, r->df = kd_welch_df(w), r->segments = (int)kd_welch_segments(w, ch[0]->n);
        for (int k = 0; k < n; k++) snprintf(r->resp[k], sizeof r->resp[k], "%.63s", names[k]);
        /* the peaks of the summed amplitude spectra, above DC (what a running machine shows) */
        double *fl = malloc(sizeof(double) * (size_t)nf), *sum = calloc((size_t)nf, sizeof(double));
        kd_peak pk[KD_COLUMNS_MAX];
        int np = 0;
        if (fl && sum && nf > 4) {
            for (int i = 0; i < nf; i++) {
                fl[i] = i * r->df;
                for (int k = 0; k < n; k++) sum[i] += amp[(size_t)k * nf + i];
            }
            if (kd_peak_pick(fl, sum, nf, 1.5 * r->df, fl[nf - 1], 0.05, pk, KD_COLUMNS_MAX, &np, NULL)) np = 0;
        }
        r->npeaks = np;
        for (int k = 0; k < np; k++) r->peaks_hz[k] = pk[k].f_hz;
        free(fl);
        free(sum);
        for (int k = 0; k < n; k++) {  /* the largest line above DC, between lines */
            const double* A = amp + (size_t)k * nf;
            int best = 1;
            for (int i = 2; i < nf - 1; i++)
                if (A[i] > A[best]) best = i;
            r->peak_hz[k] = best * r->df, r->peak_amplitude[k] = A[best];
            if (nf > 3) kd_spectrum_peak(A, nf, r->df, best, o.window, &r->peak_hz[k], &r->peak_amplitude[k]);
        }
        kd_atomic_file f;
        char path[1200];
        result_path(c, a, "spectrum", "csv", path, sizeof path);
        if (!(st = kd_atomic_open(&f, path, err))) {
            fprintf(f.fp, "f_hz");
            for (int k = 0; k < n; k++) fprintf(f.fp, ",%s.psd,%s.amplitude", names[k], names[k]);
            fputc('\n', f.fp);
            for (int i = 0; i < nf; i++) {
                fprintf(f.fp, "%.12g", i * r->df);
                for (int k = 0; k < n; k++) fprintf(f.fp, ",%.12g,%.12g", psd[(size_t)k * nf + i], amp[(size_t)k * nf + i]);
                fputc('\n', f.fp);
            }
            if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
        }
    }
    if (!st && speed) {  /* the waterfall: blocks against speed (rpm), long format */
        kd_spectrogram sg[KD_COLUMNS_MAX];
        memset(sg, 0, sizeof sg);
        for (int k = 0; k < n && !st; k++) {
            st = kd_spectrogram_compute(ch[k]->re, speed->re, ch[k]->n, 1.0 / ch[k]->dx, &o, &sg[k], err);
            progress(c, (n + k + 1.0) / (2.0 * n));
        }
        kd_atomic_file f;
        char path[1200];
        result_path(c, a, "waterfall", "csv", path, sizeof path);
        if (!st && !(st = kd_atomic_open(&f, path, err))) {
            fprintf(f.fp, "t_s,speed_rpm,f_hz");
            for (int k = 0; k < n; k++) fprintf(f.fp, ",%s.amplitude", names[k]);
            fputc('\n', f.fp);
            for (int b = 0; b < sg[0].nblocks; b++) {
                for (int i = 0; i < sg[0].nf; i++) {
                    fprintf(f.fp, "%.9g,%.9g,%.9g", sg[0].t[b], sg[0].speed ? sg[0].speed[b] : 0.0, i * sg[0].df);
                    for (int k = 0; k < n; k++) fprintf(f.fp, ",%.9g", sg[k].amplitude[(size_t)b * sg[k].nf + i]);
                    fputc('\n', f.fp);
                }
                fputc('\n', f.fp);  /* a blank line between blocks: gnuplot's surface rows */
            }
            if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
        }
        for (int k = 0; k < n; k++) kd_spectrogram_free(&sg[k]);
    }
    if (!st && sd->orders) st = spectrum_orders(c, sd, rec, ch, names, n, speed, &o, a, r, err);
    free(psd);
    free(amp);
    kd_welch_free(&w);
    if (owned) kd_record_free(&rec);
    return st;
}

static void write_spectrum_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    const kd_measure_result* r = a->measure;
    if (a->status != KD_OK || !r) return;
    fprintf(fp, ", \"lines\": %d, \"df_hz\": %.12g, \"segments\": %d,\n      \"peak_hz\": ", r->nf, r->df, r->segments);
    io_json_array(fp, r->peak_hz, r->ncolumns, 1.0);
    fprintf(fp, ", \"peak_amplitude\": ");
    io_json_array(fp, r->peak_amplitude, r->ncolumns, 1.0);
    fprintf(fp, ",\n      \"peaks_hz\": ");
    io_json_array(fp, r->peaks_hz, r->npeaks, 1.0);
    if (r->order_lines) fprintf(fp, ", \"order_lines\": %d, \"dorder\": %.12g, \"order_segments\": %d", r->order_lines, r->dorder, r->order_segments);
}

/* ---- frf ------------------------------------------------------------------------------- */

static kd_status run_frf(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    const kd_frf_desc* fd = &ad->frf;
    kd_measure_result* r = result_of(a, err);
    if (!r) return KD_ERR_NOMEM;
    kd_record* rec;
    int owned;
    kd_status st = find_record(c, fd->record, &rec, &owned, err);
    if (st) return st;
    const kd_channel* force = channel_of(c->d, rec, fd->force, NULL);
    st = time_channel(c->d, force, fd->force, err);
    const kd_channel* resp[KD_COLUMNS_MAX];
    r->nresp = fd->nresponses;
    for (int j = 0; j < fd->nresponses && !st; j++) {
        resp[j] = channel_of(c->d, rec, fd->responses[j], &r->sensor[j]);
        snprintf(r->resp[j], sizeof r->resp[j], "%s", fd->responses[j]);
        if (!(st = time_channel(c->d, resp[j], fd->responses[j], err)) && (resp[j]->n != force->n || resp[j]->dx != force->dx))
            st = kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "response '%s' and the force differ in rate or length",
                              fd->responses[j]);
    }
    const long n = st ? 0 : force->n / fd->hits;
    if (!st && (n < 4 || n * fd->hits != force->n))
        st = kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "frf: %d samples do not make %d equal hits", force->n,
                          fd->hits);
    const double** fin = NULL;
    const double** rin = NULL;
    if (!st && (!(fin = malloc(sizeof(*fin) * (size_t)fd->hits)) ||
                !(rin = malloc(sizeof(*rin) * (size_t)fd->hits * (size_t)fd->nresponses))))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int h = 0; h < fd->hits && !st; h++) {
        fin[h] = force->re + (size_t)h * n;
        for (int j = 0; j < fd->nresponses; j++) rin[(size_t)h * fd->nresponses + j] = resp[j]->re + (size_t)h * n;
    }
    if (!st) {
        kd_frf_opts o = {fd->segment, fd->overlap, {(kd_window_type)fd->force_window, fd->force_window_param},
                         {(kd_window_type)fd->window, fd->window_param}, (kd_detrend)fd->detrend};
        st = kd_frf_estimate(fin, rin, fd->hits, fd->nresponses, n, 1.0 / force->dx, &o, &r->frf, err);
    }
    if (!st) {
        kd_atomic_file f;
        char path[1200];
        const int nf = r->frf.nf;
        double *db = malloc(sizeof(double) * (size_t)nf), *ph = malloc(sizeof(double) * (size_t)nf);
        result_path(c, a, "frf", "csv", path, sizeof path);
        if (!db || !ph) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        if (!st && !(st = kd_atomic_open(&f, path, err))) {
            fprintf(f.fp, "f_hz");
            for (int j = 0; j < r->nresp; j++)
                fprintf(f.fp, ",%s.re,%s.im,%s.mag_db,%s.phase_deg,%s.coherence", r->resp[j], r->resp[j], r->resp[j],
                        r->resp[j], r->resp[j]);
            fputc('\n', f.fp);
            double* all = malloc(sizeof(double) * 2 * (size_t)nf * (size_t)r->nresp);
            if (!all) {
                kd_atomic_abort(&f);
                st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
            } else {
                for (int j = 0; j < r->nresp; j++) {
                    kd_frf_db_phase(r->frf.h1 + 2 * (size_t)j * nf, nf, db, ph);
                    for (int i = 0; i < nf; i++) all[2 * ((size_t)j * nf + i)] = db[i], all[2 * ((size_t)j * nf + i) + 1] = ph[i];
                }
                for (int i = 0; i < nf; i++) {
                    fprintf(f.fp, "%.12g", r->frf.f[i]);
                    for (int j = 0; j < r->nresp; j++) {
                        const double* h = r->frf.h1 + 2 * ((size_t)j * nf + i);
                        fprintf(f.fp, ",%.12g,%.12g,%.9g,%.9g,%.9g", h[0], h[1], all[2 * ((size_t)j * nf + i)],
                                all[2 * ((size_t)j * nf + i) + 1], r->frf.coherence[(size_t)j * nf + i]);
                    }
                    fputc('\n', f.fp);
                }
                free(all);
                if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
            }
        }
        free(db);
        free(ph);
    }
    free(fin);
    free(rin);
    if (owned) kd_record_free(&rec);
    return st;
}

static void write_frf_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    const kd_measure_result* r = a->measure;
    if (a->status != KD_OK || !r) return;
    fprintf(fp, ", \"responses\": [");
    for (int j = 0; j < r->nresp; j++) {
        fprintf(fp, "%s", j ? ", " : "");
        io_json_string(fp, r->resp[j]);
    }
    fprintf(fp, "], \"averages\": %d, \"lines\": %d, \"df_hz\": %.12g, \"window_sigma_1_s\": %.12g", r->frf.navg, r->frf.nf,
            r->frf.df, r->frf.sigma);
}

/* ---- identify ---------------------------------------------------------------------------- */

static kd_status run_identify(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    const kd_identify_desc* id = &ad->identify;
    const kd_analysis_report* fa = latest(c, KD_ANALYSIS_FRF);
    if (!fa || !fa->measure) return kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "identify: no frf before it succeeded");
    const kd_measure_result* fr = fa->measure;
    kd_measure_result* r = result_of(a, err);
    if (!r) return KD_ERR_NOMEM;
    r->nresp = fr->nresp;
    memcpy(r->resp, fr->resp, sizeof r->resp);
    memcpy(r->sensor, fr->sensor, sizeof r->sensor);
    const kd_frf* h = &fr->frf;
    const double fmin = id->nband == 2 ? id->band[0] : 0.0, fmax = id->nband == 2 ? id->band[1] : 0.0;
    kd_status st;
    if (id->method == 0) {
        kd_lscf_opts o;
        memset(&o, 0, sizeof o);
        o.fmin = fmin, o.fmax = fmax, o.order_min = id->order_min, o.order_max = id->order_max;
        o.min_stable = id->min_stable, o.quantity = (kd_frf_quantity)id->quantity;
        st = kd_lscf(h->f, h->h1, h->nf, h->nout, &o, &r->fit, err);
    } else {  /* peaks of the sum of |H| over the channels, half-power damping, residues by LSFD */
        double* mag = calloc((size_t)h->nf, sizeof(double));
        kd_peak peaks[64];
        int np = 0;
        st = mag ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        for (int j = 0; j < h->nout && !st; j++)
            for (int i = 0; i < h->nf; i++) mag[i] += hypot(h->h1[2 * ((size_t)j * h->nf + i)], h->h1[2 * ((size_t)j * h->nf + i) + 1]);
        if (!st) st = kd_peak_pick(h->f, mag, h->nf, fmin, fmax > 0 ? fmax : h->f[h->nf - 1], id->threshold, peaks, 64, &np, err);
        free(mag);
        int m = 0;
        kd_modal_fit* fit = &r->fit;
        if (!st) {
            fit->f_hz = malloc(sizeof(double) * (size_t)(np ? np : 1));
            fit->zeta = malloc(sizeof(double) * (size_t)(np ? np : 1));
            fit->shape = malloc(sizeof(double) * 2 * (size_t)(np ? np : 1) * (size_t)h->nout);
            if (!fit->f_hz || !fit->zeta || !fit->shape) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        }
        for (int k = 0; k < np && !st; k++)
            if (isfinite(peaks[k].damping_ratio) && peaks[k].damping_ratio > 0)
                fit->f_hz[m] = peaks[k].f_hz, fit->zeta[m] = peaks[k].damping_ratio, m++;
        fit->nmodes = m, fit->nchan = h->nout;
        if (!st && m > 0)
            st = kd_lsfd(h->f, h->h1, h->nf, h->nout, fmin, fmax, (kd_frf_quantity)id->quantity, fit->f_hz, fit->zeta, m,
                         fit->shape, err);
    }
    if (st) return st;
    /* an exponential window's added decay taken out of the damping (theory.md, "Windows and corrections") */
    if (h->sigma > 0)
        for (int k = 0; k < r->fit.nmodes; k++) r->fit.zeta[k] = kd_window_damping_correction(r->fit.zeta[k], r->fit.f_hz[k], h->sigma);
    kd_atomic_file f;
    char path[1200];
    result_path(c, a, "identify", "csv", path, sizeof path);
    if ((st = kd_atomic_open(&f, path, err))) return st;
    fprintf(f.fp, "mode,frequency_hz,damping_ratio");
    for (int j = 0; j < r->nresp; j++) fprintf(f.fp, ",%s.shape", r->resp[j]);
    fputc('\n', f.fp);
    double* real = malloc(sizeof(double) * (size_t)(r->nresp ? r->nresp : 1));
    for (int k = 0; real && k < r->fit.nmodes; k++) {
        kd_shape_realize(r->fit.shape + 2 * (size_t)k * r->fit.nchan, r->fit.nchan, real);
        fprintf(f.fp, "%d,%.12g,%.9g", k + 1, r->fit.f_hz[k], r->fit.zeta[k]);
        for (int j = 0; j < r->nresp; j++) fprintf(f.fp, ",%.9g", real[j]);
        fputc('\n', f.fp);
    }
    free(real);
    if ((st = kd_atomic_commit(&f, err))) return st;
    a->nfiles++;
    if (id->method == 0) {  /* the stabilisation diagram */
        result_path(c, a, "stabilisation", "csv", path, sizeof path);
        if ((st = kd_atomic_open(&f, path, err))) return st;
        fprintf(f.fp, "order,f_hz,damping_ratio,stable_frequency,stable_damping,stable_shape\n");
        for (int p = 0; p < r->fit.npoles; p++) {
            const kd_stab_pole* q = &r->fit.poles[p];
            fprintf(f.fp, "%d,%.9g,%.6g,%d,%d,%d\n", q->order, q->f_hz, q->zeta, !!(q->flags & KD_STAB_FREQ),
                    !!(q->flags & KD_STAB_DAMP), !!(q->flags & KD_STAB_SHAPE));
        }
        if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
    }
    return st;
}

static void write_identify_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    const kd_measure_result* r = a->measure;
    if (a->status != KD_OK || !r) return;
    fprintf(fp, ", \"modes\": %d,\n      \"frequency_hz\": ", r->fit.nmodes);
    io_json_array(fp, r->fit.f_hz, r->fit.nmodes, 1.0);
    fprintf(fp, ",\n      \"damping_ratio\": ");
    io_json_array(fp, r->fit.zeta, r->fit.nmodes, 1.0);
}

/* ---- correlate --------------------------------------------------------------------------- */

/* Measured spectral peaks of a running mechanism over its computed frequencies along the motion:
 * each peak's nearest range [min, max] over the cycle of a link's mode (the thesis's comparison). */
static kd_status run_correlate_along(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a,
                                     kd_error* err) {
    const kd_analysis_report* sa = latest(c, KD_ANALYSIS_SPECTRUM);
    const kd_analysis_report* ma = latest(c, KD_ANALYSIS_MODES_ALONG_MOTION);
    if (!sa || !sa->measure || !ma || ma->nfiles < 1)
        return kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc,
                            "correlate: needs a spectrum and a modes_along_motion analysis before it");
    const kd_measure_result* sp = sa->measure;
    kd_measure_result* r = result_of(a, err);
    if (!r) return KD_ERR_NOMEM;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", c->outdir, ma->files[0]);
    kd_record* fr = NULL;  /* the computed frequencies along the motion, as written (rad/s) */
    kd_status st = kd_record_read_csv(path, "t", 0, &fr, err);
    if (st) return st;
    r->npeaks = sp->npeaks;
    memcpy(r->peaks_hz, sp->peaks_hz, sizeof r->peaks_hz);
    for (int p = 0; p < r->npeaks; p++) {
        double best = INFINITY;
        for (int k = 0; k < fr->nchannels; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int i = 0; i < fr->channels[k].n; i++)
                lo = fmin(lo, fr->channels[k].re[i] / (2 * PI)), hi = fmax(hi, fr->channels[k].re[i] / (2 * PI));
            const double f = r->peaks_hz[p], dist = f < lo ? lo - f : (f > hi ? f - hi : 0.0);
            if (dist < best) {
                best = dist;
                r->peak_fmin[p] = lo, r->peak_fmax[p] = hi;
                snprintf(r->peak_mode[p], sizeof r->peak_mode[p], "%s", fr->channels[k].name);
                char* om = strstr(r->peak_mode[p], ".omega_");
                if (om) memmove(om + 3, om + 7, strlen(om + 7) + 1), om[1] = 'f', om[2] = '_';
            }
        }
    }
    kd_atomic_file f;
    result_path(c, a, "peaks", "csv", path, sizeof path);
    if (!(st = kd_atomic_open(&f, path, err))) {
        fprintf(f.fp, "peak_hz,mode,f_min_hz,f_max_hz,inside,distance_hz\n");
        for (int p = 0; p < r->npeaks; p++) {
            const double x = r->peaks_hz[p], lo = r->peak_fmin[p], hi = r->peak_fmax[p];
            fprintf(f.fp, "%.9g,%s,%.9g,%.9g,%d,%.6g\n", x, r->peak_mode[p], lo, hi, x >= lo && x <= hi,
                    x < lo ? lo - x : (x > hi ? x - hi : 0.0));
        }
        if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
    }
    if (!st) {  /* the comparison figure's data: curves in Hz, the peaks as constant columns */
        result_path(c, a, "along_motion", "csv", path, sizeof path);
        if (!(st = kd_atomic_open(&f, path, err))) {
            fprintf(f.fp, "t");
            for (int k = 0; k < fr->nchannels; k++) {
                char nm[KD_NAME_MAX + 8];
                snprintf(nm, sizeof nm, "%s", fr->channels[k].name);
                char* om = strstr(nm, ".omega_");
                if (om) memmove(om + 3, om + 7, strlen(om + 7) + 1), om[1] = 'f', om[2] = '_';
                fprintf(f.fp, ",%s", nm);
            }
            for (int p = 0; p < r->npeaks; p++) fprintf(f.fp, ",measured_%d", p + 1);
            fputc('\n', f.fp);
            const kd_channel* c0 = &fr->channels[0];
            for (int i = 0; i < c0->n; i++) {
                fprintf(f.fp, "%.10g", kd_channel_x(c0, i));
                for (int k = 0; k < fr->nchannels; k++) fprintf(f.fp, ",%.9g", fr->channels[k].re[i] / (2 * PI));
                for (int p = 0; p < r->npeaks; p++) fprintf(f.fp, ",%.9g", r->peaks_hz[p]);
                fputc('\n', f.fp);
            }
            if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
        }
    }
    kd_record_free(&fr);
    return st;
}

/* The measured side from a record's mode shapes (UFF dataset 55): mode k's value at sensor j is
 * its translation at the sensor's node (label = global node index + 1, the labels kedyn writes),
 * components along the axes of the sensor's body frame, projected on the sensor's direction. */
static kd_status record_shapes(const run_context* c, const kd_analysis_desc* ad, const kd_sensor_place* place,
                               const int* sensors, int ns, double** shape, double** f_hz, int* nm, kd_error* err) {
    kd_record* rec = NULL;
    int owned = 0;
    kd_status st = find_record(c, ad->correlate.record, &rec, &owned, err);
    if (st) return st;
    *nm = rec->nmodes;
    *shape = calloc((size_t)(*nm ? *nm : 1) * (size_t)ns, sizeof(double));
    *f_hz = calloc((size_t)(*nm ? *nm : 1), sizeof(double));
    if (!*shape || !*f_hz) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int k = 0; k < *nm && !st; k++) {
        const kd_record_mode* md = &rec->modes[k];
        (*f_hz)[k] = md->frequency_hz;
        for (int j = 0; j < ns && !st; j++) {
            int at = -1;
            for (int i = 0; i < md->nnodes; i++)
                if (md->node[i] == place->node[j] + 1) at = i;
            if (at < 0) {
                st = kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "correlate: mode %d of record '%s' has no node %d (sensor '%s')",
                                  md->number, ad->correlate.record, place->node[j] + 1, c->d->sensors[sensors[j]].name);
                break;
            }
            const double* dir = c->d->sensors[sensors[j]].direction;
            for (int q = 0; q < 3; q++) (*shape)[(size_t)k * ns + j] += dir[q] * md->value[(size_t)at * md->ndv + q];
        }
    }
    if (owned) kd_record_free(&rec);
    return st;
}

/* The computed side at one instant of the motion: the modes of the sensors' link at the sample
 * of the latest modes_along_motion analysis nearest to `instant`, on the symmetric route
 * (K + k_g + k(omega)) x = omega^2 M x of the per-instant workspace (theory.md, "Modes along the
 * motion"), shapes in the link's model (its frame). *k, *w: free them. */
static kd_status along_instant_modes(const run_context* c, const kd_analysis_desc* ad, int body, kd_ked** k,
                                     kd_ked_along** w, const kd_model** model, double* t, int* neq, int* count,
                                     const double** omega2, const double** shape, kd_error* err) {
    const kd_analysis_desc* md = NULL;
    for (const kd_analysis_desc* p = c->d->analyses; p < ad; p++)
        if (p->type == KD_ANALYSIS_MODES_ALONG_MOTION) md = p;
    if (!md)
        return kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "correlate needs an earlier modes_along_motion analysis");
    kd_modes_along_motion_desc ma = md->modes_along_motion;
    kd_modes_along_motion_resolve(&ma);
    kd_ked_opts o = {ma.t_end, ma.steps, ma.speed, ma.cond_max};
    kd_status st = kd_ked_new_settled(c->d, &o, ma.settle, k, err);
    if (st) return st;
    int l = -1;
    for (int j = 0; j < (*k)->nlinks; j++)
        if ((*k)->link[j].body == body) l = j;
    if (l < 0)
        return kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "correlate: body '%s' of the sensors is not an elastic link",
                            c->d->bodies[body].name);
    int i = 0;  /* the sample nearest to the instant */
    for (int j = 1; j < (*k)->rigid.nsamples; j++)
        if (fabs((*k)->rigid.t[j] - ad->correlate.instant) < fabs((*k)->rigid.t[i] - ad->correlate.instant)) i = j;
    if ((st = kd_ked_along_new(*k, l, ma.count, KD_KED_GYRO_OFF, w, err)) || (st = kd_ked_along_instant(*w, i, err)))
        return st;
    kd_ked_along_symmetric(*w, t, neq, count, omega2, shape);
    *model = (*k)->link[l].model;
    return KD_OK;
}

static kd_status run_correlate(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    if (ad->correlate.measured == 1) return run_correlate_along(c, ad, a, err);
    const int from_record = ad->correlate.measured == 2;
    const kd_analysis_report* ia = from_record ? NULL : latest(c, KD_ANALYSIS_IDENTIFY);
    const int along = ad->correlate.computed == 1;  /* the modes at one instant of the motion */
    const kd_analysis_report* ma = along ? NULL : latest(c, KD_ANALYSIS_MODES);
    if ((!from_record && (!ia || !ia->measure)) || (!ma && !along))
        return kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "correlate: needs an identify and a modes analysis before it");
    const kd_measure_result* id = ia ? ia->measure : NULL;
    const kd_modes* modes = ma ? &ma->modes : NULL;
    if (modes && modes->growth)
        return kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "correlate: the modes are of a moving frame (state space)");
    kd_measure_result* r = result_of(a, err);
    if (!r) return KD_ERR_NOMEM;
    int sensors[KD_COLUMNS_MAX];
    const int ns = from_record ? (c->d->nsensors < KD_COLUMNS_MAX ? c->d->nsensors : KD_COLUMNS_MAX) : id->nresp;
    for (int j = 0; j < ns; j++) {
        if (from_record) {
            sensors[j] = j;
            continue;
        }
        if (id->sensor[j] < 0)
            return kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "correlate: response '%s' has no sensor", id->resp[j]);
        sensors[j] = id->sensor[j];
    }
    /* the computed modes: omega (rad/s) and shapes (neq x nc) */
    const kd_model* cm = c->m;
    const double *cshape = modes ? modes->shape : NULL, *w2 = NULL;
    int neq = modes ? modes->neq : 0, nc = modes ? modes->count : 0;
    double t_at = 0, *comega = NULL;
    kd_ked* ked = NULL;
    kd_ked_along* w = NULL;
    kd_status st = KD_OK;
    if (along) {
        const int body = ns > 0 ? c->d->sensors[sensors[0]].body : -1;
        for (int j = 1; j < ns; j++)
            if (c->d->sensors[sensors[j]].body != body)
                st = kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc,
                                  "correlate: with computed: modes_along_motion the sensors are on one link ('%s' is not)",
                                  c->d->sensors[sensors[j]].name);
        if (!st && body < 0) st = kd_error_set(err, KD_ERR_INPUT, c->d->file, ad->loc, "correlate: no sensors");
        if (!st) st = along_instant_modes(c, ad, body, &ked, &w, &cm, &t_at, &neq, &nc, &w2, &cshape, err);
        if (!st && !(comega = malloc(sizeof(double) * (size_t)(nc ? nc : 1))))
            st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        for (int j = 0; j < nc && !st; j++) comega[j] = sqrt(fmax(w2[j], 0.0));
    } else
        comega = NULL;
    const double* omega = along ? comega : (modes ? modes->omega : NULL);
    kd_sensor_place place;
    memset(&place, 0, sizeof place);
    if (!st) st = kd_sensors_place(c->d, cm, sensors, ns, &place, err);
    if (st) {
        free(comega);
        kd_ked_along_free(&w);
        kd_ked_free(&ked);
        return st;
    }
    (void)t_at;
    double *meas = NULL, *f_meas = NULL;  /* measured shapes (real, from a record) and frequencies */
    int nm = from_record ? 0 : id->fit.nmodes;
    if (from_record) st = record_shapes(c, ad, &place, sensors, ns, &meas, &f_meas, &nm, err);
    double* comp = malloc(sizeof(double) * (size_t)(nc ? nc : 1) * (size_t)(ns ? ns : 1));
    r->mac = malloc(sizeof(double) * (size_t)(nm ? nm : 1) * (size_t)(nc ? nc : 1));
    int* pair = malloc(sizeof(int) * (size_t)(nm ? nm : 1));
    if (!st && (!comp || !r->mac || !pair)) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    const double* fm = from_record ? f_meas : (id ? id->fit.f_hz : NULL);
    /* the computed shapes at the sensors (theory.md, "Correlation with the model") */
    for (int q = 0; q < nc && !st; q++) kd_sensors_read(&place, cshape + (size_t)q * neq, comp + (size_t)q * ns);
    r->nm = nm, r->nc = nc;
    if (!st && nm > 0 && nc > 0)
        st = from_record ? kd_mac_matrix(meas, 0, nm, comp, 0, nc, ns, r->mac) : kd_mac_matrix(id->fit.shape, 1, nm, comp, 0, nc, ns, r->mac);
    if (!st && nm > 0 && nc > 0) st = kd_mac_pair(r->mac, nm, nc, ad->correlate.min_mac, pair, err);
    r->npairs = 0;
    for (int i = 0; i < nm && !st; i++)
        if (pair[i] >= 0 && r->npairs < 2 * KD_COLUMNS_MAX) {
            const int p = r->npairs++;
            r->pair_m[p] = i, r->pair_c[p] = pair[i], r->pair_mac[p] = r->mac[(size_t)i * nc + pair[i]];
            r->pair_f_m[p] = fm[i], r->pair_f_c[p] = omega[pair[i]] / (2 * PI);
        }
    kd_atomic_file f;
    char path[1200];
    if (!st) {
        result_path(c, a, "correlate", "csv", path, sizeof path);
        if (!(st = kd_atomic_open(&f, path, err))) {
            fprintf(f.fp, "measured,computed,f_measured_hz,f_computed_hz,difference_hz,difference_percent,mac\n");
            for (int p = 0; p < r->npairs; p++)
                fprintf(f.fp, "%d,%d,%.9g,%.9g,%.6g,%.6g,%.6f\n", r->pair_m[p] + 1, r->pair_c[p] + 1, r->pair_f_m[p], r->pair_f_c[p],
                        r->pair_f_m[p] - r->pair_f_c[p], 100 * (r->pair_f_m[p] - r->pair_f_c[p]) / r->pair_f_c[p], r->pair_mac[p]);
            if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
        }
    }
    if (!st) {  /* the MAC matrix: a row per measured mode */
        result_path(c, a, "mac", "csv", path, sizeof path);
        if (!(st = kd_atomic_open(&f, path, err))) {
            fprintf(f.fp, "measured,f_measured_hz");
            for (int k = 0; k < nc; k++) fprintf(f.fp, ",computed_%d", k + 1);
            fputc('\n', f.fp);
            for (int i = 0; i < nm; i++) {
                fprintf(f.fp, "%d,%.9g", i + 1, fm[i]);
                for (int k = 0; k < nc; k++) fprintf(f.fp, ",%.6f", r->mac[(size_t)i * nc + k]);
                fputc('\n', f.fp);
            }
            if (!(st = kd_atomic_commit(&f, err))) a->nfiles++;
        }
    }
    free(comp);
    free(pair);
    free(meas);
    free(f_meas);
    free(comega);
    kd_ked_along_free(&w);
    kd_ked_free(&ked);
    kd_sensor_place_free(&place);
    return st;
}

static void write_correlate_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    const kd_measure_result* r = a->measure;
    if (a->status != KD_OK || !r) return;
    if (!r->mac) {  /* spectral peaks over the frequencies along the motion */
        fprintf(fp, ",\n      \"peaks\": [");
        for (int p = 0; p < r->npeaks; p++) {
            fprintf(fp, "%s[%.9g, ", p ? ", " : "", r->peaks_hz[p]);
            io_json_string(fp, r->peak_mode[p]);
            fprintf(fp, ", %.9g, %.9g]", r->peak_fmin[p], r->peak_fmax[p]);
        }
        fprintf(fp, "]");
        return;
    }
    fprintf(fp, ",\n      \"pairs\": [");
    for (int p = 0; p < r->npairs; p++)
        fprintf(fp, "%s[%d, %d, %.6f, %.9g]", p ? ", " : "", r->pair_m[p] + 1, r->pair_c[p] + 1, r->pair_mac[p],
                r->pair_f_m[p] - r->pair_f_c[p]);
    fprintf(fp, "]");
}

const run_analysis run_spectrum_entry = {KD_ANALYSIS_SPECTRUM, run_spectrum, write_spectrum_summary, 0, NULL};
const run_analysis run_frf_entry = {KD_ANALYSIS_FRF, run_frf, write_frf_summary, 0, NULL};
const run_analysis run_identify_entry = {KD_ANALYSIS_IDENTIFY, run_identify, write_identify_summary, 0, NULL};
const run_analysis run_correlate_entry = {KD_ANALYSIS_CORRELATE, run_correlate, write_correlate_summary, 0, NULL};
const run_analysis run_virtual_test_entry = {KD_ANALYSIS_VIRTUAL_TEST, run_virtual_test, write_virtual_test_summary, 0, NULL};

/* ---- kedyn analyze: one record, no model ------------------------------------------------ */

void kd_analyze_opts_init(kd_analyze_opts* o) {
    memset(o, 0, sizeof(*o));
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_SPECTRUM);
    o->spectrum = a.spectrum;
    kd_analysis_desc_init(&a, KD_ANALYSIS_FRF);
    o->frf = a.frf;
    kd_analysis_desc_init(&a, KD_ANALYSIS_IDENTIFY);
    o->identify = a.identify;
}

kd_status kd_analyze_record(const kd_analyze_opts* o, const char* outdir, const kd_run_options* ro, kd_run_report* rep,
                            kd_error* err) {
    memset(rep, 0, sizeof(*rep));
    kd_desc d;
    memset(&d, 0, sizeof d);
    snprintf(d.file, sizeof d.file, "%s", o->record);
    kd_record_desc rd;
    memset(&rd, 0, sizeof rd);
    snprintf(rd.name, sizeof rd.name, "record");
    snprintf(rd.path, sizeof rd.path, "%s", o->record);
    snprintf(rd.file, sizeof rd.file, "%s", o->record);
    if (o->time) snprintf(rd.time, sizeof rd.time, "%s", o->time);
    rd.rate = o->rate;
    d.records = &rd, d.nrecords = 1;
    kd_analysis_desc an[3];
    const run_analysis* run[3];
    int n = 0;
    if (o->do_spectrum) an[n].type = KD_ANALYSIS_SPECTRUM, an[n].spectrum = o->spectrum, run[n++] = &run_spectrum_entry;
    if (o->do_frf) an[n].type = KD_ANALYSIS_FRF, an[n].frf = o->frf, run[n++] = &run_frf_entry;
    if (o->do_frf && o->do_identify) an[n].type = KD_ANALYSIS_IDENTIFY, an[n].identify = o->identify, run[n++] = &run_identify_entry;
    for (int i = 0; i < n; i++) {
        an[i].loc = KD_LOC_NONE;
        if (an[i].type == KD_ANALYSIS_SPECTRUM) snprintf(an[i].spectrum.record, KD_NAME_MAX, "record");
        if (an[i].type == KD_ANALYSIS_FRF) snprintf(an[i].frf.record, KD_NAME_MAX, "record");
    }
    d.analyses = an, d.nanalyses = n;
    /* the record and its columns first: an input error writes nothing */
    kd_record* rec = NULL;
    kd_status st = kd_record_read(o->record, o->time, o->rate, &rec, err);
    for (int i = 0; i < n && !st; i++) {
        const char* cols[KD_COLUMNS_MAX + 2];
        int nc = 0;
        if (an[i].type == KD_ANALYSIS_SPECTRUM) {
            for (int k = 0; k < an[i].spectrum.ncolumns; k++) cols[nc++] = an[i].spectrum.columns[k];
            if (an[i].spectrum.speed[0]) cols[nc++] = an[i].spectrum.speed;
            if (an[i].spectrum.angle[0]) cols[nc++] = an[i].spectrum.angle;
        } else if (an[i].type == KD_ANALYSIS_FRF) {
            cols[nc++] = an[i].frf.force;
            for (int k = 0; k < an[i].frf.nresponses; k++) cols[nc++] = an[i].frf.responses[k];
        }
        for (int k = 0; k < nc && !st; k++)
            if (kd_record_find_channel(rec, cols[k]) < 0)
                st = kd_error_set(err, KD_ERR_INPUT, o->record, KD_LOC_NONE, "the record has no column '%s'", cols[k]);
    }
    kd_record_free(&rec);
    if (st) return st;
    if ((st = kd_make_dirs(outdir, err))) return st;
    int lock = -1;
    if ((st = kd_outdir_lock(outdir, &lock, err))) return st;
    rep->analyses = calloc((size_t)(n ? n : 1), sizeof(*rep->analyses));
    if (!rep->analyses) {
        kd_outdir_unlock(&lock);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    for (int i = 0; i < n && !st && !kd_interrupted(); i++) {
        kd_analysis_report* a = &rep->analyses[rep->nanalyses++];
        a->type = an[i].type;
        run_context c = {&d, NULL, outdir, 1, NULL, ro, i, n, NULL, rep->analyses, 0, NULL, NULL, NULL};
        if (ro && ro->progress) ro->progress(ro->progress_ctx, i, n, kd_analysis_type_name(a->type), 0.0);
        st = run[i]->run(&c, &an[i], a, err);
        a->status = st;
        if (st) snprintf(a->message, sizeof a->message, "%s", err->msg);
    }
    if (!st && kd_interrupted()) st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "interrupted by signal %d", kd_interrupted());
    rep->complete = st == KD_OK;
    /* summary.json, last */
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.json", outdir);
    kd_atomic_file f;
    kd_error werr;
    kd_status wst = kd_atomic_open(&f, path, &werr);
    if (!wst) {
        fprintf(f.fp, "{\n  \"kedyn\": \"%s\",\n  \"record\": ", KD_VERSION_STRING);
        io_json_string(f.fp, o->record);
        fprintf(f.fp, ",\n  \"complete\": %s,\n  \"analyses\": [\n", rep->complete ? "true" : "false");
        for (int i = 0; i < rep->nanalyses; i++) {
            const kd_analysis_report* a = &rep->analyses[i];
            fprintf(f.fp, "    {\"type\": \"%s\", \"status\": \"%s\"", kd_analysis_type_name(a->type), kd_status_name(a->status));
            if (a->message[0]) {
                fprintf(f.fp, ", \"message\": ");
                io_json_string(f.fp, a->message);
            }
            run[i]->write_summary(f.fp, a, NULL);
            fprintf(f.fp, ",\n      \"files\": [");
            for (int k = 0; k < a->nfiles; k++) {
                fprintf(f.fp, "%s", k ? ", " : "");
                io_json_string(f.fp, a->files[k]);
            }
            fprintf(f.fp, "]}%s\n", i + 1 < rep->nanalyses ? "," : "");
        }
        fprintf(f.fp, "  ]\n}\n");
        wst = kd_atomic_commit(&f, &werr);
    }
    if (wst && !st) {
        *err = werr;
        st = wst;
    }
    kd_outdir_unlock(&lock);
    return st;
}
