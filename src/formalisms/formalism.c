/* The formalism interface: names, dispatch, the invariants route expressed in
 * it (kedyn/formalism.h), and the routes the moving-frame system takes its
 * inertia terms from (kd_element_route, kedyn/system.h). */
#include <string.h>

#include "kedyn/formalism.h"
#include "kedyn/inertia.h"
#include "kedyn/integrate.h"
#include "kedyn/system.h"

static const char* const names[KD_FORMALISM_COUNT] = {"invariants", "lagrange", "kane", "gibbs-appell", "hamilton"};

const char* kd_formalism_name(kd_formalism f) { return (unsigned)f < KD_FORMALISM_COUNT ? names[f] : "?"; }

int kd_formalism_parse(const char* name, kd_formalism* f) {
    for (int i = 0; i < KD_FORMALISM_COUNT; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *f = (kd_formalism)i;
            return 0;
        }
    return -1;
}

void kd_analysis_use_formalism(kd_analysis_desc* a, kd_formalism f) {
    if (a->type != KD_ANALYSIS_DYNAMICS) return;
    kd_dynamics_desc* dy = &a->dynamics;
    kd_dynamics_resolve(dy, KD_ROUTE_ELASTIC);  /* the integrator the analysis has now */
    const kd_dynamics_integrator i = dy->integrator;
    if (f == KD_FORMALISM_HAMILTON)
        dy->integrator = kd_dynamics_integrator_fixed_step(i) ? KD_INTEGRATOR_IMPLICIT_MIDPOINT
                                                              : KD_INTEGRATOR_HAMILTON_CVODE;
    else if (i == KD_INTEGRATOR_HAMILTON_CVODE)
        dy->integrator = KD_INTEGRATOR_CVODE_BDF;
    else if (i == KD_INTEGRATOR_IMPLICIT_MIDPOINT)
        dy->integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
    dy->formalism = kd_dynamics_formalism_parse(kd_formalism_name(f));
}

void kd_invariants_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                           kd_formalism_ops* ops) {
    /* theory.md sec. 3: combinations of the invariants; gravity as a frame
     * acceleration -g */
    kd_inertia_terms t;
    const double a[3] = {fs->a[0] - fs->g[0], fs->a[1] - fs->g[1], fs->a[2] - fs->g[2]};
    kd_inertia_terms_place(p, at, fs->omega, fs->eps, a, &t);
    const int n = p->ndof, nn = n * n;
    out->n = n;
    kd_element_mass(p, out->m);
    kd_element_place_matrix(p, at, out->m);
    for (int i = 0; i < nn; i++) out->c[i] = t.c[i], out->k[i] = t.k_eps[i] + t.k_omega[i];
    for (int i = 0; i < n; i++) out->q[i] = -t.q[i];
    if (ops) {
        ops->elements++;
        ops->flops += (double)p->ncomp * p->ncomp * nn * 6.0 + 2.0 * nn + 30.0 * n;
    }
}

void kd_formalism_element(kd_formalism f, const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs,
                          kd_element_eqs* out, kd_formalism_ops* ops) {
    switch (f) {
    case KD_FORMALISM_LAGRANGE: kd_lagrange_element(p, at, fs, out, ops); return;
    case KD_FORMALISM_KANE: kd_kane_element(p, at, fs, out, ops); return;
    case KD_FORMALISM_GIBBS_APPELL: kd_gibbs_appell_element(p, at, fs, out, ops); return;
    case KD_FORMALISM_HAMILTON: kd_hamilton_element(p, at, fs, out, ops); return;
    case KD_FORMALISM_INVARIANTS:
    case KD_FORMALISM_COUNT: break;
    }
    kd_invariants_element(p, at, fs, out, ops);
}

kd_status kd_system_init_formalism(kd_system* s, const kd_model* m, kd_formalism f, kd_error* err) {
    /* the invariants: the system's own fused assembly; any other value as
     * kd_formalism_element dispatches it */
    kd_element_route route = {kd_invariants_element, NULL};
    switch (f) {
    case KD_FORMALISM_INVARIANTS: break;
    case KD_FORMALISM_LAGRANGE: route.element = kd_lagrange_element; break;
    case KD_FORMALISM_KANE: route.element = kd_kane_element; break;
    case KD_FORMALISM_GIBBS_APPELL: route.element = kd_gibbs_appell_element; break;
    case KD_FORMALISM_HAMILTON:
        /* second-order form from the canonical data (kd_canonical_eqs) */
        route.element = kd_hamilton_element, route.canonical = kd_hamilton_canonical;
        break;
    case KD_FORMALISM_COUNT: break;
    }
    const kd_status st = kd_system_init_route(s, m, f == KD_FORMALISM_INVARIANTS ? NULL : &route, err);
    if (!st) s->formalism = f;
    return st;
}
