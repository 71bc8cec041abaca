/* Universal Files (kedyn/record.h, kd_uff_read): the datasets of modal testing.
 *
 * A Universal File is a sequence of blocks, each between two delimiter records "    -1"
 * (I6) whose first record is the dataset number (I6). Read here:
 *   58   function at a nodal DOF (time histories, FRFs, spectra), records 1-11 ASCII, record 12
 *        the data: ASCII (6E13.5 single precision, 4E20.12 double, 2(E13.5,E20.12) or
 *        E13.5,2E20.12 for an uneven abscissa) or, as 58b, binary (the identifier record
 *        carries byte order, floating-point format, the count of ASCII lines (11) and of
 *        binary bytes that follow them);
 *   15   nodes, 4I10,1P3E13.5 per node;   2411  nodes, 4I10 then 1P3D25.16 per node;
 *   55   data at nodes (mode shapes of a normal-mode or complex-eigenvalue analysis).
 * Datasets 151 (header), 164 (units), 18 and 2420 (coordinate systems), 82 (trace lines) and
 * 2412 (elements) carry nothing kedyn uses and are skipped; any other number is an error.
 * Fields are read at their columns of the published formats; a line whose fixed-width fields
 * do not parse is read as numbers separated by blanks (writers that do not keep the widths).
 * Every error is located at the line (and column) of the record.
 * Layout: docs/model-format.md, "Records" (references there). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/record.h"

typedef struct reader {
    const char* buf;
    size_t len, pos;
    int line;                     /* line number of the line at pos (1-based) */
    const char* name;
    kd_error* err;
    kd_record* r;
} reader;

static kd_status fail(reader* rd, int line, int col, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
static kd_status fail(reader* rd, int line, int col, const char* fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kd_error_set(rd->err, KD_ERR_INPUT, rd->name, (kd_loc){line, col}, "%s", msg);
}

static kd_status errst(const reader* rd) { return rd->err ? rd->err->status : KD_ERR_INPUT; }

/* The next line [*s, *e) without its end of line; advances. 0 at the end of the buffer. */
static int next_line(reader* rd, const char** s, const char** e) {
    if (rd->pos >= rd->len) return 0;
    const char* p = rd->buf + rd->pos;
    const char* q = memchr(p, '\n', rd->len - rd->pos);
    const char* end = q ? q : rd->buf + rd->len;
    rd->pos = q ? (size_t)(q - rd->buf) + 1 : rd->len;
    if (end > p && end[-1] == '\r') end--;
    *s = p;
    *e = end;
    rd->line++;
    return 1;
}

/* The trimmed length of a line (trailing blanks dropped). */
static int trimmed(const char* s, const char* e) {
    while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
    return (int)(e - s);
}

static int is_delimiter(const char* s, const char* e) {
    int n = trimmed(s, e);
    while (n > 0 && *s == ' ') s++, n--;
    return n == 2 && s[0] == '-' && s[1] == '1';
}

/* One ASCII record line: text (not binary), at most 80 significant characters. */
static kd_status ascii_line(reader* rd, const char* what, const char** s, const char** e) {
    if (!next_line(rd, s, e)) return fail(rd, rd->line, 1, "%s: the file ends inside the block", what);
    for (const char* p = *s; p < *e; p++)
        if (*p == '\0' || (unsigned char)*p == 0x7f || ((unsigned char)*p < 32 && *p != '\t'))
            return fail(rd, rd->line, (int)(p - *s) + 1, "%s: a control character in an ASCII record", what);
    if (trimmed(*s, *e) > 80)
        return fail(rd, rd->line, 81, "%s: wrong record length (%d characters, the format allows 80)", what,
                    trimmed(*s, *e));
    return KD_OK;
}

/* A number from the field [col, col + w) of a line (blank: 0 and *blank = 1). Fortran 'D'
 * exponents are read as 'E'. Returns 0 on success. */
static int field_number(const char* s, const char* e, int col, int w, double* v, int* blank) {
    char tmp[64];
    int n = 0;
    for (int k = col; k < col + w && s + k < e && n < 63; k++)
        if (s[k] != ' ') tmp[n++] = (s[k] == 'D' || s[k] == 'd') ? 'E' : s[k];
    tmp[n] = '\0';
    if (blank) *blank = n == 0;
    if (n == 0) {
        *v = 0;
        return 0;
    }
    char* end;
    errno = 0;
    *v = strtod(tmp, &end);
    return *end != '\0' || !isfinite(*v) ? -1 : 0;
}

static int field_int(const char* s, const char* e, int col, int w, int* v) {
    double x;
    int blank;
    if (field_number(s, e, col, w, &x, &blank) || x != floor(x) || fabs(x) > 2147483647.0) return -1;
    *v = (int)x;
    return 0;
}

/* Numbers separated by blanks (D exponents accepted), at most max; returns the count, or -1
 * when a token is not a number (its column in *bad). */
static int free_numbers(const char* s, const char* e, double* v, int max, int* bad) {
    int n = 0;
    const char* p = s;
    while (p < e) {
        while (p < e && isspace((unsigned char)*p)) p++;
        if (p >= e) break;
        const char* q = p;
        while (q < e && !isspace((unsigned char)*q)) q++;
        char tmp[64];
        int k = 0;
        for (const char* c = p; c < q && k < 63; c++) tmp[k++] = (*c == 'D' || *c == 'd') ? 'E' : *c;
        tmp[k] = '\0';
        char* end;
        const double x = strtod(tmp, &end);
        if (*end != '\0' || !isfinite(x) || q - p >= 63) {
            *bad = (int)(p - s) + 1;
            return -1;
        }
        if (n < max) v[n] = x;
        n++;
        p = q;
    }
    return n;
}

/* The numbers of a line in fixed fields widths[0..nw-1] (cycled); blank fields at the end of
 * the line end it. Falls back to numbers separated by blanks when a field does not parse.
 * Returns the count (<= max), or -1 (error set). */
static int line_numbers(reader* rd, const char* s, const char* e, const int* widths, int nw, double* v, int max,
                        const char* what) {
    const int len = trimmed(s, e);
    int n = 0, col = 0, ok = 1;
    for (int k = 0; col < len; k++) {
        const int w = widths[k % nw];
        int blank;
        double x;
        if (field_number(s, e, col, w, &x, &blank)) {
            ok = 0;
            break;
        }
        if (blank) break;
        if (n >= max) {
            fail(rd, rd->line, col + 1, "%s: more values on the line than the record holds", what);
            return -1;
        }
        v[n++] = x;
        col += w;
    }
    if (ok) return n;
    int bad = 1;
    n = free_numbers(s, e, v, max, &bad);
    if (n < 0) fail(rd, rd->line, bad, "%s: expected a number", what);
    else if (n > max) {
        fail(rd, rd->line, 1, "%s: more values on the line than the record holds", what);
        return -1;
    }
    return n;
}

/* A label field [col, col + w) trimmed into out. */
static void field_text(const char* s, const char* e, int col, int w, char* out, size_t n) {
    const char* a = s + col;
    const char* b = s + col + w;
    if (a > e) a = e;
    if (b > e) b = e;
    while (a < b && *a == ' ') a++;
    while (b > a && b[-1] == ' ') b--;
    snprintf(out, n, "%.*s", (int)(b - a), a);
}

/* ---- dataset 58 ------------------------------------------------------------------------ */

typedef struct ds58 {
    int binary, byte_order, fp_format, nlines;
    long nbytes;
    char id1[81];
    int func, rsp_node, rsp_dir, ref_node, ref_dir;
    int ord_type, n, even;
    double x0, dx;
    int abscissa_type;
    char unit[KD_RECORD_UNIT_MAX];
    int line;                     /* the identifier record's line */
} ds58;

static kd_status read_58_header(reader* rd, ds58* h) {
    const char *s, *e;
    kd_status st;
    static const char* const rec[11] = {"dataset 58 record 1", "dataset 58 record 2", "dataset 58 record 3",
                                        "dataset 58 record 4", "dataset 58 record 5", "dataset 58 record 6",
                                        "dataset 58 record 7", "dataset 58 record 8", "dataset 58 record 9",
                                        "dataset 58 record 10", "dataset 58 record 11"};
    for (int k = 0; k < 11; k++) {
        if ((st = ascii_line(rd, rec[k], &s, &e))) return st;
        if (k == 0) field_text(s, e, 0, 80, h->id1, sizeof h->id1);
        if (k == 5) {  /* 2(I5,I10),2(1X,10A1,I10,I4) */
            int lc, fid, ver;
            if (field_int(s, e, 0, 5, &h->func) || field_int(s, e, 5, 10, &fid) || field_int(s, e, 15, 5, &ver) ||
                field_int(s, e, 20, 10, &lc) || field_int(s, e, 41, 10, &h->rsp_node) ||
                field_int(s, e, 51, 4, &h->rsp_dir) || field_int(s, e, 66, 10, &h->ref_node) ||
                field_int(s, e, 76, 4, &h->ref_dir))
                return fail(rd, rd->line, 1, "dataset 58 record 6: expected the DOF identification 2(I5,I10),2(1X,10A1,I10,I4)");
        }
        if (k == 6) {  /* 3I10,3E13.5 */
            double z;
            int blank;
            if (field_int(s, e, 0, 10, &h->ord_type) || field_int(s, e, 10, 10, &h->n) ||
                field_int(s, e, 20, 10, &h->even) || field_number(s, e, 30, 13, &h->x0, &blank) ||
                field_number(s, e, 43, 13, &h->dx, &blank) || field_number(s, e, 56, 13, &z, &blank))
                return fail(rd, rd->line, 1, "dataset 58 record 7: expected the data form 3I10,3E13.5");
            if (h->ord_type != 2 && h->ord_type != 4 && h->ord_type != 5 && h->ord_type != 6)
                return fail(rd, rd->line, 1, "dataset 58 record 7: ordinate data type %d (expected 2, 4, 5 or 6)",
                            h->ord_type);
            if (h->n < 1 || h->n > 100000000)
                return fail(rd, rd->line, 11, "dataset 58 record 7: %d data values", h->n);
            if (h->even != 0 && h->even != 1)
                return fail(rd, rd->line, 21, "dataset 58 record 7: abscissa spacing %d (expected 0 or 1)", h->even);
            if (h->even && !(h->dx > 0))
                return fail(rd, rd->line, 44, "dataset 58 record 7: an even abscissa needs a positive increment");
        }
        if (k == 7 && field_int(s, e, 0, 10, &h->abscissa_type))
            return fail(rd, rd->line, 1, "dataset 58 record 8: expected the abscissa data characteristics");
        if (k == 8) field_text(s, e, 47, 20, h->unit, sizeof h->unit);
    }
    if (strcmp(h->unit, "NONE") == 0) h->unit[0] = '\0';
    return KD_OK;
}

static kd_channel* add_channel(reader* rd, const ds58* h) {
    const int cplx = h->ord_type >= 5;
    kd_channel* c = kd_record_add_channel(rd->r, h->n, cplx);
    if (!c) return NULL;
    if (!h->even && !(c->x = calloc((size_t)h->n, sizeof(double)))) {
        rd->r->nchannels--;
        free(c->re);
        free(c->im);
        return NULL;
    }
    char base[KD_NAME_MAX];
    if (h->id1[0] && strcmp(h->id1, "NONE") != 0 && !strchr(h->id1, ','))
        snprintf(base, sizeof base, "%.*s", KD_NAME_MAX - 8, h->id1);
    else
        snprintf(base, sizeof base, "%d%c%c", h->rsp_node, h->rsp_dir < 0 ? '-' : '+', "SXYZXYZ"[abs(h->rsp_dir) % 7]);
    snprintf(c->name, sizeof c->name, "%s", base);
    for (int k = 2; kd_record_find_channel(rd->r, c->name) != rd->r->nchannels - 1; k++)
        snprintf(c->name, sizeof c->name, "%.50s_%d", base, k % 1000000);
    snprintf(c->unit, sizeof c->unit, "%s", h->unit);
    c->function = h->func;
    c->node = h->rsp_node, c->dir = h->rsp_dir, c->ref_node = h->ref_node, c->ref_dir = h->ref_dir;
    c->precision = h->ord_type;
    c->x0 = h->even ? h->x0 : 0.0;
    c->dx = h->even ? h->dx : 0.0;
    c->line = h->line;
    return c;
}

/* The values per sample in record 12: (abscissa if uneven) + 1 or 2 ordinates. */
static int per_sample(const ds58* h) { return (h->even ? 0 : 1) + (h->ord_type >= 5 ? 2 : 1); }

static void store(kd_channel* c, const ds58* h, long k, double v) {
    const int ps = per_sample(h);
    const long i = k / ps;
    int j = (int)(k % ps);
    if (!h->even) {
        if (j == 0) {
            c->x[i] = v;
            return;
        }
        j--;
    }
    if (j == 0) c->re[i] = v;
    else c->im[i] = v;
}

static kd_status read_58_ascii(reader* rd, const ds58* h, kd_channel* c) {
    int w4[4], nw;
    if (h->ord_type == 2 || h->ord_type == 5) w4[0] = 13, nw = 1;                  /* 6E13.5 */
    else if (h->even) w4[0] = 20, nw = 1;                                          /* 4E20.12 */
    else if (h->ord_type == 4) w4[0] = 13, w4[1] = 20, nw = 2;                     /* 2(E13.5,E20.12) */
    else w4[0] = 13, w4[1] = 20, w4[2] = 20, nw = 3;                               /* E13.5,2E20.12 */
    const long total = (long)h->n * per_sample(h);
    long k = 0;
    const char *s, *e;
    double v[16];
    const int first = rd->line + 1;  /* record 12 begins here */
    for (;;) {
        if (!next_line(rd, &s, &e)) return fail(rd, rd->line, 1, "dataset 58 record 12: the file ends inside the block");
        if (is_delimiter(s, e)) break;
        if (trimmed(s, e) > 80)
            return fail(rd, rd->line, 81, "dataset 58 record 12: wrong record length (%d characters, the format allows 80)",
                        trimmed(s, e));
        const int n = line_numbers(rd, s, e, w4, nw, v, 16, "dataset 58 record 12");
        if (n < 0) return errst(rd);
        for (int j = 0; j < n; j++, k++) {
            if (k >= total)
                return fail(rd, rd->line, 1, "dataset 58 record 12: wrong record length: more than the %d values of record 7",
                            h->n);
            store(c, h, k, v[j]);
        }
    }
    if (k != total)
        return fail(rd, first, 1, "dataset 58 record 12: wrong record length: %ld values, record 7 announces %ld", k,
                    total);
    return KD_OK;
}

static double get_double(const unsigned char* p, int big) {
    uint64_t u = 0;
    for (int b = 0; b < 8; b++) u |= (uint64_t)p[big ? b : 7 - b] << (8 * (7 - b));
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static double get_float(const unsigned char* p, int big) {
    uint32_t u = 0;
    for (int b = 0; b < 4; b++) u |= (uint32_t)p[big ? b : 3 - b] << (8 * (3 - b));
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
}

static kd_status read_58_binary(reader* rd, const ds58* h, kd_channel* c) {
    const int size = (h->ord_type == 2 || h->ord_type == 5) ? 4 : 8;
    const long total = (long)h->n * per_sample(h);
    if (h->nbytes != total * size)
        return fail(rd, h->line, 32,
                    "dataset 58b: wrong record length: %ld bytes announced, record 7 needs %ld (%d values of %d bytes)",
                    h->nbytes, total * size, (int)total, size);
    if ((size_t)h->nbytes > rd->len - rd->pos)
        return fail(rd, rd->line + 1, 1, "dataset 58b: the file ends inside the %ld binary bytes", h->nbytes);
    const unsigned char* p = (const unsigned char*)rd->buf + rd->pos;
    const int big = h->byte_order == 2;
    for (long k = 0; k < total; k++) {
        const double v = size == 8 ? get_double(p + k * 8, big) : get_float(p + k * 4, big);
        if (!isfinite(v)) return fail(rd, rd->line + 1, 1, "dataset 58b: value %ld is not finite", k + 1);
        store(c, h, k, v);
    }
    rd->pos += (size_t)h->nbytes;
    /* the delimiter follows the data (some writers put an end of line first) */
    if (rd->pos < rd->len && rd->buf[rd->pos] == '\r') rd->pos++;
    if (rd->pos < rd->len && rd->buf[rd->pos] == '\n') rd->pos++;
    const char *s, *e;
    if (!next_line(rd, &s, &e) || !is_delimiter(s, e))
        return fail(rd, rd->line, 1, "dataset 58b: wrong record length: no '    -1' right after the %ld binary bytes",
                    h->nbytes);
    return KD_OK;
}

static kd_status read_58(reader* rd, const char* ids, const char* ide) {
    ds58 h;
    memset(&h, 0, sizeof h);
    h.line = rd->line;
    const int len = (int)(ide - ids);
    if (len > 6 && (ids[6] == 'b' || ids[6] == 'B')) {  /* (I6,1A1,I6,I6,I12,I12,I6,I6,I12,I12) */
        double nb;
        int blank;
        h.binary = 1;
        if (field_int(ids, ide, 7, 6, &h.byte_order) || field_int(ids, ide, 13, 6, &h.fp_format) ||
            field_int(ids, ide, 19, 12, &h.nlines) || field_number(ids, ide, 31, 12, &nb, &blank) || blank)
            return fail(rd, h.line, 8, "dataset 58b: expected byte order, floating-point format, ASCII lines and bytes");
        if (h.byte_order != 1 && h.byte_order != 2)
            return fail(rd, h.line, 8, "dataset 58b: byte order %d (expected 1 little-endian or 2 big-endian)", h.byte_order);
        if (h.fp_format != 2)
            return fail(rd, h.line, 14, "dataset 58b: floating-point format %d (only 2, IEEE 754, is read)", h.fp_format);
        if (h.nlines != 11)
            return fail(rd, h.line, 20, "dataset 58b: %d ASCII lines announced (the format has 11)", h.nlines);
        if (!(nb >= 0 && nb < 4e9 && nb == floor(nb))) return fail(rd, h.line, 32, "dataset 58b: %g bytes", nb);
        h.nbytes = (long)nb;
    } else if (trimmed(ids, ide) > 6) {
        return fail(rd, h.line, 7, "dataset 58: unexpected text after the dataset number");
    }
    kd_status st = read_58_header(rd, &h);
    if (st) return st;
    /* what record 7 announces must fit in what is left of the file (before allocating it): at
     * least 2 characters per ASCII value, the announced bytes in binary */
    const double need = h.binary ? (double)h.nbytes : 2.0 * h.n * per_sample(&h);
    if (need > (double)(rd->len - rd->pos))
        return fail(rd, h.line, 1, "dataset 58: wrong record length: record 7 announces %d values, more than the file holds",
                    h.n);
    kd_channel* c = add_channel(rd, &h);
    if (!c) return kd_error_set(rd->err, KD_ERR_NOMEM, rd->name, KD_LOC_NONE, "out of memory");
    st = h.binary ? read_58_binary(rd, &h, c) : read_58_ascii(rd, &h, c);
    if (!st && !h.even)
        for (int i = 1; i < c->n; i++)
            if (!(c->x[i] > c->x[i - 1]))
                return fail(rd, h.line, 1, "dataset 58: the uneven abscissa does not increase at value %d", i + 1);
    return st;
}

/* ---- nodes: 15 and 2411 ------------------------------------------------------------------ */

static kd_status read_15(reader* rd) {
    const char *s, *e;
    static const int w[7] = {10, 10, 10, 10, 13, 13, 13};
    double v[8];
    for (;;) {
        if (!next_line(rd, &s, &e)) return fail(rd, rd->line, 1, "dataset 15: the file ends inside the block");
        if (is_delimiter(s, e)) return KD_OK;
        if (trimmed(s, e) > 80) return fail(rd, rd->line, 81, "dataset 15: wrong record length (%d characters)", trimmed(s, e));
        const int n = line_numbers(rd, s, e, w, 7, v, 8, "dataset 15");
        if (n < 0) return errst(rd);
        if (n != 7)
            return fail(rd, rd->line, 1, "dataset 15: wrong record length: %d values (label, 3 numbers, 3 coordinates)", n);
        if (v[0] != floor(v[0]) || fabs(v[0]) > 2147483647.0) return fail(rd, rd->line, 1, "dataset 15: a node label");
        if (kd_record_add_node(rd->r, (int)v[0], v + 4)) return kd_error_set(rd->err, KD_ERR_NOMEM, rd->name, KD_LOC_NONE, "out of memory");
    }
}

static kd_status read_2411(reader* rd) {
    const char *s, *e;
    static const int w1[4] = {10, 10, 10, 10}, w2[3] = {25, 25, 25};
    double v[8];
    for (;;) {
        if (!next_line(rd, &s, &e)) return fail(rd, rd->line, 1, "dataset 2411: the file ends inside the block");
        if (is_delimiter(s, e)) return KD_OK;
        int n = line_numbers(rd, s, e, w1, 4, v, 8, "dataset 2411 record 1");
        if (n < 0) return errst(rd);
        if (n != 4) return fail(rd, rd->line, 1, "dataset 2411 record 1: wrong record length: %d values (4I10)", n);
        if (v[0] != floor(v[0]) || fabs(v[0]) > 2147483647.0) return fail(rd, rd->line, 1, "dataset 2411: a node label");
        const int label = (int)v[0];
        if (!next_line(rd, &s, &e)) return fail(rd, rd->line, 1, "dataset 2411: the file ends inside the block");
        if (trimmed(s, e) > 80) return fail(rd, rd->line, 81, "dataset 2411: wrong record length (%d characters)", trimmed(s, e));
        n = line_numbers(rd, s, e, w2, 3, v, 8, "dataset 2411 record 2");
        if (n < 0) return errst(rd);
        if (n != 3) return fail(rd, rd->line, 1, "dataset 2411 record 2: wrong record length: %d values (1P3D25.16)", n);
        if (kd_record_add_node(rd->r, label, v)) return kd_error_set(rd->err, KD_ERR_NOMEM, rd->name, KD_LOC_NONE, "out of memory");
    }
}

/* ---- dataset 55 -------------------------------------------------------------------------- */

static kd_status read_55(reader* rd) {
    const char *s, *e;
    kd_status st;
    static const int w10[8] = {10, 10, 10, 10, 10, 10, 10, 10}, w13[1] = {13};
    double v[16];
    for (int k = 0; k < 5; k++)
        if ((st = ascii_line(rd, "dataset 55 ID line", &s, &e))) return st;
    if ((st = ascii_line(rd, "dataset 55 record 6", &s, &e))) return st;
    int n = line_numbers(rd, s, e, w10, 8, v, 16, "dataset 55 record 6");
    if (n < 0) return errst(rd);
    if (n != 6) return fail(rd, rd->line, 1, "dataset 55 record 6: wrong record length: %d values (6I10)", n);
    const int analysis = (int)v[1], data_type = (int)v[4], ndv = (int)v[5];
    if (analysis != 2 && analysis != 3 && analysis != 7)
        return fail(rd, rd->line, 11, "dataset 55: analysis type %d (kedyn reads mode shapes: 2, 3 or 7)", analysis);
    if (data_type != 2 && data_type != 5)
        return fail(rd, rd->line, 41, "dataset 55: data type %d (expected 2 real or 5 complex)", data_type);
    if (ndv != 3 && ndv != 6) return fail(rd, rd->line, 51, "dataset 55: %d values per node (expected 3 or 6)", ndv);
    const int line6 = rd->line;
    if ((st = ascii_line(rd, "dataset 55 record 7", &s, &e))) return st;
    n = line_numbers(rd, s, e, w10, 8, v, 16, "dataset 55 record 7");
    if (n < 0) return errst(rd);
    if (n < 4) return fail(rd, rd->line, 1, "dataset 55 record 7: wrong record length: %d values", n);
    const int nint = (int)v[0], nreal = (int)v[1], number = (int)v[3];
    if ((st = ascii_line(rd, "dataset 55 record 8", &s, &e))) return st;
    n = line_numbers(rd, s, e, w13, 1, v, 16, "dataset 55 record 8");
    if (n < 0) return errst(rd);
    if (n != nreal || nint < 2)
        return fail(rd, rd->line, 1, "dataset 55 record 8: wrong record length: %d values, record 7 announces %d", n, nreal);
    double freq, mass = 0, damp = 0;
    if (analysis == 2) {
        if (n < 1) return fail(rd, rd->line, 1, "dataset 55 record 8: no frequency");
        freq = v[0], mass = n > 1 ? v[1] : 0, damp = n > 2 ? v[2] : 0;
    } else {  /* complex eigenvalue s = re + i im: frequency |s| / 2 pi, damping -re / |s| */
        if (n < 2) return fail(rd, rd->line, 1, "dataset 55 record 8: no eigenvalue");
        const double mag = hypot(v[0], v[1]);
        freq = mag / (2 * 3.14159265358979323846), damp = mag > 0 ? -v[0] / mag : 0;
    }
    /* records 9 and 10 per node: count them first */
    const size_t save = rd->pos;
    const int save_line = rd->line;
    const int per_node = data_type == 5 ? 2 * ndv : ndv;
    int nodes = 0;
    double vals[12];
    for (;;) {
        if (!next_line(rd, &s, &e)) return fail(rd, rd->line, 1, "dataset 55: the file ends inside the block");
        if (is_delimiter(s, e)) break;
        n = line_numbers(rd, s, e, w10, 1, v, 16, "dataset 55 record 9");
        if (n < 0) return errst(rd);
        if (n != 1) return fail(rd, rd->line, 1, "dataset 55 record 9: wrong record length: %d values (a node number)", n);
        for (int got = 0; got < per_node;) {
            if (!next_line(rd, &s, &e) || is_delimiter(s, e))
                return fail(rd, rd->line, 1, "dataset 55 record 10: wrong record length: the node's values end early");
            n = line_numbers(rd, s, e, w13, 1, vals, 12, "dataset 55 record 10");
            if (n < 0) return errst(rd);
            if (n == 0 || got + n > per_node)
                return fail(rd, rd->line, 1, "dataset 55 record 10: wrong record length: %d values per node expected",
                            per_node);
            got += n;
        }
        nodes++;
    }
    kd_record_mode* m = kd_record_add_mode(rd->r, nodes, ndv);
    if (!m) return kd_error_set(rd->err, KD_ERR_NOMEM, rd->name, KD_LOC_NONE, "out of memory");
    m->number = number, m->frequency_hz = freq, m->modal_mass = mass, m->damping_ratio = damp;
    (void)line6;
    rd->pos = save, rd->line = save_line;
    for (int i = 0; i < nodes; i++) {
        next_line(rd, &s, &e);
        line_numbers(rd, s, e, w10, 1, v, 16, "dataset 55 record 9");
        m->node[i] = (int)v[0];
        for (int got = 0; got < per_node;) {
            next_line(rd, &s, &e);
            n = line_numbers(rd, s, e, w13, 1, vals, 12, "dataset 55 record 10");
            for (int j = 0; j < n; j++, got++)  /* complex: the real part of each value */
                if (data_type == 2) m->value[(size_t)i * ndv + got] = vals[j];
                else if (got % 2 == 0) m->value[(size_t)i * ndv + got / 2] = vals[j];
        }
    }
    next_line(rd, &s, &e);  /* the delimiter */
    return KD_OK;
}

/* A block we skip: up to its delimiter. */
static kd_status skip_block(reader* rd, int number) {
    const char *s, *e;
    for (;;) {
        if (!next_line(rd, &s, &e)) return fail(rd, rd->line, 1, "dataset %d: the file ends inside the block", number);
        if (is_delimiter(s, e)) return KD_OK;
    }
}

kd_status kd_uff_read_buffer(const char* buf, size_t len, const char* name, kd_record** out, kd_error* err) {
    *out = NULL;
    reader rd = {buf, len, 0, 0, name, err, kd_record_new()};
    if (!rd.r) return kd_error_set(err, KD_ERR_NOMEM, name, KD_LOC_NONE, "out of memory");
    snprintf(rd.r->file, sizeof rd.r->file, "%s", name);
    kd_status st = KD_OK;
    int blocks = 0;
    const char *s, *e;
    while (!st && next_line(&rd, &s, &e)) {
        if (trimmed(s, e) == 0) continue;  /* blank lines between blocks */
        if (!is_delimiter(s, e)) {
            st = fail(&rd, rd.line, 1, "expected '    -1', the start of a Universal File dataset");
            break;
        }
        if (!next_line(&rd, &s, &e)) {
            st = fail(&rd, rd.line, 1, "the file ends after a dataset delimiter");
            break;
        }
        int number;
        if (field_int(s, e, 0, 6, &number)) {
            st = fail(&rd, rd.line, 1, "expected a dataset number (I6)");
            break;
        }
        blocks++;
        switch (number) {
        case 58: st = read_58(&rd, s, e); break;
        case 15: st = read_15(&rd); break;
        case 2411: st = read_2411(&rd); break;
        case 55: st = read_55(&rd); break;
        case 151: case 164: case 18: case 2420: case 82: case 2412: st = skip_block(&rd, number); break;
        default:
            st = fail(&rd, rd.line, 1, "unknown Universal File dataset %d (kedyn reads 58, 58b, 15, 2411 and 55)", number);
        }
    }
    if (!st && blocks == 0) st = fail(&rd, 1, 1, "no Universal File dataset in the file");
    if (st) kd_record_free(&rd.r);
    *out = rd.r;
    return st;
}

kd_status kd_uff_read(const char* path, kd_record** out, kd_error* err) {
    *out = NULL;
    FILE* fp = fopen(path, "rb");
    if (!fp) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot open Universal File: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char* buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap) break;
        char* b = realloc(buf, 2 * cap);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b, cap *= 2;
    }
    const int bad = ferror(fp);
    fclose(fp);
    if (!buf) return kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory reading a Universal File");
    if (bad) {
        free(buf);
        return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read Universal File");
    }
    kd_status st = kd_uff_read_buffer(buf, n, path, out, err);
    free(buf);
    return st;
}
