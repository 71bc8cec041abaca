/* Forward dynamics of constrained planar systems (src/constrained/), on systems built here in body
 * coordinates (x, y, phi per body) with revolute joints, against references independent of the
 * solvers:
 *   - a compound pendulum: small-amplitude period 2 pi sqrt(I_O / (m g d)) and the exact
 *     large-amplitude period 4 sqrt(I_O / (m g d)) K(sin(theta0 / 2)) (complete elliptic integral
 *     by the arithmetic-geometric mean), for every formulation and integrator; fourth order of
 *     the Runge-Kutta integrator against the exact hanging angle after a quarter period;
 *   - a double pendulum and a four-bar linkage: conservation of T + V (T - T0 = W, the work of
 *     gravity), constraint drift bounds, and agreement of the trajectories of all formulations;
 *   - a double parallelogram (one redundant constraint): Udwadia-Kalaba's pseudo-inverse gives
 *     the period of the equivalent one-degree-of-freedom pendulum; augmented, Maggi and IDA
 *     report the redundancy;
 *   - a chain of pendulum bodies: drift with and without stabilisation;
 *   - failures: option checks, a callback that fails (time and cause reported). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/mbs.h"
#include "test_util.h"

#define G 9.81
#define MAXB 64
#define MAXJ 80

/* ---- a planar rig: bodies, revolute joints (to another body or to ground), gravity -y ---- */
typedef struct joint {
    int bi, bj;                   /* bodies; bj = -1 for ground */
    double si[2], sj[2];          /* joint point in each body frame (sj: in ground when bj = -1) */
} joint;

typedef struct rig {
    int nb, nj;
    double m[MAXB], J[MAXB];
    joint jt[MAXJ];
    double fail_after;            /* force callback fails for t > fail_after (0 = never) */
    double mass[3 * MAXB];
    int rowptr[2 * MAXJ + 1], col[8 * MAXJ];
    kd_cms cms;
} rig;

/* A s and B s = dA/dphi s */
static void As(double phi, const double* s, double* a) {
    a[0] = cos(phi) * s[0] - sin(phi) * s[1], a[1] = sin(phi) * s[0] + cos(phi) * s[1];
}
static void Bs(double phi, const double* s, double* b) {
    b[0] = -sin(phi) * s[0] - cos(phi) * s[1], b[1] = cos(phi) * s[0] - sin(phi) * s[1];
}

static int rig_phi(void* ctx, double t, const double* q, double* phi) {
    (void)t;
    rig* r = ctx;
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        double a[2], b[2] = {j->sj[0], j->sj[1]};
        As(q[3 * j->bi + 2], j->si, a);
        a[0] += q[3 * j->bi], a[1] += q[3 * j->bi + 1];
        if (j->bj >= 0) {
            As(q[3 * j->bj + 2], j->sj, b);
            b[0] += q[3 * j->bj], b[1] += q[3 * j->bj + 1];
        }
        phi[2 * k] = a[0] - b[0], phi[2 * k + 1] = a[1] - b[1];
    }
    return 0;
}

/* Jacobian entries per row in ascending column order: the lower-numbered body first. */
static int rig_jac(void* ctx, double t, const double* q, double* jac) {
    (void)t;
    rig* r = ctx;
    int p = 0;
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        double bi[2], bj[2] = {0, 0};
        Bs(q[3 * j->bi + 2], j->si, bi);
        if (j->bj >= 0) Bs(q[3 * j->bj + 2], j->sj, bj);
        for (int c = 0; c < 2; c++) {
            if (j->bj < 0) jac[p++] = 1, jac[p++] = bi[c];
            else if (j->bi < j->bj) jac[p++] = 1, jac[p++] = bi[c], jac[p++] = -1, jac[p++] = -bj[c];
            else jac[p++] = -1, jac[p++] = -bj[c], jac[p++] = 1, jac[p++] = bi[c];
        }
    }
    return 0;
}

static int rig_phit(void* ctx, double t, const double* q, double* pt) {
    (void)t, (void)q;
    memset(pt, 0, sizeof(double) * 2 * ((rig*)ctx)->nj);
    return 0;
}

/* gamma = A_i s_i phi_i'^2 - A_j s_j phi_j'^2 */
static int rig_gamma(void* ctx, double t, const double* q, const double* qd, double* g) {
    (void)t;
    rig* r = ctx;
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        double a[2], b[2] = {0, 0};
        As(q[3 * j->bi + 2], j->si, a);
        const double wi = qd[3 * j->bi + 2];
        g[2 * k] = a[0] * wi * wi, g[2 * k + 1] = a[1] * wi * wi;
        if (j->bj >= 0) {
            As(q[3 * j->bj + 2], j->sj, b);
            const double wj = qd[3 * j->bj + 2];
            g[2 * k] -= b[0] * wj * wj, g[2 * k + 1] -= b[1] * wj * wj;
        }
    }
    return 0;
}

static int rig_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    (void)q, (void)qd;
    rig* r = ctx;
    if (r->fail_after > 0 && t > r->fail_after) return 1;
    for (int b = 0; b < r->nb; b++) Q[3 * b] = 0, Q[3 * b + 1] = -r->m[b] * G, Q[3 * b + 2] = 0;
    return 0;
}

static void rig_finish(rig* r) {
    int p = 0;
    for (int b = 0; b < r->nb; b++) r->mass[3 * b] = r->mass[3 * b + 1] = r->m[b], r->mass[3 * b + 2] = r->J[b];
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        for (int c = 0; c < 2; c++) {
            r->rowptr[2 * k + c] = p;
            int lo = j->bi, hi = j->bj;
            if (hi >= 0 && hi < lo) lo = j->bj, hi = j->bi;
            r->col[p++] = 3 * lo + c, r->col[p++] = 3 * lo + 2;
            if (hi >= 0) r->col[p++] = 3 * hi + c, r->col[p++] = 3 * hi + 2;
        }
    }
    r->rowptr[2 * r->nj] = p;
    r->cms = (kd_cms){.n = 3 * r->nb, .nc = 2 * r->nj, .mass = r->mass, .jac_nnz = p, .jac_rowptr = r->rowptr,
                      .jac_col = r->col, .ctx = r, .phi = rig_phi, .jacobian = rig_jac, .phi_t = rig_phit,
                      .gamma = rig_gamma, .force = rig_force};
}

static void add_bar(rig* r, double m, double L) { r->m[r->nb] = m, r->J[r->nb++] = m * L * L / 12; }
static void add_joint(rig* r, int bi, double six, int bj, double sjx, double sjy) {
    r->jt[r->nj++] = (joint){bi, bj, {six, 0}, {sjx, sjy}};
}
/* body b as a bar from point P to point Q: centre and angle */
static void place(double* q, int b, const double* P, const double* Q) {
    q[3 * b] = 0.5 * (P[0] + Q[0]), q[3 * b + 1] = 0.5 * (P[1] + Q[1]), q[3 * b + 2] = atan2(Q[1] - P[1], Q[0] - P[0]);
}

/* ---- recording outputs ---- */
#define MAXREC 40001
typedef struct rec {
    int coord;                    /* coordinate recorded in x */
    int n;
    double t[MAXREC], x[MAXREC];
    double T0, energy_err, escale, drift_pos, drift_vel;
    double qend[3 * MAXB];
    int nq;
} rec;

static int record(void* ctx, const kd_mbs_sample* s) {
    rec* r = ctx;
    if (r->n == 0) r->T0 = s->kinetic;
    if (r->n < MAXREC) r->t[r->n] = s->t, r->x[r->n] = s->q[r->coord];
    r->n++;
    /* energy balance T - T0 = W (gravity is the only applied force; revolute joints do no work) */
    r->energy_err = fmax(r->energy_err, fabs(s->kinetic - r->T0 - s->work));
    r->escale = fmax(r->escale, fabs(s->work));
    r->drift_pos = fmax(r->drift_pos, s->drift_pos);
    r->drift_vel = fmax(r->drift_vel, s->drift_vel);
    memcpy(r->qend, s->q, sizeof(double) * r->nq);
    return 0;
}

/* Mean period from the upward zero crossings of x - x_eq (linear interpolation). */
static double period(const rec* r, double x_eq) {
    double first = -1, last = -1;
    int count = 0;
    for (int i = 1; i < r->n && i < MAXREC; i++) {
        const double a = r->x[i - 1] - x_eq, b = r->x[i] - x_eq;
        if (a < 0 && b >= 0) {
            const double tc = r->t[i - 1] + (r->t[i] - r->t[i - 1]) * (-a) / (b - a);
            if (first < 0) first = tc;
            else count++;
            last = tc;
        }
    }
    return count > 0 ? (last - first) / count : -1;
}

/* Complete elliptic integral of the first kind K(k) = pi / (2 AGM(1, sqrt(1 - k^2))). */
static double ellipk(double k) {
    double a = 1, b = sqrt(1 - k * k);
    for (int i = 0; i < 30; i++) {
        const double an = 0.5 * (a + b);
        b = sqrt(a * b), a = an;
    }
    return PI / (2 * a);
}

static kd_mbs_opts opts(kd_mbs_formulation f, kd_mbs_stabilization s, kd_mbs_integrator in, double t_end, double dt) {
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = f, o.stabilization = s, o.integrator = in, o.t_end = t_end, o.dt = dt;
    o.rtol = 1e-10, o.atol = 1e-12;
    return o;
}

static rec* run(rig* r, const kd_mbs_opts* o, const double* q0, const double* qd0, int coord, kd_mbs_stats* st) {
    rec* out = calloc(1, sizeof(rec));
    out->coord = coord, out->nq = r->cms.n;
    kd_error err;
    kd_status s = kd_mbs_forward(&r->cms, o, q0, qd0, record, out, st, &err);
    if (s) fail_msg("%s/%s/%s: %s", kd_mbs_formulation_name(o->formulation), kd_mbs_stabilization_name(o->stabilization),
                    kd_mbs_integrator_name(o->integrator), err.msg);
    return out;
}

/* The eight combinations checked on every system. */
typedef struct combo {
    kd_mbs_formulation f;
    kd_mbs_stabilization s;
    kd_mbs_integrator i;
} combo;
static const combo COMBOS[] = {
    {KD_MBS_AUGMENTED, KD_MBS_STAB_BAUMGARTE, KD_MBS_RK4},  {KD_MBS_AUGMENTED, KD_MBS_STAB_PROJECTION, KD_MBS_RK4},
    {KD_MBS_AUGMENTED, KD_MBS_STAB_BAUMGARTE, KD_MBS_CVODE}, {KD_MBS_UDWADIA_KALABA, KD_MBS_STAB_BAUMGARTE, KD_MBS_RK4},
    {KD_MBS_UDWADIA_KALABA, KD_MBS_STAB_PROJECTION, KD_MBS_CVODE}, {KD_MBS_MAGGI, KD_MBS_STAB_NONE, KD_MBS_RK4},
    {KD_MBS_MAGGI, KD_MBS_STAB_NONE, KD_MBS_CVODE},        {KD_MBS_IDA, KD_MBS_STAB_NONE, KD_MBS_RK4},
};
#define NCOMBO ((int)(sizeof(COMBOS) / sizeof(COMBOS[0])))

/* ---- compound pendulum: a bar of length L pinned at one end ---- */
static void pendulum(rig* r, double* q, double* qd, double theta0) {
    memset(r, 0, sizeof(*r));
    add_bar(r, 2.0, 0.8);
    add_joint(r, 0, -0.4, -1, 0, 0);
    rig_finish(r);
    /* hanging down is phi = -pi/2; released at rest theta0 from it */
    const double P[2] = {0, 0}, Q[2] = {0.8 * sin(theta0), -0.8 * cos(theta0)};
    place(q, 0, P, Q);
    memset(qd, 0, sizeof(double) * 3);
}

static void test_pendulum_periods(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    double q[3], qd[3];
    const double m = 2.0, L = 0.8, d = L / 2, IO = m * L * L / 3;
    const double T_small = 2 * PI * sqrt(IO / (m * G * d));
    for (int c = 0; c < NCOMBO; c++) {
        for (int big = 0; big < 2; big++) {
            const double th0 = big ? 2.0 : 0.01;   /* rad */
            pendulum(r, q, qd, th0);
            kd_mbs_opts o = opts(COMBOS[c].f, COMBOS[c].s, COMBOS[c].i, 6.0, 5e-4);
            kd_mbs_stats st;
            rec* out = run(r, &o, q, qd, 2, &st);
            const double Tm = period(out, -PI / 2);
            /* exact period of the compound pendulum (elliptic integral); the small-amplitude
             * one differs from 2 pi sqrt(I_O/(m g d)) by (1 + th0^2/16 + ...) */
            const double T_exact = 4 * sqrt(IO / (m * G * d)) * ellipk(sin(th0 / 2));
            const double rel = fabs(Tm - T_exact) / T_exact;
            printf("pendulum %-14s %-10s %-5s theta0 %.2f: period %.9f exact %.9f rel %.1e (small-amp %.6f) "
                   "drift %.1e energy %.1e steps %ld evals %ld\n",
                   kd_mbs_formulation_name(o.formulation), kd_mbs_stabilization_name(o.stabilization),
                   kd_mbs_integrator_name(o.integrator), th0, Tm, T_exact, rel, T_small, out->drift_pos,
                   out->energy_err / out->escale, st.steps, st.evaluations);
            assert_true(rel < 2e-6);
            if (!big) assert_true(fabs(Tm - T_small) / T_small < 1e-5);
            assert_true(out->drift_pos < 1e-8);
            assert_true(out->energy_err < 1e-6 * out->escale);
            assert_int_equal(st.dof, 1);
            free(out);
        }
    }
    free(r);
}

/* Fourth order of the fixed-step Runge-Kutta integrator: released from rest at theta0, the
 * pendulum passes the hanging position after exactly a quarter of its exact period (where its
 * speed is largest, so that the phase error shows fully in the angle). */
static void test_rk4_order(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    double q[3], qd[3];
    const double m = 2.0, L = 0.8, d = L / 2, IO = m * L * L / 3, th0 = 2.0;
    const double quarter = sqrt(IO / (m * G * d)) * ellipk(sin(th0 / 2));
    const kd_mbs_formulation forms[] = {KD_MBS_AUGMENTED, KD_MBS_MAGGI};
    const kd_mbs_stabilization stabs[] = {KD_MBS_STAB_PROJECTION, KD_MBS_STAB_NONE};
    for (int f = 0; f < 2; f++) {
        double e[2];
        for (int k = 0; k < 2; k++) {
            pendulum(r, q, qd, th0);
            kd_mbs_opts o = opts(forms[f], stabs[f], KD_MBS_RK4, quarter, quarter / (20 << k));
            kd_mbs_stats st;
            rec* out = run(r, &o, q, qd, 2, &st);
            e[k] = fabs(out->qend[2] - (-PI / 2));
            free(out);
        }
        printf("rk4 %s: angle error at T/4 %.3e (dt = T/80), %.3e (T/160), order %.2f\n",
               kd_mbs_formulation_name(forms[f]), e[0], e[1], log2(e[0] / e[1]));
        assert_true(log2(e[0] / e[1]) > 3.7 && log2(e[0] / e[1]) < 4.3);
    }
    free(r);
}

/* ---- double pendulum of two bars, released horizontal-ish ---- */
static void double_pendulum(rig* r, double* q, double* qd) {
    memset(r, 0, sizeof(*r));
    add_bar(r, 1.0, 1.0);
    add_bar(r, 0.5, 0.7);
    add_joint(r, 0, -0.5, -1, 0, 0);
    add_joint(r, 0, 0.5, 1, -0.35, 0);
    rig_finish(r);
    const double O[2] = {0, 0}, A[2] = {cos(-0.3), sin(-0.3)}, B[2] = {A[0] + 0.7 * cos(0.4), A[1] + 0.7 * sin(0.4)};
    place(q, 0, O, A);
    place(q, 1, A, B);
    memset(qd, 0, sizeof(double) * 6);
}

/* ---- four-bar: ground pivots (0,0) and (D,0), crank a, coupler b, rocker c ---- */
static void four_bar(rig* r, double* q, double* qd, double th2) {
    const double a = 0.3, b = 0.9, c = 0.7, D = 0.8;
    memset(r, 0, sizeof(*r));
    add_bar(r, 1.0, a);
    add_bar(r, 2.0, b);
    add_bar(r, 1.5, c);
    add_joint(r, 0, -a / 2, -1, 0, 0);
    add_joint(r, 0, a / 2, 1, -b / 2, 0);
    add_joint(r, 1, b / 2, 2, c / 2, 0);
    add_joint(r, 2, -c / 2, -1, D, 0);
    rig_finish(r);
    /* C: intersection of the circles |C - B| = b and |C - O4| = c, upper branch */
    const double O2[2] = {0, 0}, O4[2] = {D, 0}, B[2] = {a * cos(th2), a * sin(th2)};
    const double dx = O4[0] - B[0], dy = O4[1] - B[1], e = hypot(dx, dy);
    const double l = (b * b - c * c + e * e) / (2 * e), h = sqrt(b * b - l * l);
    const double C[2] = {B[0] + l * dx / e - h * dy / e, B[1] + l * dy / e + h * dx / e};
    place(q, 0, O2, B);
    place(q, 1, B, C);
    place(q, 2, O4, C);
    memset(qd, 0, sizeof(double) * 9);
    qd[2] = 3.0;                  /* crank spinning at 3 rad/s; projected to a consistent velocity */
}

static void agreement(rig* r, const double* q, const double* qd, double t_end, const char* name, int min_repartitions) {
    rec* ref = NULL;
    for (int c = 0; c < NCOMBO; c++) {
        kd_mbs_opts o = opts(COMBOS[c].f, COMBOS[c].s, COMBOS[c].i, t_end, 5e-4);
        kd_mbs_stats st;
        rec* out = run(r, &o, q, qd, 2, &st);
        double diff = 0;
        if (ref)
            for (int i = 0; i < r->cms.n; i++) diff = fmax(diff, fabs(out->qend[i] - ref->qend[i]));
        printf("%s %-14s %-10s %-5s: |q - q_ref|_inf %.2e  energy %.1e  drift %.1e / %.1e  steps %ld evals %ld "
               "factorizations %ld repartitions %ld\n",
               name, kd_mbs_formulation_name(o.formulation), kd_mbs_stabilization_name(o.stabilization),
               kd_mbs_integrator_name(o.integrator), diff, out->energy_err / out->escale, out->drift_pos,
               out->drift_vel, st.steps, st.evaluations, st.factorizations, st.repartitions);
        assert_true(diff < 1e-6);
        assert_true(out->energy_err < 1e-7 * out->escale);
        assert_true(out->drift_pos < 1e-8);
        assert_true(out->drift_vel < 1e-7);
        /* Maggi re-chooses its independent coordinate as the linkage moves */
        if (o.formulation == KD_MBS_MAGGI) assert_true(st.repartitions >= min_repartitions);
        if (!ref) ref = out;
        else free(out);
    }
    free(ref);
}

static void test_double_pendulum(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    double q[6], qd[6];
    double_pendulum(r, q, qd);
    agreement(r, q, qd, 3.0, "double pendulum", 1);
    free(r);
}

static void test_four_bar(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    double q[9], qd[9];
    four_bar(r, q, qd, 1.0);
    agreement(r, q, qd, 2.0, "four-bar", 3);
    free(r);
}

/* ---- double parallelogram: three equal cranks at (0,0), (L,0), (2L,0) carry one coupler; the
 * middle crank makes one constraint redundant. The coupler translates, all cranks turn together:
 * one pendulum with I = 3 I_O,crank + m_c l^2 and m g d = (3 m_k l/2 + m_c l) g. ---- */
static void parallelogram(rig* r, double* q, double* qd, double th0) {
    const double l = 0.5, L = 0.4, mk = 0.8, mc = 1.2;
    memset(r, 0, sizeof(*r));
    for (int k = 0; k < 3; k++) add_bar(r, mk, l);
    add_bar(r, mc, 2 * L);
    for (int k = 0; k < 3; k++) {
        add_joint(r, k, -l / 2, -1, k * L, 0);
        add_joint(r, k, l / 2, 3, (k - 1) * L, 0);
    }
    rig_finish(r);
    for (int k = 0; k < 3; k++) {
        const double P[2] = {k * L, 0}, Q[2] = {k * L + l * sin(th0), -l * cos(th0)};
        place(q, k, P, Q);
    }
    q[9] = L + l * sin(th0), q[10] = -l * cos(th0), q[11] = 0;
    memset(qd, 0, sizeof(double) * 12);
}

static void test_redundant_parallelogram(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    double q[12], qd[12];
    const double th0 = 0.01, l = 0.5, mk = 0.8, mc = 1.2;
    parallelogram(r, q, qd, th0);
    const double I = 3 * mk * l * l / 3 + mc * l * l, mgd = (3 * mk * l / 2 + mc * l) * G;
    const double T_exact = 4 * sqrt(I / mgd) * ellipk(sin(th0 / 2));
    const kd_mbs_stabilization stabs[] = {KD_MBS_STAB_BAUMGARTE, KD_MBS_STAB_PROJECTION};
    for (int k = 0; k < 2; k++) {
        kd_mbs_opts o = opts(KD_MBS_UDWADIA_KALABA, stabs[k], KD_MBS_RK4, 4.0, 5e-4);
        kd_mbs_stats st;
        rec* out = run(r, &o, q, qd, 2, &st);
        const double Tm = period(out, -PI / 2);
        printf("parallelogram udwadia-kalaba %-10s: dof %d redundant %d period %.9f exact %.9f rel %.1e drift %.1e "
               "energy %.1e\n",
               kd_mbs_stabilization_name(o.stabilization), st.dof, st.redundant, Tm, T_exact,
               fabs(Tm - T_exact) / T_exact, out->drift_pos, out->energy_err / out->escale);
        assert_int_equal(st.redundant, 1);
        assert_int_equal(st.dof, 1);
        assert_true(fabs(Tm - T_exact) / T_exact < 1e-6);
        assert_true(out->drift_pos < 1e-8);
        assert_true(out->energy_err < 1e-6 * out->escale);
        free(out);
    }
    /* the formulations that need independent constraints say so */
    const kd_mbs_formulation others[] = {KD_MBS_AUGMENTED, KD_MBS_MAGGI, KD_MBS_IDA};
    for (int k = 0; k < 3; k++) {
        kd_mbs_opts o = opts(others[k], KD_MBS_STAB_BAUMGARTE, KD_MBS_RK4, 1.0, 1e-3);
        kd_error err;
        assert_int_equal(kd_mbs_forward(&r->cms, &o, q, qd, NULL, NULL, NULL, &err), KD_ERR_NUMERIC);
        assert_non_null(strstr(err.msg, "redundant"));
    }
    free(r);
}

/* ---- a chain of N pendulum bars hanging from ground, released from a bent shape ---- */
static void chain(rig* r, int N, double* q, double* qd) {
    const double l = 0.1;
    memset(r, 0, sizeof(*r));
    for (int k = 0; k < N; k++) add_bar(r, 0.1, l);
    add_joint(r, 0, -l / 2, -1, 0, 0);
    for (int k = 1; k < N; k++) add_joint(r, k - 1, l / 2, k, -l / 2, 0);
    rig_finish(r);
    double P[2] = {0, 0};
    for (int k = 0; k < N; k++) {
        const double a = -PI / 2 + 0.8 * cos(0.3 * k);
        const double Q[2] = {P[0] + l * cos(a), P[1] + l * sin(a)};
        place(q, k, P, Q);
        P[0] = Q[0], P[1] = Q[1];
    }
    memset(qd, 0, sizeof(double) * 3 * N);
}

static void test_chain_drift(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    const int N = 40;
    double* q = malloc(sizeof(double) * 3 * N);
    double* qd = malloc(sizeof(double) * 3 * N);
    chain(r, N, q, qd);
    double drift[3];
    const kd_mbs_stabilization stabs[] = {KD_MBS_STAB_NONE, KD_MBS_STAB_BAUMGARTE, KD_MBS_STAB_PROJECTION};
    for (int k = 0; k < 3; k++) {
        kd_mbs_opts o = opts(KD_MBS_AUGMENTED, stabs[k], KD_MBS_RK4, 0.5, 2e-4);
        o.alpha = o.beta = 50;
        kd_mbs_stats st;
        rec* out = run(r, &o, q, qd, 2, &st);
        drift[k] = out->drift_pos;
        printf("chain N=%d %-10s: drift |Phi| %.2e |Phi'| %.2e energy %.1e factorizations %ld\n", N,
               kd_mbs_stabilization_name(stabs[k]), out->drift_pos, out->drift_vel, out->energy_err / out->escale,
               st.factorizations);
        assert_int_equal(st.dof, N);
        free(out);
    }
    /* projection holds the constraints to the Newton tolerance; Baumgarte bounds the drift */
    assert_true(drift[2] < 1e-11);
    assert_true(drift[1] < 1e-6);
    assert_true(drift[1] <= drift[0]);
    free(q), free(qd), free(r);
}

/* ---- IDA on pendulum chains of N bars of mass m and length l, released from a bent shape:
 * the GGL DAE against the augmented formulation (projection, CVODE), both at rtol 1e-10,
 * atol 1e-12, and the energy balance. Released from rest, IDA's own first-step estimate came out
 * near 1e-11 s, where the index-2 Newton iteration fails on round-off (it stopped at t = 0 from
 * 10 bars of 1 kg x 0.5 m, from 2 bars of 0.1 kg x 0.1 m). ---- */
static void chain_ml(rig* r, int N, double m, double l, double* q, double* qd) {
    memset(r, 0, sizeof(*r));
    for (int k = 0; k < N; k++) add_bar(r, m, l);
    add_joint(r, 0, -l / 2, -1, 0, 0);
    for (int k = 1; k < N; k++) add_joint(r, k - 1, l / 2, k, -l / 2, 0);
    rig_finish(r);
    double P[2] = {0, 0};
    for (int k = 0; k < N; k++) {
        const double a = -PI / 2 + 0.8 * cos(0.3 * k);
        const double Q[2] = {P[0] + l * cos(a), P[1] + l * sin(a)};
        place(q, k, P, Q);
        P[0] = Q[0], P[1] = Q[1];
    }
    memset(qd, 0, sizeof(double) * 3 * N);
}

static void test_ida_chains(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    const int Ns[] = {2, 10, 50};
    const double ms[] = {1.0, 0.1}, ls[] = {0.5, 0.1};
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++) {
            const int N = Ns[k];
            double q[3 * MAXB], qd[3 * MAXB];
            chain_ml(r, N, ms[s], ls[s], q, qd);
            const double t_end = 0.2;
            kd_mbs_opts o = opts(KD_MBS_AUGMENTED, KD_MBS_STAB_PROJECTION, KD_MBS_CVODE, t_end, 1e-3);
            kd_mbs_stats st;
            rec* ref = run(r, &o, q, qd, 2, &st);
            o.formulation = KD_MBS_IDA;
            rec* out = run(r, &o, q, qd, 2, &st);
            double diff = 0;
            for (int i = 0; i < r->cms.n; i++) diff = fmax(diff, fabs(out->qend[i] - ref->qend[i]));
            printf("ida chain N=%2d %.1f kg %.1f m: |q - q_aug|_inf %.2e energy %.1e drift %.1e / %.1e steps %ld "
                   "evals %ld factorizations %ld\n",
                   N, ms[s], ls[s], diff, out->energy_err / out->escale, out->drift_pos, out->drift_vel, st.steps,
                   st.evaluations, st.factorizations);
            assert_true(diff < 1e-7 * N * ls[s]);
            assert_true(out->energy_err < 1e-8 * out->escale);
            assert_true(out->drift_pos < 1e-10 && out->drift_vel < 1e-9);
            assert_true(ref->energy_err < 1e-8 * ref->escale);
            /* the sparse Newton matrix costs a few evaluations per step, not one per unknown */
            assert_true(st.evaluations < 10 * st.steps);
            free(ref), free(out);
        }
    /* tolerances far below the former floor (rtol 1e-8): the energy balance follows them */
    double q[3 * MAXB], qd[3 * MAXB];
    chain_ml(r, 10, 0.1, 0.1, q, qd);
    kd_mbs_opts o = opts(KD_MBS_IDA, KD_MBS_STAB_NONE, KD_MBS_RK4, 0.2, 1e-3);
    o.rtol = 1e-12, o.atol = 1e-14;
    kd_mbs_stats st;
    rec* out = run(r, &o, q, qd, 2, &st);
    printf("ida chain N=10 0.1 kg 0.1 m, rtol 1e-12: energy %.1e drift %.1e / %.1e steps %ld\n",
           out->energy_err / out->escale, out->drift_pos, out->drift_vel, st.steps);
    assert_true(out->energy_err < 1e-10 * out->escale);
    assert_true(out->drift_pos < 1e-12 && out->drift_vel < 1e-11);
    free(out);
    free(r);
}

static void test_failures(void** state) {
    (void)state;
    rig* r = malloc(sizeof(rig));
    double q[3], qd[3];
    pendulum(r, q, qd, 0.5);
    kd_error err;
    kd_mbs_opts o = opts(KD_MBS_AUGMENTED, KD_MBS_STAB_BAUMGARTE, KD_MBS_RK4, 1.0, 1e-3);
    o.t_end = 0;
    assert_int_equal(kd_mbs_forward(&r->cms, &o, q, qd, NULL, NULL, NULL, &err), KD_ERR_USAGE);
    /* a force callback that fails at t > 0.25: every formulation reports the time */
    r->fail_after = 0.25;
    for (int c = 0; c < NCOMBO; c++) {
        kd_mbs_stats st;
        o = opts(COMBOS[c].f, COMBOS[c].s, COMBOS[c].i, 1.0, 1e-3);
        rec* out = calloc(1, sizeof(rec));
        out->nq = 3;
        assert_int_equal(kd_mbs_forward(&r->cms, &o, q, qd, record, out, &st, &err), KD_ERR_NUMERIC);
        if (!strstr(err.msg, "callback")) fail_msg("%s", err.msg);
        assert_true(st.t_reached >= 0.24 && st.t_reached <= 0.2501);
        assert_true(out->n >= 240);
        free(out);
    }
    free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_periods), cmocka_unit_test(test_rk4_order),
        cmocka_unit_test(test_double_pendulum),
        cmocka_unit_test(test_four_bar),         cmocka_unit_test(test_redundant_parallelogram),
        cmocka_unit_test(test_chain_drift),      cmocka_unit_test(test_ida_chains),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
