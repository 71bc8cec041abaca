/* Stability map: the speed at which the effective stiffness of a spinning
 * beam or plate loses positive definiteness, over hub distances and lengths
 * (and a plate's thicknesses) (kedyn/analysis.h; theory.md sec. 5, 14.4 and 14.8). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/analysis.h"

void kd_stability_free(kd_stability_map* s) {
    free(s->hub);
    free(s->length);
    free(s->omega_cr);
    free(s->thickness);
    memset(s, 0, sizeof(*s));
}

/* The test of kd_system_stiffness_definite in buffers C, K (general band) and S (upper band) of
 * the caller, which the bisection of critical_speed reuses from speed to speed. */
static int definite_in(kd_system* s, double t, kd_gband* C, kd_gband* K, kd_band* S) {
    s->have_frames = 0;  /* callers may change a body's motion between calls */
    int changed;
    kd_system_matrices(s, t, C, K, &changed);
    /* upper band of (K + K^T) / 2 */
    const int ldg = 2 * s->kd + 1, lds = s->kd + 1;
    for (int j = 0; j < s->n; j++)
        for (int i = j - s->kd > 0 ? j - s->kd : 0; i <= j; i++) {
            const double kij = K->ab[s->kd + i - j + (size_t)j * ldg], kji = K->ab[s->kd + j - i + (size_t)i * ldg];
            S->ab[s->kd + i - j + (size_t)j * lds] = 0.5 * (kij + kji);
        }
    return kd_band_cholesky_definite(S);
}

int kd_system_stiffness_definite(kd_system* s, double t) {
    kd_gband C = {0}, K = {0};
    kd_band S = {0};
    int result = -1;
    if (!kd_gband_init(&C, s->n, s->kd, s->kd) && !kd_gband_init(&K, s->n, s->kd, s->kd) &&
        !kd_band_init(&S, s->n, s->kd))
        result = definite_in(s, t, &C, &K, &S);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_band_free(&S);
    return result;
}

/* Critical speed of one compiled model by bisection on [0, omega_max]. */
static kd_status critical_speed(const kd_model* m, int body, double omega_max, double* omega_cr, kd_error* err) {
    kd_system s;
    kd_status st = kd_system_init(&s, m, err);
    if (st) return st;
    kd_gband C = {0}, K = {0};  /* the buffers of every speed's test */
    kd_band S = {0};
    if (kd_gband_init(&C, s.n, s.kd, s.kd) || kd_gband_init(&K, s.n, s.kd, s.kd) || kd_band_init(&S, s.n, s.kd)) {
        kd_gband_free(&C), kd_gband_free(&K), kd_band_free(&S);
        kd_system_free(&s);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory in the stability analysis");
    }
    kd_motion spin = m->body[body].motion;
    spin.angle = kd_law_constant(0.0);
    spin.angle.type = KD_LAW_SPEED;
    s.motion[body] = &spin;
    spin.angle.value = omega_max;
    int ok = definite_in(&s, 0.0, &C, &K, &S);
    if (ok == 1) {
        *omega_cr = INFINITY;
    } else {
        double lo = 0.0, hi = omega_max;
        spin.angle.value = 0.0;
        if (definite_in(&s, 0.0, &C, &K, &S) != 1) hi = 0.0;  /* unstable at rest (free body) */
        while (hi - lo > 1e-6 * hi && ok >= 0) {
            spin.angle.value = 0.5 * (lo + hi);
            ok = definite_in(&s, 0.0, &C, &K, &S);
            if (ok == 1) lo = spin.angle.value;
            else hi = spin.angle.value;
        }
        *omega_cr = hi;
    }
    kd_gband_free(&C), kd_gband_free(&K), kd_band_free(&S);
    kd_system_free(&s);
    if (ok < 0) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory in the stability analysis");
    return KD_OK;
}

/* One point of the map on its own shallow copy of the description (its own body and motion
 * arrays; laws and tables stay shared, read only), so that points can be computed at once on
 * several threads. */
kd_status kd_stability_point(const kd_desc* d, int body, double hub, double length, double omega_max,
                             double* omega_cr, kd_error* err) {
    return kd_stability_point_thickness(d, body, hub, length, 0.0, omega_max, omega_cr, err);
}

kd_status kd_stability_point_thickness(const kd_desc* d, int body, double hub, double length, double thickness,
                                       double omega_max, double* omega_cr, kd_error* err) {
    kd_desc dc = *d;
    dc.bodies = malloc(sizeof(*dc.bodies) * (size_t)d->nbodies);
    dc.motions = malloc(sizeof(*dc.motions) * (size_t)(d->nmotions ? d->nmotions : 1));
    kd_status st = KD_OK;
    if (!dc.bodies || !dc.motions) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the stability map");
        goto done;
    }
    memcpy(dc.bodies, d->bodies, sizeof(*dc.bodies) * (size_t)d->nbodies);
    memcpy(dc.motions, d->motions, sizeof(*dc.motions) * (size_t)d->nmotions);
    kd_body_desc* b = &dc.bodies[body];
    kd_motion* mo = NULL;
    for (int i = 0; i < dc.nmotions; i++)
        if (dc.motions[i].body == body) mo = &dc.motions[i].motion;
    const double L0 = b->length;
    double axis[3] = {1, 0, 0};
    if (b->npoints >= 2)
        for (int k = 0; k < 3; k++) axis[k] = (b->points[b->npoints - 1].x[k] - b->points[0].x[k]) / L0;
    mo->hub = hub;
    b->length = length;
    if (thickness > 0.0 && b->type == KD_BODY_PLATE) b->thickness = thickness;  /* theory.md sec. 14.8 */
    /* a plate: `lengths` are its extent a along the body x axis; the mesh is scaled uniformly
     * (b / a, the divisions, the supports and node sets kept; theory.md sec. 14.4) */
    double* xs = NULL;
    if (b->type == KD_BODY_PLATE) {
        const double* x0 = b->mesh.node_x;
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (int k = 0; k < b->mesh.nnodes; k++) lo = fmin(lo, x0[3 * k]), hi = fmax(hi, x0[3 * k]);
        const double s = length / (hi - lo);
        xs = malloc(sizeof(double) * 3 * (size_t)(b->mesh.nnodes > 0 ? b->mesh.nnodes : 1));
        if (!xs) {
            st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the stability map");
            goto done;
        }
        for (int k = 0; k < 3 * b->mesh.nnodes; k++) xs[k] = s * x0[k];
        b->mesh.node_x = xs;
        b->mesh.size[0] *= s, b->mesh.size[1] *= s;
    }
    if (b->npoints >= 2)  /* keep the axis, move the last point */
        for (int k = 0; k < 3; k++) b->points[b->npoints - 1].x[k] = b->points[0].x[k] + length * axis[k];
    kd_model* m = NULL;
    st = kd_model_compile(&dc, &m, err);
    if (!st) st = critical_speed(m, body, omega_max, omega_cr, err);
    kd_model_free(&m);
    free(xs);
done:
    free(dc.bodies);
    free(dc.motions);
    return st;
}

kd_status kd_stability_run(const kd_desc* d, int body, const double* hubs, int nhubs, const double* lengths,
                           int nlengths, double omega_max, kd_stability_map* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    kd_status st = kd_stability_map_init(out, hubs, nhubs, lengths, nlengths, omega_max, err);
    for (int i = 0; i < nhubs && !st; i++)
        for (int j = 0; j < nlengths && !st; j++)
            st = kd_stability_point(d, body, hubs[i], lengths[j], omega_max, &out->omega_cr[(size_t)i * nlengths + j],
                                    err);
    if (st) kd_stability_free(out);
    return st;
}

kd_status kd_stability_map_init(kd_stability_map* out, const double* hubs, int nhubs, const double* lengths,
                                int nlengths, double omega_max, kd_error* err) {
    memset(out, 0, sizeof(*out));
    out->nhubs = nhubs, out->nlengths = nlengths, out->omega_max = omega_max;
    out->hub = malloc(sizeof(double) * (size_t)(nhubs ? nhubs : 1));
    out->length = malloc(sizeof(double) * (size_t)(nlengths ? nlengths : 1));
    out->omega_cr = malloc(sizeof(double) * ((size_t)nhubs * (size_t)nlengths + 1));
    if (!out->hub || !out->length || !out->omega_cr) {
        kd_stability_free(out);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the stability map");
    }
    memcpy(out->hub, hubs, sizeof(double) * (size_t)nhubs);
    memcpy(out->length, lengths, sizeof(double) * (size_t)nlengths);
    return KD_OK;
}

kd_status kd_stability_map_thicknesses(kd_stability_map* out, const double* t, int n, kd_error* err) {
    if (n <= 0) return KD_OK;
    double* th = malloc(sizeof(double) * (size_t)n);
    double* w = realloc(out->omega_cr, sizeof(double) * ((size_t)out->nhubs * (size_t)out->nlengths * (size_t)n + 1));
    if (w) out->omega_cr = w;
    if (!th || !w) {
        free(th);
        kd_stability_free(out);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the stability map");
    }
    memcpy(th, t, sizeof(double) * (size_t)n);
    out->thickness = th;
    out->nthick = n;
    return KD_OK;
}
