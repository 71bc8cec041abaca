/* The quadratic eigenproblem (s^2 M + s C + K) x = 0 of a large moving system by ARPACK-ng's
 * implicitly restarted Arnoldi (dnaupd mode 1 on the shift-inverted operator) with one sparse
 * factorisation (kedyn/modes_gyro_sparse.h; theory.md sec. 14.5).
 *
 * State z = [x; x' / w_r] (w_r a reference frequency balancing the two halves):
 *     A = [[0, w_r I], [-M^-1 K / w_r, -M^-1 C]],  A z = s z.
 * For a real shift sigma, (A - sigma I) z = y is solved by
 *     P(sigma) z1 = -((C + sigma M) y1 + w_r M y2),   z2 = (y1 + sigma z1) / w_r,
 *     P(sigma) = K + sigma C + sigma^2 M,
 * so only P is factored (no M^-1: a massless DOF is an infinite s, nu = 0). At sigma = 0,
 * P = K is symmetric: CHOLMOD's Cholesky when K is positive definite. Otherwise (beyond a
 * divergence speed K is indefinite; a free body's K is singular and needs sigma != 0, where
 * sigma C makes P unsymmetric) KLU's LU with partial pivoting. The Ritz values nu of
 * (A - sigma I)^-1 of largest modulus give the s = sigma + 1 / nu nearest sigma: the lowest
 * frequencies. */
#include <arpack/arpack.h>
#include <cholmod.h>
#include <klu.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/modes_gyro_sparse.h"
#include "numerics/eigen_internal.h"

void kd_gyro_sparse_free(kd_gyro_sparse* r) {
    if (!r) return;
    free(r->re), free(r->im), free(r->vre), free(r->vim), free(r->tol);
    memset(r, 0, sizeof(*r));
}

/* A kd_csc as a CHOLMOD matrix (stype 1: upper triangle of a symmetric one, 0: general), no copy. */
static cholmod_sparse view(const kd_csc* a, int stype) {
    cholmod_sparse s;
    memset(&s, 0, sizeof(s));
    s.nrow = s.ncol = (size_t)a->n;
    s.nzmax = (size_t)a->p[a->n];
    s.p = a->p, s.i = a->i, s.x = a->x;
    s.stype = stype;
    s.itype = CHOLMOD_INT, s.xtype = CHOLMOD_REAL, s.dtype = CHOLMOD_DOUBLE;
    s.sorted = 1, s.packed = 1;
    return s;
}

/* Entry (j, j) of a kd_csc (0 when not stored). */
static double diag_at(const kd_csc* a, int j) {
    for (int k = a->p[j]; k < a->p[j + 1]; k++)
        if (a->i[k] == j) return a->x[k];
    return 0.0;
}

/* y = A x for a general (both triangles) kd_csc. */
static void general_matvec(const kd_csc* a, const double* x, double* y) {
    memset(y, 0, sizeof(double) * (size_t)a->n);
    for (int j = 0; j < a->n; j++)
        for (int k = a->p[j]; k < a->p[j + 1]; k++) y[a->i[k]] += a->x[k] * x[j];
}

typedef struct gyro_op {
    int n;
    const kd_csc *K, *M, *C;
    int k_general;                  /* K stored with both triangles (not symmetric) */
    double sigma, wr;
    cholmod_common cc;
    cholmod_factor* L;              /* Cholesky of K (sigma = 0), or NULL */
    cholmod_dense *B, *X, *Y, *E;
    cholmod_sparse* P;              /* K + sigma C + sigma^2 M, both triangles, for KLU */
    klu_common kc;
    klu_symbolic* sym;
    klu_numeric* num;
    double *t1, *t2;                /* (n) scratch */
    int failed;
} gyro_op;

static void op_free(gyro_op* o) {
    if (o->num) klu_free_numeric(&o->num, &o->kc);
    if (o->sym) klu_free_symbolic(&o->sym, &o->kc);
    cholmod_free_sparse(&o->P, &o->cc);
    cholmod_free_factor(&o->L, &o->cc);
    cholmod_free_dense(&o->B, &o->cc);
    cholmod_free_dense(&o->X, &o->cc);
    cholmod_free_dense(&o->Y, &o->cc);
    cholmod_free_dense(&o->E, &o->cc);
    cholmod_finish(&o->cc);
    free(o->t1), free(o->t2);
}

/* Round-off guard on a factor: its reciprocal condition estimate (CHOLMOD: (min/max diag L)^2,
 * KLU: min/max |U_ii|) below this, the matrix is taken as singular and the shift moved. */
#define GYRO_RCOND_MIN 1e-14

/* Cholesky of K at sigma = 0; 0 when K is positive definite and not near singular. */
static int factor_cholesky(gyro_op* o) {
    cholmod_sparse Kv = view(o->K, 1);
    o->L = cholmod_analyze(&Kv, &o->cc);
    if (!o->L) return -1;
    if (!cholmod_factorize(&Kv, o->L, &o->cc) || o->cc.status != CHOLMOD_OK || o->L->minor < o->L->n ||
        cholmod_rcond(o->L, &o->cc) < GYRO_RCOND_MIN) {
        cholmod_free_factor(&o->L, &o->cc);
        return -1;
    }
    o->B = cholmod_allocate_dense((size_t)o->n, 1, (size_t)o->n, CHOLMOD_REAL, &o->cc);
    return o->B ? 0 : -1;
}

/* LU of P(sigma) by KLU; 0 on success. */
static int factor_lu(gyro_op* o, double sigma) {
    if (o->num) klu_free_numeric(&o->num, &o->kc);
    if (o->sym) klu_free_symbolic(&o->sym, &o->kc);
    cholmod_free_sparse(&o->P, &o->cc);
    cholmod_sparse Kv = view(o->K, o->k_general ? 0 : 1), Mv = view(o->M, 1);
    cholmod_sparse* Kf = cholmod_copy(&Kv, 0, 1, &o->cc);
    cholmod_sparse* Mf = sigma != 0.0 ? cholmod_copy(&Mv, 0, 1, &o->cc) : NULL;
    double one[2] = {1, 0}, sc[2] = {sigma, 0}, sm[2] = {sigma * sigma, 0};
    cholmod_sparse* P = Kf;
    if (Kf && sigma != 0.0 && Mf) {
        cholmod_sparse* KM = cholmod_add(Kf, Mf, one, sm, 1, 1, &o->cc);
        cholmod_free_sparse(&Kf, &o->cc);
        P = KM;
        if (P && o->C) {
            cholmod_sparse Cv = view(o->C, 0);
            cholmod_sparse* PC = cholmod_add(P, &Cv, one, sc, 1, 1, &o->cc);
            cholmod_free_sparse(&P, &o->cc);
            P = PC;
        }
    }
    cholmod_free_sparse(&Mf, &o->cc);
    if (!P) return -1;
    o->P = P;
    o->sym = klu_analyze(o->n, P->p, P->i, &o->kc);
    if (!o->sym) return -1;
    o->num = klu_factor(P->p, P->i, P->x, o->sym, &o->kc);
    if (!o->num || !klu_rcond(o->sym, o->num, &o->kc) || o->kc.rcond < GYRO_RCOND_MIN) return -1;
    o->sigma = sigma;
    return 0;
}

/* z1 = P^-1 b in place. */
static void solve_p(gyro_op* o, double* b) {
    if (o->L) {
        memcpy(o->B->x, b, sizeof(double) * (size_t)o->n);
        if (!cholmod_solve2(CHOLMOD_A, o->L, o->B, NULL, &o->X, NULL, &o->Y, &o->E, &o->cc)) {
            o->failed = 1;
            return;
        }
        memcpy(b, o->X->x, sizeof(double) * (size_t)o->n);
    } else if (!klu_solve(o->sym, o->num, o->n, 1, b, &o->kc)) {
        o->failed = 1;
    }
}

/* x = (A - sigma I)^-1 y (header comment; with a singular M, the same formula is
 * (A_p - sigma B_p)^-1 B_p y of the pencil A_p = [[0, w_r I], [-K / w_r, -C]], B_p = diag(I, M)). */
static void apply_op(gyro_op* o, const double* y, double* x) {
    const int n = o->n;
    const double *y1 = y, *y2 = y + n;
    double *x1 = x, *x2 = x + n, *t1 = o->t1, *t2 = o->t2;
    kd_csc_matvec(o->M, y2, t1);                         /* M y2 */
    if (o->sigma != 0.0) kd_csc_matvec(o->M, y1, t2);    /* M y1 */
    for (int i = 0; i < n; i++) x1[i] = -(o->wr * t1[i] + (o->sigma != 0.0 ? o->sigma * t2[i] : 0.0));
    if (o->C) {
        general_matvec(o->C, y1, t1);
        for (int i = 0; i < n; i++) x1[i] -= t1[i];
    }
    solve_p(o, x1);
    for (int i = 0; i < n; i++) x2[i] = (y1[i] + o->sigma * x1[i]) / o->wr;
}

static kd_status gyro_sparse(const kd_csc* K, int k_general, const kd_csc* M, const kd_csc* C, int nev,
                             kd_gyro_sparse* out, kd_error* err);

kd_status kd_eigen_gyro_sparse(const kd_csc* K, const kd_csc* M, const kd_csc* C, int nev, kd_gyro_sparse* out,
                               kd_error* err) {
    return gyro_sparse(K, 0, M, C, nev, out, err);
}

kd_status kd_eigen_gyro_sparse_general(const kd_csc* K, const kd_csc* M, const kd_csc* C, int nev,
                                       kd_gyro_sparse* out, kd_error* err) {
    return gyro_sparse(K, 1, M, C, nev, out, err);
}

static kd_status gyro_sparse(const kd_csc* K, int k_general, const kd_csc* M, const kd_csc* C, int nev,
                             kd_gyro_sparse* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = K->n, n2 = 2 * n;
    if (nev > n2 - 2) nev = n2 - 2;
    if (nev < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "no modes requested");
    gyro_op o;
    memset(&o, 0, sizeof(o));
    o.n = n, o.K = K, o.M = M, o.C = C, o.k_general = k_general;
    cholmod_start(&o.cc);
    o.cc.print = 0;
    o.cc.error_handler = NULL;
    klu_defaults(&o.kc);
    o.t1 = malloc(sizeof(double) * (size_t)n);
    o.t2 = malloc(sizeof(double) * (size_t)n);
    /* w_r: the lowest diagonal frequency sqrt(K_ii / M_ii) (an upper bound of the lowest natural
     * frequency of an undamped structure at rest: the Rayleigh quotient of a unit vector) */
    double r2 = HUGE_VAL;
    for (int j = 0; j < n; j++) {
        const double k = fabs(diag_at(K, j)), m = diag_at(M, j);
        if (m > 0 && k > 0) r2 = fmin(r2, k / m);
    }
    o.wr = r2 < HUGE_VAL ? sqrt(r2) : 1.0;
    kd_status st = KD_OK;
    if (!o.t1 || !o.t2) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse state-space eigensolver");
        goto done;
    }
    /* sigma = 0 by Cholesky, else LU at 0, else LU at small negative shifts */
    if (k_general || factor_cholesky(&o)) {
        static const double shifts[] = {0.0, -1e-3, -1e-2, -0.1};
        int ok = 0;
        for (int k = 0; k < 4 && !ok; k++) ok = factor_lu(&o, shifts[k] * o.wr) == 0;
        if (!ok) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "the sparse state-space eigensolver found K + sigma C + sigma^2 M singular at every "
                              "shift tried (KLU status %d)",
                              o.kc.status);
            goto done;
        }
        out->lu = 1;
    }
    out->sigma = o.sigma;
    {
        int ncv = 2 * nev + 1 > 30 ? 2 * nev + 1 : 30;
        if (ncv > n2) ncv = n2;
        const int lworkl = 3 * ncv * ncv + 6 * ncv;
        double* resid = malloc(sizeof(double) * (size_t)n2);
        double* v = malloc(sizeof(double) * (size_t)n2 * (size_t)ncv);
        double* workd = malloc(sizeof(double) * 3 * (size_t)n2);
        double* workl = malloc(sizeof(double) * (size_t)lworkl);
        double* workev = malloc(sizeof(double) * 3 * (size_t)ncv);
        double* dr = malloc(sizeof(double) * (size_t)(nev + 1));
        double* di = malloc(sizeof(double) * (size_t)(nev + 1));
        double* z = malloc(sizeof(double) * (size_t)n2 * (size_t)(nev + 1));
        a_int* select = calloc((size_t)ncv, sizeof(a_int));
        if (!resid || !v || !workd || !workl || !workev || !dr || !di || !z || !select) {
            st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse state-space eigensolver");
            goto arnoldi_done;
        }
        /* a fixed starting vector: reproducible runs (as eigen_lanczos.c) */
        for (int i = 0; i < n2; i++) resid[i] = 1.0 + 0.1 * (double)(((long long)i * 7919) % 97) / 97.0;
        a_int ido = 0, info = 1, iparam[11] = {0}, ipntr[14] = {0};
        iparam[0] = 1;          /* exact shifts */
        iparam[2] = 1000;       /* maximum restarts */
        iparam[3] = 1;
        iparam[6] = 1;          /* mode 1 on OP = (A - sigma I)^-1 */
        pthread_mutex_lock(&eigen_arpack_lock);
        for (;;) {
            dnaupd_c(&ido, "I", n2, "LM", nev, 0.0, resid, ncv, v, n2, iparam, ipntr, workd, workl, lworkl, &info);
            if (ido != -1 && ido != 1) break;
            apply_op(&o, workd + ipntr[0] - 1, workd + ipntr[1] - 1);
        }
        if (info < 0 || info == 1 || o.failed) {
            pthread_mutex_unlock(&eigen_arpack_lock);
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "the sparse state-space eigensolver did not converge (ARPACK dnaupd info %d, %d of %d "
                              "eigenvalues%s)",
                              (int)info, (int)iparam[4], nev, o.failed ? ", a sparse solve failed" : "");
            goto arnoldi_done;
        }
        dneupd_c(1, "A", select, dr, di, z, n2, 0.0, 0.0, workev, "I", n2, "LM", nev, 0.0, resid, ncv, v, n2, iparam,
                 ipntr, workd, workl, lworkl, &info);
        pthread_mutex_unlock(&eigen_arpack_lock);
        if (info != 0) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "the sparse state-space eigensolver failed to extract the eigenvectors (ARPACK dneupd "
                              "info %d)",
                              (int)info);
            goto arnoldi_done;
        }
        const int nc = (int)iparam[4] < nev + 1 ? (int)iparam[4] : nev + 1;
        out->n = n;
        out->re = malloc(sizeof(double) * (size_t)(nc + 1));
        out->im = malloc(sizeof(double) * (size_t)(nc + 1));
        out->tol = malloc(sizeof(double) * (size_t)(nc + 1));
        out->vre = malloc(sizeof(double) * (size_t)(nc + 1) * (size_t)n);
        out->vim = malloc(sizeof(double) * (size_t)(nc + 1) * (size_t)n);
        if (!out->re || !out->im || !out->tol || !out->vre || !out->vim) {
            st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse state-space eigensolver");
            goto arnoldi_done;
        }
        /* Round-off: |d nu| <= 1e-5 max |nu| (the bound of gyro_pencil.c on its shift-inverted
         * operator, whose norm max |nu| estimates), so |d s| <= 1e-5 max |nu| |s - sigma|^2. */
        double numax = 0;
        for (int j = 0; j < nc; j++) numax = fmax(numax, hypot(dr[j], di[j]));
        int ne = 0;
        for (int j = 0; j < nc; j++) {
            const double m2 = dr[j] * dr[j] + di[j] * di[j];
            if (m2 == 0.0 || di[j] < 0) continue;   /* infinite s, or the second of a pair */
            const int pair = di[j] > 0;
            if (pair && j + 1 >= nc) break;         /* its imaginary column is not there */
            /* nu = a + i b with b > 0 belongs to s - sigma = (a - i b) / |nu|^2: keep the
             * conjugate, s = sigma + (a + i b) / |nu|^2, vector re - i im */
            out->re[ne] = o.sigma + dr[j] / m2;
            out->im[ne] = pair ? di[j] / m2 : 0.0;
            out->tol[ne] = 1e-5 * numax / m2;
            const double* zr = z + (size_t)j * n2;
            for (int i = 0; i < n; i++) {
                out->vre[(size_t)ne * n + i] = zr[i];
                out->vim[(size_t)ne * n + i] = pair ? -zr[(size_t)n2 + i] : 0.0;
            }
            ne++;
        }
        out->nconv = ne;
    arnoldi_done:
        free(resid), free(v), free(workd), free(workl), free(workev), free(dr), free(di), free(z), free(select);
    }
done:
    op_free(&o);
    if (st) kd_gyro_sparse_free(out);
    return st;
}
