/* The formalisms on mechanisms (kedyn/mech_formalism.h): Newton-Euler with multipliers, Maggi,
 * Kane, Gibbs-Appell and Lagrange must give
 *   - the same q'' and multipliers at the same consistent states, to 1e-10 relative (five
 *     different computations: Schur complement, partitioned elimination with A^T M A, Kane's
 *     body sums, the Udwadia-Kalaba pseudo-inverse, the whole augmented matrix by LU);
 *   - joint reactions from the multipliers equal to those by projection (seed 004, A43-A46) at
 *     those forward states;
 *   - the same trajectories to the integrators' tolerance, each conserving energy (kinetic
 *     energy minus the work of gravity and springs: an independent check of every route).
 * Models: a free double pendulum, a four-bar and a slider-crank under gravity. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/load_yaml.h"
#include "kedyn/mech_formalism.h"

static const char* const DOUBLE_PENDULUM =
    "kedyn: 1\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
    "  - {name: upper, type: rigid, mass: 2.0, inertia: 0.04, com: [0.25, 0], points: {O: [0, 0], E: [0.5, 0]},"
    " angle: -0.6}\n"
    "  - {name: lower, type: rigid, mass: 1.0, inertia: 0.01, com: [0.2, 0.01], points: {E: [0, 0]},"
    " position: [0.41, -0.28], angle: -1.2}\n"
    "joints:\n"
    "  - {name: shoulder, type: revolute, bodies: [ground, upper], points: [O, O]}\n"
    "  - {name: elbow, type: revolute, bodies: [upper, lower], points: [E, E]}\n"
    "forces:\n"
    "  - {type: gravity, g: [0, -9.81]}\n";

/* The double pendulum with its shoulder driven at 2 rad/s: one DOF left free, so the projection
 * route finds the driving torque from the free direction as well (least squares, exact for a
 * true motion). */
static const char* const DOUBLE_PENDULUM_DRIVEN =
    "kedyn: 1\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
    "  - {name: upper, type: rigid, mass: 2.0, inertia: 0.04, com: [0.25, 0], points: {O: [0, 0], E: [0.5, 0]},"
    " angle: -0.6}\n"
    "  - {name: lower, type: rigid, mass: 1.0, inertia: 0.01, com: [0.2, 0.01], points: {E: [0, 0]},"
    " position: [0.41, -0.28], angle: -1.2}\n"
    "joints:\n"
    "  - {name: shoulder, type: revolute, bodies: [ground, upper], points: [O, O]}\n"
    "  - {name: elbow, type: revolute, bodies: [upper, lower], points: [E, E]}\n"
    "drivers:\n"
    "  - {joint: shoulder, law: {speed: 2.0}, initial: -0.6}\n"
    "forces:\n"
    "  - {type: gravity, g: [0, -9.81]}\n";

static const char* const FOUR_BAR =
    "kedyn: 1\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {A: [0, 0], D: [0.4, 0]}}\n"
    "  - {name: crank, type: rigid, mass: 0.2, inertia: 1.667e-4, com: [0.05, 0], points: {A: [0, 0], B: [0.1, 0]},"
    " angle: 0.5}\n"
    "  - {name: coupler, type: rigid, mass: 0.5, inertia: 5.104e-3, com: [0.175, 0], points: {B: [0, 0], C: [0.35, 0]},"
    " position: [0.0878, 0.0479], angle: 0.3}\n"
    "  - {name: rocker, type: rigid, mass: 0.4, inertia: 3.0e-3, com: [0.15, 0], points: {D: [0, 0], C: [0.3, 0]},"
    " position: [0.4, 0], angle: 1.9}\n"
    "joints:\n"
    "  - {name: jA, type: revolute, bodies: [ground, crank], points: [A, A]}\n"
    "  - {name: jB, type: revolute, bodies: [crank, coupler], points: [B, B]}\n"
    "  - {name: jC, type: revolute, bodies: [coupler, rocker], points: [C, C]}\n"
    "  - {name: jD, type: revolute, bodies: [ground, rocker], points: [D, D]}\n"
    "forces:\n"
    "  - {type: gravity, g: [0, -9.81]}\n";

static const char* const SLIDER_CRANK =
    "kedyn: 1\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0], K: [0.6, 0]}}\n"
    "  - {name: crank, type: rigid, mass: 1.0, inertia: 8.333333333e-4, com: [0.05, 0],"
    " points: {O: [0, 0], A: [0.1, 0]}, position: [0, 0], angle: 0.8}\n"
    "  - {name: rod, type: rigid, mass: 2.0, inertia: 0.015, com: [0.15, 0],"
    " points: {A: [0, 0], B: [0.3, 0]}, position: [0.07, 0.07], angle: -0.25}\n"
    "  - {name: slider, type: rigid, mass: 0.5, inertia: 1.0e-4, com: [0, 0],"
    " points: {B: [0, 0]}, position: [0.36, 0.0], angle: 0}\n"
    "joints:\n"
    "  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}\n"
    "  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}\n"
    "  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}\n"
    "  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B], axis: [1, 0]}\n"
    "forces:\n"
    "  - {type: gravity, g: [0, -9.81]}\n"
    "  - {type: spring, bodies: [ground, slider], points: [K, B], k: 400, length: 0.1}\n";

static kd_mech* load(const char* yaml) {
    kd_desc* d = NULL;
    kd_error err;
    kd_error_clear(&err);
    if (kd_load_yaml_string(yaml, strlen(yaml), "test.yaml", &d, &err))
        fail_msg("load: %d:%d %s", err.loc.line, err.loc.col, err.msg);
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* The assembled initial position. */
static void assemble(const kd_mech* m, double* q) {
    kd_mech_work* w = kd_mech_work_new(m);
    kd_error err;
    memcpy(q, m->q0, sizeof(double) * m->n);
    if (kd_mech_solve_position(m, w, 0.0, q, NULL, &err)) fail_msg("assembly: %s", err.msg);
    kd_mech_work_free(&w);
}

/* ---- the same q'' and reactions at the same states ---- */

#define NSTATES 6

typedef struct states {
    int n, count, every, seen;
    double t[NSTATES];
    double q[NSTATES][32], qd[NSTATES][32];
} states;

static int keep_state(void* ctx, const kd_mbs_sample* s) {
    states* k = ctx;
    if (k->seen++ % k->every == 0 && k->count < NSTATES) {
        k->t[k->count] = s->t;
        memcpy(k->q[k->count], s->q, sizeof(double) * k->n);
        memcpy(k->qd[k->count], s->qd, sizeof(double) * k->n);
        k->count++;
    }
    return 0;
}

static double rel_diff(const double* a, const double* b, int n) {
    double d = 0, s = 0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
    return s > 0 ? d / s : d;
}

static void same_accelerations(const char* yaml, unsigned seed) {
    kd_mech* m = load(yaml);
    const int n = m->n, nc = m->nc;
    assert_true(n <= 32);
    double q0[32], qd0[32];
    assemble(m, q0);
    /* consistent states along a motion from a random initial velocity (projected onto the
     * velocity constraints by the solver) */
    srand(seed);
    for (int i = 0; i < n; i++) qd0[i] = 4.0 * rand() / RAND_MAX - 2.0;
    kd_cms cms;
    kd_mech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.stabilization = KD_MBS_STAB_PROJECTION, o.t_end = 0.5, o.dt = 1e-3;
    states k = {.n = n, .every = 100};
    kd_error err;
    if (kd_mbs_forward(&cms, &o, q0, qd0, keep_state, &k, NULL, &err)) fail_msg("forward: %s", err.msg);
    assert_int_equal(k.count, NSTATES);

    kd_mech_route* route[KD_MECH_FORMALISM_COUNT];
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++)
        if (kd_mech_route_new((kd_mech_formalism)f, m, k.t[0], k.q[0], &route[f], &err))
            fail_msg("%s: %s", kd_mech_formalism_name((kd_mech_formalism)f), err.msg);
    /* Gauss's principle in closed form (gibbs-appell with formulation udwadia-kalaba) */
    kd_mbs_opts ouk;
    kd_mbs_opts_default(&ouk);
    ouk.formulation = KD_MBS_UDWADIA_KALABA;
    kd_mbs_evaluator* uk = NULL;
    if (kd_mbs_evaluator_new(&cms, &ouk, k.t[0], k.q[0], NULL, &uk, &err)) fail_msg("udwadia-kalaba: %s", err.msg);
    kd_mech_work* w = kd_mech_work_new(m);
    kd_mech_reactions mult, proj;
    assert_int_equal(kd_mech_reactions_alloc(m, &mult), KD_OK);
    assert_int_equal(kd_mech_reactions_alloc(m, &proj), KD_OK);
    double worst_qdd = 0, worst_lambda = 0, worst_reaction = 0;
    for (int s = 0; s < NSTATES; s++) {
        double qdd[KD_MECH_FORMALISM_COUNT][32], lam[KD_MECH_FORMALISM_COUNT][32];
        for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++)
            if (kd_mech_route_eval(route[f], k.t[s], k.q[s], k.qd[s], qdd[f], lam[f], &err))
                fail_msg("%s: %s", kd_mech_formalism_name((kd_mech_formalism)f), err.msg);
        for (int f = 1; f < KD_MECH_FORMALISM_COUNT; f++) {
            const double dq = rel_diff(qdd[f], qdd[KD_MECH_NEWTON_EULER], n);
            const double dl = rel_diff(lam[f], lam[KD_MECH_NEWTON_EULER], nc);
            if (dq > 1e-10 || dl > 1e-10)
                fail_msg("%s at t = %g: q'' differs by %.3g, lambda by %.3g", kd_mech_formalism_name((kd_mech_formalism)f),
                         k.t[s], dq, dl);
            worst_qdd = fmax(worst_qdd, dq), worst_lambda = fmax(worst_lambda, dl);
        }
        {
            double qdd_uk[32], lam_uk[32];
            if (kd_mbs_evaluate(uk, k.t[s], k.q[s], k.qd[s], qdd_uk, lam_uk, &err)) fail_msg("udwadia-kalaba: %s", err.msg);
            const double dq = rel_diff(qdd_uk, qdd[KD_MECH_GIBBS_APPELL], n), dl = rel_diff(lam_uk, lam[KD_MECH_GIBBS_APPELL], nc);
            if (dq > 1e-10 || dl > 1e-10) fail_msg("Gauss closed form against Appell at t = %g: %.3g, %.3g", k.t[s], dq, dl);
            worst_qdd = fmax(worst_qdd, dq), worst_lambda = fmax(worst_lambda, dl);
        }
        /* joint reactions: multipliers route against projection route, at Kane's q'' */
        if (kd_mech_inverse_multipliers(m, w, k.t[s], k.q[s], k.qd[s], NULL, &mult, &err) ||
            kd_mech_inverse_projection(m, w, k.t[s], k.q[s], k.qd[s], qdd[KD_MECH_KANE], &proj, &err))
            fail_msg("reactions: %s", err.msg);
        double dr = rel_diff(proj.F, mult.F, 3 * m->njoint);
        if (m->ndriver > 0) dr = fmax(dr, rel_diff(proj.drive, mult.drive, m->ndriver));
        const double dlm = rel_diff(mult.lambda, lam[KD_MECH_MAGGI], nc);
        if (dr > 1e-10 || dlm > 1e-10) fail_msg("reactions at t = %g differ by %.3g (lambda %.3g)", k.t[s], dr, dlm);
        worst_reaction = fmax(worst_reaction, fmax(dr, dlm));
    }
    print_message("  %d states: q'' within %.2g, lambda within %.2g, reactions within %.2g (relative)\n", NSTATES,
                  worst_qdd, worst_lambda, worst_reaction);
    kd_mech_reactions_free(&mult);
    kd_mech_reactions_free(&proj);
    kd_mbs_evaluator_free(&uk);
    kd_mech_work_free(&w);
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) kd_mech_route_free(&route[f]);
    kd_mech_free(&m);
}

static void test_states_double_pendulum(void** state) {
    (void)state;
    same_accelerations(DOUBLE_PENDULUM, 1);
}
static void test_states_double_pendulum_driven(void** state) {
    (void)state;
    same_accelerations(DOUBLE_PENDULUM_DRIVEN, 4);
}
static void test_states_four_bar(void** state) {
    (void)state;
    same_accelerations(FOUR_BAR, 2);
}
static void test_states_slider_crank(void** state) {
    (void)state;
    same_accelerations(SLIDER_CRANK, 3);
}

/* ---- the same trajectories ---- */

#define NOUT 51

typedef struct traj {
    int n, rows;
    double q[NOUT][32];
    double T0, V0, max_energy_error, energy_scale;
    const kd_mech* m;
} traj;

static int keep_traj(void* ctx, const kd_mbs_sample* s) {
    traj* k = ctx;
    const double V = kd_mech_potential(k->m, s->q);
    if (k->rows == 0) k->T0 = s->kinetic, k->V0 = V;
    /* conservative forces only: T + V constant (W_applied = V0 - V) */
    k->max_energy_error = fmax(k->max_energy_error, fabs(s->kinetic + V - k->T0 - k->V0));
    k->energy_scale = fmax(k->energy_scale, s->kinetic);
    if (k->rows < NOUT) memcpy(k->q[k->rows], s->q, sizeof(double) * k->n);
    k->rows++;
    return 0;
}

static void same_trajectories(const char* yaml, const char* name) {
    kd_mech* m = load(yaml);
    double q0[32], qd0[32] = {0};
    assemble(m, q0);
    kd_cms cms;
    kd_mech_cms(m, &cms);
    /* the five formalisms, then gibbs-appell by Gauss's closed form (udwadia-kalaba) */
    traj* run = calloc(KD_MECH_FORMALISM_COUNT + 1, sizeof(traj));
    for (int k = 0; k <= KD_MECH_FORMALISM_COUNT; k++) {
        const int f = k < KD_MECH_FORMALISM_COUNT ? k : KD_MECH_GIBBS_APPELL;
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        if (k == KD_MECH_FORMALISM_COUNT) o.formulation = KD_MBS_UDWADIA_KALABA;
        o.t_end = 1.0, o.dt = 1e-3, o.output_every = 20;
        o.rtol = 1e-10, o.atol = 1e-12;   /* the DAE route (lagrange): adaptive */
        kd_mech_formalism_opts((kd_mech_formalism)f, m, &o);
        run[k].n = m->n, run[k].m = m;
        kd_error err;
        kd_mbs_stats st;
        if (kd_mbs_forward(&cms, &o, q0, qd0, keep_traj, &run[k], &st, &err))
            fail_msg("%s, %s: %s", name, kd_mech_formalism_name((kd_mech_formalism)f), err.msg);
        assert_int_equal(run[k].rows, NOUT);
        const double e = run[k].max_energy_error / run[k].energy_scale;
        double d = 0;
        for (int r = 0; r < NOUT; r++) d = fmax(d, rel_diff(run[k].q[r], run[KD_MECH_NEWTON_EULER].q[r], m->n));
        print_message("  %s, %-12s%s: trajectory within %.2g of newton-euler, energy error %.2g of max T, %ld evaluations\n",
                      name, kd_mech_formalism_name((kd_mech_formalism)f), k == KD_MECH_FORMALISM_COUNT ? " (gauss)" : "", d, e, st.evaluations);
        assert_int_equal(o.formulation, k == KD_MECH_FORMALISM_COUNT ? KD_MBS_UDWADIA_KALABA : kd_mech_formalism_formulation((kd_mech_formalism)f, -1));
        /* rk4 with dt = 1e-3 and IDA at its tolerance: both far below 1e-5 on these motions. Gauss's
         * closed form (udwadia-kalaba) solves the same Schur complement as Newton-Euler's augmented
         * route, so its trajectory is Newton-Euler's to the last bit (d = 0): for it the comparison
         * checks the dispatch only; its independent checks are the energy below and the states
         * against Appell's route (test_states_*). */
        if (k == KD_MECH_FORMALISM_COUNT) print_message("  (gauss: the same arithmetic as newton-euler)\n");
        assert_true(d < 1e-5);
        assert_true(e < 1e-5);
    }
    free(run);
    kd_mech_free(&m);
}

static void test_traj_double_pendulum(void** state) {
    (void)state;
    same_trajectories(DOUBLE_PENDULUM, "double pendulum");
}
static void test_traj_four_bar(void** state) {
    (void)state;
    same_trajectories(FOUR_BAR, "four-bar");
}
static void test_traj_slider_crank(void** state) {
    (void)state;
    same_trajectories(SLIDER_CRANK, "slider-crank");
}

/* Names and the formulation each formalism allows. */
static void test_names(void** state) {
    (void)state;
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++)
        assert_int_equal(kd_mech_formalism_parse(kd_mech_formalism_name((kd_mech_formalism)f)), f);
    assert_int_equal(kd_mech_formalism_parse("invariants"), -1);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_NEWTON_EULER, -1), KD_MBS_AUGMENTED);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_NEWTON_EULER, KD_MBS_IDA), KD_MBS_IDA);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_KANE, KD_MBS_MAGGI), KD_MBS_MAGGI);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_KANE, KD_MBS_UDWADIA_KALABA), -1);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_GIBBS_APPELL, -1), KD_MBS_MAGGI);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_GIBBS_APPELL, KD_MBS_UDWADIA_KALABA), KD_MBS_UDWADIA_KALABA);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_GIBBS_APPELL, KD_MBS_AUGMENTED), -1);
    assert_int_equal(kd_mech_formalism_formulation(KD_MECH_LAGRANGE, -1), KD_MBS_IDA);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_states_double_pendulum), cmocka_unit_test(test_states_four_bar),
        cmocka_unit_test(test_states_slider_crank),    cmocka_unit_test(test_states_double_pendulum_driven),
        cmocka_unit_test(test_traj_double_pendulum),
        cmocka_unit_test(test_traj_four_bar),          cmocka_unit_test(test_traj_slider_crank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
