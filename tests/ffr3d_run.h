/* The coupled floating-frame system (theory.md sec. 17, 22) of a spatial mechanism's model text,
 * for the tests of two-way links: ffr3d_build loads and compiles the model and builds the system
 * and its start (q0, qd0); ffr3d_opts are the augmented formulation with projection, rk4 at dt to
 * t_end, output every `every` steps; ffr3d_forward integrates from the start, recording up to
 * FFR3D_CAP outputs (t, q, qd); ffr3d_node_at is the mesh node of the plate body 1 at (x, y) of its
 * frame (0-based). Include <cmocka.h> first. */
#ifndef KEDYN_TESTS_FFR3D_RUN_H
#define KEDYN_TESTS_FFR3D_RUN_H

#include <stdlib.h>
#include <string.h>

#include "kedyn/ffr3d.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"

enum { FFR3D_CAP = 400 };

typedef struct ffr3d_rec {
    int n, count;
    double t[FFR3D_CAP];
    double* q;                    /* (FFR3D_CAP x n) */
    double* qd;
} ffr3d_rec;

typedef struct ffr3d_run {
    kd_desc* d;
    kd_smech* m;
    kd_ffr3d_system* s;
    double *q0, *qd0;
    ffr3d_rec r;
} ffr3d_run;

static inline int ffr3d_record(void* ctx, const kd_mbs_sample* smp) {
    ffr3d_rec* r = ctx;
    if (r->count < FFR3D_CAP) {
        r->t[r->count] = smp->t;
        memcpy(r->q + (size_t)r->n * r->count, smp->q, sizeof(double) * (size_t)r->n);
        memcpy(r->qd + (size_t)r->n * r->count, smp->qd, sizeof(double) * (size_t)r->n);
        r->count++;
    }
    return 0;
}

static inline void ffr3d_build(const char* text, ffr3d_run* o) {
    kd_error err;
    memset(o, 0, sizeof(*o));
    if (kd_load_yaml_string(text, strlen(text), "strip.yaml", &o->d, &err)) fail_msg("%s", err.msg);
    if (kd_smech_compile(o->d, &o->m, &err)) fail_msg("%s", err.msg);
    if (kd_ffr3d_from_smech(o->d, o->m, &o->s, &o->q0, &o->qd0, &err)) fail_msg("%s", err.msg);
    const int n = o->r.n = kd_ffr3d_size(o->s);
    o->r.q = malloc(sizeof(double) * (size_t)n * FFR3D_CAP);
    o->r.qd = malloc(sizeof(double) * (size_t)n * FFR3D_CAP);
    assert_non_null(o->r.q);
    assert_non_null(o->r.qd);
}

static inline kd_mbs_opts ffr3d_opts(double t_end, double dt, int every) {
    kd_mbs_opts op;
    kd_mbs_opts_default(&op);
    op.formulation = KD_MBS_AUGMENTED, op.stabilization = KD_MBS_STAB_PROJECTION;
    op.integrator = KD_MBS_RK4, op.t_end = t_end, op.dt = dt, op.output_every = every;
    return op;
}

static inline void ffr3d_forward(ffr3d_run* o, const kd_mbs_opts* op) {
    kd_error err;
    if (kd_mbs_forward(kd_ffr3d_cms(o->s), op, o->q0, o->qd0, ffr3d_record, &o->r, NULL, &err))
        fail_msg("%s", err.msg);
}

static inline void ffr3d_run_free(ffr3d_run* o) {
    free(o->r.q), free(o->r.qd), free(o->q0), free(o->qd0);
    kd_ffr3d_free(&o->s);
    kd_smech_free(&o->m);
    kd_desc_free(&o->d);
}

static inline int ffr3d_node_at(const kd_desc* d, double x, double y) {
    const double p[3] = {x, y, 0};
    const int k = kd_splate_node_at(d->sdesc->bodies[1].shell, p);
    assert_true(k > 0);
    return k - 1;
}

#endif
