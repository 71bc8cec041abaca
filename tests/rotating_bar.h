/* The seed 001 rotating bar for the dynamics tests (dynamics_test.c, formalism_dynamics_test.c):
 * L = 1 m, A = 2e-5 m^2, rho = 50 000 kg/m^3 (1 kg), E = 210 GPa, spinning at W = 15 rad/s about
 * the z axis through its clamped end, the tip force F sin(nu t) (F = 10 N, nu = 200 rad/s); its
 * closed-form references: the centrifugal stretch of the tip and the tip response by the modal
 * series of the continuous bar. Include <cmocka.h> and test_util.h first. */
#ifndef KEDYN_TESTS_ROTATING_BAR_H
#define KEDYN_TESTS_ROTATING_BAR_H

#include <math.h>

#include "kedyn/analysis.h"

static const double BE = 210e9, BRHO = 50000, BA = 2e-5, BL = 1.0, BW = 15.0, BF = 10.0, BNU = 200.0;

/* nelem bar elements (theory: bar), the tip force of amplitude `force` */
static kd_model* rotating_bar(int nelem, double force) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_GENERIC, s.A = BA, s.Iy = s.Iz = 1e-11, s.J = 2e-11;
    kd_desc* d = one_beam(BE, BRHO, 0.3, s, BL, nelem, KD_THEORY_BAR, KD_INTERP_CUBIC, 1);
    fix(d, 1, 1u << KD_DOF_U);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1;
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPEED, md->motion.angle.value = BW;
    kd_load_desc* ld = kd_desc_add_load(d);
    ld->type = KD_LOAD_NODAL, ld->body = 0, ld->node = nelem + 1, ld->dof = KD_DOF_U;
    ld->value = kd_law_constant(0);
    ld->value.type = KD_LAW_SINE, ld->value.amplitude = force, ld->value.omega = BNU;
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* the tip's centrifugal stretch: u = -x + sin(kx) / (k cos kL) at x = L, k = W sqrt(rho / E) */
static double static_stretch_exact(void) {
    const double k = BW * sqrt(BRHO / BE);
    return -BL + tan(k * BL) / k;
}

/* Tip response to F sin(nu t) from the quasi-static state, by the modal series of the continuous
 * bar: eta_k'' + w_k^2 eta_k = phi_k(L) F sin(nu t) / m_k, phi_k = sin(b_k x), m_k = rho A L / 2,
 * eta(0) = eta'(0) = 0. */
static double tip_series(double t) {
    double u = 0;
    for (int k = 1; k <= 2000; k++) {
        const double b = (2 * k - 1) * PI / (2 * BL), w = sqrt(BE / BRHO * b * b - BW * BW);
        const double phiL = sin(b * BL), mk = BRHO * BA * BL / 2;
        u += phiL * phiL * BF / mk * (sin(BNU * t) - BNU / w * sin(w * t)) / (w * w - BNU * BNU);
    }
    return u;
}

#endif
