/* The formalism routes on spatial rigid mechanisms (kedyn/smech_formalism.h; theory.md sec.
 * "Formalism routes on spatial mechanisms"). Newton-Euler and Maggi take the kd_smech view as it
 * is; Kane, Gibbs-Appell and Lagrange form their own inertia terms here from the bodies' masses
 * and inertia tensors, each from its own principle, and take only the applied forces
 * (kd_smech_applied) and the constraint kinematics (A, b of the partitioned solver; Phi_q, gamma)
 * from the mechanism. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hyperdual.h"
#include "kedyn/smech_formalism.h"

/* G(p) = [-e, -e~ + e0 I], E(p) = [-e, e~ + e0 I] (theory.md S1): w_body = 2 G p', w = 2 E p'. */
static void mat_G(const double* p, double G[3][4]) {
    const double g[3][4] = {{-p[1], p[0], p[3], -p[2]}, {-p[2], -p[3], p[0], p[1]}, {-p[3], p[2], -p[1], p[0]}};
    memcpy(G, g, sizeof(g));
}
static void mat_E(const double* p, double E[3][4]) {
    const double e[3][4] = {{-p[1], p[0], -p[3], p[2]}, {-p[2], p[3], p[0], -p[1]}, {-p[3], -p[2], p[1], p[0]}};
    memcpy(E, e, sizeof(e));
}
static void mul34(double M[3][4], const double* x, double y[3]) {
    for (int i = 0; i < 3; i++) y[i] = M[i][0] * x[0] + M[i][1] * x[1] + M[i][2] * x[2] + M[i][3] * x[3];
}
static double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double* a, const double* b, double* c) {
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}
static double norm_mass(const double* J) { return 4.0 * (J[0] + J[4] + J[8]) / 3.0; }   /* c of S7 */

/* ---- Kane ------------------------------------------------------------------------------------ */

/* Per body: resultant F (global) and moment n about the centre of mass (global) of the applied
 * generalised forces Qa of its coordinates: F = Q_r, n = E(p) Q_p / (2 p.p) (Q_p = 2 E^T n; a
 * point force's Q_p = (dA s/dp)^T F gives n = (A s) x F). */
static void body_applied(const double* Qa, int b, const double* q, double F[3], double n[3]) {
    const int o = KD_SPOSE * b;
    const double* p = q + o + 3;
    double E[3][4];
    mat_E(p, E);
    const double pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
    mul34(E, Qa + o + 3, n);
    for (int i = 0; i < 3; i++) F[i] = Qa[o + i], n[i] /= 2.0 * pp;
}

int kd_smech_kane_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                          const double* b, const double* Q, double* Mh, double* rh, double* flops) {
    (void)Q;   /* includes the quadratic-velocity forces of the Newton-Euler form: not used */
    const kd_smech* m = ctx;
    const int n = m->n;
    kd_smech_applied(m, t, q, qd, m->qa_work);
    for (int r = 0; r < f; r++) {
        rh[r] = 0;
        for (int s = 0; s <= r; s++) Mh[r + f * s] = 0;
    }
    for (int bd = 0; bd < m->nbody; bd++) {
        const int o = KD_SPOSE * bd;
        const double* p = q + o + 3;
        const double mass = m->mass[bd];
        double E[3][4], R[9], Jg[9], RJ[9];
        mat_E(p, E);
        kd_rot_from_quat(p, R);
        /* J_g = R J R^T (global inertia tensor) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) RJ[3 * i + j] = R[3 * i] * m->J[9 * bd + j] + R[3 * i + 1] * m->J[9 * bd + 3 + j] +
                                                       R[3 * i + 2] * m->J[9 * bd + 6 + j];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Jg[3 * i + j] = RJ[3 * i] * R[3 * j] + RJ[3 * i + 1] * R[3 * j + 1] + RJ[3 * i + 2] * R[3 * j + 2];
        double w[3], w2[3], alpha0[3], Jw[3], gyro[3], Ja0[3];
        mul34(E, qd + o + 3, w2);
        for (int i = 0; i < 3; i++) w[i] = 2.0 * w2[i];
        /* remainder angular acceleration alpha0 = 2 E(p) b_p (2 E(p') p' = 0) */
        mul34(E, b + o + 3, alpha0);
        for (int i = 0; i < 3; i++) alpha0[i] *= 2.0;
        for (int i = 0; i < 3; i++) Jw[i] = dot3(Jg + 3 * i, w), Ja0[i] = dot3(Jg + 3 * i, alpha0);
        cross3(w, Jw, gyro);   /* w x J_g w: Euler's gyroscopic moment */
        double Fa[3], na[3];
        body_applied(m->qa_work, bd, q, Fa, na);
        const double* a0 = b + o;
        for (int r = 0; r < f; r++) {
            const double* ar = A + (size_t)n * r + o;
            double wr[3];
            mul34(E, ar + 3, wr);
            for (int i = 0; i < 3; i++) wr[i] *= 2.0;   /* partial angular velocity dw/du_r */
            /* F_r + (u'-free part of F*_r) */
            rh[r] += dot3(Fa, ar) + dot3(na, wr) - mass * dot3(a0, ar) - dot3(Ja0, wr) - dot3(gyro, wr);
            double Jwr[3];
            for (int i = 0; i < 3; i++) Jwr[i] = dot3(Jg + 3 * i, wr);
            for (int s = 0; s <= r; s++) {
                const double* as = A + (size_t)n * s + o;
                double ws[3];
                mul34(E, as + 3, ws);
                Mh[r + f * s] += mass * dot3(ar, as) + 2.0 * dot3(Jwr, ws);
            }
        }
    }
    *flops += (double)m->nbody * (200.0 + f * (60.0 + 30.0 * (f + 1) / 2));
    return 0;
}


/* ---- Gibbs-Appell ---------------------------------------------------------------------------- */

/* S and P of all bodies with seed e1 on w''_r and e2 on w''_s, at w'' = 0: the body's
 * accelerations q'' = A w'' + b as hyper-dual numbers, alpha_b = 2 G(p) p'' in body axes. */
static void appell_energies(const kd_smech* m, const double* q, const double* qd, const double* A, const double* b,
                            const double* Qa, int r, int s, hd* S, hd* P) {
    const int n = m->n;
    *S = hd_make(0, 0, 0, 0), *P = hd_make(0, 0, 0, 0);
    for (int bd = 0; bd < m->nbody; bd++) {
        const int o = KD_SPOSE * bd;
        const double* J = m->J + 9 * bd;
        hd acc[KD_SPOSE];
        for (int c = 0; c < KD_SPOSE; c++)
            acc[c] = hd_make(b[o + c], A[o + c + (size_t)n * r], A[o + c + (size_t)n * s], 0);
        /* translation: 1/2 m |r''|^2; acceleration work of the applied generalised forces Q_a . q'' */
        *S = hd_add(*S, hd_scale(0.5 * m->mass[bd], hd_dot(acc, acc)));
        for (int c = 0; c < KD_SPOSE; c++) *P = hd_add(*P, hd_scale(Qa[o + c], acc[c]));
        /* rotation in body axes: w_b = 2 G(p) p' (real), alpha_b = 2 G(p) p'' */
        double G[3][4], wb[3], Jw[3], g[3];
        mat_G(q + o + 3, G);
        mul34(G, qd + o + 3, wb);
        for (int i = 0; i < 3; i++) wb[i] *= 2.0;
        for (int i = 0; i < 3; i++) Jw[i] = dot3(J + 3 * i, wb);
        cross3(wb, Jw, g);
        hd al[3], Jal[3];
        for (int i = 0; i < 3; i++) {
            al[i] = hd_make(0, 0, 0, 0);
            for (int k = 0; k < 4; k++) al[i] = hd_add(al[i], hd_scale(2.0 * G[i][k], acc[3 + k]));
        }
        for (int i = 0; i < 3; i++)
            Jal[i] = hd_add(hd_add(hd_scale(J[3 * i], al[0]), hd_scale(J[3 * i + 1], al[1])), hd_scale(J[3 * i + 2], al[2]));
        /* 1/2 alpha_b . J alpha_b + alpha_b . (w_b x J w_b) */
        *S = hd_add(*S, hd_scale(0.5, hd_dot(al, Jal)));
        for (int i = 0; i < 3; i++) *S = hd_add(*S, hd_scale(g[i], al[i]));
    }
}

int kd_smech_gibbs_appell_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                                  const double* b, const double* Q, double* Mh, double* rh, double* flops) {
    (void)Q;
    const kd_smech* m = ctx;
    kd_smech_applied(m, t, q, qd, m->qa_work);
    for (int r = 0; r < f; r++)
        for (int s = 0; s <= r; s++) {
            hd S, P;
            appell_energies(m, q, qd, A, b, m->qa_work, r, s, &S, &P);
            Mh[r + f * s] = S.e12;              /* d2S / dw''_r dw''_s */
            if (s == r) rh[r] = P.e1 - S.e1;    /* dP/dw''_r - dS/dw''_r at w'' = 0 */
        }
    *flops += (double)f * (f + 1) / 2 * m->nbody *
              (60.0 + 24 * KD_HD_SCALE_FLOPS + 30 * KD_HD_ADD_FLOPS + 2 * KD_HD_DOT_FLOPS + 12 * KD_HD_SCALE_FLOPS);
    return 0;
}

/* ---- Lagrange -------------------------------------------------------------------------------- */

/* T of one body, T = 1/2 m r'.r' + 2 p'^T G(p)^T J G(p) p' = 1/2 m r'.r' + 1/2 w_b . J w_b with
 * w_b = 2 G(p) p', in hyper-dual arithmetic of its 14 arguments x = (q_b, q'_b). */
static hd kinetic_hd(const double* J, double mass, const hd* x) {
    const hd* v = x + KD_SPOSE;
    const hd *p = x + 3, *pd = v + 3;
    hd T = hd_scale(0.5 * mass, hd_dot(v, v));
    /* G(p) p' rows: (-e1, e0, e3, -e2), (-e2, -e3, e0, e1), (-e3, e2, -e1, e0) */
    hd w[3];
    w[0] = hd_add(hd_sub(hd_mul(p[1], pd[0]), hd_mul(p[0], pd[1])), hd_sub(hd_mul(p[2], pd[3]), hd_mul(p[3], pd[2])));
    w[1] = hd_add(hd_sub(hd_mul(p[2], pd[0]), hd_mul(p[0], pd[2])), hd_sub(hd_mul(p[3], pd[1]), hd_mul(p[1], pd[3])));
    w[2] = hd_add(hd_sub(hd_mul(p[3], pd[0]), hd_mul(p[0], pd[3])), hd_sub(hd_mul(p[1], pd[2]), hd_mul(p[2], pd[1])));
    for (int i = 0; i < 3; i++) w[i] = hd_scale(-2.0, w[i]);
    hd Jw[3];
    for (int i = 0; i < 3; i++)
        Jw[i] = hd_add(hd_add(hd_scale(J[3 * i], w[0]), hd_scale(J[3 * i + 1], w[1])), hd_scale(J[3 * i + 2], w[2]));
    return hd_add(T, hd_scale(0.5, hd_dot(w, Jw)));
}
enum { KINETIC_HD_FLOPS = 2 * KD_HD_DOT_FLOPS + 24 * KD_HD_MUL_FLOPS + 30 * KD_HD_ADD_FLOPS + 14 * KD_HD_SCALE_FLOPS };

void kd_smech_lagrange_terms(const kd_smech* m, int b, const double* q, const double* qd, double* ML, double* h) {
    const int o = KD_SPOSE * b;
    const double* J = m->J + 9 * b;
    hd x[2 * KD_SPOSE];
    /* M_L = d2T / dq'_i dq'_j */
    for (int i = 0; i < KD_SPOSE; i++)
        for (int j = 0; j <= i; j++) {
            for (int k = 0; k < KD_SPOSE; k++) {
                x[k] = hd_make(q[o + k], 0, 0, 0);
                x[KD_SPOSE + k] = hd_make(qd ? qd[o + k] : 0.0, k == i, k == j, 0);
            }
            ML[i + KD_SPOSE * j] = ML[j + KD_SPOSE * i] = kinetic_hd(J, m->mass[b], x).e12;
        }
    if (!qd || !h) return;
    for (int i = 0; i < KD_SPOSE; i++) {
        /* sum_j d2T/dq'_i dq_j q'_j: e1 on q'_i, e2 along q in the direction q' */
        for (int k = 0; k < KD_SPOSE; k++) {
            x[k] = hd_make(q[o + k], 0, qd[o + k], 0);
            x[KD_SPOSE + k] = hd_make(qd[o + k], k == i, 0, 0);
        }
        const double mixed = kinetic_hd(J, m->mass[b], x).e12;
        /* dT/dq_i */
        for (int k = 0; k < KD_SPOSE; k++) {
            x[k] = hd_make(q[o + k], k == i, 0, 0);
            x[KD_SPOSE + k] = hd_make(qd[o + k], 0, 0, 0);
        }
        h[i] = mixed - kinetic_hd(J, m->mass[b], x).e1;
    }
}

static int lagrange_mass(void* c, double t, const double* q, double* blocks) {
    (void)t;
    const kd_smech* m = c;
    for (int b = 0; b < m->nbody; b++) {
        double* B = blocks + (size_t)KD_SPOSE * KD_SPOSE * b;
        kd_smech_lagrange_terms(m, b, q, NULL, B, NULL);
        /* + c p p^T: positive definite, the accelerations unchanged (theory.md S7) */
        const double* p = q + KD_SPOSE * b + 3;
        const double cn = norm_mass(m->J + 9 * b);
        for (int k = 0; k < 4; k++)
            for (int l = 0; l < 4; l++) B[(3 + l) * KD_SPOSE + 3 + k] += cn * p[k] * p[l];
    }
    return 0;
}

static int lagrange_force(void* c, double t, const double* q, const double* qd, double* Q) {
    const kd_smech* m = c;
    kd_smech_applied(m, t, q, qd, Q);
    for (int b = 0; b < m->nbody; b++) {
        double ML[KD_SPOSE * KD_SPOSE], h[KD_SPOSE];
        kd_smech_lagrange_terms(m, b, q, qd, ML, h);
        const int o = KD_SPOSE * b;
        const double* p = q + o + 3;
        const double* pd = qd + o + 3;
        const double pdpd = pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3];
        const double cn = norm_mass(m->J + 9 * b);
        for (int k = 0; k < KD_SPOSE; k++) Q[o + k] -= h[k];
        for (int k = 0; k < 4; k++) Q[o + 3 + k] -= cn * p[k] * pdpd;
    }
    return 0;
}

void kd_smech_lagrange_cms(const kd_smech* m, kd_cms* cms) {
    kd_smech_cms(m, cms);
    cms->force = lagrange_force;
    cms->mass_blocks = lagrange_mass;
}

/* ---- options and single-state routes --------------------------------------------------------- */

void kd_smech_formalism_opts(kd_mech_formalism f, const kd_smech* m, kd_mbs_opts* o) {
    const int given = kd_mech_formalism_formulation(f, (int)o->formulation) >= 0 ? (int)o->formulation : -1;
    o->formulation = (kd_mbs_formulation)kd_mech_formalism_formulation(f, given);
    o->reduced = NULL, o->reduced_ctx = NULL;
    if (f == KD_MECH_KANE) o->reduced = kd_smech_kane_reduced, o->reduced_ctx = (void*)m;
    if (f == KD_MECH_GIBBS_APPELL && o->formulation == KD_MBS_MAGGI)
        o->reduced = kd_smech_gibbs_appell_reduced, o->reduced_ctx = (void*)m;
}

void kd_smech_formalism_cms(kd_mech_formalism f, const kd_smech* m, kd_cms* cms) {
    if (f == KD_MECH_LAGRANGE) kd_smech_lagrange_cms(m, cms);
    else kd_smech_cms(m, cms);
}

/* The rows to leave out at (t, q) (theory.md sec. 11.2):
 * with Z the left null space of Phi_q (z^T Phi_q = 0: the dependencies among the rows, from the
 * SVD), the rows where Z^T is largest, by QR with column pivoting of Z^T over the mechanism's rows
 * (drivers excluded): dropping them keeps the best-conditioned set of rows at (t, q), the
 * dependencies' coefficients there being farthest from zero. Returns their number (0: none), -1
 * when the redundancy is not among the mechanism's rows (an over-driven mechanism), -2 on error. */
static int redundant_rows(const kd_smech* m, double t, const double* q, int* rows, kd_error* err) {
    kd_smech_mobility mob;
    if (kd_smech_mobility_at(m, t, q, &mob, err)) return -2;
    const int nd = m->nc - mob.rank_driven;
    if (nd <= 0) return 0;
    if (nd > 64) return -1;
    const int n = m->n, nc = m->nc, nm = m->nc_mech;
    double* A = malloc(sizeof(double) * (size_t)nc * n);
    double* U = malloc(sizeof(double) * (size_t)nc * nc);
    double* S = malloc(sizeof(double) * (size_t)(nc + n));
    double* jac = malloc(sizeof(double) * (size_t)(m->jac_nnz + 1));
    double* Zt = malloc(sizeof(double) * (size_t)nd * nc);
    lapack_int* piv = calloc((size_t)nc, sizeof(lapack_int));
    double vt = 0;
    int got = -2;
    if (!A || !U || !S || !jac || !Zt || !piv) {
        kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    } else {
        kd_smech_jacobian(m, t, q, jac);
        kd_smech_jac_dense(m, jac, nc, A, nc);
        if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'N', nc, n, A, nc, S, U, nc, &vt, 1, S + nc) != 0) {
            kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: SVD of Phi_q failed", t);
        } else {
            /* Z: the last nd left singular vectors; Z^T (nd x nm) over the mechanism's rows */
            for (int k = 0; k < nd; k++)
                for (int r = 0; r < nm; r++) Zt[k + (size_t)nd * r] = U[r + (size_t)nc * (nc - nd + k)];
            double tmax = 0;
            for (int r = nm; r < nc; r++)   /* a dependency through a driver row: over-driven */
                for (int k = 0; k < nd; k++) tmax = fmax(tmax, fabs(U[r + (size_t)nc * (nc - nd + k)]));
            if (tmax > 1e-8 || LAPACKE_dgeqp3(LAPACK_COL_MAJOR, nd, nm, Zt, nd, piv, S) != 0) {
                got = -1;
            } else {
                for (int k = 0; k < nd; k++) rows[k] = piv[k] - 1;
                got = nd;
            }
        }
    }
    free(A), free(U), free(S), free(jac), free(Zt), free(piv);
    return got;
}

kd_status kd_smech_formalism_system(kd_mech_formalism f, const kd_smech* m, double t, const double* q, kd_cms* cms,
                                   kd_cms_rows** rows, kd_error* err) {
    *rows = NULL;
    kd_smech_formalism_cms(f, m, cms);
    int drop[64];
    const int nd = redundant_rows(m, t, q, drop, err);
    if (nd == -2) return err->status;
    return nd > 0 ? kd_cms_rows_new(cms, t, q, drop, nd, rows, cms, err) : KD_OK;
}

struct kd_smech_route {
    kd_mech_formalism f;
    const kd_smech* m;
    kd_cms cms;
    kd_mbs_opts opts;
    kd_mbs_stats stats;
    kd_mbs_evaluator* ev;         /* all but lagrange */
    kd_cms_rows* rows;            /* the view without the redundant rows, or NULL */
    /* lagrange: [M_L Phi_q^T; Phi_q 0] (N x N, N = n + nk) of the nk rows kept, right-hand side,
     * pivots, Jacobian (dense nc x n: phi), gamma */
    double *K, *rhs, *jac, *phi, *gam;
    int *ipiv, *keep, nk;
    long evals;
    double flops;
};

void kd_smech_route_free(kd_smech_route** rp) {
    kd_smech_route* r = *rp;
    if (!r) return;
    kd_mbs_evaluator_free(&r->ev);
    kd_cms_rows_free(&r->rows);
    free(r->K), free(r->rhs), free(r->jac), free(r->phi), free(r->gam), free(r->ipiv), free(r->keep);
    free(r);
    *rp = NULL;
}

kd_status kd_smech_route_new(kd_mech_formalism f, const kd_smech* m, double t0, const double* q0,
                             kd_smech_route** out, kd_error* err) {
    *out = NULL;
    if ((unsigned)f >= KD_MECH_FORMALISM_COUNT)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "unknown mechanism formalism");
    kd_smech_route* r = calloc(1, sizeof(*r));
    if (!r) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    r->f = f, r->m = m;
    kd_mbs_opts_default(&r->opts);
    kd_smech_formalism_opts(f, m, &r->opts);
    kd_status st = KD_OK;
    if (f == KD_MECH_LAGRANGE) {
        int drop[64];
        const int nd = redundant_rows(m, t0, q0, drop, err);
        if (nd == -2) st = err->status;
        const size_t N = (size_t)(m->n + m->nc);
        r->K = malloc(sizeof(double) * N * N);
        r->rhs = malloc(sizeof(double) * N);
        r->jac = malloc(sizeof(double) * (size_t)(m->jac_nnz + 1));
        r->phi = malloc(sizeof(double) * (size_t)(m->nc + 1) * (size_t)m->n);
        r->gam = malloc(sizeof(double) * (size_t)(m->nc + 1));
        r->ipiv = malloc(sizeof(int) * N);
        r->keep = malloc(sizeof(int) * (size_t)(m->nc + 1));
        if (!st && (!r->K || !r->rhs || !r->jac || !r->phi || !r->gam || !r->ipiv || !r->keep))
            st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        for (int i = 0; !st && i < m->nc; i++) {
            int dropped = 0;
            for (int k = 0; k < nd; k++) dropped |= drop[k] == i;
            if (!dropped) r->keep[r->nk++] = i;
        }
    } else {
        st = kd_smech_formalism_system(f, m, t0, q0, &r->cms, &r->rows, err);
        if (!st) st = kd_mbs_evaluator_new(&r->cms, &r->opts, t0, q0, &r->stats, &r->ev, err);
    }
    if (st) {
        kd_smech_route_free(&r);
        return st;
    }
    *out = r;
    return KD_OK;
}

kd_status kd_smech_route_eval(kd_smech_route* r, double t, const double* q, const double* qd, double* qdd,
                              kd_error* err) {
    r->evals++;
    if (r->ev) return kd_mbs_evaluate(r->ev, t, q, qd, qdd, NULL, err);
    /* Lagrange's equations of the first kind with the singular M_L = d2T/dq'2 as it is:
     * [M_L Phi_q^T; Phi_q 0] [q''; lambda] = [Q_a - h; gamma], Phi_q's independent rows */
    const kd_smech* m = r->m;
    const int n = m->n, nc = r->nk, N = n + nc;
    memset(r->K, 0, sizeof(double) * (size_t)N * N);
    kd_smech_applied(m, t, q, qd, r->rhs);
    for (int b = 0; b < m->nbody; b++) {
        double ML[KD_SPOSE * KD_SPOSE], h[KD_SPOSE];
        kd_smech_lagrange_terms(m, b, q, qd, ML, h);
        const int o = KD_SPOSE * b;
        for (int i = 0; i < KD_SPOSE; i++) {
            r->rhs[o + i] -= h[i];
            for (int j = 0; j < KD_SPOSE; j++) r->K[(o + i) + (size_t)N * (o + j)] = ML[i + KD_SPOSE * j];
        }
    }
    kd_smech_jacobian(m, t, q, r->jac);
    kd_smech_jac_dense(m, r->jac, m->nc, r->phi, m->nc);
    kd_smech_gamma(m, t, q, qd, r->gam);
    for (int i = 0; i < nc; i++) {   /* the kept rows of Phi_q in rows n .. N - 1, and transposed */
        for (int j = 0; j < n; j++)
            r->K[(n + i) + (size_t)N * j] = r->K[j + (size_t)N * (n + i)] = r->phi[r->keep[i] + (size_t)m->nc * j];
        r->rhs[n + i] = r->gam[r->keep[i]];
    }
    if (LAPACKE_dgesv(LAPACK_COL_MAJOR, N, 1, r->K, N, r->ipiv, r->rhs, N) != 0)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "t = %g: Lagrange's augmented matrix [M_L Phi_q^T; Phi_q 0] is singular", t);
    memcpy(qdd, r->rhs, sizeof(double) * (size_t)n);
    r->flops += 2.0 / 3.0 * N * N * N + 2.0 * N * N + (double)m->nbody * 42 * KINETIC_HD_FLOPS;
    return KD_OK;
}

void kd_smech_route_work(const kd_smech_route* r, long* evaluations, double* flops) {
    if (evaluations) *evaluations = r->evals;
    if (flops) *flops = r->ev ? r->stats.flops : r->flops;
}
