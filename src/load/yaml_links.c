/* The model-file key of elastic links of mechanisms (kedyn/ked.h,
 * docs/model-format.md "Elastic links"): a beam's floating `frame`. The
 * `coupling` of a dynamics analysis and the `modes_along_motion` analysis are
 * read through their key tables (src/load/yaml_analysis.c). Called from
 * src/load/yaml_model.c. */
#include <math.h>
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
    int nt = 0;
    const kd_field* table = kd_frame_fields(&nt);
    field f[4];
    kd_status st = read_table(ld, v, "frame", table, nt, 0, b, f, 4);
    if (st) return st;
    b->loc_frame = loc_of(field_value(f, "node"));
    return KD_OK;
}

/* The fixed step of the explicit rk4 integrator of two-way coupled links
 * against its stability limit: RK4 is stable for |lambda| dt <= 2.785 on the
 * imaginary axis, and the highest frequency of a link meshed with elements
 * of length le is at least that of an axial bar element with consistent
 * mass, omega = 2 sqrt(3) sqrt(E / rho) / le (omega^2 = 12 E / (rho le^2)).
 * That is the alternating mode of a chain of free elements; the ends of a
 * link (its frame node clamped) lower the highest frequency, at most by a
 * factor 2 (one element clamped at one end: omega^2 = 3 E / (rho le^2)),
 * and bending only raises it. So a step more than twice the limit so
 * computed cannot be stable: an error at the analysis, with the limit in
 * the message. (examples/slider_crank_flexible.yaml: limit 1.18e-5 s; runs
 * at 1.3e-5 s, diverges at 2.0e-5 s.) Sweeps are not looked into. */
#define RK4_IMAGINARY_LIMIT 2.785
kd_status yaml_check_explicit_step(loader* ld) {
    const kd_desc* d = ld->d;
    for (int i = 0; i < d->nanalyses; i++) {
        const kd_analysis_desc* a = &d->analyses[i];
        if (a->type != KD_ANALYSIS_DYNAMICS) continue;
        const kd_dynamics_route route = kd_desc_dynamics_route(d, &a->dynamics);
        kd_dynamics_desc r = a->dynamics;
        kd_dynamics_resolve(&r, route);
        if (route != KD_ROUTE_TWO_WAY || r.integrator != KD_INTEGRATOR_RK4 || !(r.dt > 0)) continue;
        double omega = 0;
        int stiffest = -1;
        for (int b = 0; b < d->nbodies; b++) {
            const kd_body_desc* body = &d->bodies[b];
            if (body->type != KD_BODY_BEAM || body->material < 0 || body->elements < 1 || !(body->length > 0)) continue;
            const kd_material_desc* m = &d->materials[body->material];
            const double le = body->length / body->elements;
            const double w = 2.0 * sqrt(3.0) * sqrt(m->E / m->rho) / le;
            if (w > omega) omega = w, stiffest = b;
        }
        if (stiffest < 0) continue;
        const double limit = RK4_IMAGINARY_LIMIT / omega;
        if (r.dt > 2.0 * limit)
            return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, a->loc,
                            "dynamics: dt = %g s is %.3g times the stability limit of the explicit rk4 integrator, "
                            "about %.3g s (axial vibration of an element of '%s', %.3g rad/s): use a smaller dt or "
                                "integrator: cvode-bdf",
                                r.dt, r.dt / limit, limit, d->bodies[stiffest].name, omega);
    }
    return KD_OK;
}
