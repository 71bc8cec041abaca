/* The consistency checks of a description (kedyn/desc.h, kd_desc_check):
 * the ranges of every key through the key tables (src/core/desc_fields.c),
 * then the cross-references and the options that must fit together; every
 * error is located at the item. The DOF names against the element kinds are
 * checked in src/fe (kd_model_check_dofs). */
#include <math.h>
#include <string.h>

#include "kedyn/desc.h"
#include "kedyn/desc_fields.h"

/* ---- consistency checks ------------------------------------------------- */

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)

static int positive(double x) { return isfinite(x) && x > 0.0; }

static kd_status check_material(const kd_desc* d, const kd_material_desc* m, kd_error* err) {
    int n = 0;
    const kd_field* f = kd_material_fields(&n);
    char why[160];
    if (kd_fields_check(f, n, m, why, sizeof why)) return FAIL(m->loc, "material '%s': %s", m->name, why);
    return KD_OK;
}

static kd_status check_section(const kd_desc* d, const kd_section_desc* s, kd_error* err) {
    int n = 0;
    const kd_field* f = kd_section_fields(&n);
    char words[64];
    /* the keys of its shape (src/core/desc_fields.c) */
    for (int i = 0; i < n; i++) {
        if (f[i].type != KD_FIELD_NUMBER || (f[i].only && !(f[i].only & (1u << s->shape)))) continue;
        const double x = *(const double*)((const char*)s + f[i].offset);
        if ((f[i].required || x != f[i].def) && !kd_field_in_range(&f[i], x))
            return FAIL(s->loc, "section '%s' (%s): %s must %s (got %g)", s->name, kd_shape_str(s->shape), f[i].key,
                        kd_field_range_text(&f[i], words, sizeof words), x);
    }
    if (s->shape == KD_SHAPE_TUBE && 2.0 * s->t > s->d)
        return FAIL(s->loc, "section '%s': wall t = %g exceeds the radius d/2 = %g", s->name, s->t, s->d / 2);
    if (!(isfinite(s->shear_y) && s->shear_y >= 0.0 && isfinite(s->shear_z) && s->shear_z >= 0.0))
        return FAIL(s->loc, "section '%s': shear coefficients must be positive", s->name);
    return KD_OK;
}

/* A name goes into CSV headers, JSON, gnuplot and HTML: it may not hold what would end a CSV
 * field or row (',', '"', control characters such as a newline). The JSON, gnuplot and HTML
 * writers escape everything else; names never become file names. Returns the offending
 * character or 0; `shown` receives the name with control characters as '?'. */
static int name_breaks_csv(const char* name, char* shown, size_t n) {
    int bad = 0;
    size_t k = 0;
    for (const unsigned char* c = (const unsigned char*)name; *c; c++) {
        const int ctrl = *c < 0x20 || *c == 0x7f;
        if (!bad && (ctrl || *c == ',' || *c == '"')) bad = *c;
        if (k + 1 < n) shown[k++] = ctrl ? '?' : (char)*c;
    }
    if (n) shown[k < n ? k : n - 1] = '\0';
    return bad;
}

#define NAME_RULE "a name may not contain ',', '\"' or control characters (CSV column names)"

static kd_status check_name(const kd_desc* d, const char* what, const char* name, kd_loc loc, kd_error* err) {
    char shown[KD_NAME_MAX];
    if (name_breaks_csv(name, shown, sizeof shown)) return FAIL(loc, "%s '%s': " NAME_RULE, what, shown);
    return KD_OK;
}

/* A plate: material, thickness, a mesh with valid elements, node sets that
 * select nodes of it. */
static kd_status check_plate(const kd_desc* d, const kd_body_desc* b, kd_error* err) {
    if (b->material < 0 || b->material >= d->nmaterials)
        return FAIL(b->loc_material, "body '%s': unknown material", b->name);
    if (!positive(b->thickness)) return FAIL(b->loc, "body '%s': thickness must be positive (got %g)", b->name, b->thickness);
    const kd_mesh_desc* m = &b->mesh;
    if (m->nnodes < 3 || m->nelems < 1 || !m->node_x || !m->elem)
        return FAIL(m->loc, "body '%s': the mesh has no elements (a rectangle is meshed by kd_mesh_rectangle)", b->name);
    for (int e = 0; e < m->nelems * m->elem_nnode; e++)
        if (m->elem[e] < 0 || m->elem[e] >= m->nnodes) return FAIL(m->loc, "body '%s': an element names no node of the mesh", b->name);
    const int bad = kd_mesh_check_elements(m);
    if (bad >= 0)
        return FAIL(m->loc, "body '%s': element %d has a zero or negative Jacobian (degenerate, or numbered clockwise)",
                    b->name, bad + 1);
    for (int i = 0; i < b->nnode_sets; i++) {
        const kd_node_set_desc* s = &b->node_sets[i];
        if (s->nnodes < 1) return FAIL(s->loc, "body '%s': node set '%s' selects no node", b->name, s->name);
        for (int k = 0; k < s->nnodes; k++)
            if (s->nodes[k] < 1 || s->nodes[k] > m->nnodes)
                return FAIL(s->loc, "body '%s': node set '%s' names node %d, not one of 1..%d", b->name, s->name, s->nodes[k],
                            m->nnodes);
    }
    return KD_OK;
}

static kd_status check_body(const kd_desc* d, const kd_body_desc* b, kd_error* err) {
    kd_status st = check_name(d, "body", b->name, b->loc, err);
    for (int p = 0; p < b->npoints && !st; p++) st = check_name(d, "point", b->points[p].name, b->points[p].loc, err);
    if (st) return st;
    for (const kd_body_desc* o = d->bodies; o < b; o++)
        if (strcmp(o->name, b->name) == 0) return FAIL(b->loc, "body '%s' is defined twice", b->name);
    /* the values of the keys its type takes (src/core/desc_fields.c) */
    int nf = 0;
    const kd_field* f = kd_body_fields(&nf);
    char why[160];
    if (kd_fields_check_only(f, nf, 1u << b->type, b, why, sizeof why)) return FAIL(b->loc, "body '%s': %s", b->name, why);
    if (b->type == KD_BODY_PLATE) return check_plate(d, b, err);
    if (b->type != KD_BODY_BEAM) return KD_OK;
    if (b->material < 0 || b->material >= d->nmaterials)
        return FAIL(b->loc_material, "body '%s': unknown material", b->name);
    if (b->section < 0 || b->section >= d->nsections)
        return FAIL(b->loc_section, "body '%s': unknown section", b->name);
    if (!positive(b->length)) return FAIL(b->loc, "body '%s': length must be positive (got %g)", b->name, b->length);
    if (b->interpolation == KD_INTERP_QUINTIC &&
        !(b->theory == KD_THEORY_EULER_BERNOULLI || b->theory == KD_THEORY_RAYLEIGH))
        return FAIL(b->loc, "body '%s': quintic interpolation applies to euler-bernoulli and rayleigh beams, not %s",
                    b->name, kd_theory_str(b->theory));
    const kd_section_desc* s = &d->sections[b->section];
    if (b->theory == KD_THEORY_TIMOSHENKO && s->shape == KD_SHAPE_GENERIC &&
        (s->shear_y <= 0.0 || (!b->planar && s->shear_z <= 0.0)))
        return FAIL(b->loc, "body '%s': a timoshenko beam with generic section '%s' needs shear_y%s", b->name,
                    s->name, b->planar ? "" : " and shear_z");
    /* an elastic link of a planar mechanism (kedyn/ked.h) */
    if (b->frame_node != 0 && (b->frame_node < 1 || b->frame_node > b->elements + 1))
        return FAIL(b->loc_frame, "body '%s': frame node %d is not a node of the beam (1..%d)", b->name, b->frame_node,
                    b->elements + 1);
    if (kd_desc_beam_in_joints(d, (int)(b - d->bodies))) {
        if (!b->planar) return FAIL(b->loc, "body '%s': a beam in joints of a planar mechanism must be planar", b->name);
        if (b->theory == KD_THEORY_BAR)
            return FAIL(b->loc, "body '%s': a beam in joints needs bending (theory euler-bernoulli, rayleigh or "
                                "timoshenko)", b->name);
        for (int p = 0; p < b->npoints; p++)
            if (b->points[p].x[2] != 0.0)
                return FAIL(b->points[p].loc, "body '%s': points of a beam in joints lie in the plane (z = 0)", b->name);
    }
    return KD_OK;
}

static kd_status check_node(const kd_desc* d, int body, int node, kd_loc loc, kd_error* err) {
    if (body < 0 || body >= d->nbodies) return FAIL(loc, "unknown body");
    const kd_body_desc* b = &d->bodies[body];
    if (b->type == KD_BODY_PLATE) {
        if (node < 1 || node > b->mesh.nnodes) return FAIL(loc, "body '%s' has nodes 1..%d, not %d", b->name, b->mesh.nnodes, node);
        return KD_OK;
    }
    if (b->type != KD_BODY_BEAM) return FAIL(loc, "body '%s' has no nodes (it is not a beam)", b->name);
    if (node < 1 || node > b->elements + 1)
        return FAIL(loc, "body '%s' has nodes 1..%d, not %d", b->name, b->elements + 1, node);
    return KD_OK;
}

static kd_status check_support(const kd_desc* d, const kd_support_desc* s, kd_error* err) {
    kd_status st = check_node(d, s->body, s->node, s->loc_node, err);
    if (st) return st;
    const kd_body_desc* b = &d->bodies[s->body];
    int n = 0;
    const kd_field* f = kd_support_fields(&n);
    char why[160];
    if (kd_fields_check(f, n, s, why, sizeof why)) return FAIL(s->loc, "support on body '%s': %s", b->name, why);
    if (s->fix == 0) return FAIL(s->loc_fix, "support on body '%s' fixes no DOF", b->name);
    /* the DOF names against the body's element kind: kd_model_check_dofs (src/fe) */
    return KD_OK;
}

/* The numbers of a law against the table of its form (spin_up T > 0...). */
static kd_status check_law(const kd_desc* d, const kd_law* l, kd_loc loc, const char* what, kd_error* err) {
    int n = 0;
    const kd_field* f = kd_law_fields(l->type, &n);
    char why[160];
    if (f && kd_fields_check(f, n, l, why, sizeof why)) return FAIL(loc, "%s: %s", what, why);
    return KD_OK;
}

static kd_status check_motion(const kd_desc* d, const kd_motion_desc* md, kd_error* err) {
    if (md->body < 0 || md->body >= d->nbodies ||
        (d->bodies[md->body].type != KD_BODY_BEAM && d->bodies[md->body].type != KD_BODY_PLATE))
        return FAIL(md->loc, "motion: the body must be a beam or a plate");
    for (const kd_motion_desc* o = d->motions; o < md; o++)
        if (o->body == md->body) return FAIL(md->loc, "body '%s' has two motions", d->bodies[md->body].name);
    const kd_motion* mo = &md->motion;
    const kd_law* laws[4] = {&mo->angle, &mo->x, &mo->y, &mo->phi};
    for (int k = 0; k < 4; k++) {
        kd_status st = check_law(d, laws[k], md->loc, "motion law", err);
        if (st) return st;
    }
    if (mo->type == KD_MOTION_ROTATION) {
        const double n = sqrt(mo->axis[0] * mo->axis[0] + mo->axis[1] * mo->axis[1] + mo->axis[2] * mo->axis[2]);
        if (!(fabs(n - 1.0) < 1e-9)) return FAIL(md->loc, "motion of body '%s': the axis must be a unit vector", d->bodies[md->body].name);
        if (!isfinite(mo->hub)) return FAIL(md->loc, "motion of body '%s': hub must be a number", d->bodies[md->body].name);
    }
    /* A planar body's pose stays in the x-y plane: no z, phi_x, phi_y. */
    if (mo->type == KD_MOTION_POSE && d->bodies[md->body].planar)
        for (int k = 2; k < 5; k++) {
            const kd_law* l = &mo->pose[k];
            int zero = l->type == KD_LAW_CONSTANT ? l->value == 0.0 : l->type == KD_LAW_TABLE;
            for (int i = 0; l->type == KD_LAW_TABLE && i < l->n; i++) zero &= l->f[i] == 0.0;
            if (!zero)
                return FAIL(md->loc, "motion of planar body '%s': the pose must stay in the x-y plane (z, phi_x and phi_y zero)",
                            d->bodies[md->body].name);
        }
    /* The frame's angular and linear accelerations enter the equations. */
    if (kd_motion_smoothness(mo) < 2)
        return FAIL(md->loc,
                    "motion of body '%s': a law with linear interpolation has no acceleration; use a spline table",
                    d->bodies[md->body].name);
    return KD_OK;
}

/* A joint: the values of the keys its type takes (the joint key table); the
 * bodies, points and the geometry are checked by kd_mech_compile. */
static kd_status check_joint(const kd_desc* d, const kd_joint_desc* j, kd_error* err) {
    int n = 0;
    const kd_field* f = kd_joint_fields(&n);
    kd_status st = check_name(d, "joint", j->name, j->loc, err);
    if (st) return st;
    char why[160];
    if (kd_fields_check_only(f, n, 1u << j->type, j, why, sizeof why)) return FAIL(j->loc, "joint '%s': %s", j->name, why);
    return KD_OK;
}

/* A driver: its numbers (the driver key table). */
static kd_status check_driver(const kd_desc* d, const kd_driver_desc* dr, kd_error* err) {
    int n = 0;
    const kd_field* f = kd_driver_fields(&n);
    char why[160];
    if (kd_fields_check(f, n, dr, why, sizeof why)) return FAIL(dr->loc, "driver: %s", why);
    return check_law(d, &dr->law, dr->loc, "driver law", err);
}

/* A damping: its body, and alpha, beta through the rayleigh key table. */
static kd_status check_damping(const kd_desc* d, const kd_damping_desc* dm, kd_error* err) {
    if (dm->body < 0 || dm->body >= d->nbodies) return FAIL(dm->loc, "damping: unknown body");
    int n = 0;
    const kd_field* f = kd_rayleigh_fields(&n);
    char why[160];
    if (kd_fields_check(f, n, dm, why, sizeof why))
        return FAIL(dm->loc, "damping of body '%s': %s", d->bodies[dm->body].name, why);
    return KD_OK;
}

static kd_status check_load(const kd_desc* d, const kd_load_desc* ld, kd_error* err) {
    /* the numbers of its type's key table; a friction's v_smooth 0 means the
     * default (kd_mech_compile) */
    int n = 0;
    const kd_field* f = kd_load_fields(ld->type, &n);
    kd_load_desc x = *ld;
    char why[160];
    if (x.type == KD_LOAD_FRICTION && x.v_smooth == 0.0) x.v_smooth = kd_field_find(f, n, "v_smooth")->def;
    if (f && kd_fields_check(f, n, &x, why, sizeof why)) return FAIL(ld->loc, "%s: %s", kd_load_type_name(ld->type), why);
    kd_status st = check_law(d, &ld->value, ld->loc, "force value", err);
    if (!st) st = check_law(d, &ld->value_y, ld->loc, "force value", err);
    if (st || ld->type >= KD_LOAD_SPRING) return st;  /* mechanism forces: the rest by kd_mech_compile */
    if (ld->type == KD_LOAD_GRAVITY) {
        for (int k = 0; k < 3; k++)
            if (!isfinite(ld->g[k])) return FAIL(ld->loc, "gravity: g must be finite");
        return KD_OK;
    }
    /* the DOF name against the body's element kind: kd_model_check_dofs (src/fe) */
    return check_node(d, ld->body, ld->node, ld->loc, err);
}


/* A dynamics initial value: an existing, unsupported DOF of a node. */
static kd_status check_initial(const kd_desc* d, const kd_initial_value* iv, kd_error* err) {
    kd_status st = check_node(d, iv->body, iv->node, iv->loc, err);
    if (st) return st;
    const kd_body_desc* b = &d->bodies[iv->body];
    if (!isfinite(iv->value)) return FAIL(iv->loc, "initial value must be finite");
    if (iv->dof < 0 || iv->dof >= KD_DOF_NAMES) return FAIL(iv->loc, "initial value: unknown DOF");
    for (int i = 0; i < d->nsupports; i++) {
        const kd_support_desc* s = &d->supports[i];
        const unsigned mask = s->fix == KD_FIX_ALL ? KD_FIX_CLAMP : s->fix;
        if (s->body == iv->body && s->node == iv->node && (mask & (1u << iv->dof)))
            return FAIL(iv->loc, "initial value on DOF '%s' of node %d of body '%s', which a support fixes",
                        kd_dof_name_str(iv->dof), iv->node, b->name);
    }
    return KD_OK;
}

static kd_status check_analysis(const kd_desc* d, const kd_analysis_desc* a, kd_error* err);

static const char* route_words(kd_dynamics_route r) {
    static const char* const words[] = {"elastic bodies", "a mechanism", "one-way coupled links",
                                        "two-way coupled links"};
    return words[r];
}

static int canonical(kd_dynamics_integrator i) {
    return i == KD_INTEGRATOR_HAMILTON_CVODE || i == KD_INTEGRATOR_IMPLICIT_MIDPOINT;
}

/* Where a key was written, or the analysis when it was not (or built in code). */
static kd_loc at(kd_loc key, kd_loc analysis) { return key.line > 0 ? key : analysis; }

static kd_status check_dynamics(const kd_desc* d, const kd_analysis_desc* a, kd_error* err) {
    const kd_dynamics_desc* dy = &a->dynamics;
    const kd_dynamics_route route = kd_desc_dynamics_route(d, dy);
    const kd_loc loc_int = at(dy->loc_integrator, a->loc), loc_form = at(dy->loc_formalism, a->loc);
    if (dy->coupling != KD_COUPLING_UNSET && kd_desc_elastic_links(d) == 0)
        return FAIL(at(dy->loc_coupling, a->loc),
                    "dynamics: coupling applies to mechanisms with elastic links (beams in joints)");
    /* formalisms: kedyn/formalism.h for elastic elements, kedyn/mech_formalism.h for mechanisms */
    if (route != KD_ROUTE_ELASTIC &&
        (dy->formalism == KD_DYN_FORMALISM_INVARIANTS || dy->formalism == KD_DYN_FORMALISM_HAMILTON))
        return FAIL(loc_form, "dynamics of a mechanism: formalism '%s' is a route for elastic elements; mechanisms "
                              "take newton-euler, maggi, kane, gibbs-appell or lagrange",
                    kd_dynamics_formalism_name(dy->formalism));
    if (route == KD_ROUTE_ELASTIC &&
        (dy->formalism == KD_DYN_FORMALISM_NEWTON_EULER || dy->formalism == KD_DYN_FORMALISM_MAGGI))
        return FAIL(loc_form, "dynamics: formalisms newton-euler and maggi are for systems with joints "
                              "(rigid bodies and joints); elastic bodies take invariants, lagrange, kane, "
                              "gibbs-appell or hamilton");
    /* an integrator the route cannot honour is an error, never replaced */
    if (dy->integrator != KD_INTEGRATOR_UNSET && !kd_dynamics_route_takes(route, dy->integrator))
        return FAIL(loc_int, "dynamics: integrator '%s' does not apply to %s, which integrate%s with %s",
                    kd_dynamics_integrator_name(dy->integrator), route_words(route),
                    route == KD_ROUTE_MECHANISM ? "s" : "", kd_dynamics_route_integrators(route));
    kd_dynamics_desc r = *dy;
    kd_dynamics_resolve(&r, route);
    if (route == KD_ROUTE_ELASTIC && canonical(r.integrator) != (r.formalism == KD_DYN_FORMALISM_HAMILTON))
        return FAIL(dy->integrator != KD_INTEGRATOR_UNSET ? loc_int : loc_form,
                    "dynamics: the hamilton formalism and the integrators hamilton-cvode and implicit-midpoint go "
                    "together (Hamilton's canonical equations in (q, p))");
    if (route == KD_ROUTE_ELASTIC && (dy->formulation != KD_FORMULATION_UNSET || dy->stabilization != KD_STABILIZATION_UNSET))
        return FAIL(a->loc, "dynamics: formulation and stabilization apply to mechanisms (rigid bodies and joints)");
    if (kd_dynamics_integrator_fixed_step(r.integrator) && !positive(dy->dt))
        return FAIL(a->loc, "dynamics: the fixed-step integrator %s needs dt > 0 (got %g)",
                    kd_dynamics_integrator_name(r.integrator), dy->dt);
    if (dy->nonlinear_solver != KD_NONLINEAR_UNSET &&
        (route == KD_ROUTE_ELASTIC || r.formulation == KD_FORMULATION_IDA ||
         (r.integrator != KD_INTEGRATOR_CVODE_BDF && r.integrator != KD_INTEGRATOR_CVODE_ADAMS)))
        return FAIL(a->loc, "dynamics: nonlinear_solver applies to mechanisms integrated with cvode-bdf or cvode-adams "
                            "(not to formulation ida, whose Newton iteration is its own)");
    if (route != KD_ROUTE_ELASTIC && r.integrator == KD_INTEGRATOR_CVODE_ADAMS &&
        r.stabilization == KD_STABILIZATION_PROJECTION &&
        (r.formulation == KD_FORMULATION_AUGMENTED || r.formulation == KD_FORMULATION_UDWADIA_KALABA))
        return FAIL(loc_int, "dynamics: CVODE projects only with BDF: cvode-adams takes stabilization baumgarte or none");
    if (route == KD_ROUTE_ONE_WAY) return KD_OK;
    if (dy->initial_mode < 0) return FAIL(a->loc, "dynamics: the initial mode must be at least 1");
    if (dy->initial_mode > 0 && !isfinite(dy->initial_amplitude))
        return FAIL(a->loc, "dynamics: the initial mode's amplitude must be finite");
    for (int i = 0; i < dy->ninitial; i++) {
        kd_status st = check_initial(d, &dy->initial[i], err);
        if (st) return st;
    }
    return KD_OK;
}

/* kinematics, inverse_dynamics: a driver given by a table is defined over the table's time range only */
static kd_status check_drivers_cover(const kd_desc* d, const kd_analysis_desc* a, double t_end, kd_error* err) {
    for (int k = 0; k < d->ndrivers; k++) {
        double t0, t1;
        kd_law_range(&d->drivers[k].law, &t0, &t1);
        if (t0 > 0.0 || t1 < t_end)
            return FAIL(a->loc, "%s: the driver of joint '%s' is a table over [%g, %g] s, which does not cover [0, %g] s",
                        kd_analysis_type_name(a->type),
                        d->drivers[k].joint >= 0 && d->drivers[k].joint < d->njoints ? d->joints[d->drivers[k].joint].name : "?",
                        t0, t1, t_end);
    }
    return KD_OK;
}

static kd_status check_sweep(const kd_desc* d, const kd_analysis_desc* a, kd_error* err) {
    const kd_sweep_desc* sw = &a->sweep;
    char why[256];
    if (!sw->inner || sw->inner->type == KD_ANALYSIS_SWEEP) return FAIL(a->loc, "sweep: needs an analysis to repeat (not a sweep)");
    if (sw->nset < 1 || sw->nset > KD_SWEEP_PARAMS) return FAIL(a->loc, "sweep: set 1 to %d parameters", KD_SWEEP_PARAMS);
    for (int k = 0; k < sw->nset; k++) {  /* only looked up */
        kd_analysis_desc inner = *sw->inner;
        if (kd_param_is_analysis(sw->set[k]) ? !kd_analysis_param(&inner, sw->set[k], why, sizeof why)
                                             : !kd_desc_param((kd_desc*)d, sw->set[k], why, sizeof why))
            return FAIL(a->loc, "sweep: %s", why);
    }
    if (sw->nruns < 1 || sw->nruns * sw->nset > KD_LIST_MAX) return FAIL(a->loc, "sweep: 1 to %d values", KD_LIST_MAX);
    for (int i = 0; i < sw->nruns * sw->nset; i++)
        if (!isfinite(sw->values[i])) return FAIL(a->loc, "sweep: values must be finite");
    /* every run's model must be valid too: checked now, before anything runs */
    for (int i = 0; i < sw->nruns; i++) {
        kd_desc dv;
        kd_error e;
        const double* v = sw->values + (size_t)i * sw->nset;
        kd_status st = kd_desc_with_param(d, sw->nset, sw->set, v, &dv, &e);
        if (st == KD_ERR_NOMEM) return kd_error_set(err, st, d->file, KD_LOC_NONE, "out of memory");
        if (!st) {
            dv.nanalyses = 0;  /* its model only */
            st = kd_desc_check(&dv, &e);
            kd_desc_with_param_free(&dv);
        }
        /* and the analysis with its values */
        kd_analysis_desc inner;
        if (!st) st = kd_analysis_with_param(sw->inner, sw->nset, sw->set, v, &inner, &e);
        if (!st) st = check_analysis(d, &inner, &e);
        if (st) return FAIL(a->loc, "sweep: %s = %g%s: %s", sw->set[0], v[0], sw->nset > 1 ? ", ..." : "", e.msg);
    }
    return check_analysis(d, sw->inner, err);
}

static kd_status check_analysis(const kd_desc* d, const kd_analysis_desc* a, kd_error* err) {
    if (a->type < 0 || a->type >= KD_ANALYSIS_TYPES) return FAIL(a->loc, "analysis of unknown type %d", (int)a->type);
    const char* name = kd_analysis_type_name(a->type);
    /* the ranges of every key (src/core/desc_fields.c) */
    int n = 0;
    const kd_field* f = kd_analysis_fields(a->type, &n);
    char why[200];
    if (kd_fields_check(f, n, kd_analysis_fields_base((kd_analysis_desc*)a), why, sizeof why))
        return FAIL(a->loc, "%s: %s", name, why);
    switch (a->type) {
    case KD_ANALYSIS_SWEEP: return check_sweep(d, a, err);
    case KD_ANALYSIS_MODES:
        if (kd_desc_is_mechanism(d)) {
            int nbeam = 0;
            for (int i = 0; i < d->nbodies; i++) nbeam += d->bodies[i].type == KD_BODY_BEAM;
            if (nbeam == 0) return FAIL(a->loc, "modes: the model has no elastic body (beam); rigid mechanisms have no modes");
            if (nbeam == kd_desc_elastic_links(d))
                return FAIL(a->loc, "modes: the beams of this mechanism are elastic links; their frequencies along the "
                                    "motion come from modes_along_motion");
        }
        return KD_OK;
    case KD_ANALYSIS_CAMPBELL:
    case KD_ANALYSIS_STABILITY: {
        const int body = a->type == KD_ANALYSIS_CAMPBELL ? a->campbell.body : a->stability.body;
        if (kd_desc_rotating_body(d, body) < 0)
            return FAIL(a->loc, "%s: needs %s rotating body (a motion with a rotation)", name, body >= 0 ? "a" : "exactly one");
        if (a->type == KD_ANALYSIS_STABILITY && a->stability.nthicknesses > 0 &&
            d->bodies[kd_desc_rotating_body(d, body)].type != KD_BODY_PLATE)  /* theory.md sec. 14.8 */
            return FAIL(a->loc, "stability: thicknesses apply to a plate body (a beam's section is its own)");
        return KD_OK;
    }
    case KD_ANALYSIS_DYNAMICS: return check_dynamics(d, a, err);
    case KD_ANALYSIS_KINEMATICS:
    case KD_ANALYSIS_INVERSE_DYNAMICS:
        if (!kd_desc_is_mechanism(d)) return FAIL(a->loc, "%s applies to mechanisms (rigid bodies and joints)", name);
        return check_drivers_cover(d, a, a->type == KD_ANALYSIS_KINEMATICS ? a->kinematics.t_end : a->inverse_dynamics.t_end,
                                   err);
    case KD_ANALYSIS_MODES_ALONG_MOTION: {
        const kd_modes_along_motion_desc* ma = &a->modes_along_motion;
        if (kd_desc_elastic_links(d) == 0)
            return FAIL(a->loc, "modes_along_motion applies to mechanisms with elastic links (beams in joints)");
        if (ma->t_end == 0.0 && ma->speed == 0.0)
            return FAIL(a->loc, "modes_along_motion: t_end must be positive (or give speed: one revolution)");
        if (ma->speed > 0 && d->ndrivers == 0) return FAIL(a->loc, "modes_along_motion: speed needs a driver");
        if (ma->body >= 0 && !kd_desc_beam_in_joints(d, ma->body))
            return FAIL(a->loc, "modes_along_motion: body '%s' is not a beam in joints",
                        ma->body < d->nbodies ? d->bodies[ma->body].name : "?");
        return KD_OK;
    }
    case KD_ANALYSIS_IDENTIFY: {  /* measured records */
        const kd_identify_desc* id = &a->identify;
        if (id->order_max > 200 || id->order_min > id->order_max)
            return FAIL(a->loc, "identify: need order_min <= order_max <= 200");
        if (id->nband != 0 && (id->nband != 2 || !(id->band[1] > id->band[0])))
            return FAIL(a->loc, "identify: band must be [fmin, fmax] with fmin < fmax");
        return KD_OK;
    }
    case KD_ANALYSIS_VIRTUAL_TEST: {
        const kd_virtual_test_desc* vt = &a->virtual_test;
        if (vt->duration * vt->rate < 2.0)
            return FAIL(a->loc, "virtual_test: the pulse (%g s) must last at least two samples (rate %g Hz)", vt->duration,
                        vt->rate);
        if (vt->length <= vt->duration) return FAIL(a->loc, "virtual_test: the record of a hit must outlast the pulse");
        return check_node(d, vt->body, vt->node, a->loc, err);
    }
    case KD_ANALYSIS_SPECTRUM:
    case KD_ANALYSIS_FRF:
    case KD_ANALYSIS_CORRELATE:
    case KD_ANALYSIS_TYPES: break;
    }
    return KD_OK;
}

kd_status kd_desc_check(const kd_desc* d, kd_error* err) {
    kd_status st = KD_OK;
    for (int i = 0; i < d->nmaterials && !st; i++) st = check_material(d, &d->materials[i], err);
    for (int i = 0; i < d->nsections && !st; i++) st = check_section(d, &d->sections[i], err);
    for (int i = 0; i < d->nbodies && !st; i++) st = check_body(d, &d->bodies[i], err);
    for (int i = 0; i < d->nsupports && !st; i++) st = check_support(d, &d->supports[i], err);
    for (int i = 0; i < d->noutput_nodes && !st; i++) {
        const kd_output_nodes_desc* o = &d->output_nodes[i];
        for (int k = 0; k < o->nnodes && !st; k++) st = check_node(d, o->body, o->nodes[k], o->loc, err);
    }
    for (int i = 0; i < d->nmotions && !st; i++) st = check_motion(d, &d->motions[i], err);
    for (int i = 0; i < d->ndampings && !st; i++) st = check_damping(d, &d->dampings[i], err);
    for (int i = 0; i < d->njoints && !st; i++) st = check_joint(d, &d->joints[i], err);
    for (int i = 0; i < d->ndrivers && !st; i++) st = check_driver(d, &d->drivers[i], err);
    for (int i = 0; i < d->nloads && !st; i++) st = check_load(d, &d->loads[i], err);
    for (int i = 0; i < d->nsensors && !st; i++) st = check_node(d, d->sensors[i].body, d->sensors[i].node, d->sensors[i].loc, err);
    for (int i = 0; i < d->nanalyses && !st; i++) st = check_analysis(d, &d->analyses[i], err);
    if (st) return st;
    int nbeam = 0;
    for (int i = 0; i < d->nbodies; i++) nbeam += d->bodies[i].type == KD_BODY_BEAM || d->bodies[i].type == KD_BODY_PLATE;
    if (nbeam == 0 && !kd_desc_is_mechanism(d))
        return FAIL(KD_LOC_START, "the model has no elastic body (a body of type beam or plate) and no mechanism");
    return KD_OK;
}

/* ---- resources, estimated before anything is allocated -------------------- */

/* Bytes of one CSV value (%.10e and its comma) and of compiling one element (measured: `kedyn
 * check` on 3e6 planar cubic elements took 512 MB, 6.9 s). */
#define CSV_VALUE_BYTES 18.0
#define ELEMENT_BYTES 170.0
/* Beyond these nothing could run: a row count must fit an int, a step count a double's integers. */
#define ROWS_ABSURD 2.0e9
#define STEPS_ABSURD 9.0e15

static int total_elements(const kd_desc* d, double* out) {
    double n = 0;
    for (int i = 0; i < d->nbodies; i++)
        if (d->bodies[i].type == KD_BODY_BEAM) n += d->bodies[i].elements;
    *out = n;
    return n > KD_LIMIT_ELEMENTS;
}

/* Columns of a time history: t, the DOF of the output nodes (default: the last node of each
 * beam; 3 planar, 6 in 3D) and the energy balance, or, for mechanisms, up to 9 per body, 5 per
 * joint and 6 per node of each elastic link, and a few more. */
static double history_columns(const kd_desc* d) {
    double cols = 8;
    if (kd_desc_is_mechanism(d)) {
        cols += 9.0 * d->nbodies + 5.0 * d->njoints;
        for (int i = 0; i < d->nbodies; i++)
            if (d->bodies[i].type == KD_BODY_BEAM) cols += 6.0 * (d->bodies[i].elements + 1);
        return cols;
    }
    cols = 5;  /* t and the energy balance */
    if (d->noutput_nodes == 0)
        for (int i = 0; i < d->nbodies; i++) cols += d->bodies[i].planar ? 3 : 6;
    for (int i = 0; i < d->noutput_nodes; i++) {
        const int b = d->output_nodes[i].body;
        cols += (b >= 0 && b < d->nbodies && d->bodies[b].planar ? 3.0 : 6.0) * d->output_nodes[i].nnodes;
    }
    return cols;
}

static kd_status steps_limit(const kd_desc* d, const kd_analysis_desc* a, const char* what, double steps, double rows,
                             kd_error* err) {
    const char* name = kd_analysis_type_name(a->type);
    const double bytes = rows * history_columns(d) * CSV_VALUE_BYTES;
    if (!(steps <= STEPS_ABSURD) || !(rows <= ROWS_ABSURD))
        return FAIL(a->loc, "%s: %.3g %s and %.3g output rows cannot be run (more than %.0e steps or %.0e rows); "
                            "check t_end, dt and output_every",
                    name, steps, what, rows, STEPS_ABSURD, ROWS_ABSURD);
    if (d->force) return KD_OK;
    if (steps > KD_LIMIT_STEPS || bytes > KD_LIMIT_OUTPUT_BYTES)
        return FAIL(a->loc, "%s: about %.3g %s and up to %.3g GB of CSV output (%.3g rows) exceed the limits (%.0e steps, "
                            "%.0f GB); fewer steps or a larger output_every, or `force: true` at the top of the model "
                            "(kedyn run --force) to run it anyway",
                    name, steps, what, bytes / 1e9, rows, KD_LIMIT_STEPS, KD_LIMIT_OUTPUT_BYTES / 1e9);
    return KD_OK;
}

static kd_status analysis_resources(const kd_desc* d, const kd_analysis_desc* a, kd_error* err) {
    switch (a->type) {
    case KD_ANALYSIS_DYNAMICS: {
        const kd_dynamics_route route = kd_desc_dynamics_route(d, &a->dynamics);
        kd_dynamics_desc dy = a->dynamics;
        kd_dynamics_resolve(&dy, route);
        const double every = dy.output_every > 0 ? dy.output_every : 1;
        /* fixed step: t_end / dt steps; adaptive: output instants every dt * output_every
         * (t_end / 1000 without dt), the integrator's own steps in between */
        const double h = dy.dt > 0 ? dy.dt : dy.t_end / 1000.0;
        const double steps = dy.t_end / h;
        kd_status st = steps_limit(d, a, "time steps (t_end / dt)", steps, steps / every + 1, err);
        if (st || route != KD_ROUTE_ONE_WAY) return st;
        /* one-way links: also the samples of the rigid motion */
        return steps_limit(d, a, "samples of the rigid motion (steps)", dy.steps, dy.steps + 1.0, err);
    }
    case KD_ANALYSIS_KINEMATICS: return steps_limit(d, a, "steps", a->kinematics.steps, a->kinematics.steps + 1.0, err);
    case KD_ANALYSIS_INVERSE_DYNAMICS:
        return steps_limit(d, a, "steps", a->inverse_dynamics.steps, a->inverse_dynamics.steps + 1.0, err);
    case KD_ANALYSIS_MODES_ALONG_MOTION:
        if (!d->force && a->modes_along_motion.steps > KD_LIMIT_INSTANTS)
            return FAIL(a->loc, "modes_along_motion: %d instants (steps), an eigensolution each, exceed the limit "
                                "(%d); fewer steps, or `force: true` at the top of the model (kedyn run --force) "
                                "to run it anyway",
                        a->modes_along_motion.steps, KD_LIMIT_INSTANTS);
        return KD_OK;
    case KD_ANALYSIS_VIRTUAL_TEST: {  /* integration steps; samples of every channel (CSV and UFF) */
        const kd_virtual_test_desc* vt = &a->virtual_test;
        const double samples = vt->rate * vt->length, steps = samples * vt->substeps;
        const double bytes = samples * vt->hits * (vt->nsensors + 2.0) * 2 * 25.0;
        if (!(steps <= STEPS_ABSURD) || !(samples * vt->hits <= 2e8))
            return FAIL(a->loc, "virtual_test: %.3g steps and %.3g samples per channel cannot be run", steps,
                        samples * vt->hits);
        if (!d->force && (steps > KD_LIMIT_STEPS || bytes > KD_LIMIT_OUTPUT_BYTES))
            return FAIL(a->loc, "virtual_test: about %.3g time steps and %.3g GB of records exceed the limits (%.0e steps, "
                                "%.0f GB); a lower rate, fewer substeps or hits, a shorter length, or `force: true`",
                        steps, bytes / 1e9, KD_LIMIT_STEPS, KD_LIMIT_OUTPUT_BYTES / 1e9);
        return KD_OK;
    }
    case KD_ANALYSIS_SWEEP: {
        kd_status st = KD_OK;
        for (int i = 0; i < a->sweep.nruns && !st && a->sweep.inner; i++) {
            kd_analysis_desc inner;
            kd_error e;
            if (kd_analysis_with_param(a->sweep.inner, a->sweep.nset, a->sweep.set,
                                       a->sweep.values + (size_t)i * a->sweep.nset, &inner, &e))
                continue;  /* kd_desc_check reports it */
            inner.loc = a->loc;
            st = analysis_resources(d, &inner, err);
        }
        return st;
    }
    default: return KD_OK;
    }
}

kd_status kd_desc_check_resources(const kd_desc* d, kd_error* err) {
    double n = 0;
    if (total_elements(d, &n) && !d->force) {
        const kd_body_desc* largest = d->bodies;
        for (int i = 0; i < d->nbodies; i++)
            if (d->bodies[i].elements > largest->elements) largest = &d->bodies[i];
        return FAIL(largest->loc, "body '%s': %.3g elements in the model need about %.3g GB to compile, beyond the "
                                  "limit (%d elements); fewer elements, or `force: true` at the top of the model "
                                  "(kedyn run --force) to run it anyway",
                    largest->name, n, n * ELEMENT_BYTES / 1e9, KD_LIMIT_ELEMENTS);
    }
    for (int i = 0; i < d->nanalyses; i++) {
        kd_status st = analysis_resources(d, &d->analyses[i], err);
        if (st) return st;
    }
    return KD_OK;
}
