/* Shared helpers of the library tests: models built in code and small
 * linear-algebra checks. Header-only (static inline functions) so that each test
 * executable stays self-contained. */
#ifndef KEDYN_TEST_UTIL_H
#define KEDYN_TEST_UTIL_H

#include <math.h>
#include <stdio.h>

#include "kedyn/kedyn.h"

#define PI 3.14159265358979323846

/* A description with one beam body `b` of material steel-like (E, rho, nu)
 * and the given section; no supports, no analyses. */
static inline kd_desc* one_beam(double E, double rho, double nu, kd_section_desc sec, double L, int nelem, kd_theory th,
                         kd_interp ip, int planar) {
    kd_desc* d = kd_desc_new();
    kd_material_desc* mat = kd_desc_add_material(d);
    snprintf(mat->name, sizeof(mat->name), "m");
    mat->E = E, mat->rho = rho, mat->nu = nu;
    kd_section_desc* s = kd_desc_add_section(d);
    *s = sec;
    snprintf(s->name, sizeof(s->name), "s");
    kd_body_desc* b = kd_desc_add_body(d);
    snprintf(b->name, sizeof(b->name), "b");
    b->type = KD_BODY_BEAM, b->material = 0, b->section = 0, b->length = L, b->elements = nelem;
    b->theory = th, b->interpolation = ip, b->planar = planar;
    return d;
}

static inline kd_section_desc circle(double dia) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_CIRCLE, s.d = dia;
    return s;
}

static inline void fix(kd_desc* d, int node, unsigned mask) {
    kd_support_desc* s = kd_desc_add_support(d);
    s->body = 0, s->node = node, s->fix = mask;
}

#define BIT(dof) (1u << (dof))

/* Compile and solve for `count` modes; aborts the test on failure. */
static inline kd_modes solve_modes(kd_desc* d, int count, kd_eigen_solver solver) {
    kd_error err;
    kd_model* m = NULL;
    kd_modes r = {0};
    if (kd_model_compile(d, &m, &err) != KD_OK) fail_msg("compile: %s", err.msg);
    if (kd_modes_solve(m, count, solver, &r, &err) != KD_OK) fail_msg("modes: %s", err.msg);
    kd_model_free(&m);
    return r;
}

static inline double rel_err(double x, double ref) { return fabs(x - ref) / fabs(ref); }

#endif
