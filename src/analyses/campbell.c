/* Campbell diagram: frequencies of a moving system versus the speed of one
 * spinning body (kedyn/analysis.h), each curve following one mode from speed
 * to speed by the modal assurance criterion, so that curves cross instead of
 * swapping where two frequencies meet. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/analysis.h"
#include "kedyn/modes_gyro_sparse.h"

void kd_campbell_free(kd_campbell* c) {
    free(c->speed);
    free(c->omega);
    free(c->growth);
    free(c->unstable);
    free(c->mac_min);
    memset(c, 0, sizeof(*c));
}

/* MAC(a, b) = |a^H b|^2 / ((a^H a)(b^H b)) of two complex mode shapes
 * (re, im; im NULL: 0). A moving system's shape is complex: the Coriolis
 * coupling puts some DOFs in quadrature (the axial motion of a blade
 * spinning in its bending plane), and the real part alone can lose the
 * very DOFs that identify the mode. */
static double mac(const double* ar, const double* ai, const double* br, const double* bi, int n) {
    double abr = 0, abi = 0, aa = 0, bb = 0;
    for (int i = 0; i < n; i++) {
        const double xi = ai ? ai[i] : 0.0, yi = bi ? bi[i] : 0.0;
        abr += ar[i] * br[i] + xi * yi, abi += ar[i] * yi - xi * br[i];
        aa += ar[i] * ar[i] + xi * xi, bb += br[i] * br[i] + yi * yi;
    }
    return aa > 0 && bb > 0 ? (abr * abr + abi * abi) / (aa * bb) : 0.0;
}

/* Assign each tracked curve k (shape prev[k] + i prev_im[k]) one of the
 * `next` new modes: repeatedly the unassigned pair with the largest MAC.
 * pick[k] = the new mode, and the smallest MAC used is returned. */
static double track(const double* prev, const double* prev_im, int count, const kd_modes* r, int n, double* macs,
                    int* pick, int* used) {
    const int next = r->count;
    for (int k = 0; k < count; k++)
        for (int j = 0; j < next; j++)
            macs[(size_t)k * next + j] = mac(prev + (size_t)k * n, prev_im + (size_t)k * n, r->shape + (size_t)j * n,
                                             r->shape_im ? r->shape_im + (size_t)j * n : NULL, n);
    for (int k = 0; k < count; k++) pick[k] = -1;
    for (int j = 0; j < next; j++) used[j] = 0;
    double worst = 1.0;
    for (int round = 0; round < count; round++) {
        int bk = -1, bj = -1;
        double best = -1;
        for (int k = 0; k < count; k++)
            for (int j = 0; j < next && pick[k] < 0; j++)
                if (!used[j] && macs[(size_t)k * next + j] > best) best = macs[(size_t)k * next + j], bk = k, bj = j;
        pick[bk] = bj, used[bj] = 1;
        worst = fmin(worst, best);
    }
    return worst;
}

void kd_campbell_track_free(kd_campbell_track* t) {
    free(t->prev), free(t->macs), free(t->pick);
    memset(t, 0, sizeof(*t));
}

kd_status kd_campbell_begin(const kd_model* m, const double* speeds, int nspeeds, int count, kd_campbell* out,
                            kd_campbell_track* t, kd_error* err) {
    memset(out, 0, sizeof(*out));
    memset(t, 0, sizeof(*t));
    if (count > m->neq) count = m->neq;
    /* a few more modes than curves, so a curve can follow its mode past
     * one that enters from above */
    t->extra = count + 4 < m->neq ? count + 4 : m->neq;
    t->n = m->neq;
    t->count = count;
    out->nspeeds = nspeeds;
    out->count = count;
    out->speed = malloc(sizeof(double) * (size_t)(nspeeds ? nspeeds : 1));
    out->omega = calloc((size_t)nspeeds * (size_t)count + 1, sizeof(double));
    out->growth = calloc((size_t)nspeeds * (size_t)count + 1, sizeof(double));
    out->unstable = calloc((size_t)nspeeds + 1, sizeof(int));
    out->mac_min = calloc((size_t)nspeeds + 1, sizeof(double));
    t->prev = calloc(2 * (size_t)count * (size_t)t->n + 1, sizeof(double)); /* re, then im */
    t->macs = malloc(sizeof(double) * ((size_t)count * (size_t)t->extra + 1));
    t->pick = malloc(sizeof(int) * (size_t)(count + t->extra + 1));
    if (!out->speed || !out->omega || !out->growth || !out->unstable || !out->mac_min || !t->prev || !t->macs ||
        !t->pick) {
        kd_campbell_free(out);
        kd_campbell_track_free(t);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the Campbell diagram");
    }
    if (nspeeds) memcpy(out->speed, speeds, sizeof(double) * (size_t)nspeeds);
    return KD_OK;
}

int kd_campbell_modes_wanted(const kd_campbell_track* t, int i) { return i == 0 ? t->count : t->extra; }

kd_status kd_campbell_modes_at(const kd_model* m, int body, double speed, int nmodes, kd_modes* r, kd_error* err) {
    /* The spinning body follows a copy of its motion with a constant-speed
     * law (no tables in it, so a shallow copy is safe). */
    kd_motion spin = m->body[body].motion;
    spin.angle = kd_law_constant(0.0);
    spin.angle.type = KD_LAW_SPEED;
    spin.angle.value = speed;
    if (kd_gyro_sparse_route(m->neq, nmodes)) {  /* large: no band system */
        const kd_motion** motion = calloc((size_t)m->nbody, sizeof(*motion));
        if (!motion) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the Campbell diagram");
        motion[body] = &spin;
        const kd_status st = kd_modes_state_space_sparse(m, motion, 0.0, nmodes, r, err);
        free(motion);
        return st;
    }
    kd_system s;
    kd_status st = kd_system_init(&s, m, err);
    if (st) return st;
    s.motion[body] = &spin;
    s.have_frames = 0;
    st = kd_modes_state_space(&s, 0.0, nmodes, r, err);
    kd_system_free(&s);
    return st;
}

void kd_campbell_add(kd_campbell* out, kd_campbell_track* t, int i, const kd_modes* r) {
    const int count = t->count, n = t->n;
    int* pick = t->pick;
    const int nc = r->count < count ? r->count : count;
    if (i == 0 || r->count < count) {  /* ascending at the first speed */
        for (int k = 0; k < nc; k++) pick[k] = k;
        out->mac_min[i] = 1.0;
    } else {
        out->mac_min[i] = track(t->prev, t->prev + (size_t)count * n, count, r, n, t->macs, pick, pick + count);
    }
    for (int k = 0; k < nc; k++) {
        const int j = pick[k];
        out->omega[(size_t)i * count + k] = r->omega[j];
        out->growth[(size_t)i * count + k] = r->growth[j];
        memcpy(t->prev + (size_t)k * n, r->shape + (size_t)j * n, sizeof(double) * (size_t)n);
        double* im = t->prev + ((size_t)count + (size_t)k) * n;
        if (r->shape_im) memcpy(im, r->shape_im + (size_t)j * n, sizeof(double) * (size_t)n);
        else memset(im, 0, sizeof(double) * (size_t)n);
    }
    out->unstable[i] = r->unstable;
}

kd_status kd_campbell_run(const kd_model* m, int body, const double* speeds, int nspeeds, int count,
                          kd_campbell* out, kd_error* err) {
    kd_campbell_track t;
    kd_status st = kd_campbell_begin(m, speeds, nspeeds, count, out, &t, err);
    for (int i = 0; i < nspeeds && !st; i++) {
        kd_modes r;
        st = kd_campbell_modes_at(m, body, speeds[i], kd_campbell_modes_wanted(&t, i), &r, err);
        if (st) break;
        kd_campbell_add(out, &t, i, &r);
        kd_modes_free(&r);
    }
    kd_campbell_track_free(&t);
    if (st) kd_campbell_free(out);
    return st;
}
