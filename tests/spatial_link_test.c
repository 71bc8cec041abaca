/* One-way elastic links on a spatial mechanism (include/kedyn/sked.h) against
 * independent references:
 *   - a link whose body turns at constant speed about a fixed tilted axis,
 *     under gravity: the same history as the moving-frame engine with the
 *     `rotation` motion (a route that does not go through the mechanism);
 *   - the same link, uniform spin without gravity: the axial displacement
 *     against the closed form of the centrifugal field,
 *     u(x) = rho Omega^2 (L^2 x / 2 - x^3 / 6) / E (nodally exact for bar elements);
 *   - a link whose crank starts with a constant angular acceleration eps:
 *     the quasi-static tip deflection against the cantilever under the
 *     linearly varying inertial load q(x) = rho A eps x,
 *     v_tip = -11 rho A eps L^5 / (120 E I) (nodally exact for cubic elements);
 *   - the frequencies along the motion (kd_sked_modes_along_motion) at rest against the
 *     cantilever's closed form, and at uniform rotation against the published rotating-cantilever
 *     frequencies (flapwise) and omega_l^2 = omega_f^2 - Omega^2 (in-plane);
 *   - a pendulum with one free degree of freedom (no driver): its rigid motion by forward
 *     dynamics conserves T + V, and the link's response equals that of a driven run that
 *     prescribes the recorded motion;
 *   - a link pinned at both ends in a driven spatial slider-crank (chord frame,
 *     joint forces as loads): the quasi-static frame supports carry nothing
 *     when the link's rigid mass is the beam's (the load set is the rigid
 *     link's d'Alembert balance, independent of the elastic solve). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/frame.h"
#include "kedyn/sked.h"
#include "kedyn/system.h"

#define PI_ 3.14159265358979323846

static const double E_ = 210e9, RHO = 7800, D_ = 0.02, L_ = 1.0;
static const int NEL = 8;

static kd_sked_link_spec spec_rod(int body) {
    kd_sked_link_spec s;
    memset(&s, 0, sizeof(s));
    snprintf(s.name, sizeof(s.name), "rod");
    s.body = body, s.length = L_, s.elements = NEL, s.theory = KD_THEORY_EULER_BERNOULLI, s.frame_node = 1;
    snprintf(s.material.name, sizeof(s.material.name), "steel");
    s.material.E = E_, s.material.rho = RHO, s.material.nu = 0.3;
    snprintf(s.section.name, sizeof(s.section.name), "rod");
    s.section.shape = KD_SHAPE_CIRCLE, s.section.d = D_;
    return s;
}

/* One body (the rod as a rigid bar along its x axis) on a revolute joint at the ground's origin
 * with axis n, driven by law. */
static kd_smech* arm(const double n[3], const kd_law* law, const double g[3]) {
    kd_smech* m = kd_smech_new();
    const double A = PI_ * D_ * D_ / 4, mass = RHO * A * L_;
    const double J[9] = {0.5 * mass * D_ * D_ / 4, 0, 0, 0, mass * L_ * L_ / 12, 0, 0, 0, mass * L_ * L_ / 12};
    const double com[3] = {0.5 * L_, 0, 0}, O[3] = {0, 0, 0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(kd_smech_add_body(m, "rod", mass, J, com, O, I), 0);
    assert_int_equal(kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, O, O, n, n, 0), 0);
    assert_int_equal(kd_smech_add_driver(m, 0, law, 0.0), 0);
    memcpy(m->g, g, sizeof(m->g));
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    return m;
}

typedef struct hist {
    int n, cap, ndof;
    double* q;                    /* cap x ndof */
    double* t;
} hist;

static int record(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)v, (void)a;
    hist* h = ctx;
    if (h->n < h->cap) {
        h->t[h->n] = t;
        memcpy(h->q + (size_t)h->n * h->ndof, q, sizeof(double) * (size_t)h->ndof);
        h->n++;
    }
    return 0;
}

static int record3(void* ctx, double t, const double* q, const double* v, const double* a) {
    return record(ctx, 0, t, q, v, a);
}

/* (a) constant rotation about a tilted axis with gravity: spatial route = `rotation` motion. */
static void test_constant_rotation_matches_rotation_motion(void** state) {
    (void)state;
    const double Om = 12.0, c = cos(0.4), s = sin(0.4), n[3] = {0, s, c}, g[3] = {0, 0, -9.81};
    kd_law law = kd_law_constant(0.0);
    law.type = KD_LAW_SPEED, law.value = Om;
    kd_smech* m = arm(n, &law, g);
    kd_sked_rigid r;
    kd_error err;
    assert_int_equal(kd_sked_rigid_solve(m, 0.5, 200, 1e8, &r, &err), KD_OK);
    kd_sked_link_spec sp = spec_rod(0);
    memcpy(sp.g, g, sizeof(sp.g));
    kd_sked_link* L = NULL;
    kd_status st = kd_sked_link_new(m, &r, &sp, &L, &err);
    if (st) fail_msg("%s", err.msg);
    kd_dynamics_desc dy;
    memset(&dy, 0, sizeof(dy));
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    dy = ad.dynamics;
    dy.integrator = KD_INTEGRATOR_NEWMARK, dy.dt = 1e-4, dy.output_every = 50;
    const int nq = L->model->neq;
    hist h1 = {0, 200, nq, calloc(200 * (size_t)nq, sizeof(double)), calloc(200, sizeof(double))};
    st = kd_sked_link_dynamics(L, &dy, record, &h1, NULL, &err);
    if (st) fail_msg("%s", err.msg);

    /* the reference: the same beam with `motion: rotation` about n (no mechanism) */
    kd_desc* d = kd_desc_new();
    kd_material_desc* mat = kd_desc_add_material(d);
    kd_section_desc* sec = kd_desc_add_section(d);
    kd_body_desc* b = kd_desc_add_body(d);
    *mat = sp.material, *sec = sp.section;
    b->type = KD_BODY_BEAM, b->material = b->section = 0, b->length = L_, b->elements = NEL, b->planar = 0;
    snprintf(b->name, sizeof(b->name), "rod");
    kd_support_desc* su = kd_desc_add_support(d);
    su->body = 0, su->node = 1, su->fix = 63u;
    kd_motion_desc* mo = kd_desc_add_motion(d);
    mo->body = 0, mo->motion.type = KD_MOTION_ROTATION;
    memcpy(mo->motion.axis, n, sizeof(mo->motion.axis));
    mo->motion.angle = law;
    kd_load_desc* gl = kd_desc_add_load(d);
    gl->type = KD_LOAD_GRAVITY, memcpy(gl->g, g, sizeof(gl->g));
    gl->value = kd_law_constant(0.0), gl->value_y = kd_law_constant(0.0);
    kd_model* mod = NULL;
    st = kd_model_compile(d, &mod, &err);
    if (st) fail_msg("%s", err.msg);
    assert_int_equal(mod->neq, nq);
    kd_system sys;
    assert_int_equal(kd_system_init(&sys, mod, &err), KD_OK);
    kd_ode2 ode = kd_system_ode(&sys);
    double* q0 = calloc(2 * (size_t)nq, sizeof(double));
    assert_int_equal(kd_ode2_static(&ode, 0.0, q0, &err), KD_OK);
    kd_integrate_opts o;
    kd_integrate_opts_default(&o);
    o.method = kd_dynamics_method(KD_INTEGRATOR_NEWMARK), o.t0 = 0, o.t_end = 0.5, o.dt = 1e-4, o.output_every = 50;
    o.beta = dy.newmark_beta, o.gamma = dy.newmark_gamma;
    hist h2 = {0, 200, nq, calloc(200 * (size_t)nq, sizeof(double)), calloc(200, sizeof(double))};
    assert_int_equal(kd_integrate(&ode, &o, q0, q0 + nq, record3, &h2, NULL, &err), KD_OK);
    assert_int_equal(h1.n, h2.n);
    double dmax = 0, qmax = 0;
    for (int i = 0; i < h1.n * nq; i++) {
        dmax = fmax(dmax, fabs(h1.q[i] - h2.q[i]));
        qmax = fmax(qmax, fabs(h2.q[i]));
    }
    printf("constant rotation: max |q_spatial - q_rotation| = %.3e of max |q| = %.3e (%d outputs)\n", dmax, qmax, h1.n);
    assert_true(qmax > 1e-5);        /* gravity bends the rod */
    assert_true(dmax < 1e-6 * qmax);
    kd_system_free(&sys);
    kd_model_free(&mod);
    kd_desc_free(&d);
    free(q0), free(h1.q), free(h1.t), free(h2.q), free(h2.t);
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
}

/* (b) uniform spin about z: axial displacement of the centrifugal field, closed form. */
static void test_centrifugal_axial(void** state) {
    (void)state;
    const double Om = 40.0, n[3] = {0, 0, 1}, g[3] = {0, 0, 0};
    kd_law law = kd_law_constant(0.0);
    law.type = KD_LAW_SPEED, law.value = Om;
    kd_smech* m = arm(n, &law, g);
    kd_sked_rigid r;
    kd_error err;
    assert_int_equal(kd_sked_rigid_solve(m, 0.2, 40, 1e8, &r, &err), KD_OK);
    /* the rigid joint force on the rod (its rows by the LU of Phi_q): the centripetal force
     * m Omega^2 L / 2 toward the axis, and the SVD route of the augmented system agrees */
    const double mass = RHO * PI_ * D_ * D_ / 4 * L_;
    kd_smech_reactions re;
    assert_int_equal(kd_smech_reactions_alloc(m, &re), KD_OK);
    for (int i = 0; i < r.nsamples; i += 10) {
        const double th = Om * r.t[i], *F = r.F + 6 * (size_t)i;
        const double ref[3] = {-mass * Om * Om * L_ / 2 * cos(th), -mass * Om * Om * L_ / 2 * sin(th), 0.0};
        for (int c = 0; c < 3; c++) assert_true(fabs(F[c] - ref[c]) < 1e-9 * mass * Om * Om * L_);
        assert_int_equal(kd_smech_inverse_multipliers(m, r.t[i], r.q + (size_t)i * m->n, r.qd + (size_t)i * m->n,
                                                      NULL, &re, &err), KD_OK);
        for (int c = 0; c < 6; c++) assert_true(fabs(F[c] - re.F[c]) < 1e-9 * mass * Om * Om * L_);
    }
    kd_smech_reactions_free(&re);
    kd_sked_link_spec sp = spec_rod(0);
    kd_sked_link* L = NULL;
    if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
    const int nq = L->model->neq, nn = L->model->nnode;
    double* q = calloc((size_t)nq, sizeof(double));
    double* u = calloc(6 * (size_t)nn, sizeof(double));
    double* sf = calloc(4 * (size_t)nn, sizeof(double));
    double emax = 0, umax = 0;
    for (int k = 0; k < 3; k++) {
        const double t = 0.05 + 0.06 * k;  /* at several angles */
        assert_int_equal(kd_sked_link_static(L, t, q, &err), KD_OK);
        kd_sked_link_displacements(L, q, u);
        for (int i = 0; i < nn; i++) {
            const double x = L_ * i / NEL, ref = RHO * Om * Om * (L_ * L_ * x / 2 - x * x * x / 6) / E_;
            emax = fmax(emax, fabs(u[6 * i] - ref));
            umax = fmax(umax, ref);
            assert_true(fabs(u[6 * i + 1]) < 1e-12 && fabs(u[6 * i + 2]) < 1e-12);
        }
        /* quasi-static: the joint's rigid force is the rigid link's d'Alembert resultant; the clamp
         * carries the elastic rest, the centrifugal force of the stretch, rho A Omega^2 int u dx =
         * rho A Omega^2 (rho Omega^2 / E) 5 L^4 / 24, which the joint holds: inward */
        double* z = calloc((size_t)nq, sizeof(double));
        double dF[3];
        kd_sked_link_reactions(L, t, q, z, z, dF);
        const double Fc = mass * Om * Om * L_ / 2;
        printf("centrifugal: elastic joint force %.3e %.3e %.3e N of the rigid %.3f N\n", dF[0], dF[1], dF[2], Fc);
        const double A = PI_ * D_ * D_ / 4, dref = RHO * A * Om * Om * RHO * Om * Om / E_ * 5 * pow(L_, 4) / 24;
        const double th = Om * t, dr = dF[0] * cos(th) + dF[1] * sin(th);  /* radial component */
        printf("  radial %.5e N against %.5e N\n", dr, dref);
        assert_true(fabs(dr + dref) < 0.01 * dref);
        assert_true(fabs(-dF[0] * sin(th) + dF[1] * cos(th)) < 1e-3 * dref && fabs(dF[2]) < 1e-3 * dref);
        free(z);
    }
    /* the stress at the tip-side nodes: N from EA u' over the last element against the closed
     * form's mean over it (rho A Omega^2 (L^2 - x^2)/2 averaged) */
    kd_sked_link_section_forces(L, q, sf);
    const double A = PI_ * D_ * D_ / 4, h = L_ / NEL;
    const double Nmean = RHO * A * Om * Om * (L_ * L_ / 2 - (L_ * L_ + L_ * (L_ - h) + (L_ - h) * (L_ - h)) / 6);
    printf("centrifugal: max |u - u_exact| = %.3e of u_tip = %.3e; N at tip %.4f N against %.4f N\n", emax, umax,
           sf[4 * NEL], Nmean);
    assert_true(emax < 1e-4 * umax);
    assert_true(fabs(sf[4 * NEL] - Nmean) < 1e-4 * Nmean);
    free(q), free(u), free(sf);
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
}

/* (c) start with constant angular acceleration: tip deflection of the inertial load. */
static void test_accelerated_tip_deflection(void** state) {
    (void)state;
    const double eps = 50.0, n[3] = {0, 0, 1}, g[3] = {0, 0, 0};
    enum { NS = 21 };
    double tt[NS], f[NS], df[NS], d2f[NS];
    for (int i = 0; i < NS; i++) tt[i] = 0.01 * i, f[i] = 0.5 * eps * tt[i] * tt[i], df[i] = eps * tt[i], d2f[i] = eps;
    kd_law law = kd_law_constant(0.0);
    kd_error err;
    assert_int_equal(kd_law_hermite(&law, NS, tt, f, df, d2f, &err), KD_OK);
    kd_smech* m = arm(n, &law, g);
    kd_sked_rigid r;
    assert_int_equal(kd_sked_rigid_solve(m, 0.2, 20, 1e8, &r, &err), KD_OK);
    kd_sked_link_spec sp = spec_rod(0);
    kd_sked_link* L = NULL;
    if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
    const int nq = L->model->neq, nn = L->model->nnode;
    double* q = calloc((size_t)nq, sizeof(double));
    double* u = calloc(6 * (size_t)nn, sizeof(double));
    assert_int_equal(kd_sked_link_static(L, 0.0, q, &err), KD_OK);
    kd_sked_link_displacements(L, q, u);
    const double A = PI_ * D_ * D_ / 4, I = PI_ * pow(D_, 4) / 64;
    const double ref = -11.0 * RHO * A * eps * pow(L_, 5) / (120.0 * E_ * I);
    printf("accelerated link: v_tip = %.6e m against %.6e m (rel %.2e)\n", u[6 * NEL + 1], ref,
           fabs(u[6 * NEL + 1] - ref) / fabs(ref));
    assert_true(fabs(u[6 * NEL + 1] - ref) < 1e-3 * fabs(ref));
    /* the joint's rigid force (m eps L / 2 tangential) balances the rigid link; the elastic part is
     * the axial inertia of the deflected points, -rho A eps int v dx along the link, with
     * int v dx = -13 q0 L^5 / (360 E I), q0 = rho A eps L, and nothing across */
    double* z = calloc((size_t)nq, sizeof(double));
    double dF[3];
    kd_sked_link_reactions(L, 0.0, q, z, z, dF);
    const double Ft = RHO * A * L_ * eps * L_ / 2;
    printf("accelerated link: elastic joint force %.3e %.3e %.3e N of the rigid %.4f N\n", dF[0], dF[1], dF[2], Ft);
    const double dxref = RHO * A * eps * 13 * RHO * A * eps * pow(L_, 6) / (360 * E_ * I);
    printf("  axial %.6e N against %.6e N\n", dF[0], dxref);
    assert_true(fabs(dF[0] - dxref) < 1e-3 * dxref);
    assert_true(fabs(dF[1]) < 1e-6 * Ft && fabs(dF[2]) < 1e-6 * Ft);
    free(z);
    free(q), free(u);
    kd_law_free(&law);
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
}

/* (d) frequencies along the motion at rest: the cantilever's Euler-Bernoulli frequencies
 * (beta_n L)^2 sqrt(EI / rho A) / L^2, beta_n L = 1.87510, 4.69409, 7.85476, each twice (the two
 * bending planes of the circular section). */
static void test_modes_at_rest(void** state) {
    (void)state;
    const double n[3] = {0, 0, 1}, g[3] = {0, 0, 0};
    const kd_law law = kd_law_constant(0.0);
    kd_smech* m = arm(n, &law, g);
    kd_sked_rigid r;
    kd_error err;
    assert_int_equal(kd_sked_rigid_solve(m, 0.1, 4, 1e8, &r, &err), KD_OK);
    kd_sked_link_spec sp = spec_rod(0);
    kd_sked_link* L = NULL;
    if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
    kd_ked_modes md;
    if (kd_sked_modes_along_motion(L, &r, 6, KD_KED_GYRO_REFINE, &md, &err)) fail_msg("%s", err.msg);
    assert_int_equal(md.nsamples, 5);
    const double A = PI_ * D_ * D_ / 4, I = PI_ * pow(D_, 4) / 64, c = sqrt(E_ * I / (RHO * A)) / (L_ * L_);
    static const double bl[3] = {1.87510407, 4.69409113, 7.85475744};
    /* the 8 cubic elements' discretisation error grows with the mode (h^4) */
    static const double tol[3] = {1e-5, 1e-4, 1e-3};
    double worst[3] = {0, 0, 0};
    for (int i = 0; i < md.nsamples; i++)
        for (int k = 0; k < 6; k++) {
            const double ref = bl[k / 2] * bl[k / 2] * c, w = md.omega[(size_t)i * 6 + k];
            worst[k / 2] = fmax(worst[k / 2], fabs(w - ref) / ref);
        }
    printf("modes at rest: omega_1 %.5f rad/s (closed form %.5f); worst relative errors %.2e %.2e %.2e\n", md.omega[0],
           bl[0] * bl[0] * c, worst[0], worst[1], worst[2]);
    for (int k = 0; k < 3; k++) assert_true(worst[k] < tol[k]);
    kd_ked_modes_free(&md);
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
}

/* (e) frequencies along a uniform rotation about z at the nondimensional speed
 * lambda = Omega L^2 sqrt(rho A / EI) = 2: the flapwise (out-of-plane) fundamental of the rotating
 * cantilever, omega L^2 sqrt(rho A / EI) = 4.1373 (Wright, Smith, Thompson and Worley 1982, J.
 * Appl. Mech. 49:197, table 1; Southwell's estimate sqrt(3.5160^2 + 1.1933 lambda^2) = 4.1395), and
 * the in-plane one, omega_l^2 = omega_f^2 - Omega^2 (the same equation with the in-plane
 * centrifugal softening), on the symmetric route (no Coriolis); the flapwise one also on the
 * gyroscopic route (Coriolis couples the in-plane and axial motions only); every instant alike. */
static void test_modes_rotating(void** state) {
    (void)state;
    const double A = PI_ * D_ * D_ / 4, I = PI_ * pow(D_, 4) / 64, c = sqrt(E_ * I / (RHO * A)) / (L_ * L_);
    const double Om = 2.0 * c, n[3] = {0, 0, 1}, g[3] = {0, 0, 0};
    kd_law law = kd_law_constant(0.0);
    law.type = KD_LAW_SPEED, law.value = Om;
    kd_smech* m = arm(n, &law, g);
    kd_sked_rigid r;
    kd_error err;
    assert_int_equal(kd_sked_rigid_solve(m, 0.2, 8, 1e8, &r, &err), KD_OK);
    kd_sked_link_spec sp = spec_rod(0);
    kd_sked_link* L = NULL;
    if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
    const double wf = 4.1373 * c, wl = sqrt(wf * wf - Om * Om);
    for (int route = 0; route < 2; route++) {
        kd_ked_modes md;
        if (kd_sked_modes_along_motion(L, &r, 4, route ? KD_KED_GYRO_REFINE : KD_KED_GYRO_OFF, &md, &err))
            fail_msg("%s", err.msg);
        double el = 0, ef = 0;
        for (int i = 0; i < md.nsamples; i++) {
            el = fmax(el, fabs(md.omega[(size_t)i * 4] - wl) / wl);
            ef = fmax(ef, fabs(md.omega[(size_t)i * 4 + 1] - wf) / wf);
        }
        printf("rotating (lambda 2, %s): in-plane %.4f (ref %.4f, worst %.2e), flapwise %.4f (ref %.4f, worst %.2e)\n",
               route ? "gyroscopic" : "symmetric", md.omega[0], wl, el, md.omega[1], wf, ef);
        assert_true(ef < 1e-3);
        if (!route) assert_true(el < 1e-3);
        kd_ked_modes_free(&md);
    }
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
}

/* (f) a mechanism with a free degree of freedom: the rod as a pendulum on a horizontal revolute
 * axis (y), released from rest horizontal under gravity, no driver. Its rigid motion comes from
 * forward dynamics (r.forward); the energy T + V of the samples stays that of the release, and
 * the link's response equals that of a driven run whose driver prescribes the recorded motion
 * (the joint angle, rate and acceleration at the same instants, quintic Hermite between them). */
static int keep_q(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    return record(ctx, link, t, q, v, a);
}

static void test_free_pendulum_matches_driven(void** state) {
    (void)state;
    const double n[3] = {0, 1, 0}, g[3] = {0, 0, -9.81};
    kd_smech* mf = kd_smech_new();
    const double A = PI_ * D_ * D_ / 4, mass = RHO * A * L_;
    const double J[9] = {0.5 * mass * D_ * D_ / 4, 0, 0, 0, mass * L_ * L_ / 12, 0, 0, 0, mass * L_ * L_ / 12};
    const double com[3] = {0.5 * L_, 0, 0}, O[3] = {0, 0, 0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(kd_smech_add_body(mf, "rod", mass, J, com, O, I), 0);
    assert_int_equal(kd_smech_add_joint(mf, "A", KD_SJOINT_REVOLUTE, -1, 0, O, O, n, n, 0), 0);
    memcpy(mf->g, g, sizeof(mf->g));
    kd_error err;
    assert_int_equal(kd_smech_finish(mf, &err), KD_OK);
    enum { STEPS = 200 };
    const double t_end = 0.4;
    kd_sked_rigid rf;
    if (kd_sked_rigid_solve(mf, t_end, STEPS, 1e8, &rf, &err)) fail_msg("%s", err.msg);
    assert_int_equal(rf.forward, 1);
    assert_int_equal(rf.nsamples, STEPS + 1);
    /* energy of the samples, and the joint angle, rate and acceleration (rotation about y) */
    const int nq = mf->n;
    const double E0 = kd_smech_kinetic(mf, rf.q, rf.qd) + kd_smech_potential(mf, rf.q);
    double dE = 0, th[STEPS + 1], dth[STEPS + 1], d2th[STEPS + 1];
    for (int i = 0; i < rf.nsamples; i++) {
        const double *q = rf.q + (size_t)i * nq, *qd = rf.qd + (size_t)i * nq, *qdd = rf.qdd + (size_t)i * nq;
        dE = fmax(dE, fabs(kd_smech_kinetic(mf, q, qd) + kd_smech_potential(mf, q) - E0));
        double R[9], w[3], e[3];
        kd_rot_from_quat(q + 3, R);
        kd_smech_omega(mf, 0, q, qd, w);
        kd_smech_omega(mf, 0, q, qdd, e);
        th[i] = atan2(R[2], R[0]), dth[i] = w[1], d2th[i] = e[1];
        if (i > 0 && th[i] < th[i - 1] - PI_) th[i] += 2 * PI_;  /* continuous */
    }
    const double Eref = mass * 9.81 * L_ / 2;  /* the drop of the centre of mass scale */
    printf("free pendulum: swings to %.4f rad in %.2f s, |T + V - E0| <= %.2e J (of m g L / 2 = %.3f J)\n",
           th[STEPS], t_end, dE, Eref);
    assert_true(th[STEPS] > 0.5);  /* it falls: angle about y positive downwards from x */
    assert_true(dE < 1e-6 * Eref);
    /* the driven arm with the recorded motion */
    kd_law law = kd_law_constant(0.0);
    assert_int_equal(kd_law_hermite(&law, rf.nsamples, rf.t, th, dth, d2th, &err), KD_OK);
    kd_smech* md = arm(n, &law, g);
    kd_sked_rigid rd;
    if (kd_sked_rigid_solve(md, t_end, STEPS, 1e8, &rd, &err)) fail_msg("%s", err.msg);
    assert_int_equal(rd.forward, 0);
    double dq = 0, qs = 0;
    for (size_t i = 0; i < (size_t)rf.nsamples * nq; i++) dq = fmax(dq, fabs(rf.q[i] - rd.q[i])), qs = fmax(qs, fabs(rf.q[i]));
    printf("  driven with the recorded angle: rigid coordinates agree to %.2e (of %.2f)\n", dq, qs);
    assert_true(dq < 1e-8 * qs);
    /* the link on both */
    kd_sked_link_spec sp = spec_rod(0);
    memcpy(sp.g, g, sizeof(sp.g));
    kd_sked_link *Lf = NULL, *Ld = NULL;
    if (kd_sked_link_new(mf, &rf, &sp, &Lf, &err) || kd_sked_link_new(md, &rd, &sp, &Ld, &err)) fail_msg("%s", err.msg);
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    ad.dynamics.dt = 2e-4, ad.dynamics.output_every = 20;
    const int neq = Lf->model->neq;
    hist hf = {0, 200, neq, calloc(200 * (size_t)neq, sizeof(double)), calloc(200, sizeof(double))};
    hist hd = {0, 200, neq, calloc(200 * (size_t)neq, sizeof(double)), calloc(200, sizeof(double))};
    if (kd_sked_link_dynamics(Lf, &ad.dynamics, keep_q, &hf, NULL, &err) ||
        kd_sked_link_dynamics(Ld, &ad.dynamics, keep_q, &hd, NULL, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(hf.n, hd.n);
    double d = 0, mx = 0;
    for (size_t i = 0; i < (size_t)hf.n * neq; i++) d = fmax(d, fabs(hf.q[i] - hd.q[i])), mx = fmax(mx, fabs(hf.q[i]));
    printf("  link response: largest displacement %.3e, free - driven %.2e\n", mx, d);
    assert_true(mx > 1e-6);  /* gravity and the swing bend it */
    assert_true(d < 1e-6 * mx);
    free(hf.q), free(hf.t), free(hd.q), free(hd.t);
    kd_sked_link_free(&Lf), kd_sked_link_free(&Ld);
    kd_sked_rigid_free(&rf), kd_sked_rigid_free(&rd);
    kd_law_free(&law);
    kd_smech_free(&mf), kd_smech_free(&md);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_rotation_matches_rotation_motion),
        cmocka_unit_test(test_centrifugal_axial),
        cmocka_unit_test(test_accelerated_tip_deflection),
        cmocka_unit_test(test_modes_at_rest),
        cmocka_unit_test(test_modes_rotating),
        cmocka_unit_test(test_free_pendulum_matches_driven),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
