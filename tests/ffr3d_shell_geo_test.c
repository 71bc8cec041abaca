/* The membrane stress stiffening of two-way shell links (src/links/floating_shell3d.c; theory.md
 * sec. 22, SL8), from model files, against references independent of the coupled route:
 *   - (a) a steel strip clamped along its root edge to a hub spinning at a prescribed constant rate
 *     Omega about the strip's normal (the axis through the root corner, zero hub radius): the first
 *     flapwise frequency measured from the free vibration of the two-way run (zero crossings of the
 *     tip's w) against Southwell's form omega^2 = omega_0^2 + K Omega^2, K = 1.19334 the derivative
 *     d(omega^2)/d(Omega^2) of the clamped cantilever at zero hub radius (Rayleigh with the first
 *     mode, exact as Omega -> 0: theory.md sec. 18.6), omega_0 measured from the same mesh at rest;
 *     with `geometric_stiffness: false` the frequency stays at omega_0;
 *   - (b) a free thin strip spinning about a tilted axis and vibrating (no joints, no gravity):
 *     T + U (the geometric energy of SL8 included) conserved. */
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
#include "kedyn/sked.h"
#include "kedyn/smech.h"
#include "shell_strip_models.h"

enum { CAP = 20000 };

/* The strips of shell_strip_models.h. */
static const char REST[] = SHELL_STRIP_HUB("0.02", "", "0");
static const char SPIN[] = SHELL_STRIP_HUB("0.02", "", "{speed: 300}");
static const char SPIN_OFF[] = SHELL_STRIP_HUB("0.02", "    geometric_stiffness: false\n", "{speed: 300}");
static const char FREE[] = SHELL_STRIP_FREE("");
static const char FREE_OFF[] = SHELL_STRIP_FREE("    geometric_stiffness: false\n");

typedef struct rec {
    const kd_ffr3d_system *s, *off;   /* off: the same body without SL8 (its U on the same q) */
    int iw, count;
    double t[CAP], w[CAP], E[CAP], Ug[CAP];
} rec;

static int record(void* ctx, const kd_mbs_sample* smp) {
    rec* r = ctx;
    if (r->count < CAP) {
        double T, V, U;
        kd_ffr3d_energy(r->s, smp->q, smp->qd, &T, &V, &U);
        r->t[r->count] = smp->t, r->w[r->count] = r->iw >= 0 ? smp->q[r->iw] : 0.0, r->E[r->count] = T + V + U;
        if (r->off) {
            double T0, V0, U0;
            kd_ffr3d_energy(r->off, smp->q, smp->qd, &T0, &V0, &U0);
            r->Ug[r->count] = U - U0;
        }
        r->count++;
    }
    return 0;
}

/* The uniform-load deflection of a cantilever, 1 at the tip, and its slope: the initial velocity's
 * shape (close to the first mode). */
static double shape(double x, double L) { return x * x * (6 * L * L - 4 * L * x + x * x) / (3 * L * L * L * L); }
static double slope(double x, double L) { return (12 * L * L * x - 12 * L * x * x + 4 * x * x * x) / (3 * L * L * L * L); }

typedef struct run {
    kd_desc* d;
    kd_smech* m;
    kd_ffr3d_system* s;
    double *q0, *qd0;
} run;

static void load(const char* text, run* o) {
    kd_error err;
    memset(o, 0, sizeof(*o));
    if (kd_load_yaml_string(text, strlen(text), "hub.yaml", &o->d, &err)) fail_msg("%s", err.msg);
    if (kd_smech_compile(o->d, &o->m, &err)) fail_msg("%s", err.msg);
    if (kd_ffr3d_from_smech(o->d, o->m, &o->s, &o->q0, &o->qd0, &err)) fail_msg("%s", err.msg);
}

/* Add the flapping velocity v0 shape(x) to w (and -v0 shape'(x) to theta_y = -w,x) of every free
 * node of shell body b (description body db). */
static void flap(const run* o, int b, int db, double L, double v0, double* qd) {
    const kd_body_desc* p = o->d->sdesc->bodies[db].shell;
    for (int n = 0; n < p->mesh.nnodes; n++) {
        const double x = p->mesh.node_x[3 * n];
        const int iw = kd_ffr3d_node_coordinate(o->s, b, n, 2), iry = kd_ffr3d_node_coordinate(o->s, b, n, 4);
        if (iw >= 0) qd[iw] += v0 * shape(x, L);
        if (iry >= 0) qd[iry] -= v0 * slope(x, L);
    }
}

static void integrate(const run* o, double t_end, double dt, int every, rec* r) {
    kd_error err;
    kd_mbs_opts op;
    kd_mbs_opts_default(&op);
    op.formulation = KD_MBS_AUGMENTED, op.stabilization = KD_MBS_STAB_PROJECTION;
    op.integrator = KD_MBS_RK4, op.t_end = t_end, op.dt = dt, op.output_every = every;
    r->s = o->s;
    if (kd_mbs_forward(kd_ffr3d_cms(o->s), &op, o->q0, o->qd0, record, r, NULL, &err)) fail_msg("%s", err.msg);
}

static void run_free(run* o) {
    free(o->q0), free(o->qd0);
    kd_ffr3d_free(&o->s);
    kd_smech_free(&o->m);
    kd_desc_free(&o->d);
}

/* The mean period of the tip's w from its zero crossings (linear interpolation) after the first. */
static double flap_frequency(const rec* r) {
    double first = -1, last = -1;
    int n = 0;
    for (int k = 1; k < r->count; k++)
        if ((r->w[k - 1] < 0) != (r->w[k] < 0)) {
            const double tc = r->t[k - 1] + (r->t[k] - r->t[k - 1]) * r->w[k - 1] / (r->w[k - 1] - r->w[k]);
            if (first < 0) first = tc;
            else n++;
            last = tc;
        }
    assert_true(n >= 2);
    return 3.14159265358979323846 * n / (last - first);
}

/* One hub run: the static stretch at t = 0 (the strip at rest in the spinning frame), then the flap. */
static double hub_frequency(const char* text) {
    run o;
    load(text, &o);
    kd_error err;
    if (kd_ffr3d_static_start(o.s, 0.0, o.q0, o.qd0, &err)) fail_msg("%s", err.msg);
    flap(&o, 0, 1, 0.5, 0.05, o.qd0);
    const kd_body_desc* p = o.d->sdesc->bodies[1].shell;
    const double tip[3] = {0.5, 0.0, 0.0};
    static rec r;
    memset(&r, 0, sizeof(r));
    r.iw = kd_ffr3d_node_coordinate(o.s, 0, kd_splate_node_at(p, tip) - 1, 2);
    assert_true(r.iw >= 0);
    integrate(&o, 0.026, 2e-6, 5, &r);
    const double w = flap_frequency(&r);
    run_free(&o);
    return w;
}

static void test_southwell(void** state) {
    (void)state;
    const double Om = 300.0, K = 1.19334;
    const double w0 = hub_frequency(REST), w = hub_frequency(SPIN), woff = hub_frequency(SPIN_OFF);
    const double ref = sqrt(w0 * w0 + K * Om * Om), Km = (w * w - w0 * w0) / (Om * Om);
    printf("spinning hub, Omega = %.0f rad/s: omega_0 = %.3f rad/s (at rest), omega = %.3f rad/s against Southwell "
           "%.3f (error %.2e; K measured %.4f against %.4f); geometric_stiffness false: %.3f rad/s\n",
           Om, w0, w, ref, w / ref - 1, Km, K, woff);
    assert_true(fabs(w / ref - 1) < 0.01);
    assert_true(fabs(Km / K - 1) < 0.03);
    assert_true(fabs(woff / w0 - 1) < 0.01);   /* no stiffening without SL8 */
}

static void test_free_energy(void** state) {
    (void)state;
    run o, off;
    load(FREE, &o);
    load(FREE_OFF, &off);
    /* spin about a tilted axis (body axes = global at t = 0), then the flap */
    const double r0[3] = {0, 0, 0}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, v[3] = {0, 0, 0}, w[3] = {4, 6, 60};
    kd_ffr3d_set_pose(o.s, 0, r0, R, v, w, o.q0, o.qd0);
    flap(&o, 0, 0, 0.5, 1.0, o.qd0);
    static rec r;
    memset(&r, 0, sizeof(r));
    r.iw = -1, r.off = off.s;
    integrate(&o, 0.01, 2e-6, 10, &r);
    /* the geometric energy's share: U with SL8 less q^T K q / 2 along the run */
    double dE = 0, Ugmax = 0;
    for (int k = 0; k < r.count; k++) dE = fmax(dE, fabs(r.E[k] - r.E[0])), Ugmax = fmax(Ugmax, fabs(r.Ug[k]));
    printf("free spinning strip: T + U = %.6e J, drifts by %.2e J (%.2e relative); the geometric energy of SL8 up "
           "to %.2e J (%.0f times the drift)\n",
           r.E[0], dE, dE / r.E[0], Ugmax, Ugmax / dE);
    assert_true(dE < 1e-9 * r.E[0]);
    assert_true(dE < 1e-3 * Ugmax);   /* the energy of SL8 matters at this bound */
    run_free(&o), run_free(&off);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_southwell),
        cmocka_unit_test(test_free_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
