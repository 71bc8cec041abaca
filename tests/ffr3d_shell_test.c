/* Shell links as two-way floating-frame bodies of a spatial mechanism (src/links/floating_shell3d.c;
 * theory.md sec. 22, SL6), from model files, against references independent of the coupled route:
 *   - (a) a steel strip clamped along its root edge to its frame, the frame driven through a spin-up
 *     about a tilted revolute axis at the root (the frame motion prescribed): the tip node's
 *     deflection against the one-way plate link of the same model (theory.md sec. 22, the moving
 *     frame of sec. 5), both without their stress stiffening (the two-way shell by
 *     `geometric_stiffness: false`, the one-way link's pre-stress switched off here);
 *   - (b) the strip as a pendulum on a ball joint at a free node of its tip under gravity, no damping:
 *     T + V + U conserved;
 *   - (c) the same pendulum with the strip as a two-way 3D beam link of the same section (nu = 0, so
 *     that D b = E I): the root's path and the mid-span deflection in the frame agree to the
 *     discretisation error;
 *   - a revolute joint at a free node of a shell is a located error. */
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
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "kedyn/model.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"

#include "ffr3d_run.h"

enum { CAP = FFR3D_CAP };   /* the one-way histories beside the coupled run's */

/* The steel strip 0.5 x 0.04 x 0.004 m (nu = 0), 6 x NY cells of CST + DKT triangles (no transverse
 * shear: the explicit step of rk4 is set by the membrane and drilling rows, 2e-6 s), root edge x = 0
 * the support. */
#define STRIP_HEAD                                                                                    \
    "kedyn: 1\ntitle: strip\nspatial: true\n"                                                         \
    "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0}\n"                                             \
    "sections:\n  strip: {shape: rectangle, h: 0.04, b: 0.004}\n"
#define STRIP_PLATE(NY)                                                                               \
    "  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"                   \
    "    material: steel\n    thickness: 0.004\n"                                                     \
    "    mesh: {rectangle: [0.5, 0.04], divisions: [6, " NY "]}\n"                                     \
    "    node_sets: {root: {x: 0}, tip: {x: 0.5}}\n    support: root\n    output: tip\n"
#define STRIP_BEAM                                                                                    \
    "  - name: strip\n    type: beam\n    material: steel\n    section: strip\n    elements: 6\n"     \
    "    frame: root\n"

static const char SPIN[] = STRIP_HEAD "bodies:\n  - {name: ground, type: ground, points: {O: [0, 0, 0]}}\n" STRIP_PLATE("1")
    "    points: {O: [0, 0, 0]}\n    geometric_stiffness: false\n"
    "joints:\n  - {name: O, type: revolute, bodies: [ground, strip], points: [O, O], axis: [0.3, 1, 0.4]}\n"
    "drivers:\n  - {joint: O, law: {spin_up: {omega: 20, T: 0.03}}}\n"
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.04, dt: 2.0e-6}\n";

static const char PEND_PLATE[] = STRIP_HEAD "bodies:\n  - {name: ground, type: ground, points: {T: [0.5, 0.02, 0]}}\n" STRIP_PLATE("2")
    "    points: {T: [0.5, 0.02, 0]}\n"
    "joints:\n  - {name: T, type: spherical, bodies: [ground, strip], points: [T, T]}\n"
    "forces:\n  - {type: gravity, g: [0, 0, -9.81]}\n"
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.03, dt: 2.0e-6}\n";

static const char PEND_BEAM[] = STRIP_HEAD "bodies:\n  - {name: ground, type: ground, points: {T: [0.5, 0.02, 0]}}\n" STRIP_BEAM
    "    points: {R: [0, 0.02, 0], T: [0.5, 0.02, 0]}\n"
    "joints:\n  - {name: T, type: spherical, bodies: [ground, strip], points: [T, T]}\n"
    "forces:\n  - {type: gravity, g: [0, 0, -9.81]}\n"
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.03, dt: 2.0e-6}\n";

/* The coupled system of a model text, integrated by rk4 (augmented, projection; dt = 2e-6 s) to
 * t_end, output every 1e-4 s. */
static void run_model(const char* text, double t_end, ffr3d_run* o) {
    ffr3d_build(text, o);
    const kd_mbs_opts op = ffr3d_opts(t_end, 2e-6, 50);
    ffr3d_forward(o, &op);
}

/* ---- (a) prescribed frame: the one-way plate link ---- */
typedef struct hist {
    const kd_sked_link* L;
    int node, n;
    double t[CAP], w[CAP];
} hist;

static int one_way_w(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)v, (void)a;
    hist* h = ctx;
    if (h->n >= CAP) return 0;
    double* u = calloc(6 * (size_t)h->L->model->nnode, sizeof(double));
    kd_sked_link_displacements(h->L, q, u);
    h->t[h->n] = t, h->w[h->n] = u[6 * h->node + 2];
    h->n++;
    free(u);
    return 0;
}

static void test_prescribed_frame(void** state) {
    (void)state;
    ffr3d_run o;
    run_model(SPIN, 0.04, &o);
    const int tip = ffr3d_node_at(o.d, 0.5, 0.0);
    /* one-way: the rigid motion tabulated, the plate link by Newmark (average acceleration) */
    kd_error err;
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
    static hist h;
    memset(&h, 0, sizeof(h));
    h.L = L, h.node = tip;
    if (kd_sked_link_dynamics(L, &dy, one_way_w, &h, NULL, &err)) fail_msg("%s", err.msg);
    const int iw = kd_ffr3d_node_coordinate(o.s, 0, tip, 2);
    assert_true(iw >= 0);
    assert_int_equal(h.n, o.r.count);
    double dmax = 0, wmax = 0;
    for (int k = 0; k < h.n; k++) {
        assert_true(fabs(h.t[k] - o.r.t[k]) < 1e-9);
        dmax = fmax(dmax, fabs(o.r.q[(size_t)o.r.n * k + iw] - h.w[k]));
        wmax = fmax(wmax, fabs(h.w[k]));
    }
    printf("prescribed spin-up: tip w up to %.4e m (one-way plate link); two-way shell differs by %.2e of it\n",
           wmax, dmax / wmax);
    assert_true(wmax > 1e-5);
    assert_true(dmax < 1e-5 * wmax);
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    ffr3d_run_free(&o);
}

/* ---- (b) energy and (c) the beam link ---- */
static void test_pendulum(void** state) {
    (void)state;
    ffr3d_run p, b;
    run_model(PEND_PLATE, 0.03, &p);
    run_model(PEND_BEAM, 0.03, &b);
    assert_int_equal(p.r.count, b.r.count);
    /* (b) T + V + U */
    double E0 = 0, dE = 0, Tmax = 0, Umax = 0;
    for (int k = 0; k < p.r.count; k++) {
        double T, V, U;
        kd_ffr3d_energy(p.s, p.r.q + (size_t)p.r.n * k, p.r.qd + (size_t)p.r.n * k, &T, &V, &U);
        if (k == 0) E0 = T + V + U;
        dE = fmax(dE, fabs(T + V + U - E0)), Tmax = fmax(Tmax, T), Umax = fmax(Umax, U);
    }
    printf("shell pendulum: T up to %.4e J, U up to %.4e J, T + V + U drifts by %.2e J (%.2e of T)\n", Tmax, Umax,
           dE, dE / Tmax);
    assert_true(Umax > 1e-4 * Tmax);
    assert_true(dE < 1e-6 * Tmax);
    /* (c) the root (the frame's origin: plate node (0, b/2), beam node 0) and the mid-span w */
    const int root = ffr3d_node_at(p.d, 0.0, 0.02), mid = ffr3d_node_at(p.d, 0.25, 0.02);
    const int iwp = kd_ffr3d_node_coordinate(p.s, 0, mid, 2), iwb = kd_ffr3d_node_coordinate(b.s, 0, 3, 2);
    double dr = 0, rmax = 0, dw = 0, wmax = 0, sw = 0, sb = 0, mp = 0, mb = 0;
    const kd_ffr3d_point pr = {0, root, {0, 0, 0}}, br = {0, 0, {0, 0, 0}};
    double r00[3];
    kd_ffr3d_point_position(b.s, b.r.q, br, r00);
    for (int k = 0; k < p.r.count; k++) {
        double rp[3], rb[3];
        kd_ffr3d_point_position(p.s, p.r.q + (size_t)p.r.n * k, pr, rp);
        kd_ffr3d_point_position(b.s, b.r.q + (size_t)b.r.n * k, br, rb);
        for (int c = 0; c < 3; c++) dr = fmax(dr, fabs(rp[c] - rb[c])), rmax = fmax(rmax, fabs(rb[c] - r00[c]));
        const double wp = p.r.q[(size_t)p.r.n * k + iwp], wb = b.r.q[(size_t)b.r.n * k + iwb];
        dw = fmax(dw, fabs(wp - wb)), wmax = fmax(wmax, fabs(wb));
        sw += (wp - wb) * (wp - wb), sb += wb * wb, mp += wp, mb += wb;
    }
    /* the mid-span w: its largest difference (the higher modes' frequencies of the coarse meshes
     * differ: their content dephases), its r.m.s. difference and its mean over the run */
    const double rms = sqrt(sw / sb), dmean = fabs(mp - mb) / fabs(mb);
    printf("shell against beam pendulum: root moves %.4e m, paths differ by %.2e of it; mid-span w up to %.4e m, "
           "differs by %.2e of it (r.m.s. %.2e, mean %.2e)\n",
           rmax, dr / rmax, wmax, dw / wmax, rms, dmean);
    assert_true(wmax > 1e-5);
    assert_true(dr < 2e-3 * rmax && dw < 0.25 * wmax && rms < 0.15 && dmean < 0.05);
    ffr3d_run_free(&p), ffr3d_run_free(&b);
}

/* ---- a revolute joint at a free node ---- */
static void test_free_node_revolute(void** state) {
    (void)state;
    char bad[sizeof PEND_PLATE + 16];
    snprintf(bad, sizeof bad, "%s", PEND_PLATE);
    char* t = strstr(bad, "type: spherical");
    assert_non_null(t);
    memcpy(t, "type: revolute, axis: [0, 1, 0]", 31);
    /* the rest of the line: ", bodies: ..." kept after the axis */
    const char* rest = strstr(PEND_PLATE, "type: spherical") + strlen("type: spherical");
    snprintf(t + 31, sizeof bad - (size_t)(t + 31 - bad), "%s", rest);
    kd_desc* d = NULL;
    kd_error err;
    assert_int_not_equal(kd_load_yaml_string(bad, strlen(bad), "bad.yaml", &d, &err), KD_OK);
    printf("%s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    assert_true(err.loc.line > 0);
    assert_non_null(strstr(err.msg, "spherical or distance"));
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prescribed_frame),
        cmocka_unit_test(test_pendulum),
        cmocka_unit_test(test_free_node_revolute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
