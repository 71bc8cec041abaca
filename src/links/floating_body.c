/* The floating-frame equations of one planar body (kedyn/ffr.h; theory.md sec. 6, two-way
 * coupling): the body invariants summed once from the element inertia invariants
 * (kedyn/element.h), and per evaluation the mass block M(q_f), the quadratic-velocity, gravity
 * and elastic forces, the energies and momenta. No quadrature and no allocation per evaluation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floating_internal.h"

/* A(theta) x and J x, J = [0 -1; 1 0] */
static void rot(double c, double s, const double* x, double* y) {
    const double a = c * x[0] - s * x[1], b = s * x[0] + c * x[1];
    y[0] = a, y[1] = b;
}

kd_status ffr_body_init_beam(ffr_body* b, const kd_ffr_beam* beam, kd_error* err) {
    const int ne = beam->elements, nn = ne + 1;
    const double Le = beam->length / ne;
    kd_element_kind kind = {beam->theory, KD_INTERP_CUBIC, 1};
    kd_element_consts c;
    memset(&c, 0, sizeof(c));
    c.E = beam->E, c.G = beam->E / 2.6, c.rho = beam->rho, c.A = beam->A, c.Iz = beam->Iz, c.Iy = beam->Iz;
    c.J = 2 * beam->Iz, c.kappa_y = c.kappa_z = 5.0 / 6.0;
    kd_element_props* p = malloc(sizeof(*p));
    if (!p) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (kd_element_props_init(p, kind, &c, Le)) {
        kd_element_props_free(p), free(p);
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "unsupported beam element");
    }
    b->elastic = 1;
    b->beam = *beam;
    b->nodes = nn;
    b->node_coord = malloc(sizeof(int) * 3 * nn);
    if (!b->node_coord) {
        kd_element_props_free(p), free(p);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* reference conditions of the frame: which nodal DOFs are not coordinates */
    int nf = 0;
    for (int k = 0; k < nn; k++)
        for (int d = 0; d < 3; d++) {
            int removed = 0;
            if (beam->frame == KD_FFR_ROOT) removed = k == 0;
            else removed = (k == 0 && d < 2) || (k == nn - 1 && d == 1);
            b->node_coord[3 * k + d] = removed ? -1 : nf++;
        }
    b->nf = nf;
    b->size = 3 + nf;
    const size_t nf2 = (size_t)nf * nf;
    b->SN = calloc(2 * (size_t)nf + 1, sizeof(double));
    b->a0 = calloc(nf + 1, sizeof(double));
    b->b0 = calloc(nf + 1, sizeof(double));
    b->Mff = calloc(nf2 + 1, sizeof(double));
    b->G = calloc(nf2 + 1, sizeof(double));
    b->K = calloc(nf2 + 1, sizeof(double));
    b->emap = malloc(sizeof(int) * 6 * (size_t)ne);
    b->geometric = beam->geometric;
    if (!b->SN || !b->a0 || !b->b0 || !b->Mff || !b->G || !b->K || !b->emap) {
        kd_element_props_free(p), free(p);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* sums of the element invariants; x measured from each element's first node at X_e:
     *   a0 = int rho N^T u0 = X_e s_x + x_xx + x_yy,  b0 = int rho (u0x N_y - u0y N_x) = X_e s_y + x_yx - x_xy */
    const int nd = p->ndof;   /* 6: u v rz at two nodes */
    for (int e = 0; e < ne; e++) {
        const double Xe = e * Le;
        int map[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nd; a++) map[a] = b->node_coord[3 * (e + a / 3) + a % 3];
        memcpy(b->emap + 6 * e, map, sizeof(int) * 6);
        for (int a = 0; a < nd; a++) {
            const int A = map[a];
            if (A < 0) continue;
            b->SN[A] += p->s_i[0][a];
            b->SN[nf + A] += p->s_i[1][a];
            b->a0[A] += Xe * p->s_i[0][a] + p->x_ik[0][0][a] + p->x_ik[1][1][a];
            b->b0[A] += Xe * p->s_i[1][a] + p->x_ik[1][0][a] - p->x_ik[0][1][a];
            for (int bb = 0; bb < nd; bb++) {
                const int B = map[bb];
                if (B < 0) continue;
                const int ab = a * nd + bb;
                b->Mff[(size_t)A * nf + B] += p->m_ij[0][0][ab] + p->m_ij[1][1][ab];
                b->G[(size_t)A * nf + B] += p->m_ij[0][1][ab] - p->m_ij[1][0][ab];
                b->K[(size_t)A * nf + B] += p->k[ab];
            }
        }
    }
    memcpy(b->g0, p->g_k[0], sizeof(double) * 36);
    b->EA = beam->E * beam->A, b->EI = beam->E * beam->Iz, b->Le = Le;
    for (int end = 0; end < 2; end++) {  /* through the family: a planar beam's strain row 1 is theta_z' */
        kd_element_point pt;
        const double xi[3] = {(double)end, 0.0, 0.0};
        p->family->eval(p, xi, &pt);
        for (int a = 0; a < 6; a++) b->curv[end][a] = pt.B[1][a];
    }
    /* rigid invariants in closed form: m, S0 = int rho u0, I0 = int rho |u0|^2 (with the section's
     * own polar part rho Iz L, the rigid rotation of the sections) */
    const double L = beam->length, rA = beam->rho * beam->A;
    b->m = rA * L;
    b->S0[0] = rA * L * L / 2, b->S0[1] = 0;
    b->I0 = rA * L * L * L / 3 + beam->rho * beam->Iz * L;
    kd_element_props_free(p), free(p);
    return KD_OK;
}

void ffr_body_init_rigid(ffr_body* b, double mass, double J_G) {
    b->elastic = 0;
    b->nodes = 0;
    b->nf = 0;
    b->size = 3;
    b->m = mass;
    b->S0[0] = b->S0[1] = 0;
    b->I0 = J_G;
}

void ffr_body_free(ffr_body* b) {
    free(b->node_coord), free(b->SN), free(b->a0), free(b->b0), free(b->Mff), free(b->G), free(b->K), free(b->emap);
}

/* S = S0 + S_N qf, a = a0 + Mff qf, bv = b0 + G^T qf, Iuu = I0 + 2 a0.qf + qf^T Mff qf */
static void body_moments(const ffr_body* b, const double* qf, double S[2], double* a, double* bv, double* Iuu) {
    const int nf = b->nf;
    S[0] = b->S0[0], S[1] = b->S0[1];
    double I = b->I0;
    for (int A = 0; A < nf; A++) {
        S[0] += b->SN[A] * qf[A];
        S[1] += b->SN[nf + A] * qf[A];
        double m = 0, g = 0;
        for (int B = 0; B < nf; B++) {
            m += b->Mff[(size_t)A * nf + B] * qf[B];
            g += b->G[(size_t)B * nf + A] * qf[B];
        }
        a[A] = b->a0[A] + m;
        bv[A] = b->b0[A] + g;
        I += (2 * b->a0[A] + m) * qf[A];
    }
    *Iuu = I;
}

void ffr_body_mass(const ffr_body* b, const double* q, double* M, double* scratch) {
    const int nf = b->nf, d = b->size;
    const double c = cos(q[2]), s = sin(q[2]);
    double* a = scratch;
    double* bv = scratch + nf;
    double S[2], I;
    body_moments(b, q + 3, S, a, bv, &I);
    memset(M, 0, sizeof(double) * d * d);
#define MM(i, j) M[(i) + (size_t)d * (j)]
    MM(0, 0) = MM(1, 1) = b->m;
    /* M_Rtheta = A J S */
    const double JS[2] = {-S[1], S[0]};
    double AJS[2];
    rot(c, s, JS, AJS);
    MM(0, 2) = MM(2, 0) = AJS[0];
    MM(1, 2) = MM(2, 1) = AJS[1];
    MM(2, 2) = I;
    for (int A = 0; A < nf; A++) {
        /* M_Rf = A S_N, M_thetaf = b */
        const double sn[2] = {b->SN[A], b->SN[nf + A]};
        double as[2];
        rot(c, s, sn, as);
        MM(0, 3 + A) = MM(3 + A, 0) = as[0];
        MM(1, 3 + A) = MM(3 + A, 1) = as[1];
        MM(2, 3 + A) = MM(3 + A, 2) = bv[A];
        for (int B = 0; B < nf; B++) MM(3 + A, 3 + B) = b->Mff[(size_t)A * nf + B];
    }
#undef MM
}

/* The geometric part of the elastic force, Q_f -= dN_e (e_u2 - e_u1) + N_e g0 q_e per element
 * (ffr.h), and its energy sum_e EA h (eps_e^2 - eps_lin^2) / 2 into *U when U is not NULL. */
static void geometric_force(const ffr_body* b, const double* qf, double* Qf, double* U) {
    const int ne = b->beam.elements;
    const double EA = b->EA, h = b->Le;
    double u = 0;
    for (int e = 0; e < ne; e++) {
        const int* map = b->emap + 6 * e;
        double qe[6], gq[6], s2 = 0;
        for (int k = 0; k < 6; k++) qe[k] = map[k] >= 0 ? qf[map[k]] : 0.0;
        for (int i = 0; i < 6; i++) {
            double x = 0;
            for (int j = 0; j < 6; j++) x += b->g0[6 * i + j] * qe[j];
            gq[i] = x, s2 += qe[i] * x;
        }
        const double elin = (qe[3] - qe[0]) / h, eps = elin + 0.5 * s2 / h;
        const double N = EA * eps, dN = N - EA * elin;
        if (U) u += 0.5 * EA * h * (eps * eps - elin * elin);
        if (!Qf) continue;
        if (map[0] >= 0) Qf[map[0]] += dN;
        if (map[3] >= 0) Qf[map[3]] -= dN;
        for (int i = 0; i < 6; i++)
            if (map[i] >= 0) Qf[map[i]] -= N * gq[i];
    }
    if (U) *U = u;
}

void ffr_body_force(const ffr_body* b, const double* q, const double* qd, const double g[2], double* Q,
                    double* scratch) {
    const int nf = b->nf;
    const double c = cos(q[2]), s = sin(q[2]), w = qd[2];
    const double* qf = q + 3;
    const double* vf = qd + 3;
    double* a = scratch;
    double* bv = scratch + nf;
    double S[2], I;
    body_moments(b, qf, S, a, bv, &I);
    /* S_N qf' and a.qf' */
    double SNv[2] = {0, 0}, av = 0;
    for (int A = 0; A < nf; A++) {
        SNv[0] += b->SN[A] * vf[A];
        SNv[1] += b->SN[nf + A] * vf[A];
        av += a[A] * vf[A];
    }
    /* Q_v,R = A (w^2 S - 2 w J S_N qf'); gravity m g */
    const double loc[2] = {w * w * S[0] + 2 * w * SNv[1], w * w * S[1] - 2 * w * SNv[0]};
    double glob[2];
    rot(c, s, loc, glob);
    Q[0] = glob[0] + b->m * g[0];
    Q[1] = glob[1] + b->m * g[1];
    /* Q_v,theta = -2 w a.qf'; gravity (A J S).g */
    const double JS[2] = {-S[1], S[0]};
    double AJS[2];
    rot(c, s, JS, AJS);
    Q[2] = -2 * w * av + AJS[0] * g[0] + AJS[1] * g[1];
    /* Q_f = w^2 a + 2 w G qf' + S_N^T A^T g - K qf */
    const double gl[2] = {c * g[0] + s * g[1], -s * g[0] + c * g[1]};   /* A^T g */
    for (int A = 0; A < nf; A++) {
        double gv = 0, kq = 0;
        for (int B = 0; B < nf; B++) {
            gv += b->G[(size_t)A * nf + B] * vf[B];
            kq += b->K[(size_t)A * nf + B] * qf[B];
        }
        Q[3 + A] = w * w * a[A] + 2 * w * gv + b->SN[A] * gl[0] + b->SN[nf + A] * gl[1] - kq;
    }
    if (b->geometric) geometric_force(b, qf, Q + 3, NULL);
}

double ffr_body_gravity_potential(const ffr_body* b, const double* q, const double g[2]) {
    const int nf = b->nf;
    double S[2] = {b->S0[0], b->S0[1]};
    for (int A = 0; A < nf; A++) S[0] += b->SN[A] * q[3 + A], S[1] += b->SN[nf + A] * q[3 + A];
    double AS[2];
    rot(cos(q[2]), sin(q[2]), S, AS);
    return -(g[0] * (b->m * q[0] + AS[0]) + g[1] * (b->m * q[1] + AS[1]));
}

double ffr_body_strain(const ffr_body* b, const double* q) {
    const int nf = b->nf;
    double U = 0;
    for (int A = 0; A < nf; A++)
        for (int B = 0; B < nf; B++) U += 0.5 * q[3 + A] * b->K[(size_t)A * nf + B] * q[3 + B];
    if (b->geometric) {
        double Ug;
        geometric_force(b, q + 3, NULL, &Ug);
        U += Ug;
    }
    return U;
}

/* p = m R' + A (w J S + S_N qf'),  L = R x p + (A S) x R' + w Iuu + b.qf'  (about the origin) */
void ffr_body_momentum(const ffr_body* b, const double* q, const double* qd, double p[2], double* L,
                       double* scratch) {
    const int nf = b->nf;
    const double c = cos(q[2]), s = sin(q[2]), w = qd[2];
    double* a = scratch;
    double* bv = scratch + nf;
    double S[2], I;
    body_moments(b, q + 3, S, a, bv, &I);
    double loc[2] = {-w * S[1], w * S[0]}, bq = 0;
    for (int A = 0; A < nf; A++) {
        loc[0] += b->SN[A] * qd[3 + A];
        loc[1] += b->SN[nf + A] * qd[3 + A];
        bq += bv[A] * qd[3 + A];
    }
    double gl[2], AS[2];
    rot(c, s, loc, gl);
    rot(c, s, S, AS);
    p[0] = b->m * qd[0] + gl[0];
    p[1] = b->m * qd[1] + gl[1];
    *L = q[0] * p[1] - q[1] * p[0] + AS[0] * qd[1] - AS[1] * qd[0] + w * I + bq;
}

void ffr_body_section_forces(const ffr_body* b, const double* q, double c, double* out) {
    const int nn = b->nodes, ne = b->beam.elements;
    memset(out, 0, sizeof(double) * 3 * (size_t)nn);
    if (!b->elastic) return;
    const double* qf = q + 3;
    for (int e = 0; e < ne; e++) {
        const int* map = b->emap + 6 * e;
        double qe[6], s2 = 0;
        for (int k = 0; k < 6; k++) qe[k] = map[k] >= 0 ? qf[map[k]] : 0.0;
        if (b->geometric)
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) s2 += qe[i] * b->g0[6 * i + j] * qe[j];
        /* the element's axial force (its mean strain, with the slopes when geometric) and end moments */
        const double N = b->EA * ((qe[3] - qe[0]) / b->Le + 0.5 * s2 / b->Le);
        for (int end = 0; end < 2; end++) {
            double k = 0;
            for (int a = 0; a < 6; a++) k += b->curv[end][a] * qe[a];
            const int node = e + end;
            const double w = (node == 0 || node == nn - 1) ? 1.0 : 0.5;
            out[3 * node] += w * N;
            out[3 * node + 1] += w * b->EI * k;
        }
    }
    for (int n = 0; n < nn; n++)
        out[3 * n + 2] = c > 0 ? fabs(out[3 * n]) / b->beam.A + fabs(out[3 * n + 1]) * c / b->beam.Iz : 0.0;
}
