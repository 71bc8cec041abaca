/* The analyses of a model file (docs/model-format.md, "Analyses"): each
 * analysis type is read through its key table (kedyn/desc_fields.h), which
 * gives the allowed keys, their types, ranges and defaults; the code below
 * adds only what a table cannot say: the dynamics' `initial`, a sweep's
 * `set`/`values`/`analysis`, and the keys that apply to some models only,
 * with the location of the key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/mbs.h"
#include "kedyn/mech_formalism.h"
#include "yaml_records.h"
#include "yaml_schema.h"

#define NOMEM(ld) kd_error_set((ld)->err, KD_ERR_NOMEM, (ld)->file, KD_LOC_NONE, "out of memory")
#define TABLE_MAX 32

/* One prescribed initial value {body, node, dof, value} of a q or qdot list. */
static kd_status read_initial_values(loader* ld, const node_t* list, int velocity, kd_dynamics_desc* dy) {
    const char* what = velocity ? "initial qdot" : "initial q";
    kd_status st = expect(ld, list, YAML_SEQUENCE_NODE, what);
    for (yaml_node_item_t* it = list->data.sequence.items.start; !st && it < list->data.sequence.items.top; it++) {
        node_t* v = node_at(ld, *it);
        int nt = 0;
        const kd_field* table = kd_initial_value_fields(&nt);
        field f[8];
        node_t* dof;
        kd_initial_value* iv = kd_desc_add_initial(dy);
        if (!iv) return NOMEM(ld);
        iv->loc = loc_of(v);
        iv->velocity = velocity;
        if ((st = read_table(ld, v, what, table, nt, 0, iv, f, 8)) || (st = require(ld, v, f, "dof", what, &dof)))
            return st;
        st = get_dof(ld, dof, &iv->dof);
    }
    return st;
}

/* `initial`: zero | static | {from: zero|static, mode: K, amplitude: A,
 * q: [{body, node, dof, value}, ...], qdot: [...]}. */
static kd_status read_initial(loader* ld, const node_t* v, kd_dynamics_desc* dy) {
    int nt = 0;
    const kd_field* table = kd_initial_fields(&nt);
    const kd_field* from = kd_field_find(table, nt, "from");
    if (v->type == YAML_SCALAR_NODE) return get_choice(ld, v, "initial", from->names, from->nnames, &dy->initial_static);
    field f[8];
    node_t *x, *amp;
    kd_status st = read_table(ld, v, "initial", table, nt, 0, dy, f, 8);
    if (st) return st;
    if ((x = field_value(f, "mode"))) {
        if ((st = require(ld, v, f, "amplitude", "initial", &amp))) return st;
    } else if ((x = field_value(f, "amplitude"))) {
        return fail(ld, x, "amplitude scales an initial 'mode'; give the mode too");
    }
    if ((x = field_value(f, "q")) && (st = read_initial_values(ld, x, 0, dy))) return st;
    if ((x = field_value(f, "qdot")) && (st = read_initial_values(ld, x, 1, dy))) return st;
    return KD_OK;
}

/* The dynamics keys a table cannot check alone: those of some models only,
 * and the formalism / formulation pair of mechanisms. The integrator a
 * route cannot honour is found by kd_desc_check at the key's location. */
static kd_status dynamics_keys(loader* ld, const node_t* v, field* f, kd_dynamics_desc* dy) {
    node_t* x;
    const int links = kd_desc_elastic_links(ld->d);
    dy->loc_integrator = (x = field_value(f, "integrator")) ? loc_of(x) : loc_of(v);
    dy->loc_formalism = (x = field_value(f, "formalism")) ? loc_of(x) : loc_of(v);
    dy->loc_coupling = (x = field_value(f, "coupling")) ? loc_of(x) : loc_of(v);
    if ((x = field_value(f, "initial"))) {
        kd_status st = read_initial(ld, x, dy);
        if (st) return st;
    }
    if ((x = field_value(f, "coupling")) && links == 0)
        return fail(ld, x, "coupling applies to mechanisms with elastic links (beams in joints)");
    if ((x = field_value(f, "steps")) && links == 0)
        return fail(ld, x, "steps of a dynamics analysis apply to mechanisms with elastic links");
    if ((x = field_value(f, "settle")) && links == 0) return fail(ld, x, "settle applies to mechanisms with elastic links");
    if ((x = field_value(f, "speed")) && (links == 0 || ld->d->ndrivers == 0))
        return fail(ld, x, "speed of a dynamics analysis applies to driven mechanisms with elastic links");
    /* a mechanism formalism integrates with its own formulation (kedyn/mech_formalism.h) */
    x = field_value(f, "formulation");
    if (x && dy->formalism != KD_DYN_FORMALISM_UNSET) {  /* the layers' enums meet by name */
        const int mf = kd_mech_formalism_parse(kd_dynamics_formalism_name(dy->formalism));
        const int given = kd_mbs_formulation_parse(kd_formulation_name(dy->formulation));
        if (mf >= 0 && kd_mech_formalism_formulation((kd_mech_formalism)mf, given) < 0)
            return fail(ld, x, "formalism '%s' integrates with formulation '%s', not '%s'",
                        kd_dynamics_formalism_name(dy->formalism),
                        kd_mbs_formulation_name((kd_mbs_formulation)kd_mech_formalism_formulation((kd_mech_formalism)mf, -1)),
                        kd_formulation_name(dy->formulation));
    }
    return KD_OK;
}

static kd_status modes_along_motion_keys(loader* ld, const node_t* v, field* f, kd_modes_along_motion_desc* ma) {
    node_t* x;
    if (!field_value(f, "t_end") && !(ma->speed > 0))
        return fail(ld, v, "missing required key 't_end' in modes_along_motion analysis (or give speed: one revolution)");
    if ((x = field_value(f, "settle")) && kd_desc_elastic_links(ld->d) == 0)
        return fail(ld, x, "settle applies to mechanisms with elastic links");
    if ((x = field_value(f, "body")) && !kd_desc_beam_in_joints(ld->d, ma->body))
        return fail(ld, x, "body '%s' is not a beam in joints (an elastic link)", ld->d->bodies[ma->body].name);
    return KD_OK;
}

static kd_status read_analysis_into(loader* ld, const node_t* v, kd_analysis_desc* a, int inner);

/* set: PATH, values: [v, ...]  or  set: [P1, P2], values: [[v1, v2], ...]; analysis: {...} */
static kd_status sweep_keys(loader* ld, const node_t* v, field* f, kd_sweep_desc* sw) {
    node_t *set, *vals, *an;
    kd_status st;
    if ((st = require(ld, v, f, "set", "sweep analysis", &set)) || (st = require(ld, v, f, "values", "sweep analysis", &vals)) ||
        (st = require(ld, v, f, "analysis", "sweep analysis", &an)))
        return st;
    const int multi = set->type == YAML_SEQUENCE_NODE;
    sw->nset = multi ? (int)(set->data.sequence.items.top - set->data.sequence.items.start) : 1;
    if (sw->nset < 1 || sw->nset > KD_SWEEP_PARAMS) return fail(ld, set, "set: 1 to %d parameter paths", KD_SWEEP_PARAMS);
    for (int k = 0; k < sw->nset; k++) {
        node_t* pn = multi ? node_at(ld, set->data.sequence.items.start[k]) : set;
        const char* ps = scalar(pn);
        char why[256];
        if (!ps || strlen(ps) >= sizeof(sw->set[k])) return fail(ld, pn, "set must be a parameter path or a list of them");
        snprintf(sw->set[k], sizeof(sw->set[k]), "%s", ps);
        if (!kd_param_is_analysis(sw->set[k]) && !kd_desc_param(ld->d, sw->set[k], why, sizeof why))
            return fail(ld, pn, "%s", why);
    }
    if (!multi) {
        if ((st = get_list(ld, vals, "values", sw->values, &sw->nruns))) return st;
    } else {
        if ((st = expect(ld, vals, YAML_SEQUENCE_NODE, "values"))) return st;
        const int nrun = (int)(vals->data.sequence.items.top - vals->data.sequence.items.start);
        if (nrun < 1 || nrun * sw->nset > KD_LIST_MAX) return fail(ld, vals, "values: 1 to %d runs", KD_LIST_MAX / sw->nset);
        for (int i = 0; i < nrun; i++) {
            int got;
            char what[64];
            snprintf(what, sizeof what, "values (one list of %d per run)", sw->nset);
            if ((st = get_numbers(ld, node_at(ld, vals->data.sequence.items.start[i]), what, sw->nset, sw->nset,
                                  sw->values + (size_t)i * sw->nset, &got)))
                return st;
        }
        sw->nruns = nrun;
    }
    sw->inner = malloc(sizeof(*sw->inner));
    if (!sw->inner) return NOMEM(ld);
    kd_analysis_desc_init(sw->inner, KD_ANALYSIS_MODES);
    if ((st = read_analysis_into(ld, an, sw->inner, 1))) return st;
    /* analysis.KEY: a number of the repeated analysis (its table) */
    for (int k = 0; k < sw->nset; k++) {
        char why[256];
        node_t* pn = multi ? node_at(ld, set->data.sequence.items.start[k]) : set;
        if (kd_param_is_analysis(sw->set[k]) && !kd_analysis_param(sw->inner, sw->set[k], why, sizeof why))
            return fail(ld, pn, "%s", why);
    }
    return KD_OK;
}

/* The list of analysis types for messages: "modes, campbell, ... or sweep". */
static const char* type_list(char* buf, size_t n) {
    buf[0] = '\0';
    for (int t = 0; t < KD_ANALYSIS_TYPES; t++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", t == 0 ? "" : t + 1 < KD_ANALYSIS_TYPES ? ", " : " or ",
                 kd_analysis_type_name((kd_analysis_type)t));
    return buf;
}

/* One analysis into `a`, or appended to the description when a is NULL;
 * `inner`: the analysis a sweep repeats. */
static kd_status read_analysis_into(loader* ld, const node_t* v, kd_analysis_desc* a, int inner) {
    node_t* tn = NULL;
    if (v->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++)
            if (scalar(node_at(ld, q->key)) && strcmp(scalar(node_at(ld, q->key)), "type") == 0) tn = node_at(ld, q->value);
    if (!tn) return fail(ld, v, "missing required key 'type' in analysis");
    const int t = kd_analysis_type_parse(scalar(tn));
    char types[256];
    if (t < 0)
        return fail(ld, tn, "unknown analysis type '%s' (expected %s)", scalar(tn) ? scalar(tn) : "?",
                    type_list(types, sizeof types));
    if (t == KD_ANALYSIS_SWEEP && inner) return fail(ld, tn, "a sweep cannot repeat a sweep");
    if (!a) a = kd_desc_add_analysis(ld->d, (kd_analysis_type)t);
    else kd_analysis_desc_init(a, (kd_analysis_type)t);
    if (!a) return NOMEM(ld);
    a->loc = loc_of(v);
    int n = 0;
    const kd_field* table = kd_analysis_fields(a->type, &n);
    field f[TABLE_MAX + 1];
    char what[64];
    snprintf(what, sizeof what, "%s analysis", kd_analysis_type_name(a->type));
    kd_status st = read_table(ld, v, what, table, n, 0, kd_analysis_fields_base(a), f, TABLE_MAX + 1);
    if (st) return st;
    switch (a->type) {
    case KD_ANALYSIS_DYNAMICS: return dynamics_keys(ld, v, f, &a->dynamics);
    case KD_ANALYSIS_MODES_ALONG_MOTION: return modes_along_motion_keys(ld, v, f, &a->modes_along_motion);
    case KD_ANALYSIS_SWEEP: return sweep_keys(ld, v, f, &a->sweep);
    case KD_ANALYSIS_SPECTRUM:
    case KD_ANALYSIS_FRF:
    case KD_ANALYSIS_IDENTIFY:
    case KD_ANALYSIS_CORRELATE:
    case KD_ANALYSIS_VIRTUAL_TEST:
        if (inner) return fail(ld, tn, "a sweep cannot repeat a %s analysis", kd_analysis_type_name(a->type));
        return yaml_measure_keys(ld, v, f, a);
    default: return KD_OK;
    }
}

kd_status yaml_read_analysis(loader* ld, const node_t* v) { return read_analysis_into(ld, v, NULL, 0); }
