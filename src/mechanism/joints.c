/* The planar joint equations (theory.md sec. 6): Phi, the analytic Jacobian and gamma of every
 * joint type from the states of its two body points (kedyn/body.h), for the rigid mechanism
 * (src/mechanism/constraints.c) and the floating-frame system (src/links/floating_system.c).
 *
 * Notation: point I (the joint's first) and J; P = r + a its position (r the frame origin, a the
 * arm A (s + u)), d = P_J - P_I, d' = P_J' - P_I', d2 = d'' with q'' = 0 = g_I - g_J (g: the
 * points' velocity-squared terms). perp(v) = (-v_y, v_x). A direction e = A(angle_I) e_loc is
 * fixed in I's frame (and turns with a node's rotation rz): e' = wa_I perp(e), e'' = -wa_I^2 e
 * with q'' = 0. gamma = -(d2 Phi/dt2 with q'' = 0) = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt.
 *
 * The operations keep the order of the rigid mechanism's original formulas, so that rigid points
 * (u = u' = 0, vr = 0) give the same numbers bit for bit.
 */
#include <math.h>
#include <string.h>

#include "joints.h"

int joint_rows(joint_type t) {
    switch (t) {
    case JOINT_REVOLUTE: return 2;
    case JOINT_PRISMATIC: return 2;
    case JOINT_FIXED: return 3;
    case JOINT_DISTANCE: return 1;
    case JOINT_ROLLING: return 2;
    case JOINT_POINT_ON_LINE: return 1;
    case JOINT_ANGLE: return 1;
    case JOINT_SLIDE: return 1;
    case JOINT_TYPES: break;
    }
    return 0;
}

static double dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1]; }

/* d = P_J - P_I */
static void rel_position(const kd_mpoint_state* pi, const kd_mpoint_state* pj, double d[2]) {
    d[0] = pj->r[0] + pj->a[0] - pi->r[0] - pi->a[0];
    d[1] = pj->r[1] + pj->a[1] - pi->r[1] - pi->a[1];
}

/* d' = P_J' - P_I' and d2 = d'' (q'' = 0) */
static void rel_motion(const kd_mpoint_state* pi, const kd_mpoint_state* pj, double dd[2], double d2[2]) {
    for (int c = 0; c < 2; c++) {
        dd[c] = pj->v[c] + pj->w * pj->pa[c] + pj->vr[c] - pi->v[c] - pi->w * pi->pa[c] - pi->vr[c];
        d2[c] = -pj->g[c] + pi->g[c];
    }
}

/* Position-row Jacobian entries of point P for the global direction e, times sign (+1, -1):
 * e . dP/dq per slot. The rz slot is left to the caller. */
static void point_row(const kd_mpoint_state* P, const double* e, int neg, double* jl) {
    if (neg) {
        jl[KD_SLOT_X] = -e[0], jl[KD_SLOT_Y] = -e[1];
        jl[KD_SLOT_U] = -dot(e, P->du), jl[KD_SLOT_V] = -dot(e, P->dv);
    } else {
        jl[KD_SLOT_X] = e[0], jl[KD_SLOT_Y] = e[1];
        jl[KD_SLOT_U] = dot(e, P->du), jl[KD_SLOT_V] = dot(e, P->dv);
    }
    jl[KD_SLOT_RZ] = 0.0;
}

/* One row e . d - c - c1 with e = A(angle_I) e_loc: value, local Jacobian, gamma (without the
 * law's second derivative). */
static void axis_row(const kd_mpoint_state* pi, const kd_mpoint_state* pj, const double* e_loc, double c, double c1,
                     double* phi, double* jl, double* gam) {
    const double cs = cos(pi->angle), sn = sin(pi->angle);
    const double e[2] = {cs * e_loc[0] - sn * e_loc[1], sn * e_loc[0] + cs * e_loc[1]};
    const double pe[2] = {-e[1], e[0]};
    double d[2];
    rel_position(pi, pj, d);
    if (phi) *phi = (dot(e, d) - c) - c1;
    if (jl) {
        double* ji = jl;
        double* jj = jl + KD_POINT_SLOTS;
        point_row(pi, e, 1, ji);
        point_row(pj, e, 0, jj);
        ji[KD_SLOT_THETA] = dot(pe, d) - dot(e, pi->pa);
        jj[KD_SLOT_THETA] = dot(e, pj->pa);
        if (pi->elastic) ji[KD_SLOT_RZ] = dot(pe, d);  /* e turns with the node */
    }
    if (gam) {
        /* d2/dt2 (e.d) = e''.d + 2 e'.d' + e.d'', e' = wa_i perp(e), e'' = -wa_i^2 e */
        double dd[2], d2[2];
        rel_motion(pi, pj, dd, d2);
        *gam = -(-pi->wa * pi->wa * dot(e, d) + 2.0 * pi->wa * dot(pe, dd) + dot(e, d2));
    }
}

/* Relative angle angle_J - angle_I - c - c1 (linear in q: gamma = 0). */
static void angle_row(const kd_mpoint_state* pi, const kd_mpoint_state* pj, double c, double c1, double* phi,
                      double* jl, double* gam) {
    (void)pi, (void)pj;
    if (phi) *phi = (pj->angle - pi->angle - c) - c1;
    if (jl) {
        memset(jl, 0, JOINT_SLOTS * sizeof(double));
        jl[KD_SLOT_THETA] = -1.0, jl[KD_SLOT_RZ] = -1.0;
        jl[KD_POINT_SLOTS + KD_SLOT_THETA] = 1.0, jl[KD_POINT_SLOTS + KD_SLOT_RZ] = 1.0;
    }
    if (gam) *gam = 0.0;
}

/* P_I - P_J = 0 */
static void revolute_rows(const kd_mpoint_state* pi, const kd_mpoint_state* pj, double* phi, double* jl, double* gam) {
    for (int c = 0; c < 2; c++) {
        if (phi) phi[c] = pi->r[c] + pi->a[c] - pj->r[c] - pj->a[c];
        if (gam) gam[c] = pi->g[c] - pj->g[c];
    }
    if (jl) {
        /* row c: e_c . (dP_I/dq) - e_c . (dP_J/dq), e_0 = (1, 0), e_1 = (0, 1) */
        for (int c = 0; c < 2; c++) {
            double* ji = jl + JOINT_SLOTS * c;
            double* jj = ji + KD_POINT_SLOTS;
            ji[KD_SLOT_X] = c == 0 ? 1.0 : 0.0, ji[KD_SLOT_Y] = c == 0 ? 0.0 : 1.0, ji[KD_SLOT_THETA] = pi->pa[c];
            jj[KD_SLOT_X] = c == 0 ? -1.0 : 0.0, jj[KD_SLOT_Y] = c == 0 ? 0.0 : -1.0, jj[KD_SLOT_THETA] = -pj->pa[c];
            ji[KD_SLOT_U] = pi->du[c], ji[KD_SLOT_V] = pi->dv[c], ji[KD_SLOT_RZ] = 0.0;
            jj[KD_SLOT_U] = -pj->du[c], jj[KD_SLOT_V] = -pj->dv[c], jj[KD_SLOT_RZ] = 0.0;
        }
    }
}

#define ROW(p, r) ((p) ? (p) + (r) : NULL)
#define JROW(r) (jl ? jl + JOINT_SLOTS * (r) : NULL)

void joint_eval(const joint_def* j, const kd_mpoint_state* pi, const kd_mpoint_state* pj, double c, double c1,
                double d2c, double* phi, double* jl, double* gam) {
    switch (j->type) {
    case JOINT_ANGLE:
        angle_row(pi, pj, c, c1, phi, jl, gam);
        if (gam) *gam += d2c;
        break;
    case JOINT_SLIDE:
        axis_row(pi, pj, j->axis, c, c1, phi, jl, gam);
        if (gam) *gam += d2c;
        break;
    case JOINT_FIXED:
        /* the relative angle is fixed, and the points coincide as in a revolute joint */
        angle_row(pi, pj, j->ref, 0.0, ROW(phi, 2), JROW(2), ROW(gam, 2));
        /* fall through */
    case JOINT_REVOLUTE: revolute_rows(pi, pj, phi, jl, gam); break;
    case JOINT_PRISMATIC: {
        /* the normal offset of P_J from the axis line is zero; the relative angle is fixed */
        const double n_loc[2] = {-j->axis[1], j->axis[0]};
        axis_row(pi, pj, n_loc, 0.0, 0.0, ROW(phi, 0), JROW(0), ROW(gam, 0));
        angle_row(pi, pj, j->ref, 0.0, ROW(phi, 1), JROW(1), ROW(gam, 1));
        break;
    }
    case JOINT_POINT_ON_LINE: {
        const double n_loc[2] = {-j->axis[1], j->axis[0]};
        axis_row(pi, pj, n_loc, 0.0, 0.0, phi, jl, gam);
        break;
    }
    case JOINT_DISTANCE: {
        /* (d.d - L^2) / (2 L): the multiplier is the force along the link */
        const double L = j->length;
        double d[2];
        rel_position(pi, pj, d);
        if (phi) phi[0] = (dot(d, d) - L * L) / (2.0 * L);
        if (jl) {
            const double e[2] = {d[0] / L, d[1] / L};
            double* ji = jl;
            double* jj = jl + KD_POINT_SLOTS;
            point_row(pi, e, 1, ji);
            point_row(pj, e, 0, jj);
            ji[KD_SLOT_X] = -d[0] / L, ji[KD_SLOT_Y] = -d[1] / L, ji[KD_SLOT_THETA] = -dot(d, pi->pa) / L;
            jj[KD_SLOT_X] = d[0] / L, jj[KD_SLOT_Y] = d[1] / L, jj[KD_SLOT_THETA] = dot(d, pj->pa) / L;
            if (pi->elastic) ji[KD_SLOT_U] = -dot(d, pi->du) / L, ji[KD_SLOT_V] = -dot(d, pi->dv) / L;
            if (pj->elastic) jj[KD_SLOT_U] = dot(d, pj->du) / L, jj[KD_SLOT_V] = dot(d, pj->dv) / L;
        }
        if (gam) {
            double dd[2], d2[2];
            rel_motion(pi, pj, dd, d2);
            gam[0] = -(dot(dd, dd) + dot(d, d2)) / L;
        }
        break;
    }
    case JOINT_ROLLING: {
        /* centre of the disc at signed distance R from the line, and the arc rolled equal to R
         * times the relative rotation: u.d + R (angle_J - angle_I) = const */
        const double R = j->radius;
        const double n_loc[2] = {-j->axis[1], j->axis[0]};
        axis_row(pi, pj, n_loc, R, 0.0, ROW(phi, 0), JROW(0), ROW(gam, 0));
        axis_row(pi, pj, j->axis, j->ref, 0.0, ROW(phi, 1), JROW(1), ROW(gam, 1));
        if (phi) phi[1] += R * (pj->angle - pi->angle);
        if (jl) {
            double* r1 = jl + JOINT_SLOTS;
            r1[KD_SLOT_THETA] -= R, r1[KD_POINT_SLOTS + KD_SLOT_THETA] += R;
            r1[KD_SLOT_RZ] -= R, r1[KD_POINT_SLOTS + KD_SLOT_RZ] += R;
        }
        break;
    }
    case JOINT_TYPES: break;
    }
}

#undef ROW
#undef JROW

unsigned joint_row_slots(joint_type t, int row, int side) {
    const unsigned pos = (1u << KD_SLOT_X) | (1u << KD_SLOT_Y) | (1u << KD_SLOT_THETA) | (1u << KD_SLOT_U) |
                         (1u << KD_SLOT_V);
    const unsigned ang = (1u << KD_SLOT_THETA) | (1u << KD_SLOT_RZ);
    switch (t) {
    case JOINT_REVOLUTE:
    case JOINT_DISTANCE: return pos;
    case JOINT_FIXED: return row < 2 ? pos : ang;
    case JOINT_ANGLE: return ang;
    case JOINT_PRISMATIC: return row == 0 ? (side == 0 ? pos | ang : pos) : ang;
    case JOINT_POINT_ON_LINE:
    case JOINT_SLIDE: return side == 0 ? pos | ang : pos;
    case JOINT_ROLLING: return pos | ang;
    case JOINT_TYPES: break;
    }
    return 0;
}

int joint_pattern_row(const kd_mbody* bodies, const kd_mpoint p[2], const unsigned mask[2], int* col, int* slot) {
    int n = 0;
    for (int side = 0; side < 2; side++) {
        int pc[KD_POINT_SLOTS];
        kd_mpoint_columns(bodies, &p[side], pc);
        for (int k = 0; k < KD_POINT_SLOTS; k++) {
            if (pc[k] < 0 || !(mask[side] & (1u << k))) continue;
            /* insertion by column, stable: I's entries stay first on a tie */
            int i = n++;
            for (; i > 0 && col[i - 1] > pc[k]; i--) col[i] = col[i - 1], slot[i] = slot[i - 1];
            col[i] = pc[k], slot[i] = KD_POINT_SLOTS * side + k;
        }
    }
    return n;
}

void joint_scatter(const int* rowptr, const int* slot, int row0, int nrow, const double* jl, double* jac) {
    for (int r = 0; r < nrow; r++)
        for (int e = rowptr[row0 + r]; e < rowptr[row0 + r + 1]; e++) jac[e] = jl[JOINT_SLOTS * r + slot[e]];
}
