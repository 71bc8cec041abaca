/* Lagrange's route to the element equations (kedyn/formalism.h;
 * theory.md sec. 4):
 *     d/dt (dL/dd') - dL/dd = 0,   L = T - V_g,
 *     T   = 1/2 int rho v^T v dV,  v = v_O + omega x (r + N d) + N d'
 *     V_g = -int rho g^T (r + N d) dV                 (local components)
 * L is evaluated by quadrature in hyper-dual numbers (hyperdual.h); every
 * derivative comes from automatic differentiation along seeds: a coordinate
 * d_a, a speed d'_a, or time t (the frame quantities then carry their rates:
 * omega' = eps, (v_O,L)' = a_O,L - omega x v_O,L, (g_L)' = -omega x g_L).
 * Expanding d/dt dL/dd' = L_d'd' d'' + L_d'd d' + (dL/dd')_t, with L
 * quadratic in (d, d'):
 *     m = L_d'd'      c = L_d'd - (L_d'd)^T      k = (L_d'd)_t - L_dd
 *     q = L_d|0 - (L_d')_t|0
 * where (L_d'd)_t = (L_d')_t at d = e_b minus at d = 0 (unit states). M is
 * constant (L_d'd' does not depend on time), which saves its time pass. */
#include <string.h>

#include "hyperdual.h"
#include "points.h"

enum seed_kind { SEED_NONE = 0, SEED_D, SEED_V, SEED_T };
typedef struct seed {
    int kind, index;
} seed;

/* Flops of one point evaluation of L (hd): r + u, omega x (r + u), two
 * additions, |v|^2, g . (r + u), scaling and accumulation. */
enum { POINT_FLOPS = 3 * KD_HD_ADD_FLOPS + KD_HD_CROSS_FLOPS + 6 * KD_HD_ADD_FLOPS + 2 * KD_HD_DOT_FLOPS +
                     3 * KD_HD_SCALE_FLOPS + KD_HD_ADD_FLOPS };

/* A hd 3-vector: real part `re` (may be NULL), derivative parts d1, d2 (NULL = 0). */
static void hd3(hd out[3], const double* re, const double* d1, const double* d2) {
    for (int i = 0; i < 3; i++) out[i] = hd_make(re ? re[i] : 0.0, d1 ? d1[i] : 0.0, d2 ? d2[i] : 0.0, 0.0);
}

/* L summed over the points at the real state d = e_sd (sd < 0: d = 0),
 * d' = e_sv (sv < 0: 0), with seeds s1 (e1) and s2 (e2). Forward mode with
 * unit seeds: the derivative part of N d is the seeded column of N. */
static hd lagrangian(const qpoint* pts, int np, const kd_frame_state* fs, int sd, int sv, seed s1, seed s2,
                        kd_formalism_ops* ops) {
    /* frame quantities and their time rates */
    double wxv[3], wxg[3], dvo[3], dg[3];
    util_cross3(wxv, fs->omega, fs->v);
    util_cross3(wxg, fs->omega, fs->g);
    for (int i = 0; i < 3; i++) dvo[i] = fs->a[i] - wxv[i], dg[i] = -wxg[i];
    hd om[3], vo[3], g[3];
    hd3(om, fs->omega, s1.kind == SEED_T ? fs->eps : NULL, s2.kind == SEED_T ? fs->eps : NULL);
    hd3(vo, fs->v, s1.kind == SEED_T ? dvo : NULL, s2.kind == SEED_T ? dvo : NULL);
    hd3(g, fs->g, s1.kind == SEED_T ? dg : NULL, s2.kind == SEED_T ? dg : NULL);

    hd L = hd_make(0, 0, 0, 0);
    for (int k = 0; k < np; k++) {
        const qpoint* q = &pts[k];
        double cre_d[3], c1_d[3], c2_d[3], cre_v[3], c1_v[3], c2_v[3];
        if (sd >= 0) qpoint_column(q, sd, cre_d);
        if (sv >= 0) qpoint_column(q, sv, cre_v);
        if (s1.kind == SEED_D) qpoint_column(q, s1.index, c1_d);
        if (s2.kind == SEED_D) qpoint_column(q, s2.index, c2_d);
        if (s1.kind == SEED_V) qpoint_column(q, s1.index, c1_v);
        if (s2.kind == SEED_V) qpoint_column(q, s2.index, c2_v);
        hd u[3], ud[3], p[3], wxp[3], v[3];
        hd3(u, sd >= 0 ? cre_d : NULL, s1.kind == SEED_D ? c1_d : NULL, s2.kind == SEED_D ? c2_d : NULL);
        hd3(ud, sv >= 0 ? cre_v : NULL, s1.kind == SEED_V ? c1_v : NULL, s2.kind == SEED_V ? c2_v : NULL);
        for (int i = 0; i < 3; i++) p[i] = hd_add(hd_make(q->r[i], 0, 0, 0), u[i]);
        hd_cross(wxp, om, p);
        for (int i = 0; i < 3; i++) v[i] = hd_add(hd_add(vo[i], wxp[i]), ud[i]);
        const hd Tk = hd_scale(0.5 * q->w, hd_dot(v, v));
        const hd Vg = hd_scale(-q->w, hd_dot(g, p));
        L = hd_add(L, hd_sub(Tk, Vg));
    }
    if (ops) {
        ops->points += np;
        ops->derivatives += 1;
        ops->flops += (double)np * POINT_FLOPS;
    }
    return L;
}

static seed mk(int kind, int index) {
    seed s = {kind, index};
    return s;
}

void kd_lagrange_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                         kd_formalism_ops* ops) {
    qpoint pts[KD_QPOINTS_MAX];
    const int np = formalism_points(p, at, pts), n = p->ndof;
    const seed none = mk(SEED_NONE, 0), time = mk(SEED_T, 0);
    memset(out, 0, sizeof(*out));
    out->n = n;
    double Ldt0[KD_ELEM_DOF_MAX];  /* (dL/dd'_a)_t at d = 0 */
    for (int a = 0; a < n; a++) {
        /* q = L_d|0 - (L_d')_t|0 */
        Ldt0[a] = lagrangian(pts, np, fs, -1, -1, mk(SEED_V, a), time, ops).e12;
        out->q[a] = lagrangian(pts, np, fs, -1, -1, mk(SEED_D, a), none, ops).e1 - Ldt0[a];
        for (int b = 0; b < n; b++) {
            /* m = L_d'd' and L_dd (symmetric: one pass per pair) */
            if (b >= a) {
                const double mab = lagrangian(pts, np, fs, -1, -1, mk(SEED_V, a), mk(SEED_V, b), ops).e12;
                const double dab = lagrangian(pts, np, fs, -1, -1, mk(SEED_D, a), mk(SEED_D, b), ops).e12;
                out->m[a * n + b] = out->m[b * n + a] = mab;
                out->k[a * n + b] -= dab;
                if (b != a) out->k[b * n + a] -= dab;
            }
            /* c = L_d'd - (L_d'd)^T */
            const double xab = lagrangian(pts, np, fs, -1, -1, mk(SEED_V, a), mk(SEED_D, b), ops).e12;
            out->c[a * n + b] += xab;
            out->c[b * n + a] -= xab;
            /* k += (L_d'd)_t: the time rate of dL/dd'_a at the unit state d = e_b */
            out->k[a * n + b] += lagrangian(pts, np, fs, b, -1, mk(SEED_V, a), time, ops).e12 - Ldt0[a];
        }
    }
    if (ops) ops->elements++;
}

void kd_lagrange_terms(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, const double* d,
                       const double* dv, const double* dd, double* ddt_dLdv, double* dLdd) {
    /* L is quadratic in (d, d'): its first derivatives at a general state
     * are the zero-state derivatives plus the unit-state ones weighted by
     * the state (superposition), and d/dt along the motion adds the seeded
     * time rate, the d' coupling times d' and the d'' coupling times dd. */
    kd_element_eqs e;
    kd_lagrange_element(p, at, fs, &e, NULL);
    qpoint pts[KD_QPOINTS_MAX];
    const int np = formalism_points(p, at, pts), n = p->ndof;
    const seed none = mk(SEED_NONE, 0);
    for (int a = 0; a < n; a++) {
        /* dL/dd_a = L_d|0 + L_dd d + L_dd' d' */
        double s = lagrangian(pts, np, fs, -1, -1, mk(SEED_D, a), none, NULL).e1;
        for (int b = 0; b < n; b++) {
            s += lagrangian(pts, np, fs, -1, -1, mk(SEED_D, a), mk(SEED_D, b), NULL).e12 * d[b];
            s += lagrangian(pts, np, fs, -1, -1, mk(SEED_D, a), mk(SEED_V, b), NULL).e12 * dv[b];
        }
        dLdd[a] = s;
        /* d/dt dL/dd'_a = (the Euler-Lagrange residual) + dL/dd_a */
        double r = -e.q[a];
        for (int b = 0; b < n; b++) r += e.m[a * n + b] * dd[b] + e.c[a * n + b] * dv[b] + e.k[a * n + b] * d[b];
        ddt_dLdv[a] = r + dLdd[a];
    }
}
