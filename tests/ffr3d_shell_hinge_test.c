/* A two-way shell link hinged at free nodes (theory.md sec. 22, SL6 (3)): a joint with an axis at a
 * node outside the support set is an error (the node's drilling rotation is a weak row), and the
 * way to hinge a plate there is a spherical joint at each of two nodes on the hinge line. A plate
 * a x b x t = 0.4 x 0.2 x 0.05 m (E = 2.5e8 Pa, rho = 1000, nu = 0.3: stiff against the swing, its
 * highest element frequency low enough for rk4 at 5e-5 s; 4 x 2 cells of CST + DKT triangles), its
 * support set the centre node, hung by spherical joints at its corners (0, 0) and (a, 0) (the
 * hinge line, horizontal along x) under gravity, released undeformed at rest at theta_0 = 0.3 rad
 * from the vertical, swings about that line as a compound pendulum; against the rigid plate:
 *   - I_line = m (b^2 / 3 + t^2 / 12) about the line (the thickness' share of the consistent mass),
 *     d = b / 2; the period 2 pi sqrt(I_line / (m g d)) times 2 K(sin(theta_0 / 2)) / pi (the exact
 *     finite-amplitude factor, 1.0057 here), from the zero crossings of the swing angle;
 *   - T + V + U conserved;
 *   - the joint forces' sum about the bottom of the swing (3 crossings): the rigid m (a_G - g)
 *     (vertical m g + m d w^2 at the bottom, w^2 = 2 m g d (1 - cos theta_0) / I_line), both
 *     averaged over +-50 ms (the sudden start's elastic oscillations), and its mean over the
 *     period, m g;
 *   - an axis joint (revolute) at the free corner is an error that names the alternative. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/ffr3d.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "kedyn/sdesc.h"
#include "kedyn/smech.h"

#include "ffr3d_run.h"

/* orientation: body y (the plate's height) hanging along -z, turned by theta_0 = 0.3 rad about x:
 * an angle of -pi/2 + 0.3 = -1.2707963267948966 rad about x */
#define HINGE_MODEL(J2)                                                                               \
    "kedyn: 1\ntitle: hinged plate\nspatial: true\n"                                                  \
    "materials:\n  pe: {E: 2.5e8, rho: 1000, nu: 0.3}\n"                                           \
    "bodies:\n  - {name: ground, type: ground, points: {A: [0, 0, 0], B: [0.4, 0, 0]}}\n"              \
    "  - name: plate\n    type: plate\n    theory: shell\n    interpolation: dkt\n"                   \
    "    material: pe\n    thickness: 0.05\n"                                                      \
    "    mesh: {rectangle: [0.4, 0.2], divisions: [4, 2]}\n"                                          \
    "    node_sets: {centre: {x: 0.2, y: 0.1}}\n    support: centre\n"                                \
    "    points: {A: [0, 0, 0], B: [0.4, 0, 0]}\n"                                                    \
    "    orientation: {axis: [1, 0, 0], angle: -1.2707963267948966}\n"                                \
    "joints:\n  - {name: A, type: spherical, bodies: [ground, plate], points: [A, A]}\n"              \
    "  - {name: B, " J2 ", bodies: [ground, plate], points: [B, B]}\n"                                \
    "forces:\n  - {type: gravity, g: [0, 0, -9.81]}\n"                                                \
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 1.0, dt: 1.0e-5}\n"

static const char HINGE[] = HINGE_MODEL("type: spherical");
static const char HINGE_REVOLUTE[] = HINGE_MODEL("type: revolute, axis: [1, 0, 0]");

enum { NOUT = 1001 };
static const double PI = 3.14159265358979323846;

typedef struct swing {
    const kd_ffr3d_system* s;
    int off, count;
    double t[NOUT], th[NOUT], F[NOUT][3], E[NOUT];
} swing;

/* the swing angle from the frame's Euler parameters (a rotation phi about x: theta = phi + pi / 2),
 * the joints' forces on the plate summed, T + V + U */
static int record(void* ctx, const kd_mbs_sample* smp) {
    swing* w = ctx;
    if (w->count >= NOUT) return 0;
    const double* e = smp->q + w->off + 3;
    const int k = w->count++;
    w->t[k] = smp->t;
    w->th[k] = 2 * atan2(e[1], e[0]) + PI / 2;
    w->F[k][0] = w->F[k][1] = w->F[k][2] = 0;
    for (int j = 0; j < kd_ffr3d_joint_count(w->s); j++) {
        double F[3];
        kd_ffr3d_joint_force(w->s, j, smp->q, smp->lambda, F);
        for (int c = 0; c < 3; c++) w->F[k][c] += F[c];
    }
    double T, V, U;
    kd_ffr3d_energy(w->s, smp->q, smp->qd, &T, &V, &U);
    w->E[k] = T + V + U;
    return 0;
}

static void test_hinged_plate(void** state) {
    (void)state;
    ffr3d_run o;
    ffr3d_build(HINGE, &o);
    kd_error err;
    assert_int_equal(kd_ffr3d_body_count(o.s), 1);
    assert_int_equal(kd_ffr3d_joint_count(o.s), 2);
    swing* w = calloc(1, sizeof(*w));
    assert_non_null(w);
    w->s = o.s, w->off = kd_ffr3d_body_offset(o.s, 0);
    const double omax = kd_ffr3d_body_omega_max(o.s, 0), dt = 5e-5;
    assert_true(dt * omax < 2.5);   /* rk4's bound 2.8 */
    const kd_mbs_opts op = ffr3d_opts(1.0, dt, 20);   /* outputs every 1e-3 s */
    if (kd_mbs_forward(kd_ffr3d_cms(o.s), &op, o.q0, o.qd0, record, w, NULL, &err)) fail_msg("%s", err.msg);
    assert_int_equal(w->count, NOUT);

    const double rho = 1000, a = 0.4, b = 0.2, t = 0.05, g = 9.81, th0 = 0.3;
    const double m = rho * a * b * t, I = m * (b * b / 3 + t * t / 12), d = b / 2;
    /* K(k) by the arithmetic-geometric mean: K = pi / (2 AGM(1, sqrt(1 - k^2))) */
    const double kk = sin(th0 / 2);
    double ag = 1, y = sqrt(1 - kk * kk);   /* AGM */
    for (int i = 0; i < 8; i++) {
        const double an = (ag + y) / 2;
        y = sqrt(ag * y), ag = an;
    }
    const double T0 = 2 * PI * sqrt(I / (m * g * d)), Tref = T0 / ag;   /* T0 2 K / pi, 2 K / pi = 1 / AGM */
    /* the zero crossings of theta (linear interpolation: theta'' = 0 there) */
    int ic[3], nc = 0;
    double tc[3] = {0};
    for (int i = 1; i < w->count && nc < 3; i++)
        if ((w->th[i - 1] > 0) != (w->th[i] > 0)) {
            tc[nc] = w->t[i - 1] + w->th[i - 1] / (w->th[i - 1] - w->th[i]) * (w->t[i] - w->t[i - 1]);
            ic[nc++] = i;
        }
    assert_int_equal(nc, 3);
    const double T = tc[2] - tc[0];
    double thmax = 0, dE = 0;
    for (int i = 0; i < w->count; i++) {
        thmax = fmax(thmax, fabs(w->th[i]));
        dE = fmax(dE, fabs(w->E[i] - w->E[0]));
    }
    const double Es = m * g * d * (1 - cos(th0));   /* the swing's energy scale */
    /* The joint forces on the plate, rigid: F = m a_G - m g, a_G of the centre at d (0, sin theta,
     * -cos theta) with theta'' = -m g d sin(theta) / I and theta'^2 = 2 m g d (cos theta - cos
     * theta_0) / I; at the bottom vertical m g + m d w^2, w^2 = 2 m g d (1 - cos theta_0) / I. The
     * start from the undeformed plate excites its elastic modes, whose joint forces (up to half of
     * m g, undamped) the comparison averages out: the means of F and of the rigid force over
     * +-50 ms (+-50 outputs) about each crossing, and the mean of F over the period (m g up). */
    const double w2b = 2 * m * g * d * (1 - cos(th0)) / I, Fb = m * g + m * d * w2b;
    double dV = 0, dH = 0, Fv[3] = {0}, Fr[3] = {0};
    for (int c = 0; c < nc; c++) {
        double mF[3] = {0, 0, 0}, mR[3] = {0, 0, 0};
        for (int i = ic[c] - 50; i < ic[c] + 50; i++)
            for (int h = 0; h < 2; h++) {   /* trapezoids */
                const double x = w->th[i + h], w2 = 2 * m * g * d * (cos(x) - cos(th0)) / I,
                             al = -m * g * d * sin(x) / I;
                const double R[3] = {0, m * d * (al * cos(x) - w2 * sin(x)), m * d * (al * sin(x) + w2 * cos(x)) + m * g};
                for (int k = 0; k < 3; k++) mF[k] += w->F[i + h][k] / 200, mR[k] += R[k] / 200;
            }
        dV = fmax(dV, fabs(mF[2] / mR[2] - 1));
        dH = fmax(dH, fmax(fabs(mF[0] - mR[0]), fabs(mF[1] - mR[1])) / Fb);
        Fv[c] = mF[2], Fr[c] = mR[2];
    }
    double Fp = 0;
    for (int i = ic[0]; i < ic[2]; i++) Fp += (w->F[i][2] + w->F[i + 1][2]) / 2 * (w->t[i + 1] - w->t[i]);
    Fp /= w->t[ic[2]] - w->t[ic[0]];
    printf("plate hinged by two ball joints (m = %.4f kg, I_line = %.6e kg m^2, omega_max %.3e rad/s, dt %.1e s): "
           "start %.5f rad, largest |theta| %.5f rad; period %.6f s against %.6f s (small-amplitude %.6f s, without the "
           "thickness term %.6f s): off by %.2e; T + V + U within %.2e of m g d (1 - cos theta_0) = %.4e J\n"
           "  joint forces, vertical, means over +-50 ms at the bottoms: %.5f, %.5f, %.5f N against the rigid "
           "%.5f, %.5f, %.5f N (at the bottom m g + m d w^2 = %.5f N, m g = %.5f N): off by %.2e; horizontal off by "
           "%.2e of it; the mean over the period %.5f N against m g: off by %.2e\n",
           m, I, omax, dt, w->th[0], thmax, T, Tref, T0, Tref * sqrt(b * b / 3 / (b * b / 3 + t * t / 12)),
           fabs(T / Tref - 1), dE / Es, Es, Fv[0], Fv[1], Fv[2], Fr[0], Fr[1], Fr[2], Fb, m * g, dV, dH, Fp,
           fabs(Fp / (m * g) - 1));
    assert_true(fabs(w->th[0] - th0) < 1e-4);
    assert_true(fabs(thmax / th0 - 1) < 1e-3);
    assert_true(fabs(T / Tref - 1) < 2e-4);
    assert_true(dE < 1e-5 * Es);
    assert_true(dV < 5e-3);
    assert_true(dH < 5e-3);
    assert_true(fabs(Fp / (m * g) - 1) < 1e-3);
    free(w);
    ffr3d_run_free(&o);
}

/* a revolute joint at the free corner: an error at the joint that names the alternative */
static void test_axis_joint_at_free_node(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    assert_int_not_equal(kd_load_yaml_string(HINGE_REVOLUTE, strlen(HINGE_REVOLUTE), "hinge.yaml", &d, &err), KD_OK);
    printf("%s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    assert_true(err.loc.line > 0);
    assert_non_null(strstr(err.msg, "spherical joints at two nodes on the axis"));
    assert_non_null(strstr(err.msg, "support set"));
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axis_joint_at_free_node),
        cmocka_unit_test(test_hinged_plate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
