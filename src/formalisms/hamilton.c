/* Hamilton's route to the element equations (kedyn/formalism.h; theory.md
 * sec. 4). The canonical momenta and their rates by quadrature of the point
 * velocities (local components),
 *     v  = v_O + omega x (r + N d) + N d',
 *     p  = dL/dd'  = int rho N^T v dV                 = Pv d' + Pd d + p0,
 *     p' = dL/dd   = int rho (omega x N)^T v dV + int rho N^T g dV
 *                                                    = Rd d + Rv d' + r0,
 * evaluated for the unit states d' = e_b, d = e_b and the zero state. The
 * velocities are dual numbers in time (omega' = eps, (v_O,L)' = a_O,L -
 * omega x v_O,L), so the same pass gives the explicit rates dPd and dp0 that
 * turn the canonical pair into the second-order form
 *     m = Pv,  c = Pd - Rv,  k = dPd - Rd,  q = r0 - dp0
 * (differentiate p along the motion and equate to p'). For the element of
 * theory.md sec. 4: Pd = G, Rv = -G, Rd = -k(omega), dp0 + ... = [m_Oi] a + q_i(eps). */
#include <string.h>

#include "hyperdual.h"
#include "points.h"

void kd_hamilton_canonical(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_canonical_eqs* out,
                           kd_formalism_ops* ops) {
    qpoint pts[KD_QPOINTS_MAX];
    const int np = formalism_points(p, at, pts), n = p->ndof;
    memset(out, 0, sizeof(*out));
    out->n = n;
    /* frame quantities, dual in time (e1) */
    double wxv[3];
    util_cross3(wxv, fs->omega, fs->v);
    hd om[3], vo[3];
    for (int i = 0; i < 3; i++) {
        om[i] = hd_make(fs->omega[i], fs->eps[i], 0, 0);
        vo[i] = hd_make(fs->v[i], fs->a[i] - wxv[i], 0, 0);
    }
    for (int k = 0; k < np; k++) {
        const qpoint* q = &pts[k];
        hd Na[KD_ELEM_DOF_MAX][3], WNa[KD_ELEM_DOF_MAX][3];  /* dv/dd'_a = N_a and dv/dd_a = omega x N_a */
        for (int a = 0; a < n; a++) {
            for (int i = 0; i < 3; i++) Na[a][i] = hd_make(q->N[i][a], 0, 0, 0);
            hd_cross(WNa[a], om, Na[a]);
        }
        /* velocity of the zero state: v_O + omega x r */
        hd r[3], wxr[3], v0[3];
        for (int i = 0; i < 3; i++) r[i] = hd_make(q->r[i], 0, 0, 0);
        hd_cross(wxr, om, r);
        for (int i = 0; i < 3; i++) v0[i] = hd_add(vo[i], wxr[i]);
        for (int a = 0; a < n; a++) {
            /* momenta: p_a = int N_a . v;  rates: p'_a = int (omega x N_a) . v + N_a . g */
            const hd pa0 = hd_dot(Na[a], v0), ra0 = hd_dot(WNa[a], v0);
            out->p0[a] += q->w * pa0.r;
            out->dp0[a] += q->w * pa0.e1;
            out->r0[a] += q->w * (ra0.r + q->N[0][a] * fs->g[0] + q->N[1][a] * fs->g[1] + q->N[2][a] * fs->g[2]);
            /* only Pd needs its time rate: the others in plain arithmetic */
            const double na[3] = {Na[a][0].r, Na[a][1].r, Na[a][2].r};
            const double wna[3] = {WNa[a][0].r, WNa[a][1].r, WNa[a][2].r};
            for (int b = 0; b < n; b++) {
                const double nb[3] = {Na[b][0].r, Na[b][1].r, Na[b][2].r};
                const double wnb[3] = {WNa[b][0].r, WNa[b][1].r, WNa[b][2].r};
                const double dwnb = na[0] * WNa[b][0].e1 + na[1] * WNa[b][1].e1 + na[2] * WNa[b][2].e1;
                out->Pv[a * n + b] += q->w * util_dot3(na, nb);
                out->Pd[a * n + b] += q->w * util_dot3(na, wnb);
                out->dPd[a * n + b] += q->w * dwnb;
                out->Rv[a * n + b] += q->w * util_dot3(wna, nb);
                out->Rd[a * n + b] += q->w * util_dot3(wna, wnb);
            }
        }
    }
    if (ops) {
        ops->elements++;
        ops->points += (long)np * (n + 1);  /* velocities omega x N_a and of the zero state */
        ops->derivatives += 2 * n + 1;      /* dv/dd', dv/dd per coordinate; one time pass */
        ops->flops += (double)np * (n * (KD_HD_CROSS_FLOPS + 2 * KD_HD_DOT_FLOPS + 12.0) + KD_HD_CROSS_FLOPS +
                                    (double)n * n * (5 * 5 + 10.0));
    }
}

void kd_hamilton_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                         kd_formalism_ops* ops) {
    kd_canonical_eqs h;
    kd_hamilton_canonical(p, at, fs, &h, ops);
    const int n = h.n, nn = n * n;
    out->n = n;
    for (int i = 0; i < nn; i++) {
        out->m[i] = h.Pv[i];
        out->c[i] = h.Pd[i] - h.Rv[i];
        out->k[i] = h.dPd[i] - h.Rd[i];
    }
    for (int a = 0; a < n; a++) out->q[a] = h.r0[a] - h.dp0[a];
    if (ops) ops->flops += 3.0 * nn + n;
}
