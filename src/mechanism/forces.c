/* Applied forces of a mechanism: gravity, spring-dampers, smoothed Coulomb
 * friction at joints, torques and point forces with time laws; the kinetic
 * and potential energies. Body coordinates are those of the centres of mass,
 * so planar rigid bodies have no quadratic-velocity force (kedyn/cms.h). */
#include <math.h>
#include <string.h>

#include "mechanism_internal.h"

/* Add a force F (global) applied at the global point P to moving body b:
 * Q_b += (F, (P - r_b) x F). */
static void add_point_force(const kd_mech* m, int b, const double* q, const double P[2], const double F[2], double* Q) {
    (void)m;
    if (b < 0) return;
    const double lx = P[0] - q[3 * b], ly = P[1] - q[3 * b + 1];
    Q[3 * b] += F[0];
    Q[3 * b + 1] += F[1];
    Q[3 * b + 2] += lx * F[1] - ly * F[0];
}

/* Coulomb friction -F sgn(v), smoothed as -F tanh(v / v_s): continuous, so
 * that implicit integrators and Newton iterations see a differentiable
 * force; within |v| > 3 v_s it is within 0.5 % of the Coulomb value. */
static double friction(double F, double v, double vs) { return -F * tanh(v / vs); }

void kd_mech_force(const kd_mech* m, double t, const double* q, const double* qd, double* Q) {
    memset(Q, 0, sizeof(double) * (size_t)m->n);
    for (int b = 0; b < m->nbody; b++) {
        Q[3 * b] += m->mass[3 * b] * m->g[0];
        Q[3 * b + 1] += m->mass[3 * b + 1] * m->g[1];
    }
    for (int i = 0; i < m->nforce; i++) {
        const kd_mforce* f = &m->force[i];
        switch (f->type) {
        case KD_MFORCE_SPRING: {
            double P0[2], V0[2], P1[2], V1[2], F[2];
            kd_mech_point(m, f->body[0], f->s[0], q, qd, P0, V0);
            kd_mech_point(m, f->body[1], f->s[1], q, qd, P1, V1);
            const double d[2] = {P1[0] - P0[0], P1[1] - P0[1]}, dd[2] = {V1[0] - V0[0], V1[1] - V0[1]};
            if (f->length == 0.0) {
                /* zero free length: a linear vector spring, F_1 = -k d - c d' */
                F[0] = -f->k * d[0] - f->c * dd[0];
                F[1] = -f->k * d[1] - f->c * dd[1];
            } else {
                const double l = hypot(d[0], d[1]);
                if (!(l > 0)) break;  /* direction undefined: no force */
                const double e[2] = {d[0] / l, d[1] / l};
                const double tension = f->k * (l - f->length) + f->c * (e[0] * dd[0] + e[1] * dd[1]);
                F[0] = -tension * e[0], F[1] = -tension * e[1];
            }
            add_point_force(m, f->body[1], q, P1, F, Q);
            const double Fm[2] = {-F[0], -F[1]};
            add_point_force(m, f->body[0], q, P0, Fm, Q);
            break;
        }
        case KD_MFORCE_FRICTION: {
            const kd_mjoint* j = &m->joint[f->joint];
            const int bi = j->body[0], bj = j->body[1];
            const double wi = bi >= 0 ? qd[3 * bi + 2] : 0.0, wj = bj >= 0 ? qd[3 * bj + 2] : 0.0;
            if (j->type == KD_JOINT_REVOLUTE) {
                /* a torque opposing the relative rotation */
                const double T = friction(f->force, wj - wi, f->v_smooth);
                if (bj >= 0) Q[3 * bj + 2] += T;
                if (bi >= 0) Q[3 * bi + 2] -= T;
            } else {
                /* a force along the axis at P_j opposing the sliding speed d/dt (u . d) */
                double Pi[2], Vi[2], Pj[2], Vj[2];
                kd_mech_point(m, bi, j->s[0], q, qd, Pi, Vi);
                kd_mech_point(m, bj, j->s[1], q, qd, Pj, Vj);
                const double phi = bi >= 0 ? q[3 * bi + 2] : 0.0;
                const double u[2] = {cos(phi) * j->axis[0] - sin(phi) * j->axis[1],
                                     sin(phi) * j->axis[0] + cos(phi) * j->axis[1]};
                const double d[2] = {Pj[0] - Pi[0], Pj[1] - Pi[1]}, dd[2] = {Vj[0] - Vi[0], Vj[1] - Vi[1]};
                const double v = wi * (-u[1] * d[0] + u[0] * d[1]) + u[0] * dd[0] + u[1] * dd[1];
                const double fr = friction(f->force, v, f->v_smooth);
                const double F[2] = {fr * u[0], fr * u[1]}, Fm[2] = {-F[0], -F[1]};
                add_point_force(m, bj, q, Pj, F, Q);
                add_point_force(m, bi, q, Pj, Fm, Q);
            }
            break;
        }
        case KD_MFORCE_TORQUE: {
            double T, dT, d2T;
            kd_law_eval(&f->value, t, &T, &dT, &d2T);
            Q[3 * f->body[0] + 2] += T;
            break;
        }
        case KD_MFORCE_FORCE: {
            double F[2], d1, d2, P[2], V[2];
            kd_law_eval(&f->value, t, &F[0], &d1, &d2);
            kd_law_eval(&f->value_y, t, &F[1], &d1, &d2);
            kd_mech_point(m, f->body[0], f->s[0], q, NULL, P, V);
            add_point_force(m, f->body[0], q, P, F, Q);
            break;
        }
        }
    }
}

double kd_mech_kinetic(const kd_mech* m, const double* qd) {
    double T = 0.0;
    for (int i = 0; i < m->n; i++) T += 0.5 * m->mass[i] * qd[i] * qd[i];
    return T;
}

double kd_mech_potential(const kd_mech* m, const double* q) {
    double V = 0.0;
    for (int b = 0; b < m->nbody; b++) V -= m->mass[3 * b] * (m->g[0] * q[3 * b] + m->g[1] * q[3 * b + 1]);
    for (int i = 0; i < m->nforce; i++) {
        const kd_mforce* f = &m->force[i];
        if (f->type != KD_MFORCE_SPRING) continue;
        double P0[2], P1[2], v[2];
        kd_mech_point(m, f->body[0], f->s[0], q, NULL, P0, v);
        kd_mech_point(m, f->body[1], f->s[1], q, NULL, P1, v);
        const double l = hypot(P1[0] - P0[0], P1[1] - P0[1]);
        V += f->length == 0.0 ? 0.5 * f->k * l * l : 0.5 * f->k * (l - f->length) * (l - f->length);
    }
    return V;
}
