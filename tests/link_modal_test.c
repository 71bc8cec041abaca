/* Modal reduction of the one-way links (src/links/link_modal.c, theory.md sec. 12.11) against
 * independent references:
 *   - convergence to the full finite-element link (the affine step of the 60 equations, a
 *     different route: band matrices, no projection) on the two rods of the spatial wiper
 *     (examples/wiper_spatial_elastic.yaml: tabulated 3D frame motion, joint loads and preload,
 *     gravity): the deflection and the stress histories' errors fall monotonically with the
 *     number of modes N, are below stated tolerances at the example's N = 8 with the static
 *     corrections, and vanish to round-off with all 60 modes (a complete basis);
 *   - the same on the planar route (examples/wiper_elastic.yaml through kd_ked);
 *   - a cantilever in a prescribed uniform rotation: the modal link's frequencies at
 *     lambda = Omega L^2 sqrt(rho A / EI) = 2 against the published rotating-cantilever value
 *     (flapwise 4.1373, Wright, Smith, Thompson and Worley 1982, J. Appl. Mech. 49:197, table 1)
 *     and omega_l^2 = omega_f^2 - Omega^2 (in-plane), on the symmetric and the gyroscopic
 *     (state-space) routes: the projected centrifugal stiffening and softening parts. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/ked.h"
#include "kedyn/load_yaml.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"

#define EXAMPLES KD_TEST_MODELS_DIR "/../../examples/"
#define PI_ 3.14159265358979323846

typedef struct hist {
    int n, cap, neq, nnode;
    const kd_sked_link* L;
    double* q;                    /* cap x neq */
    double* s;                    /* cap x nnode: sigma */
} hist;

static int keep(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)t, (void)v, (void)a;
    hist* h = ctx;
    if (h->n >= h->cap) return 0;
    memcpy(h->q + (size_t)h->n * h->neq, q, sizeof(double) * (size_t)h->neq);
    double sf[4 * 64];
    kd_sked_link_section_forces(h->L, q, sf);
    for (int k = 0; k < h->nnode; k++) h->s[(size_t)h->n * h->nnode + k] = sf[4 * k + 3];
    h->n++;
    return 0;
}

/* Largest difference over the histories relative to the reference's largest magnitude. */
static double rel_diff(int cnt, const double* a, const double* b) {
    double d = 0, mx = 0;
    for (int i = 0; i < cnt; i++) d = fmax(d, fabs(a[i] - b[i])), mx = fmax(mx, fabs(b[i]));
    assert_true(mx > 0);
    return d / mx;
}

static void run(kd_sked_link* L, int modes, int statics, hist* h) {
    kd_error err;
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    ad.dynamics.dt = 1e-4, ad.dynamics.output_every = 25;
    L->spec.modes = modes, L->spec.statics = statics;
    h->n = 0;
    if (kd_sked_link_dynamics(L, &ad.dynamics, keep, h, NULL, &err)) fail_msg("%s", err.msg);
}

static void test_wiper_convergence(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_smech* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(EXAMPLES "wiper_spatial_elastic.yaml", &d, &err) || kd_smech_compile(d, &m, &err))
        fail_msg("%s", err.msg);
    kd_sked_rigid r;
    assert_int_equal(kd_sked_rigid_solve(m, 0.3, 60, 1e8, &r, &err), KD_OK);
    int links = 0;
    static const int Ns[] = {2, 4, 8, 16, 32};  /* Ns[2] = 8, the example's */
    enum { NN = sizeof(Ns) / sizeof(Ns[0]) };
    for (int b = 0, mb = 0; b < d->sdesc->nbodies; b++) {
        const kd_sbody_desc* B = &d->sdesc->bodies[b];
        if (B->ground) continue;
        if (B->beam) {
            kd_sked_link_spec sp;
            kd_sked_link_spec_of(d, b, mb, &sp);
            kd_sked_link* L = NULL;
            if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
            const int neq = L->model->neq, nnode = L->model->nnode, cap = 200;
            hist hf = {0, cap, neq, nnode, L, calloc((size_t)cap * neq, sizeof(double)), calloc((size_t)cap * nnode, sizeof(double))};
            hist hm = {0, cap, neq, nnode, L, calloc((size_t)cap * neq, sizeof(double)), calloc((size_t)cap * nnode, sizeof(double))};
            run(L, 0, 0, &hf);
            double eq[3][NN], es[3][NN];
            for (int st = 0; st < 3; st++)
                for (int k = 0; k < NN; k++) {
                    run(L, Ns[k], st, &hm);
                    assert_int_equal(hm.n, hf.n);
                    eq[st][k] = rel_diff(hf.n * neq, hm.q, hf.q);
                    es[st][k] = rel_diff(hf.n * nnode, hm.s, hf.s);
                    printf("%s N %2d statics %d: deflection %.3e, stress %.3e\n", sp.name, Ns[k], st, eq[st][k], es[st][k]);
                }
            run(L, neq, 0, &hm);
            const double eall = rel_diff(hf.n * neq, hm.q, hf.q), sall = rel_diff(hf.n * nnode, hm.s, hf.s);
            printf("%s all %d modes: deflection %.3e, stress %.3e\n", sp.name, neq, eall, sall);
            /* monotone in N on every route; the stated tolerances at the example's N = 8 */
            for (int st = 0; st < 3; st++)
                for (int k = 1; k < NN; k++) assert_true(eq[st][k] < eq[st][k - 1] && es[st][k] < es[st][k - 1]);
            assert_true(eq[1][2] < 5e-6 && es[1][2] < 3e-5);   /* output static correction */
            assert_true(eq[2][2] < 5e-7 && es[2][2] < 5e-6);   /* static deflections in the basis */
            assert_true(eq[0][2] < 2e-3 && es[0][2] < 5e-2);   /* none: the axial stress converges slowly */
            for (int st = 1; st < 3; st++) assert_true(es[st][2] < 1e-2 * es[0][2]);
            assert_true(eall < 1e-10 && sall < 1e-10);         /* a complete basis: round-off */
            free(hf.q), free(hf.s), free(hm.q), free(hm.s);
            kd_sked_link_free(&L);
            links++;
        }
        mb++;
    }
    assert_int_equal(links, 2);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
    kd_desc_free(&d);
}

/* The planar route (kd_ked, examples/wiper_elastic.yaml: rods pinned at both ends, 30
 * equations each) shares the reduction: the deflection error against the full link falls with
 * N and is below 1e-6 at N = 8 with the output static correction. */
typedef struct phist {
    int n, cap, neq;
    double* q;
} phist;

static int pkeep(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)t, (void)v, (void)a;
    phist* h = ctx;
    if (h->n < h->cap) memcpy(h->q + (size_t)h->n++ * h->neq, q, sizeof(double) * (size_t)h->neq);
    return 0;
}

static void test_planar_convergence(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(EXAMPLES "wiper_elastic.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_ked_opts o = {0.3, 60, 0.0, 1e8};
    kd_ked* k = NULL;
    if (kd_ked_new(d, &o, &k, &err)) fail_msg("%s", err.msg);
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    ad.dynamics.dt = 1e-4, ad.dynamics.output_every = 25;
    static const int Ns[] = {2, 4, 8, 16};
    for (int l = 0; l < k->nlinks; l++) {
        const int neq = k->link[l].model->neq, cap = 200;
        phist hf = {0, cap, neq, calloc((size_t)cap * neq, sizeof(double))};
        phist hm = {0, cap, neq, calloc((size_t)cap * neq, sizeof(double))};
        k->link[l].modes = 0;
        if (kd_ked_link_dynamics(k, l, &ad, pkeep, &hf, NULL, &err)) fail_msg("%s", err.msg);
        double prev = INFINITY;
        for (int i = 0; i < 4; i++) {
            k->link[l].modes = Ns[i], k->link[l].statics = 1, hm.n = 0;
            if (kd_ked_link_dynamics(k, l, &ad, pkeep, &hm, NULL, &err)) fail_msg("%s", err.msg);
            assert_int_equal(hm.n, hf.n);
            const double e = rel_diff(hf.n * neq, hm.q, hf.q);
            printf("planar %s N %d: deflection %.3e\n", k->link[l].name, Ns[i], e);
            assert_true(e < prev);
            prev = e;
            if (Ns[i] == 8) assert_true(e < 1e-6);
        }
        free(hf.q), free(hm.q);
    }
    assert_true(k->nlinks == 2);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

/* ---- a cantilever in uniform rotation -------------------------------------------------- */

static const double E_ = 210e9, RHO = 7800, D_ = 0.02, L_ = 1.0;

/* One body (the rod as a rigid bar along its x axis) on a revolute joint at the ground's origin
 * about z, driven by law; the link clamped at its root (frame_node 1), 8 elements. */
static kd_smech* arm(const kd_law* law) {
    kd_smech* m = kd_smech_new();
    const double A = PI_ * D_ * D_ / 4, mass = RHO * A * L_, n[3] = {0, 0, 1};
    const double J[9] = {0.5 * mass * D_ * D_ / 4, 0, 0, 0, mass * L_ * L_ / 12, 0, 0, 0, mass * L_ * L_ / 12};
    const double com[3] = {0.5 * L_, 0, 0}, O[3] = {0, 0, 0}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(kd_smech_add_body(m, "rod", mass, J, com, O, R), 0);
    assert_int_equal(kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, O, O, n, n, 0), 0);
    assert_int_equal(kd_smech_add_driver(m, 0, law, 0.0), 0);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    return m;
}

/* lambda = Omega L^2 sqrt(rho A / EI) = 2: the flapwise fundamental 4.1373 (Wright et al. 1982,
 * table 1), the in-plane one omega_l^2 = omega_f^2 - Omega^2, from the modal link's reduced
 * matrices (the at-rest modes, the projected centrifugal k_g and k(omega), and on the gyroscopic
 * route the projected Coriolis part); the error falls with N, below 1e-3 at N = 6. */
static void test_rotating_cantilever(void** state) {
    (void)state;
    const double A = PI_ * D_ * D_ / 4, I = PI_ * pow(D_, 4) / 64, c = sqrt(E_ * I / (RHO * A)) / (L_ * L_);
    const double Om = 2.0 * c;
    kd_law law = kd_law_constant(0.0);
    law.type = KD_LAW_SPEED, law.value = Om;
    kd_smech* m = arm(&law);
    kd_sked_rigid r;
    kd_error err;
    assert_int_equal(kd_sked_rigid_solve(m, 0.2, 8, 1e8, &r, &err), KD_OK);
    kd_sked_link_spec sp;
    memset(&sp, 0, sizeof(sp));
    snprintf(sp.name, sizeof(sp.name), "rod");
    sp.body = 0, sp.length = L_, sp.elements = 8, sp.theory = KD_THEORY_EULER_BERNOULLI, sp.frame_node = 1;
    sp.material.E = E_, sp.material.rho = RHO, sp.material.nu = 0.3;
    sp.section.shape = KD_SHAPE_CIRCLE, sp.section.d = D_;
    kd_sked_link* L = NULL;
    if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
    const double wf = 4.1373 * c, wl = sqrt(wf * wf - Om * Om);
    static const int Ns[] = {2, 4, 6};
    double prev = INFINITY;
    for (int k = 0; k < 3; k++)
        for (int route = 0; route < 2; route++) {
            L->spec.modes = Ns[k], L->spec.statics = 1;
            kd_ked_modes md;
            if (kd_sked_modes_along_motion(L, &r, 2, route ? KD_KED_GYRO_DENSE : KD_KED_GYRO_OFF, &md, &err))
                fail_msg("%s", err.msg);
            double el = 0, ef = 0;
            for (int i = 0; i < md.nsamples; i++) {
                el = fmax(el, fabs(md.omega[(size_t)i * 2] - wl) / wl);
                ef = fmax(ef, fabs(md.omega[(size_t)i * 2 + 1] - wf) / wf);
            }
            printf("rotating, N %d (%s): in-plane %.4f (ref %.4f, %.2e), flapwise %.4f (ref %.4f, %.2e)\n", Ns[k],
                   route ? "gyroscopic" : "symmetric", md.omega[0] / c, wl / c, el, md.omega[1] / c, wf / c, ef);
            if (!route) {
                assert_true(ef <= prev);
                prev = ef;
            }
            if (Ns[k] == 6) {
                assert_true(ef < 1e-3);
                if (!route) assert_true(el < 1e-3);
            }
            kd_ked_modes_free(&md);
        }
    kd_sked_link_free(&L);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wiper_convergence),
        cmocka_unit_test(test_rotating_cantilever),
        cmocka_unit_test(test_planar_convergence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
