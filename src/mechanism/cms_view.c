/* The compiled mechanism as a constrained system for the forward solvers (kedyn/cms.h): its
 * constraints (constraints.c) and applied forces (forces.c) behind the kd_cms callbacks. */
#include <string.h>

#include "mechanism_internal.h"

static int cms_phi(void* ctx, double t, const double* q, double* phi) {
    kd_mech_phi(ctx, t, q, phi);
    return 0;
}
static int cms_jacobian(void* ctx, double t, const double* q, double* jac) {
    kd_mech_jacobian(ctx, t, q, jac);
    return 0;
}
static int cms_phi_t(void* ctx, double t, const double* q, double* phi_t) {
    kd_mech_phi_t(ctx, t, q, phi_t);
    return 0;
}
static int cms_gamma(void* ctx, double t, const double* q, const double* qd, double* gamma) {
    kd_mech_gamma(ctx, t, q, qd, gamma);
    return 0;
}
static int cms_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    kd_mech_force(ctx, t, q, qd, Q);
    return 0;
}

void kd_mech_cms(const kd_mech* m, kd_cms* cms) {
    memset(cms, 0, sizeof(*cms));
    cms->n = m->n;
    cms->nc = m->nc;
    cms->mass = m->mass;
    cms->jac_nnz = m->jac_nnz;
    cms->jac_rowptr = m->jac_rowptr;
    cms->jac_col = m->jac_col;
    cms->ctx = (void*)m;  /* callbacks only read it */
    cms->phi = cms_phi;
    cms->jacobian = cms_jacobian;
    cms->phi_t = cms_phi_t;
    cms->gamma = cms_gamma;
    cms->force = cms_force;
}
