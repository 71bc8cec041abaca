/* Time histories from CSV files (kedyn/record.h, kd_record_read_csv): a header of column names
 * with optional units in brackets, rows of numbers; a time column or a sample rate. Errors are
 * located at the line and column of the offending field. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kedyn/record.h"

#define CSV_COLS_MAX 1024

static char* read_file(const char* path, size_t* len, kd_error* err) {
    FILE* fp = fopen(path, "rb");
    if (!fp) {
        kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot open record file: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char* buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (n < cap) break;
        char* b = realloc(buf, 2 * cap + 1);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    const int bad = ferror(fp);
    fclose(fp);
    if (!buf) {
        kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory reading the record");
        return NULL;
    }
    if (bad) {
        free(buf);
        kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read record file");
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Fields of one line [s, e): start offsets and lengths, trimmed. Returns the count. */
static int split(const char* s, const char* e, const char** f, int* flen, int max) {
    int n = 0;
    const char* p = s;
    for (;;) {
        const char* q = p;
        while (q < e && *q != ',') q++;
        const char *a = p, *b = q;
        while (a < b && isspace((unsigned char)*a)) a++;
        while (b > a && isspace((unsigned char)b[-1])) b--;
        if (n < max) {
            f[n] = a;
            flen[n] = (int)(b - a);
        }
        n++;
        if (q >= e) break;
        p = q + 1;
    }
    return n;
}

static int blank_or_comment(const char* s, const char* e) {
    while (s < e && isspace((unsigned char)*s)) s++;
    return s == e || *s == '#';
}

kd_status kd_record_read_csv(const char* path, const char* time, double rate, kd_record** out, kd_error* err) {
    *out = NULL;
    const int timed = time && time[0];
    if (!timed && !(rate > 0 && isfinite(rate)))
        return kd_error_set(err, KD_ERR_USAGE, path, KD_LOC_NONE, "a CSV record needs a time column or a sample rate");
    size_t len = 0;
    char* buf = read_file(path, &len, err);
    if (!buf) return err ? err->status : KD_ERR_IO;
    kd_status st = KD_OK;
    kd_record* r = kd_record_new();
    const char** f = malloc(sizeof(char*) * CSV_COLS_MAX);
    int* flen = malloc(sizeof(int) * CSV_COLS_MAX);
    double* t = NULL;
    int ncol = 0, tcol = -1, nrow = 0, cap = 0, header_line = 0;
    if (!r || !f || !flen) {
        st = kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
        goto done;
    }
    snprintf(r->file, sizeof r->file, "%s", path);
    int line = 0;
    for (const char* s = buf; s < buf + len && !st;) {
        const char* e = memchr(s, '\n', (size_t)(buf + len - s));
        if (!e) e = buf + len;
        const char* next = e < buf + len ? e + 1 : e;
        if (e > s && e[-1] == '\r') e--;
        line++;
        if (e > s && memchr(s, 0, (size_t)(e - s))) {
            st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, 1}, "a NUL byte in a CSV record");
            break;
        }
        if (blank_or_comment(s, e)) {
            s = next;
            continue;
        }
        const int n = split(s, e, f, flen, CSV_COLS_MAX);
        if (n > CSV_COLS_MAX) {
            st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, 1}, "more than %d columns", CSV_COLS_MAX);
            break;
        }
        if (!header_line) {  /* the header: names and [units] */
            header_line = line;
            ncol = n;
            for (int k = 0; k < n && !st; k++) {
                const char* nm = f[k];
                int nl = flen[k];
                const char* br = memchr(nm, '[', (size_t)nl);
                const char* ub = NULL;
                int ul = 0;
                if (br) {
                    const char* close = memchr(br, ']', (size_t)(nm + nl - br));
                    if (!close) {
                        st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, (int)(br - s) + 1},
                                          "unit without its closing ']'");
                        break;
                    }
                    ub = br + 1;
                    ul = (int)(close - ub);
                    nl = (int)(br - nm);
                    while (nl > 0 && isspace((unsigned char)nm[nl - 1])) nl--;
                }
                if (nl <= 0 || nl >= KD_NAME_MAX) {
                    st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, (int)(nm - s) + 1},
                                      "column %d needs a name of 1 to %d characters", k + 1, KD_NAME_MAX - 1);
                    break;
                }
                if (memchr(nm, '"', (size_t)nl)) {
                    st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, (int)(nm - s) + 1},
                                      "quoted column names are not supported");
                    break;
                }
                char name[KD_NAME_MAX];
                snprintf(name, sizeof name, "%.*s", nl, nm);
                const int is_time = timed && strcmp(name, time) == 0;
                if (is_time ? tcol >= 0 : kd_record_find_channel(r, name) >= 0) {
                    st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, (int)(nm - s) + 1},
                                      "column '%s' is given twice", name);
                    break;
                }
                if (is_time) {
                    tcol = k;
                    continue;
                }
                kd_channel* c = kd_record_add_channel(r, 0, 0);
                if (!c) {
                    st = kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
                    break;
                }
                snprintf(c->name, sizeof c->name, "%s", name);
                if (ub) snprintf(c->unit, sizeof c->unit, "%.*s", ul < KD_RECORD_UNIT_MAX ? ul : KD_RECORD_UNIT_MAX - 1, ub);
                c->line = line;
            }
            if (!st && timed && tcol < 0)
                st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, 1}, "no time column '%s' in the header", time);
            if (!st && r->nchannels == 0)
                st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, 1}, "no data column in the header");
            s = next;
            continue;
        }
        if (n != ncol) {
            st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, 1}, "ragged row: %d fields, the header has %d", n,
                              ncol);
            break;
        }
        if (nrow == cap) {  /* grow every column together */
            const int nc = cap ? 2 * cap : 1024;
            for (int k = 0; k < r->nchannels && !st; k++) {
                double* p = realloc(r->channels[k].re, sizeof(double) * (size_t)nc);
                if (!p) st = kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
                else r->channels[k].re = p;
            }
            double* p = st ? NULL : realloc(t, sizeof(double) * (size_t)nc);
            if (!st && !p) st = kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
            if (st) break;
            t = p;
            cap = nc;
        }
        for (int k = 0, ch = 0; k < n && !st; k++) {
            char tmp[64];
            if (flen[k] <= 0 || flen[k] >= (int)sizeof tmp) {
                st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, (int)(f[k] - s) + 1}, "expected a number");
                break;
            }
            memcpy(tmp, f[k], (size_t)flen[k]);
            tmp[flen[k]] = '\0';
            char* end;
            errno = 0;
            const double v = strtod(tmp, &end);
            if (*end != '\0' || !isfinite(v)) {
                st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, (int)(f[k] - s) + 1},
                                  "'%s' is not a finite number", tmp);
                break;
            }
            if (k == tcol) {
                t[nrow] = v;
                if (nrow > 0 && !(v > t[nrow - 1]))
                    st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){line, (int)(f[k] - s) + 1},
                                      "time %.17g does not increase (previous row: %.17g)", v, t[nrow - 1]);
            } else {
                r->channels[ch++].re[nrow] = v;
            }
        }
        if (st) break;
        nrow++;
        s = next;
    }
    if (!st && !header_line) st = kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_START, "an empty CSV record");
    if (!st && nrow < 2) st = kd_error_set(err, KD_ERR_INPUT, path, (kd_loc){header_line, 1}, "a record needs at least 2 rows");
    double x0 = 0, dx = timed ? 0 : 1.0 / rate;
    if (!st && timed) {
        /* the step from the first and last times; every time within 1 % of a step of its
         * place on that grid (clocks printed with few digits jitter) */
        x0 = t[0];
        dx = (t[nrow - 1] - t[0]) / (nrow - 1);
        for (int i = 1; i < nrow && !st; i++)
            if (fabs(t[i] - (x0 + i * dx)) > 0.01 * dx)
                st = kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_NONE,
                                  "time %.9g (row %d) is not on an even grid of step %.9g s (uneven sampling)", t[i],
                                  i + 1, dx);
        if (st) {  /* locate the row: count its data line */
            int want = 0;
            for (int i = 1; i < nrow; i++)
                if (fabs(t[i] - (x0 + i * dx)) > 0.01 * dx) {
                    want = i;
                    break;
                }
            int ln = 0, rows = -1, hdr = 0;
            for (const char* s = buf; s < buf + len;) {
                const char* e = memchr(s, '\n', (size_t)(buf + len - s));
                if (!e) e = buf + len;
                ln++;
                if (!blank_or_comment(s, e)) {
                    if (!hdr) hdr = 1;
                    else if (++rows == want) break;
                }
                s = e + 1;
            }
            if (err) err->loc = (kd_loc){ln, 1};
        }
    }
    if (!st)
        for (int k = 0; k < r->nchannels; k++) {
            r->channels[k].n = nrow;
            r->channels[k].x0 = x0;
            r->channels[k].dx = dx;
        }
done:
    free(t);
    free(f);
    free(flen);
    free(buf);
    if (st) kd_record_free(&r);
    *out = r;
    return st;
}

kd_status kd_record_read(const char* path, const char* time, double rate, kd_record** out, kd_error* err) {
    const char* dot = strrchr(path, '.');
    if (dot && (strcasecmp(dot, ".uff") == 0 || strcasecmp(dot, ".unv") == 0 || strcasecmp(dot, ".uf") == 0))
        return kd_uff_read(path, out, err);
    return kd_record_read_csv(path, time, rate, out, err);
}
