/* kedyn: small helpers shared by the writers and runners. */
#include "output_util.h"

#include <stdlib.h>

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no surrogates, at
 * most U+10FFFF), 0 when s does not start one. */
static int utf8_length(const unsigned char* s) {
    int n;
    unsigned cp;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, cp = s[0] & 0x07u;
    else return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void io_json_string(FILE* fp, const char* s) {
    fputc('"', fp);
    const unsigned char* p = (const unsigned char*)s;
    while (*p) {
        const int n = utf8_length(p);
        if (n == 0) {  /* not UTF-8 (a file name from the command line): the replacement character */
            fputs("\\ufffd", fp);
            p++;
        } else if (*p == '"' || *p == '\\') {
            fprintf(fp, "\\%c", *p++);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(fp, "\\u%04x", *p++);
        } else {
            fwrite(p, 1, (size_t)n, fp);
            p += n;
        }
    }
    fputc('"', fp);
}

void io_json_array(FILE* fp, const double* v, int n, double scale) {
    fputc('[', fp);
    for (int i = 0; i < n; i++) fprintf(fp, "%s%.12g", i ? ", " : "", v[i] * scale);
    fputc(']', fp);
}

char* io_read_all(const char* path) {
    FILE* fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 65536, n = 0;
    char* buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, fp);
        if (n + 1 < cap) break;
        char* nb = realloc(buf, cap *= 2);
        if (!nb) free(buf);
        buf = nb;
    }
    fclose(fp);
    if (buf) buf[n] = '\0';
    return buf;
}

void io_result_path(const char* outdir, const char* stem, int ordinal, kd_analysis_report* a, char* path, size_t n) {
    char* name = a->files[a->nfiles];
    if (ordinal == 1) snprintf(name, sizeof(a->files[0]), "%s%s.csv", a->prefix, stem);
    else snprintf(name, sizeof(a->files[0]), "%s%s_%d.csv", a->prefix, stem, ordinal);
    snprintf(path, n, "%s/%s", outdir, name);
}

kd_status io_open_result(kd_atomic_file* f, const char* outdir, const char* stem, int ordinal, kd_analysis_report* a,
                         kd_error* err) {
    char path[1200];
    io_result_path(outdir, stem, ordinal, a, path, sizeof(path));
    return kd_atomic_open(f, path, err);
}

kd_status io_finish_file(kd_atomic_file* f, kd_status st, kd_analysis_report* a, kd_error* err) {
    /* stopped by SIGINT/SIGTERM at a row (the row callbacks return nonzero, which some routes
     * report as a write failure): the rows so far are whole and kept, like a numerical failure */
    if (st && st != KD_ERR_NUMERIC && kd_interrupted() && f->fp && !ferror(f->fp)) st = KD_ERR_NUMERIC;
    if (st && st != KD_ERR_NUMERIC) {
        kd_atomic_abort(f);
        return st;
    }
    kd_error werr;
    const kd_status wst = kd_atomic_commit(f, &werr);
    if (wst == KD_OK) a->nfiles++;
    else if (st == KD_OK) *err = werr, st = wst;
    return st;
}
