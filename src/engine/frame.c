/* Prescribed frame motion of a body (kedyn/frame.h; theory.md sec. 2). */
#include "kedyn/frame.h"

#include <math.h>
#include <string.h>

static void cross(double out[3], const double a[3], const double b[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* out = A b (row-major 3x3). */
static void mat_vec(double out[3], const double A[9], const double b[3]) {
    for (int i = 0; i < 3; i++) out[i] = A[3 * i] * b[0] + A[3 * i + 1] * b[1] + A[3 * i + 2] * b[2];
}

/* out = A^T b. */
static void mat_tvec(double out[3], const double A[9], const double b[3]) {
    for (int i = 0; i < 3; i++) out[i] = A[i] * b[0] + A[3 + i] * b[1] + A[6 + i] * b[2];
}

/* Rodrigues: Rot(n, th) = I + sin th [n] + (1 - cos th) [n]^2. */
static void axis_rotation(double Q[9], const double n[3], double th) {
    const double s = sin(th), c = 1.0 - cos(th);
    const double N[9] = {0, -n[2], n[1], n[2], 0, -n[0], -n[1], n[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double nn = 0;
            for (int k = 0; k < 3; k++) nn += N[3 * i + k] * N[3 * k + j];
            Q[3 * i + j] = (i == j) + s * N[3 * i + j] + c * nn;
        }
}

static void mat_mul(double out[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

void kd_motion_eval(const kd_motion* mo, const double R0[9], const double r0[3], double t, kd_frame* f) {
    memset(f, 0, sizeof(*f));
    f->t = t;
    switch (mo->type) {
    case KD_MOTION_NONE:
        memcpy(f->R, R0, sizeof(f->R));
        memcpy(f->rO, r0, sizeof(f->rO));
        break;
    case KD_MOTION_ROTATION: {
        double th, dth, d2th, Q[9], p0[3], p[3], wxp[3];
        kd_law_eval(&mo->angle, t, &th, &dth, &d2th);
        axis_rotation(Q, mo->axis, th);
        mat_mul(f->R, Q, R0);
        /* arm from the axis point to the origin: rotated initial arm */
        for (int i = 0; i < 3; i++) p0[i] = r0[i] + mo->hub * R0[3 * i] - mo->center[i];
        mat_vec(p, Q, p0);
        for (int i = 0; i < 3; i++) {
            f->rO[i] = mo->center[i] + p[i];
            f->omega[i] = dth * mo->axis[i];
            f->eps[i] = d2th * mo->axis[i];
        }
        /* v = w x p, a = e x p + w x (w x p) */
        cross(f->vO, f->omega, p);
        cross(wxp, f->omega, f->vO);
        cross(f->aO, f->eps, p);
        for (int i = 0; i < 3; i++) f->aO[i] += wxp[i];
        break;
    }
    case KD_MOTION_PLANAR: {
        double phi, dphi, d2phi;
        kd_law_eval(&mo->x, t, &f->rO[0], &f->vO[0], &f->aO[0]);
        kd_law_eval(&mo->y, t, &f->rO[1], &f->vO[1], &f->aO[1]);
        kd_law_eval(&mo->phi, t, &phi, &dphi, &d2phi);
        const double c = cos(phi), s = sin(phi);
        const double R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
        memcpy(f->R, R, sizeof(R));
        f->omega[2] = dphi;
        f->eps[2] = d2phi;
        break;
    }
    }
    mat_tvec(f->omega_L, f->R, f->omega);
    mat_tvec(f->eps_L, f->R, f->eps);
    mat_tvec(f->vO_L, f->R, f->vO);
    mat_tvec(f->aO_L, f->R, f->aO);
}

int kd_motion_smoothness(const kd_motion* mo) {
    switch (mo->type) {
    case KD_MOTION_ROTATION: return kd_law_smoothness(&mo->angle);
    case KD_MOTION_PLANAR: {
        int s = kd_law_smoothness(&mo->x);
        if (kd_law_smoothness(&mo->y) < s) s = kd_law_smoothness(&mo->y);
        if (kd_law_smoothness(&mo->phi) < s) s = kd_law_smoothness(&mo->phi);
        return s;
    }
    case KD_MOTION_NONE: break;
    }
    return 2;
}

kd_status kd_motion_copy(kd_motion* dst, const kd_motion* src) {
    *dst = *src;
    kd_law* dl[4] = {&dst->angle, &dst->x, &dst->y, &dst->phi};
    const kd_law* sl[4] = {&src->angle, &src->x, &src->y, &src->phi};
    kd_status st = KD_OK;
    for (int i = 0; i < 4; i++) dl[i]->t = dl[i]->f = dl[i]->d2 = NULL, dl[i]->n = 0;
    for (int i = 0; i < 4 && !st; i++) st = kd_law_copy(dl[i], sl[i]);
    if (st) kd_motion_free(dst);
    return st;
}

void kd_motion_free(kd_motion* mo) {
    kd_law_free(&mo->angle);
    kd_law_free(&mo->x);
    kd_law_free(&mo->y);
    kd_law_free(&mo->phi);
}
