/* Reading the result CSV files back for figures (plot_internal.h). The
 * files are kedyn's own: a header row, comma-separated cells, no quoting. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

void csv_free(csv_table* t) {
    if (!t) return;
    for (int j = 0; j < t->ncol && t->name; j++) free(t->name[j]);
    if (t->text)
        for (size_t i = 0; i < (size_t)t->nrow * (size_t)t->ncol; i++) free(t->text[i]);
    free(t->name);
    free(t->val);
    free(t->text);
    memset(t, 0, sizeof(*t));
}

int csv_col(const csv_table* t, const char* name) {
    for (int j = 0; j < t->ncol; j++)
        if (strcmp(t->name[j], name) == 0) return j;
    return -1;
}

/* Read a whole line (any length) into *buf; returns its length or -1 at EOF. */
static long read_line(FILE* fp, char** buf, size_t* cap) {
    size_t n = 0;
    int c;
    while ((c = fgetc(fp)) != EOF && c != '\n') {
        if (n + 2 > *cap) {
            const size_t nc = *cap ? 2 * *cap : 4096;
            char* nb = realloc(*buf, nc);
            if (!nb) return -2;
            *buf = nb, *cap = nc;
        }
        (*buf)[n++] = (char)c;
    }
    if (c == EOF && n == 0) return -1;
    if (n && (*buf)[n - 1] == '\r') n--;
    if (!*buf) {
        *buf = malloc(1);
        if (!*buf) return -2;
        *cap = 1;
    }
    (*buf)[n] = '\0';
    return (long)n;
}

static int count_cells(const char* s) {
    int n = 1;
    for (; *s; s++) n += *s == ',';
    return n;
}

kd_status csv_read(const char* path, csv_table* t, kd_error* err) {
    memset(t, 0, sizeof(*t));
    FILE* fp = fopen(path, "r");
    if (!fp) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot open for reading");
    char* line = NULL;
    size_t cap = 0;
    kd_status st = KD_OK;
    long len = read_line(fp, &line, &cap);
    if (len < 0) {
        st = kd_error_set(err, len == -1 ? KD_ERR_INPUT : KD_ERR_NOMEM, path, KD_LOC_NONE,
                          len == -1 ? "empty file (no header row)" : "out of memory");
        goto done;
    }
    t->ncol = count_cells(line);
    t->name = calloc((size_t)t->ncol, sizeof(char*));
    if (!t->name) goto nomem;
    {
        char* s = line;
        for (int j = 0; j < t->ncol; j++) {
            char* e = strchr(s, ',');
            if (e) *e = '\0';
            t->name[j] = strdup(s);
            if (!t->name[j]) goto nomem;
            s = e ? e + 1 : s + strlen(s);
        }
    }
    int rcap = 0;
    while ((len = read_line(fp, &line, &cap)) >= 0) {
        if (len == 0) continue;
        if (t->nrow == rcap) {
            rcap = rcap ? 2 * rcap : 256;
            double* nv = realloc(t->val, sizeof(double) * (size_t)rcap * (size_t)t->ncol);
            if (!nv) goto nomem;
            t->val = nv;
            char** nt = realloc(t->text, sizeof(char*) * (size_t)rcap * (size_t)t->ncol);
            if (!nt) goto nomem;
            t->text = nt;
        }
        double* v = t->val + (size_t)t->nrow * t->ncol;
        char** tx = t->text + (size_t)t->nrow * t->ncol;
        t->nrow++;
        char* s = line;
        for (int j = 0; j < t->ncol; j++) {
            tx[j] = NULL;
            v[j] = NAN;
            if (!s) continue;
            char* e = strchr(s, ',');
            if (e) *e = '\0';
            char* end;
            const double x = strtod(s, &end);
            if (end != s && *end == '\0') v[j] = isfinite(x) ? x : NAN;
            else if ((tx[j] = strdup(s)) == NULL) goto nomem;
            s = e ? e + 1 : NULL;
        }
    }
    if (len == -2) goto nomem;
    goto done;
nomem:
    st = kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
    csv_free(t);
done:
    free(line);
    fclose(fp);
    return st;
}
