/* kedyn: small helpers shared by the writers and runners. */
#include "output_util.h"

#include <stdlib.h>

void io_json_string(FILE* fp, const char* s) {
    fputc('"', fp);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(fp, "\\%c", c);
        else if (c < 0x20) fprintf(fp, "\\u%04x", c);
        else fputc(c, fp);
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
