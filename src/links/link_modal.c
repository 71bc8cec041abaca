/* Modal reduction of a one-way link (src/links/link_ode.h; theory.md sec. 12.11).
 *
 * The link's equations M q'' + C(t) q' + K(t) q = f(t) in its moving frame, with the affine
 * parts of link_step.c (theory.md sec. 12.7)
 *     K(t) = K0 + sum_c p_c B_c,   C(t) = C0 + sum_k omega_k G_k,   f(t) = sum_c p_c F_c + f_nodal(t),
 * are projected once on a basis V (n x r) of the link at rest: its lowest constrained modes
 * (K0 phi = lambda M phi) and, with statics = 2, the static deflections K0^-1 b of the load
 * shapes b (a unit load at each DOF a joint loads, each inertia-load part F_c), made
 * M-orthonormal and K0-orthogonal by a Rayleigh-Ritz solve in their span; with statics = 1 the
 * truncated modes' quasi-static share G f(t), G = K0^-1 - V Lambda^-1 V^T, is added to the
 * physical state at the output instants instead. q = V eta gives the r equations
 *     eta'' + C_r(t) eta' + K_r(t) eta = V^T f(t),   C_r = V^T C V, K_r = V^T K V (V^T M V = I),
 * each part projected once (V^T B_c V, V^T F_c), so a step combines r x r parts and solves a
 * dense r x r system: O(r^2) per part instead of the band's entries and substitutions. The
 * physical state is V eta, formed only where a caller asks for it (the output instants). No
 * allocation in the steps. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "link_ode.h"

enum { NP = LINK_NPK + LINK_NPC };

struct link_modal {
    link_ode* lo;
    int n, r;
    double* V;                    /* (n x r) basis, column-major, V^T M V = I */
    double* MV;                   /* (n x r) M V: eta = (M V)^T x */
    double *K0, *C0;              /* (r x r) V^T K0 V, V^T C0 V, column-major */
    double* P;                    /* (np x r x r) the nonzero parts V^T B_c V */
    int np, pc[NP];               /* their parameters */
    double* F;                    /* (nf x r) the nonzero V^T F_c */
    int nf, fc[LINK_NPF];
    double p[NP];                 /* the parameters at t_p */
    double t_p;
    int have_p;
    double t_mat;                 /* the time Cr, Kr were combined at */
    int have_mat;
    kd_gband Mr;                  /* the reduced mass, the identity (kl = ku = r - 1) */
    double *Cr, *Kr, *S;          /* (r x r) at t_mat; the iteration matrix */
    double* tmp;                  /* (4 r + 4 r^2) for the frequencies */
    int* piv;                     /* (r) */
    /* the static correction at the output instants (statics = 1, sec. 12.11) */
    int mam;
    double* K0lu;                 /* (n x n) LU of K0 */
    lapack_int* ipiv;             /* (n) */
    double* lam;                  /* (r) the modes' eigenvalues, V^T K0 V = diag(lam) */
    double *fd, *g;               /* (3 n), (n) */
    double t_lo, t_hi;            /* the span of the integration (the differences of f stay in it) */
    const double* Fn[LINK_NPF];   /* the physical inertia-load parts (the step's) */
};

/* ---- dense helpers ------------------------------------------------------------------------- */

/* A (n x n, column-major) from band storage. */
static void band_dense(const kd_gband* b, double* A) {
    const int n = b->n, ld = b->kl + b->ku + 1;
    memset(A, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = j - b->ku > 0 ? j - b->ku : 0; i <= j + b->kl && i < n; i++)
            A[i + (size_t)j * n] = b->ab[(size_t)(b->ku + i - j) + (size_t)j * ld];
}

/* Y = A X: A (n x n), X (n x k). */
static void matmul(int n, int k, const double* A, const double* X, double* Y) {
    memset(Y, 0, sizeof(double) * (size_t)n * (size_t)k);
    for (int j = 0; j < k; j++)
        for (int l = 0; l < n; l++) {
            const double x = X[l + (size_t)j * n];
            if (x != 0.0)
                for (int i = 0; i < n; i++) Y[i + (size_t)j * n] += A[i + (size_t)l * n] * x;
        }
}

/* R = X^T Y: X, Y (n x k), R (k x k). */
static void gram(int n, int k, const double* X, const double* Y, double* R) {
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            double s = 0.0;
            for (int l = 0; l < n; l++) s += X[l + (size_t)i * n] * Y[l + (size_t)j * n];
            R[i + (size_t)j * k] = s;
        }
}

/* Solve A x = b in place (A r x r column-major, overwritten by its LU; partial pivoting).
 * 1 when A is singular. */
static int dense_solve(int r, double* A, int* piv, double* b) {
    for (int k = 0; k < r; k++) {
        int p = k;
        double mx = fabs(A[k + (size_t)k * r]);
        for (int i = k + 1; i < r; i++)
            if (fabs(A[i + (size_t)k * r]) > mx) mx = fabs(A[i + (size_t)k * r]), p = i;
        if (mx == 0.0) return 1;
        piv[k] = p;
        if (p != k) {
            for (int j = 0; j < r; j++) {
                const double s = A[k + (size_t)j * r];
                A[k + (size_t)j * r] = A[p + (size_t)j * r], A[p + (size_t)j * r] = s;
            }
            const double s = b[k];
            b[k] = b[p], b[p] = s;
        }
        const double inv = 1.0 / A[k + (size_t)k * r];
        double* ck = A + (size_t)k * r;
        for (int i = k + 1; i < r; i++) ck[i] *= inv;
        for (int j = k + 1; j < r; j++) {
            double* cj = A + (size_t)j * r;
            const double a = cj[k];
            if (a != 0.0)
                for (int i = k + 1; i < r; i++) cj[i] -= ck[i] * a;
        }
        for (int i = k + 1; i < r; i++) b[i] -= ck[i] * b[k];
    }
    for (int k = r - 1; k >= 0; k--) {
        double s = b[k];
        for (int j = k + 1; j < r; j++) s -= A[k + (size_t)j * r] * b[j];
        b[k] = s / A[k + (size_t)k * r];
    }
    return 0;
}

/* ---- the reduced system ------------------------------------------------------------------- */

static void params(link_modal* w, double t) {
    if (w->have_p && w->t_p == t) return;
    link_step_params(w->lo->step, t, w->p);
    w->t_p = t, w->have_p = 1;
}

/* Cr = C0_r + sum_k omega_k G_k,r and Kr = K0_r + sum_c p_c B_c,r at t (sec. 12.11). */
static void combine(link_modal* w, double t) {
    params(w, t);
    if (w->have_mat && w->t_mat == t) return;
    const size_t rr = (size_t)w->r * (size_t)w->r;
    memcpy(w->Kr, w->K0, sizeof(double) * rr);
    memcpy(w->Cr, w->C0, sizeof(double) * rr);
    for (int k = 0; k < w->np; k++) {
        const int c = w->pc[k];
        const double pk = w->p[c];
        if (pk == 0.0) continue;
        double* A = c < LINK_NPK ? w->Kr : w->Cr;
        const double* B = w->P + (size_t)k * rr;
        for (size_t i = 0; i < rr; i++) A[i] += pk * B[i];
    }
    w->t_mat = t, w->have_mat = 1;
}

static int modal_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    link_modal* w = ctx;
    combine(w, t);
    const int r = w->r, ld = 2 * r - 1;
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            C->ab[(size_t)(r - 1 + i - j) + (size_t)j * ld] = w->Cr[i + (size_t)j * r];
            K->ab[(size_t)(r - 1 + i - j) + (size_t)j * ld] = w->Kr[i + (size_t)j * r];
        }
    *changed = 1;
    return 0;
}

/* V^T f(t): the projected inertia-load parts and the nodal loads' rows of V. */
static int modal_force(void* ctx, double t, double* f) {
    link_modal* w = ctx;
    params(w, t);
    const int r = w->r, n = w->n;
    memset(f, 0, sizeof(double) * (size_t)r);
    for (int k = 0; k < w->nf; k++) {
        const double pk = w->p[w->fc[k]];
        if (pk == 0.0) continue;
        const double* F = w->F + (size_t)k * r;
        for (int i = 0; i < r; i++) f[i] += pk * F[i];
    }
    const kd_model* m = w->lo->model;
    for (int l = 0; l < m->nnodal; l++) {
        const int eq = m->nodal[l].eq;
        if (eq < 0) continue;
        double v, dv, d2v;
        kd_law_eval(&m->nodal[l].value, t, &v, &dv, &d2v);
        if (v != 0.0)
            for (int i = 0; i < r; i++) f[i] += v * w->V[eq + (size_t)i * n];
    }
    return 0;
}

/* The step (kd_ode2.step): S a = r - am a - C_r x - K_r y, S = cm I + cc C_r + ck K_r, by a
 * dense LU of S every step (r^3 / 3 operations). */
static int modal_step(void* ctx, double t, double cm, double cc, double ck, double am, const double* a,
                      const double* x, const double* y, double* rhs, int* factored) {
    link_modal* w = ctx;
    combine(w, t);
    const int r = w->r;
    const double *Cr = w->Cr, *Kr = w->Kr;
    double* S = w->S;
    for (int i = 0; i < r; i++) rhs[i] -= am * a[i];
    for (int j = 0; j < r; j++) {
        const double xj = x[j], yj = y[j];
        const double *cj = Cr + (size_t)j * r, *kj = Kr + (size_t)j * r;
        double* sj = S + (size_t)j * r;
        for (int i = 0; i < r; i++) {
            rhs[i] -= cj[i] * xj + kj[i] * yj;
            sj[i] = cc * cj[i] + ck * kj[i];
        }
        sj[j] += cm;
    }
    ++*factored;
    return dense_solve(r, S, w->piv, rhs);
}

kd_ode2 link_modal_ode2(link_modal* w) {
    kd_ode2 ode;
    memset(&ode, 0, sizeof(ode));
    ode.n = w->r, ode.kl = ode.ku = w->r - 1;
    ode.M = &w->Mr;
    ode.ctx = w;
    ode.matrices = modal_matrices;
    ode.force = modal_force;
    ode.step = modal_step;
    return ode;
}

void link_modal_expand(const link_modal* w, const double* eta, double* x) {
    const int n = w->n;
    memset(x, 0, sizeof(double) * (size_t)n);
    for (int j = 0; j < w->r; j++) {
        const double e = eta[j];
        const double* v = w->V + (size_t)j * n;
        for (int i = 0; i < n; i++) x[i] += v[i] * e;
    }
}

/* The physical load f(t) = sum_c p_c F_c + the nodal loads (as link_step_force, without its
 * matrices' state). */
static void full_force(link_modal* w, double t, double* f) {
    const int n = w->n;
    double p[NP];
    link_step_params(w->lo->step, t, p);
    w->have_p = 0;  /* the system's frames moved to t */
    memset(f, 0, sizeof(double) * (size_t)n);
    for (int c = 0; c < LINK_NPF; c++)
        if (w->Fn[c] && p[c] != 0.0)
            for (int i = 0; i < n; i++) f[i] += p[c] * w->Fn[c][i];
    const kd_model* m = w->lo->model;
    for (int l = 0; l < m->nnodal; l++) {
        double v, dv, d2v;
        kd_law_eval(&m->nodal[l].value, t, &v, &dv, &d2v);
        if (m->nodal[l].eq >= 0) f[m->nodal[l].eq] += v;
    }
}

/* G f = K0^-1 f - V diag(lam)^-1 V^T f (n), in place. */
static void truncated_static(link_modal* w, double* f) {
    const int n = w->n;
    memcpy(w->g, f, sizeof(double) * (size_t)n);
    LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, 1, w->K0lu, n, w->ipiv, w->g, n);
    for (int j = 0; j < w->r; j++) {
        const double* v = w->V + (size_t)j * n;
        double h = 0.0;
        for (int i = 0; i < n; i++) h += v[i] * f[i];
        h /= w->lam[j];
        for (int i = 0; i < n; i++) w->g[i] -= h * v[i];
    }
    memcpy(f, w->g, sizeof(double) * (size_t)n);
}

void link_modal_span(link_modal* w, double t0, double t1) { w->t_lo = t0, w->t_hi = t1; }

void link_modal_state(link_modal* w, double t, const double* eta, const double* nu, const double* alpha, double* x) {
    const int n = w->n;
    link_modal_expand(w, eta, x);
    if (nu) link_modal_expand(w, nu, x + n), link_modal_expand(w, alpha, x + 2 * n);
    if (!w->mam) return;
    /* x += G f(t), G = K0^-1 - V diag(lam)^-1 V^T: the truncated modes' quasi-static share; its
     * rates from G f' and G f'', f', f'' by differences over h (central, one-sided at the ends
     * of the span) */
    double *f0 = w->fd, *f1 = f0 + n, *f2 = f1 + n;
    full_force(w, t, f0);
    if (nu) {
        const double h = 1e-4 * (w->t_hi > w->t_lo ? w->t_hi - w->t_lo : 1.0);
        const int side = t - h < w->t_lo ? 1 : (t + h > w->t_hi ? -1 : 0);
        if (!side) {
            full_force(w, t - h, f1), full_force(w, t + h, f2);
            for (int i = 0; i < n; i++) {
                const double a = f1[i], b = f2[i];
                f1[i] = (b - a) / (2 * h), f2[i] = (b - 2 * f0[i] + a) / (h * h);
            }
        } else {
            const double s = side;
            full_force(w, t + s * h, f1), full_force(w, t + 2 * s * h, f2);
            for (int i = 0; i < n; i++) {
                const double a = f1[i], b = f2[i];
                f1[i] = s * (-3 * f0[i] + 4 * a - b) / (2 * h), f2[i] = (f0[i] - 2 * a + b) / (h * h);
            }
        }
        truncated_static(w, f1), truncated_static(w, f2);
        for (int i = 0; i < n; i++) x[n + i] += f1[i], x[2 * n + i] += f2[i];
    }
    truncated_static(w, f0);
    for (int i = 0; i < n; i++) x[i] += f0[i];
}

void link_modal_project(const link_modal* w, const double* x, double* eta) {
    const int n = w->n;
    for (int j = 0; j < w->r; j++) {
        const double* v = w->MV + (size_t)j * n;
        double s = 0.0;
        for (int i = 0; i < n; i++) s += v[i] * x[i];
        eta[j] = s;
    }
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int link_modal_frequencies(link_modal* w, double t, int count, int gyroscopic, double* omega) {
    const int r = w->r;
    const size_t rr = (size_t)r * (size_t)r;
    combine(w, t);
    double *ev = w->tmp, *wi = ev + 2 * r, *A = wi + 2 * r;  /* (2r), (2r), (2r x 2r) */
    int found = 0;
    if (!gyroscopic) {
        /* K_r without [k(eps)] (p 3..5), symmetrised */
        double* K = A;
        memcpy(K, w->K0, sizeof(double) * rr);
        for (int k = 0; k < w->np; k++) {
            const int c = w->pc[k];
            if (c >= LINK_NPK || (c >= 3 && c < 6) || w->p[c] == 0.0) continue;
            for (size_t i = 0; i < rr; i++) K[i] += w->p[c] * w->P[(size_t)k * rr + i];
        }
        for (int j = 0; j < r; j++)
            for (int i = 0; i < j; i++) K[i + (size_t)j * r] = 0.5 * (K[i + (size_t)j * r] + K[j + (size_t)i * r]);
        if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', r, K, r, ev) != 0) return 1;
        for (int i = 0; i < r; i++) ev[i] = sqrt(ev[i] > 0 ? ev[i] : 0.0);
        found = r;
    } else {
        /* z' = [0 I; -K_r -C_r] z: the frequencies |Im s| of the pairs with Im s > 0 */
        const int m = 2 * r;
        memset(A, 0, sizeof(double) * (size_t)m * (size_t)m);
        for (int j = 0; j < r; j++) {
            A[j + (size_t)(r + j) * m] = 1.0;
            for (int i = 0; i < r; i++) {
                A[r + i + (size_t)j * m] = -w->Kr[i + (size_t)j * r];
                A[r + i + (size_t)(r + j) * m] = -w->Cr[i + (size_t)j * r];
            }
        }
        if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', m, A, m, ev, wi, NULL, 1, NULL, 1) != 0) return 1;
        for (int i = 0; i < m; i++)
            if (wi[i] > 0) ev[found++] = wi[i];
    }
    qsort(ev, (size_t)found, sizeof(double), cmp_double);
    for (int i = 0; i < count; i++) omega[i] = i < found ? ev[i] : NAN;
    return found < count;
}

/* ---- the basis and the projection ---------------------------------------------------------- */

void link_modal_free(link_modal** pm) {
    link_modal* w = pm ? *pm : NULL;
    if (!w) return;
    free(w->V), free(w->MV), free(w->K0), free(w->C0), free(w->P), free(w->F);
    kd_gband_free(&w->Mr);
    free(w->Cr), free(w->Kr), free(w->S), free(w->tmp), free(w->piv);
    free(w->K0lu), free(w->ipiv), free(w->lam), free(w->fd), free(w->g);
    free(w);
    *pm = NULL;
}

/* x -= (v^T M x) v over the kept columns, twice (classical Gram-Schmidt with one
 * reorthogonalisation), then the M-norm of x. */
static double m_orthogonalise(int n, const double* M, const double* X, int k, double* x, double* mx) {
    for (int pass = 0; pass < 2; pass++) {
        matmul(n, 1, M, x, mx);
        for (int j = 0; j < k; j++) {
            double s = 0.0;
            for (int i = 0; i < n; i++) s += X[i + (size_t)j * n] * mx[i];
            for (int i = 0; i < n; i++) x[i] -= s * X[i + (size_t)j * n];
        }
    }
    matmul(n, 1, M, x, mx);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * mx[i];
    return sqrt(s > 0 ? s : 0.0);
}

#define NOMEM_(e) kd_error_set(e, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory")

kd_status link_ode_reduce(link_ode* lo, int modes, int statics, kd_error* err) {
    if (!lo->step)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "link '%s': a modal reduction needs a link of one beam body", lo->name);
    if (statics == 3)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "link '%s': static_correction: soft applies to two-way links (theory.md sec. 17, F12)",
                            lo->name);
    link_parts pp;
    link_step_parts(lo->step, &pp);
    const int n = pp.n;
    const kd_model* m = lo->model;
    const int nm = modes < n ? modes : n;
    int nb = 0;  /* load shapes */
    for (int c = 0; c < LINK_NPF; c++) nb += pp.F[c] != NULL;
    nb += m->nnodal;
    const int cap = nm + (statics == 2 ? nb : 0);
    const size_t nn = (size_t)n * (size_t)n;
    double* buf = malloc(sizeof(double) * (4 * nn + 2 * (size_t)n * (size_t)(cap + nb + 2) + (size_t)n));
    link_modal* w = calloc(1, sizeof(*w));
    if (!buf || !w) {
        free(buf), free(w);
        return NOMEM_(err);
    }
    double *K = buf, *M = K + nn, *A = M + nn, *B = A + nn, *X = B + nn, *Y = X + (size_t)n * (cap + nb + 2);
    double* lam = Y + (size_t)n * (cap + nb + 2);
    kd_status st = KD_OK;
    /* the constrained modes at rest: K0s phi = lambda M phi (K0 symmetrised), M-normalised */
    band_dense(pp.K0, K), band_dense(pp.M, M);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) A[i + (size_t)j * n] = 0.5 * (K[i + (size_t)j * n] + K[j + (size_t)i * n]);
    memcpy(B, M, sizeof(double) * nn);
    if (LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'V', 'U', n, A, n, B, n, lam) != 0)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "link '%s': its modes at rest could not be found (is it held by its frame supports?)", lo->name);
    int r = 0;
    if (!st) {
        memcpy(X, A, sizeof(double) * (size_t)n * (size_t)nm);
        r = nm;
    }
    /* the static corrections K0^-1 b of the load shapes, M-orthogonalised; those already in the
     * span (relative M-norm left below 1e-8) dropped */
    if (!st && statics == 2 && r < n) {
        double* R = X + (size_t)n * cap;  /* nb right-hand sides */
        int k = 0;
        for (int c = 0; c < LINK_NPF; c++)
            if (pp.F[c]) memcpy(R + (size_t)k++ * n, pp.F[c], sizeof(double) * (size_t)n);
        for (int l = 0; l < m->nnodal; l++) {
            memset(R + (size_t)k * n, 0, sizeof(double) * (size_t)n);
            if (m->nodal[l].eq >= 0) R[(size_t)k * n + m->nodal[l].eq] = 1.0;
            k++;
        }
        memcpy(A, K, sizeof(double) * nn);
        lapack_int* ip = malloc(sizeof(lapack_int) * (size_t)n);
        if (!ip) st = NOMEM_(err);
        else if (LAPACKE_dgesv(LAPACK_COL_MAJOR, n, k, A, n, ip, R, n) != 0)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "link '%s': its stiffness at rest is singular (static correction)", lo->name);
        free(ip);
        double* mx = R + (size_t)n * nb;
        for (int s = 0; s < k && !st && r < n; s++) {
            double* x = R + (size_t)s * n;
            matmul(n, 1, M, x, mx);
            double n0 = 0.0;
            for (int i = 0; i < n; i++) n0 += x[i] * mx[i];
            n0 = sqrt(n0 > 0 ? n0 : 0.0);
            if (!(n0 > 0)) continue;
            const double nr = m_orthogonalise(n, M, X, r, x, mx);
            if (!(nr > 1e-8 * n0)) continue;
            for (int i = 0; i < n; i++) X[i + (size_t)r * n] = x[i] / nr;
            r++;
        }
        /* Rayleigh-Ritz in the span: V = X Q, Q the eigenvectors of X^T K0s X (X^T M X = I) */
        if (!st && r > nm) {
            double* KX = Y;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) A[i + (size_t)j * n] = 0.5 * (K[i + (size_t)j * n] + K[j + (size_t)i * n]);
            matmul(n, r, A, X, KX);
            double* Q = B;  /* r x r (B is free) */
            gram(n, r, X, KX, Q);
            if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', r, Q, r, lam) != 0)
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "link '%s': Rayleigh-Ritz failed", lo->name);
            else {
                memset(Y, 0, sizeof(double) * (size_t)n * (size_t)r);
                for (int j = 0; j < r; j++)
                    for (int l = 0; l < r; l++)
                        for (int i = 0; i < n; i++) Y[i + (size_t)j * n] += X[i + (size_t)l * n] * Q[l + (size_t)j * r];
                memcpy(X, Y, sizeof(double) * (size_t)n * (size_t)r);
            }
        }
    }
    if (!st && r < 1)
        st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "link '%s': a modal basis needs modes >= 1", lo->name);
    const size_t rr = (size_t)r * (size_t)r;
    int np = 0, nf = 0;
    for (int c = 0; c < NP; c++) np += pp.nnz[c] > 0;
    for (int c = 0; c < LINK_NPF; c++) nf += pp.F[c] != NULL;
    if (!st) {
        w->lo = lo, w->n = n, w->r = r;
        w->V = malloc(sizeof(double) * (size_t)n * r), w->MV = malloc(sizeof(double) * (size_t)n * r);
        w->K0 = malloc(sizeof(double) * rr), w->C0 = malloc(sizeof(double) * rr);
        w->P = malloc(sizeof(double) * (rr * (size_t)np + 1)), w->F = malloc(sizeof(double) * ((size_t)r * nf + 1));
        w->Cr = malloc(sizeof(double) * rr), w->Kr = malloc(sizeof(double) * rr), w->S = malloc(sizeof(double) * rr);
        w->tmp = malloc(sizeof(double) * (4 * (size_t)r + 4 * rr));
        w->piv = malloc(sizeof(int) * (size_t)r);
        if (!w->V || !w->MV || !w->K0 || !w->C0 || !w->P || !w->F || !w->Cr || !w->Kr || !w->S || !w->tmp ||
            !w->piv || kd_gband_init(&w->Mr, r, r - 1, r - 1))
            st = NOMEM_(err);
    }
    if (!st && statics == 1 && r < n) {  /* the static correction: K0's LU and the modes' lambda */
        w->mam = 1;
        w->K0lu = malloc(sizeof(double) * nn), w->ipiv = malloc(sizeof(lapack_int) * (size_t)n);
        w->lam = malloc(sizeof(double) * (size_t)r);
        w->fd = malloc(sizeof(double) * 3 * (size_t)n), w->g = malloc(sizeof(double) * (size_t)n);
        if (!w->K0lu || !w->ipiv || !w->lam || !w->fd || !w->g) st = NOMEM_(err);
        else {
            memcpy(w->lam, lam, sizeof(double) * (size_t)r);
            memcpy(w->Fn, pp.F, sizeof(w->Fn));
            band_dense(pp.K0, w->K0lu);
            if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, w->K0lu, n, w->ipiv) != 0)
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                  "link '%s': its stiffness at rest is singular (static correction)", lo->name);
        }
    }
    if (!st) {
        memcpy(w->V, X, sizeof(double) * (size_t)n * r);
        matmul(n, r, M, w->V, w->MV);
        for (int i = 0; i < r; i++) w->Mr.ab[(size_t)(r - 1) + (size_t)i * (2 * r - 1)] = 1.0;
        /* V^T K0 V, V^T C0 V (the full band matrices) */
        double* T = Y;
        band_dense(pp.K0, A);
        matmul(n, r, A, w->V, T);
        gram(n, r, w->V, T, w->K0);
        band_dense(pp.C0, A);
        matmul(n, r, A, w->V, T);
        gram(n, r, w->V, T, w->C0);
        /* V^T B_c V over the union pattern: T = B_c V, then V^T T */
        for (int c = 0, k = 0; c < NP; c++) {
            if (!pp.nnz[c]) continue;
            memset(T, 0, sizeof(double) * (size_t)n * r);
            for (int e = 0; e < pp.nnz[c]; e++) {
                const int u = pp.idx[c][e], i = pp.urow[u], j = pp.ucol[u];
                const double v = pp.val[c][e];
                for (int q = 0; q < r; q++) T[i + (size_t)q * n] += v * w->V[j + (size_t)q * n];
            }
            gram(n, r, w->V, T, w->P + (size_t)k * rr);
            w->pc[k++] = c;
        }
        w->np = np;
        for (int c = 0, k = 0; c < LINK_NPF; c++) {
            if (!pp.F[c]) continue;
            for (int q = 0; q < r; q++) {
                double s = 0.0;
                for (int i = 0; i < n; i++) s += w->V[i + (size_t)q * n] * pp.F[c][i];
                w->F[(size_t)k * r + q] = s;
            }
            w->fc[k++] = c;
        }
        w->nf = nf;
    }
    free(buf);
    if (st) {
        link_modal_free(&w);
        return st;
    }
    lo->modal = w;
    return KD_OK;
}
