/* The Gibbs-Appell route to the element equations (kedyn/formalism.h;
 * theory.md sec. 4): the acceleration energy
 *     S = 1/2 int rho a_M^T a_M dV,
 *     a_M = a_O + eps x (r + N d) + omega x (omega x (r + N d)) + 2 omega x N d' + N d''
 * (local components), and the equations dS/dd''_a = Q_a with the
 * generalized gravity force Q_a = int rho N_a . g dV. S is evaluated by
 * quadrature in hyper-dual numbers; with S quadratic in (d, d', d''):
 *     m = S_d''d''   c = S_d''d'   k = S_d''d   q = Q - S_d''|0. */
#include <string.h>

#include "hyperdual.h"
#include "points.h"

enum seed_kind { SEED_NONE = 0, SEED_D, SEED_V, SEED_A };

enum { POINT_FLOPS = 3 * KD_HD_ADD_FLOPS + 4 * KD_HD_CROSS_FLOPS + 12 * KD_HD_ADD_FLOPS + 3 * KD_HD_SCALE_FLOPS +
                     KD_HD_DOT_FLOPS + KD_HD_SCALE_FLOPS + KD_HD_ADD_FLOPS };

/* S over the points at the zero state with seed e1 on d''_a and seed e2 of
 * kind k2 on index b. */
static hd acceleration_energy(const qpoint* pts, int np, const kd_frame_state* fs, int a, int k2, int b,
                                 kd_formalism_ops* ops) {
    hd om[3], ep[3], ao[3];
    for (int i = 0; i < 3; i++) {
        om[i] = hd_make(fs->omega[i], 0, 0, 0);
        ep[i] = hd_make(fs->eps[i], 0, 0, 0);
        ao[i] = hd_make(fs->a[i], 0, 0, 0);
    }
    hd S = hd_make(0, 0, 0, 0);
    for (int k = 0; k < np; k++) {
        const qpoint* q = &pts[k];
        hd u[3], ud[3], udd[3], p[3], exp_[3], wxp[3], wxwxp[3], wxud[3], acc[3];
        for (int i = 0; i < 3; i++) {
            u[i] = hd_make(0, 0, k2 == SEED_D ? q->N[i][b] : 0.0, 0);
            ud[i] = hd_make(0, 0, k2 == SEED_V ? q->N[i][b] : 0.0, 0);
            udd[i] = hd_make(0, q->N[i][a], k2 == SEED_A ? q->N[i][b] : 0.0, 0);
            p[i] = hd_add(hd_make(q->r[i], 0, 0, 0), u[i]);
        }
        hd_cross(exp_, ep, p);
        hd_cross(wxp, om, p);
        hd_cross(wxwxp, om, wxp);
        hd_cross(wxud, om, ud);
        for (int i = 0; i < 3; i++)
            acc[i] = hd_add(hd_add(hd_add(ao[i], exp_[i]), hd_add(wxwxp[i], hd_scale(2.0, wxud[i]))), udd[i]);
        S = hd_add(S, hd_scale(0.5 * q->w, hd_dot(acc, acc)));
    }
    if (ops) {
        ops->points += np;
        ops->derivatives += 1;
        ops->flops += (double)np * POINT_FLOPS;
    }
    return S;
}

void kd_gibbs_appell_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                             kd_formalism_ops* ops) {
    qpoint pts[KD_QPOINTS_MAX];
    const int np = formalism_points(p, at, pts), n = p->ndof;
    memset(out, 0, sizeof(*out));
    out->n = n;
    for (int a = 0; a < n; a++) {
        /* q_a = Q_a - dS/dd''_a at the zero state */
        double Q = 0.0;
        for (int k = 0; k < np; k++)
            Q += pts[k].w * (pts[k].N[0][a] * fs->g[0] + pts[k].N[1][a] * fs->g[1] + pts[k].N[2][a] * fs->g[2]);
        out->q[a] = Q - acceleration_energy(pts, np, fs, a, SEED_NONE, 0, ops).e1;
        for (int b = 0; b < n; b++) {
            if (b >= a) out->m[a * n + b] = out->m[b * n + a] = acceleration_energy(pts, np, fs, a, SEED_A, b, ops).e12;
            out->c[a * n + b] = acceleration_energy(pts, np, fs, a, SEED_V, b, ops).e12;
            out->k[a * n + b] = acceleration_energy(pts, np, fs, a, SEED_D, b, ops).e12;
        }
    }
    if (ops) {
        ops->elements++;
        ops->flops += (double)np * n * 6.0;
    }
}
