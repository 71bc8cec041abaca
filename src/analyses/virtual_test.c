/* A virtual impact test (kedyn/measure.h; theory.md, "Virtual impact test"): the model at rest
 * hit by a half-sine force pulse F(t) = A sin(pi t / tau) (0 <= t <= tau) at a node, integrated
 * by the model's own dynamics (kd_dynamics_run, Newmark average acceleration: no numerical
 * damping, period error (omega dt)^2 / 12), its sensors' accelerations sampled at the rate,
 * with Gaussian noise of a given level from a seeded generator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/analysis.h"
#include "kedyn/measure.h"

/* ---- the seeded generator -------------------------------------------------------------- */

static unsigned long long splitmix64(unsigned long long* x) {
    unsigned long long z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned long long rotl(unsigned long long x, int k) { return (x << k) | (x >> (64 - k)); }

void kd_gauss_seed(kd_gauss_rng* g, unsigned long long seed) {
    for (int k = 0; k < 4; k++) g->s[k] = splitmix64(&seed);
    g->has_spare = 0;
}

/* xoshiro256** (Blackman, Vigna) */
static unsigned long long next_u64(kd_gauss_rng* g) {
    unsigned long long* s = g->s;
    const unsigned long long result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* uniform in (-1, 1) with 53 bits */
static double uniform_pm1(kd_gauss_rng* g) { return ((double)(next_u64(g) >> 11) + 0.5) * 0x1.0p-52 - 1.0; }

double kd_gauss_next(kd_gauss_rng* g) {
    if (g->has_spare) {
        g->has_spare = 0;
        return g->spare;
    }
    double u, v, s;
    do {
        u = uniform_pm1(g);
        v = uniform_pm1(g);
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = sqrt(-2.0 * log(s) / s);
    g->spare = v * f;
    g->has_spare = 1;
    return u * f;
}

/* ---- the test ------------------------------------------------------------------------ */

#define PI 3.14159265358979323846

static double pulse(const kd_virtual_test_desc* vt, double t) {
    return t >= 0 && t <= vt->duration ? vt->amplitude * sin(PI * t / vt->duration) : 0.0;
}

typedef struct vt_ctx {
    const kd_virtual_test_desc* vt;
    const kd_sensor_place* place;
    kd_record* r;
    int nsamp;                    /* samples of one hit */
    int k;                        /* next sample */
    double* y;                    /* (nsensors) */
    kd_measure_progress progress;
    void* pctx;
} vt_ctx;

static int on_sample(void* ctx, double t, const double* q, const double* v, const double* a, const double* energy) {
    (void)q, (void)v, (void)energy;
    vt_ctx* c = ctx;
    if (c->k >= c->nsamp) return 0;
    c->r->channels[0].re[c->k] = pulse(c->vt, t);
    kd_sensors_read(c->place, a, c->y);
    for (int s = 0; s < c->place->n; s++) c->r->channels[1 + s].re[c->k] = c->y[s];
    c->k++;
    if (c->progress && (c->k % 256 == 0) && c->progress(c->pctx, (double)c->k / c->nsamp)) return 1;
    return 0;
}

/* UFF direction code of a body-frame direction: +-1..3 along an axis, 0 otherwise. */
static int dir_code(const double* d) {
    for (int j = 0; j < 3; j++)
        if (fabs(fabs(d[j]) - 1.0) < 1e-12) return d[j] > 0 ? j + 1 : -(j + 1);
    return 0;
}

kd_status kd_virtual_test_run(const kd_desc* d, const kd_virtual_test_desc* vt, kd_measure_progress progress,
                              void* ctx, kd_record** out, kd_error* err) {
    *out = NULL;
    /* the hit as nodal loads of a copy of the description (its own loads left out) */
    static const kd_dof_name trans[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_W};
    kd_load_desc loads[3];
    int nl = 0;
    kd_status st = KD_OK;
    kd_law law;
    {
        /* the pulse as a quintic Hermite law through exact samples of f, f', f'' (held at 0
         * outside [0, tau]) */
        enum { NP = 65 };
        double t[NP], f[NP], df[NP], d2[NP];
        for (int i = 0; i < NP; i++) {
            const double w = PI / vt->duration;
            t[i] = vt->duration * i / (NP - 1);
            f[i] = sin(w * t[i]), df[i] = w * cos(w * t[i]), d2[i] = -w * w * sin(w * t[i]);
        }
        f[0] = f[NP - 1] = 0.0;
        if ((st = kd_law_hermite(&law, NP, t, f, df, d2, err))) return st;
    }
    for (int j = 0; j < 3; j++) {
        if (vt->direction[j] == 0.0) continue;
        kd_load_desc* l = &loads[nl++];
        memset(l, 0, sizeof(*l));
        l->type = KD_LOAD_NODAL;
        l->body = vt->body, l->node = vt->node, l->dof = trans[j];
        l->value = law;  /* shared: freed once below */
        l->value_y = kd_law_constant(0.0);
        l->joint = l->body2 = -1;
    }
    /* scale: a law is a shape; the load's value is amplitude * direction * law. The Hermite law
     * has no factor, so give each load its own scaled copy. */
    kd_law scaled[3];
    int nscaled = 0;
    for (int j = 0, i = 0; j < 3 && !st; j++) {
        if (vt->direction[j] == 0.0) continue;
        if (kd_law_copy(&scaled[i], &law)) {
            st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
            break;
        }
        nscaled++;
        const double s = vt->amplitude * vt->direction[j];
        for (int p = 0; p < scaled[i].n; p++) {
            scaled[i].f[p] *= s;
            scaled[i].df[p] *= s;
            scaled[i].d2[p] *= s;
        }
        loads[i].value = scaled[i];
        i++;
    }
    kd_law_free(&law);
    kd_desc copy = *d;
    copy.loads = loads;
    copy.nloads = nl;
    copy.nanalyses = 0;
    copy.analyses = NULL;
    kd_model* m = NULL;
    if (!st) st = kd_model_compile(&copy, &m, err);
    kd_sensor_place place;
    memset(&place, 0, sizeof place);
    if (!st) st = kd_sensors_place(d, m, vt->sensors, vt->nsensors, &place, err);
    const int nsamp = (int)floor(vt->length * vt->rate + 0.5);
    kd_record* r = st ? NULL : kd_record_new();
    if (!st && !r) st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    const long total = (long)nsamp * vt->hits;
    if (!st && total > 200000000L)
        st = kd_error_set(err, KD_ERR_INPUT, d->file, KD_LOC_NONE, "virtual_test: %ld samples per channel is too many",
                          total);
    for (int c = 0; c <= vt->nsensors && !st; c++) {
        kd_channel* ch = kd_record_add_channel(r, (int)total, 0);
        if (!ch) {
            st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
            break;
        }
        ch->dx = 1.0 / vt->rate;
        ch->function = KD_FUNCTION_TIME;
        if (c == 0) {
            snprintf(ch->name, sizeof ch->name, "force");
            snprintf(ch->unit, sizeof ch->unit, "N");
            ch->dir = dir_code(vt->direction);
        } else {
            const kd_sensor_desc* s = &d->sensors[vt->sensors[c - 1]];
            snprintf(ch->name, sizeof ch->name, "%s", s->name);
            snprintf(ch->unit, sizeof ch->unit, "m/s^2");
            ch->dir = dir_code(s->direction);
            ch->node = place.node[c - 1] + 1;
        }
    }
    if (!st) {
        const int b = kd_model_find_body(m, d->bodies[vt->body].name);
        const int hit = m->body[b].node_adr + vt->node - 1;
        r->channels[0].node = hit + 1;
        for (int c = 0; c <= vt->nsensors; c++) r->channels[c].ref_node = hit + 1, r->channels[c].ref_dir = r->channels[0].dir;
        /* the nodes of the test: the hit and the sensors */
        for (int c = 0; c <= vt->nsensors && !st; c++) {
            const int node = c == 0 ? hit : place.node[c - 1];
            int seen = 0;
            for (int i = 0; i < r->nnodes; i++) seen |= r->node_label[i] == node + 1;
            double x[3];
            kd_model_node_position(m, node, x);
            if (!seen && kd_record_add_node(r, node + 1, x))
                st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
        }
    }
    /* one hit, integrated */
    double* y = st ? NULL : malloc(sizeof(double) * (size_t)(vt->nsensors + 1));
    if (!st && !y) st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    if (!st) {
        kd_analysis_desc ad;
        kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
        ad.dynamics.integrator = KD_INTEGRATOR_NEWMARK;
        ad.dynamics.newmark_beta = 0.25, ad.dynamics.newmark_gamma = 0.5;
        ad.dynamics.dt = 1.0 / (vt->rate * vt->substeps);
        ad.dynamics.output_every = vt->substeps;
        ad.dynamics.t_end = (nsamp - 1) / vt->rate + 0.5 * ad.dynamics.dt;
        ad.dynamics.initial_static = 0;
        vt_ctx c = {vt, &place, r, nsamp, 0, y, progress, ctx};
        kd_integrate_stats stats;
        char warning[256] = "";
        st = kd_dynamics_run(m, &ad, on_sample, &c, &stats, warning, sizeof warning, err);
        if (!st && c.k < nsamp)
            st = kd_error_set(err, KD_ERR_NUMERIC, d->file, KD_LOC_NONE, "virtual_test: %d samples of %d", c.k, nsamp);
    }
    /* the other hits repeat the first (linear, from rest); then the noise, channel by channel:
     * standard deviation = noise x the clean channel's RMS over a hit */
    if (!st) {
        kd_gauss_rng g;
        kd_gauss_seed(&g, (unsigned long long)vt->seed);
        for (int c = 0; c <= vt->nsensors; c++) {
            double* x = r->channels[c].re;
            double ms = 0;
            for (int i = 0; i < nsamp; i++) ms += x[i] * x[i];
            const double sd = vt->noise * sqrt(ms / nsamp);
            for (int h = 1; h < vt->hits; h++) memcpy(x + (size_t)h * nsamp, x, sizeof(double) * (size_t)nsamp);
            if (sd > 0)
                for (long i = 0; i < total; i++) x[i] += sd * kd_gauss_next(&g);
        }
    }
    free(y);
    kd_sensor_place_free(&place);
    kd_model_free(&m);
    for (int i = 0; i < nscaled; i++) kd_law_free(&scaled[i]);
    if (st) kd_record_free(&r);
    *out = r;
    return st;
}
