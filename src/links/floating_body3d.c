/* The floating-frame equations of one spatial body (kedyn/ffr3d.h; theory.md sec. 17): the body
 * invariants summed once from the element inertia invariants (kedyn/element.h), and per
 * evaluation the mass block M(q), the quadratic-velocity, gravity and elastic forces, the
 * energies and momenta. No quadrature and no allocation per evaluation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floating3d_internal.h"
#include "kedyn/element.h"
#include "kedyn/smech.h"

static void cross(const double a[3], const double b[3], double c[3]) {
    const double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    c[0] = x, c[1] = y, c[2] = z;
}

/* G(p) (3 x 4, theory.md sec. 11 S1): omega_body = 2 G p' */
static void Gmat(const double p[4], double G[3][4]) {
    const double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
    const double g[3][4] = {{-e1, e0, e3, -e2}, {-e2, -e3, e0, e1}, {-e3, e2, -e1, e0}};
    memcpy(G, g, sizeof(g));
}

kd_status f3_body_init_beam(f3_body* b, const kd_ffr3d_beam* beam, kd_error* err) {
    const int ne = beam->elements, nn = ne + 1;
    const double Le = beam->length / ne;
    const kd_element_kind kind = {beam->theory, KD_INTERP_CUBIC, 0};
    kd_element_consts c;
    memset(&c, 0, sizeof(c));
    c.E = beam->E, c.G = beam->G, c.rho = beam->rho, c.A = beam->A, c.Iy = beam->Iy, c.Iz = beam->Iz, c.J = beam->J;
    c.kappa_y = c.kappa_z = 5.0 / 6.0;
    kd_element_props* p = malloc(sizeof(*p));
    if (!p) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (kd_element_props_init(p, kind, &c, Le) || p->ndof != 12) {
        kd_element_props_free(p), free(p);
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "unsupported beam element");
    }
    b->elastic = 1;
    b->beam = *beam;
    memcpy(b->g0, p->g_k[0], sizeof(b->g0));
    b->kind = kind, b->ec = c, b->Le = Le;
    b->nodes = nn;
    /* F2: the frame is clamped at node 1; the other nodes' six DOFs are the elastic coordinates */
    const int nf = 6 * ne;
    b->nf = nf, b->size = KD_FFR3D_POSE + nf;
    b->node_coord = malloc(sizeof(int) * 6 * (size_t)nn);
    const size_t nf2 = (size_t)nf * nf;
    b->SN = calloc(3 * (size_t)nf, sizeof(double));
    b->X = calloc(9 * (size_t)nf, sizeof(double));
    b->Mij = calloc(9 * nf2, sizeof(double));
    b->Mff = calloc(nf2, sizeof(double));
    b->K = calloc(nf2, sizeof(double));
    if (!b->node_coord || !b->SN || !b->X || !b->Mij || !b->Mff || !b->K) {
        kd_element_props_free(p), free(p);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    for (int k = 0; k < 6 * nn; k++) b->node_coord[k] = k < 6 ? -1 : k - 6;
    /* F1: sums of the element invariants, the element origin r0 = (X_e, 0, 0):
     *   int rho u0_k S_i = x_ik + r0_k s_i,  int rho S_i^T S_j = m_ij */
    for (int e = 0; e < ne; e++) {
        const double Xe = e * Le;
        const int* map = b->node_coord + 6 * e;   /* the element's 12 DOFs: nodes e, e + 1 */
        for (int a = 0; a < 12; a++) {
            const int A = map[a];
            if (A < 0) continue;
            for (int i = 0; i < 3; i++) {
                b->SN[(size_t)i * nf + A] += p->s_i[i][a];
                for (int k = 0; k < 3; k++)
                    b->X[(size_t)(3 * k + i) * nf + A] += p->x_ik[i][k][a] + (k == 0 ? Xe * p->s_i[i][a] : 0.0);
            }
            for (int bb = 0; bb < 12; bb++) {
                const int B = map[bb];
                if (B < 0) continue;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) b->Mij[(size_t)(3 * i + j) * nf2 + (size_t)A * nf + B] += p->m_ij[i][j][a * 12 + bb];
                b->K[(size_t)A * nf + B] += p->k[a * 12 + bb];
            }
        }
    }
    for (int i = 0; i < 3; i++)
        for (size_t k = 0; k < nf2; k++) b->Mff[k] += b->Mij[(size_t)(4 * i) * nf2 + k];
    /* rigid invariants in closed form (centroidal principal section axes):
     * m = rho A L, S_t0 = (rho A L^2 / 2, 0, 0), int rho u0 u0^T = diag(rho A L^3 / 3, rho Iz L, rho Iy L) */
    const double L = beam->length, rA = beam->rho * beam->A;
    b->m = rA * L;
    memset(b->St0, 0, sizeof(b->St0));
    memset(b->P0, 0, sizeof(b->P0));
    b->St0[0] = rA * L * L / 2;
    b->P0[0] = rA * L * L * L / 3, b->P0[4] = beam->rho * beam->Iz * L, b->P0[8] = beam->rho * beam->Iy * L;
    b->creg = 4.0 * 2.0 * (b->P0[0] + b->P0[4] + b->P0[8]) / 3.0;   /* 4 tr(I_theta) / 3, tr I = 2 tr P */
    kd_element_props_free(p), free(p);
    return KD_OK;
}

void f3_body_init_rigid(f3_body* b, double mass, const double J[9]) {
    b->elastic = 0;
    b->nodes = 0, b->nf = 0, b->size = KD_FFR3D_POSE;
    b->m = mass;
    memset(b->St0, 0, sizeof(b->St0));
    /* I_theta = tr(P) I - P = J  <=>  P = tr(J) I / 2 - J */
    const double tr = J[0] + J[4] + J[8];
    for (int k = 0; k < 9; k++) b->P0[k] = (k % 4 == 0 ? tr / 2 : 0.0) - J[k];
    b->creg = 4.0 * tr / 3.0;
}

void f3_body_free(f3_body* b) {
    free(b->node_coord), free(b->SN), free(b->X), free(b->Mij), free(b->Mff), free(b->K);
    free(b->T), free(b->full_coord), free(b->zfull), free(b->Pm), free(b->sw), free(b->node_x);
    f3_shell_geo_free(b->sgeo);
}

/* F3: the state-dependent invariants at q_f = z:
 *   S_t = S_t0 + S_N z,  Y_ki = int rho ubar_k S_i = X_ki + z^T m_ki,
 *   P_ki = int rho ubar_k ubar_i = P0_ki + Y_ki.z + X_ik.z,  I_theta = tr(P) I - P,
 *   m_thetaf = int rho ubar~ S: rows (Y_yz - Y_zy, Y_zx - Y_xz, Y_xy - Y_yx).
 * Y (9 nf) and mtf (3 nf) in scratch. */
typedef struct f3_state {
    double St[3], P[9], I[9];
    double *Y, *mtf;
} f3_state;

static void body_state(const f3_body* b, const double* z, double* scratch, f3_state* s) {
    const int nf = b->nf;
    const size_t nf2 = (size_t)nf * nf;
    s->Y = scratch, s->mtf = scratch + 9 * (size_t)nf;
    memcpy(s->St, b->St0, sizeof(s->St));
    memcpy(s->P, b->P0, sizeof(s->P));
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < nf; a++) s->St[i] += b->SN[(size_t)i * nf + a] * z[a];
    for (int ki = 0; ki < 9; ki++) {
        double* y = s->Y + (size_t)ki * nf;
        const double* x = b->X + (size_t)ki * nf;
        const double* M = b->Mij + (size_t)ki * nf2;
        for (int a = 0; a < nf; a++) y[a] = x[a];
        for (int bb = 0; bb < nf; bb++) {
            const double zb = z[bb];
            if (zb == 0.0) continue;
            const double* row = M + (size_t)bb * nf;
            for (int a = 0; a < nf; a++) y[a] += zb * row[a];
        }
    }
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) {
            const double *y = s->Y + (size_t)(3 * k + i) * nf, *x = b->X + (size_t)(3 * i + k) * nf;
            double v = 0;
            for (int a = 0; a < nf; a++) v += (y[a] + x[a]) * z[a];
            s->P[3 * k + i] += v;
        }
    const double tr = s->P[0] + s->P[4] + s->P[8];
    for (int k = 0; k < 9; k++) s->I[k] = (k % 4 == 0 ? tr : 0.0) - s->P[k];
    for (int a = 0; a < nf; a++) {
#define YY(k, i) s->Y[(size_t)(3 * (k) + (i)) * nf + a]
        s->mtf[a] = YY(1, 2) - YY(2, 1);
        s->mtf[nf + a] = YY(2, 0) - YY(0, 2);
        s->mtf[2 * nf + a] = YY(0, 1) - YY(1, 0);
#undef YY
    }
}

void f3_body_mass(const f3_body* b, const double* q, double* M, double* scratch) {
    const int nf = b->nf, d = b->size;
    const double* p = q + 3;
    double A[9], G[3][4], Lm[3][4];
    kd_rot_from_quat(p, A);
    Gmat(p, G);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) Lm[i][k] = 2 * G[i][k];
    f3_state s;
    body_state(b, q + KD_FFR3D_POSE, scratch, &s);
    memset(M, 0, sizeof(double) * (size_t)d * d);
#define MM(i, j) M[(i) + (size_t)d * (j)]
    /* F4: M_RR = m I, M_Rtheta = -A S_t~, M_thetatheta = I_theta, M_Rf = A S_N, M_thetaf = m_thetaf,
     * M_ff = sum_i m_ii; the rotation columns carried to p by omega = L p', L = 2 G(p) */
    for (int i = 0; i < 3; i++) MM(i, i) = b->m;
    const double St_[9] = {0, -s.St[2], s.St[1], s.St[2], 0, -s.St[0], -s.St[1], s.St[0], 0};
    double MRt[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = 0;
            for (int k = 0; k < 3; k++) v -= A[3 * i + k] * St_[3 * k + j];
            MRt[3 * i + j] = v;
        }
    double IL[3][4];
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 4; c++) {
            double v = 0, w = 0;
            for (int k = 0; k < 3; k++) v += MRt[3 * i + k] * Lm[k][c], w += s.I[3 * i + k] * Lm[k][c];
            MM(i, 3 + c) = MM(3 + c, i) = v;
            IL[i][c] = w;
        }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double v = b->creg * p[r] * p[c];
            for (int k = 0; k < 3; k++) v += Lm[k][r] * IL[k][c];
            MM(3 + r, 3 + c) = v;
        }
    for (int a = 0; a < nf; a++) {
        for (int i = 0; i < 3; i++) {
            double v = 0;
            for (int k = 0; k < 3; k++) v += A[3 * i + k] * b->SN[(size_t)k * nf + a];
            MM(i, 7 + a) = MM(7 + a, i) = v;
        }
        for (int r = 0; r < 4; r++) {
            double v = 0;
            for (int k = 0; k < 3; k++) v += Lm[k][r] * s.mtf[(size_t)k * nf + a];
            MM(3 + r, 7 + a) = MM(7 + a, 3 + r) = v;
        }
        for (int c = 0; c < nf; c++) MM(7 + a, 7 + c) = b->Mff[(size_t)a * nf + c];
    }
#undef MM
}

/* F9: the geometric part of the elastic force of the axial force, Q_f -= dN_e (e_u1' - e_u1) + N_e g0 q_e
 * per element (eps_e = (u2 - u1)/h + q_e.g0 q_e / (2h), N_e = EA eps_e, dN_e = N_e - EA (u2 - u1)/h),
 * and its energy sum_e EA h (eps_e^2 - eps_lin^2) / 2 into *U when U is not NULL. F11, F12: a
 * reduced link (q_f = T x, its force T^T Q_f) relaxes the part of the slopes' stretch that its
 * basis has no axial field for: the energy sum_e EA h (eps_lin,e s_e + (P s)_e^2 / 2)
 * (s_e = q_e.g0 q_e / (2h), P the projector onto the basis' axial strain fields), so
 * N_e = EA (eps_lin,e + (P s)_e) and dN_e = EA s_e. */
static void geometric_force(const f3_body* b, const double* zr, double* Qr, double* U) {
    const int ne = b->nodes - 1, mean = b->T != NULL;
    const double EA = b->ec.E * b->ec.A, h = b->Le;
    const double* z = f3_body_expand(b, zr);
    double* Qf = Qr && mean ? b->zfull + b->nfull : Qr;
    if (Qr && mean) memset(Qf, 0, sizeof(double) * (size_t)b->nfull);
    double u = 0;
    for (int pass = mean ? 0 : 1; pass < 2; pass++) {
        for (int e = 0; e < ne; e++) {
            const int* map = F3_FULL_COORD(b) + 6 * e;
            double qe[12], gq[12], s2 = 0;
            for (int k = 0; k < 12; k++) qe[k] = map[k] >= 0 ? z[map[k]] : 0.0;
            for (int i = 0; i < 12; i++) {
                double x = 0;
                for (int j = 0; j < 12; j++) x += b->g0[12 * i + j] * qe[j];
                gq[i] = x, s2 += qe[i] * x;
            }
            const double se = 0.5 * s2 / h;
            if (pass == 0) {   /* the slope strains */
                b->sw[e] = se;
                continue;
            }
            const double elin = (qe[6] - qe[0]) / h, ps = mean ? b->sw[ne + e] : se;
            const double N = EA * (elin + ps), dN = EA * se;
            if (U) u += mean ? EA * h * (elin * se + 0.5 * ps * ps) : 0.5 * EA * h * ((elin + se) * (elin + se) - elin * elin);
            if (!Qf) continue;
            if (map[0] >= 0) Qf[map[0]] += dN;
            if (map[6] >= 0) Qf[map[6]] -= dN;
            for (int i = 0; i < 12; i++)
                if (map[i] >= 0) Qf[map[i]] -= N * gq[i];
        }
        for (int e = 0; e < ne && pass == 0; e++) {   /* F12: P s */
            double x = 0;
            for (int f = 0; f < ne; f++) x += b->Pm[(size_t)e * ne + f] * b->sw[f];
            b->sw[ne + e] = x;
        }
    }
    if (U) *U = u;
    if (Qr && mean)
        for (int i = 0; i < b->nfull; i++) {
            const double* Ti = b->T + (size_t)i * b->nf;
            for (int a = 0; a < b->nf; a++) Qr[a] += Ti[a] * Qf[i];
        }
}

void f3_body_force(const f3_body* b, const double* q, const double* qd, const double g[3], double* Q,
                   double* scratch) {
    const int nf = b->nf;
    const size_t nf2 = (size_t)nf * nf;
    const double *p = q + 3, *pd = qd + 3, *z = q + KD_FFR3D_POSE, *v = qd + KD_FFR3D_POSE;
    double A[9], G[3][4];
    kd_rot_from_quat(p, A);
    Gmat(p, G);
    double w[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) w[i] += 2 * G[i][k] * pd[k];
    f3_state s;
    body_state(b, z, scratch, &s);
    double gl[3];
    for (int i = 0; i < 3; i++) gl[i] = A[i] * g[0] + A[3 + i] * g[1] + A[6 + i] * g[2];
    /* F5: Q_R = -A [w x (w x S_t) + 2 w x (S_N q_f')] + m g */
    double SNv[3] = {0, 0, 0}, t1[3], t2[3], loc[3];
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < nf; a++) SNv[i] += b->SN[(size_t)i * nf + a] * v[a];
    cross(w, s.St, t1);
    cross(w, t1, t2);
    cross(w, SNv, t1);
    for (int i = 0; i < 3; i++) loc[i] = -(t2[i] + 2 * t1[i]);
    for (int i = 0; i < 3; i++) Q[i] = A[3 * i] * loc[0] + A[3 * i + 1] * loc[1] + A[3 * i + 2] * loc[2] + b->m * g[i];
    /* Q_theta = -[w x I_theta w + 2 (w tr Z - Z^T w)] + S_t x A^T g,  Z_kr = Y_kr . q_f' */
    double Z[9];
    for (int k = 0; k < 9; k++) {
        const double* y = s.Y + (size_t)k * nf;
        double x = 0;
        for (int a = 0; a < nf; a++) x += y[a] * v[a];
        Z[k] = x;
    }
    double Iw[3], Qt[3];
    for (int i = 0; i < 3; i++) Iw[i] = s.I[3 * i] * w[0] + s.I[3 * i + 1] * w[1] + s.I[3 * i + 2] * w[2];
    cross(w, Iw, t1);
    cross(s.St, gl, t2);
    const double trZ = Z[0] + Z[4] + Z[8];
    for (int r = 0; r < 3; r++) {
        const double ZTw = Z[r] * w[0] + Z[3 + r] * w[1] + Z[6 + r] * w[2];
        Qt[r] = -(t1[r] + 2 * (w[r] * trZ - ZTw)) + t2[r];
    }
    /* Q_p = L^T Q_theta - c p (p'.p') (theory.md sec. 11, S7) */
    const double pp = pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3];
    for (int c = 0; c < 4; c++) Q[3 + c] = 2 * (G[0][c] * Qt[0] + G[1][c] * Qt[1] + G[2][c] * Qt[2]) - b->creg * p[c] * pp;
    if (!nf) return;
    /* Q_f = -sum_ij (W W)_ij Y_ji^T - 2 sum_ij W_ij m_ij q_f' + S_N^T A^T g - K q_f,  W = w~ */
    const double W[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
    double W2[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) W2[3 * i + j] = W[3 * i] * W[j] + W[3 * i + 1] * W[3 + j] + W[3 * i + 2] * W[6 + j];
    double* Qf = Q + KD_FFR3D_POSE;
    for (int a = 0; a < nf; a++) {
        double x = 0;
        for (int i = 0; i < 3; i++) x += b->SN[(size_t)i * nf + a] * gl[i];
        const double* Kr = b->K + (size_t)a * nf;
        for (int c = 0; c < nf; c++) x -= Kr[c] * z[c];
        Qf[a] = x;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double* y = s.Y + (size_t)(3 * j + i) * nf;
            if (W2[3 * i + j] != 0.0)
                for (int a = 0; a < nf; a++) Qf[a] -= W2[3 * i + j] * y[a];
            if (W[3 * i + j] == 0.0) continue;
            const double* M = b->Mij + (size_t)(3 * i + j) * nf2;
            for (int a = 0; a < nf; a++) {
                const double* Mr = M + (size_t)a * nf;
                double x = 0;
                for (int c = 0; c < nf; c++) x += Mr[c] * v[c];
                Qf[a] -= 2 * W[3 * i + j] * x;
            }
        }
    if (b->beam.geometric) geometric_force(b, z, Qf, NULL);
    if (b->sgeo) f3_shell_geometric_force(b, z, Qf, NULL);   /* SL8 */
}

/* T = (m R'.R' + 2 R'.A (w x S_t + S_N q_f') + w.I_theta w + 2 w.m_thetaf q_f' + q_f'.M_ff q_f') / 2 */
double f3_body_kinetic(const f3_body* b, const double* q, const double* qd, double* scratch) {
    const int nf = b->nf;
    const double *p = q + 3, *pd = qd + 3, *v = qd + KD_FFR3D_POSE;
    double A[9], G[3][4];
    kd_rot_from_quat(p, A);
    Gmat(p, G);
    double w[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) w[i] += 2 * G[i][k] * pd[k];
    f3_state s;
    body_state(b, q + KD_FFR3D_POSE, scratch, &s);
    double loc[3], mv[3] = {0, 0, 0};
    cross(w, s.St, loc);
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < nf; a++) loc[i] += b->SN[(size_t)i * nf + a] * v[a], mv[i] += s.mtf[(size_t)i * nf + a] * v[a];
    double T = 0;
    for (int i = 0; i < 3; i++) {
        T += 0.5 * b->m * qd[i] * qd[i];
        T += qd[i] * (A[3 * i] * loc[0] + A[3 * i + 1] * loc[1] + A[3 * i + 2] * loc[2]);
        T += 0.5 * w[i] * (s.I[3 * i] * w[0] + s.I[3 * i + 1] * w[1] + s.I[3 * i + 2] * w[2]) + w[i] * mv[i];
    }
    for (int a = 0; a < nf; a++) {
        double x = 0;
        for (int c = 0; c < nf; c++) x += b->Mff[(size_t)a * nf + c] * v[c];
        T += 0.5 * v[a] * x;
    }
    return T;
}

double f3_body_gravity_potential(const f3_body* b, const double* q, const double g[3]) {
    const int nf = b->nf;
    double St[3] = {b->St0[0], b->St0[1], b->St0[2]}, AS[3];
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < nf; a++) St[i] += b->SN[(size_t)i * nf + a] * q[KD_FFR3D_POSE + a];
    double A[9];
    kd_rot_from_quat(q + 3, A);
    for (int i = 0; i < 3; i++) AS[i] = A[3 * i] * St[0] + A[3 * i + 1] * St[1] + A[3 * i + 2] * St[2];
    return -(g[0] * (b->m * q[0] + AS[0]) + g[1] * (b->m * q[1] + AS[1]) + g[2] * (b->m * q[2] + AS[2]));
}

double f3_body_strain(const f3_body* b, const double* q) {
    const int nf = b->nf;
    const double* z = q + KD_FFR3D_POSE;
    double U = 0;
    for (int a = 0; a < nf; a++)
        for (int c = 0; c < nf; c++) U += 0.5 * z[a] * b->K[(size_t)a * nf + c] * z[c];
    if (b->elastic && b->beam.geometric) {
        double Ug;
        geometric_force(b, z, NULL, &Ug);
        U += Ug;
    }
    if (b->sgeo) {   /* SL8 */
        double Ug;
        f3_shell_geometric_force(b, z, NULL, &Ug);
        U += Ug;
    }
    return U;
}

/* p = m R' + A (w x S_t + S_N q_f'),  L = R x p + A [S_t x A^T R' + I_theta w + m_thetaf q_f'] */
void f3_body_momentum(const f3_body* b, const double* q, const double* qd, double pl[3], double L[3],
                      double* scratch) {
    const int nf = b->nf;
    const double *p = q + 3, *pd = qd + 3, *v = qd + KD_FFR3D_POSE;
    double A[9], G[3][4];
    kd_rot_from_quat(p, A);
    Gmat(p, G);
    double w[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) w[i] += 2 * G[i][k] * pd[k];
    f3_state s;
    body_state(b, q + KD_FFR3D_POSE, scratch, &s);
    double loc[3], Rl[3], ang[3], t[3];
    cross(w, s.St, loc);
    for (int i = 0; i < 3; i++) Rl[i] = A[i] * qd[0] + A[3 + i] * qd[1] + A[6 + i] * qd[2];
    cross(s.St, Rl, ang);
    for (int i = 0; i < 3; i++) {
        ang[i] += s.I[3 * i] * w[0] + s.I[3 * i + 1] * w[1] + s.I[3 * i + 2] * w[2];
        for (int a = 0; a < nf; a++) loc[i] += b->SN[(size_t)i * nf + a] * v[a], ang[i] += s.mtf[(size_t)i * nf + a] * v[a];
    }
    for (int i = 0; i < 3; i++) {
        pl[i] = b->m * qd[i] + A[3 * i] * loc[0] + A[3 * i + 1] * loc[1] + A[3 * i + 2] * loc[2];
        t[i] = A[3 * i] * ang[0] + A[3 * i + 1] * ang[1] + A[3 * i + 2] * ang[2];
    }
    cross(q, pl, L);
    for (int i = 0; i < 3; i++) L[i] += t[i];
}

/* N = EA u', My = EIy ry', Mz = EIz rz' at the element ends (inner nodes: the mean of the two
 * elements), sigma = |N|/A + |My| c_z/Iy + |Mz| c_y/Iz (theory.md sec. 12, S12.4). */
void f3_body_section_forces(const f3_body* b, const double* q, double c_y, double c_z, double* out) {
    const int nn = b->nodes;
    memset(out, 0, sizeof(double) * 4 * (size_t)nn);
    if (!b->elastic || b->shell) return;
    const double* z = f3_body_expand(b, q + KD_FFR3D_POSE);
    const int ne = nn - 1, red = b->T && b->beam.geometric;
    for (int e = 0; e < ne && red; e++) {   /* F12: a reduced link's slope strains s_e, then P s */
        double s2 = 0;
        for (int i = 0; i < 12; i++) {
            const int ci = F3_FULL_COORD(b)[6 * e + i];
            for (int j = 0; j < 12 && ci >= 0; j++) {
                const int cj = F3_FULL_COORD(b)[6 * e + j];
                if (cj >= 0) s2 += z[ci] * b->g0[12 * i + j] * z[cj];
            }
        }
        b->sw[e] = 0.5 * s2 / b->Le;
    }
    for (int e = 0; e < ne && red; e++) {
        double x = 0;
        for (int f = 0; f < ne; f++) x += b->Pm[(size_t)e * ne + f] * b->sw[f];
        b->sw[ne + e] = x;
    }
    for (int e = 0; e < nn - 1; e++) {
        double de[12];
        for (int a = 0; a < 12; a++) {
            const int c = F3_FULL_COORD(b)[6 * e + a];
            de[a] = c >= 0 ? z[c] : 0.0;
        }
        double s2 = 0;   /* F9: the slopes' part of the mean axial strain */
        for (int i = 0; i < 12 && b->beam.geometric && !b->T; i++)
            for (int j = 0; j < 12; j++) s2 += de[i] * b->g0[12 * i + j] * de[j];
        for (int end = 0; end < 2; end++) {
            double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
            kd_element_shape(b->kind, &b->ec, b->Le, (double)end, N, dN);
            double du = 0, dry = 0, drz = 0;
            for (int a = 0; a < 12; a++) du += dN[KD_F_U][a] * de[a], dry += dN[KD_F_TY][a] * de[a], drz += dN[KD_F_TZ][a] * de[a];
            const int node = e + end;
            const double w = node > 0 && node < nn - 1 ? 0.5 : 1.0;
            out[4 * node] += w * b->ec.E * b->ec.A * (du + (red ? b->sw[ne + e] : 0.5 * s2 / b->Le));
            out[4 * node + 1] += w * b->ec.E * b->ec.Iy * dry;
            out[4 * node + 2] += w * b->ec.E * b->ec.Iz * drz;
        }
    }
    for (int n = 0; n < nn; n++)
        out[4 * n + 3] = c_y > 0 || c_z > 0 ? fabs(out[4 * n]) / b->ec.A + fabs(out[4 * n + 1]) * c_z / b->ec.Iy +
                                                  fabs(out[4 * n + 2]) * c_y / b->ec.Iz
                                            : 0.0;
}
