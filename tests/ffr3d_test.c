/* Spatial floating-frame elastic bodies (src/links/floating_body3d.c, floating_spatial.c;
 * theory.md sec. 17) on the forward solvers, each against a reference independent of the
 * floating-frame equations:
 *   - a beam spun up about a tilted axis through its root (revolute joint with a driver, frame
 *     clamped at the root) against the moving-frame engine (kd_system, prescribed rotation about
 *     the same axis): the tip deflections v and w (both bending planes) agree over the run;
 *   - a free, deformed, tumbling beam (no gravity, no joints): T + U, the linear and the angular
 *     momentum stay constant (conservation laws, not M q'' = Q);
 *   - the rigid limit: a stiff beam as a spherical pendulum against the rigid spatial body of the
 *     same inertia (kedyn/smech.h), the tip paths converging like 1/E;
 *   - the planar limit: a beam pendulum on a revolute joint whose axis is normal to the plane of
 *     motion against the planar floating-frame route (kedyn/ffr.h).
 *   - the quadratic-velocity force against Lagrange's equations of T = q'^T M(q) q' / 2 by central
 *     differences (of the independent kinetic energy routine);
 *   - from a model file (examples/spatial_flexible_arm.yaml: a flexible arm on a tilted revolute
 *     joint, a flexible pendulum on a ball joint at its tip): T + V + U conserved, both bending
 *     planes of the arm excited; what the route does not take is a located error;
 *   - the joint rows (every type, at elastic nodes and rigid points, with revolute and translation
 *     drivers) against finite differences of Phi;
 *   - a link held at its tip node by each of the universal, cylindrical, prismatic, point-on-line,
 *     point-on-plane and distance joints against the rigid body on the same joint (kedyn/smech.h),
 *     the paths converging like 1/E, T + V + U conserved;
 *   - the geometric stiffness of the axial force: the flapwise frequency of a spinning cantilever
 *     against the published rotating-beam values, and without it the frequency at rest. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/ffr.h"
#include "kedyn/ffr3d.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "kedyn/smech.h"
#include "test_util.h"

/* ---- a recorder of the output samples ---- */
typedef struct rec {
    int n, cap, count;
    double* t;
    double *q, *qd;
} rec;

static int record(void* ctx, const kd_mbs_sample* smp) {
    rec* r = ctx;
    if (r->count == r->cap) return 1;
    r->t[r->count] = smp->t;
    memcpy(r->q + (size_t)r->n * r->count, smp->q, sizeof(double) * r->n);
    memcpy(r->qd + (size_t)r->n * r->count, smp->qd, sizeof(double) * r->n);
    r->count++;
    return 0;
}

static rec* rec_new(int n, int cap) {
    rec* r = calloc(1, sizeof(rec));
    r->n = n, r->cap = cap;
    r->t = malloc(sizeof(double) * cap);
    r->q = malloc(sizeof(double) * cap * n);
    r->qd = malloc(sizeof(double) * cap * n);
    return r;
}

static void rec_free(rec* r) { free(r->t), free(r->q), free(r->qd), free(r); }

static kd_mbs_opts opts(double t_end, double dt, int every) {
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = KD_MBS_AUGMENTED, o.t_end = t_end, o.dt = dt, o.output_every = every;
    o.stabilization = KD_MBS_STAB_PROJECTION;
    return o;
}

/* an aluminium-like square section 20 x 20 mm */
static const double AL_E = 7e9, AL_RHO = 2700, AREA = 4e-4, IBEND = 1.3333e-8, JT = 2.25e-8;

static kd_ffr3d_beam beam3(double L, int ne, double E) {
    kd_ffr3d_beam b = {L, ne, KD_THEORY_EULER_BERNOULLI, E, E / 2.6, AL_RHO, AREA, IBEND, IBEND, JT, 0};
    return b;
}

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* ---- spin-up about a tilted axis: the moving-frame engine ---- */
typedef struct tip_rec {
    int eq[2], n;
    double t[2001], v[2][2001];
} tip_rec;

static int tip_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a, (void)e;
    tip_rec* r = ctx;
    if (r->n < 2001) {
        r->t[r->n] = t;
        for (int c = 0; c < 2; c++) r->v[c][r->n] = q[r->eq[c]];
        r->n++;
    }
    return 0;
}

static double spin_up_error(int mutate_check, double* vmax_out) {
    const double L = 1.0, W = 20, TS = 0.4, t_end = 0.6;
    const int ne = 5;
    double ax[3] = {0.4, 0.3, 1.0};
    const double na = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    for (int i = 0; i < 3; i++) ax[i] /= na;
    kd_law spin = kd_law_constant(0);
    spin.type = KD_LAW_SPIN_UP, spin.spin_omega = W, spin.spin_T = TS;
    /* moving frame (src/fe/system.c): prescribed rotation about the axis through the root */
    kd_section_desc sec = {0};
    sec.shape = KD_SHAPE_GENERIC, sec.A = AREA, sec.Iy = sec.Iz = IBEND, sec.J = JT;
    kd_desc* d = one_beam(AL_E, AL_RHO, 0.3, sec, L, ne, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 0);
    d->bodies[0].geometric_stiffness = 0;
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION;
    memcpy(md->motion.axis, ax, sizeof(ax));
    md->motion.angle = spin;
    kd_error err;
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    static tip_rec r;
    memset(&r, 0, sizeof(r));
    r.eq[0] = m->neq - 5, r.eq[1] = m->neq - 4;   /* v, w at the tip (u v w rx ry rz per node) */
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    a.dynamics.t_end = t_end, a.dynamics.dt = 5e-5, a.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
    a.dynamics.rho_inf = 1.0, a.dynamics.output_every = 10, a.dynamics.rtol = 1e-8, a.dynamics.atol = 1e-12;
    if (kd_dynamics_run(m, &a, tip_out, &r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    kd_model_free(&m);
    kd_desc_free(&d);
    /* floating frame: a revolute joint at the root (ground first) with the driven rotation */
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_ffr3d_beam b = beam3(L, ne, AL_E);
    assert_int_equal(kd_ffr3d_add_beam(s, "beam", &b, NULL), 0);
    const int j = kd_ffr3d_add_joint(s, KD_FFR3D_REVOLUTE, (kd_ffr3d_point){.body = -1},
                                     (kd_ffr3d_point){.body = 0, .node = 0}, ax, NULL);
    assert_int_equal(kd_ffr3d_add_driver(s, j, &spin, 0, NULL), KD_OK);
    const int n = 7 + 6 * ne;
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    const double zero[3] = {0, 0, 0};
    kd_ffr3d_set_pose(s, 0, zero, I3, zero, zero, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    assert_int_equal(kd_ffr3d_size(s), n);
    const int iv = kd_ffr3d_node_coordinate(s, 0, ne, 1), iw = kd_ffr3d_node_coordinate(s, 0, ne, 2);
    rec* out = rec_new(n, 2100);
    kd_mbs_opts o = opts(t_end, 2e-5, 25);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, record, out, NULL, &err), KD_OK);
    assert_int_equal(out->count, r.n);
    double dmax = 0, vmax[2] = {0, 0};
    for (int k = 0; k < r.n; k++) {
        assert_true(fabs(out->t[k] - r.t[k]) < 1e-9);
        dmax = fmax(dmax, fabs(out->q[(size_t)n * k + iv] - r.v[0][k]));
        dmax = fmax(dmax, fabs(out->q[(size_t)n * k + iw] - r.v[1][k]));
        vmax[0] = fmax(vmax[0], fabs(r.v[0][k])), vmax[1] = fmax(vmax[1], fabs(r.v[1][k]));
    }
    if (!mutate_check)
        printf("tilted spin-up: tip v up to %.4e m, w up to %.4e m (moving frame); floating frame differs by %.2e m\n",
               vmax[0], vmax[1], dmax);
    *vmax_out = fmin(vmax[0], vmax[1]);
    rec_free(out), free(q), free(qd);
    kd_ffr3d_free(&s);
    return dmax / fmax(vmax[0], vmax[1]);
}

static void test_spin_up_matches_moving_frame(void** state) {
    (void)state;
    double vmin;
    const double e = spin_up_error(0, &vmin);
    assert_true(vmin > 1e-5);   /* both bending planes respond */
    assert_true(e < 1e-4);
}

/* ---- a free tumbling elastic beam: conservation laws ---- */
static void test_free_body_conserves(void** state) {
    (void)state;
    const double L = 0.8, t_end = 0.15;
    const int ne = 4;
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_ffr3d_beam b = beam3(L, ne, AL_E);
    kd_ffr3d_add_beam(s, "beam", &b, NULL);
    const int n = 7 + 6 * ne;
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    const double r0[3] = {0.1, -0.2, 0.3}, v0[3] = {0.5, 0.2, -0.1}, w0[3] = {1.5, -4.0, 6.0};
    double R[9];
    const double axr[3] = {1, 2, 3};
    kd_rot_axis_angle(axr, 0.7, R);
    kd_ffr3d_set_pose(s, 0, r0, R, v0, w0, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    /* a bent and twisted start with elastic velocities */
    for (int k = 1; k <= ne; k++) {
        const double x = (double)k / ne;
        q[kd_ffr3d_node_coordinate(s, 0, k, 1)] = 2e-3 * x * x;
        q[kd_ffr3d_node_coordinate(s, 0, k, 2)] = -1e-3 * x * x;
        q[kd_ffr3d_node_coordinate(s, 0, k, 3)] = 0.01 * x;
        qd[kd_ffr3d_node_coordinate(s, 0, k, 2)] = 0.05 * x * x;
    }
    double T0, U0, p0[3], L0[3];
    kd_ffr3d_energy(s, q, qd, &T0, NULL, &U0);
    kd_ffr3d_momentum(s, q, qd, p0, L0);
    rec* out = rec_new(n, 400);
    kd_error err;
    kd_mbs_opts o = opts(t_end, 5e-6, 100);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, record, out, NULL, &err), KD_OK);
    double dE = 0, dp = 0, dL = 0, Umax = 0;
    const double nL = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
    const double np = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
    for (int k = 0; k < out->count; k++) {
        double T, U, p[3], Lm[3];
        kd_ffr3d_energy(s, out->q + (size_t)n * k, out->qd + (size_t)n * k, &T, NULL, &U);
        kd_ffr3d_momentum(s, out->q + (size_t)n * k, out->qd + (size_t)n * k, p, Lm);
        dE = fmax(dE, fabs(T + U - T0 - U0));
        Umax = fmax(Umax, U);
        for (int i = 0; i < 3; i++) dp = fmax(dp, fabs(p[i] - p0[i])), dL = fmax(dL, fabs(Lm[i] - L0[i]));
    }
    printf("free beam: T0 + U0 = %.6e J (U up to %.3e J); |dE| %.2e, |dp| %.2e (|p| %.3e), |dL| %.2e (|L| %.3e)\n",
           T0 + U0, Umax, dE, dp, np, dL, nL);
    assert_true(Umax > 1e-3 * (T0 + U0));   /* the elastic energy takes part */
    assert_true(dE < 2e-6 * (T0 + U0));   /* RK4's own dissipation of the axial modes (h = 5e-6 s) */
    assert_true(dp < 1e-8 * np);
    assert_true(dL < 1e-8 * nL);
    rec_free(out), free(q), free(qd);
    kd_ffr3d_free(&s);
}

/* ---- rigid limit: spherical pendulum against the rigid spatial body ---- */
static double pendulum_tip_error(double E, double* span) {
    const double L = 0.5, t_end = 0.25, g = 9.81;
    const int ne = 4;
    const double gv[3] = {0, 0, -g}, w0[3] = {0, 1.0, 5.0};
    kd_ffr3d_beam b = beam3(L, ne, E);
    /* rigid reference: frame at the root, centre of mass at L/2 */
    kd_smech* m = kd_smech_new();
    const double mass = AL_RHO * AREA * L;
    const double J[9] = {AL_RHO * 2 * IBEND * L, 0, 0, 0, mass * L * L / 12 + AL_RHO * IBEND * L, 0,
                         0, 0, mass * L * L / 12 + AL_RHO * IBEND * L};
    const double com[3] = {L / 2, 0, 0}, zero[3] = {0, 0, 0};
    assert_int_equal(kd_smech_add_body(m, "beam", mass, J, com, zero, I3), 0);
    memcpy(m->g, gv, sizeof(gv));
    double vcom[3] = {0, w0[2] * L / 2, -w0[1] * L / 2};   /* w x (L/2, 0, 0) */
    kd_smech_set_velocity(m, 0, vcom, w0);
    assert_true(kd_smech_add_joint(m, "O", KD_SJOINT_SPHERICAL, -1, 0, zero, zero, NULL, NULL, 0) >= 0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    kd_cms rc;
    kd_smech_cms(m, &rc);
    rec* rr = rec_new(m->n, 200);
    kd_mbs_opts o = opts(t_end, 1e-5, 250);
    assert_int_equal(kd_mbs_forward(&rc, &o, m->q0, m->qd0, record, rr, NULL, &err), KD_OK);
    /* floating frame */
    kd_ffr3d_system* s = kd_ffr3d_new(gv);
    kd_ffr3d_add_beam(s, "beam", &b, NULL);
    kd_ffr3d_add_joint(s, KD_FFR3D_SPHERICAL, (kd_ffr3d_point){.body = -1}, (kd_ffr3d_point){.body = 0, .node = 0},
                       NULL, NULL);
    const int n = 7 + 6 * ne;
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    kd_ffr3d_set_pose(s, 0, zero, I3, zero, w0, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    rec* out = rec_new(n, 200);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, record, out, NULL, &err), KD_OK);
    assert_int_equal(out->count, rr->count);
    double e = 0;
    *span = 0;
    const double tip[3] = {L / 2, 0, 0};
    for (int k = 0; k < out->count; k++) {
        double a[3], c[3];
        kd_ffr3d_point_position(s, out->q + (size_t)n * k, (kd_ffr3d_point){.body = 0, .node = ne}, a);
        kd_smech_point(m, 0, tip, rr->q + (size_t)m->n * k, NULL, c, NULL);
        for (int i = 0; i < 3; i++) e = fmax(e, fabs(a[i] - c[i])), *span = fmax(*span, fabs(c[i] - (i == 0 ? L : 0)));
    }
    rec_free(out), rec_free(rr), free(q), free(qd);
    kd_ffr3d_free(&s);
    kd_smech_free(&m);
    return e;
}

static void test_rigid_limit(void** state) {
    (void)state;
    double span;
    const double e1 = pendulum_tip_error(7e9, &span), e2 = pendulum_tip_error(1.12e11, &span);
    printf("rigid limit: tip path of the rigid body moves %.3f m; floating frame differs by %.3e m (E = 7 GPa), "
           "%.3e m (E = 112 GPa), ratio %.1f (1/E: 16)\n",
           span, e1, e2, e1 / e2);
    assert_true(span > 0.2);
    assert_true(e2 < 2e-5);
    assert_true(e1 / e2 > 8 && e1 / e2 < 32);
}

/* ---- planar limit: the planar floating-frame route ---- */
static void test_planar_limit(void** state) {
    (void)state;
    const double L = 0.6, t_end = 0.3, g = 9.81;
    const int ne = 4;
    /* planar: pinned at the root, frame clamped there, swinging in x-y under gravity -y */
    kd_ffr_system* p = kd_ffr_new(0, -g);
    kd_ffr_beam pb = {L, ne, KD_THEORY_EULER_BERNOULLI, AL_E, AL_RHO, AREA, IBEND, KD_FFR_ROOT, 0};
    kd_ffr_add_beam(p, "beam", &pb, NULL);
    kd_ffr_add_revolute(p, (kd_ffr_point){.body = 0, .node = 0}, (kd_ffr_point){.body = -1}, NULL);
    assert_int_equal(kd_ffr_finish(p, NULL), KD_OK);
    const int np = kd_ffr_size(p);
    double* q2 = calloc(np, sizeof(double));
    double* qd2 = calloc(np, sizeof(double));
    qd2[2] = 3.0;   /* theta' */
    kd_error err;
    kd_mbs_opts o = opts(t_end, 1e-5, 500);
    rec* r2 = rec_new(np, 100);
    assert_int_equal(kd_mbs_forward(kd_ffr_cms(p), &o, q2, qd2, record, r2, NULL, &err), KD_OK);
    /* spatial: revolute about z */
    const double gv[3] = {0, -g, 0}, zero[3] = {0, 0, 0}, w0[3] = {0, 0, 3.0}, z[3] = {0, 0, 1};
    kd_ffr3d_system* s = kd_ffr3d_new(gv);
    kd_ffr3d_beam b = beam3(L, ne, AL_E);
    kd_ffr3d_add_beam(s, "beam", &b, NULL);
    kd_ffr3d_add_joint(s, KD_FFR3D_REVOLUTE, (kd_ffr3d_point){.body = -1}, (kd_ffr3d_point){.body = 0, .node = 0}, z,
                       NULL);
    const int n = 7 + 6 * ne;
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    kd_ffr3d_set_pose(s, 0, zero, I3, zero, w0, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    rec* r3 = rec_new(n, 100);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, record, r3, NULL, &err), KD_OK);
    assert_int_equal(r2->count, r3->count);
    const int iv2 = kd_ffr_node_coordinate(p, 0, ne, KD_DOF_V), iv3 = kd_ffr3d_node_coordinate(s, 0, ne, 1);
    const int iw3 = kd_ffr3d_node_coordinate(s, 0, ne, 2);
    double dv = 0, vmax = 0, dth = 0, wout = 0;
    for (int k = 0; k < r2->count; k++) {
        const double* x3 = r3->q + (size_t)n * k;
        /* the frame angle about z from the Euler parameters: theta = 2 atan2(e3, e0) */
        const double th3 = 2 * atan2(x3[6], x3[3]);
        dth = fmax(dth, fabs(th3 - r2->q[(size_t)np * k + 2]));
        dv = fmax(dv, fabs(x3[iv3] - r2->q[(size_t)np * k + iv2]));
        vmax = fmax(vmax, fabs(r2->q[(size_t)np * k + iv2]));
        wout = fmax(wout, fabs(x3[iw3]));
    }
    printf("planar limit: tip v up to %.4e m; spatial differs by %.2e m, angle by %.2e rad, out of plane %.1e m\n", vmax,
           dv, dth, wout);
    assert_true(vmax > 1e-5);
    assert_true(dv < 1e-6 * vmax);
    assert_true(dth < 1e-9);
    assert_true(wout < 1e-12);
    rec_free(r2), rec_free(r3), free(q), free(qd), free(q2), free(qd2);
    kd_ffr3d_free(&s);
    kd_ffr_free(&p);
}

/* ---- the mass matrix and the quadratic-velocity force against T(q, q') ---- */
static void test_inertia_against_kinetic_energy(void** state) {
    (void)state;
    const int ne = 3, n = 7 + 6 * ne;
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_ffr3d_beam b = beam3(0.7, ne, AL_E);
    kd_ffr3d_add_beam(s, "beam", &b, NULL);
    double q[25], qd[25], R[9];
    const double ax[3] = {-1, 0.5, 2}, r0[3] = {0.2, 0.1, -0.3}, v0[3] = {1, -2, 0.5}, w0[3] = {3, -1, 2};
    kd_rot_axis_angle(ax, 1.1, R);
    kd_ffr3d_set_pose(s, 0, r0, R, v0, w0, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    srand(7);
    for (int a = 7; a < n; a++) q[a] = 0.02 * (rand() / (double)RAND_MAX - 0.5), qd[a] = 2 * (rand() / (double)RAND_MAX - 0.5);
    /* M q'.q' / 2 against the kinetic energy routine (sum of the invariant terms) */
    double M[625], T;
    kd_ffr3d_body_mass(s, 0, q, M);
    kd_ffr3d_energy(s, q, qd, &T, NULL, NULL);
    double Tm = 0, c = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) Tm += 0.5 * qd[i] * M[i + n * k] * qd[k];
    /* the regularisation c (p.p')^2 / 2 is zero: p.p' = 0 on the unit sphere */
    for (int k = 0; k < 4; k++) c += q[3 + k] * qd[3 + k];
    assert_true(fabs(c) < 1e-14);
    printf("kinetic energy: q'Mq'/2 = %.12e, invariants %.12e\n", Tm, T);
    assert_true(fabs(Tm - T) < 1e-12 * T);
    /* Lagrange: Q_v = -d/dt (dT/dq') + dT/dq = -(M' q') + dT/dq with M' = dM/dq q' (central
     * differences), minus the elastic force; compared on the elastic rows and the frame
     * translation rows (the p rows differ by a multiple of p, taken by the normalisation) */
    double Q[25], Qv[25];
    kd_ffr3d_body_force(s, 0, q, qd, Q);
    const double h = 1e-6;
    double qp[25], qm[25], Mp[625], Mm[625];
    for (int i = 0; i < n; i++) qp[i] = q[i] + h * qd[i], qm[i] = q[i] - h * qd[i];
    kd_ffr3d_body_mass(s, 0, qp, Mp);
    kd_ffr3d_body_mass(s, 0, qm, Mm);
    for (int i = 0; i < n; i++) {
        double x = 0;
        for (int k = 0; k < n; k++) x -= (Mp[i + n * k] - Mm[i + n * k]) / (2 * h) * qd[k];
        /* dT/dq_i by central differences of the kinetic energy at fixed q' */
        double a[25], bq[25], Ta, Tb;
        memcpy(a, q, sizeof(a)), memcpy(bq, q, sizeof(bq));
        a[i] += h, bq[i] -= h;
        kd_ffr3d_energy(s, a, qd, &Ta, NULL, NULL);
        kd_ffr3d_energy(s, bq, qd, &Tb, NULL, NULL);
        Qv[i] = x + (Ta - Tb) / (2 * h);
    }
    /* remove the elastic force -K q_f from Q: K q_f = Q(q, 0) at zero gravity without velocities */
    double zd[25] = {0}, Qk[25];
    kd_ffr3d_body_force(s, 0, q, zd, Qk);
    double emax = 0, scale = 0;
    for (int i = 0; i < n; i++) {
        if (i >= 3 && i < 7) continue;
        emax = fmax(emax, fabs(Q[i] - Qk[i] - Qv[i]));
        scale = fmax(scale, fabs(Qv[i]));
    }
    printf("quadratic-velocity force: largest %.4e, differs from Lagrange's by %.2e\n", scale, emax);
    assert_true(emax < 1e-6 * scale);
    kd_ffr3d_free(&s);
}

/* ---- from a model file ---- */
static void test_model_file(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_EXAMPLES_DIR "/spatial_flexible_arm.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_smech* m = NULL;
    assert_int_equal(kd_smech_compile(d, &m, &err), KD_OK);
    kd_ffr3d_system* s = NULL;
    double *q0 = NULL, *qd0 = NULL;
    if (kd_ffr3d_from_smech(d, m, &s, &q0, &qd0, &err)) fail_msg("%s", err.msg);
    const int n = kd_ffr3d_size(s);
    assert_int_equal(n, 7 + 36 + 7 + 18);
    assert_int_equal(kd_ffr3d_cms(s)->nc, 5 + 3 + 2);
    rec* out = rec_new(n, 100);
    kd_mbs_opts o = opts(0.1, 1e-5, 200);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q0, qd0, record, out, NULL, &err), KD_OK);
    double E0 = 0, dE = 0, Tmax = 0, v = 0, w = 0;
    const int iv = kd_ffr3d_node_coordinate(s, 0, 6, 1), iw = kd_ffr3d_node_coordinate(s, 0, 6, 2);
    for (int k = 0; k < out->count; k++) {
        double T, V, U;
        kd_ffr3d_energy(s, out->q + (size_t)n * k, out->qd + (size_t)n * k, &T, &V, &U);
        if (k == 0) E0 = T + V + U;
        dE = fmax(dE, fabs(T + V + U - E0)), Tmax = fmax(Tmax, T);
        v = fmax(v, fabs(out->q[(size_t)n * k + iv])), w = fmax(w, fabs(out->q[(size_t)n * k + iw]));
    }
    printf("model file: T up to %.4e J, |d(T + V + U)| %.2e J; arm tip v up to %.3e m, w up to %.3e m\n", Tmax, dE, v,
           w);
    assert_true(dE < 1e-8 * Tmax);
    assert_true(v > 1e-4 && w > 1e-5);
    /* Kane's projection on the independent speeds (maggi), which shares no linear algebra with the
     * augmented form: the same motion over 5 ms */
    rec* a2 = rec_new(n, 100);
    rec* m2 = rec_new(n, 100);
    kd_mbs_opts oa = opts(0.005, 1e-5, 100), om = oa;
    om.formulation = KD_MBS_MAGGI;
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &oa, q0, qd0, record, a2, NULL, &err), KD_OK);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &om, q0, qd0, record, m2, NULL, &err), KD_OK);
    assert_int_equal(a2->count, m2->count);
    double dq = 0, vq = 0;
    for (int k = 0; k < a2->count; k++) {
        dq = fmax(dq, fabs(a2->q[(size_t)n * k + iv] - m2->q[(size_t)n * k + iv]));
        vq = fmax(vq, fabs(a2->q[(size_t)n * k + iv]));
    }
    printf("model file: augmented and maggi tip v (up to %.3e m) differ by %.2e m\n", vq, dq);
    assert_true(dq < 1e-6 * vq);
    rec_free(a2), rec_free(m2);
    rec_free(out), free(q0), free(qd0);
    kd_ffr3d_free(&s);
    kd_smech_free(&m);
    kd_desc_free(&d);
    /* a Timoshenko link is not taken: located at the body (every joint type is, F8) */
    static const char bad[] =
        "kedyn: 1\nspatial: true\nmaterials:\n  al: {E: 70e9, rho: 2700}\nsections:\n  s: {shape: circle, d: 0.01}\n"
        "bodies:\n  - {name: ground, type: ground, points: {O: [0, 0, 0]}}\n"
        "  - {name: arm, type: beam, material: al, section: s, theory: timoshenko, points: {O: [0, 0, 0], T: [0.5, 0, 0]}}\n"
        "joints:\n  - {name: O, type: universal, bodies: [ground, arm], points: [O, O], axes: [[0, 0, 1], [0, 1, 0]]}\n"
        "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.1, dt: 1.0e-5}\n";
    assert_int_not_equal(kd_load_yaml_string(bad, strlen(bad), "bad.yaml", &d, &err), KD_OK);
    printf("bad model: %s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    assert_int_equal(err.loc.line, 9);   /* the link */
    assert_non_null(strstr(err.msg, "rayleigh"));
}

/* Phi_q, Phi_t and gamma of a system's rows at (q, q') against central differences of Phi:
 * Phi_q (h = 1e-6), Phi_t, and gamma = -d2/dtau2 Phi(q + tau q', t + tau) at q'' = 0 (h = 1e-4;
 * theory.md sec. 6.6). */
static void rows_against_differences(const kd_cms* c, int n, const double* q, const double* qd, const char* what) {
    const int nc = c->nc;
    double* jac = malloc(sizeof(double) * c->jac_nnz);
    double* J = calloc((size_t)nc * n, sizeof(double));
    double *f1 = malloc(sizeof(double) * nc), *f2 = malloc(sizeof(double) * nc), *f0 = malloc(sizeof(double) * nc);
    double *gam = malloc(sizeof(double) * nc), *pt = malloc(sizeof(double) * nc);
    double* x = malloc(sizeof(double) * n);
    const double t = 0.37;
    c->jacobian(c->ctx, t, q, jac);
    for (int r = 0; r < nc; r++)
        for (int k = c->jac_rowptr[r]; k < c->jac_rowptr[r + 1]; k++) J[(size_t)r * n + c->jac_col[k]] = jac[k];
    const double h = 1e-6;
    double ej = 0, sj = 0;
    for (int k = 0; k < n; k++) {
        memcpy(x, q, sizeof(double) * n);
        x[k] += h;
        c->phi(c->ctx, t, x, f1);
        x[k] -= 2 * h;
        c->phi(c->ctx, t, x, f2);
        for (int r = 0; r < nc; r++) {
            ej = fmax(ej, fabs((f1[r] - f2[r]) / (2 * h) - J[(size_t)r * n + k]));
            sj = fmax(sj, fabs(J[(size_t)r * n + k]));
        }
    }
    /* Phi_t and gamma = -d2/dtau2 Phi(q + tau q', t + tau) + ... at q'' = 0 (theory.md sec. 6.6) */
    c->phi_t(c->ctx, t, q, pt);
    c->gamma(c->ctx, t, q, qd, gam);
    c->phi(c->ctx, t, q, f0);
    const double h2 = 1e-4;
    double et = 0, eg = 0, sg = 0;
    c->phi(c->ctx, t + h, q, f1);
    c->phi(c->ctx, t - h, q, f2);
    for (int r = 0; r < nc; r++) et = fmax(et, fabs((f1[r] - f2[r]) / (2 * h) - pt[r]));
    for (int i = 0; i < n; i++) x[i] = q[i] + h2 * qd[i];
    c->phi(c->ctx, t + h2, x, f1);
    for (int i = 0; i < n; i++) x[i] = q[i] - h2 * qd[i];
    c->phi(c->ctx, t - h2, x, f2);
    for (int r = 0; r < nc; r++) {
        const double d2 = (f1[r] - 2 * f0[r] + f2[r]) / (h2 * h2);
        eg = fmax(eg, fabs(-d2 - gam[r])), sg = fmax(sg, fabs(gam[r]));
    }
    printf("%s: Phi_q %.2e (largest %.3e), Phi_t %.2e, gamma %.2e (largest %.3e) from differences\n", what, ej, sj,
           et, eg, sg);
    assert_true(ej < 1e-8 * sj);
    assert_true(et < 1e-8);
    assert_true(eg < 1e-5 * sg);
    free(jac), free(J), free(f1), free(f2), free(f0), free(gam), free(pt), free(x);
}


/* ---- the joint rows at elastic nodes against finite differences ---- */
static void test_joint_rows_finite_differences(void** state) {
    (void)state;
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_ffr3d_beam a = beam3(0.6, 3, AL_E), b = beam3(0.4, 2, AL_E);
    const double Jc[9] = {2e-3, 1e-4, 0, 1e-4, 3e-3, 0, 0, 0, 4e-3};
    kd_ffr3d_add_beam(s, "A", &a, NULL);
    kd_ffr3d_add_beam(s, "B", &b, NULL);
    kd_ffr3d_add_rigid(s, "C", 0.7, Jc, NULL);
    const double ax1[3] = {0.2, -0.3, 1}, ax2[3] = {1, 0.4, 0.1}, ax3[3] = {-0.5, 1, 0.3};
    const kd_ffr3d_point g = {.body = -1, .p = {0.1, 0.2, 0.3}};
    const int j0 = kd_ffr3d_add_joint(s, KD_FFR3D_REVOLUTE, g, (kd_ffr3d_point){.body = 0, .node = 0}, ax1, NULL);
    kd_ffr3d_add_joint(s, KD_FFR3D_FIXED, (kd_ffr3d_point){.body = 0, .node = 3}, (kd_ffr3d_point){.body = 1, .node = 0},
                       ax2, NULL);
    const int j2 = kd_ffr3d_add_joint(s, KD_FFR3D_REVOLUTE, (kd_ffr3d_point){.body = 1, .node = 2},
                                      (kd_ffr3d_point){.body = 2, .p = {0.05, -0.02, 0.01}}, ax3, NULL);
    kd_ffr3d_add_joint(s, KD_FFR3D_SPHERICAL, (kd_ffr3d_point){.body = 0, .node = 1},
                       (kd_ffr3d_point){.body = 2, .p = {-0.1, 0.03, 0}}, NULL, NULL);
    kd_law law = kd_law_constant(0);
    law.type = KD_LAW_SPEED, law.value = 3.0;
    assert_int_equal(kd_ffr3d_add_driver(s, j0, &law, 0.2, NULL), KD_OK);
    assert_int_equal(kd_ffr3d_add_driver(s, j2, &law, -0.1, NULL), KD_OK);
    const int n = 7 + 18 + 7 + 12 + 7;
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    srand(11);
    for (int bd = 0; bd < 3; bd++) {
        double R[9];
        const double ax[3] = {rand() % 7 - 3.0, rand() % 5 - 2.0, 1.0}, r[3] = {0.1 * bd, -0.2, 0.05 * bd};
        const double v[3] = {0.3, -0.1, 0.2 * bd}, w[3] = {1.0 - bd, 2.0, -0.5 * bd};
        kd_rot_axis_angle(ax, 0.4 + bd, R);
        kd_ffr3d_set_pose(s, bd, r, R, v, w, q, qd);
    }
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    for (int bd = 0; bd < 2; bd++) {
        const int o = kd_ffr3d_body_offset(s, bd) + 7, nf = bd == 0 ? 18 : 12;
        for (int k = 0; k < nf; k++) q[o + k] = 0.01 * (rand() / (double)RAND_MAX - 0.5), qd[o + k] = rand() / (double)RAND_MAX - 0.5;
    }
    const kd_cms* c = kd_ffr3d_cms(s);
    assert_int_equal(c->nc, 5 + 6 + 5 + 3 + 3 + 2);
    rows_against_differences(c, n, q, qd, "joint rows");
    free(q), free(qd);
    kd_ffr3d_free(&s);
}

/* ---- the other joints (F8) at elastic nodes and rigid points against finite differences ---- */
static void test_more_joint_rows_finite_differences(void** state) {
    (void)state;
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_ffr3d_beam a = beam3(0.6, 3, AL_E), b = beam3(0.4, 2, AL_E);
    const double Jc[9] = {2e-3, 1e-4, 0, 1e-4, 3e-3, 0, 0, 0, 4e-3}, Jd[9] = {1e-3, 0, 2e-4, 0, 2e-3, 0, 2e-4, 0, 2.5e-3};
    kd_ffr3d_add_beam(s, "A", &a, NULL);
    kd_ffr3d_add_beam(s, "B", &b, NULL);
    kd_ffr3d_add_rigid(s, "C", 0.7, Jc, NULL);
    kd_ffr3d_add_rigid(s, "D", 0.4, Jd, NULL);
    const double ax1[3] = {0.2, -0.3, 1}, ax1b[3] = {1, 0, -0.2}, ax2[3] = {1, 0.4, 0.1}, ax3[3] = {-0.5, 1, 0.3};
    const double ax4[3] = {0.3, 0.9, -0.2}, ax4b[3] = {0.9, -0.3, 0};
    const kd_ffr3d_point g = {.body = -1, .p = {0.1, 0.2, 0.3}};
    const kd_ffr3d_point A0 = {.body = 0, .node = 0}, A1 = {.body = 0, .node = 1}, A2 = {.body = 0, .node = 2},
                         A3 = {.body = 0, .node = 3}, B0 = {.body = 1, .node = 0}, B1 = {.body = 1, .node = 1},
                         B2 = {.body = 1, .node = 2}, C = {.body = 2, .p = {0.05, -0.02, 0.01}},
                         C2 = {.body = 2, .p = {-0.1, 0.03, 0}}, D = {.body = 3, .p = {0.02, 0.04, -0.03}};
    /* universal ground - node 1 of A (held), universal at an inner node of A (axes turned by its
     * rotation) to a rigid body; cylindrical (driven) from A's tip node to B's node 1, prismatic
     * (driven) from B's tip node to C, point-on-line from A's node 2 to C, point-on-plane from C to
     * B's node 2, distance from A's node 3 to D */
    assert_true(kd_ffr3d_add_joint_ex(s, KD_FFR3D_UNIVERSAL, g, A0, ax1, ax1b, 0, NULL) >= 0);
    assert_true(kd_ffr3d_add_joint_ex(s, KD_FFR3D_UNIVERSAL, A2, D, ax4, ax4b, 0, NULL) >= 0);
    const int jc = kd_ffr3d_add_joint(s, KD_FFR3D_CYLINDRICAL, A3, B0, ax2, NULL);
    const int jp = kd_ffr3d_add_joint(s, KD_FFR3D_PRISMATIC, B2, C, ax3, NULL);
    assert_true(kd_ffr3d_add_joint(s, KD_FFR3D_POINT_ON_LINE, A1, C2, ax1, NULL) >= 0);
    assert_true(kd_ffr3d_add_joint(s, KD_FFR3D_POINT_ON_PLANE, C, B1, ax2, NULL) >= 0);
    assert_true(kd_ffr3d_add_joint_ex(s, KD_FFR3D_DISTANCE, A3, D, NULL, NULL, 0, NULL) >= 0);
    /* bad input: universal axes not orthogonal, a zero axis, a driver of a point-on-line joint */
    kd_error err;
    assert_int_equal(kd_ffr3d_add_joint_ex(s, KD_FFR3D_UNIVERSAL, g, A0, ax1, ax2, 0, &err), -1);
    const double z3[3] = {0, 0, 0};
    assert_int_equal(kd_ffr3d_add_joint(s, KD_FFR3D_POINT_ON_PLANE, g, A0, z3, &err), -1);
    kd_law law = kd_law_constant(0), law2 = kd_law_constant(0);
    law.type = KD_LAW_SPEED, law.value = 0.3;
    law2.type = KD_LAW_SINE, law2.amplitude = 0.05, law2.omega = 7.0;
    assert_int_not_equal(kd_ffr3d_add_driver(s, 4, &law, 0.0, &err), KD_OK);
    assert_int_equal(kd_ffr3d_add_driver(s, jc, &law, 0.2, NULL), KD_OK);
    assert_int_equal(kd_ffr3d_add_driver(s, jp, &law2, -0.1, NULL), KD_OK);
    const int n = 7 + 18 + 7 + 12 + 7 + 7;
    assert_int_equal(kd_ffr3d_size(s), n);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    srand(17);
    for (int bd = 0; bd < 4; bd++) {
        double R[9];
        const double ax[3] = {rand() % 7 - 3.0, rand() % 5 - 2.0, 1.0}, r[3] = {0.1 * bd, -0.2, 0.05 * bd};
        const double v[3] = {0.3, -0.1, 0.2 * bd}, w[3] = {1.0 - bd, 2.0, -0.5 * bd};
        kd_rot_axis_angle(ax, 0.4 + bd, R);
        kd_ffr3d_set_pose(s, bd, r, R, v, w, q, qd);
    }
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    for (int bd = 0; bd < 2; bd++) {
        const int o = kd_ffr3d_body_offset(s, bd) + 7, nf = bd == 0 ? 18 : 12;
        for (int k = 0; k < nf; k++) q[o + k] = 0.01 * (rand() / (double)RAND_MAX - 0.5), qd[o + k] = rand() / (double)RAND_MAX - 0.5;
    }
    const kd_cms* c = kd_ffr3d_cms(s);
    assert_int_equal(c->nc, 4 + 4 + 4 + 5 + 2 + 1 + 1 + 4 + 2);
    rows_against_differences(c, n, q, qd, "universal, cylindrical, prismatic, point-on-line/plane, distance rows");
    free(q), free(qd);
    kd_ffr3d_free(&s);
}

/* ---- each other joint (F8) at a link's tip node against the rigid spatial route ---- */
/* A 0.5 m beam (2 elements) along x, its tip node at the origin held by the joint under test to
 * the ground, gravity -z, started moving as the joint allows; the same body rigid (kedyn/smech.h,
 * the same mass and inertia, the same joint at the same point) is an independent code. The path
 * of the free end differs by O(1/E); T + V + U is conserved (no driver). */
typedef struct joint_case {
    kd_ffr3d_joint_type t3;
    kd_sjoint_type ts;
    const char* name;
    double P0[3], axis[3], axis2[3];   /* ground point; ground axis (global); universal: body axis */
    double w[3], vtip[3];              /* initial angular velocity, tip velocity */
} joint_case;

#define S2 0.70710678118654752
static const joint_case CASES[] = {
    {KD_FFR3D_UNIVERSAL, KD_SJOINT_UNIVERSAL, "universal", {0, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 2, 3}, {0, 0, 0}},
    {KD_FFR3D_CYLINDRICAL, KD_SJOINT_CYLINDRICAL, "cylindrical", {0, 0, 0}, {S2, 0, S2}, {0}, {3 * S2, 0, 3 * S2},
     {0.5 * S2, 0, 0.5 * S2}},
    {KD_FFR3D_PRISMATIC, KD_SJOINT_PRISMATIC, "prismatic", {0, 0, 0}, {S2, 0, S2}, {0}, {0, 0, 0}, {-0.5 * S2, 0, -0.5 * S2}},
    {KD_FFR3D_POINT_ON_LINE, KD_SJOINT_POINT_ON_LINE, "point-on-line", {0, 0, 0}, {0, S2, S2}, {0}, {0, 1, 5},
     {0, 0.5 * S2, 0.5 * S2}},
    {KD_FFR3D_POINT_ON_PLANE, KD_SJOINT_POINT_ON_PLANE, "point-on-plane", {0, 0, 0}, {0, 0, 1}, {0}, {0, 1, 5},
     {0.3, 0.2, 0}},
    {KD_FFR3D_DISTANCE, KD_SJOINT_DISTANCE, "distance", {0, 0, 0.2}, {0, 0, 1}, {0}, {0, 1, 5}, {0.2, 0.1, 0}},
};
#undef S2

static double joint_limit_error(const joint_case* jc, double E, double* span, double* dE) {
    const double L = 0.5, t_end = 0.2, gv[3] = {0, 0, -9.81};
    const int ne = 2;
    const double root[3] = {-L, 0, 0}, tipb[3] = {L, 0, 0};
    /* v_root = v_tip + w x (root - tip) */
    const double v0[3] = {jc->vtip[0] + jc->w[1] * 0 - jc->w[2] * 0, jc->vtip[1] + jc->w[2] * (-L),
                          jc->vtip[2] - jc->w[1] * (-L)};
    kd_smech* m = kd_smech_new();
    const double mass = AL_RHO * AREA * L;
    const double J[9] = {AL_RHO * 2 * IBEND * L, 0, 0, 0, mass * L * L / 12 + AL_RHO * IBEND * L, 0,
                         0, 0, mass * L * L / 12 + AL_RHO * IBEND * L};
    const double com[3] = {L / 2, 0, 0};
    assert_int_equal(kd_smech_add_body(m, "beam", mass, J, com, root, I3), 0);
    memcpy(m->g, gv, sizeof(gv));
    const double vcom[3] = {v0[0], v0[1] + jc->w[2] * L / 2, v0[2] - jc->w[1] * L / 2};
    kd_smech_set_velocity(m, 0, vcom, jc->w);
    assert_true(kd_smech_add_joint(m, "J", jc->ts, -1, 0, jc->P0, tipb, jc->axis, jc->axis2, 0) >= 0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    kd_cms rc;
    kd_smech_cms(m, &rc);
    rec* rr = rec_new(m->n, 200);
    kd_mbs_opts o = opts(t_end, 2e-5, 200);
    assert_int_equal(kd_mbs_forward(&rc, &o, m->q0, m->qd0, record, rr, NULL, &err), KD_OK);
    kd_ffr3d_system* s = kd_ffr3d_new(gv);
    kd_ffr3d_beam b = beam3(L, ne, E);
    kd_ffr3d_add_beam(s, "beam", &b, NULL);
    const kd_ffr3d_point gp = {.body = -1, .p = {jc->P0[0], jc->P0[1], jc->P0[2]}};
    assert_true(kd_ffr3d_add_joint_ex(s, jc->t3, gp, (kd_ffr3d_point){.body = 0, .node = ne}, jc->axis, jc->axis2, 0,
                                      &err) >= 0);
    const int n = 7 + 6 * ne;
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    kd_ffr3d_set_pose(s, 0, root, I3, v0, jc->w, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    rec* out = rec_new(n, 200);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, record, out, NULL, &err), KD_OK);
    assert_int_equal(out->count, rr->count);
    double e = 0, E0 = 0, Tm = 0;
    *span = 0, *dE = 0;
    const double free_end[3] = {-L / 2, 0, 0};
    for (int k = 0; k < out->count; k++) {
        double a[3], c[3], T, V, U;
        kd_ffr3d_point_position(s, out->q + (size_t)n * k, (kd_ffr3d_point){.body = 0, .node = 0}, a);
        kd_smech_point(m, 0, free_end, rr->q + (size_t)m->n * k, NULL, c, NULL);
        for (int i = 0; i < 3; i++) e = fmax(e, fabs(a[i] - c[i])), *span = fmax(*span, fabs(c[i] - root[i]));
        kd_ffr3d_energy(s, out->q + (size_t)n * k, out->qd + (size_t)n * k, &T, &V, &U);
        if (k == 0) E0 = T + V + U;
        *dE = fmax(*dE, fabs(T + V + U - E0)), Tm = fmax(Tm, T);
    }
    *dE /= Tm;
    rec_free(out), rec_free(rr), free(q), free(qd);
    kd_ffr3d_free(&s);
    kd_smech_free(&m);
    return e;
}

static void test_joints_rigid_limit(void** state) {
    (void)state;
    for (size_t c = 0; c < sizeof(CASES) / sizeof(CASES[0]); c++) {
        double span, dE1, dE2;
        const double e1 = joint_limit_error(&CASES[c], 7e9, &span, &dE1);
        const double e2 = joint_limit_error(&CASES[c], 1.12e11, &span, &dE2);
        printf("%s joint at a tip node: the free end moves %.3f m; differs from the rigid route by %.3e m (E = 7 GPa), "
               "%.3e m (112 GPa), ratio %.1f (1/E: 16); |d(T + V + U)| / T_max %.1e, %.1e\n",
               CASES[c].name, span, e1, e2, e1 / e2, dE1, dE2);
        /* the elastic part is at most the dynamic sag of the link under its weight, twice the
         * static tip deflection of the cantilever rho A g L^4 / (8 E I) = 5.5e-5 m at 112 GPa */
        const double sag = AL_RHO * AREA * 9.81 * pow(0.5, 4) / (8 * 1.12e11 * IBEND);
        assert_true(span > 0.1);
        assert_true(e2 < 2 * sag);
        assert_true(e1 / e2 > 8 && e1 / e2 < 32);
        assert_true(dE1 < 1e-6 && dE2 < 1e-6);
    }
}

/* ---- geometric stiffness (F9): the flapwise frequency of a rotating beam ---- */
/* A 1 m beam (4 elements) on a revolute joint about z at its root, turning at the constant
 * Omega (a speed law) from its steady state (the axial stretch of the rotating bar,
 * u = rho Omega^2 (L^2 x / 2 - x^3 / 6) / E) and bent out of the plane of rotation at the start
 * (the first mode at rest, 0.5 mm at the tip); the tip's w oscillates at the first flapwise
 * frequency, measured from the upward zero crossings over 0.85 s. Reference: the rotating
 * cantilever, omega L^2 sqrt(rho A / EI) = 3.6816 at lambda = Omega L^2 sqrt(rho A / EI) = 1 and
 * 4.1373 at 2 (Wright, Smith, Thompson and Worley 1982, J. Appl. Mech. 49:197), 3.5160 at rest. */
typedef struct flap_rec {
    int iw, n;
    double t0, tprev, wprev, first, last;
} flap_rec;

static int flap_out(void* ctx, const kd_mbs_sample* smp) {
    flap_rec* r = ctx;
    const double w = smp->q[r->iw];
    if (smp->t > r->t0 && r->tprev >= r->t0 && r->wprev < 0 && w >= 0) {
        const double tc = r->tprev + (smp->t - r->tprev) * (-r->wprev) / (w - r->wprev);
        if (r->n == 0) r->first = tc;
        r->last = tc, r->n++;
    }
    r->tprev = smp->t, r->wprev = w;
    return 0;
}

static double flap_frequency(double lambda, int geometric) {
    const double L = 1.0;
    const int ne = 4;
    const double c = sqrt(AL_E * IBEND / (AL_RHO * AREA)) / (L * L);
    const double W = lambda * c;
    kd_law spin = kd_law_constant(0);
    spin.type = KD_LAW_SPEED, spin.value = W;
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_ffr3d_beam b = beam3(L, ne, AL_E);
    b.geometric = geometric;
    kd_ffr3d_add_beam(s, "beam", &b, NULL);
    const double z[3] = {0, 0, 1}, zero[3] = {0, 0, 0}, w0[3] = {0, 0, W};
    const int j = kd_ffr3d_add_joint(s, KD_FFR3D_REVOLUTE, (kd_ffr3d_point){.body = -1},
                                     (kd_ffr3d_point){.body = 0, .node = 0}, z, NULL);
    assert_int_equal(kd_ffr3d_add_driver(s, j, &spin, 0, NULL), KD_OK);
    const int n = kd_ffr3d_size(s);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    kd_ffr3d_set_pose(s, 0, zero, I3, zero, w0, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    for (int k = 1; k <= ne; k++) {
        /* the first cantilever mode at rest (beta L = 1.87510, sigma = 0.734096), w = A phi, ry = -w' */
        const double bl = 1.8751040687 / L, sg = 0.7340955137, x = k * L / ne, A = 5e-4 / 2.0;
        const double ph = cosh(bl * x) - cos(bl * x) - sg * (sinh(bl * x) - sin(bl * x));
        const double dph = bl * (sinh(bl * x) + sin(bl * x) - sg * (cosh(bl * x) - cos(bl * x)));
        q[kd_ffr3d_node_coordinate(s, 0, k, 0)] = AL_RHO * W * W * (L * L * x / 2 - x * x * x / 6) / AL_E;
        q[kd_ffr3d_node_coordinate(s, 0, k, 2)] = A * ph;
        q[kd_ffr3d_node_coordinate(s, 0, k, 4)] = -A * dph;
    }
    flap_rec r = {kd_ffr3d_node_coordinate(s, 0, ne, 2), 0, 0.0, -1, 0, 0, 0};
    kd_error err;
    kd_mbs_opts o = opts(0.85, 3.5e-5, 4);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, flap_out, &r, NULL, &err), KD_OK);
    assert_true(r.n >= 4);   /* three periods at least */
    free(q), free(qd);
    kd_ffr3d_free(&s);
    return 6.283185307179586 * (r.n - 1) / (r.last - r.first) / c;
}

static void test_geometric_stiffness_rotating_beam(void** state) {
    (void)state;
    const double w1 = flap_frequency(1.0, 1), w2 = flap_frequency(2.0, 1), w2off = flap_frequency(2.0, 0);
    printf("rotating beam, flapwise omega L^2 sqrt(rho A / EI): %.5f at lambda = 1 (3.6816: %.1e), %.5f at lambda = 2 "
           "(4.1373: %.1e); without the geometric stiffness %.5f at lambda = 2 (3.5160 at rest)\n",
           w1, w1 / 3.6816 - 1, w2, w2 / 4.1373 - 1, w2off);
    /* 4 elements: the axial force constant per element, an O(h^2) error (6.3e-4 and 1.7e-3 here,
     * 1.5e-4 and 4.8e-4 with 8 elements) */
    assert_true(fabs(w1 / 3.6816 - 1) < 2.5e-3);
    assert_true(fabs(w2 / 4.1373 - 1) < 2.5e-3);
    /* the axial force's stiffening is the whole rise: off, the flapwise frequency stays at rest's */
    assert_true(fabs(w2off / 3.5160 - 1) < 2e-3);
}

/* ---- a weld at an elastic node: two half-beams welded = one beam ---- */
/* Tip positions of a beam spun up about a tilted axis, once whole (4 elements), once as two
 * half-beams (2 elements each) with a fixed joint between the first's tip node and the second's
 * root: the same mesh, the second frame following the first's tip node (position and rotation).
 * The two agree to second order in the rotation of that node. */
static void weld_run(int split, double W, double* tip, int* count, double* defl) {
    const double L = 1.0, t_end = 0.3;
    double ax[3] = {0.4, 0.3, 1.0};
    kd_law spin = kd_law_constant(0);
    spin.type = KD_LAW_SPIN_UP, spin.spin_omega = W, spin.spin_T = 0.4;
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_ffr3d_beam whole = beam3(L, 4, AL_E), half = beam3(L / 2, 2, AL_E);
    kd_ffr3d_add_beam(s, "a", split ? &half : &whole, NULL);
    if (split) kd_ffr3d_add_beam(s, "b", &half, NULL);
    const int j = kd_ffr3d_add_joint(s, KD_FFR3D_REVOLUTE, (kd_ffr3d_point){.body = -1},
                                     (kd_ffr3d_point){.body = 0, .node = 0}, ax, NULL);
    kd_ffr3d_add_driver(s, j, &spin, 0, NULL);
    const double xw[3] = {1, 0, 0}, zero[3] = {0, 0, 0}, mid[3] = {L / 2, 0, 0};
    if (split)
        kd_ffr3d_add_joint(s, KD_FFR3D_FIXED, (kd_ffr3d_point){.body = 0, .node = 2}, (kd_ffr3d_point){.body = 1, .node = 0},
                           xw, NULL);
    const int n = kd_ffr3d_size(s);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    kd_ffr3d_set_pose(s, 0, zero, I3, zero, zero, q, qd);
    if (split) kd_ffr3d_set_pose(s, 1, mid, I3, zero, zero, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, NULL), KD_OK);
    rec* out = rec_new(n, 100);
    kd_error err;
    kd_mbs_opts o = opts(t_end, 2e-5, 750);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, record, out, NULL, &err), KD_OK);
    const kd_ffr3d_point tp = {.body = split, .node = split ? 2 : 4};
    const int iv = kd_ffr3d_node_coordinate(s, 0, 4, 1), iw = kd_ffr3d_node_coordinate(s, 0, 4, 2);
    *defl = 0;
    for (int k = 0; k < out->count; k++) {
        kd_ffr3d_point_position(s, out->q + (size_t)n * k, tp, tip + 3 * k);
        if (!split) *defl = fmax(*defl, hypot(out->q[(size_t)n * k + iv], out->q[(size_t)n * k + iw]));
    }
    *count = out->count;
    rec_free(out), free(q), free(qd);
    kd_ffr3d_free(&s);
}

static void test_weld_at_elastic_node(void** state) {
    (void)state;
    double a[3 * 100], b[3 * 100], defl[2], d[2], unused;
    for (int c = 0; c < 2; c++) {
        int na, nb;
        const double W = c == 0 ? 5.0 : 2.5;
        weld_run(0, W, a, &na, &defl[c]);
        weld_run(1, W, b, &nb, &unused);
        assert_int_equal(na, nb);
        d[c] = 0;
        for (int k = 0; k < 3 * na; k++) d[c] = fmax(d[c], fabs(a[k] - b[k]));
    }
    printf("weld: tip deflection up to %.4e m, %.4e m (spin 5, 2.5 rad/s); the welded half-beams' tip differs from the "
           "whole beam's by %.3e m, %.3e m: ratio %.2f against the deflections' %.2f (second order: their square)\n",
           defl[0], defl[1], d[0], d[1], d[0] / d[1], defl[0] / defl[1]);
    assert_true(defl[1] > 1e-3);
    assert_true(d[0] < 3e-2 * defl[0]);
    const double p = log(d[0] / d[1]) / log(defl[0] / defl[1]);
    assert_true(p > 1.7 && p < 2.3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* the four long ones first, so that each group of KD_TEST_GROUP below has one */
        cmocka_unit_test(test_weld_at_elastic_node),
        cmocka_unit_test(test_rigid_limit),
        cmocka_unit_test(test_spin_up_matches_moving_frame),
        cmocka_unit_test(test_planar_limit),
        cmocka_unit_test(test_joints_rigid_limit),
        cmocka_unit_test(test_geometric_stiffness_rotating_beam),
        cmocka_unit_test(test_inertia_against_kinetic_energy),
        cmocka_unit_test(test_joint_rows_finite_differences),
        cmocka_unit_test(test_more_joint_rows_finite_differences),
        cmocka_unit_test(test_free_body_conserves),
        cmocka_unit_test(test_model_file),
    };
    if (getenv("KD_TEST_FILTER")) cmocka_set_test_filter(getenv("KD_TEST_FILTER"));
    /* KD_TEST_GROUP = "i/k": only the tests whose index is i modulo k (tests/CMakeLists.txt runs
     * the four groups as four ctest entries: the integrations take seconds each, minutes under
     * ASan, and would otherwise end the suite alone) */
    const size_t ntests = sizeof(tests) / sizeof(tests[0]);
    struct CMUnitTest group[sizeof(tests) / sizeof(tests[0])];
    size_t ng = 0;
    int gi = 0, gk = 1;
    const char* g = getenv("KD_TEST_GROUP");
    if (!g || sscanf(g, "%d/%d", &gi, &gk) != 2 || gk < 1) gi = 0, gk = 1;
    for (size_t k = 0; k < ntests; k++)
        if ((int)(k % (size_t)gk) == gi) group[ng++] = tests[k];
    return _cmocka_run_group_tests("ffr3d_test", group, ng, NULL, NULL);
}
