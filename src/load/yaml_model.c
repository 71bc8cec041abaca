/* The model-file loader: YAML -> checked description (kedyn/load_yaml.h).
 *
 * libyaml's document API gives a tree whose nodes carry their line and
 * column. A small schema layer walks it: each mapping lists its allowed keys
 * (an unknown key is an error at the key), each value is converted by a typed
 * getter that reports wrong types and out-of-range values at the value, and
 * names are resolved to indices. kd_desc_check then checks the description
 * as a whole. Every error stops the load with FILE:LINE:COL.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kedyn/formalism.h"
#include "kedyn/integrate.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mech_formalism.h"
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
    if (!s || !*s || *end != '\0' || errno == ERANGE || !isfinite(v)) return fail(ld, n, "%s must be a number", what);
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
static kd_status get_dof(loader* ld, const node_t* n, kd_dof_name* out) {
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

/* A table from a CSV file: first column t, `column` by header name or by
 * 1-based number. */
static kd_status read_table_file(loader* ld, const node_t* at, const char* path, const char* column, kd_law* law,
                                 int linear) {
    char full[2048];
    if (path[0] == '/' || !ld->dir[0]) snprintf(full, sizeof(full), "%s", path);
    else snprintf(full, sizeof(full), "%s/%s", ld->dir, path);
    FILE* fp = fopen(full, "r");
    if (!fp) return fail(ld, at, "cannot read table file '%s': %s", full, strerror(errno));
    char line[4096];
    int col = -1, ncap = 0, n = 0, lineno = 0;
    double *t = NULL, *f = NULL;
    kd_status st = KD_OK;
    while (!st && fgets(line, sizeof(line), fp)) {
        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0') continue;
        char* fields[64];
        int nf = 0;
        for (char* tok = strtok(line, ",\r\n"); tok && nf < 64; tok = strtok(NULL, ",\r\n")) fields[nf++] = tok;
        if (col < 0) {  /* header row */
            char* end;
            const long num = strtol(column, &end, 10);
            for (int i = 0; i < nf && *end != '\0'; i++)
                if (strcmp(fields[i] + strspn(fields[i], " "), column) == 0) col = i;
            if (*end == '\0') col = (int)num - 1;
            if (col < 1 || col >= nf) st = fail(ld, at, "table file '%s' has no column '%s' (after t)", full, column);
            continue;
        }
        if (col >= nf) {
            st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){lineno, 1}, "row has no column %d", col + 1);
            break;
        }
        if (n == ncap) {
            ncap = ncap ? 2 * ncap : 256;
            double* nt = realloc(t, sizeof(double) * (size_t)ncap);
            double* nfv = nt ? realloc(f, sizeof(double) * (size_t)ncap) : NULL;
            if (nt) t = nt;
            if (nfv) f = nfv;
            if (!nt || !nfv) st = kd_error_set(ld->err, KD_ERR_NOMEM, full, KD_LOC_NONE, "out of memory");
        }
        char *e1, *e2;
        if (!st) {
            t[n] = strtod(fields[0], &e1);
            f[n] = strtod(fields[col], &e2);
            if (e1 == fields[0] || e2 == fields[col])
                st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){lineno, 1}, "expected numbers in this row");
            n++;
        }
    }
    fclose(fp);
    if (!st && col < 0) st = fail(ld, at, "table file '%s' is empty", full);
    if (!st) {
        kd_error e;
        if (kd_law_table(law, n, t, f, linear, &e)) st = fail(ld, at, "table file '%s': %s", full, e.msg);
    }
    free(t);
    free(f);
    return st;
}

/* A law: a number, or {speed: v}, {sine: {...}}, {spin_up: {...}},
 * {table: {...}} (kedyn/law.h). */
kd_status read_law(loader* ld, const node_t* n, const char* what, kd_law* law) {
    *law = kd_law_constant(0.0);
    if (n->type == YAML_SCALAR_NODE) return get_number(ld, n, what, &law->value);
    field f[] = {{"speed", 0, 0}, {"sine", 0, 0}, {"spin_up", 0, 0}, {"table", 0, 0}, {NULL, 0, 0}};
    kd_status st = read_fields(ld, n, what, f);
    if (st) return st;
    int given = 0;
    for (field* p = f; p->key; p++) given += p->value != NULL;
    if (given != 1) return fail(ld, n, "%s must be a number or one of speed, sine, spin_up, table", what);
    node_t* v;
    if ((v = field_value(f, "speed"))) {
        law->type = KD_LAW_SPEED;
        return get_number(ld, v, "speed", &law->value);
    }
    if ((v = field_value(f, "sine"))) {
        field g[] = {{"amplitude", 0, 0}, {"omega", 0, 0}, {"phase", 0, 0}, {"offset", 0, 0}, {NULL, 0, 0}};
        node_t *a, *w;
        law->type = KD_LAW_SINE;
        if ((st = read_fields(ld, v, "sine", g)) || (st = require(ld, v, g, "amplitude", "sine", &a)) ||
            (st = require(ld, v, g, "omega", "sine", &w)) || (st = get_number(ld, a, "amplitude", &law->amplitude)) ||
            (st = get_number(ld, w, "omega", &law->omega)))
            return st;
        if (field_value(g, "phase") && (st = get_number(ld, field_value(g, "phase"), "phase", &law->phase))) return st;
        if (field_value(g, "offset") && (st = get_number(ld, field_value(g, "offset"), "offset", &law->offset))) return st;
        return KD_OK;
    }
    if ((v = field_value(f, "spin_up"))) {
        field g[] = {{"omega", 0, 0}, {"T", 0, 0}, {NULL, 0, 0}};
        node_t *w, *T;
        law->type = KD_LAW_SPIN_UP;
        if ((st = read_fields(ld, v, "spin_up", g)) || (st = require(ld, v, g, "omega", "spin_up", &w)) ||
            (st = require(ld, v, g, "T", "spin_up", &T)) || (st = get_number(ld, w, "omega", &law->spin_omega)))
            return st;
        return get_positive(ld, T, "T", &law->spin_T);
    }
    v = field_value(f, "table");
    field g[] = {{"t", 0, 0}, {"value", 0, 0}, {"file", 0, 0}, {"column", 0, 0}, {"interpolation", 0, 0}, {NULL, 0, 0}};
    if ((st = read_fields(ld, v, "table", g))) return st;
    int linear = 0;
    static const char* const interps[] = {"spline", "linear"};
    if (field_value(g, "interpolation") &&
        (st = get_choice(ld, field_value(g, "interpolation"), "interpolation", interps, 2, &linear)))
        return st;
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
    int nt = 0, nv = 0;
    if (!(st = get_numbers(ld, tn, "t", 2, cap, tb, &nt)) && !(st = get_numbers(ld, vn, "value", 2, cap, tb + cap, &nv))) {
        kd_error e;
        if (nt != nv) st = fail(ld, vn, "table: t and value have %d and %d entries", nt, nv);
        else if (kd_law_table(law, nt, tb, tb + cap, linear, &e)) st = fail(ld, v, "table: %s", e.msg);
    }
    free(tb);
    return st;
}

/* ---- model sections ----------------------------------------------------- */

static kd_status read_materials(loader* ld, const node_t* map) {
    kd_status st = expect(ld, map, YAML_MAPPING_NODE, "materials");
    for (yaml_node_pair_t* p = map->data.mapping.pairs.start; !st && p < map->data.mapping.pairs.top; p++) {
        node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value), *E, *rho, *x;
        kd_material_desc* m = kd_desc_add_material(ld->d);
        if (!m) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        field f[] = {{"E", 0, 0}, {"rho", 0, 0}, {"nu", 0, 0}, {"G", 0, 0}, {NULL, 0, 0}};
        char what[KD_NAME_MAX + 16];
        m->loc = loc_of(v);
        if ((st = get_name(ld, k, "material name", m->name))) break;
        snprintf(what, sizeof(what), "material '%s'", m->name);
        if ((st = read_fields(ld, v, "material", f)) || (st = require(ld, v, f, "E", what, &E)) ||
            (st = require(ld, v, f, "rho", what, &rho)) || (st = get_positive(ld, E, "E", &m->E)) ||
            (st = get_positive(ld, rho, "rho", &m->rho)))
            break;
        if ((x = field_value(f, "nu")) && (st = get_number(ld, x, "nu", &m->nu))) break;
        if (x && !(m->nu > -1.0 && m->nu < 0.5)) {
            st = fail(ld, x, "nu must lie in (-1, 0.5) (got %g)", m->nu);
            break;
        }
        if ((x = field_value(f, "G")) && (st = get_positive(ld, x, "G", &m->G))) break;
        if (kd_desc_find_material(ld->d, m->name) != ld->d->nmaterials - 1)
            st = fail(ld, k, "material '%s' is defined twice", m->name);
    }
    return st;
}

static kd_status read_sections(loader* ld, const node_t* map) {
    static const char* const shapes[] = {"circle", "tube", "rectangle", "generic"};
    /* the keys each shape takes, besides `shape` and `shear` */
    static const char* const dims[4][6] = {{"d"}, {"d", "t"}, {"b", "h"}, {"A", "Iy", "Iz", "J"}};
    kd_status st = expect(ld, map, YAML_MAPPING_NODE, "sections");
    for (yaml_node_pair_t* p = map->data.mapping.pairs.start; !st && p < map->data.mapping.pairs.top; p++) {
        node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value), *sh;
        kd_section_desc* s = kd_desc_add_section(ld->d);
        if (!s) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        s->loc = loc_of(v);
        if ((st = get_name(ld, k, "section name", s->name))) break;
        if (v->type != YAML_MAPPING_NODE) return fail(ld, v, "expected a mapping for section '%s'", s->name);
        /* the shape first, then the keys that shape takes */
        sh = NULL;
        for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++)
            if (scalar(node_at(ld, q->key)) && strcmp(scalar(node_at(ld, q->key)), "shape") == 0) sh = node_at(ld, q->value);
        if (!sh) return fail(ld, v, "missing required key 'shape' in section '%s'", s->name);
        int shape;
        if ((st = get_choice(ld, sh, "shape", shapes, 4, &shape))) break;
        s->shape = (kd_shape)shape;
        field f[10] = {{"shape", 0, 0}};
        int nf = 1;
        for (int i = 0; i < 6 && dims[shape][i]; i++) f[nf++] = (field){dims[shape][i], 0, 0};
        if (shape == KD_SHAPE_GENERIC) f[nf++] = (field){"shear_y", 0, 0}, f[nf++] = (field){"shear_z", 0, 0};
        else f[nf++] = (field){"shear", 0, 0};
        f[nf] = (field){NULL, 0, 0};
        char what[96];
        snprintf(what, sizeof(what), "%s section", shapes[shape]);
        if ((st = read_fields(ld, v, what, f))) break;
        double* targets[4][4] = {{&s->d}, {&s->d, &s->t}, {&s->b, &s->h}, {&s->A, &s->Iy, &s->Iz, &s->J}};
        for (int i = 0; i < 4 && !st && dims[shape][i]; i++) {
            node_t* dv;
            if (!(st = require(ld, v, f, dims[shape][i], what, &dv))) st = get_positive(ld, dv, dims[shape][i], targets[shape][i]);
        }
        if (st) break;
        node_t* sv;
        if ((sv = field_value(f, "shear")) && !(st = get_positive(ld, sv, "shear", &s->shear_y))) s->shear_z = s->shear_y;
        if (!st && (sv = field_value(f, "shear_y"))) st = get_positive(ld, sv, "shear_y", &s->shear_y);
        if (!st && (sv = field_value(f, "shear_z"))) st = get_positive(ld, sv, "shear_z", &s->shear_z);
        if (!st && kd_desc_find_section(ld->d, s->name) != ld->d->nsections - 1)
            st = fail(ld, k, "section '%s' is defined twice", s->name);
    }
    return st;
}

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
        if (!(st = get_name(ld, node_at(ld, p->key), "point name", pt->name)))
            st = get_numbers(ld, node_at(ld, p->value), "a point", 2, 3, pt->x, &n);
    }
    return st;
}

static kd_status read_body(loader* ld, const node_t* v) {
    static const char* const types[] = {"ground", "beam", "rigid"};
    static const char* const theories[] = {"bar", "euler-bernoulli", "rayleigh", "timoshenko"};
    static const char* const interps[] = {"cubic", "quintic"};
    kd_body_desc* b = kd_desc_add_body(ld->d);
    if (!b) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    b->loc = loc_of(v);
    if (v->type == YAML_MAPPING_NODE)  /* rigid bodies have their own keys (src/io/yaml_mech.c) */
        for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++)
            if (scalar(node_at(ld, q->key)) && strcmp(scalar(node_at(ld, q->key)), "type") == 0 &&
                scalar(node_at(ld, q->value)) && strcmp(scalar(node_at(ld, q->value)), "rigid") == 0)
                return yaml_read_rigid_body(ld, v, b);
    field f[] = {{"name", 0, 0},     {"type", 0, 0},     {"material", 0, 0},      {"section", 0, 0},
                 {"length", 0, 0},   {"points", 0, 0},   {"elements", 0, 0},      {"theory", 0, 0},
                 {"interpolation", 0, 0}, {"planar", 0, 0}, {"geometric_stiffness", 0, 0}, {"y_axis", 0, 0},
                 {"preload", 0, 0},  {"frame", 0, 0}, {NULL, 0, 0}};
    node_t *name, *type, *x;
    kd_status st;
    if ((st = read_fields(ld, v, "body", f)) || (st = require(ld, v, f, "name", "body", &name)) ||
        (st = get_name(ld, name, "body name", b->name)) || (st = require(ld, v, f, "type", "body", &type)))
        return st;
    int t = 0;
    if ((st = get_choice(ld, type, "type", types, 3, &t))) return st;
    b->type = t == 0 ? KD_BODY_GROUND : KD_BODY_BEAM;
    if (kd_desc_find_body(ld->d, b->name) != ld->d->nbodies - 1) return fail(ld, name, "body '%s' is defined twice", b->name);
    char what[KD_NAME_MAX + 16];
    snprintf(what, sizeof(what), "body '%s'", b->name);
    if (b->type == KD_BODY_GROUND) {
        for (field* p = f; p->key; p++)
            if (p->value && strcmp(p->key, "name") && strcmp(p->key, "type") && strcmp(p->key, "points"))
                return fail(ld, p->key_node, "key '%s' does not apply to a ground body", p->key);
        return (x = field_value(f, "points")) ? read_points(ld, x, b) : KD_OK;
    }
    node_t *mat, *sec, *el;
    char ref[KD_NAME_MAX];
    if ((st = require(ld, v, f, "material", what, &mat)) || (st = get_name(ld, mat, "material", ref))) return st;
    b->material = kd_desc_find_material(ld->d, ref);
    b->loc_material = loc_of(mat);
    if (b->material < 0) return fail(ld, mat, "unknown material '%s'", ref);
    if ((st = require(ld, v, f, "section", what, &sec)) || (st = get_name(ld, sec, "section", ref))) return st;
    b->section = kd_desc_find_section(ld->d, ref);
    b->loc_section = loc_of(sec);
    if (b->section < 0) return fail(ld, sec, "unknown section '%s'", ref);
    if ((st = require(ld, v, f, "elements", what, &el)) || (st = get_int(ld, el, "elements", 1, &b->elements)))
        return st;
    node_t *len = field_value(f, "length"), *pts = field_value(f, "points");
    if (!!len == !!pts) return fail(ld, v, "body '%s' needs exactly one of 'length' and 'points'", b->name);
    if (len && (st = get_positive(ld, len, "length", &b->length))) return st;
    if (pts) {
        if ((st = read_points(ld, pts, b))) return st;
        if (b->npoints < 2) return fail(ld, pts, "a beam needs at least 2 points");
        double l2 = 0;
        for (int k = 0; k < 3; k++) l2 += pow(b->points[b->npoints - 1].x[k] - b->points[0].x[k], 2);
        b->length = sqrt(l2);
        if (!(b->length > 0)) return fail(ld, pts, "the first and last points of body '%s' coincide", b->name);
    }
    int choice = 0;
    if ((x = field_value(f, "theory"))) {
        if ((st = get_choice(ld, x, "theory", theories, 4, &choice))) return st;
        b->theory = (kd_theory)choice;
    }
    if ((x = field_value(f, "interpolation"))) {
        if ((st = get_choice(ld, x, "interpolation", interps, 2, &choice))) return st;
        b->interpolation = (kd_interp)choice;
    }
    if ((x = field_value(f, "planar")) && (st = get_bool(ld, x, "planar", &b->planar))) return st;
    if ((x = field_value(f, "geometric_stiffness")) && (st = get_bool(ld, x, "geometric_stiffness", &b->geometric_stiffness)))
        return st;
    if ((x = field_value(f, "preload")) && (st = get_number(ld, x, "preload", &b->preload))) return st;
    if ((x = field_value(f, "frame")) && (st = yaml_read_beam_frame(ld, x, b))) return st;
    if ((x = field_value(f, "y_axis"))) {
        int n;
        if (b->planar) return fail(ld, x, "y_axis applies to 3D beams (planar: false)");
        if ((st = get_numbers(ld, x, "y_axis", 3, 3, b->y_axis, &n))) return st;
    }
    return KD_OK;
}

static kd_status read_support(loader* ld, const node_t* v) {
    kd_support_desc* s = kd_desc_add_support(ld->d);
    if (!s) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    field f[] = {{"body", 0, 0}, {"node", 0, 0}, {"fix", 0, 0}, {NULL, 0, 0}};
    node_t *b, *n, *fx;
    kd_status st;
    s->loc = loc_of(v);
    if ((st = read_fields(ld, v, "support", f)) || (st = require(ld, v, f, "body", "support", &b)) ||
        (st = get_body(ld, b, &s->body)) || (st = require(ld, v, f, "node", "support", &n)) ||
        (st = get_int(ld, n, "node", 1, &s->node)) || (st = require(ld, v, f, "fix", "support", &fx)))
        return st;
    s->loc_node = loc_of(n);
    s->loc_fix = loc_of(fx);
    if (scalar(fx) && strcmp(scalar(fx), "all") == 0) {
        s->fix = KD_FIX_ALL;
        return KD_OK;
    }
    if (fx->type != YAML_SEQUENCE_NODE) return fail(ld, fx, "fix must be 'all' or a list of DOF names");
    for (yaml_node_item_t* it = fx->data.sequence.items.start; it < fx->data.sequence.items.top; it++) {
        kd_dof_name k;
        if ((st = get_dof(ld, node_at(ld, *it), &k))) return st;
        s->fix |= 1u << k;
    }
    return KD_OK;
}

/* A list of n triples [a, b, c] into out[k][i] (k = 0..2, i < n). */
static kd_status get_triples(loader* ld, const node_t* n, const char* what, int count, double* out[3]) {
    if (n->type != YAML_SEQUENCE_NODE) return fail(ld, n, "%s must be a list of [x, y, z] triples", what);
    const int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len != count) return fail(ld, n, "%s has %d entries, t has %d", what, len, count);
    for (int i = 0; i < len; i++) {
        double v[3];
        int got;
        kd_status st = get_numbers(ld, node_at(ld, n->data.sequence.items.start[i]), what, 3, 3, v, &got);
        if (st) return st;
        for (int k = 0; k < 3; k++) out[k][i] = v[k];
    }
    return KD_OK;
}

/* A tabulated 3D pose (kedyn/frame.h): {t: [...], origin: [[x, y, z], ...],
 * rotation: [[phi_x, phi_y, phi_z], ...]} or {file: F} with the columns t,
 * x, y, z, phi_x, phi_y, phi_z (by header name); every component splined. */
static kd_status read_pose(loader* ld, const node_t* v, kd_motion* mo) {
    static const char* const cols[6] = {"x", "y", "z", "phi_x", "phi_y", "phi_z"};
    field g[] = {{"t", 0, 0}, {"origin", 0, 0}, {"rotation", 0, 0}, {"file", 0, 0}, {NULL, 0, 0}};
    kd_status st = read_fields(ld, v, "pose", g);
    if (st) return st;
    mo->type = KD_MOTION_POSE;
    node_t* file = field_value(g, "file");
    if (file) {
        if (field_value(g, "t") || field_value(g, "origin") || field_value(g, "rotation"))
            return fail(ld, v, "pose: give either 'file' or 't', 'origin' and 'rotation'");
        if (!scalar(file)) return fail(ld, file, "pose: file must be a file name");
        for (int k = 0; k < 6 && !st; k++) st = read_table_file(ld, file, scalar(file), cols[k], &mo->pose[k], 0);
        return st;
    }
    node_t *tn, *on, *rn;
    if ((st = require(ld, v, g, "t", "pose", &tn)) || (st = require(ld, v, g, "origin", "pose", &on)) ||
        (st = require(ld, v, g, "rotation", "pose", &rn)))
        return st;
    const int cap = 100000;
    int n = 0;
    double* buf = malloc(sizeof(double) * 7 * (size_t)cap);
    if (!buf) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    double* c[7];
    for (int k = 0; k < 7; k++) c[k] = buf + (size_t)k * cap;
    if (!(st = get_numbers(ld, tn, "t", 2, cap, c[0], &n)) && !(st = get_triples(ld, on, "origin", n, c + 1)))
        st = get_triples(ld, rn, "rotation", n, c + 4);
    for (int k = 0; k < 6 && !st; k++) {
        kd_error e;
        if (kd_law_table(&mo->pose[k], n, c[0], c[1 + k], 0, &e)) st = fail(ld, tn, "pose: %s", e.msg);
    }
    free(buf);
    return st;
}

static kd_status read_motion(loader* ld, const node_t* v) {
    kd_motion_desc* md = kd_desc_add_motion(ld->d);
    if (!md) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    md->loc = loc_of(v);
    field f[] = {{"body", 0, 0}, {"rotation", 0, 0}, {"planar", 0, 0}, {"pose", 0, 0}, {"hub", 0, 0}, {NULL, 0, 0}};
    node_t *b, *x;
    kd_status st;
    if ((st = read_fields(ld, v, "motion", f)) || (st = require(ld, v, f, "body", "motion", &b)) ||
        (st = get_body(ld, b, &md->body)))
        return st;
    kd_motion* mo = &md->motion;
    node_t *rot = field_value(f, "rotation"), *pl = field_value(f, "planar"), *pose = field_value(f, "pose");
    if (!!rot + !!pl + !!pose != 1) return fail(ld, v, "motion needs exactly one of 'rotation', 'planar' and 'pose'");
    if (pose) {
        if (field_value(f, "hub")) return fail(ld, field_value(f, "hub"), "hub applies to a rotation");
        return read_pose(ld, pose, mo);
    }
    if (rot) {
        field g[] = {{"axis", 0, 0}, {"center", 0, 0}, {"law", 0, 0}, {NULL, 0, 0}};
        node_t *ax, *law;
        mo->type = KD_MOTION_ROTATION;
        if ((st = read_fields(ld, rot, "rotation", g)) || (st = require(ld, rot, g, "axis", "rotation", &ax)) ||
            (st = require(ld, rot, g, "law", "rotation", &law)) || (st = read_law(ld, law, "law", &mo->angle)))
            return st;
        const char* as = scalar(ax);
        if (as && strlen(as) == 1 && strchr("xyz", as[0])) {
            mo->axis[as[0] - 'x'] = 1.0;
        } else {
            int n;
            if ((st = get_numbers(ld, ax, "axis", 3, 3, mo->axis, &n))) return fail(ld, ax, "axis must be x, y, z or 3 numbers");
            const double nrm = sqrt(mo->axis[0] * mo->axis[0] + mo->axis[1] * mo->axis[1] + mo->axis[2] * mo->axis[2]);
            if (!(nrm > 0)) return fail(ld, ax, "axis must not be zero");
            for (int k = 0; k < 3; k++) mo->axis[k] /= nrm;
        }
        int n;
        if ((x = field_value(g, "center")) && (st = get_numbers(ld, x, "center", 2, 3, mo->center, &n))) return st;
        if ((x = field_value(f, "hub")) && (st = get_number(ld, x, "hub", &mo->hub))) return st;
        return KD_OK;
    }
    if (field_value(f, "hub")) return fail(ld, field_value(f, "hub"), "hub applies to a rotation");
    field g[] = {{"x", 0, 0}, {"y", 0, 0}, {"phi", 0, 0}, {NULL, 0, 0}};
    node_t *xn, *yn, *pn;
    mo->type = KD_MOTION_PLANAR;
    if ((st = read_fields(ld, pl, "planar motion", g)) || (st = require(ld, pl, g, "x", "planar motion", &xn)) ||
        (st = require(ld, pl, g, "y", "planar motion", &yn)) || (st = require(ld, pl, g, "phi", "planar motion", &pn)) ||
        (st = read_law(ld, xn, "x", &mo->x)) || (st = read_law(ld, yn, "y", &mo->y)) ||
        (st = read_law(ld, pn, "phi", &mo->phi)))
        return st;
    return KD_OK;
}

static kd_status read_damping(loader* ld, const node_t* v) {
    kd_damping_desc* dm = kd_desc_add_damping(ld->d);
    if (!dm) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    dm->loc = loc_of(v);
    field f[] = {{"body", 0, 0}, {"rayleigh", 0, 0}, {NULL, 0, 0}};
    field g[] = {{"alpha", 0, 0}, {"beta", 0, 0}, {NULL, 0, 0}};
    node_t *b, *r, *x;
    kd_status st;
    if ((st = read_fields(ld, v, "damping", f)) || (st = require(ld, v, f, "body", "damping", &b)) ||
        (st = get_body(ld, b, &dm->body)) || (st = require(ld, v, f, "rayleigh", "damping", &r)) ||
        (st = read_fields(ld, r, "rayleigh", g)))
        return st;
    if ((x = field_value(g, "alpha")) && (st = get_number(ld, x, "alpha", &dm->alpha))) return st;
    if ((x = field_value(g, "beta")) && (st = get_number(ld, x, "beta", &dm->beta))) return st;
    return KD_OK;
}

static kd_status read_force(loader* ld, const node_t* v) {
    static const char* const types[] = {"gravity", "nodal", "spring", "friction", "torque", "force"};
    node_t* tn = NULL;
    if (v->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++)
            if (scalar(node_at(ld, q->key)) && strcmp(scalar(node_at(ld, q->key)), "type") == 0) tn = node_at(ld, q->value);
    if (!tn) return fail(ld, v, "missing required key 'type' in force");
    int t = 0;
    kd_status st = get_choice(ld, tn, "force type", types, 6, &t);
    if (st) return st;
    if (t >= 2) return yaml_read_mech_force(ld, v, types[t]);
    kd_load_desc* l = kd_desc_add_load(ld->d);
    if (!l) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    l->loc = loc_of(v);
    if (t == 0) {
        field f[] = {{"type", 0, 0}, {"g", 0, 0}, {NULL, 0, 0}};
        node_t* g;
        int n;
        l->type = KD_LOAD_GRAVITY;
        if ((st = read_fields(ld, v, "gravity", f)) || (st = require(ld, v, f, "g", "gravity", &g))) return st;
        return get_numbers(ld, g, "g", 2, 3, l->g, &n);
    }
    field f[] = {{"type", 0, 0}, {"body", 0, 0}, {"node", 0, 0}, {"dof", 0, 0}, {"value", 0, 0}, {NULL, 0, 0}};
    node_t *b, *n, *dof, *val;
    l->type = KD_LOAD_NODAL;
    if ((st = read_fields(ld, v, "nodal force", f)) || (st = require(ld, v, f, "body", "nodal force", &b)) ||
        (st = get_body(ld, b, &l->body)) || (st = require(ld, v, f, "node", "nodal force", &n)) ||
        (st = get_int(ld, n, "node", 1, &l->node)) || (st = require(ld, v, f, "dof", "nodal force", &dof)) ||
        (st = get_dof(ld, dof, &l->dof)) || (st = require(ld, v, f, "value", "nodal force", &val)))
        return st;
    return read_law(ld, val, "value", &l->value);
}

/* A list of numbers of any length up to KD_LIST_MAX. */
static kd_status get_list(loader* ld, const node_t* n, const char* what, double* out, int* count) {
    return get_numbers(ld, n, what, 1, KD_LIST_MAX, out, count);
}

/* One prescribed initial value {body, node, dof, value} of a q or qdot list. */
static kd_status read_initial_values(loader* ld, const node_t* list, int velocity, kd_analysis_desc* a) {
    const char* what = velocity ? "initial qdot" : "initial q";
    kd_status st = expect(ld, list, YAML_SEQUENCE_NODE, what);
    for (yaml_node_item_t* it = list->data.sequence.items.start; !st && it < list->data.sequence.items.top; it++) {
        node_t* v = node_at(ld, *it);
        field f[] = {{"body", 0, 0}, {"node", 0, 0}, {"dof", 0, 0}, {"value", 0, 0}, {NULL, 0, 0}};
        node_t *b, *n, *dof, *val;
        kd_initial_value* iv = kd_desc_add_initial(a);
        if (!iv) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        iv->loc = loc_of(v);
        iv->velocity = velocity;
        if ((st = read_fields(ld, v, what, f)) || (st = require(ld, v, f, "body", what, &b)) ||
            (st = get_body(ld, b, &iv->body)) || (st = require(ld, v, f, "node", what, &n)) ||
            (st = get_int(ld, n, "node", 1, &iv->node)) || (st = require(ld, v, f, "dof", what, &dof)) ||
            (st = get_dof(ld, dof, &iv->dof)) || (st = require(ld, v, f, "value", what, &val)))
            return st;
        st = get_number(ld, val, "value", &iv->value);
    }
    return st;
}

/* `initial`: zero | static | {from: zero|static, mode: K, amplitude: A,
 * q: [{body, node, dof, value}, ...], qdot: [...]}. */
static kd_status read_initial(loader* ld, const node_t* v, kd_analysis_desc* a) {
    static const char* const initials[] = {"zero", "static"};
    if (v->type == YAML_SCALAR_NODE) return get_choice(ld, v, "initial", initials, 2, &a->initial_static);
    field f[] = {{"from", 0, 0}, {"mode", 0, 0}, {"amplitude", 0, 0}, {"q", 0, 0}, {"qdot", 0, 0}, {NULL, 0, 0}};
    node_t *x, *amp;
    kd_status st = read_fields(ld, v, "initial", f);
    if (st) return st;
    if ((x = field_value(f, "from")) && (st = get_choice(ld, x, "from", initials, 2, &a->initial_static))) return st;
    if ((x = field_value(f, "mode"))) {
        if ((st = get_int(ld, x, "mode", 1, &a->initial_mode)) || (st = require(ld, v, f, "amplitude", "initial", &amp)) ||
            (st = get_number(ld, amp, "amplitude", &a->initial_amplitude)))
            return st;
    } else if ((x = field_value(f, "amplitude"))) {
        return fail(ld, x, "amplitude scales an initial 'mode'; give the mode too");
    }
    if ((x = field_value(f, "q")) && (st = read_initial_values(ld, x, 0, a))) return st;
    if ((x = field_value(f, "qdot")) && (st = read_initial_values(ld, x, 1, a))) return st;
    return KD_OK;
}

/* One analysis into `a`, or appended to the description when a is NULL;
 * `inner`: the analysis a sweep repeats. */
static kd_status read_analysis_into(loader* ld, const node_t* v, kd_analysis_desc* a, int inner) {
    static const char* const types[] = {"modes", "campbell", "stability", "dynamics", "kinematics", "inverse_dynamics",
                                        "modes_along_motion", "sweep"};
    static const char* const solvers[] = {"auto", "dense", "lanczos"};
    static const char* const integrators[] = {"newmark",   "hht",       "generalized-alpha", "cvode-bdf",
                                              "cvode-adams", "arkode-rk", "hamilton-cvode",    "implicit-midpoint"};
    node_t* tn = NULL;
    if (v->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++)
            if (scalar(node_at(ld, q->key)) && strcmp(scalar(node_at(ld, q->key)), "type") == 0) tn = node_at(ld, q->value);
    if (!tn) return fail(ld, v, "missing required key 'type' in analysis");
    int t;
    const char* ts = scalar(tn);
    for (t = 0; t < 8 && !(ts && strcmp(ts, types[t]) == 0); t++) {}
    if (t == 8)
        return fail(ld, tn,
                    "unknown analysis type '%s' (expected modes, campbell, stability, dynamics, kinematics, "
                    "inverse_dynamics or sweep)",
                    ts ? ts : "?");
    if (t == 7 && inner) return fail(ld, tn, "a sweep cannot repeat a sweep");
    if (!a) a = kd_desc_add_analysis(ld->d);
    if (!a) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    a->type = t == 7 ? KD_ANALYSIS_SWEEP : (kd_analysis_type)t;
    a->loc = loc_of(v);
    kd_status st = KD_OK;
    node_t* x;
    switch (a->type) {
    case KD_ANALYSIS_SWEEP: {
        field f[] = {{"type", 0, 0}, {"set", 0, 0}, {"values", 0, 0}, {"analysis", 0, 0}, {NULL, 0, 0}};
        node_t *set, *vals, *an;
        if ((st = read_fields(ld, v, "sweep analysis", f)) || (st = require(ld, v, f, "set", "sweep analysis", &set)) ||
            (st = require(ld, v, f, "values", "sweep analysis", &vals)) ||
            (st = require(ld, v, f, "analysis", "sweep analysis", &an)))
            return st;
        /* set: PATH, values: [v, ...]  or  set: [P1, P2], values: [[v1, v2], ...] */
        const int multi = set->type == YAML_SEQUENCE_NODE;
        a->nset = multi ? (int)(set->data.sequence.items.top - set->data.sequence.items.start) : 1;
        if (a->nset < 1 || a->nset > KD_SWEEP_PARAMS) return fail(ld, set, "set: 1 to %d parameter paths", KD_SWEEP_PARAMS);
        for (int k = 0; k < a->nset; k++) {
            node_t* pn = multi ? node_at(ld, set->data.sequence.items.start[k]) : set;
            const char* ps = scalar(pn);
            char why[256];
            if (!ps || strlen(ps) >= sizeof(a->set[k])) return fail(ld, pn, "set must be a parameter path or a list of them");
            snprintf(a->set[k], sizeof(a->set[k]), "%s", ps);
            if (!kd_desc_param(ld->d, a->set[k], why, sizeof why)) return fail(ld, pn, "%s", why);
        }
        if (!multi) {
            if ((st = get_list(ld, vals, "values", a->values, &a->nvalues))) return st;
        } else {
            if ((st = expect(ld, vals, YAML_SEQUENCE_NODE, "values"))) return st;
            const int nrun = (int)(vals->data.sequence.items.top - vals->data.sequence.items.start);
            if (nrun < 1 || nrun * a->nset > KD_LIST_MAX) return fail(ld, vals, "values: 1 to %d runs", KD_LIST_MAX / a->nset);
            for (int i = 0; i < nrun; i++) {
                int got;
                char what[64];
                snprintf(what, sizeof what, "values (one list of %d per run)", a->nset);
                if ((st = get_numbers(ld, node_at(ld, vals->data.sequence.items.start[i]), what, a->nset, a->nset,
                                      a->values + (size_t)i * a->nset, &got)))
                    return st;
            }
            a->nvalues = nrun;
        }
        a->inner = malloc(sizeof(*a->inner));
        if (!a->inner) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        kd_analysis_desc_init(a->inner);
        return read_analysis_into(ld, an, a->inner, 1);
    }
    case KD_ANALYSIS_MODES: {
        field f[] = {{"type", 0, 0}, {"count", 0, 0}, {"solver", 0, 0}, {"at", 0, 0}, {NULL, 0, 0}};
        int s = 0;
        if ((st = read_fields(ld, v, "modes analysis", f))) return st;
        if ((x = field_value(f, "count")) && (st = get_int(ld, x, "count", 1, &a->count))) return st;
        if ((x = field_value(f, "solver"))) {
            if ((st = get_choice(ld, x, "solver", solvers, 3, &s))) return st;
            a->solver = (kd_eigen_solver)s;
        }
        if ((x = field_value(f, "at")) && (st = get_number(ld, x, "at", &a->at))) return st;
        return KD_OK;
    }
    case KD_ANALYSIS_CAMPBELL:
    case KD_ANALYSIS_STABILITY: {
        const int camp = a->type == KD_ANALYSIS_CAMPBELL;
        field fc[] = {{"type", 0, 0}, {"body", 0, 0}, {"count", 0, 0}, {"speeds", 0, 0}, {NULL, 0, 0}};
        field fs[] = {{"type", 0, 0},    {"body", 0, 0},      {"count", 0, 0}, {"hubs", 0, 0},
                      {"lengths", 0, 0}, {"omega_max", 0, 0}, {NULL, 0, 0}};
        field* f = camp ? fc : fs;
        node_t *vals, *lens, *om;
        const char* what = camp ? "campbell analysis" : "stability analysis";
        if ((st = read_fields(ld, v, what, f))) return st;
        if ((x = field_value(f, "body")) && (st = get_body(ld, x, &a->body))) return st;
        if ((x = field_value(f, "count")) && (st = get_int(ld, x, "count", 1, &a->count))) return st;
        if ((st = require(ld, v, f, camp ? "speeds" : "hubs", what, &vals)) ||
            (st = get_list(ld, vals, camp ? "speeds" : "hubs", a->values, &a->nvalues)))
            return st;
        if (camp) return KD_OK;
        if ((st = require(ld, v, f, "lengths", what, &lens)) || (st = get_list(ld, lens, "lengths", a->lengths, &a->nlengths)) ||
            (st = require(ld, v, f, "omega_max", what, &om)) || (st = get_positive(ld, om, "omega_max", &a->omega_max)))
            return st;
        return KD_OK;
    }
    case KD_ANALYSIS_KINEMATICS:
    case KD_ANALYSIS_INVERSE_DYNAMICS: return yaml_read_mech_analysis(ld, v, a);
    case KD_ANALYSIS_MODES_ALONG_MOTION: return yaml_read_ked_analysis(ld, v, a);
    case KD_ANALYSIS_TYPES: break;
    case KD_ANALYSIS_DYNAMICS: {
        field f[] = {{"type", 0, 0},    {"t_end", 0, 0}, {"dt", 0, 0},     {"dt_max", 0, 0},    {"integrator", 0, 0},
                     {"rtol", 0, 0},    {"atol", 0, 0},  {"rho_inf", 0, 0}, {"alpha", 0, 0},    {"beta", 0, 0},
                     {"gamma", 0, 0},   {"output_every", 0, 0}, {"initial", 0, 0}, {"energy", 0, 0},
                     {"formalism", 0, 0}, {"formulation", 0, 0}, {"stabilization", 0, 0}, {"coupling", 0, 0},
                     {"steps", 0, 0},   {"speed", 0, 0}, {"settle", 0, 0}, {NULL, 0, 0}};
        node_t* te;
        if ((st = read_fields(ld, v, "dynamics analysis", f)) || (st = require(ld, v, f, "t_end", "dynamics analysis", &te)) ||
            (st = get_number(ld, te, "t_end", &a->t_end)))
            return st;
        a->integrator = KD_INT_GENERALIZED_ALPHA;
        node_t* integ = field_value(f, "integrator");
        if (integ && (st = get_choice(ld, integ, "integrator", integrators, 8, &a->integrator))) return st;
        /* the route of the inertia terms (kedyn/formalism.h); Hamilton's goes
         * with the canonical integrators, and they with it */
        const int canonical = a->integrator == KD_INT_HAMILTON_CVODE || a->integrator == KD_INT_IMPLICIT_MIDPOINT;
        node_t* form = field_value(f, "formalism");
        if ((x = form)) {
            /* the elastic routes (kedyn/formalism.h order), then the two of systems with joints only;
             * lagrange, kane and gibbs-appell name a route of both (kedyn/mech_formalism.h) */
            static const char* const formalisms[] = {"invariants", "lagrange", "kane", "gibbs-appell", "hamilton",
                                                     "newton-euler", "maggi"};
            int c = 0;
            if ((st = get_choice(ld, x, "formalism", formalisms, 7, &c))) return st;
            a->formalism = c < KD_FORMALISM_COUNT ? c : KD_FORMALISM_INVARIANTS;
            const int mf = kd_mech_formalism_parse(formalisms[c]);
            a->mech_formalism = mf >= 0 ? mf + 1 : -1;
            if (a->formalism == KD_FORMALISM_HAMILTON && !integ) a->integrator = KD_INT_HAMILTON_CVODE;
            else if (a->formalism == KD_FORMALISM_HAMILTON && !canonical)
                return fail(ld, integ, "the hamilton formalism integrates the canonical equations: integrator must be "
                                       "hamilton-cvode or implicit-midpoint");
            else if (a->formalism != KD_FORMALISM_HAMILTON && canonical)
                return fail(ld, integ, "integrator '%s' integrates Hamilton's canonical equations: it needs "
                                       "formalism: hamilton", integrators[a->integrator]);
        } else if (canonical) {
            a->formalism = KD_FORMALISM_HAMILTON;
        }
        struct { const char* key; double* dst; } nums[] = {
            {"dt", &a->dt}, {"dt_max", &a->dt_max}, {"rtol", &a->rtol}, {"atol", &a->atol}, {"rho_inf", &a->rho_inf},
            {"alpha", &a->hht_alpha}, {"beta", &a->newmark_beta}, {"gamma", &a->newmark_gamma}};
        for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
            if ((x = field_value(f, nums[i].key)) && (st = get_number(ld, x, nums[i].key, nums[i].dst))) return st;
        if ((x = field_value(f, "output_every")) && (st = get_int(ld, x, "output_every", 1, &a->output_every))) return st;
        if ((x = field_value(f, "energy")) && (st = get_bool(ld, x, "energy", &a->energy))) return st;
        if ((x = field_value(f, "initial")) && (st = read_initial(ld, x, a))) return st;
        /* mechanisms: forward-dynamics formulation and constraint stabilisation (kedyn/mbs.h order) */
        static const char* const formulations[] = {"augmented", "udwadia-kalaba", "maggi", "ida"};
        static const char* const stabilizations[] = {"baumgarte", "projection", "none"};
        if ((x = field_value(f, "formulation")) && (st = get_choice(ld, x, "formulation", formulations, 4, &a->formulation)))
            return st;
        /* a mechanism formalism integrates with its own formulation (kedyn/mech_formalism.h) */
        if (x && a->mech_formalism > 0 &&
            kd_mech_formalism_formulation((kd_mech_formalism)(a->mech_formalism - 1), a->formulation) < 0)
            return fail(ld, x, "formalism '%s' integrates with formulation '%s', not '%s'",
                        kd_mech_formalism_name((kd_mech_formalism)(a->mech_formalism - 1)),
                        formulations[kd_mech_formalism_formulation((kd_mech_formalism)(a->mech_formalism - 1), -1)],
                        formulations[a->formulation]);
        if ((x = field_value(f, "stabilization")) &&
            (st = get_choice(ld, x, "stabilization", stabilizations, 3, &a->stabilization)))
            return st;
        /* mechanisms with elastic links (src/io/yaml_ked.c) */
        a->loc_coupling = a->loc;
        if ((x = field_value(f, "coupling")) && (st = yaml_read_coupling(ld, x, a))) return st;
        if ((x = field_value(f, "steps"))) {
            if (kd_desc_elastic_links(ld->d) == 0)
                return fail(ld, x, "steps of a dynamics analysis apply to mechanisms with elastic links");
            if ((st = get_int(ld, x, "steps", 2, &a->steps))) return st;
        }
        if ((x = field_value(f, "settle")) && (st = yaml_read_settle(ld, x, a))) return st;
        if ((x = field_value(f, "speed"))) {
            if (kd_desc_elastic_links(ld->d) == 0 || ld->d->ndrivers == 0)
                return fail(ld, x, "speed of a dynamics analysis applies to driven mechanisms with elastic links");
            if ((st = get_positive(ld, x, "speed", &a->speed))) return st;
        }
        return KD_OK;
    }
    }
    return st;
}

static kd_status read_analysis(loader* ld, const node_t* v) { return read_analysis_into(ld, v, NULL, 0); }

static kd_status read_output(loader* ld, const node_t* v) {
    field f[] = {{"nodes", 0, 0}, {NULL, 0, 0}};
    kd_status st = read_fields(ld, v, "output", f);
    node_t* nodes = field_value(f, "nodes");
    if (st || !nodes) return st;
    if ((st = expect(ld, nodes, YAML_MAPPING_NODE, "output nodes"))) return st;
    for (yaml_node_pair_t* p = nodes->data.mapping.pairs.start; !st && p < nodes->data.mapping.pairs.top; p++) {
        kd_output_nodes_desc* o = kd_desc_add_output_nodes(ld->d);
        if (!o) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        node_t* list = node_at(ld, p->value);
        o->loc = loc_of(list);
        if ((st = get_body(ld, node_at(ld, p->key), &o->body))) break;
        if ((st = expect(ld, list, YAML_SEQUENCE_NODE, "output nodes of a body"))) break;
        const int n = (int)(list->data.sequence.items.top - list->data.sequence.items.start);
        o->nodes = calloc((size_t)(n ? n : 1), sizeof(int));
        if (!o->nodes) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        for (int i = 0; i < n && !st; i++) st = get_int(ld, node_at(ld, list->data.sequence.items.start[i]), "node", 1, &o->nodes[o->nnodes++]);
    }
    return st;
}

/* Run `fn` on each item of a sequence. */
static kd_status each_item(loader* ld, const node_t* seq, const char* what, kd_status (*fn)(loader*, const node_t*)) {
    kd_status st = expect(ld, seq, YAML_SEQUENCE_NODE, what);
    for (yaml_node_item_t* it = seq->data.sequence.items.start; !st && it < seq->data.sequence.items.top; it++)
        st = fn(ld, node_at(ld, *it));
    return st;
}

static kd_status read_model(loader* ld) {
    node_t* root = yaml_document_get_root_node(&ld->doc);
    if (!root) return fail(ld, NULL, "the model file is empty");
    field f[] = {{"kedyn", 0, 0},  {"title", 0, 0},  {"materials", 0, 0}, {"sections", 0, 0}, {"bodies", 0, 0},
                 {"supports", 0, 0}, {"analyses", 0, 0}, {"output", 0, 0}, {"motion", 0, 0},  {"damping", 0, 0},
                 {"forces", 0, 0}, {"joints", 0, 0},  {"drivers", 0, 0},  {NULL, 0, 0}};
    kd_status st = read_fields(ld, root, "the model", f);
    node_t *ver, *bodies, *x;
    if (st || (st = require(ld, root, f, "kedyn", "the model", &ver))) return st;
    if (!scalar(ver) || strcmp(scalar(ver), "1") != 0) return fail(ld, ver, "unsupported format version (expected kedyn: 1)");
    if ((x = field_value(f, "title"))) {
        if (!scalar(x)) return fail(ld, x, "title must be text");
        snprintf(ld->d->title, sizeof(ld->d->title), "%s", scalar(x));
    }
    if ((x = field_value(f, "materials")) && (st = read_materials(ld, x))) return st;
    if ((x = field_value(f, "sections")) && (st = read_sections(ld, x))) return st;
    if ((st = require(ld, root, f, "bodies", "the model", &bodies)) || (st = each_item(ld, bodies, "bodies", read_body)))
        return st;
    if ((x = field_value(f, "supports")) && (st = each_item(ld, x, "supports", read_support))) return st;
    if ((x = field_value(f, "joints")) && (st = each_item(ld, x, "joints", yaml_read_joint))) return st;
    if ((x = field_value(f, "drivers")) && (st = each_item(ld, x, "drivers", yaml_read_driver))) return st;
    if ((x = field_value(f, "motion")) && (st = each_item(ld, x, "motion", read_motion))) return st;
    if ((x = field_value(f, "damping")) && (st = each_item(ld, x, "damping", read_damping))) return st;
    if ((x = field_value(f, "forces")) && (st = each_item(ld, x, "forces", read_force))) return st;
    if ((x = field_value(f, "analyses")) && (st = each_item(ld, x, "analyses", read_analysis))) return st;
    if ((x = field_value(f, "output")) && (st = read_output(ld, x))) return st;
    return kd_desc_check(ld->d, ld->err);
}

static kd_status load(yaml_parser_t* parser, const char* name, kd_desc** out, kd_error* err) {
    loader ld;
    memset(&ld, 0, sizeof(ld));
    ld.err = err;
    ld.file = name;
    const char* slash = strrchr(name, '/');
    if (slash) snprintf(ld.dir, sizeof(ld.dir), "%.*s", (int)(slash - name), name);
    *out = NULL;
    if (!yaml_parser_load(parser, &ld.doc)) {
        const kd_loc loc = {(int)parser->problem_mark.line + 1, (int)parser->problem_mark.column + 1};
        return kd_error_set(err, KD_ERR_INPUT, name, loc, "YAML syntax: %s%s%s", parser->problem ? parser->problem : "error",
                            parser->context ? " " : "", parser->context ? parser->context : "");
    }
    ld.d = kd_desc_new();
    kd_status st = ld.d ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, name, KD_LOC_NONE, "out of memory");
    if (!st) {
        snprintf(ld.d->file, sizeof(ld.d->file), "%s", name);
        st = read_model(&ld);
    }
    yaml_document_delete(&ld.doc);
    if (st) kd_desc_free(&ld.d);
    *out = ld.d;
    return st;
}

kd_status kd_load_yaml_string(const char* text, size_t len, const char* name, kd_desc** out, kd_error* err) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return kd_error_set(err, KD_ERR_NOMEM, name, KD_LOC_NONE, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, len);
    kd_status st = load(&parser, name, out, err);
    yaml_parser_delete(&parser);
    return st;
}

kd_status kd_load_yaml_file(const char* path, kd_desc** out, kd_error* err) {
    *out = NULL;
    FILE* fp = fopen(path, "rb");
    if (!fp) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read model file: %s", strerror(errno));
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(fp);
        return kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
    }
    yaml_parser_set_input_file(&parser, fp);
    kd_status st = load(&parser, path, out, err);
    /* A read failure (e.g. a directory) is an I/O error, not a YAML one. */
    if (st && ferror(fp))
        st = kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read model file: %s", strerror(errno));
    yaml_parser_delete(&parser);
    fclose(fp);
    return st;
}
