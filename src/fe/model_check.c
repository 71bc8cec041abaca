/* The DOF names of supports, loads and initial values against the element
 * kind of their body (kedyn/model_check.h). kd_desc_check has checked the
 * indices and node numbers before. */
#include "kedyn/model_check.h"

#include "kedyn/element.h"

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)

/* The mask (1 << kd_dof_name) of the DOFs at a node of beam b. */
static unsigned node_dofs(const kd_body_desc* b) {
    kd_element_kind kind = {b->theory, b->interpolation, b->type == KD_BODY_PLATE ? 0 : b->planar};
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    const int n = kd_element_node_dofs(kind, dofs);
    unsigned have = 0;
    for (int i = 0; i < n; i++) have |= 1u << dofs[i];
    return have;
}

/* Beams and plates: bodies with nodes. */
static int is_beam(const kd_desc* d, int body) {
    return body >= 0 && body < d->nbodies && (d->bodies[body].type == KD_BODY_BEAM || d->bodies[body].type == KD_BODY_PLATE);
}

kd_status kd_model_check_dofs(const kd_desc* d, kd_error* err) {
    for (int i = 0; i < d->nsupports; i++) {
        const kd_support_desc* s = &d->supports[i];
        if (!is_beam(d, s->body) || s->fix == KD_FIX_ALL) continue;
        const kd_body_desc* b = &d->bodies[s->body];
        const unsigned have = node_dofs(b);
        for (int k = 0; k < KD_DOF_NAMES; k++)
            if ((s->fix & (1u << k)) && !(have & (1u << k)))
                return FAIL(s->loc_fix, "body '%s' (%s %s %s) has no DOF '%s'", b->name,
                            b->type == KD_BODY_PLATE ? "plate" : b->planar ? "planar" : "3D",
                            kd_theory_str(b->theory), kd_interp_str(b->interpolation), kd_dof_name_str((kd_dof_name)k));
    }
    for (int i = 0; i < d->nloads; i++) {
        const kd_load_desc* ld = &d->loads[i];
        if (ld->type != KD_LOAD_NODAL || !is_beam(d, ld->body)) continue;
        const kd_body_desc* b = &d->bodies[ld->body];
        if (!(node_dofs(b) & (1u << ld->dof)))
            return FAIL(ld->loc, "body '%s' has no DOF '%s' for this load", b->name, kd_dof_name_str(ld->dof));
    }
    for (int a = 0; a < d->nanalyses; a++) {
        const kd_analysis_desc* ad = &d->analyses[a];
        if (ad->type == KD_ANALYSIS_SWEEP && ad->sweep.inner) ad = ad->sweep.inner;
        if (ad->type != KD_ANALYSIS_DYNAMICS) continue;
        for (int i = 0; i < ad->dynamics.ninitial; i++) {
            const kd_initial_value* iv = &ad->dynamics.initial[i];
            if (!is_beam(d, iv->body)) continue;
            const kd_body_desc* b = &d->bodies[iv->body];
            if (!(node_dofs(b) & (1u << iv->dof)))
                return FAIL(iv->loc, "body '%s' has no DOF '%s' for an initial value", b->name, kd_dof_name_str(iv->dof));
        }
    }
    return KD_OK;
}
