/* Kane's route to the element equations (kedyn/formalism.h; theory.md
 * sec. 4): generalized speeds u = d', partial velocities dv_M/dd'_a = R N_a
 * (local components: the column N_a at the point), and
 *     F*_a + F_a = 0,   F*_a = -int (dv/dd'_a)^T a_M dm,   F_a = int (dv/dd'_a)^T g dm
 * with the point acceleration (theory.md sec. 2, local components)
 *     a_M = a_O + eps x (r + N d) + omega x (omega x (r + N d)) + 2 omega x N d' + N d''.
 * No energy and no differentiation of an energy: the accelerations of the
 * quadrature points are evaluated for the unit states d'' = e_b, d' = e_b,
 * d = e_b and the zero state, and projected on the partial velocities:
 *     m_ab = int N_a . a(d''=e_b) dm,  c_ab = int N_a . a(d'=e_b) dm,
 *     k_ab = int N_a . a(d=e_b) dm,    q_a = int N_a . (g - a(0)) dm. */
#include <string.h>

#include "points.h"

/* Point acceleration for displacement u, its rate ud and acceleration udd. */
enum { ACCEL_FLOPS = 3 + 3 * 5 + 3 + 3 * 5 + 3 + 3 * 5 + 3 + 9 };
static void point_acceleration(double a[3], const kd_frame_state* fs, const double r[3], const double u[3],
                               const double ud[3], const double udd[3]) {
    double p[3], exp_[3], wxp[3], wxwxp[3], wxud[3];
    for (int i = 0; i < 3; i++) p[i] = r[i] + u[i];
    util_cross3(exp_, fs->eps, p);
    util_cross3(wxp, fs->omega, p);
    util_cross3(wxwxp, fs->omega, wxp);
    util_cross3(wxud, fs->omega, ud);
    for (int i = 0; i < 3; i++) a[i] = fs->a[i] + exp_[i] + wxwxp[i] + 2.0 * wxud[i] + udd[i];
}

void kd_kane_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                     kd_formalism_ops* ops) {
    qpoint pts[KD_QPOINTS_MAX];
    const int np = formalism_points(p, at, pts), n = p->ndof;
    const double zero[3] = {0, 0, 0}, rzero[3] = {0, 0, 0};
    memset(out, 0, sizeof(*out));
    out->n = n;
    for (int k = 0; k < np; k++) {
        const qpoint* q = &pts[k];
        /* partial velocities of the point: the columns of N */
        double V[KD_ELEM_DOF_MAX][3];
        for (int a = 0; a < n; a++) qpoint_column(q, a, V[a]);
        /* accelerations of the unit states (a(d = e_b) without the frame's
         * own acceleration: it belongs to the zero state) */
        double a0[3];
        point_acceleration(a0, fs, q->r, zero, zero, zero);
        kd_frame_state rel = *fs;
        rel.a[0] = rel.a[1] = rel.a[2] = 0.0;
        for (int b = 0; b < n; b++) {
            double add[3], ad[3], av[3];
            point_acceleration(add, &rel, rzero, zero, zero, V[b]);
            point_acceleration(av, &rel, rzero, zero, V[b], zero);
            point_acceleration(ad, &rel, rzero, V[b], zero, zero);
            for (int a = 0; a < n; a++) {
                out->m[a * n + b] += q->w * util_dot3(V[a], add);
                out->c[a * n + b] += q->w * util_dot3(V[a], av);
                out->k[a * n + b] += q->w * util_dot3(V[a], ad);
            }
        }
        for (int a = 0; a < n; a++) out->q[a] += q->w * (util_dot3(V[a], fs->g) - util_dot3(V[a], a0));
    }
    if (ops) {
        ops->elements++;
        ops->points += (long)np * (3 * n + 1);
        ops->derivatives += n;  /* one partial velocity per generalized speed */
        ops->flops += (double)np * ((3.0 * n + 1.0) * ACCEL_FLOPS + 3.0 * n * n * 7.0 + n * 13.0);
    }
}
