/* Measured records in a model file (docs/model-format.md, "Records"): the `records` and
 * `sensors` sections and the keys of the record analyses (spectrum, frf, identify, correlate,
 * virtual_test) that their key tables leave to code: names of records and columns, checked
 * against the record files (read here once per reference, so a ragged row or a missing column
 * stops the load with its location), directions, sensor lists. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/record.h"
#include "yaml_plate.h"
#include "yaml_records.h"
#include "yaml_schema.h"

#define NOMEM(ld) kd_error_set((ld)->err, KD_ERR_NOMEM, (ld)->file, KD_LOC_NONE, "out of memory")

/* A unit direction of 2 or 3 numbers. */
static kd_status get_direction(loader* ld, const node_t* n, double out[3]) {
    int got;
    double v[3] = {0, 0, 0};
    kd_status st = get_numbers(ld, n, "direction", 2, 3, v, &got);
    if (st) return st;
    const double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(norm > 0)) return fail(ld, n, "direction must not be zero");
    for (int k = 0; k < 3; k++) out[k] = v[k] / norm;
    return KD_OK;
}

/* A node number of a beam or plate body, checked at its node. */
static kd_status body_node(loader* ld, const node_t* at, int body, int tag, int* node) {
    const kd_body_desc* b = &ld->d->bodies[body];
    if (b->type == KD_BODY_BEAM && (tag < 1 || tag > b->elements + 1))
        return fail(ld, at, "body '%s' has nodes 1..%d, not %d", b->name, b->elements + 1, tag);
    if (b->type != KD_BODY_BEAM && b->type != KD_BODY_PLATE)
        return fail(ld, at, "body '%s' has no nodes (it is not a beam or a plate)", b->name);
    return yaml_body_node(ld, at, b, tag, node);
}

kd_status yaml_read_record(loader* ld, const node_t* v) {
    kd_record_desc* rd = kd_desc_add_record(ld->d);
    if (!rd) return NOMEM(ld);
    int nt = 0;
    const kd_field* table = kd_record_fields(&nt);
    field f[8];
    node_t *name, *file, *x;
    kd_status st;
    rd->loc = loc_of(v);
    if ((st = read_table(ld, v, "record", table, nt, 0, rd, f, 8)) || (st = require(ld, v, f, "name", "record", &name)) ||
        (st = get_name(ld, name, "record name", rd->name)) || (st = require(ld, v, f, "file", "record", &file)))
        return st;
    if (kd_desc_find_record(ld->d, rd->name) != ld->d->nrecords - 1)
        return fail(ld, name, "record '%s' is defined twice", rd->name);
    if (!scalar(file) || !scalar(file)[0] || strlen(scalar(file)) >= sizeof rd->file)
        return fail(ld, file, "file must be a file name");
    snprintf(rd->file, sizeof rd->file, "%s", scalar(file));
    rd->loc_file = loc_of(file);
    if (rd->file[0] == '/' || !ld->dir[0]) snprintf(rd->path, sizeof rd->path, "%s", rd->file);
    else snprintf(rd->path, sizeof rd->path, "%s/%s", ld->dir, rd->file);
    if ((x = field_value(f, "time")) && (st = get_name(ld, x, "time column", rd->time))) return st;
    const char* dot = strrchr(rd->file, '.');
    const int uff = dot && (!strcmp(dot, ".uff") || !strcmp(dot, ".unv") || !strcmp(dot, ".UFF") || !strcmp(dot, ".UNV"));
    if (!uff && !!rd->time[0] == !!(rd->rate > 0))
        return fail(ld, v, "a CSV record needs exactly one of 'time' (its time column) and 'rate' (Hz)");
    if (uff && (rd->time[0] || rd->rate > 0))
        return fail(ld, field_value(f, "time") ? field_value(f, "time") : field_value(f, "rate"),
                    "a Universal File gives its own abscissa: no time or rate");
    /* the file itself, read once: its errors are located in it */
    kd_record* r = NULL;
    st = kd_record_read(rd->path, rd->time, rd->rate, &r, ld->err);
    if (st == KD_ERR_IO) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ld->err->msg);
        return fail(ld, file, "%s", msg);
    }
    kd_record_free(&r);
    return st;
}

kd_status yaml_read_sensor(loader* ld, const node_t* v) {
    kd_sensor_desc* s = kd_desc_add_sensor(ld->d);
    if (!s) return NOMEM(ld);
    int nt = 0;
    const kd_field* table = kd_sensor_fields(&nt);
    field f[8];
    node_t *name, *dir, *x;
    kd_status st;
    s->loc = loc_of(v);
    if ((st = read_table(ld, v, "sensor", table, nt, 0, s, f, 8)) || (st = require(ld, v, f, "name", "sensor", &name)) ||
        (st = get_name(ld, name, "sensor name", s->name)) || (st = require(ld, v, f, "direction", "sensor", &dir)) ||
        (st = get_direction(ld, dir, s->direction)))
        return st;
    if (kd_desc_find_sensor(ld->d, s->name) != ld->d->nsensors - 1)
        return fail(ld, name, "sensor '%s' is defined twice", s->name);
    node_t *node = field_value(f, "node"), *point = field_value(f, "point");
    if (!!node == !!point) return fail(ld, v, "sensor needs exactly one of 'node' and 'point'");
    const kd_body_desc* b = &ld->d->bodies[s->body];
    if (node) {
        if ((st = body_node(ld, node, s->body, s->node, &s->node))) return st;
    } else {  /* a named point of a beam given by points, where a node lies */
        char pn[KD_NAME_MAX];
        if ((st = get_name(ld, point, "point", pn))) return st;
        const int p = kd_desc_find_point(ld->d, s->body, pn);
        if (p < 0) return fail(ld, point, "body '%s' has no point '%s'", b->name, pn);
        if (b->type != KD_BODY_BEAM) return fail(ld, point, "sensor points are those of beams");
        double l2 = 0;
        for (int k = 0; k < 3; k++) l2 += pow(b->points[p].x[k] - b->points[0].x[k], 2);
        const double at = sqrt(l2) / b->length * b->elements;
        if (fabs(at - floor(at + 0.5)) > 1e-6)
            return fail(ld, point, "point '%s' is not at a node of body '%s' (%.6g elements from its start)", pn, b->name, at);
        s->node = (int)floor(at + 0.5) + 1;
    }
    if ((x = field_value(f, "record"))) {
        char rn[KD_NAME_MAX];
        if ((st = get_name(ld, x, "record", rn))) return st;
        s->record = kd_desc_find_record(ld->d, rn);
        if (s->record < 0) return fail(ld, x, "unknown record '%s' (records are given before sensors)", rn);
    }
    snprintf(s->column, sizeof s->column, "%s", s->name);
    if ((x = field_value(f, "column")) && (st = get_name(ld, x, "column", s->column))) return st;
    return KD_OK;
}

/* The record an analysis names: a `records` entry (its file read: *rec) or the record of an
 * earlier virtual_test (*vt its index among the analyses). */
static kd_status find_record(loader* ld, const node_t* at, const char* name, kd_record** rec, int* vt) {
    *rec = NULL;
    *vt = -1;
    const int r = kd_desc_find_record(ld->d, name);
    if (r >= 0) {
        kd_status st = kd_record_read(ld->d->records[r].path, ld->d->records[r].time, ld->d->records[r].rate, rec, ld->err);
        if (st != KD_ERR_IO) return st;
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ld->err->msg);
        return fail(ld, at, "%s", msg);
    }
    for (int i = 0; i + 1 < ld->d->nanalyses; i++)
        if (ld->d->analyses[i].type == KD_ANALYSIS_VIRTUAL_TEST && strcmp(ld->d->analyses[i].virtual_test.record, name) == 0) {
            *vt = i;
            return KD_OK;
        }
    return fail(ld, at, "unknown record '%s' (not in records, nor made by an earlier virtual_test)", name);
}

/* Whether `col` is a column of the record (or of the virtual test's: force and its sensors). */
static int has_column(const kd_desc* d, const kd_record* rec, int vt, const char* col) {
    if (rec) return kd_record_find_channel(rec, col) >= 0;
    const kd_virtual_test_desc* v = &d->analyses[vt].virtual_test;
    if (strcmp(col, "force") == 0) return 1;
    for (int k = 0; k < v->nsensors; k++)
        if (strcmp(d->sensors[v->sensors[k]].name, col) == 0) return 1;
    return 0;
}

/* A column name, or a sensor's name standing for its column; checked against the record. */
static kd_status get_column(loader* ld, const node_t* n, const kd_record* rec, int vt, char* out) {
    kd_status st = get_name(ld, n, "column", out);
    if (st) return st;
    if (has_column(ld->d, rec, vt, out)) return KD_OK;
    const int s = kd_desc_find_sensor(ld->d, out);
    if (s >= 0 && has_column(ld->d, rec, vt, ld->d->sensors[s].column)) return KD_OK;
    return fail(ld, n, "the record has no column '%s'", out);
}

static kd_status get_columns(loader* ld, const node_t* n, const kd_record* rec, int vt, char (*out)[KD_NAME_MAX],
                             int* count) {
    kd_status st = expect(ld, n, YAML_SEQUENCE_NODE, "a list of columns");
    if (st) return st;
    const int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len < 1 || len > KD_COLUMNS_MAX) return fail(ld, n, "1 to %d columns", KD_COLUMNS_MAX);
    for (int k = 0; k < len && !st; k++) st = get_column(ld, node_at(ld, n->data.sequence.items.start[k]), rec, vt, out[k]);
    *count = len;
    return st;
}

/* An earlier analysis of type t, or a located error. */
static kd_status earlier(loader* ld, const node_t* v, kd_analysis_type t, const char* what) {
    for (int i = 0; i + 1 < ld->d->nanalyses; i++)
        if (ld->d->analyses[i].type == t) return KD_OK;
    return fail(ld, v, "%s needs an earlier %s analysis", what, kd_analysis_type_name(t));
}

static kd_status virtual_test_keys(loader* ld, const node_t* v, field* f, kd_virtual_test_desc* vt) {
    node_t *rn = field_value(f, "record"), *x;
    kd_status st = get_name(ld, rn, "record", vt->record);
    if (st) return st;
    if (kd_desc_find_record(ld->d, vt->record) >= 0)
        return fail(ld, rn, "record '%s' is also in records: a virtual test makes its own", vt->record);
    for (int i = 0; i + 1 < ld->d->nanalyses; i++)
        if (ld->d->analyses[i].type == KD_ANALYSIS_VIRTUAL_TEST && !strcmp(ld->d->analyses[i].virtual_test.record, vt->record))
            return fail(ld, rn, "record '%s' is made by an earlier virtual_test", vt->record);
    if ((st = get_direction(ld, field_value(f, "direction"), vt->direction))) return st;
    if ((st = body_node(ld, field_value(f, "node"), vt->body, vt->node, &vt->node))) return st;
    if ((x = field_value(f, "sensors"))) {
        if ((st = expect(ld, x, YAML_SEQUENCE_NODE, "a list of sensor names"))) return st;
        const int len = (int)(x->data.sequence.items.top - x->data.sequence.items.start);
        if (len < 1 || len > KD_COLUMNS_MAX) return fail(ld, x, "1 to %d sensors", KD_COLUMNS_MAX);
        for (int k = 0; k < len; k++) {
            node_t* item = node_at(ld, x->data.sequence.items.start[k]);
            char nm[KD_NAME_MAX];
            if ((st = get_name(ld, item, "sensor", nm))) return st;
            if ((vt->sensors[k] = kd_desc_find_sensor(ld->d, nm)) < 0) return fail(ld, item, "unknown sensor '%s'", nm);
        }
        vt->nsensors = len;
    } else {
        for (int k = 0; k < ld->d->nsensors; k++)
            if (ld->d->sensors[k].record < 0) {
                if (vt->nsensors == KD_COLUMNS_MAX) return fail(ld, v, "more than %d sensors", KD_COLUMNS_MAX);
                vt->sensors[vt->nsensors++] = k;
            }
        if (vt->nsensors == 0) return fail(ld, v, "virtual_test: no sensor to record (sensors without a record)");
    }
    for (int k = 0; k < vt->nsensors; k++)
        if (strcmp(ld->d->sensors[vt->sensors[k]].name, "force") == 0)
            return fail(ld, v, "a sensor of a virtual test cannot be named 'force' (the force's column)");
    return KD_OK;
}

kd_status yaml_measure_keys(loader* ld, const node_t* v, field* f, kd_analysis_desc* a) {
    kd_record* rec = NULL;
    int vt = -1;
    kd_status st = KD_OK;
    node_t* x;
    switch (a->type) {
    case KD_ANALYSIS_SPECTRUM: {
        kd_spectrum_desc* s = &a->spectrum;
        node_t* rn = field_value(f, "record");
        if ((st = get_name(ld, rn, "record", s->record)) || (st = find_record(ld, rn, s->record, &rec, &vt))) break;
        if ((x = field_value(f, "columns")) && (st = get_columns(ld, x, rec, vt, s->columns, &s->ncolumns))) break;
        if ((x = field_value(f, "speed")) && (st = get_column(ld, x, rec, vt, s->speed))) break;
        if ((x = field_value(f, "angle")) && (st = get_column(ld, x, rec, vt, s->angle))) break;
        if (x && !s->orders) {
            st = fail(ld, x, "angle is for orders: true");
            break;
        }
        if (s->orders && !s->angle[0] && !s->speed[0]) st = fail(ld, field_value(f, "orders"), "orders need an angle or a speed column");
        break;
    }
    case KD_ANALYSIS_FRF: {
        kd_frf_desc* r = &a->frf;
        node_t* rn = field_value(f, "record");
        if ((st = get_name(ld, rn, "record", r->record)) || (st = find_record(ld, rn, r->record, &rec, &vt)) ||
            (st = get_column(ld, field_value(f, "force"), rec, vt, r->force)) ||
            (st = get_columns(ld, field_value(f, "responses"), rec, vt, r->responses, &r->nresponses)))
            break;
        break;
    }
    case KD_ANALYSIS_IDENTIFY: st = earlier(ld, v, KD_ANALYSIS_FRF, "identify"); break;
    case KD_ANALYSIS_CORRELATE:
        if ((x = field_value(f, "record")) && a->correlate.measured != 2)
            return fail(ld, x, "correlate: record goes with measured: record");
        node_t* in = field_value(f, "instant");
        if (in && (a->correlate.measured == 1 || a->correlate.computed != 1))
            return fail(ld, in, "correlate: instant goes with computed: modes_along_motion and measured: identify or record");
        if (a->correlate.measured != 1 && a->correlate.computed == 1) {  /* shapes at one instant of the motion */
            if (!in) return fail(ld, v, "correlate: computed: modes_along_motion with measured shapes needs instant (s)");
            int ma = -1;
            for (int i = 0; i + 1 < ld->d->nanalyses; i++)
                if (ld->d->analyses[i].type == KD_ANALYSIS_MODES_ALONG_MOTION) ma = i;
            if (ma < 0) return fail(ld, v, "correlate needs an earlier modes_along_motion analysis");
            kd_modes_along_motion_desc md = ld->d->analyses[ma].modes_along_motion;
            kd_modes_along_motion_resolve(&md);
            const double t0 = md.settle, t1 = md.settle + md.t_end, tol = 1e-9 * (t1 > 1 ? t1 : 1);
            if (md.t_end > 0 && (a->correlate.instant < t0 - tol || a->correlate.instant > t1 + tol))
                return fail(ld, in, "correlate: instant %g s is outside the motion [%g, %g] s of the modes_along_motion analysis",
                            a->correlate.instant, t0, t1);
        }
        if (a->correlate.measured == 2) {  /* the mode shapes of a record file */
            if (!x) return fail(ld, v, "correlate: measured: record needs record (a name of records)");
            if ((st = get_name(ld, x, "record", a->correlate.record))) break;
            if (kd_desc_find_record(ld->d, a->correlate.record) < 0)
                return fail(ld, x, "correlate: '%s' is not a name of records", a->correlate.record);
            if ((st = find_record(ld, x, a->correlate.record, &rec, &vt))) break;
            if (rec->nmodes < 1) {
                st = fail(ld, x, "correlate: record '%s' holds no mode shapes (dataset 55)", a->correlate.record);
                break;
            }
            if (ld->d->nsensors < 1) {
                st = fail(ld, v, "correlate: measured: record reads the shapes at the sensors; there are none");
                break;
            }
            if (a->correlate.computed == 0) st = earlier(ld, v, KD_ANALYSIS_MODES, "correlate");
            break;
        }
        if (!(st = earlier(ld, v, a->correlate.measured ? KD_ANALYSIS_SPECTRUM : KD_ANALYSIS_IDENTIFY, "correlate")))
            st = earlier(ld, v, a->correlate.computed ? KD_ANALYSIS_MODES_ALONG_MOTION : KD_ANALYSIS_MODES, "correlate");
        break;
    case KD_ANALYSIS_VIRTUAL_TEST: st = virtual_test_keys(ld, v, f, &a->virtual_test); break;
    default: break;
    }
    kd_record_free(&rec);
    return st;
}
