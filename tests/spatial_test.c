/* Spatial rigid mechanisms (include/kedyn/smech.h) against references independent of the code:
 *   - every joint type and both driver kinds: Phi_q against central differences of Phi, gamma
 *     against the second difference of Phi along q + tau q' (t + tau), Phi_t against a difference
 *     in t;
 *   - orientation inputs: axis-angle, ZYX Euler and the quaternion round trip; inertia checks;
 *   - heavy symmetric (Lagrange) top: nutation limits from the roots of the cubic f(u), steady
 *     precession rate from the quadratic A W^2 cos(theta) - C w3 W + m g l = 0, conservation of
 *     energy and of both angular momenta (vertical, and about the symmetry axis);
 *   - torque-free body spun near its intermediate axis: the flip period 2 K(k) / lambda of the
 *     Jacobi elliptic solution of Euler's equations;
 *   - Bricard's orthogonal 6R linkage (the cube's skew hexagon): Grübler 0, mobility 1, one
 *     redundant row named, and its motion under gravity conserving energy;
 *   - RSSR four-bar and a spatial offset slider-crank, driven: output against the closed-form
 *     position, and the velocity against its derivative;
 *   - a 3D double pendulum: energy by every formulation, and the four formulations agreeing on
 *     the Bricard loop;
 *   - inverse dynamics: multipliers and projection give the same driving torque, which equals
 *     the power balance (drive * theta' = dT/dt + dV/dt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/mbs.h"
#include "kedyn/smech.h"
#include "test_util.h"

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double Z3[3] = {0, 0, 0};

static void diag_inertia(double a, double b, double c, double J[9]) {
    const double I6[6] = {a, b, c, 0, 0, 0};
    assert_int_equal(kd_inertia_tensor(I6, J), 0);
}

/* ---- finite-difference checks of every joint type ---------------------------------------- */

static kd_smech* all_joints(void) {
    kd_smech* m = kd_smech_new();
    double J[9], R[9];
    const double I6[6] = {0.3, 0.4, 0.5, 0.01, -0.02, 0.03};
    assert_int_equal(kd_inertia_tensor(I6, J), 0);
    const double axes[6][3] = {{1, 2, 3}, {0.3, -1, 0.2}, {-1, 0.5, 0.7}, {0.1, 0.2, -1}, {1, 1, 0}, {0, 1, 1}};
    for (int b = 0; b < 6; b++) {
        kd_rot_axis_angle(axes[b], 0.3 + 0.4 * b, R);
        const double com[3] = {0.05 * b, -0.02, 0.03}, org[3] = {0.1 * b, 0.2 - 0.05 * b, 0.01 * b * b};
        char name[16];
        snprintf(name, sizeof(name), "b%d", b);
        kd_smech_add_body(m, name, 1.0 + b, J, com, org, R);
    }
    const double P0[3] = {0.1, 0.2, -0.1}, P1[3] = {-0.05, 0.1, 0.2}, ax[3] = {0.2, -0.5, 1.0};
    int jid[KD_SJOINT_TYPES];
    for (int t = 0; t < KD_SJOINT_TYPES; t++) {
        const int b0 = t % 6, b1 = (t + 1) % 6;
        double ax2[3] = {0, 0, 1};
        if (t == KD_SJOINT_UNIVERSAL) {
            /* axis 2: in body 1's frame, orthogonal to axis 1 in the initial pose */
            double R0[9], R1[9], a0[3], v[3];
            kd_rot_from_quat(m->q0 + 7 * b0 + 3, R0);
            kd_rot_from_quat(m->q0 + 7 * b1 + 3, R1);
            for (int i = 0; i < 3; i++) a0[i] = R0[3 * i] * ax[0] + R0[3 * i + 1] * ax[1] + R0[3 * i + 2] * ax[2];
            const double e[3] = {1, 0, 0};
            v[0] = a0[1] * e[2] - a0[2] * e[1], v[1] = a0[2] * e[0] - a0[0] * e[2], v[2] = a0[0] * e[1] - a0[1] * e[0];
            for (int i = 0; i < 3; i++) ax2[i] = R1[i] * v[0] + R1[3 + i] * v[1] + R1[6 + i] * v[2];
        }
        jid[t] = kd_smech_add_joint(m, kd_sjoint_name(t), t, t == 8 ? -1 : b0, b1, P0, P1, ax, ax2, 0.0);
    }
    const kd_law w = kd_law_constant(0);
    kd_law sine = w;
    sine.type = KD_LAW_SINE, sine.amplitude = 0.3, sine.omega = 2.0, sine.phase = 0.4, sine.offset = 0.1;
    assert_true(kd_smech_add_driver(m, jid[KD_SJOINT_REVOLUTE], &sine, 0.2) >= 0);
    assert_true(kd_smech_add_driver(m, jid[KD_SJOINT_PRISMATIC], &sine, 0.05) >= 0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    return m;
}

static void test_fd_jacobian_gamma(void** state) {
    (void)state;
    kd_smech* m = all_joints();
    const int n = m->n, nc = m->nc;
    double *q = malloc(sizeof(double) * n), *qd = malloc(sizeof(double) * n), *qp = malloc(sizeof(double) * n);
    double *p0 = malloc(sizeof(double) * nc), *p1 = malloc(sizeof(double) * nc), *p2 = malloc(sizeof(double) * nc);
    double *gam = malloc(sizeof(double) * nc), *pt = malloc(sizeof(double) * nc);
    double* jac = malloc(sizeof(double) * m->jac_nnz);
    double* A = malloc(sizeof(double) * n * nc);
    for (int i = 0; i < n; i++) {
        q[i] = m->q0[i] + 0.01 * sin(1.7 * i);     /* off the unit sphere too: exact derivatives */
        qd[i] = 0.7 * cos(0.9 * i + 0.3);
    }
    const double t = 0.37;
    kd_smech_jacobian(m, t, q, jac);
    kd_smech_jac_dense(m, jac, nc, A, nc);
    double err_j = 0, scale_j = 0;
    const double h = 1e-6;
    for (int c = 0; c < n; c++) {
        memcpy(qp, q, sizeof(double) * n);
        qp[c] += h;
        kd_smech_phi(m, t, qp, p1);
        qp[c] -= 2 * h;
        kd_smech_phi(m, t, qp, p2);
        for (int r = 0; r < nc; r++) {
            const double fd = (p1[r] - p2[r]) / (2 * h);
            err_j = fmax(err_j, fabs(fd - A[(size_t)c * nc + r]));
            scale_j = fmax(scale_j, fabs(fd));
        }
    }
    printf("Jacobian: max |analytic - central difference| = %.3g (scale %.3g)\n", err_j, scale_j);
    assert_true(err_j < 1e-8 * scale_j);
    /* gamma = -d2/dtau2 Phi(q + tau q', t + tau) (q'' = 0) */
    const double hh = 1e-4;
    kd_smech_gamma(m, t, q, qd, gam);
    kd_smech_phi(m, t, q, p0);
    for (int i = 0; i < n; i++) qp[i] = q[i] + hh * qd[i];
    kd_smech_phi(m, t + hh, qp, p1);
    for (int i = 0; i < n; i++) qp[i] = q[i] - hh * qd[i];
    kd_smech_phi(m, t - hh, qp, p2);
    double err_g = 0, scale_g = 0;
    for (int r = 0; r < nc; r++) {
        const double fd = -(p1[r] - 2 * p0[r] + p2[r]) / (hh * hh);
        err_g = fmax(err_g, fabs(fd - gam[r]));
        scale_g = fmax(scale_g, fabs(fd));
    }
    printf("gamma: max |analytic - second difference| = %.3g (scale %.3g)\n", err_g, scale_g);
    assert_true(err_g < 1e-5 * scale_g);
    /* the joint and normalisation rows (no time dependence): gamma = -d(Phi_q q')/dq q', by a
     * central difference of Phi_q q' along q' */
    {
        double *jp = malloc(sizeof(double) * m->jac_nnz), *jm = malloc(sizeof(double) * m->jac_nnz);
        for (int i = 0; i < n; i++) qp[i] = q[i] + h * qd[i];
        kd_smech_jacobian(m, t, qp, jp);
        for (int i = 0; i < n; i++) qp[i] = q[i] - h * qd[i];
        kd_smech_jacobian(m, t, qp, jm);
        double err_v = 0;
        for (int r = 0; r < m->nc_mech; r++) {
            double a = 0;
            for (int k = m->jac_rowptr[r]; k < m->jac_rowptr[r + 1]; k++) a += (jp[k] - jm[k]) * qd[m->jac_col[k]];
            err_v = fmax(err_v, fabs(-a / (2 * h) - gam[r]));
        }
        printf("gamma of the joint rows: max |analytic + d(Phi_q q')/dq q'| = %.3g\n", err_v);
        assert_true(err_v < 1e-7 * scale_g);
        free(jp), free(jm);
    }
    /* Phi_t */
    kd_smech_phi_t(m, t, q, pt);
    kd_smech_phi(m, t + h, q, p1);
    kd_smech_phi(m, t - h, q, p2);
    for (int r = 0; r < nc; r++) assert_true(fabs((p1[r] - p2[r]) / (2 * h) - pt[r]) < 1e-7);
    free(q), free(qd), free(qp), free(p0), free(p1), free(p2), free(gam), free(pt), free(jac), free(A);
    kd_smech_free(&m);
}

static void test_orientation_inertia(void** state) {
    (void)state;
    double R[9], R2[9], p[4];
    const double ax[3] = {1, 2, 2};
    kd_rot_axis_angle(ax, 0.8, R);
    assert_int_equal(kd_rot_check(R, 1e-12), 0);
    kd_quat_from_rot(R, p);
    /* e0 = cos(angle / 2), e = n sin(angle / 2) */
    assert_true(fabs(p[0] - cos(0.4)) < 1e-14);
    assert_true(fabs(p[1] - sin(0.4) / 3.0) < 1e-14 && fabs(p[3] - 2 * sin(0.4) / 3.0) < 1e-14);
    kd_rot_from_quat(p, R2);
    for (int i = 0; i < 9; i++) assert_true(fabs(R[i] - R2[i]) < 1e-14);
    /* ZYX: the image of e_x is (cos a cos b, sin a cos b, -sin b) */
    const double abc[3] = {0.3, -0.4, 1.1};
    kd_rot_euler_zyx(abc, R);
    assert_true(fabs(R[0] - cos(0.3) * cos(-0.4)) < 1e-15 && fabs(R[6] - sin(0.4)) < 1e-15);
    assert_int_equal(kd_rot_check(R, 1e-12), 0);
    const double bad[9] = {1, 0, 0, 0, 1, 0.1, 0, 0, 1};
    assert_int_equal(kd_rot_check(bad, 1e-6), 1);
    const double refl[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1};
    assert_int_equal(kd_rot_check(refl, 1e-6), 1);
    double J[9];
    const double ok[6] = {1, 2, 2.5, 0.1, 0, 0}, notpd[6] = {1, 1, 1, 2, 0, 0}, tri[6] = {1, 1, 3, 0, 0, 0};
    assert_int_equal(kd_inertia_tensor(ok, J), 0);
    assert_int_equal(kd_inertia_tensor(notpd, J), 1);
    assert_int_equal(kd_inertia_tensor(tri, J), 2);
}

/* ---- heavy symmetric top ----------------------------------------------------------------- */

typedef struct top_rec {
    const kd_smech* m;
    double umin, umax, E0, Lz0, L30, dE, dLz, dL3;
    double k_end[3];
    double Ac, C, mass, l;
} top_rec;

static void top_moments(const top_rec* r, const double* q, const double* qd, double* E, double* Lz, double* L3) {
    const kd_smech* m = r->m;
    double R[9], w[3];
    kd_rot_from_quat(q + 3, R);
    kd_smech_omega(m, 0, q, qd, w);
    *E = kd_smech_kinetic(m, q, qd) + kd_smech_potential(m, q);
    /* L about the pivot = R J_c R^T w + m r_c x v_c */
    double wb[3], Lb[3], L[3];
    for (int i = 0; i < 3; i++) wb[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
    const double* J = m->J;
    for (int i = 0; i < 3; i++) Lb[i] = J[3 * i] * wb[0] + J[3 * i + 1] * wb[1] + J[3 * i + 2] * wb[2];
    for (int i = 0; i < 3; i++) L[i] = R[3 * i] * Lb[0] + R[3 * i + 1] * Lb[1] + R[3 * i + 2] * Lb[2];
    const double *rc = q, *vc = qd;
    L[2] += m->mass[0] * (rc[0] * vc[1] - rc[1] * vc[0]);
    *Lz = L[2];
    *L3 = Lb[2];  /* C w3: the body z axis is the symmetry axis through the pivot */
}

static int top_out(void* ctx, const kd_mbs_sample* s) {
    top_rec* r = ctx;
    double R[9];
    kd_rot_from_quat(s->q + 3, R);
    const double u = R[8];  /* cos(theta): z component of the symmetry axis */
    r->umin = fmin(r->umin, u), r->umax = fmax(r->umax, u);
    double E, Lz, L3;
    top_moments(r, s->q, s->qd, &E, &Lz, &L3);
    if (s->t == 0) r->E0 = E, r->Lz0 = Lz, r->L30 = L3;
    r->dE = fmax(r->dE, fabs(E - r->E0)), r->dLz = fmax(r->dLz, fabs(Lz - r->Lz0));
    r->dL3 = fmax(r->dL3, fabs(L3 - r->L30));
    for (int i = 0; i < 3; i++) r->k_end[i] = R[3 * i + 2];
    return 0;
}

/* A top: pivot at the origin, centre of mass at l on the body z axis, tilted by theta0 about y,
 * angular velocity W z + (w3 - W cos theta0) k. */
static kd_smech* make_top(top_rec* r, double theta0, double w3, double W) {
    kd_smech* m = kd_smech_new();
    double J[9], R[9];
    diag_inertia(r->Ac, r->Ac, r->C, J);
    const double y[3] = {0, 1, 0}, com[3] = {0, 0, r->l};
    kd_rot_axis_angle(y, theta0, R);
    kd_smech_add_body(m, "top", r->mass, J, com, Z3, R);
    kd_smech_add_joint(m, "O", KD_SJOINT_SPHERICAL, -1, 0, Z3, Z3, NULL, NULL, 0);
    m->g[2] = -9.81;
    const double k[3] = {sin(theta0), 0, cos(theta0)}, psid = w3 - W * cos(theta0);
    const double w[3] = {psid * k[0], psid * k[1], W + psid * k[2]};
    const double rc[3] = {r->l * k[0], 0, r->l * k[2]};
    const double v[3] = {w[1] * rc[2] - w[2] * rc[1], w[2] * rc[0] - w[0] * rc[2], w[0] * rc[1] - w[1] * rc[0]};
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    kd_smech_set_velocity(m, 0, v, w);
    r->m = m, r->umin = 2, r->umax = -2, r->dE = r->dLz = r->dL3 = 0;
    return m;
}

static void test_heavy_top(void** state) {
    (void)state;
    top_rec r = {.Ac = 0.002, .C = 0.004, .mass = 1.0, .l = 0.1};
    const double A = r.Ac + r.mass * r.l * r.l, g = 9.81, theta0 = 0.5, w3 = 150.0;
    /* released with theta' = phi' = 0: roots of the cubic (u0 - u)[beta (1 - u^2) - a^2 (u0 - u)] */
    kd_smech* m = make_top(&r, theta0, w3, 0.0);
    const double a = r.C * w3 / A, beta = 2 * r.mass * g * r.l / A, u0 = cos(theta0);
    const double u1 = (a * a - sqrt(a * a * a * a - 4 * beta * a * a * u0 + 4 * beta * beta)) / (2 * beta);
    kd_cms cms;
    kd_smech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.t_end = 0.3, o.dt = 5e-5, o.stabilization = KD_MBS_STAB_PROJECTION;
    kd_error err;
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, top_out, &r, NULL, &err), KD_OK);
    printf("top: u in [%.8f, %.8f], cubic roots [%.8f, %.8f]; |dE| %.3g J, |dLz| %.3g, |dL3| %.3g\n", r.umin, r.umax,
           u1, u0, r.dE, r.dLz, r.dL3);
    assert_true(fabs(r.umin - u1) < 2e-5);
    assert_true(fabs(r.umax - u0) < 1e-8);
    assert_true(r.dE < 1e-7 * r.E0 + 1e-9 && r.dLz < 1e-8 && r.dL3 < 1e-8);
    kd_smech_free(&m);
    /* steady precession: A W^2 cos(theta) - C w3 W + m g l = 0, slow root */
    const double ct = cos(theta0);
    const double W = (r.C * w3 - sqrt(r.C * r.C * w3 * w3 - 4 * A * ct * r.mass * g * r.l)) / (2 * A * ct);
    m = make_top(&r, theta0, w3, W);
    kd_smech_cms(m, &cms);
    o.t_end = 0.5;
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, top_out, &r, NULL, &err), KD_OK);
    const double phi_end = atan2(r.k_end[1], r.k_end[0]);
    printf("steady precession: W = %.6f rad/s; azimuth after 0.5 s %.8f (W t = %.8f), u in [%.9f, %.9f]\n", W, phi_end,
           W * 0.5, r.umin, r.umax);
    assert_true(fabs(phi_end - W * 0.5) < 1e-5);
    assert_true(r.umax - r.umin < 1e-6);
    kd_smech_free(&m);
}

/* ---- torque-free flip about the intermediate axis ---------------------------------------- */

static double ellip_K(double k) {
    double a = 1, b = sqrt(1 - k * k);
    for (int i = 0; i < 60; i++) {
        const double an = 0.5 * (a + b);
        b = sqrt(a * b), a = an;
    }
    return PI / (2 * a);
}

typedef struct flip_rec {
    const kd_smech* m;
    double prev_w2, prev_t;
    int ncross;
    double cross[64];
} flip_rec;

static int flip_out(void* ctx, const kd_mbs_sample* s) {
    flip_rec* r = ctx;
    double G[3][4];
    const double *p = s->q + 3, *pd = s->qd + 3;
    const double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
    const double g[3][4] = {{-e1, e0, e3, -e2}, {-e2, -e3, e0, e1}, {-e3, e2, -e1, e0}};
    memcpy(G, g, sizeof(g));
    const double w2 = 2 * (G[1][0] * pd[0] + G[1][1] * pd[1] + G[1][2] * pd[2] + G[1][3] * pd[3]);
    if (s->t > 0 && (w2 > 0) != (r->prev_w2 > 0) && r->ncross < 64)
        r->cross[r->ncross++] = r->prev_t + (s->t - r->prev_t) * r->prev_w2 / (r->prev_w2 - w2);
    r->prev_w2 = w2, r->prev_t = s->t;
    return 0;
}

static void test_dzhanibekov(void** state) {
    (void)state;
    const double I1 = 0.01, I2 = 0.02, I3v = 0.03;
    double J[9];
    diag_inertia(I1, I2, I3v, J);
    kd_smech* m = kd_smech_new();
    kd_smech_add_body(m, "nut", 0.5, J, Z3, Z3, I3);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    const double wb[3] = {0.02, 4.0, 0.05};  /* body = global axes at t = 0 */
    kd_smech_set_velocity(m, 0, Z3, wb);
    const double E2 = I1 * wb[0] * wb[0] + I2 * wb[1] * wb[1] + I3v * wb[2] * wb[2];  /* 2 T */
    const double L2 = I1 * I1 * wb[0] * wb[0] + I2 * I2 * wb[1] * wb[1] + I3v * I3v * wb[2] * wb[2];
    /* Landau-Lifshitz sec. 37 for L^2 > 2 T I2 (else exchange I1 and I3) */
    double a1 = I1, a3 = I3v;
    if (L2 < E2 * I2) a1 = I3v, a3 = I1;
    const double lam = sqrt((a3 - I2) * (L2 - E2 * a1) / (a1 * I2 * a3));
    const double k2 = (I2 - a1) * (E2 * a3 - L2) / ((a3 - I2) * (L2 - E2 * a1));
    const double half = 2 * ellip_K(sqrt(k2)) / lam;
    flip_rec r = {.m = m};
    kd_cms cms;
    kd_smech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.t_end = 3.2 * half, o.dt = 2e-4;
    o.stabilization = KD_MBS_STAB_PROJECTION;
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, flip_out, &r, NULL, &err), KD_OK);
    assert_true(r.ncross >= 3);
    const double measured = (r.cross[r.ncross - 1] - r.cross[0]) / (r.ncross - 1);
    printf("flip: half period 2K/lambda = %.6f s (k^2 = %.6f), measured %.6f s over %d flips\n", half, k2, measured,
           r.ncross - 1);
    assert_true(fabs(measured - half) < 1e-4 * half);
    kd_smech_free(&m);
}

/* ---- Bricard's orthogonal linkage on the cube's skew hexagon ------------------------------ */

static kd_smech* bricard(void) {
    const double a = 0.2;
    const double V[6][3] = {{0, 0, 0}, {a, 0, 0}, {a, a, 0}, {a, a, a}, {0, a, a}, {0, 0, a}};
    /* joint at vertex i: axis normal to its two edges */
    const double ax[6][3] = {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}};
    kd_smech* m = kd_smech_new();
    for (int l = 1; l <= 5; l++) {
        /* link l from V[l] to V[l+1]: a rod of 1 kg along its edge, frame at its middle */
        const double* A = V[l];
        const double* B = V[(l + 1) % 6];
        double mid[3], d[3], J[9];
        for (int i = 0; i < 3; i++) mid[i] = 0.5 * (A[i] + B[i]), d[i] = fabs(B[i] - A[i]) / a;
        const double It = a * a / 12, Ia = 1e-4;
        diag_inertia(d[0] > 0.5 ? Ia : It, d[1] > 0.5 ? Ia : It, d[2] > 0.5 ? Ia : It, J);
        char name[16];
        snprintf(name, sizeof(name), "L%d", l);
        kd_smech_add_body(m, name, 1.0, J, Z3, mid, I3);
    }
    for (int v = 0; v < 6; v++) {
        /* the link ending at V[v] is body v - 2 (link v - 1; link 0 is ground), the one starting there v - 1 */
        const int b0 = v == 1 ? -1 : (v == 0 ? 4 : v - 2), b1 = v == 0 ? -1 : v - 1;
        double P0[3], P1[3];
        for (int i = 0; i < 3; i++) {
            P0[i] = V[v][i] - (b0 < 0 ? 0 : m->q0[7 * b0 + i]);
            P1[i] = V[v][i] - (b1 < 0 ? 0 : m->q0[7 * b1 + i]);
        }
        char name[16];
        snprintf(name, sizeof(name), "R%d", v);
        kd_smech_add_joint(m, name, KD_SJOINT_REVOLUTE, b0, b1, P0, P1, ax[v], NULL, 0);
    }
    m->g[2] = -9.81;
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    return m;
}

static void test_bricard_mobility(void** state) {
    (void)state;
    kd_smech* m = bricard();
    kd_smech_mobility mob;
    kd_error err;
    assert_int_equal(kd_smech_mobility_at(m, 0, m->q0, &mob, &err), KD_OK);
    char names[256];
    kd_smech_redundant_names(m, &mob, names, sizeof(names));
    printf("Bricard: gruebler %d, dof %d, redundant %d: %s\n", mob.gruebler, mob.dof, mob.nredundant, names);
    assert_int_equal(mob.gruebler, 0);
    assert_int_equal(mob.dof, 1);
    assert_int_equal(mob.nredundant, 1);
    /* an away-from-the-start configuration keeps mobility 1: move it along its motion first */
    kd_smech_free(&m);
}

typedef struct energy_rec {
    const kd_smech* m;
    double E0, dE, drift;
    double* q_end;
} energy_rec;

static int energy_out(void* ctx, const kd_mbs_sample* s) {
    energy_rec* r = ctx;
    const double E = kd_smech_kinetic(r->m, s->q, s->qd) + kd_smech_potential(r->m, s->q);
    if (s->t == 0) r->E0 = E;
    r->dE = fmax(r->dE, fabs(E - r->E0));
    r->drift = fmax(r->drift, s->drift_pos);
    if (r->q_end) memcpy(r->q_end, s->q, sizeof(double) * r->m->n);
    return 0;
}

/* Bricard under gravity, started with a velocity along its one motion: Udwadia-Kalaba (the
 * formulation that takes the redundant row) conserves T + V; augmented refuses the redundancy. */
static void test_bricard_dynamics(void** state) {
    (void)state;
    kd_smech* m = bricard();
    const int n = m->n;
    for (int i = 0; i < n; i++) m->qd0[i] = 0.3 * sin(1.3 * i + 0.2);
    kd_error err;
    assert_int_equal(kd_smech_solve_velocity(m, 0, m->q0, m->qd0, 1, &err), KD_OK);
    double vmax = 0;
    for (int i = 0; i < n; i++) vmax = fmax(vmax, fabs(m->qd0[i]));
    assert_true(vmax > 1e-3);
    kd_cms cms;
    kd_smech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = KD_MBS_UDWADIA_KALABA;
    o.t_end = 1.0, o.dt = 5e-4;
    o.stabilization = KD_MBS_STAB_PROJECTION;
    double qend[64];
    energy_rec r = {.m = m, .q_end = qend};
    kd_mbs_stats st;
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, energy_out, &r, &st, &err), KD_OK);
    double moved = 0;
    for (int i = 0; i < n; i++) moved = fmax(moved, fabs(qend[i] - m->q0[i]));
    printf("Bricard udwadia-kalaba: |dE| = %.3g J (E0 %.4f J), drift %.3g, dof %d, redundant %d, moved %.3g\n", r.dE,
           r.E0, r.drift, st.dof, st.redundant, moved);
    assert_true(r.dE < 1e-6);  /* rk4: 5.7e-6 J at dt = 1e-3, 3.6e-7 J at 5e-4 (fourth order) */
    assert_true(moved > 0.5);
    assert_int_equal(st.redundant, 1);
    /* still mobility 1 where it went */
    kd_smech_mobility mob;
    assert_int_equal(kd_smech_mobility_at(m, 0, qend, &mob, &err), KD_OK);
    assert_int_equal(mob.dof, 1);
    o.formulation = KD_MBS_AUGMENTED;
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, energy_out, &r, &st, &err), KD_ERR_NUMERIC);
    assert_non_null(strstr(err.msg, "redundant"));
    kd_smech_free(&m);
}

/* ---- 3D double pendulum ----------------------------------------------------------------- */

static void test_double_pendulum(void** state) {
    (void)state;
    kd_smech* m = kd_smech_new();
    double J[9];
    const double I6[6] = {0.02, 0.03, 0.015, 0.002, 0.001, -0.003};
    assert_int_equal(kd_inertia_tensor(I6, J), 0);
    const double c1[3] = {0.2, 0, 0}, c2[3] = {0, 0.15, 0.05}, o1[3] = {0, 0, 0}, o2[3] = {0.4, 0, 0};
    double R[9];
    const double ax[3] = {1, 1, 0};
    kd_rot_axis_angle(ax, 0.7, R);
    kd_smech_add_body(m, "a", 1.2, J, c1, o1, I3);
    kd_smech_add_body(m, "b", 0.8, J, c2, o2, R);
    kd_smech_add_joint(m, "O", KD_SJOINT_SPHERICAL, -1, 0, Z3, Z3, NULL, NULL, 0);
    const double pa[3] = {0.4, 0, 0};
    kd_smech_add_joint(m, "A", KD_SJOINT_SPHERICAL, 0, 1, pa, Z3, NULL, NULL, 0);
    m->g[2] = -9.81;
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    const double w1[3] = {0.5, 2.0, 1.0}, w2[3] = {-3, 1, 2}, v0[3] = {0, 0, 0};
    kd_smech_set_velocity(m, 0, v0, w1);
    kd_smech_set_velocity(m, 1, v0, w2);
    kd_smech_solve_velocity(m, 0, m->q0, m->qd0, 1, &err);
    kd_cms cms;
    kd_smech_cms(m, &cms);
    const kd_mbs_formulation fs[4] = {KD_MBS_AUGMENTED, KD_MBS_UDWADIA_KALABA, KD_MBS_MAGGI, KD_MBS_IDA};
    for (int k = 0; k < 4; k++) {
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        o.formulation = fs[k], o.t_end = 1.0, o.dt = 5e-4, o.rtol = 1e-10, o.atol = 1e-12;
        o.stabilization = KD_MBS_STAB_PROJECTION;
        energy_rec r = {.m = m};
        assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, energy_out, &r, NULL, &err), KD_OK);
        printf("double pendulum %s: |dE| = %.3g J of E0 = %.4f J\n", kd_mbs_formulation_name(fs[k]), r.dE, r.E0);
        assert_true(r.dE < (fs[k] == KD_MBS_IDA ? 1e-5 : fs[k] == KD_MBS_MAGGI ? 1e-6 : 1e-8));
    }
    kd_smech_free(&m);
}

/* ---- RSSR and spatial slider-crank against closed forms ---------------------------------- */

typedef struct kin_rec {
    const kd_smech* m;
    int kind;                     /* 0 RSSR, 1 slider-crank */
    double r1, d, h, r3, L, e, w, th0;
    double err_pos, err_vel, psi_prev;
    int n;
} kin_rec;

static int kin_sink(void* ctx, double t, const double* q, const double* qd, const double* qdd,
                    const kd_smech_info* info) {
    (void)qdd, (void)info;
    kin_rec* r = ctx;
    const double th = r->th0 + r->w * t, thd = r->w;
    if (r->kind == 0) {
        /* rocker angle psi about +y: C = D + r3 (cos psi, 0, -sin psi); P cos psi + S sin psi = T */
        double C[3], V[3];
        const double s[3] = {r->r3 - r->r3 / 2, 0, 0};  /* point C from the rocker's centre of mass */
        kd_smech_point(r->m, 1, s, q, qd, C, V);
        const double psi = atan2(-(C[2] - r->h), C[0] - r->d);
        const double c = r->r1 * cos(th) - r->d;
        const double P = -2 * r->r3 * c, S = -2 * r->h * r->r3;
        const double T = r->L * r->L - c * c - pow(r->r1 * sin(th), 2) - r->h * r->h - r->r3 * r->r3;
        const double base = atan2(S, P), dl = acos(T / sqrt(P * P + S * S));
        double best = 1e9, pc = 0;
        for (int sg = -1; sg <= 1; sg += 2) {
            const double cand = remainder(base + sg * dl - psi, 2 * PI);
            if (fabs(cand) < best) best = fabs(cand), pc = psi + cand;
        }
        r->err_pos = fmax(r->err_pos, best);
        /* psi' from differentiating P cos psi + S sin psi = T: (S cos psi - P sin psi) psi' = T' - P' cos psi */
        const double cd = -r->r1 * sin(th) * thd;
        const double Pd = -2 * r->r3 * cd, Td = -2 * c * cd - 2 * r->r1 * r->r1 * sin(th) * cos(th) * thd;
        const double psid = (Td - Pd * cos(pc)) / (S * cos(pc) - P * sin(pc));
        /* measured psi' from the point velocity: V = r3 psi' (-sin psi, 0, -cos psi) */
        const double psid_m = -(V[0] * sin(psi) + V[2] * cos(psi)) / r->r3;
        r->err_vel = fmax(r->err_vel, fabs(psid - psid_m));
    } else {
        /* slider on the line (s, e, h): s = r cos th + sqrt(L^2 - h^2 - (e - r sin th)^2) */
        const double y = r->e - r->r1 * sin(th);
        const double sq = sqrt(r->L * r->L - r->h * r->h - y * y);
        const double s = r->r1 * cos(th) + sq;
        const double sd = -r->r1 * sin(th) * thd + y * r->r1 * cos(th) * thd / sq;
        r->err_pos = fmax(r->err_pos, fabs(q[7] - s));
        r->err_vel = fmax(r->err_vel, fabs(qd[7] - sd));
    }
    r->n++;
    return 0;
}

static void test_rssr(void** state) {
    (void)state;
    kin_rec r = {.kind = 0, .r1 = 0.1, .d = 0.3, .h = 0.1, .r3 = 0.2, .w = 2.0, .th0 = 0.0};
    kd_smech* m = kd_smech_new();
    double J[9];
    diag_inertia(1e-4, 1e-3, 1e-3, J);
    const double psi0 = 0.3, yax[3] = {0, 1, 0}, zax[3] = {0, 0, 1};
    double R[9];
    kd_rot_axis_angle(yax, psi0, R);
    const double ccom[3] = {r.r1 / 2, 0, 0}, rcom[3] = {r.r3 / 2, 0, 0}, D[3] = {r.d, 0, r.h};
    kd_smech_add_body(m, "crank", 0.2, J, ccom, Z3, I3);
    kd_smech_add_body(m, "rocker", 0.4, J, rcom, D, R);
    const int jA = kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, zax, NULL, 0);
    kd_smech_add_joint(m, "D", KD_SJOINT_REVOLUTE, -1, 1, D, Z3, yax, NULL, 0);
    const double B[3] = {r.r1, 0, 0}, C[3] = {r.r3, 0, 0};
    kd_smech_add_joint(m, "BC", KD_SJOINT_DISTANCE, 0, 1, B, C, NULL, NULL, 0);
    const kd_law law = {.type = KD_LAW_SPEED, .value = r.w};
    kd_smech_add_driver(m, jA, &law, 0.0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    r.L = m->joint[2].length;
    r.m = m;
    kd_smech_mobility mob;
    assert_int_equal(kd_smech_mobility_at(m, 0, m->q0, &mob, &err), KD_OK);
    assert_int_equal(mob.gruebler, 1);
    assert_int_equal(mob.dof, 1);
    assert_int_equal(mob.dof_undriven, 0);
    double cmax;
    kd_status st = kd_smech_kinematics(m, PI, 200, 1e8, kin_sink, &r, &cmax, &err);
    if (st) printf("%s\n", err.msg);
    assert_int_equal(st, KD_OK);
    printf("RSSR: one crank turn in %d steps: max |psi - closed form| %.3g rad, |psi' - closed form| %.3g rad/s\n", r.n,
           r.err_pos, r.err_vel);
    assert_true(r.err_pos < 1e-9 && r.err_vel < 1e-8);
    kd_smech_free(&m);
}

/* An RSSR whose crank is too long to turn fully: the rocker meets a limit position where the
 * loop closes only with Phi_q singular. The kinematic analysis stops there (exit 3 from a model
 * file) at the crank angle where the closed form P cos psi + S sin psi = T loses its solution,
 * |T| = sqrt(P^2 + S^2). */
static void test_rssr_limit(void** state) {
    (void)state;
    kin_rec r = {.kind = 0, .r1 = 0.1, .d = 0.3, .h = 0.1, .r3 = 0.2, .w = 1.0, .th0 = 0.0};
    kd_smech* m = kd_smech_new();
    double J[9];
    diag_inertia(1e-4, 1e-3, 1e-3, J);
    const double psi0 = 0.3, yax[3] = {0, 1, 0}, zax[3] = {0, 0, 1};
    double R[9];
    kd_rot_axis_angle(yax, psi0, R);
    const double ccom[3] = {r.r1 / 2, 0, 0}, rcom[3] = {r.r3 / 2, 0, 0}, D[3] = {r.d, 0, r.h};
    kd_smech_add_body(m, "crank", 0.2, J, ccom, Z3, I3);
    kd_smech_add_body(m, "rocker", 0.4, J, rcom, D, R);
    const int jA = kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, zax, NULL, 0);
    kd_smech_add_joint(m, "D", KD_SJOINT_REVOLUTE, -1, 1, D, Z3, yax, NULL, 0);
    const double B[3] = {r.r1, 0, 0}, C[3] = {r.r3, 0, 0};
    /* a coupler of 0.15 m: at crank angle pi the points are at least 0.212 m apart */
    kd_smech_add_joint(m, "BC", KD_SJOINT_DISTANCE, 0, 1, B, C, NULL, NULL, 0.15);
    const kd_law law = {.type = KD_LAW_SPEED, .value = r.w};
    kd_smech_add_driver(m, jA, &law, 0.0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    r.L = 0.15, r.m = m;
    /* the closed form's limit: the first crank angle with |T| = sqrt(P^2 + S^2) */
    double th_lim = -1;
    for (double th = 0; th < 2 * PI && th_lim < 0; th += 1e-6) {
        const double c = r.r1 * cos(th) - r.d, P = -2 * r.r3 * c, S = -2 * r.h * r.r3;
        const double T = r.L * r.L - c * c - pow(r.r1 * sin(th), 2) - r.h * r.h - r.r3 * r.r3;
        if (fabs(T) >= sqrt(P * P + S * S)) th_lim = th;
    }
    assert_true(th_lim > 0);
    double q[14];
    memcpy(q, m->q0, sizeof(q));
    assert_int_equal(kd_smech_solve_position(m, 0, q, NULL, &err), KD_OK);
    memcpy(m->q0, q, sizeof(q));
    double cmax;
    const int steps = 2000;
    kd_status st = kd_smech_kinematics(m, 2 * PI, steps, 1e6, kin_sink, &r, &cmax, &err);
    assert_int_equal(st, KD_ERR_NUMERIC);
    const double t_stop = 2 * PI * r.n / steps;  /* first time not solved */
    printf("RSSR limit: closed form at crank angle %.5f rad; analysis stopped at %.5f rad (cond %.3g): %s\n", th_lim,
           t_stop, cmax, err.msg);
    assert_true(fabs(t_stop - th_lim) < 0.02);
    assert_non_null(strstr(err.msg, "singular position between"));
    assert_true(r.err_pos < 1e-8);  /* the positions it did solve are the closed form's */
    kd_smech_free(&m);
}

static void test_slider_crank(void** state) {
    (void)state;
    kin_rec r = {.kind = 1, .r1 = 0.05, .L = 0.2, .e = 0.03, .h = 0.04, .w = 3.0, .th0 = 0.0};
    kd_smech* m = kd_smech_new();
    double J[9];
    diag_inertia(1e-4, 1e-3, 1e-3, J);
    const double zax[3] = {0, 0, 1}, xax[3] = {1, 0, 0};
    const double s0 = r.r1 + sqrt(r.L * r.L - r.h * r.h - r.e * r.e);
    const double S[3] = {s0, r.e, r.h};
    kd_smech_add_body(m, "crank", 0.2, J, Z3, Z3, I3);
    kd_smech_add_body(m, "slider", 0.5, J, Z3, S, I3);
    const int jA = kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, zax, NULL, 0);
    const double B[3] = {r.r1, 0, 0};
    kd_smech_add_joint(m, "rod", KD_SJOINT_DISTANCE, 0, 1, B, Z3, NULL, NULL, r.L);
    kd_smech_add_joint(m, "guide", KD_SJOINT_PRISMATIC, -1, 1, S, Z3, xax, NULL, 0);
    const kd_law law = {.type = KD_LAW_SPEED, .value = r.w};
    kd_smech_add_driver(m, jA, &law, 0.0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    r.m = m;
    double cmax;
    kd_status st = kd_smech_kinematics(m, 2 * PI / r.w, 240, 1e8, kin_sink, &r, &cmax, &err);
    if (st) printf("%s\n", err.msg);
    assert_int_equal(st, KD_OK);
    printf("slider-crank: max |s - closed form| %.3g m, |s' - closed form| %.3g m/s\n", r.err_pos, r.err_vel);
    assert_true(r.err_pos < 1e-10 && r.err_vel < 1e-9);
    /* inverse dynamics: both routes, and the power balance drive * theta' = d(T + V)/dt */
    m->g[2] = -9.81;
    double q[14], qd[14], qdd[14], qdd2[14];
    memcpy(q, m->q0, sizeof(q));
    const double t = 0.4;
    assert_int_equal(kd_smech_solve_position(m, t, q, NULL, &err), KD_OK);
    memset(qd, 0, sizeof(qd));
    assert_int_equal(kd_smech_solve_velocity(m, t, q, qd, 0, &err), KD_OK);
    assert_int_equal(kd_smech_solve_acceleration(m, t, q, qd, qdd, &err), KD_OK);
    kd_smech_reactions ra, rb;
    assert_int_equal(kd_smech_reactions_alloc(m, &ra), KD_OK);
    assert_int_equal(kd_smech_reactions_alloc(m, &rb), KD_OK);
    assert_int_equal(kd_smech_inverse_multipliers(m, t, q, qd, qdd2, &ra, &err), KD_OK);
    assert_int_equal(kd_smech_inverse_projection(m, t, q, qd, qdd, &rb, &err), KD_OK);
    /* dE/dt by a central difference of T + V along the driven motion */
    const double h = 1e-5;
    double E[2];
    for (int k = 0; k < 2; k++) {
        double qq[14], vv[14];
        memcpy(qq, q, sizeof(qq));
        const double tt = t + (k ? h : -h);
        kd_smech_solve_position(m, tt, qq, NULL, &err);
        memset(vv, 0, sizeof(vv));
        kd_smech_solve_velocity(m, tt, qq, vv, 0, &err);
        E[k] = kd_smech_kinetic(m, qq, vv) + kd_smech_potential(m, qq);
    }
    const double power = (E[1] - E[0]) / (2 * h);
    printf("slider-crank drive: multipliers %.9f N m, projection %.9f N m, power balance %.9f N m\n", ra.drive[0],
           rb.drive[0], power / r.w);
    assert_true(fabs(ra.drive[0] - rb.drive[0]) < 1e-9 * (1 + fabs(ra.drive[0])));
    assert_true(fabs(ra.drive[0] - power / r.w) < 1e-6 * (1 + fabs(ra.drive[0])));
    for (int k = 0; k < 6 * m->njoint; k++) assert_true(fabs(ra.F[k] - rb.F[k]) < 1e-7 * (1 + fabs(ra.F[k])));
    /* the rod (a two-force member: distance joint) pushes the slider along its line */
    kd_smech_reactions_free(&ra), kd_smech_reactions_free(&rb);
    kd_smech_free(&m);
}

/* The RSSR loop left free under gravity (mobility 1, no redundant row): the four formulations give
 * the same motion, to the accuracy of their integrators, and conserve T + V. */
static void test_rssr_formulations(void** state) {
    (void)state;
    kd_smech* m = kd_smech_new();
    double J[9];
    diag_inertia(1e-4, 1e-3, 1e-3, J);
    const double yax[3] = {0, 1, 0}, zax[3] = {0, 0, 1};
    double R[9];
    kd_rot_axis_angle(yax, 0.3, R);
    const double ccom[3] = {0.05, 0, 0}, rcom[3] = {0.1, 0, 0}, D[3] = {0.3, 0, 0.1};
    kd_smech_add_body(m, "crank", 0.2, J, ccom, Z3, I3);
    kd_smech_add_body(m, "rocker", 0.4, J, rcom, D, R);
    kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, zax, NULL, 0);
    kd_smech_add_joint(m, "D", KD_SJOINT_REVOLUTE, -1, 1, D, Z3, yax, NULL, 0);
    const double B[3] = {0.1, 0, 0}, C[3] = {0.2, 0, 0};
    kd_smech_add_joint(m, "BC", KD_SJOINT_DISTANCE, 0, 1, B, C, NULL, NULL, 0);
    m->g[0] = 3.0, m->g[2] = -9.81;
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    const double w0[3] = {0, 0, 6.0};
    kd_smech_set_velocity(m, 0, Z3, w0);
    assert_int_equal(kd_smech_solve_velocity(m, 0, m->q0, m->qd0, 1, &err), KD_OK);
    kd_cms cms;
    kd_smech_cms(m, &cms);
    const kd_mbs_formulation fs[4] = {KD_MBS_AUGMENTED, KD_MBS_UDWADIA_KALABA, KD_MBS_MAGGI, KD_MBS_IDA};
    double qend[4][14];
    for (int k = 0; k < 4; k++) {
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        o.formulation = fs[k], o.t_end = 1.0, o.dt = 5e-4, o.rtol = 1e-11, o.atol = 1e-13;
        o.stabilization = KD_MBS_STAB_PROJECTION;
        energy_rec r = {.m = m, .q_end = qend[k]};
        kd_status st = kd_mbs_forward(&cms, &o, m->q0, m->qd0, energy_out, &r, NULL, &err);
        if (st) printf("%s\n", err.msg);
        assert_int_equal(st, KD_OK);
        double diff = 0;
        for (int i = 0; i < 14; i++) diff = fmax(diff, fabs(qend[k][i] - qend[0][i]));
        printf("RSSR free, %s: |dE| = %.3g J (E0 %.4f J), max |q - q_augmented| at 1 s = %.3g\n",
               kd_mbs_formulation_name(fs[k]), r.dE, r.E0, diff);
        assert_true(r.dE < (fs[k] == KD_MBS_IDA ? 1e-8 : 1e-9));
        assert_true(diff < (fs[k] == KD_MBS_IDA ? 1e-7 : 1e-8));
    }
    kd_smech_free(&m);
}

/* The wiper of seed 003 as a spatial mechanism (examples/wiper_spatial.yaml): the counts of its
 * coordinates and equations, and over the motor record the driving torque by both routes against
 * the power balance tau theta' = d(T + V)/dt (central differences of the energy over the steps). */
typedef struct wiper_rec {
    const kd_smech* m;
    kd_smech_reactions ra, rb;
    int n;
    double t[500], E[500], P[500], route;
} wiper_rec;

static int wiper_sink(void* c, double t, const double* q, const double* qd, const double* qdd,
                      const kd_smech_info* info) {
    (void)info;
    wiper_rec* r = c;
    kd_error err;
    if (kd_smech_inverse_multipliers(r->m, t, q, qd, NULL, &r->ra, &err) ||
        kd_smech_inverse_projection(r->m, t, q, qd, qdd, &r->rb, &err) || r->n >= 500)
        return 1;
    double x, xd, xdd;
    kd_law_eval(&r->m->driver[0].law, t, &x, &xd, &xdd);
    r->t[r->n] = t;
    r->E[r->n] = kd_smech_kinetic(r->m, q, qd) + kd_smech_potential(r->m, q);
    r->P[r->n] = r->ra.drive[0] * xd;
    r->route = fmax(r->route, fabs(r->ra.drive[0] - r->rb.drive[0]));
    r->n++;
    return 0;
}

static void test_wiper_spatial(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    kd_status st = kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/wiper_spatial.yaml", &d, &err);
    if (st) printf("%s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    assert_int_equal(st, KD_OK);
    kd_smech* m = NULL;
    assert_int_equal(kd_smech_compile(d, &m, &err), KD_OK);
    assert_int_equal(m->n, 42);
    assert_int_equal(m->nc_joint, 35);
    kd_smech_mobility mob;
    double q[42];
    memcpy(q, m->q0, sizeof(q));
    assert_int_equal(kd_smech_solve_position(m, 0, q, NULL, &err), KD_OK);
    assert_int_equal(kd_smech_mobility_at(m, 0, q, &mob, &err), KD_OK);
    assert_int_equal(mob.gruebler, 1);
    assert_int_equal(mob.dof, 1);
    assert_int_equal(mob.dof_undriven, 0);
    wiper_rec r = {.m = m};
    assert_int_equal(kd_smech_reactions_alloc(m, &r.ra), KD_OK);
    assert_int_equal(kd_smech_reactions_alloc(m, &r.rb), KD_OK);
    double cmax;
    assert_int_equal(kd_smech_kinematics(m, 1.2, 480, 1e8, wiper_sink, &r, &cmax, &err), KD_OK);
    double pmax = 0, perr = 0;
    for (int k = 1; k + 1 < r.n; k++) {
        const double dEdt = (r.E[k + 1] - r.E[k - 1]) / (r.t[k + 1] - r.t[k - 1]);
        pmax = fmax(pmax, fabs(r.P[k]));
        perr = fmax(perr, fabs(dEdt - r.P[k]));
    }
    printf("wiper: 42 coordinates, 35 + 6 + 1 equations; drive power max %.4g W, |P - dE/dt| %.3g W, routes %.3g N m\n",
           pmax, perr, r.route);
    assert_true(perr < 1e-3 * pmax);
    assert_true(r.route < 1e-10);
    kd_smech_reactions_free(&r.ra), kd_smech_reactions_free(&r.rb);
    kd_smech_free(&m);
    kd_desc_free(&d);
}

/* Applied forces: a torque about a revolute joint's tilted axis (theta = tau t^2 / (2 I_axis),
 * I_axis = u^T J u + m |d_perp|^2), a force at a point on the same body, and a spring-damper on a
 * prismatic joint (damped oscillator: x(t) of m x'' + c x' + k x = 0). */
typedef struct force_rec {
    const kd_smech* m;
    double t_end, theta_end, x_err;
    double k, c, mass, x0;
} force_rec;

static int spin_out(void* ctx, const kd_mbs_sample* s) {
    force_rec* r = ctx;
    if (s->t >= r->t_end - 1e-12) {  /* the body starts with the global axes: the image of e_x */
        double R[9];
        kd_rot_from_quat(s->q + 3, R);
        r->theta_end = atan2(R[3], R[0]);
    }
    return 0;
}

static int osc_out(void* ctx, const kd_mbs_sample* s) {
    force_rec* r = ctx;
    const double wn = sqrt(r->k / r->mass), zeta = r->c / (2 * sqrt(r->k * r->mass)), wd = wn * sqrt(1 - zeta * zeta);
    const double x = r->x0 * exp(-zeta * wn * s->t) * (cos(wd * s->t) + zeta * wn / wd * sin(wd * s->t));
    r->x_err = fmax(r->x_err, fabs(s->q[2] - 0.1 - x));  /* equilibrium at z = 0.1 */
    return 0;
}

static void test_applied_forces(void** state) {
    (void)state;
    kd_error err;
    /* (a) torque about z plus a tangential force at a point: the body turns about the z axis */
    kd_smech* m = kd_smech_new();
    double J[9];
    const double I6[6] = {0.02, 0.03, 0.04, 0.001, 0.002, -0.003};
    assert_int_equal(kd_inertia_tensor(I6, J), 0);
    const double com[3] = {0.1, 0.05, 0.2}, zax[3] = {0, 0, 1};
    kd_smech_add_body(m, "wheel", 2.0, J, com, Z3, I3);
    kd_smech_add_joint(m, "R", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, zax, NULL, 0);
    const kd_law tq[3] = {kd_law_constant(0.3), kd_law_constant(-0.2), kd_law_constant(0.5)};
    kd_smech_add_torque(m, 0, tq);
    /* a force of 2 N along +z at a point on the axis does no work about it */
    const kd_law fz[3] = {kd_law_constant(0), kd_law_constant(0), kd_law_constant(2.0)};
    const double P[3] = {0, 0, 0.3};
    kd_smech_add_force(m, 0, P, fz);
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    kd_cms cms;
    kd_smech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.t_end = 0.5, o.dt = 1e-3, o.stabilization = KD_MBS_STAB_PROJECTION;
    force_rec r = {.m = m, .t_end = 0.5};
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, spin_out, &r, NULL, &err), KD_OK);
    const double Iax = J[8] + 2.0 * (com[0] * com[0] + com[1] * com[1]);
    const double theta = 0.5 * 0.5 / Iax * 0.25;
    printf("torque about a revolute: theta(0.5 s) = %.10f, tau t^2 / (2 I) = %.10f\n", r.theta_end, theta);
    assert_true(fabs(r.theta_end - theta) < 1e-9);
    kd_smech_free(&m);
    /* (b) a spring-damper along a prismatic joint (axis z), gravity-free */
    m = kd_smech_new();
    kd_smech_add_body(m, "mass", 0.5, J, Z3, Z3, I3);
    kd_smech_add_joint(m, "P", KD_SJOINT_PRISMATIC, -1, 0, Z3, Z3, zax, NULL, 0);
    const double top[3] = {0, 0, 0.5};
    kd_smech_add_spring(m, -1, top, 0, Z3, 200.0, 0.4, 1.5);
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    /* equilibrium at z = 0.1 (spring length 0.4); start at z = 0.1 + 0.02 */
    m->q0[2] = 0.12;
    kd_smech_cms(m, &cms);
    force_rec s = {.m = m, .k = 200.0, .c = 1.5, .mass = 0.5, .x0 = 0.02};
    o.t_end = 1.0, o.dt = 1e-4;
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, m->qd0, osc_out, &s, NULL, &err), KD_OK);
    printf("spring-damper on a prismatic joint: max |z - 0.1 - x(t)| = %.3g m\n", s.x_err);
    assert_true(s.x_err < 1e-8);
    kd_smech_free(&m);
}

/* Every force kind read from a model file (tests/models/spatial_forces.yaml: a torque with a sine
 * law, a force at a point, a spring-damper to a slider on a cylindrical joint, gravity): the
 * four formulations give the same state after 0.2 s, and T + V changes by the work of the torque
 * and of the damper only (the damper-free, torque-free variant conserves it). */
static void test_model_file_forces(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_file(KD_TEST_MODELS_DIR "/spatial_forces.yaml", &d, &err), KD_OK);
    kd_smech* m = NULL;
    assert_int_equal(kd_smech_compile(d, &m, &err), KD_OK);
    assert_int_equal(m->nforce, 3);
    double q[14];
    memcpy(q, m->q0, sizeof(q));
    assert_int_equal(kd_smech_solve_position(m, 0, q, NULL, &err), KD_OK);
    kd_cms cms;
    kd_smech_cms(m, &cms);
    const kd_mbs_formulation fs[4] = {KD_MBS_AUGMENTED, KD_MBS_UDWADIA_KALABA, KD_MBS_MAGGI, KD_MBS_IDA};
    double qend[4][14];
    for (int k = 0; k < 4; k++) {
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        o.formulation = fs[k], o.t_end = 0.2, o.dt = 5e-4, o.rtol = 1e-11, o.atol = 1e-13;
        o.stabilization = KD_MBS_STAB_PROJECTION;
        energy_rec r = {.m = m, .q_end = qend[k]};
        assert_int_equal(kd_mbs_forward(&cms, &o, q, m->qd0, energy_out, &r, NULL, &err), KD_OK);
        double diff = 0;
        for (int i = 0; i < 14; i++) diff = fmax(diff, fabs(qend[k][i] - qend[0][i]));
        assert_true(diff < (fs[k] == KD_MBS_IDA ? 1e-7 : 1e-9));
    }
    /* without the torque and the damper: conservative */
    m->force[0].value[0] = m->force[0].value[2] = kd_law_constant(0.0);
    kd_law_free(&m->force[0].value[1]);
    m->force[0].value[1] = kd_law_constant(0.0);
    m->force[2].c = 0;
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.t_end = 0.2, o.dt = 5e-4, o.stabilization = KD_MBS_STAB_PROJECTION;
    energy_rec r = {.m = m};
    assert_int_equal(kd_mbs_forward(&cms, &o, q, m->qd0, energy_out, &r, NULL, &err), KD_OK);
    printf("model-file forces: formulations agree; without torque and damper |dE| = %.3g J of %.4g J\n", r.dE, r.E0);
    assert_true(r.dE < 1e-8 * fabs(r.E0));
    kd_smech_free(&m);
    kd_desc_free(&d);
}

static void test_bad_input(void** state) {
    (void)state;
    kd_smech* m = kd_smech_new();
    double J[9];
    diag_inertia(1, 1, 1, J);
    kd_smech_add_body(m, "a", 1, J, Z3, Z3, I3);
    kd_smech_add_body(m, "b", 1, J, Z3, Z3, I3);
    const double x[3] = {1, 0, 0}, y[3] = {0.1, 1, 0};
    kd_smech_add_joint(m, "U", KD_SJOINT_UNIVERSAL, 0, 1, Z3, Z3, x, y, 0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_ERR_INPUT);
    assert_non_null(strstr(err.msg, "not orthogonal"));
    kd_smech_free(&m);
    m = kd_smech_new();
    kd_smech_add_body(m, "a", 1, J, Z3, Z3, I3);
    kd_smech_add_joint(m, "R", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, Z3, NULL, 0);
    assert_int_equal(kd_smech_finish(m, &err), KD_ERR_INPUT);
    assert_non_null(strstr(err.msg, "zero length"));
    kd_smech_free(&m);
    /* cannot assemble: a distance that the points cannot reach */
    m = kd_smech_new();
    kd_smech_add_body(m, "a", 1, J, Z3, Z3, I3);
    const double P[3] = {1, 0, 0}, zax[3] = {0, 0, 1};
    kd_smech_add_joint(m, "R", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, zax, NULL, 0);
    kd_smech_add_joint(m, "D", KD_SJOINT_DISTANCE, -1, 0, P, P, NULL, NULL, 3.0);
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    double q[7];
    memcpy(q, m->q0, sizeof(q));
    assert_int_equal(kd_smech_solve_position(m, 0, q, NULL, &err), KD_ERR_NUMERIC);
    assert_non_null(strstr(err.msg, "cannot assemble"));
    kd_smech_free(&m);
}

/* The heavy top read from a model file (orientation as ZYX Euler angles, the spin as an initial
 * angular velocity) gives the nutation limits of the cubic, as built in code above. */
static void test_model_file_top(void** state) {
    (void)state;
    const char* yaml =
        "kedyn: 1\n"
        "spatial: true\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0, 0]}}\n"
        "  - {name: top, type: rigid, mass: 1.0, inertia: [0.002, 0.002, 0.004, 0, 0, 0], com: [0, 0, 0.1],\n"
        "     points: {O: [0, 0, 0]}, orientation: {euler_zyx: [0, 0.5, 0]},\n"
        "     angular_velocity: [71.91383079063046, 0, 131.63738428355592]}\n"
        "joints:\n"
        "  - {name: O, type: spherical, bodies: [ground, top], points: [O, O]}\n"
        "forces:\n"
        "  - {type: gravity, g: [0, 0, -9.81]}\n"
        "analyses:\n"
        "  - {type: dynamics, t_end: 0.3, dt: 5.0e-5, stabilization: projection}\n";
    kd_desc* d = NULL;
    kd_error err;
    kd_status st = kd_load_yaml_string(yaml, strlen(yaml), "top.yaml", &d, &err);
    if (st) printf("%s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    assert_int_equal(st, KD_OK);
    kd_smech* m = NULL;
    assert_int_equal(kd_smech_compile(d, &m, &err), KD_OK);
    assert_int_equal(m->n, 7);
    assert_int_equal(m->nc, 4);
    top_rec r = {.Ac = 0.002, .C = 0.004, .mass = 1.0, .l = 0.1, .m = m, .umin = 2, .umax = -2};
    const double A = r.Ac + r.mass * r.l * r.l, theta0 = 0.5, w3 = 150.0;
    const double a = r.C * w3 / A, beta = 2 * r.mass * 9.81 * r.l / A, u0 = cos(theta0);
    const double u1 = (a * a - sqrt(a * a * a * a - 4 * beta * a * a * u0 + 4 * beta * beta)) / (2 * beta);
    double qd[7];
    memcpy(qd, m->qd0, sizeof(qd));
    assert_int_equal(kd_smech_solve_velocity(m, 0, m->q0, qd, 1, &err), KD_OK);
    kd_cms cms;
    kd_smech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_from_dynamics(&o, &d->analyses[0].dynamics, 0.3);
    assert_int_equal(kd_mbs_forward(&cms, &o, m->q0, qd, top_out, &r, NULL, &err), KD_OK);
    printf("top from the model file: u_min %.8f (cubic root %.8f), u_max %.8f (u0 %.8f)\n", r.umin, u1, r.umax, u0);
    assert_true(fabs(r.umin - u1) < 2e-5 && fabs(r.umax - u0) < 1e-8);
    kd_smech_free(&m);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fd_jacobian_gamma), cmocka_unit_test(test_orientation_inertia),
        cmocka_unit_test(test_heavy_top),         cmocka_unit_test(test_dzhanibekov),
        cmocka_unit_test(test_bricard_mobility),  cmocka_unit_test(test_bricard_dynamics),
        cmocka_unit_test(test_double_pendulum),   cmocka_unit_test(test_rssr),
        cmocka_unit_test(test_slider_crank),      cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_model_file_top),    cmocka_unit_test(test_rssr_formulations),
        cmocka_unit_test(test_wiper_spatial),     cmocka_unit_test(test_rssr_limit),
        cmocka_unit_test(test_applied_forces),    cmocka_unit_test(test_model_file_forces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
