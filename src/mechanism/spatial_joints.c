/* Spatial joint equations, their exact Jacobians and gamma (theory.md sec. "Spatial rigid
 * mechanisms", S4-S6). Every equation is one of four kinds built from body vectors (points with
 * their translation, axes without):
 *   component  d_k,                d = r_P1 - r_P0                    (spherical rows)
 *   dot-1      a0 . a1,            axes on body 0 and body 1         (orientation rows)
 *   dot-2      a0 . d                                                (line, plane rows)
 *   distance   (d . d - L^2) / 2
 * and gamma = -(the velocity-squared part of the second derivative), from the terms' v' and
 * acc = 2 A(p') s (S3). */
#include <math.h>
#include <string.h>

#include "spatial_internal.h"

int kd_sjoint_rows(kd_sjoint_type t) {
    static const int rows[KD_SJOINT_TYPES] = {3, 5, 4, 4, 5, 6, 2, 1, 1};
    return (unsigned)t < KD_SJOINT_TYPES ? rows[t] : 0;
}

static const char* const names[KD_SJOINT_TYPES] = {"spherical",   "revolute", "universal",
                                                   "cylindrical", "prismatic", "fixed",
                                                   "point-on-line", "point-on-plane", "distance"};

const char* kd_sjoint_name(kd_sjoint_type t) { return (unsigned)t < KD_SJOINT_TYPES ? names[t] : "?"; }

int kd_sjoint_parse(const char* s) {
    for (int i = 0; i < KD_SJOINT_TYPES; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The joint's terms: points P0, P1 and the axes u, f, g of body 0 and their images on body 1. */
typedef struct jterms {
    sp_vterm P0, P1, u0, f0, g0, u1, f1, g1;
    double d[3], dd[3], dacc[3];  /* d = P1 - P0, d', its velocity-squared acceleration */
} jterms;

/* The terms a row set uses (bit mask), so that each is built once and only when needed. */
enum { T_P = 1, T_U0 = 2, T_F0 = 4, T_G0 = 8, T_U1 = 16, T_F1 = 32, T_G1 = 64 };

static int joint_terms(kd_sjoint_type t) {
    switch (t) {
    case KD_SJOINT_REVOLUTE: return T_P | T_F0 | T_G0 | T_U1;
    case KD_SJOINT_UNIVERSAL: return T_P | T_U0 | T_U1;
    case KD_SJOINT_CYLINDRICAL: return T_P | T_F0 | T_G0 | T_U1;
    case KD_SJOINT_PRISMATIC: return T_P | T_F0 | T_G0 | T_U1 | T_G1;
    case KD_SJOINT_FIXED: return T_P | T_U0 | T_F0 | T_G0 | T_U1 | T_F1 | T_G1;
    case KD_SJOINT_POINT_ON_LINE: return T_P | T_F0 | T_G0;
    case KD_SJOINT_POINT_ON_PLANE: return T_P | T_U0;
    default: return T_P;  /* spherical, distance */
    }
}

/* jac: the terms' d/dp are wanted (Jacobian rows); with qd they are built anyway (v'). */
static void terms(const kd_smech* m, const kd_sjoint* j, const double* q, const double* qd, int mask, int jac,
                  jterms* T) {
    const int b0 = j->body[0], b1 = j->body[1];
    if (mask & T_P) {
        sp_term_at(m, b0, j->s[0], 1, q, qd, jac, &T->P0);
        sp_term_at(m, b1, j->s[1], 1, q, qd, jac, &T->P1);
        for (int i = 0; i < 3; i++) {
            T->d[i] = T->P1.v[i] - T->P0.v[i];
            T->dd[i] = T->P1.vd[i] - T->P0.vd[i];
            T->dacc[i] = T->P1.acc[i] - T->P0.acc[i];
        }
    }
    if (mask & T_U0) sp_term_at(m, b0, j->u[0], 0, q, qd, jac, &T->u0);
    if (mask & T_F0) sp_term_at(m, b0, j->f[0], 0, q, qd, jac, &T->f0);
    if (mask & T_G0) sp_term_at(m, b0, j->g[0], 0, q, qd, jac, &T->g0);
    if (mask & T_U1) sp_term_at(m, b1, j->u[1], 0, q, qd, jac, &T->u1);
    if (mask & T_F1) sp_term_at(m, b1, j->f[1], 0, q, qd, jac, &T->f1);
    if (mask & T_G1) sp_term_at(m, b1, j->g[1], 0, q, qd, jac, &T->g1);
}

/* One row: value, local Jacobian (SP_SLOTS), gamma. */
typedef struct rowout {
    double* phi;
    double* jl;
    double* gamma;
    int r;
} rowout;

static void put(rowout* o, double phi, double gamma) {
    if (o->phi) o->phi[o->r] = phi;
    if (o->gamma) o->gamma[o->r] = gamma;
    o->r++;
}
static double* jrow(rowout* o) {
    if (!o->jl) return NULL;
    double* J = o->jl + (size_t)SP_SLOTS * o->r;
    memset(J, 0, sizeof(double) * SP_SLOTS);
    return J;
}

/* d_k (S4) */
static void row_component(rowout* o, const jterms* T, int k) {
    double* J = jrow(o);
    if (J) {
        const double e[3] = {k == 0, k == 1, k == 2};
        sp_term_jac_add(&T->P0, e, -1.0, 0, J);
        sp_term_jac_add(&T->P1, e, 1.0, 1, J);
    }
    put(o, T->d[k], -T->dacc[k]);
}

/* a . b, a on body 0 (slot 0), b on body 1 (slot 1) (S5) */
static void row_dot1(rowout* o, const sp_vterm* a, const sp_vterm* b) {
    double* J = jrow(o);
    if (J) {
        sp_term_jac_add(a, b->v, 1.0, 0, J);
        sp_term_jac_add(b, a->v, 1.0, 1, J);
    }
    put(o, dot3(a->v, b->v), -(dot3(b->v, a->acc) + dot3(a->v, b->acc) + 2.0 * dot3(a->vd, b->vd)));
}

/* a . d, a on body 0 (S5) */
static void row_dot2(rowout* o, const sp_vterm* a, const jterms* T) {
    double* J = jrow(o);
    if (J) {
        sp_term_jac_add(a, T->d, 1.0, 0, J);
        sp_term_jac_add(&T->P0, a->v, -1.0, 0, J);
        sp_term_jac_add(&T->P1, a->v, 1.0, 1, J);
    }
    put(o, dot3(a->v, T->d), -(dot3(a->v, T->dacc) + dot3(T->d, a->acc) + 2.0 * dot3(a->vd, T->dd)));
}

/* (d . d - L^2) / 2 (S4) */
static void row_distance(rowout* o, const jterms* T, double L) {
    double* J = jrow(o);
    if (J) {
        sp_term_jac_add(&T->P0, T->d, -1.0, 0, J);
        sp_term_jac_add(&T->P1, T->d, 1.0, 1, J);
    }
    put(o, 0.5 * (dot3(T->d, T->d) - L * L), -(dot3(T->d, T->dacc) + dot3(T->dd, T->dd)));
}

void sp_joint_eval(const kd_smech* m, int k, const double* q, const double* qd, double* phi, double* jl,
                   double* gamma) {
    const kd_sjoint* j = m->joint + k;
    jterms T;
    terms(m, j, q, qd, joint_terms(j->type), jl != NULL, &T);
    rowout o = {phi, jl, gamma, 0};
    switch (j->type) {
    case KD_SJOINT_SPHERICAL:
        for (int c = 0; c < 3; c++) row_component(&o, &T, c);
        break;
    case KD_SJOINT_REVOLUTE:
        for (int c = 0; c < 3; c++) row_component(&o, &T, c);
        row_dot1(&o, &T.f0, &T.u1);
        row_dot1(&o, &T.g0, &T.u1);
        break;
    case KD_SJOINT_UNIVERSAL:
        for (int c = 0; c < 3; c++) row_component(&o, &T, c);
        row_dot1(&o, &T.u0, &T.u1);
        break;
    case KD_SJOINT_CYLINDRICAL:
    case KD_SJOINT_PRISMATIC:
        row_dot1(&o, &T.f0, &T.u1);
        row_dot1(&o, &T.g0, &T.u1);
        row_dot2(&o, &T.f0, &T);
        row_dot2(&o, &T.g0, &T);
        if (j->type == KD_SJOINT_PRISMATIC) row_dot1(&o, &T.f0, &T.g1);
        break;
    case KD_SJOINT_FIXED:
        for (int c = 0; c < 3; c++) row_component(&o, &T, c);
        row_dot1(&o, &T.f0, &T.g1);
        row_dot1(&o, &T.g0, &T.u1);
        row_dot1(&o, &T.u0, &T.f1);
        break;
    case KD_SJOINT_POINT_ON_LINE:
        row_dot2(&o, &T.f0, &T);
        row_dot2(&o, &T.g0, &T);
        break;
    case KD_SJOINT_POINT_ON_PLANE: row_dot2(&o, &T.u0, &T); break;
    case KD_SJOINT_DISTANCE: row_distance(&o, &T, j->length); break;
    default: break;
    }
}

/* A driver row (S6). Translation (prismatic, cylindrical): u0 . d - x(t). Rotation (revolute):
 * sin(theta_rel - theta(t)) = (g0 . f1) cos theta - (f0 . f1) sin theta, with f1 the image of f0
 * on body 1 at the initial pose, so that theta_rel is the rotation of body 1 about u0 from it. */
static void driver_eval(const kd_smech* m, int dv, double t, const double* q, const double* qd, double* phi,
                        double* jl, double* phi_t, double* gamma) {
    const kd_sdriver* d = m->driver + dv;
    const kd_sjoint* j = m->joint + d->joint;
    double x, xd, xdd;
    kd_law_eval(&d->law, t, &x, &xd, &xdd);
    x += d->initial;
    jterms T;
    terms(m, j, q, qd, j->type != KD_SJOINT_REVOLUTE ? T_P | T_U0 : T_F0 | T_G0 | T_F1, jl != NULL, &T);
    double ph = 0, ga = 0;
    rowout o = {&ph, jl, qd ? &ga : NULL, 0};
    if (j->type != KD_SJOINT_REVOLUTE) {
        row_dot2(&o, &T.u0, &T);
        if (phi) *phi = ph - x;
        if (phi_t) *phi_t = -xd;
        if (gamma) *gamma = ga + xdd;
        return;
    }
    double p1, p2, g1 = 0, g2 = 0, J1[SP_SLOTS], J2[SP_SLOTS];
    const int need_j = jl || qd;  /* the rows' Jacobians: for jl, and for gamma's rates */
    rowout o1 = {&p1, need_j ? J1 : NULL, qd ? &g1 : NULL, 0}, o2 = {&p2, need_j ? J2 : NULL, qd ? &g2 : NULL, 0};
    row_dot1(&o1, &T.g0, &T.f1);  /* D1 = sin theta_rel */
    row_dot1(&o2, &T.f0, &T.f1);  /* D2 = cos theta_rel */
    const double c = cos(x), s = sin(x);
    if (phi) *phi = p1 * c - p2 * s;
    if (jl)
        for (int i = 0; i < SP_SLOTS; i++) jl[i] = c * J1[i] - s * J2[i];
    if (phi_t) *phi_t = -xd * (p1 * s + p2 * c);
    if (gamma && qd) {
        /* rates D' = J_D q' of both dot products */
        double d1 = 0, d2 = 0;
        const int b[2] = {j->body[0], j->body[1]};
        for (int sl = 0; sl < 2; sl++) {
            if (b[sl] < 0) continue;
            const double* v = qd + KD_SPOSE * b[sl];
            for (int i = 0; i < KD_SPOSE; i++) d1 += J1[KD_SPOSE * sl + i] * v[i], d2 += J2[KD_SPOSE * sl + i] * v[i];
        }
        const double cd = -s * xd, sd = c * xd, cdd = -c * xd * xd - s * xdd, sdd = -s * xd * xd + c * xdd;
        /* gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt; g1, g2 are already -(D'')_vel */
        *gamma = c * g1 - s * g2 - 2.0 * (cd * d1 - sd * d2) - (cdd * p1 - sdd * p2);
    }
}

void sp_rows_all(const kd_smech* m, double t, const double* q, const double* qd, double* phi, double* jl,
                 double* phi_t, double* gamma) {
    for (int k = 0; k < m->njoint; k++) {
        const int r = m->joint[k].row;
        if (phi || jl || gamma)
            sp_joint_eval(m, k, q, qd, phi ? phi + r : NULL, jl ? jl + (size_t)SP_SLOTS * r : NULL,
                          gamma ? gamma + r : NULL);
        if (phi_t)
            for (int i = 0; i < m->joint[k].nrow; i++) phi_t[r + i] = 0.0;
    }
    /* normalisation (p . p - 1) / 2 (S1) */
    for (int b = 0; b < m->nbody; b++) {
        const int r = m->nc_joint + b;
        const double* p = q + KD_SPOSE * b + 3;
        if (phi) phi[r] = 0.5 * (dot3(p, p) + p[3] * p[3] - 1.0);
        if (jl) {
            double* J = jl + (size_t)SP_SLOTS * r;
            memset(J, 0, sizeof(double) * SP_SLOTS);
            for (int i = 0; i < 4; i++) J[3 + i] = p[i];
        }
        if (phi_t) phi_t[r] = 0.0;
        if (gamma) {
            const double* pd = qd + KD_SPOSE * b + 3;
            gamma[r] = -(dot3(pd, pd) + pd[3] * pd[3]);
        }
    }
    for (int d = 0; d < m->ndriver; d++) {
        const int r = m->driver[d].row;
        driver_eval(m, d, t, q, qd, phi ? phi + r : NULL, jl ? jl + (size_t)SP_SLOTS * r : NULL,
                    phi_t ? phi_t + r : NULL, gamma ? gamma + r : NULL);
    }
}
