/* The model-file keys of mechanisms with elastic links (kedyn/ked.h,
 * docs/model-format.md "Elastic links"): a beam's floating `frame`, the
 * `coupling` of a dynamics analysis and the `modes_along_motion` analysis.
 * Called from src/io/yaml_model.c. */
#include <string.h>

#include "yaml_schema.h"

/* `frame: chord` (default), `frame: root` (node 1), `frame: N` or `frame: {node: N}`. */
kd_status yaml_read_beam_frame(loader* ld, const node_t* v, kd_body_desc* b) {
    b->loc_frame = loc_of(v);
    if (v->type == YAML_SCALAR_NODE && scalar(v) && scalar(v)[0] >= '0' && scalar(v)[0] <= '9')
        return get_int(ld, v, "frame node", 1, &b->frame_node);
    if (v->type == YAML_SCALAR_NODE) {
        static const char* const frames[] = {"chord", "root"};
        int c = 0;
        kd_status st = get_choice(ld, v, "frame", frames, 2, &c);
        b->frame_node = c == 1 ? 1 : 0;
        return st;
    }
    field f[] = {{"node", 0, 0}, {NULL, 0, 0}};
    node_t* n;
    kd_status st;
    if ((st = read_fields(ld, v, "frame", f)) || (st = require(ld, v, f, "node", "frame", &n)) ||
        (st = get_int(ld, n, "node", 1, &b->frame_node)))
        return st;
    b->loc_frame = loc_of(n);
    return KD_OK;
}

/* `coupling: one-way | two-way`. */
kd_status yaml_read_coupling(loader* ld, const node_t* v, kd_analysis_desc* a) {
    static const char* const couplings[] = {"one-way", "two-way"};
    int c = 0;
    kd_status st = get_choice(ld, v, "coupling", couplings, 2, &c);
    if (st) return st;
    a->coupling = c == 0 ? KD_COUPLING_ONE_WAY : KD_COUPLING_TWO_WAY;
    a->loc_coupling = loc_of(v);
    if (kd_desc_elastic_links(ld->d) == 0)
        return fail(ld, v, "coupling applies to mechanisms with elastic links (beams in joints)");
    return KD_OK;
}

/* `settle: T` (s, >= 0): the rigid mechanism runs T before the analysed interval. */
kd_status yaml_read_settle(loader* ld, const node_t* v, kd_analysis_desc* a) {
    kd_status st = get_number(ld, v, "settle", &a->settle);
    if (st) return st;
    if (!(a->settle >= 0)) return fail(ld, v, "settle must be >= 0 (got %g)", a->settle);
    if (kd_desc_elastic_links(ld->d) == 0) return fail(ld, v, "settle applies to mechanisms with elastic links");
    return KD_OK;
}

/* {type: modes_along_motion, t_end, steps, count, body, speed, cond_max, settle} */
kd_status yaml_read_ked_analysis(loader* ld, const node_t* v, kd_analysis_desc* a) {
    const char* what = "modes_along_motion analysis";
    field f[] = {{"type", 0, 0},  {"t_end", 0, 0}, {"steps", 0, 0},    {"count", 0, 0},
                 {"body", 0, 0},  {"speed", 0, 0}, {"cond_max", 0, 0}, {"settle", 0, 0},
                 {"gyroscopic", 0, 0}, {NULL, 0, 0}};
    node_t* x;
    kd_status st;
    if ((st = read_fields(ld, v, what, f))) return st;
    a->steps = 72;
    if ((x = field_value(f, "speed")) && (st = get_positive(ld, x, "speed", &a->speed))) return st;
    if ((x = field_value(f, "t_end"))) {
        if ((st = get_positive(ld, x, "t_end", &a->t_end))) return st;
    } else if (a->speed > 0) {
        a->t_end = 2 * 3.14159265358979323846 / a->speed;  /* one revolution of the input */
    } else {
        return fail(ld, v, "missing required key 't_end' in %s (or give speed: one revolution)", what);
    }
    if ((x = field_value(f, "steps")) && (st = get_int(ld, x, "steps", 1, &a->steps))) return st;
    if ((x = field_value(f, "count")) && (st = get_int(ld, x, "count", 1, &a->count))) return st;
    if ((x = field_value(f, "cond_max")) && (st = get_positive(ld, x, "cond_max", &a->cond_max))) return st;
    if ((x = field_value(f, "settle")) && (st = yaml_read_settle(ld, x, a))) return st;
    if ((x = field_value(f, "gyroscopic"))) {  /* true (default), false or dense (kedyn/ked.h) */
        static const char* const routes[] = {"true", "false", "dense"};
        if ((st = get_choice(ld, x, "gyroscopic", routes, 3, &a->gyroscopic))) return st;
    }
    if ((x = field_value(f, "body"))) {
        if ((st = get_body(ld, x, &a->body))) return st;
        if (!kd_desc_beam_in_joints(ld->d, a->body))
            return fail(ld, x, "body '%s' is not a beam in joints (an elastic link)", ld->d->bodies[a->body].name);
    }
    return KD_OK;
}
