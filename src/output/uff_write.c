/* Universal Files (kedyn/record.h, kd_uff_write) and CSV records (kd_record_write_csv),
 * written atomically. The layouts are the published ones read by src/load/uff_read.c:
 * dataset 2411 (nodes, 4I10 / 1P3D25.16), 55 (mode shapes, 6I10 / 4I10 / 4E13.5, then per node
 * I10 / 6E13.5) and 58 (function at a nodal DOF: 5 ID lines, 2(I5,I10),2(1X,10A1,I10,I4),
 * 3I10,3E13.5, four I10,3I5,2(1X,20A1) records, then the data 4E20.12 in double precision, or
 * binary as 58b). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "kedyn/record.h"

/* The dataset 58 specific data type of a unit (record 9 field 1): 8 displacement, 11
 * velocity, 12 acceleration, 13 excitation force, 0 unknown. */
static int spec_type(const char* unit) {
    if (strcmp(unit, "m") == 0) return 8;
    if (strcmp(unit, "m/s") == 0) return 11;
    if (strcmp(unit, "m/s^2") == 0 || strcmp(unit, "m/s2") == 0 || strcmp(unit, "g") == 0) return 12;
    if (strcmp(unit, "N") == 0) return 13;
    return 0;
}

/* Values beyond the two-digit exponents of E13.5 / E20.12 do not fit their fields: tiny ones
 * become 0 (below the printed precision of any physical record), huge ones are refused. */
static double fit(double v, int* bad) {
    if (!isfinite(v) || fabs(v) >= 9.99e99) *bad = 1;
    return fabs(v) < 1e-99 ? 0.0 : v;
}

static void text80(FILE* fp, const char* s) { fprintf(fp, "%-80.80s\n", s && s[0] ? s : "NONE"); }

static int write_58(FILE* fp, const kd_channel* c, int binary) {
    const int cplx = c->im != NULL, even = c->x == NULL;
    const int ord = cplx ? 6 : 4;  /* always double precision */
    const int per = (even ? 0 : 1) + (cplx ? 2 : 1);
    const long total = (long)c->n * per;
    int bad = 0;
    fprintf(fp, "%6d\n%6d", -1, 58);
    if (binary) {
        const uint16_t one = 1;
        unsigned char b;
        memcpy(&b, &one, 1);
        fprintf(fp, "b%6d%6d%12d%12ld%6d%6d%12d%12d\n", b == 1 ? 1 : 2, 2, 11, total * 8, 0, 0, 0, 0);
    } else {
        fprintf(fp, "%74s\n", "");
    }
    char name[KD_NAME_MAX + 1];
    snprintf(name, sizeof name, "%s", c->name);
    text80(fp, name);
    for (int k = 0; k < 4; k++) text80(fp, "NONE");
    fprintf(fp, "%5d%10d%5d%10d %-10s%10d%4d %-10s%10d%4d\n", c->function, 1, 0, 0, "NONE", c->node, c->dir, "NONE",
            c->ref_node, c->ref_dir);
    fprintf(fp, "%10d%10d%10d%13.5E%13.5E%13.5E\n", ord, c->n, even, fit(even ? c->x0 : 0.0, &bad),
            fit(even ? c->dx : 0.0, &bad), 0.0);
    const int freq = c->function != KD_FUNCTION_TIME && c->function != 0;
    fprintf(fp, "%10d%5d%5d%5d %-20s %-20s\n", freq ? 18 : 17, 0, 0, 0, freq ? "Frequency" : "Time", freq ? "Hz" : "s");
    fprintf(fp, "%10d%5d%5d%5d %-20s %-20.20s\n", spec_type(c->unit), 0, 0, 0, "Response", c->unit[0] ? c->unit : "NONE");
    fprintf(fp, "%10d%5d%5d%5d %-20s %-20s\n", c->function == KD_FUNCTION_FRF ? 13 : 0, 0, 0, 0, "NONE", "NONE");
    fprintf(fp, "%10d%5d%5d%5d %-20s %-20s\n", 0, 0, 0, 0, "NONE", "NONE");
    if (binary) {
        for (int i = 0; i < c->n; i++) {
            double v[3];
            int k = 0;
            if (!even) v[k++] = c->x[i];
            v[k++] = c->re[i];
            if (cplx) v[k++] = c->im[i];
            for (int j = 0; j < k; j++)
                if (!isfinite(v[j])) bad = 1;
            fwrite(v, sizeof(double), (size_t)k, fp);  /* native order, announced above */
        }
    } else {
        long k = 0;
        for (int i = 0; i < c->n; i++) {
            double v[3];
            int m = 0;
            if (!even) v[m++] = c->x[i];
            v[m++] = c->re[i];
            if (cplx) v[m++] = c->im[i];
            for (int j = 0; j < m; j++, k++) {
                /* 4E20.12 (even), 2(E13.5,E20.12) (uneven real), E13.5,2E20.12 (uneven complex) */
                const int abscissa = !even && j == 0;
                fprintf(fp, abscissa ? "%13.5E" : "%20.12E", fit(v[j], &bad));
                const int per_line = even ? 4 : (cplx ? 3 : 4);
                if ((k + 1) % per_line == 0 || k + 1 == total) fputc('\n', fp);
            }
        }
    }
    fprintf(fp, "%6d\n", -1);
    return bad;
}

/* 1P3D25.16: 17 significant digits, read back bit for bit. */
static void d25(FILE* fp, double v) {
    char b[40];
    snprintf(b, sizeof b, "%25.16E", v);
    char* e = strchr(b, 'E');
    if (e) *e = 'D';
    fputs(b, fp);
}

kd_status kd_uff_write(const char* path, const kd_record* r, int binary, kd_error* err) {
    if (r->nnodes + r->nmodes + r->nchannels == 0)  /* a Universal File holds at least one dataset */
        return kd_error_set(err, KD_ERR_USAGE, path, KD_LOC_NONE, "an empty record (no nodes, modes or channels)");
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    FILE* fp = f.fp;
    int bad = 0;
    if (r->nnodes > 0) {
        fprintf(fp, "%6d\n%6d\n", -1, 2411);
        for (int i = 0; i < r->nnodes; i++) {
            fprintf(fp, "%10d%10d%10d%10d\n", r->node_label[i], 1, 1, 11);
            for (int k = 0; k < 3; k++) {
                if (!isfinite(r->node_x[3 * i + k])) bad = 1;
                d25(fp, r->node_x[3 * i + k]);
            }
            fputc('\n', fp);
        }
        fprintf(fp, "%6d\n", -1);
    }
    for (int m = 0; m < r->nmodes; m++) {
        const kd_record_mode* md = &r->modes[m];
        fprintf(fp, "%6d\n%6d%74s\n", -1, 55, "");
        char id[80];
        snprintf(id, sizeof id, "mode %d", md->number);
        text80(fp, id);
        for (int k = 0; k < 4; k++) text80(fp, "NONE");
        fprintf(fp, "%10d%10d%10d%10d%10d%10d\n", 1, 2, md->ndv == 6 ? 3 : 2, 8, 2, md->ndv);
        fprintf(fp, "%10d%10d%10d%10d\n", 2, 4, 1, md->number);
        fprintf(fp, "%13.5E%13.5E%13.5E%13.5E\n", fit(md->frequency_hz, &bad), fit(md->modal_mass, &bad),
                fit(md->damping_ratio, &bad), 0.0);
        for (int i = 0; i < md->nnodes; i++) {
            fprintf(fp, "%10d\n", md->node[i]);
            for (int k = 0; k < md->ndv; k++)
                fprintf(fp, "%13.5E%s", fit(md->value[(size_t)i * md->ndv + k], &bad),
                        (k + 1) % 6 == 0 || k + 1 == md->ndv ? "\n" : "");
        }
        fprintf(fp, "%6d\n", -1);
    }
    for (int i = 0; i < r->nchannels; i++) bad |= write_58(fp, &r->channels[i], binary);
    if (bad) {
        kd_atomic_abort(&f);
        return kd_error_set(err, KD_ERR_USAGE, path, KD_LOC_NONE,
                            "a value does not fit the Universal File's fields (not finite, or |v| >= 1e99)");
    }
    return kd_atomic_commit(&f, err);
}

kd_status kd_record_write_csv(const char* path, const kd_record* r, kd_error* err) {
    if (r->nchannels < 1) return kd_error_set(err, KD_ERR_USAGE, path, KD_LOC_NONE, "a record without channels");
    const kd_channel* c0 = &r->channels[0];
    for (int i = 0; i < r->nchannels; i++) {
        const kd_channel* c = &r->channels[i];
        if (c->im || c->x || c->n != c0->n || c->x0 != c0->x0 || c->dx != c0->dx)
            return kd_error_set(err, KD_ERR_USAGE, path, KD_LOC_NONE,
                                "channel '%s' is complex, uneven or on another abscissa: not one CSV table", c->name);
    }
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    const int freq = c0->function != KD_FUNCTION_TIME && c0->function != 0;
    fprintf(f.fp, "%s", freq ? "f_hz" : "t");
    for (int i = 0; i < r->nchannels; i++) {
        fprintf(f.fp, ",%s", r->channels[i].name);
        if (r->channels[i].unit[0]) fprintf(f.fp, " [%s]", r->channels[i].unit);
    }
    fputc('\n', f.fp);
    for (int k = 0; k < c0->n; k++) {
        fprintf(f.fp, "%.17g", c0->x0 + k * c0->dx);
        for (int i = 0; i < r->nchannels; i++) fprintf(f.fp, ",%.17g", r->channels[i].re[k]);
        fputc('\n', f.fp);
    }
    return kd_atomic_commit(&f, err);
}
