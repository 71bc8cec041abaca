/* The schema layer of the model-file loader (src/load/yaml_schema.h): node
 * locations and errors, typed getters, mappings with a fixed set of keys,
 * mappings read through a key table (kedyn/desc_fields.h), laws of time and
 * their table files, body and point references. Every section reader of
 * the loader uses these; they call nothing else of the loader. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "yaml_limits.h"
#include "yaml_schema.h"

kd_loc loc_of(const node_t* n) { return (kd_loc){(int)n->start_mark.line + 1, (int)n->start_mark.column + 1}; }

kd_status fail(loader* ld, const node_t* n, const char* fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, n ? loc_of(n) : KD_LOC_START, "%s", msg);
}

node_t* node_at(loader* ld, int id) { return yaml_document_get_node(&ld->doc, id); }

const char* scalar(const node_t* n) { return n->type == YAML_SCALAR_NODE ? (const char*)n->data.scalar.value : NULL; }

/* ---- typed getters ------------------------------------------------------ */

kd_status expect(loader* ld, const node_t* n, yaml_node_type_t type, const char* what) {
    if (n->type == type) return KD_OK;
    const char* kind = type == YAML_MAPPING_NODE ? "a mapping" : (type == YAML_SEQUENCE_NODE ? "a sequence" : "a value");
    return fail(ld, n, "expected %s for %s", kind, what);
}

kd_status get_number(loader* ld, const node_t* n, const char* what, double* out) {
    const char* s = scalar(n);
    char* end = NULL;
    errno = 0;
    const double v = s && *s ? strtod(s, &end) : 0.0;
    const int range = errno == ERANGE;
    if (!s || !*s || *end != '\0' || isnan(v) || (isinf(v) && !range))  /* text, nan, inf */
        return fail(ld, n, "%s must be a number", what);
    /* ERANGE: past the largest double (out of range), or below the smallest normal one, where
     * strtod gives the subnormal (5e-324) or 0, taken as written */
    if (range && fabs(v) > 1.0)
        return fail(ld, n, "%s is out of range (got '%s'; at most about 1.8e308 in magnitude)", what, s);
    *out = v;
    return KD_OK;
}

kd_status get_positive(loader* ld, const node_t* n, const char* what, double* out) {
    kd_status st = get_number(ld, n, what, out);
    if (!st && !(*out > 0)) return fail(ld, n, "%s must be a positive number (got %g)", what, *out);
    return st;
}

kd_status get_int(loader* ld, const node_t* n, const char* what, int lo, int* out) {
    double v = 0;
    if (get_number(ld, n, what, &v) || v != floor(v) || fabs(v) > 1e9) return fail(ld, n, "%s must be a whole number", what);
    if (v < lo) return fail(ld, n, "%s must be at least %d (got %g)", what, lo, v);
    *out = (int)v;
    return KD_OK;
}

kd_status get_bool(loader* ld, const node_t* n, const char* what, int* out) {
    const char* s = scalar(n);
    if (s && strcmp(s, "true") == 0) *out = 1;
    else if (s && strcmp(s, "false") == 0) *out = 0;
    else return fail(ld, n, "%s must be true or false", what);
    return KD_OK;
}

kd_status get_name(loader* ld, const node_t* n, const char* what, char* out) {
    const char* s = scalar(n);
    if (!s || !*s) return fail(ld, n, "%s must be a name", what);
    if (strlen(s) >= KD_NAME_MAX) return fail(ld, n, "%s is longer than %d characters", what, KD_NAME_MAX - 1);
    snprintf(out, KD_NAME_MAX, "%s", s);
    return KD_OK;
}

/* One of a list of words; returns its index in *out. */
kd_status get_choice(loader* ld, const node_t* n, const char* what, const char* const* words, int nwords,
                            int* out) {
    const char* s = scalar(n);
    char list[256] = "";
    for (int i = 0; i < nwords; i++) {
        if (s && strcmp(s, words[i]) == 0) {
            *out = i;
            return KD_OK;
        }
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", words[i]);
    }
    if (!s) return fail(ld, n, "%s must be one of: %s", what, list);
    return fail(ld, n, "%s must be one of: %s (got '%s')", what, list, s);
}

/* A DOF name: u v w rx ry rz kz ky (kedyn/desc.h). */
kd_status get_dof(loader* ld, const node_t* n, kd_dof_name* out) {
    const char* words[KD_DOF_NAMES];
    for (int k = 0; k < KD_DOF_NAMES; k++) words[k] = kd_dof_name_str((kd_dof_name)k);
    int k = 0;
    kd_status st = get_choice(ld, n, "DOF name", words, KD_DOF_NAMES, &k);
    if (!st) *out = (kd_dof_name)k;
    return st;
}

/* A sequence of numbers of length within [lo, hi]; returns the count. */
kd_status get_numbers(loader* ld, const node_t* n, const char* what, int lo, int hi, double* out, int* count) {
    if (n->type != YAML_SEQUENCE_NODE) return fail(ld, n, "%s must be a list of numbers", what);
    const int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len < lo || len > hi) {
        if (lo == hi) return fail(ld, n, "%s must have %d numbers (got %d)", what, lo, len);
        return fail(ld, n, "%s must have %d to %d numbers (got %d)", what, lo, hi, len);
    }
    for (int i = 0; i < len; i++) {
        kd_status st = get_number(ld, node_at(ld, n->data.sequence.items.start[i]), what, &out[i]);
        if (st) return st;
    }
    *count = len;
    return KD_OK;
}

/* ---- mappings with a fixed set of keys ---------------------------------- */

/* Match a mapping's keys against `fields` (terminated by key NULL); an
 * unknown or repeated key is an error at the key. */
kd_status read_fields(loader* ld, const node_t* map, const char* what, field* fields) {
    if (map->type != YAML_MAPPING_NODE) return fail(ld, map, "expected a mapping for %s", what);
    for (field* f = fields; f->key; f++) f->value = f->key_node = NULL;
    for (yaml_node_pair_t* p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        node_t* k = node_at(ld, p->key);
        const char* ks = scalar(k);
        field* hit = NULL;
        for (field* f = fields; f->key && ks; f++)
            if (strcmp(f->key, ks) == 0) hit = f;
        if (!hit) {
            char list[512] = "";
            for (field* f = fields; f->key; f++)
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", f == fields ? "" : ", ", f->key);
            return fail(ld, k, "unknown key '%s' in %s (expected one of: %s)", ks ? ks : "?", what, list);
        }
        if (hit->value) return fail(ld, k, "key '%s' appears twice in %s", ks, what);
        hit->value = node_at(ld, p->value);
        hit->key_node = k;
    }
    return KD_OK;
}

node_t* field_value(field* fields, const char* key) {
    for (field* f = fields; f->key; f++)
        if (strcmp(f->key, key) == 0) return f->value;
    return NULL;
}

kd_status require(loader* ld, const node_t* map, field* fields, const char* key, const char* what, node_t** out) {
    *out = field_value(fields, key);
    if (!*out) return fail(ld, map, "missing required key '%s' in %s", key, what);
    return KD_OK;
}

/* ---- laws --------------------------------------------------------------- */

/* Split a CSV row in place at commas into at most max fields, each trimmed
 * of surrounding blanks and of the line end; an empty field stays an empty
 * string (strtok would skip it and shift the columns). Re-entrant. Returns
 * the number of fields, or -1 when the row has more than max. */
static int split_csv_row(char* line, char** fields, int max) {
    line[strcspn(line, "\r\n")] = '\0';
    int n = 0;
    for (char* p = line;;) {
        char* comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (n == max) return -1;
        p += strspn(p, " \t");
        char* end = p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t')) *--end = '\0';
        fields[n++] = p;
        if (!comma) return n;
        p = comma + 1;
    }
}

/* The 1-based column, in characters, of p in the row that starts at row. */
static int char_col(const char* row, const char* p) {
    int col = 1;
    for (; row < p; row++) col += ((unsigned char)*row & 0xC0) != 0x80;
    return col;
}

/* One number of a row: the whole field must be a finite number. */
static kd_status table_number(loader* ld, const char* file, int lineno, const char* row, const char* text, int column,
                              double* out) {
    const kd_loc at = {lineno, char_col(row, text)};
    if (!*text) return kd_error_set(ld->err, KD_ERR_INPUT, file, at, "column %d of this row is empty", column);
    char* end = NULL;
    errno = 0;
    *out = strtod(text, &end);
    if (end == text || *end != '\0')
        return kd_error_set(ld->err, KD_ERR_INPUT, file, at, "expected a number in column %d (got '%.32s')", column, text);
    if (!isfinite(*out) || errno == ERANGE)
        return kd_error_set(ld->err, KD_ERR_INPUT, file, at, "column %d is not a finite number (got '%.32s')", column, text);
    return KD_OK;
}

/* The rows of a table file (text, len bytes, NUL-terminated, split in place):
 * a header naming the columns, then rows of numbers, each with as many
 * columns as the header, times increasing; '#' lines and blank lines are
 * skipped. Errors located at the row and column in the table file. */
static kd_status parse_table(loader* ld, const node_t* at, const char* full, char* text, size_t len, const char* column,
                             int* ncol_out, int* n_out, double** t_out, double** f_out) {
    int col = -1, nhead = 0, ncap = 0, n = 0, lineno = 0;
    double *t = NULL, *f = NULL;
    kd_status st = KD_OK;
    for (char *row = text, *stop = text + len; !st && row < stop;) {
        char* nl = memchr(row, '\n', (size_t)(stop - row));
        char* next = nl ? nl + 1 : stop;
        if (nl) *nl = '\0';
        lineno++;
        const char* nul = memchr(row, '\0', (size_t)((nl ? nl : stop) - row));
        if (nul) {
            st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){lineno, char_col(row, nul)}, "NUL byte in this row");
            break;
        }
        char* line = row;
        row = next;
        if (line[0] == '#' || line[strspn(line, " \t\r")] == '\0') continue;
        char* fields[64];
        const int nf = split_csv_row(line, fields, 64);
        if (nf < 0) {
            st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){lineno, 1}, "more than 64 columns in this row");
            break;
        }
        if (col < 0) {  /* header row */
            char* end;
            const long num = strtol(column, &end, 10);
            for (int i = 0; i < nf && *end != '\0'; i++)
                if (strcmp(fields[i], column) == 0) col = i;
            if (*end == '\0') col = num >= 1 && num <= nf ? (int)num - 1 : -1;
            if (col < 1) {
                st = fail(ld, at, "table file '%s' has no column '%s' (after t)", full, column);
                break;
            }
            nhead = nf;
            continue;
        }
        if (nf != nhead) {
            st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){lineno, 1}, "this row has %d columns, the header %d",
                              nf, nhead);
            break;
        }
        if (n == ncap) {
            ncap = ncap ? 2 * ncap : 256;
            double* nt = realloc(t, sizeof(double) * (size_t)ncap);
            if (nt) t = nt;
            double* nfv = nt ? realloc(f, sizeof(double) * (size_t)ncap) : NULL;
            if (nfv) f = nfv;
            if (!nt || !nfv) {
                st = kd_error_set(ld->err, KD_ERR_NOMEM, full, KD_LOC_NONE, "out of memory");
                break;
            }
        }
        if ((st = table_number(ld, full, lineno, line, fields[0], 1, &t[n])) ||
            (st = table_number(ld, full, lineno, line, fields[col], col + 1, &f[n])))
            break;
        if (n > 0 && !(t[n] > t[n - 1])) {
            st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){lineno, char_col(line, fields[0])},
                              "times must increase strictly (t = %g after %g)", t[n], t[n - 1]);
            break;
        }
        n++;
    }
    if (!st && col < 0) st = fail(ld, at, "table file '%s' is empty", full);
    if (st) {
        free(t);
        free(f);
        return st;
    }
    *ncol_out = nhead;
    *n_out = n;
    *t_out = t;
    *f_out = f;
    return KD_OK;
}

/* A table from a CSV file: first column t, `column` by header name or by
 * 1-based number. Only a regular file of at most KD_YAML_FILE_MAX bytes is
 * read (not a device such as /dev/zero, nor a pipe). */
kd_status read_table_file(loader* ld, const node_t* at, const char* path, const char* column, kd_law* law,
                                 int linear) {
    char full[2048], what[2100];
    if (path[0] == '/' || !ld->dir[0]) snprintf(full, sizeof(full), "%s", path);
    else snprintf(full, sizeof(full), "%s/%s", ld->dir, path);
    snprintf(what, sizeof what, "table file '%s'", full);
    char* text = NULL;
    size_t len = 0;
    kd_error e;
    kd_status st = yaml_read_whole_file(full, what, 1, &text, &len, &e);
    if (st) return st == KD_ERR_NOMEM ? kd_error_set(ld->err, st, full, KD_LOC_NONE, "%s", e.msg) : fail(ld, at, "%s", e.msg);
    int ncol = 0, n = 0;
    double *t = NULL, *f = NULL;
    st = parse_table(ld, at, full, text, len, column, &ncol, &n, &t, &f);
    free(text);
    if (!st && kd_law_table(law, n, t, f, linear, &e)) st = fail(ld, at, "table file '%s': %s", full, e.msg);
    free(t);
    free(f);
    return st;
}

/* A law: a number, or a mapping with one key of the law form table, {speed:
 * v}, {sine: {...}}, {spin_up: {...}}, {table: {...}} (kedyn/law.h); the
 * keys inside each form through its own table (kd_law_fields). */
kd_status read_law(loader* ld, const node_t* n, const char* what, kd_law* law) {
    *law = kd_law_constant(0.0);
    if (n->type == YAML_SCALAR_NODE) return get_number(ld, n, what, &law->value);
    int nform = 0;
    const kd_field* form = kd_law_form_fields(&nform);
    field f[8];
    for (int i = 0; i < nform; i++) f[i] = (field){form[i].key, 0, 0};
    f[nform] = (field){NULL, 0, 0};
    kd_status st = read_fields(ld, n, what, f);
    if (st) return st;
    int given = 0, k = -1;
    for (int i = 0; i < nform; i++)
        if (f[i].value) given++, k = i;
    if (given != 1) {
        char list[128] = "";
        for (int i = 0; i < nform; i++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", form[i].key);
        return fail(ld, n, "%s must be a number or one of %s", what, list);
    }
    const kd_law_type type = (kd_law_type)(k + 1);
    node_t* v = f[k].value;
    if (form[k].type != KD_FIELD_CUSTOM) {  /* speed: the number itself */
        law->type = type;
        return read_table(ld, n, what, form, nform, 0, law, f, 8);
    }
    int nt = 0;
    const kd_field* table = kd_law_fields(type, &nt);
    field g[8];
    if (type != KD_LAW_TABLE) {
        law->type = type;
        return read_table(ld, v, form[k].key, table, nt, 0, law, g, 8);
    }
    /* a table: its interpolation through the table, the points by hand */
    kd_law opts = *law;
    if ((st = read_table(ld, v, "table", table, nt, 0, &opts, g, 8))) return st;
    const int linear = opts.linear;
    if (field_value(g, "file")) {
        node_t* col;
        if ((st = require(ld, v, g, "column", "table", &col))) return st;
        const char *path = scalar(field_value(g, "file")), *cs = scalar(col);
        if (!path || !cs) return fail(ld, v, "table: file and column must be names");
        return read_table_file(ld, field_value(g, "file"), path, cs, law, linear);
    }
    node_t *tn, *vn;
    if ((st = require(ld, v, g, "t", "table", &tn)) || (st = require(ld, v, g, "value", "table", &vn))) return st;
    const int cap = 100000;
    double* tb = malloc(sizeof(double) * 2 * (size_t)cap);
    if (!tb) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    int nt2 = 0, nv = 0;
    if (!(st = get_numbers(ld, tn, "t", 2, cap, tb, &nt2)) && !(st = get_numbers(ld, vn, "value", 2, cap, tb + cap, &nv))) {
        kd_error e;
        if (nt2 != nv) st = fail(ld, vn, "table: t and value have %d and %d entries", nt2, nv);
        else if (kd_law_table(law, nt2, tb, tb + cap, linear, &e)) st = fail(ld, v, "table: %s", e.msg);
    }
    free(tb);
    return st;
}


/* ---- references ---------------------------------------------------------- */

/* A body reference by name. */
kd_status get_body(loader* ld, const node_t* n, int* out) {
    char name[KD_NAME_MAX];
    kd_status st = get_name(ld, n, "body", name);
    if (st) return st;
    *out = kd_desc_find_body(ld->d, name);
    return *out < 0 ? fail(ld, n, "unknown body '%s'", name) : KD_OK;
}

kd_status read_points(loader* ld, const node_t* map, kd_body_desc* b) {
    kd_status st = expect(ld, map, YAML_MAPPING_NODE, "points");
    for (yaml_node_pair_t* p = map->data.mapping.pairs.start; !st && p < map->data.mapping.pairs.top; p++) {
        if (b->npoints == KD_POINTS_MAX) return fail(ld, map, "at most %d points per body", KD_POINTS_MAX);
        kd_point_desc* pt = &b->points[b->npoints++];
        int n;
        pt->loc = loc_of(node_at(ld, p->key));
        if ((st = get_name(ld, node_at(ld, p->key), "point name", pt->name))) break;
        for (int k = 0; k < b->npoints - 1; k++)
            if (strcmp(b->points[k].name, pt->name) == 0)
                return fail(ld, node_at(ld, p->key), "point '%s' is defined twice in body '%s'", pt->name, b->name);
        st = get_numbers(ld, node_at(ld, p->value), "a point", 2, 3, pt->x, &n);
    }
    return st;
}

/* A list of numbers of any length up to KD_LIST_MAX. */
kd_status get_list(loader* ld, const node_t* n, const char* what, double* out, int* count) {
    return get_numbers(ld, n, what, 1, KD_LIST_MAX, out, count);
}


/* ---- mappings read through a key table (kedyn/desc_fields.h) ------------ */

/* One value of a table field into base. */
static kd_status read_table_value(loader* ld, const node_t* v, const kd_field* t, void* base) {
    char* p = (char*)base + t->offset;
    char words[64];
    kd_status st = KD_OK;
    switch (t->type) {
    case KD_FIELD_NUMBER: {
        double x = 0;
        if ((st = get_number(ld, v, t->key, &x))) return st;
        if (!kd_field_in_range(t, x)) {
            if (t->range == KD_RANGE_POSITIVE) return fail(ld, v, "%s must be a positive number (got %g)", t->key, x);
            return fail(ld, v, "%s must %s (got %g)", t->key, kd_field_range_text(t, words, sizeof words), x);
        }
        *(double*)p = x;
        return KD_OK;
    }
    case KD_FIELD_INT: return get_int(ld, v, t->key, (int)t->lo, (int*)p);
    case KD_FIELD_BOOL: return get_bool(ld, v, t->key, (int*)p);
    case KD_FIELD_CHOICE: {
        int c = 0;
        if ((st = get_choice(ld, v, t->key, t->names, t->nnames, &c))) return st;
        *(int*)p = t->first + c;
        return KD_OK;
    }
    case KD_FIELD_BODY: return get_body(ld, v, (int*)p);
    case KD_FIELD_LIST: {
        double* out = (double*)p;
        int* count = (int*)((char*)base + t->count_offset);
        if ((st = get_list(ld, v, t->key, out, count))) return st;
        for (int i = 0; i < *count; i++)
            if (!kd_field_in_range(t, out[i]))
                return fail(ld, node_at(ld, v->data.sequence.items.start[i]), "%s must %s (got %g)", t->key,
                            kd_field_range_text(t, words, sizeof words), out[i]);
        return KD_OK;
    }
    case KD_FIELD_CUSTOM: break;
    }
    return KD_OK;
}

kd_status read_table(loader* ld, const node_t* map, const char* what, const kd_field* t, int n, unsigned only, void* base,
                     field* f, int nfmax) {
    if (n + 1 > nfmax) return kd_error_set(ld->err, KD_ERR_USAGE, ld->file, KD_LOC_NONE, "%s: key table too long", what);
    int nf = 0;
    for (int i = 0; i < n; i++)
        if (!only || !t[i].only || (t[i].only & only)) f[nf++] = (field){t[i].key, 0, 0};
    f[nf] = (field){NULL, 0, 0};
    kd_status st = read_fields(ld, map, what, f);
    for (int i = 0; i < n && !st; i++) {
        if (only && t[i].only && !(t[i].only & only)) continue;
        node_t* v = field_value(f, t[i].key);
        if (!v) {
            if (t[i].required && t[i].type != KD_FIELD_CUSTOM) st = fail(ld, map, "missing required key '%s' in %s", t[i].key, what);
            continue;
        }
        if (t[i].type != KD_FIELD_CUSTOM) st = read_table_value(ld, v, &t[i], base);  /* CUSTOM: the caller's */
    }
    return st;
}

/* The names of the kinds in an `only` mask: "a", "a and b", "a, b and c". */
static const char* kinds_text(unsigned only, const char* const* kinds, int nkinds, char* buf, size_t n) {
    int count = 0, total = 0;
    buf[0] = '\0';
    for (int k = 0; k < nkinds; k++) total += (only >> k) & 1u;
    for (int k = 0; k < nkinds; k++) {
        if (!((only >> k) & 1u)) continue;
        const char* sep = count == 0 ? "" : count == total - 1 ? " and " : ", ";
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", sep, kinds[k]);
        count++;
    }
    return buf;
}

kd_status read_table_kind(loader* ld, const node_t* map, const char* what, const kd_field* t, int n, int kind,
                          const char* const* kinds, int nkinds, const char* noun, void* base, field* f, int nfmax) {
    if (n + 1 > nfmax) return kd_error_set(ld->err, KD_ERR_USAGE, ld->file, KD_LOC_NONE, "%s: key table too long", what);
    for (int i = 0; i < n; i++) f[i] = (field){t[i].key, 0, 0};
    f[n] = (field){NULL, 0, 0};
    kd_status st = read_fields(ld, map, what, f);
    for (int i = 0; i < n && !st; i++) {
        node_t* v = field_value(f, t[i].key);
        if (t[i].only && !(t[i].only & (1u << kind))) {
            char list[256];
            if (v) st = fail(ld, v, "%s applies to %s %s", t[i].key, kinds_text(t[i].only, kinds, nkinds, list, sizeof list), noun);
            continue;
        }
        if (!v) {
            if (t[i].required && t[i].type != KD_FIELD_CUSTOM) st = fail(ld, map, "missing required key '%s' in %s", t[i].key, what);
            continue;
        }
        if (t[i].type != KD_FIELD_CUSTOM) st = read_table_value(ld, v, &t[i], base);  /* CUSTOM: the caller's */
    }
    return st;
}
