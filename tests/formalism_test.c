/* The formalism routes (src/formalisms/): at random element states and frame
 * motions, every route's mass, gyroscopic and inertia stiffness matrices and
 * right-hand side agree with the invariants route and with each other to
 * 1e-10 relative (each route evaluates its own quadrature, so agreement is
 * an independent check of theory.md sec. 3 and 4); Hamilton's p' equals
 * Lagrange's dL/dd and d/dt of Hamilton's momenta equals Lagrange's
 * d/dt dL/dd' along an arbitrary motion; the assembled M, C(t), K(t)
 * (with elastic and geometric stiffness) and f(t) of a spatial Timoshenko
 * beam spinning up under gravity agree across routes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/formalism.h"
#include "kedyn/system.h"
#include "test_util.h"

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

static kd_element_props props_of(kd_theory th, kd_interp ip, int planar) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_RECTANGLE, s.b = 0.03, s.h = 0.05;
    kd_element_consts c = {0};
    c.E = 70e9, c.rho = 2700, c.G = 70e9 / 2.6;
    kd_section_properties(&s, 0.3, &c);
    kd_element_props p;
    kd_element_kind kind = {th, ip, planar};
    assert_int_equal(kd_element_props_init(&p, kind, &c, 0.37), KD_OK);
    return p;
}

static kd_frame_state random_frame(void) {
    kd_frame_state f;
    for (int i = 0; i < 3; i++) {
        f.omega[i] = 20 * urand(), f.eps[i] = 300 * urand();
        f.v[i] = 5 * urand(), f.a[i] = 100 * urand(), f.g[i] = 9.81 * urand();
    }
    return f;
}

/* max |a - b| / max |b| over n entries (b not all zero) */
static double rel_diff(const double* a, const double* b, int n) {
    double d = 0, s = 0;
    for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        s = fmax(s, fabs(b[i]));
    }
    return s > 0 ? d / s : d;
}

static const kd_element_kind kinds[] = {
    {KD_THEORY_BAR, KD_INTERP_CUBIC, 1},          {KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1},
    {KD_THEORY_RAYLEIGH, KD_INTERP_QUINTIC, 1},   {KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 1},
    {KD_THEORY_BAR, KD_INTERP_CUBIC, 0},          {KD_THEORY_EULER_BERNOULLI, KD_INTERP_QUINTIC, 0},
    {KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 0},   {KD_THEORY_RAYLEIGH, KD_INTERP_CUBIC, 0}};

static void test_routes_agree(void** state) {
    (void)state;
    srand(7);
    double worst[KD_FORMALISM_COUNT] = {0};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        kd_element_props p = props_of(kinds[k].theory, kinds[k].interp, kinds[k].planar);
        for (int trial = 0; trial < 3; trial++) {
            const kd_frame_state fs = random_frame();
            kd_element_place at;
            kd_element_place_on_axis(&at, 2.0 * fabs(urand()));
            kd_element_eqs ref, e;
            kd_formalism_element(KD_FORMALISM_INVARIANTS, &p, &at, &fs, &ref, NULL);
            const int n = ref.n, nn = n * n;
            for (int f = 1; f < KD_FORMALISM_COUNT; f++) {
                kd_formalism_ops ops = {0};
                kd_formalism_element((kd_formalism)f, &p, &at, &fs, &e, &ops);
                assert_int_equal(e.n, n);
                const double d[4] = {rel_diff(e.m, ref.m, nn), rel_diff(e.c, ref.c, nn), rel_diff(e.k, ref.k, nn),
                                     rel_diff(e.q, ref.q, n)};
                for (int j = 0; j < 4; j++) {
                    if (!(d[j] < 1e-10))
                        fail_msg("%s, kind %zu, %s: relative difference %.3g", kd_formalism_name((kd_formalism)f), k,
                                 (const char*[]){"m", "c", "k", "q"}[j], d[j]);
                    worst[f] = fmax(worst[f], d[j]);
                }
                assert_true(ops.elements == 1 && ops.points > 0 && ops.derivatives > 0 && ops.flops > 0);
            }
        }
        kd_element_props_free(&p);
    }
    for (int f = 1; f < KD_FORMALISM_COUNT; f++)
        printf("  %-13s worst relative difference to the invariants: %.2e\n", kd_formalism_name((kd_formalism)f), worst[f]);
}

/* The routes against each other: Lagrange vs Kane, Gibbs-Appell vs Hamilton
 * (not only through the invariants). */
static void test_routes_pairwise(void** state) {
    (void)state;
    srand(11);
    kd_element_props p = props_of(KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 0);
    const kd_frame_state fs = random_frame();
    kd_element_eqs e[KD_FORMALISM_COUNT];
    kd_element_place at;
    kd_element_place_on_axis(&at, 0.8);
    for (int f = 0; f < KD_FORMALISM_COUNT; f++) kd_formalism_element((kd_formalism)f, &p, &at, &fs, &e[f], NULL);
    const int n = e[0].n, nn = n * n;
    for (int f = 1; f < KD_FORMALISM_COUNT; f++)
        for (int g = f + 1; g < KD_FORMALISM_COUNT; g++) {
            assert_true(rel_diff(e[f].m, e[g].m, nn) < 1e-10);
            assert_true(rel_diff(e[f].c, e[g].c, nn) < 1e-10);
            assert_true(rel_diff(e[f].k, e[g].k, nn) < 1e-10);
            assert_true(rel_diff(e[f].q, e[g].q, n) < 1e-10);
        }
    /* structure: c skew-symmetric, m symmetric */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            assert_true(fabs(e[KD_FORMALISM_LAGRANGE].c[a * n + b] + e[KD_FORMALISM_LAGRANGE].c[b * n + a]) <
                        1e-12 * (1 + fabs(e[KD_FORMALISM_LAGRANGE].c[a * n + b])));
            assert_true(fabs(e[KD_FORMALISM_KANE].m[a * n + b] - e[KD_FORMALISM_KANE].m[b * n + a]) <
                        1e-12 * fabs(e[KD_FORMALISM_KANE].m[a * n + a]));
        }
    kd_element_props_free(&p);
}

/* Hamilton's canonical equations against Lagrange's at a random state and
 * motion (d, d', d''): p' = dL/dd and d/dt p = d/dt dL/dd'. */
static void test_hamilton_vs_lagrange(void** state) {
    (void)state;
    srand(3);
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        kd_element_props p = props_of(kinds[k].theory, kinds[k].interp, kinds[k].planar);
        const kd_frame_state fs = random_frame();
        const int n = p.ndof;
        double d[KD_ELEM_DOF_MAX], dv[KD_ELEM_DOF_MAX], dd[KD_ELEM_DOF_MAX];
        for (int a = 0; a < n; a++) d[a] = 1e-3 * urand(), dv[a] = 0.1 * urand(), dd[a] = 10 * urand();
        kd_canonical_eqs h;
        kd_element_place at;
        kd_element_place_on_axis(&at, 0.5);
        kd_hamilton_canonical(&p, &at, &fs, &h, NULL);
        double ddt_L[KD_ELEM_DOF_MAX], L_d[KD_ELEM_DOF_MAX], pdot[KD_ELEM_DOF_MAX], dpdt[KD_ELEM_DOF_MAX];
        kd_lagrange_terms(&p, &at, &fs, d, dv, dd, ddt_L, L_d);
        for (int a = 0; a < n; a++) {
            pdot[a] = h.r0[a], dpdt[a] = h.dp0[a];
            for (int b = 0; b < n; b++) {
                pdot[a] += h.Rd[a * n + b] * d[b] + h.Rv[a * n + b] * dv[b];
                dpdt[a] += h.Pv[a * n + b] * dd[b] + h.Pd[a * n + b] * dv[b] + h.dPd[a * n + b] * d[b];
            }
        }
        assert_true(rel_diff(pdot, L_d, n) < 1e-10);
        assert_true(rel_diff(dpdt, ddt_L, n) < 1e-10);
        /* theory.md sec. 4: Pd = G is skew and Rv = -G */
        for (int a = 0; a < n * n; a++) assert_true(fabs(h.Pd[a] + h.Rv[a]) < 1e-12 * (1 + fabs(h.Pd[a])));
        kd_element_props_free(&p);
    }
}

/* Differentiation counts grow in the papers' order, Kane < Gibbs-Appell <
 * Lagrange, for the same element. */
static void test_operation_counts(void** state) {
    (void)state;
    kd_element_props p = props_of(KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    kd_frame_state fs = random_frame();
    kd_formalism_ops ops[KD_FORMALISM_COUNT];
    memset(ops, 0, sizeof(ops));
    kd_element_eqs e;
    kd_element_place at;
    kd_element_place_on_axis(&at, 0.0);
    for (int f = 0; f < KD_FORMALISM_COUNT; f++) kd_formalism_element((kd_formalism)f, &p, &at, &fs, &e, &ops[f]);
    const int n = p.ndof;
    /* Bookkeeping, not measurements: Kane's counts (and every route's flops) are assigned by a
     * formula per element (kane.c: n partial velocities), so these lines check that the counts
     * reach ops and keep the documented order; Lagrange's and Gibbs-Appell's differentiations
     * are counted per call of the differentiation (lagrange.c, gibbs_appell.c). */
    assert_int_equal(ops[KD_FORMALISM_KANE].derivatives, n);
    assert_int_equal(ops[KD_FORMALISM_LAGRANGE].derivatives, 3 * n * n + 3 * n);
    assert_int_equal(ops[KD_FORMALISM_GIBBS_APPELL].derivatives, n * (n + 1) / 2 + 2 * n * n + n);
    assert_true(ops[KD_FORMALISM_KANE].derivatives < ops[KD_FORMALISM_GIBBS_APPELL].derivatives);
    assert_true(ops[KD_FORMALISM_GIBBS_APPELL].derivatives < ops[KD_FORMALISM_LAGRANGE].derivatives);
    /* Kane needs the fewest flops; the invariants route fewer still */
    for (int f = 1; f < KD_FORMALISM_COUNT; f++)
        if (f != KD_FORMALISM_KANE) assert_true(ops[KD_FORMALISM_KANE].flops < ops[f].flops);
    assert_true(ops[KD_FORMALISM_INVARIANTS].flops < ops[KD_FORMALISM_KANE].flops);
    kd_element_props_free(&p);
}


/* The assembled system of a spatial Timoshenko beam on a hub spinning up
 * about a tilted axis, with geometric stiffness, damping and gravity: M,
 * C(t), K(t), f(t) from every route against the invariants. C and K are
 * compared without their constant parts (damping, elastic stiffness), which
 * would hide the inertia and geometric terms in a relative measure. */
static double band_diff(const kd_gband* a, const kd_gband* b) {
    const size_t n = (size_t)(a->kl + a->ku + 1) * (size_t)a->n;
    return rel_diff(a->ab, b->ab, (int)n);
}

static void band_sub(kd_gband* a, const kd_gband* b) {
    const size_t n = (size_t)(a->kl + a->ku + 1) * (size_t)a->n;
    for (size_t i = 0; i < n; i++) a->ab[i] -= b->ab[i];
}

static void test_assembled_system(void** state) {
    (void)state;
    kd_section_desc sec = {0};
    sec.shape = KD_SHAPE_RECTANGLE, sec.b = 0.02, sec.h = 0.04;
    kd_desc* d = one_beam(70e9, 2700, 0.33, sec, 1.2, 6, KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 0);
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.hub = 0.3;
    md->motion.axis[0] = 0.3, md->motion.axis[1] = 0.4, md->motion.axis[2] = sqrt(1 - 0.25);
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPIN_UP, md->motion.angle.spin_omega = 40, md->motion.angle.spin_T = 2;
    kd_load_desc* g = kd_desc_add_load(d);
    g->type = KD_LOAD_GRAVITY, g->g[2] = -9.81;
    kd_damping_desc* dd = kd_desc_add_damping(d);
    dd->body = 0, dd->alpha = 0.5, dd->beta = 1e-5;
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_system s[KD_FORMALISM_COUNT];
    kd_gband C[KD_FORMALISM_COUNT], K[KD_FORMALISM_COUNT];
    double* f[KD_FORMALISM_COUNT];
    for (int k = 0; k < KD_FORMALISM_COUNT; k++) {
        assert_int_equal(kd_system_init_formalism(&s[k], m, (kd_formalism)k, &err), KD_OK);
        kd_gband_init(&C[k], s[k].n, s[k].kd, s[k].kd);
        kd_gband_init(&K[k], s[k].n, s[k].kd, s[k].kd);
        f[k] = calloc((size_t)s[k].n, sizeof(double));
    }
    const double times[2] = {0.0, 0.77};
    for (int it = 0; it < 2; it++)
        for (int k = 0; k < KD_FORMALISM_COUNT; k++) {
            int changed;
            kd_system_matrices(&s[k], times[it], &C[k], &K[k], &changed);
            kd_system_force(&s[k], times[it], f[k]);
            band_sub(&C[k], &s[k].Cd);
            band_sub(&K[k], &s[k].K0);
            if (k == 0) continue;
            const double dm = band_diff(&s[k].M, &s[0].M), dc = band_diff(&C[k], &C[0]), dk = band_diff(&K[k], &K[0]),
                         df = rel_diff(f[k], f[0], s[0].n);
            if (!(dm < 1e-10 && dc < 1e-10 && dk < 1e-10 && df < 1e-10))
                fail_msg("%s at t = %g: M %.2e C %.2e K %.2e f %.2e", kd_formalism_name((kd_formalism)k), times[it], dm,
                         dc, dk, df);
        }
    for (int k = 0; k < KD_FORMALISM_COUNT; k++) {
        kd_gband_free(&C[k]), kd_gband_free(&K[k]);
        free(f[k]);
        kd_system_free(&s[k]);
    }
    kd_model_free(&m);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes_agree),
        cmocka_unit_test(test_routes_pairwise),
        cmocka_unit_test(test_hamilton_vs_lagrange),
        cmocka_unit_test(test_operation_counts),
        cmocka_unit_test(test_assembled_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
