/* The affine step of the one-way links (src/links/link_step.c, theory.md sec. 12.7) against the
 * moving-frame system's own step (kd_system: every step's matrices assembled from the element
 * terms at the frame state and factorised anew, plain_step = 1), a different computation of the
 * same equations:
 *   - the two rods of the spatial wiper (examples/wiper_spatial_elastic.yaml: tabulated 3D
 *     frame motion with every component of omega and eps, the joints' varying preload, gravity):
 *     the displacement, velocity and acceleration histories agree to round-off, while the
 *     affine step factorises at a small fraction of the steps;
 *   - the rods of the planar wiper (examples/wiper_elastic.yaml, kd_ked) likewise;
 * "to round-off" is measured: q to 1e-11, and q, v, a within ten times what a perturbation of
 * 1e-15 of one input (a few units in the last place) changes in the plain step's histories;
 *   - the parts are exact: with a wrong part (the preload's scaled by 1 + 1e-6) the histories
 *     differ (the comparison sees a change of that size). */
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

typedef struct hist {
    int n, cap, neq;
    double* x;                    /* cap x 3 neq: q, v, a */
} hist;

static int keep(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)t;
    hist* h = ctx;
    if (h->n >= h->cap) return 0;
    double* x = h->x + (size_t)h->n++ * 3 * (size_t)h->neq;
    memcpy(x, q, sizeof(double) * (size_t)h->neq);
    memcpy(x + h->neq, v, sizeof(double) * (size_t)h->neq);
    memcpy(x + 2 * h->neq, a, sizeof(double) * (size_t)h->neq);
    return 0;
}

/* Largest differences of q, v and a between two histories (out[0..2]), each relative to its
 * quantity's largest magnitude. */
static void hist_diff(const hist* a, const hist* b, double out[3]) {
    assert_int_equal(a->n, b->n);
    for (int part = 0; part < 3; part++) {
        double d = 0.0, mx = 0.0;
        for (int i = 0; i < a->n; i++)
            for (int k = 0; k < a->neq; k++) {
                const size_t o = (size_t)i * 3 * a->neq + (size_t)part * a->neq + k;
                d = fmax(d, fabs(a->x[o] - b->x[o]));
                mx = fmax(mx, fabs(a->x[o]));
            }
        assert_true(mx > 0);
        out[part] = d / mx;
    }
}

/* The affine step's histories (da) against the plain step's, at the scale of round-off: q to
 * 1e-11, and each of q, v, a within ten times the change that a relative perturbation of 1e-15
 * of the preload (a few units in the last place) makes in the plain step (du: the histories'
 * own sensitivity to round-off; the stiff axial modes make the accelerations' the largest). */
static void assert_round_off(const double da[3], const double du[3]) {
    printf("  q, v, a: affine - plain %.2e %.2e %.2e; plain perturbed by 1e-15 %.2e %.2e %.2e\n", da[0], da[1], da[2],
           du[0], du[1], du[2]);
    assert_true(da[0] < 1e-11);
    for (int p = 0; p < 3; p++) assert_true(da[p] <= 10 * du[p] + 1e-14);
}

/* One link integrated over the cycle, plain or affine step, preload law scaled by pscale. */
static void run_spatial(kd_sked_link* L, int plain, double pscale, hist* h, kd_integrate_stats* is) {
    kd_error err;
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    ad.dynamics.dt = 1e-4, ad.dynamics.output_every = 25;
    L->plain_step = plain;
    kd_law saved = L->preload;
    double* f = NULL;
    if (pscale != 1.0) {  /* a copy of the table with scaled values */
        kd_law c = kd_law_constant(0.0);
        assert_int_equal(kd_law_copy(&c, &L->preload), KD_OK);
        f = c.f;
        for (int i = 0; i < c.n; i++) c.f[i] *= pscale;
        L->preload = c;
    }
    h->n = 0;
    memset(is, 0, sizeof(*is));
    const kd_status st = kd_sked_link_dynamics(L, &ad.dynamics, keep, h, is, &err);
    if (st) fail_msg("%s", err.msg);
    if (f) kd_law_free(&L->preload), L->preload = saved;
}

static void test_spatial_wiper(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_smech* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(EXAMPLES "wiper_spatial_elastic.yaml", &d, &err) || kd_smech_compile(d, &m, &err))
        fail_msg("%s", err.msg);
    kd_sked_rigid r;
    assert_int_equal(kd_sked_rigid_solve(m, 0.3, 60, 1e8, &r, &err), KD_OK);
    int links = 0;
    for (int b = 0, mb = 0; b < d->sdesc->nbodies; b++) {
        const kd_sbody_desc* B = &d->sdesc->bodies[b];
        if (B->ground) continue;
        if (B->beam) {
            kd_sked_link_spec sp;
            kd_sked_link_spec_of(d, b, mb, &sp);
            kd_sked_link* L = NULL;
            if (kd_sked_link_new(m, &r, &sp, &L, &err)) fail_msg("%s", err.msg);
            const int neq = L->model->neq, cap = 200;
            hist hp = {0, cap, neq, calloc((size_t)cap * 3 * neq, sizeof(double))};
            hist ha = {0, cap, neq, calloc((size_t)cap * 3 * neq, sizeof(double))};
            hist hw = {0, cap, neq, calloc((size_t)cap * 3 * neq, sizeof(double))};
            kd_integrate_stats sp_, sa, sw;
            run_spatial(L, 1, 1.0, &hp, &sp_);
            run_spatial(L, 0, 1.0, &ha, &sa);
            double da[3], du[3], dw[3];
            hist_diff(&ha, &hp, da);
            run_spatial(L, 1, 1.0 + 1e-15, &hw, &sw);
            hist_diff(&hw, &hp, du);
            printf("spatial %s: %ld steps, factorisations %ld (plain) and %ld (affine)\n", sp.name, sa.steps,
                   sp_.factorizations, sa.factorizations);
            assert_round_off(da, du);
            assert_true(sa.factorizations < sa.steps / 5);
            assert_true(sp_.factorizations == sp_.steps);
            /* a part off by 1e-6: the comparison sees it */
            run_spatial(L, 1, 1.0 + 1e-6, &hw, &sw);
            hist_diff(&hw, &ha, dw);
            printf("  with the preload scaled by 1 + 1e-6: q %.2e\n", dw[0]);
            assert_true(dw[0] > 1e3 * da[0] && dw[0] > 1e-10);
            free(hp.x), free(ha.x), free(hw.x);
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

static void test_planar_wiper(void** state) {
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
    for (int l = 0; l < k->nlinks; l++) {
        const int neq = k->link[l].model->neq, cap = 200;
        hist h[2];
        kd_integrate_stats is[2];
        for (int plain = 0; plain < 2; plain++) {
            h[plain] = (hist){0, cap, neq, calloc((size_t)cap * 3 * neq, sizeof(double))};
            memset(&is[plain], 0, sizeof(is[plain]));
            k->link[l].plain_step = plain;
            if (kd_ked_link_dynamics(k, l, &ad, keep, &h[plain], &is[plain], &err)) fail_msg("%s", err.msg);
        }
        double da[3], du[3];
        hist_diff(&h[0], &h[1], da);
        /* the round-off sensitivity: the plain step with a joint load perturbed by 1e-15 (the
         * planar links take no preload: no geometric stiffness) */
        hist hu = {0, cap, neq, calloc((size_t)cap * 3 * neq, sizeof(double))};
        kd_model* mo = k->link[l].model;
        assert_true(mo->nnodal > 0 && mo->nodal[0].value.n > 0);
        kd_law saved = mo->nodal[0].value, c = kd_law_constant(0.0);
        assert_int_equal(kd_law_copy(&c, &saved), KD_OK);
        for (int i = 0; i < c.n; i++) c.f[i] *= 1.0 + 1e-15;
        mo->nodal[0].value = c;
        kd_integrate_stats iu;
        memset(&iu, 0, sizeof(iu));
        if (kd_ked_link_dynamics(k, l, &ad, keep, &hu, &iu, &err)) fail_msg("%s", err.msg);
        kd_law_free(&mo->nodal[0].value);
        mo->nodal[0].value = saved;
        hist_diff(&hu, &h[1], du);
        printf("planar %s: %ld steps, factorisations %ld (plain) and %ld (affine)\n", k->link[l].name, is[0].steps,
               is[1].factorizations, is[0].factorizations);
        assert_round_off(da, du);
        assert_true(is[0].factorizations < is[0].steps / 5);
        free(hu.x);
        free(h[0].x), free(h[1].x);
    }
    assert_true(k->nlinks >= 1);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spatial_wiper),
        cmocka_unit_test(test_planar_wiper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
