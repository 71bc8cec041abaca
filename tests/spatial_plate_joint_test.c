/* Elastic joint forces and modal reduction of shell links of a spatial mechanism (kedyn/sked.h,
 * theory.md sec. 22, SL7) against closed forms. A strip of steel L x b x t (nu = 0: the plate's
 * bending stiffness D b is the beam's E I), clamped along its root edge x = 0 to its frame, on a
 * revolute joint at the middle of the root, turned about the in-plane axis y with constant angular
 * acceleration eps from rest; the inertia load is q(x) = rho t b eps x:
 *   - the support set's wrench on the strip in the quasi-static state against the root shear
 *     force rho t b eps L^2 / 2 and the root moment rho t b eps (L^3 / 3 + L t^2 / 12) (the
 *     strip's moment of inertia about the hinge, the through-thickness term included); the same
 *     strip moved to [a, a + L] (the support set off the frame origin, the hinge at its root): the
 *     moment about the frame origin M0 + a S0 (the shear's lever arm, x x r of SL7);
 *   - the elastic joint force (the support's force less the joint's rigid load, the link's force
 *     balance): the inertia of the deflected mass, eps x (w e_z) = eps w e_x, integrated,
 *     rho t b eps int w dx = rho t b eps 13 c L^6 / (360 E I), c = rho t b eps (the cantilever's
 *     deflection under q(x) = c x), the error falling with refinement;
 *   - the force balance along a vibrating swing (Newmark): the elastic joint force against the
 *     inertia of the elastic displacement field's mass in the moving frame, summed with corner
 *     masses (a quadrature independent of the residual);
 *   - `modes: N` (the link on its lowest N clamped modes): the quasi-static tip deflection of the
 *     one-way dynamics converging to the full link's as N grows (error strictly falling), with
 *     the static correction at the outputs equal to the full link's; the N-mode link's first
 *     frequency against the clamped-free beam's 1.87510^2 sqrt(E I / (rho A)) / L^2. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cantilever_mode.h"
#include "kedyn/element.h"
#include "kedyn/frame.h"
#include "kedyn/sked.h"
#include "plate_strip.h"

static const double E_ = 210e9, RHO = 7800, L_ = 0.5, B_ = 0.04, T_ = 0.004, EPS = 20.0;

static kd_sked_link_spec spec_plate(const kd_body_desc* p, int modes, int statics) {
    kd_sked_link_spec s;
    memset(&s, 0, sizeof(s));
    snprintf(s.name, sizeof(s.name), "blade");
    snprintf(s.material.name, sizeof(s.material.name), "steel");
    s.material.E = E_, s.material.rho = RHO, s.material.nu = 0.0;
    s.shell = p, s.support_set = 0, s.output_set = 1;
    s.modes = modes, s.statics = statics;
    return s;
}

/* The strip [x0, x0 + L] on a revolute joint about y at the middle of its root (x0, 0, 0), the
 * strip's frame and the ground's at the origin, turned with eps from rest (angle eps t^2 / 2 as a
 * Hermite law over [0, 0.1] s); its rigid mass properties from the mesh. */
typedef struct rig {
    kd_body_desc* p;
    kd_law law;
    kd_smech* m;
    kd_sked_rigid r;
} rig;

static void rig_new(rig* g, int nx, double x0) {
    enum { NS = 21 };
    double tt[NS], f[NS], df[NS], d2f[NS];
    for (int i = 0; i < NS; i++) tt[i] = 0.005 * i, f[i] = 0.5 * EPS * tt[i] * tt[i], df[i] = EPS * tt[i], d2f[i] = EPS;
    kd_error err;
    g->law = kd_law_constant(0.0);
    assert_int_equal(kd_law_hermite(&g->law, NS, tt, f, df, d2f, &err), KD_OK);
    g->p = plate_strip(x0, L_, B_, T_, nx, 2, KD_INTERP_MITC4);
    double mass, com[3], I6[6];
    assert_int_equal(kd_splate_mass(g->p, RHO, &mass, com, I6), 0);
    const double J[9] = {I6[0], I6[3], I6[5], I6[3], I6[1], I6[4], I6[5], I6[4], I6[2]};
    const double O[3] = {0, 0, 0}, P[3] = {x0, 0, 0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, n[3] = {0, 1, 0};
    g->m = kd_smech_new();
    assert_int_equal(kd_smech_add_body(g->m, "blade", mass, J, com, O, I), 0);
    assert_int_equal(kd_smech_add_joint(g->m, "O", KD_SJOINT_REVOLUTE, -1, 0, P, P, n, n, 0), 0);
    assert_int_equal(kd_smech_add_driver(g->m, 0, &g->law, 0.0), 0);
    assert_int_equal(kd_smech_finish(g->m, &err), KD_OK);
    assert_int_equal(kd_sked_rigid_solve(g->m, 0.1, 20, 1e8, &g->r, &err), KD_OK);
}

static void rig_free(rig* g) {
    kd_sked_rigid_free(&g->r);
    kd_smech_free(&g->m);
    kd_law_free(&g->law);
    plate_strip_free(g->p);
}

/* The support set's wrench w and the elastic joint force dF of the strip link of g in its
 * quasi-static state at t = 0. */
static void root_wrench(const rig* g, double w[6], double dF[3]) {
    kd_sked_link_spec sp = spec_plate(g->p, 0, 0);
    kd_sked_link* L = NULL;
    kd_error err;
    if (kd_sked_link_new(g->m, &g->r, &sp, &L, &err)) fail_msg("%s", err.msg);
    const int nq = L->model->neq;
    double* q = calloc(3 * (size_t)nq, sizeof(double));
    assert_int_equal(kd_sked_link_static(L, 0.0, q, &err), KD_OK);
    kd_sked_plate_support(L, 0.0, q, q + nq, q + 2 * nq, w);
    kd_sked_link_reactions(L, 0.0, q, q + nq, q + 2 * nq, dF);
    free(q);
    kd_sked_link_free(&L);
}

/* The support set's wrench and the elastic joint force in the quasi-static state at t = 0 against
 * the closed forms; the elastic force's error falls with refinement. */
static void test_root_wrench(void** state) {
    (void)state;
    const double c = RHO * T_ * B_ * EPS, I = B_ * T_ * T_ * T_ / 12;
    const double S0 = c * L_ * L_ / 2, M0 = c * (pow(L_, 3) / 3 + L_ * T_ * T_ / 12);
    const double dF0 = c * 13.0 * c * pow(L_, 6) / (360.0 * E_ * I);
    double e_prev = INFINITY;
    for (int mesh = 0; mesh < 3; mesh++) {
        const int nx = 10 << mesh;
        rig g;
        rig_new(&g, nx, 0.0);
        double w[6], dF[3];
        root_wrench(&g, w, dF);
        /* the support's force on the strip: -S0 along z (the load accelerates it along -z), its
         * moment about y +M0; the elastic part along x */
        const double es = fabs(w[2] + S0) / S0, em = fabs(w[4] - M0) / M0, e = fabs(dF[0] - dF0) / dF0;
        printf("strip %d x 2: support force %.8e %.3e %.8e N (ref 0 0 %.8e, rel %.1e), moment about y %.8e N m "
               "(ref %.8e, rel %.1e); elastic joint force %.6e %.2e %.2e N against rho t b eps int w dx = %.6e N "
               "(rel %.2e)\n",
               nx, w[0], w[1], w[2], -S0, es, w[4], M0, em, dF[0], dF[1], dF[2], dF0, e);
        assert_true(es < 1e-8 && em < 1e-8);
        assert_true(fabs(w[1]) < 1e-8 * S0 && fabs(w[3]) < 1e-8 * M0 && fabs(w[5]) < 1e-8 * M0);
        /* the force balance: the support carries the rigid load and the deflected mass's inertia */
        assert_true(fabs(w[0] - dF[0]) < 1e-12 * S0 && fabs(dF[2]) < 1e-8 * S0 && fabs(dF[1]) < 1e-8 * S0);
        assert_true(e < 1e-2 && e < e_prev);
        e_prev = e;
        rig_free(&g);
    }
}

/* The lever arm of the support's moment (SL7: M_S = sum_i x_i x r_i + r_i^theta about the frame
 * origin): the strip of test_root_wrench moved to [a, a + L] (its frame, and the ground's, still at
 * the origin; the hinge at its root, so the strip's motion and loads are those of a = 0). The
 * support's force on the strip is the same root shear -S0 e_z acting at x = a, so its moment about
 * the origin is the root moment plus the shear's lever arm, M_y = M0 + a S0 (statics of the free
 * body: the moments of one force system about two points); the elastic joint force is a = 0's. */
static void test_root_wrench_offset(void** state) {
    (void)state;
    const double c = RHO * T_ * B_ * EPS, I = B_ * T_ * T_ * T_ / 12, a = 0.3;
    const double S0 = c * L_ * L_ / 2, M0 = c * (pow(L_, 3) / 3 + L_ * T_ * T_ / 12), Ma = M0 + a * S0;
    const double dF0 = c * 13.0 * c * pow(L_, 6) / (360.0 * E_ * I);
    rig g;
    rig_new(&g, 20, a);
    double w[6], dF[3];
    root_wrench(&g, w, dF);
    const double es = fabs(w[2] + S0) / S0, em = fabs(w[4] - Ma) / Ma, e = fabs(dF[0] - dF0) / dF0;
    printf("strip on [%g, %g] (20 x 2): support force z %.8e N (ref %.8e, rel %.1e), moment about y at the "
           "origin %.8e N m (ref M0 + a S0 = %.8e + %.8e, rel %.1e; without the lever arm %.1e); elastic joint "
           "force %.6e N (ref %.6e, rel %.2e)\n",
           a, a + L_, w[2], -S0, es, w[4], M0, a * S0, em, fabs(M0 - Ma) / Ma, dF[0], dF0, e);
    assert_true(es < 1e-8 && em < 1e-8);
    assert_true(fabs(w[1]) < 1e-8 * S0 && fabs(w[3]) < 1e-8 * Ma && fabs(w[5]) < 1e-8 * Ma);
    assert_true(fabs(w[0] - dF[0]) < 1e-12 * S0 && fabs(dF[2]) < 1e-8 * S0 && fabs(dF[1]) < 1e-8 * S0);
    assert_true(e < 1e-2);
    rig_free(&g);
}

typedef struct tip {
    const kd_sked_link* L;
    const kd_body_desc* p;
    int n;
    double w[64];
} tip;

static int record_tip(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)t, (void)v, (void)a;
    tip* h = ctx;
    if (h->n >= 64) return 0;
    double* u = calloc(6 * (size_t)h->L->model->nnode, sizeof(double));
    kd_sked_link_displacements(h->L, q, u);
    const kd_node_set_desc* s = &h->p->node_sets[1];
    double w = 0;
    for (int i = 0; i < s->nnodes; i++) w += u[6 * (s->nodes[i] - 1) + 2] / s->nnodes;
    free(u);
    h->w[h->n++] = w;
    return 0;
}

/* The one-way dynamics' tip w history of the strip link with `modes` (0: the full link). */
static void run_tip(rig* g, int modes, int statics, tip* h, double* omega1) {
    kd_sked_link_spec sp = spec_plate(g->p, modes, statics);
    kd_sked_link* L = NULL;
    kd_error err;
    if (kd_sked_link_new(g->m, &g->r, &sp, &L, &err)) fail_msg("%s", err.msg);
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    kd_dynamics_desc dy = ad.dynamics;
    dy.integrator = KD_INTEGRATOR_NEWMARK, dy.dt = 2e-4, dy.output_every = 25;
    h->L = L, h->p = g->p, h->n = 0;
    if (kd_sked_link_dynamics(L, &dy, record_tip, h, NULL, &err)) fail_msg("%s", err.msg);
    kd_ked_modes md;
    if (kd_sked_modes_along_motion(L, &g->r, 1, KD_KED_GYRO_OFF, &md, &err)) fail_msg("%s", err.msg);
    *omega1 = md.omega[0];
    kd_ked_modes_free(&md);
    kd_sked_link_free(&L);
}

/* `modes: N` against the full link: the largest tip-w difference over the run relative to the
 * full link's largest tip w, strictly falling as N grows; with the static correction at the
 * outputs the quasi-static share of the truncated modes is back (every N: within 1e-5). The
 * first frequency of the reduced link against the clamped-free beam. */
static void test_modes(void** state) {
    (void)state;
    rig g;
    rig_new(&g, 20, 0.0);
    tip full;
    double w_full;
    run_tip(&g, 0, 0, &full, &w_full);
    double wmax = 0;
    for (int i = 0; i < full.n; i++) wmax = fmax(wmax, fabs(full.w[i]));
    const double A = B_ * T_, I = B_ * T_ * T_ * T_ / 12;
    const double b1 = (double)cantilever_beta1(), om_ref = b1 * b1 * sqrt(E_ * I / (RHO * A)) / (L_ * L_);
    static const int N[] = {1, 2, 4, 8, 16};
    double e_prev = INFINITY;
    for (int k = 0; k < 5; k++)
        for (int statics = 0; statics < 2; statics++) {
            tip h;
            double om;
            run_tip(&g, N[k], statics, &h, &om);
            assert_int_equal(h.n, full.n);
            double d = 0;
            for (int i = 0; i < h.n; i++) d = fmax(d, fabs(h.w[i] - full.w[i]));
            const double e = d / wmax, eo = fabs(om - om_ref) / om_ref;
            printf("modes %2d, static correction %s: tip w largest difference from the full link %.3e of %.4e m; "
                   "omega_1 %.5f rad/s (full %.5f, beam %.5f, rel %.2e)\n",
                   N[k], statics ? "output" : "none", e, wmax, om, w_full, om_ref, eo);
            assert_true(eo < 4e-3 && fabs(om - w_full) < 1e-6 * w_full);
            if (statics == 0) {
                assert_true(e < e_prev);
                e_prev = e;
            } else assert_true(e < 1e-5);
        }
    rig_free(&g);
}

/* The force balance along a vibrating run: the strip turned by theta = -A cos(w t) (at rest at
 * t = 0 with eps = A w^2, then swinging), Newmark's average acceleration (its equations hold at the
 * output instants). At each output the elastic joint force (frame components) against the inertia
 * of the elastic displacement field's mass in the moving frame,
 * sum_i m_i (a_i + 2 omega x v_i + eps x u_i + omega x (omega x u_i)), with the corner masses
 * rho t A_e / 4 of each element (the trapezoidal rule, exact for the bilinear translations). */
typedef struct balance {
    const kd_sked_link* L;
    double* mass;                 /* (nnode) */
    double* u;                    /* (3 x 6 nnode) */
    double dev, fmax;
    int n;
} balance;

static int check_balance(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link;
    balance* b = ctx;
    const kd_sked_link* L = b->L;
    const int nn = L->model->nnode;
    double *u = b->u, *ud = u + 6 * nn, *udd = u + 12 * nn;
    kd_sked_link_displacements(L, q, u), kd_sked_link_displacements(L, v, ud), kd_sked_link_displacements(L, a, udd);
    const kd_body* body = &L->model->body[0];
    kd_frame f;
    kd_motion_eval(&body->motion, body->rot, body->origin, t, &f);
    const double *w = f.omega_L, *e = f.eps_L;
    double ref[3] = {0, 0, 0};
    for (int i = 0; i < nn; i++) {
        const double *x = u + 6 * i, *xd = ud + 6 * i, *xdd = udd + 6 * i;
        const double wx[3] = {w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2], w[0] * x[1] - w[1] * x[0]};
        const double acc[3] = {xdd[0] + 2 * (w[1] * xd[2] - w[2] * xd[1]) + e[1] * x[2] - e[2] * x[1] +
                                   w[1] * wx[2] - w[2] * wx[1],
                               xdd[1] + 2 * (w[2] * xd[0] - w[0] * xd[2]) + e[2] * x[0] - e[0] * x[2] +
                                   w[2] * wx[0] - w[0] * wx[2],
                               xdd[2] + 2 * (w[0] * xd[1] - w[1] * xd[0]) + e[0] * x[1] - e[1] * x[0] +
                                   w[0] * wx[1] - w[1] * wx[0]};
        for (int c = 0; c < 3; c++) ref[c] += b->mass[i] * acc[c];
    }
    double dF[3], dl[3];
    kd_sked_link_reactions(L, t, q, v, a, dF);
    for (int c = 0; c < 3; c++) dl[c] = f.R[c] * dF[0] + f.R[3 + c] * dF[1] + f.R[6 + c] * dF[2];
    for (int c = 0; c < 3; c++) b->dev = fmax(b->dev, fabs(dl[c] - ref[c])), b->fmax = fmax(b->fmax, fabs(ref[c]));
    b->n++;
    return 0;
}

/* Two swings of the same eps at t = 0: A = 0.05, w = 20 (omega up to 1 rad/s) and A = 0.0125,
 * w = 40 (omega up to 0.5 rad/s). The residual leaves out the membrane pre-stress's geometric
 * stiffness at the support rows (theory.md sec. 22, SL7), ~ omega^2: the balance's error falls
 * with omega^2. */
static void test_force_balance(void** state) {
    (void)state;
    static const double amp[2] = {0.05, 0.0125}, om[2] = {20.0, 40.0}, tol[2] = {3e-4, 3e-5};
    for (int k = 0; k < 2; k++) {
        kd_body_desc* p = plate_strip(0.0, L_, B_, T_, 10, 2, KD_INTERP_MITC4);
        double mass, com[3], I6[6];
        assert_int_equal(kd_splate_mass(p, RHO, &mass, com, I6), 0);
        const double J[9] = {I6[0], I6[3], I6[5], I6[3], I6[1], I6[4], I6[5], I6[4], I6[2]};
        const double O[3] = {0, 0, 0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, n[3] = {0, 1, 0};
        kd_law law = kd_law_constant(0.0);
        law.type = KD_LAW_SINE, law.amplitude = amp[k], law.omega = om[k], law.phase = -1.5707963267948966;
        kd_smech* m = kd_smech_new();
        assert_int_equal(kd_smech_add_body(m, "blade", mass, J, com, O, I), 0);
        assert_int_equal(kd_smech_add_joint(m, "O", KD_SJOINT_REVOLUTE, -1, 0, O, O, n, n, 0), 0);
        assert_int_equal(kd_smech_add_driver(m, 0, &law, 0.0), 0);
        kd_error err;
        assert_int_equal(kd_smech_finish(m, &err), KD_OK);
        kd_sked_rigid r;
        assert_int_equal(kd_sked_rigid_solve(m, 0.2, 100, 1e8, &r, &err), KD_OK);
        kd_sked_link_spec sp = spec_plate(p, 0, 0);
        kd_sked_link* L = NULL;
        if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
        const int nn = L->model->nnode;
        balance b = {L, calloc((size_t)nn, sizeof(double)), calloc(18 * (size_t)nn, sizeof(double)), 0, 0, 0};
        const kd_mesh_desc* g = &p->mesh;
        for (int e = 0; e < g->nelems; e++) {
            const int* c = g->elem + 4 * (size_t)e;
            const double *x0 = g->node_x + 3 * c[0], *x2 = g->node_x + 3 * c[2];
            const double ae = fabs((x2[0] - x0[0]) * (x2[1] - x0[1]));  /* the rectangle's cells */
            for (int i = 0; i < 4; i++) b.mass[c[i]] += RHO * T_ * ae / 4;
        }
        kd_analysis_desc ad;
        kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
        kd_dynamics_desc dy = ad.dynamics;
        dy.integrator = KD_INTEGRATOR_NEWMARK, dy.dt = 2e-4, dy.output_every = 10;
        if (kd_sked_link_dynamics(L, &dy, check_balance, &b, NULL, &err)) fail_msg("%s", err.msg);
        printf("force balance, omega up to %.2f rad/s, %d outputs to t = 0.2 s: largest |dF - inertia of the elastic "
               "field| = %.3e N, largest inertia %.4e N (rel %.2e)\n",
               amp[k] * om[k], b.n, b.dev, b.fmax, b.dev / b.fmax);
        assert_true(b.n >= 100 && b.fmax > 1e-2 && b.dev < tol[k] * b.fmax);
        free(b.mass), free(b.u);
        kd_sked_link_free(&L);
        kd_sked_rigid_free(&r);
        kd_smech_free(&m);
        kd_law_free(&law);
        plate_strip_free(p);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_wrench),
        cmocka_unit_test(test_root_wrench_offset),
        cmocka_unit_test(test_force_balance),
        cmocka_unit_test(test_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
