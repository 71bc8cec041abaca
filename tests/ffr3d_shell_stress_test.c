/* Stresses of two-way shell links (src/links/floating_shell3d_stress.c; theory.md sec. 22, SL5 on
 * the elastic coordinates of SL6), against references independent of the coupled route:
 *   - (a) a steel strip clamped along its root edge to its frame, the frame driven through a spin-up
 *     about a tilted revolute axis at the root (the frame motion prescribed): every element's
 *     von Mises stress at every output instant against the one-way plate link of the same model
 *     (the moving frame of sec. 5, its pre-stress stiffness switched off as the two-way shell has
 *     none), integrated by Newmark instead of rk4 on the coupled equations;
 *   - (b) the strip welded to the ground at its root, at rest in gravity normal to its plane (the
 *     quasi-static start of sec. 17, F10): each element's bending resultant M_x against beam statics,
 *     M(x) = rho g t (L - x)^2 / 2 per unit width at the element's centre x (nu = 0: no anticlastic
 *     restraint), and the largest von Mises stress against 6 M / t^2 at the root element;
 *   - (c) the strip (nu = 0.3, held at a corner node) bent to a quadratic w, large against its
 *     thickness (SL8's membrane stretched by the slopes): each element's von Mises stress against
 *     the closed form of the stretched and bent plate (its membrane part the element's mean, its
 *     bending part at the centre), and the stresses' membrane resultants N_x, N_y, N_xy against the
 *     elastic force's: dU/d(lambda) of the strain energy under three stretches, by a central
 *     difference quotient (U with SL8's U_g: the energy the dynamics' force is the gradient of). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/ffr3d.h"
#include "kedyn/ffr3d_shell_stress.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "kedyn/model.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"

#include "ffr3d_run.h"

enum { CAP = FFR3D_CAP };   /* the one-way histories beside the coupled run's */

/* The steel strip 0.5 x 0.04 x 0.004 m (nu = 0), CST + DKT triangles, root edge x = 0 the support. */
#define STRIP_HEAD                                                                                    \
    "kedyn: 1\ntitle: strip\nspatial: true\n"                                                         \
    "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0}\n"
#define STRIP_PLATE(NX, NY)                                                                           \
    "  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"                   \
    "    material: steel\n    thickness: 0.004\n"                                                     \
    "    mesh: {rectangle: [0.5, 0.04], divisions: [" NX ", " NY "]}\n"                                \
    "    node_sets: {root: {x: 0}, tip: {x: 0.5}}\n    support: root\n"

static const char SPIN[] = STRIP_HEAD "bodies:\n  - {name: ground, type: ground, points: {O: [0, 0, 0]}}\n" STRIP_PLATE("6", "1")
    "    points: {O: [0, 0, 0]}\n    geometric_stiffness: false\n"
    "joints:\n  - {name: O, type: revolute, bodies: [ground, strip], points: [O, O], axis: [0.3, 1, 0.4]}\n"
    "drivers:\n  - {joint: O, law: {spin_up: {omega: 20, T: 0.03}}}\n"
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.04, dt: 2.0e-6}\n";

static const char GRAVITY[] = STRIP_HEAD "bodies:\n  - {name: ground, type: ground, points: {O: [0, 0.02, 0]}}\n" STRIP_PLATE("12", "2")
    "    points: {O: [0, 0.02, 0]}\n"
    "joints:\n  - {name: O, type: fixed, bodies: [ground, strip], points: [O, O], axis: [0, 0, 1]}\n"
    "forces:\n  - {type: gravity, g: [0, 0, -9.81]}\n"
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 1e-4, dt: 2.0e-6, initial: static}\n";

/* ---- (a) prescribed frame: the one-way plate link ---- */
typedef struct hist {
    const kd_sked_link* L;
    int n, ne;
    double t[CAP];
    double* sig;                  /* (CAP x ne) each element's von Mises stress */
    double* ps;
} hist;

static int one_way_sigma(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)v, (void)a;
    hist* h = ctx;
    if (h->n >= CAP) return 0;
    kd_sked_plate_stress(h->L, q, h->ps);
    for (int e = 0; e < h->ne; e++) h->sig[(size_t)h->n * h->ne + e] = h->ps[KD_PLATE_STRESS * e + 6];
    h->t[h->n++] = t;
    return 0;
}

static void test_prescribed_frame(void** state) {
    (void)state;
    ffr3d_run o;
    ffr3d_build(SPIN, &o);
    kd_error err;
    /* two-way: rk4 on the coupled system (augmented, projection), output every 1e-4 s */
    const int n = o.r.n;
    const kd_mbs_opts op = ffr3d_opts(0.04, 2e-6, 50);
    ffr3d_forward(&o, &op);
    /* one-way: the rigid motion tabulated, the plate link by Newmark (average acceleration) */
    kd_sked_rigid r;
    assert_int_equal(kd_sked_rigid_solve(o.m, 0.04, 400, 1e8, &r, &err), KD_OK);
    kd_sked_link_spec sp;
    kd_sked_link_spec_of(o.d, 1, 0, &sp);
    kd_sked_link* L = NULL;
    if (kd_sked_link_new(o.m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
    L->model->body[0].geometric = 0;   /* as the two-way shell of this model (`geometric_stiffness: false`) */
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    kd_dynamics_desc dy = ad.dynamics;
    dy.integrator = KD_INTEGRATOR_NEWMARK, dy.dt = 1e-5, dy.output_every = 10, dy.t_end = 0.04;
    hist h = {L, 0, L->model->nelem, {0}, NULL, NULL};
    h.sig = malloc(sizeof(double) * CAP * (size_t)h.ne);
    h.ps = malloc(sizeof(double) * KD_PLATE_STRESS * (size_t)h.ne);
    if (kd_sked_link_dynamics(L, &dy, one_way_sigma, &h, NULL, &err)) fail_msg("%s", err.msg);
    kd_ffr3d_shell_stress* ss = NULL;
    if (kd_ffr3d_shell_stress_new(o.d, o.s, &ss, &err)) fail_msg("%s", err.msg);
    assert_int_equal(h.n, o.r.count);
    double dmax = 0, smax = 0, dall = 0, all_max = 0;
    for (int k = 0; k < h.n; k++) {
        assert_true(fabs(h.t[k] - o.r.t[k]) < 1e-9);
        int ne;
        const double* ps = kd_ffr3d_shell_stress_eval(ss, 0, o.r.q + (size_t)n * k, &ne);
        assert_int_equal(ne, h.ne);
        for (int e = 0; e < ne; e++) {
            const double s1 = h.sig[(size_t)k * ne + e], s2 = ps[KD_PLATE_STRESS * e + 6];
            dmax = fmax(dmax, fabs(s2 - s1)), smax = fmax(smax, s1);
        }
        /* sigma_max (no output set: every element) is the largest of them */
        double all;
        int at;
        const double so = kd_ffr3d_shell_sigma_max(ss, 0, o.r.q + (size_t)n * k, &all, &at);
        double one = 0;
        for (int e = 0; e < ne; e++) one = fmax(one, h.sig[(size_t)k * ne + e]);
        assert_true(so == all && (at >= 0 || all == 0));
        dall = fmax(dall, fabs(all - one)), all_max = fmax(all_max, one);
    }
    printf("prescribed spin-up: element von Mises up to %.4e Pa (one-way plate link); two-way differs by %.2e of "
           "it (sigma_max by %.2e)\n",
           smax, dmax / smax, dall / all_max);
    assert_true(smax > 1e6);
    assert_true(dmax < 1e-5 * smax);
    kd_ffr3d_shell_stress_free(&ss);
    free(h.sig), free(h.ps);
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    ffr3d_run_free(&o);
}

/* ---- (b) at rest in gravity: beam statics ---- */
static void test_gravity_statics(void** state) {
    (void)state;
    ffr3d_run o;
    ffr3d_build(GRAVITY, &o);
    kd_error err;
    if (kd_ffr3d_static_start(o.s, 0.0, o.q0, o.qd0, &err)) fail_msg("%s", err.msg);
    kd_ffr3d_shell_stress* ss = NULL;
    if (kd_ffr3d_shell_stress_new(o.d, o.s, &ss, &err)) fail_msg("%s", err.msg);
    int ne;
    const double* ps = kd_ffr3d_shell_stress_eval(ss, 0, o.q0, &ne);
    const kd_mesh_desc* g = &o.d->sdesc->bodies[1].shell->mesh;
    assert_int_equal(ne, g->nelems);
    const double rho = 7800, grav = 9.81, t = 0.004, L = 0.5;
    double worst = 0, Mroot = 0;
    for (int e = 0; e < ne; e++) {
        double xc = 0;
        for (int k = 0; k < 3; k++) xc += g->node_x[3 * g->elem[(size_t)g->elem_nnode * e + k]] / 3;
        const double M = rho * grav * t * (L - xc) * (L - xc) / 2;   /* per unit width */
        Mroot = fmax(Mroot, M);
        /* the element's own axes are the body's (a flat mesh in the xy plane) */
        worst = fmax(worst, fabs(fabs(ps[KD_PLATE_STRESS * e + 3]) - M));
    }
    double all;
    int at;
    kd_ffr3d_shell_sigma_max(ss, 0, o.q0, &all, &at);
    assert_true(at >= 0);
    double xc = 0;
    for (int k = 0; k < 3; k++) xc += g->node_x[3 * g->elem[(size_t)g->elem_nnode * at + k]] / 3;
    const double sig = 6 * rho * grav * t * (L - xc) * (L - xc) / 2 / (t * t);   /* 6 M / t^2 */
    printf("strip at rest in gravity (12 x 2 dkt): M_x off beam statics by %.2e of the root moment; sigma_max "
           "%.5e Pa at element %d (x_c = %.4f m), 6 M / t^2 = %.5e Pa, off by %.2e\n",
           worst / Mroot, all, at + 1, xc, sig, fabs(all / sig - 1));
    assert_true(xc < 0.5 / 12);
    assert_true(worst < 0.02 * Mroot);
    assert_true(fabs(all / sig - 1) < 1.2e-3);   /* SL8 on: 3.2e-3 with SL5's linear membrane strain only */
    kd_ffr3d_shell_stress_free(&ss);
    ffr3d_run_free(&o);
}

/* ---- (c) a large deflection: the membrane stretched by its slopes ---- */
static const char BENT[] = "kedyn: 1\ntitle: strip\nspatial: true\n"
    "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
    "bodies:\n  - {name: ground, type: ground, points: {O: [0, 0, 0]}}\n"
    "  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"
    "    material: steel\n    thickness: 0.004\n"
    "    mesh: {rectangle: [0.5, 0.04], divisions: [12, 2]}\n"
    "    node_sets: {corner: {x: 0, y: 0}}\n    support: corner\n"
    "    points: {O: [0, 0, 0]}\n"
    "joints:\n  - {name: O, type: fixed, bodies: [ground, strip], points: [O, O], axis: [0, 0, 1]}\n"
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 1e-4, dt: 2.0e-6}\n";

/* The strip held at its corner node (0, 0) only, bent to w = (A x^2 + 2 B x y + C y^2) / 2 (every
 * component of e_n and of the curvature present; w and its slopes vanish at the corner). */
static void test_large_deflection(void** state) {
    (void)state;
    ffr3d_run o;
    ffr3d_build(BENT, &o);
    kd_error err;
    const double E = 210e9, nu = 0.3, t = 0.004, A = 0.1, B = 0.1, C = 0.3;   /* w(L, b) = 0.0148 m = 3.7 t */
    const int n = o.r.n;
    /* w with its rotations theta_x = w_y, theta_y = -w_x at every free node */
    const kd_mesh_desc* g = &o.d->sdesc->bodies[1].shell->mesh;
    double* q = malloc(sizeof(double) * (size_t)n);
    assert_non_null(q);
    memcpy(q, o.q0, sizeof(double) * (size_t)n);
    for (int k = 0; k < g->nnodes; k++) {
        const double x = g->node_x[3 * k], y = g->node_x[3 * k + 1];
        const double val[3] = {(A * x * x + 2 * B * x * y + C * y * y) / 2, B * x + C * y, -(A * x + B * y)};
        for (int d = 0; d < 3; d++) {
            const int c = kd_ffr3d_node_coordinate(o.s, 0, k, 2 + d);
            if (c >= 0) q[c] = val[d];
        }
    }
    kd_ffr3d_shell_stress* ss = NULL;
    if (kd_ffr3d_shell_stress_new(o.d, o.s, &ss, &err)) fail_msg("%s", err.msg);
    int ne;
    const double* ps = kd_ffr3d_shell_stress_eval(ss, 0, q, &ne);
    assert_int_equal(ne, g->nelems);
    /* closed form of the plate stretched by its slopes and bent: e = (w_x^2 / 2, w_y^2 / 2, w_x w_y),
     * its element mean from the slopes at the centroid and the triangle's central second moments
     * (mean (x - x_c)^2 = sum (x_i - x_c)^2 / 12, ...: SL8's e_n is taken as the element's mean);
     * N = E t / (1 - nu^2) (e_x + nu e_y, nu e_x + e_y, (1 - nu) / 2 e_xy); the curvature (A, C, 2 B)
     * (the cubic of the DKT and its slopes are exact for a quadratic w), M = E t^3 / (12 (1 - nu^2))
     * (A + nu C, nu A + C, (1 - nu) B); sigma = N / t +- 6 M / t^2, the larger von Mises stress */
    const double Ep = E / (1 - nu * nu), Mb[3] = {Ep * t * t * t / 12 * (A + nu * C), Ep * t * t * t / 12 * (nu * A + C),
                                                 Ep * t * t * t / 12 * (1 - nu) * B};
    double worst = 0, smax = 0, Ns[3] = {0, 0, 0}, Nc[3] = {0, 0, 0};
    for (int e = 0; e < ne; e++) {
        double xv[3], yv[3], xc = 0, yc = 0;
        for (int k = 0; k < 3; k++) {
            const int nd = g->elem[(size_t)g->elem_nnode * e + k];
            xv[k] = g->node_x[3 * nd], yv[k] = g->node_x[3 * nd + 1], xc += xv[k] / 3, yc += yv[k] / 3;
        }
        double Sxx = 0, Sxy = 0, Syy = 0;
        for (int k = 0; k < 3; k++)
            Sxx += (xv[k] - xc) * (xv[k] - xc) / 12, Sxy += (xv[k] - xc) * (yv[k] - yc) / 12,
                Syy += (yv[k] - yc) * (yv[k] - yc) / 12;
        const double wx = A * xc + B * yc, wy = B * xc + C * yc;
        const double ex = 0.5 * (wx * wx + A * A * Sxx + 2 * A * B * Sxy + B * B * Syy);
        const double ey = 0.5 * (wy * wy + B * B * Sxx + 2 * B * C * Sxy + C * C * Syy);
        const double exy = wx * wy + A * B * Sxx + (A * C + B * B) * Sxy + B * C * Syy;
        const double N[3] = {Ep * t * (ex + nu * ey), Ep * t * (nu * ex + ey), Ep * t * (1 - nu) / 2 * exy};
        double sig = 0;
        for (int side = -1; side <= 1; side += 2) {
            const double sx = N[0] / t + side * 6 * Mb[0] / (t * t), sy = N[1] / t + side * 6 * Mb[1] / (t * t),
                         txy = N[2] / t + side * 6 * Mb[2] / (t * t);
            sig = fmax(sig, sqrt(sx * sx + sy * sy - sx * sy + 3 * txy * txy));
        }
        worst = fmax(worst, fabs(ps[KD_PLATE_STRESS * e + 6] - sig)), smax = fmax(smax, sig);
        const double Ae = 0.5 * fabs((xv[1] - xv[0]) * (yv[2] - yv[0]) - (xv[2] - xv[0]) * (yv[1] - yv[0]));
        for (int i = 0; i < 3; i++) Ns[i] += Ae * ps[KD_PLATE_STRESS * e + i], Nc[i] += Ae * N[i];
    }
    /* the elastic force's resultants: dU/d(lambda) at lambda = 0 under the stretches u = lambda x,
     * v = lambda y and v = lambda x (each zero at the corner) is int N_x, int N_y and int N_xy dA
     * (d e_n / d lambda = 0 there; the flat shell's membrane and bending rows are uncoupled, so the
     * linear part adds nothing to the central quotient) */
    double* qs = malloc(sizeof(double) * (size_t)n);
    assert_non_null(qs);
    const double h = 1e-6;
    double dU[3], off_s = 0, off_c = 0;
    for (int i = 0; i < 3; i++) {
        double Ud[2];
        for (int side = 0; side < 2; side++) {
            memcpy(qs, q, sizeof(double) * (size_t)n);
            for (int k = 0; k < g->nnodes; k++) {
                const int c = kd_ffr3d_node_coordinate(o.s, 0, k, i == 0 ? 0 : 1);
                if (c >= 0) qs[c] = (side ? h : -h) * g->node_x[3 * k + (i == 1)];
            }
            double T, V;
            kd_ffr3d_energy(o.s, qs, o.qd0, &T, &V, &Ud[side]);
        }
        dU[i] = (Ud[1] - Ud[0]) / (2 * h);
        off_s = fmax(off_s, fabs(Ns[i] - dU[i]) / fabs(dU[0])), off_c = fmax(off_c, fabs(dU[i] - Nc[i]) / fabs(Nc[0]));
    }
    printf("strip bent to w = (%.1f x^2 + 2 %.1f x y + %.1f y^2) / 2 (corner w %.4f m = %.1f t, nu = %.1f, 12 x 2 dkt): "
           "element von Mises off the stretched and bent plate by %.2e of the largest %.5e Pa; int (N_x, N_y, N_xy) dA "
           "from the stresses (%.6e, %.6e, %.6e) N m, from dU/dlambda (%.6e, %.6e, %.6e): off by %.2e of int N_x; "
           "dU/dlambda off the closed form by %.2e\n",
           A, B, C, (A * 0.25 + 2 * B * 0.02 + C * 0.0016) / 2, (A * 0.25 + 2 * B * 0.02 + C * 0.0016) / 2 / t, nu,
           worst / smax, smax, Ns[0], Ns[1], Ns[2], dU[0], dU[1], dU[2], off_s, off_c);
    assert_true(worst < 1e-8 * smax);
    assert_true(off_s < 1e-6);
    assert_true(off_c < 1e-6);
    free(q), free(qs);
    kd_ffr3d_shell_stress_free(&ss);
    ffr3d_run_free(&o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prescribed_frame),
        cmocka_unit_test(test_gravity_statics),
        cmocka_unit_test(test_large_deflection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
