/* Natural frequencies of an elastic link along the rigid motion of its
 * mechanism, followed by the modal assurance criterion (kedyn/ked.h). */
#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/ked.h"
#include "kedyn/modes.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/system.h"
#include "link_ode.h"

void kd_ked_modes_free(kd_ked_modes* m) {
    if (!m) return;
    free(m->t);
    free(m->omega);
    memset(m, 0, sizeof(*m));
}

/* Upper band storage of the symmetric part of a general band matrix:
 * S(kd + i - j, j) = (A(i, j) + A(j, i)) / 2 for j - kd <= i <= j, ld = kd + 1
 * (LAPACK's dsbgvx layout). */
static void band_to_sym(const kd_gband* B, int kd, double* S) {
    const int n = B->n, ld = B->kl + B->ku + 1;
    for (int j = 0; j < n; j++)
        for (int i = j - kd > 0 ? j - kd : 0; i <= j; i++)
            S[kd + i - j + (size_t)j * (kd + 1)] =
                0.5 * (B->ab[B->ku + i - j + (size_t)j * ld] + B->ab[B->ku + j - i + (size_t)i * ld]);
}

/* Dense symmetric part (column-major n x n, upper triangle) of a general band matrix. */
static void band_to_dense(const kd_gband* B, double* A) {
    const int n = B->n, ld = B->kl + B->ku + 1;
    memset(A, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = j - B->ku > 0 ? j - B->ku : 0; i <= j; i++)
            A[i + (size_t)j * n] = 0.5 * (B->ab[B->ku + i - j + (size_t)j * ld] + B->ab[B->ku + j - i + (size_t)i * ld]);
}

/* The compressed-column pattern of a band of half-width kd: every entry of the band (upper: rows
 * j - kd .. j of column j), values 0. */
static kd_status band_pattern(int n, int kd, int upper, kd_csc* a) {
    memset(a, 0, sizeof(*a));
    a->n = n;
    a->p = malloc(sizeof(int) * ((size_t)n + 1));
    size_t nnz = 0;
    for (int j = 0; j < n; j++) {
        const int lo = j - kd > 0 ? j - kd : 0, hi = upper ? j : (j + kd < n - 1 ? j + kd : n - 1);
        nnz += (size_t)(hi - lo + 1);
    }
    a->i = malloc(sizeof(int) * (nnz ? nnz : 1));
    a->x = calloc(nnz ? nnz : 1, sizeof(double));
    if (!a->p || !a->i || !a->x) {
        kd_csc_free(a);
        return KD_ERR_NOMEM;
    }
    int k = 0;
    for (int j = 0; j < n; j++) {
        a->p[j] = k;
        const int hi = upper ? j : (j + kd < n - 1 ? j + kd : n - 1);
        for (int i = j - kd > 0 ? j - kd : 0; i <= hi; i++) a->i[k++] = i;
    }
    a->p[n] = k;
    return KD_OK;
}

/* The values of the general band B on a's pattern (band_pattern). */
static void band_values(const kd_gband* B, kd_csc* a) {
    const int ld = B->kl + B->ku + 1;
    for (int j = 0; j < a->n; j++)
        for (int k = a->p[j]; k < a->p[j + 1]; k++) a->x[k] = B->ab[B->ku + a->i[k] - j + (size_t)j * ld];
}

/* Links of up to this many equations take the dense route: M = U^T U factored
 * once, then per instant the standard problem U^-T K U^-1 y = lambda y by
 * LAPACK's MRRR on the index range (dsytrd, dstemr, dormtr) and z = U^-1 y
 * (fewer operations than the banded reduction at these sizes); larger links
 * the banded dsbgvx, whose cost grows linearly with the link. */
#define KED_DENSE_MAX 200

kd_status kd_ked_modes_along_motion(kd_ked* k, int link, int count, kd_ked_modes* out, kd_error* err) {
    return kd_ked_modes_along_motion_opt(k, link, count, KD_KED_GYRO_REFINE, out, err);
}

/* Is the instant's problem symmetric (no gyroscopic or damping matrix, K
 * symmetric: omega = eps = 0 and no damping)? Then the symmetric solvers
 * below give its frequencies exactly. */
static int instant_is_symmetric(const kd_gband* C, const kd_gband* K) {
    const int n = K->n, ld = K->kl + K->ku + 1, ldc = C->kl + C->ku + 1;
    for (int j = 0; j < n; j++)
        for (int i = j - C->ku > 0 ? j - C->ku : 0; i <= j + C->kl && i < n; i++)
            if (C->ab[C->ku + i - j + (size_t)j * ldc] != 0.0) return 0;
    for (int j = 0; j < n; j++)
        for (int i = j - K->ku > 0 ? j - K->ku : 0; i < j; i++)
            if (K->ab[K->ku + i - j + (size_t)j * ld] != K->ab[K->ku + j - i + (size_t)i * ld]) return 0;
    return 1;
}

/* Refinement of the symmetric modes into those of the quadratic problem
 * T(s) x = (s^2 M + s C + K) x = 0 (theory.md sec. 3, [c] and [k(eps)]) by
 * Newton's method on (T(s) x = 0, v^T x = 1), i.e. inverse iteration for
 * the nonlinear eigenproblem (Ruhe 1973, SIAM J. Numer. Anal. 10:674):
 *     u = T(s)^-1 T'(s) x,  s <- s - (v^T x) / (v^T u),  x <- u / (v^T u),
 * T'(s) = 2 s M + C, from s = i omega_sym and x = v = the symmetric mode.
 * It converges quadratically (one step on the pump example); each step is one complex band LU of the link
 * (linear in its size), against the O((2n)^3) of the dense state-space
 * solver, which remains the fallback (and gyroscopic: dense). */
typedef struct refine_ws {
    int n, kd, ldab;
    double complex *T, *x, *u;
    lapack_int* ipiv;
} refine_ws;

static void refine_free(refine_ws* r) {
    free(r->T);
    free(r->x);
    free(r->u);
    free(r->ipiv);
    memset(r, 0, sizeof(*r));
}

static kd_status refine_init(refine_ws* r, int n, int kd) {
    r->n = n, r->kd = kd, r->ldab = 3 * kd + 1;
    r->T = malloc(sizeof(double complex) * (size_t)r->ldab * (size_t)n);
    r->x = malloc(sizeof(double complex) * (size_t)n);
    r->u = malloc(sizeof(double complex) * (size_t)n);
    r->ipiv = malloc(sizeof(lapack_int) * (size_t)n);
    if (!r->T || !r->x || !r->u || !r->ipiv) {
        refine_free(r);
        return KD_ERR_NOMEM;
    }
    return KD_OK;
}

/* One mode: s and x (r->x) in and out, v^T x = 1 the normalisation. 1 when converged. */
static int refine_one(refine_ws* r, const kd_gband* M, const kd_gband* C, const kd_gband* K, const double* v,
                      double complex* s_io) {
    const int n = r->n, kd = r->kd, ld = r->ldab;
    double complex s = *s_io, *x = r->x, *u = r->u, *T = r->T;
    for (int it = 0; it < 30; it++) {
        /* T(s) in LAPACK's zgbtrf layout, and u = T'(s) x, column by column
         * (M, C, K share the band layout: kl = ku = kd) */
        const int ldg = 2 * kd + 1;
        const double complex s2 = s * s, ds2 = 2.0 * s;
        memset(u, 0, sizeof(double complex) * (size_t)n);
        for (int j = 0; j < n; j++) {
            const int i0 = j - kd > 0 ? j - kd : 0, i1 = j + kd < n - 1 ? j + kd : n - 1;
            const size_t o = (size_t)kd - (size_t)j + (size_t)j * ldg;  /* + i: entry (i, j) */
            const double *m = M->ab + o, *c = C->ab + o, *kk = K->ab + o;
            double complex* col = T + (size_t)2 * kd - (size_t)j + (size_t)j * ld;
            const double complex xj = x[j];
            for (int i = i0; i <= i1; i++) {
                col[i] = s2 * m[i] + s * c[i] + kk[i];
                u[i] += (ds2 * m[i] + c[i]) * xj;
            }
        }
        if (LAPACKE_zgbtrf_work(LAPACK_COL_MAJOR, n, n, kd, kd, T, ld, r->ipiv) != 0) return 0;
        if (LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', n, kd, kd, 1, T, ld, r->ipiv, u, n) != 0) return 0;
        double complex vx = 0.0, vu = 0.0;
        for (int i = 0; i < n; i++) vx += v[i] * x[i], vu += v[i] * u[i];
        if (vu == 0.0 || !isfinite(creal(vu)) || !isfinite(cimag(vu))) return 0;
        const double complex ds = vx / vu;
        s -= ds;
        const double complex inv_vu = 1.0 / vu;  /* one complex division, not n */
        for (int i = 0; i < n; i++) x[i] = u[i] * inv_vu;
        /* quadratic convergence: the error left after a step of |ds| is of
         * order |ds|^2 / |s|, about 1e-14 |s| once |ds| < 1e-7 |s| (a test near
         * round-off stalls on the nearly singular T(s)) */
        if (cabs(ds) <= 1e-7 * cabs(s)) {
            *s_io = s;
            return 1;
        }
    }
    return 0;
}

/* x^H M x = 1 for x = xr + i xi; M xr, M xi into mr, mi. */
static void normalise_shape(const kd_gband* M, double* xr, double* xi, double* mr, double* mi) {
    const int n = M->n;
    kd_gband_matvec(M, xr, mr);
    kd_gband_matvec(M, xi, mi);
    double nrm = 0.0;
    for (int r = 0; r < n; r++) nrm += xr[r] * mr[r] + xi[r] * mi[r];
    nrm = nrm > 0 ? 1.0 / sqrt(nrm) : 1.0;
    for (int r = 0; r < n; r++) xr[r] *= nrm, xi[r] *= nrm, mr[r] *= nrm, mi[r] *= nrm;
}

/* Mode c of T(s) from symmetric mode c (w = omega^2 of the nev symmetric
 * modes, Z[c] mass-normalised): frequency Im s, growth Re s, shape
 * normalised to x^H M x = 1 (Z[c], Zi[c]) with M x (MZ[c], MZi[c]). 0 when
 * it does not converge or does not stay the continuation of its symmetric
 * mode (Im s > 0, closer to i omega_c than half the gap to its
 * neighbours): the caller then takes the dense state-space solver. */
static int refine_mode(refine_ws* r, int c, int nev, const kd_gband* M, const kd_gband* C, const kd_gband* K,
                       const double* w, double* Z, double* Zi, double* MZ, double* MZi, double* omega, double* growth) {
    const int n = r->n;
    const double w0 = sqrt(fmax(w[c], 0.0));
    const double below = c > 0 ? w0 - sqrt(fmax(w[c - 1], 0.0)) : w0;
    const double above = c + 1 < nev ? sqrt(fmax(w[c + 1], 0.0)) - w0 : below;
    const double gap = fmin(below, above);
    if (!(w0 > 0) || !(gap > 0)) return 0;
    double *zr = Z + (size_t)c * n, *zi = Zi + (size_t)c * n, *mr = MZ + (size_t)c * n, *mi = MZi + (size_t)c * n;
    for (int i = 0; i < n; i++) r->x[i] = zr[i];
    double complex sc = I * w0;
    if (!refine_one(r, M, C, K, mr, &sc) || !(cimag(sc) > 0) || cabs(sc - I * w0) >= 0.5 * gap) return 0;
    for (int i = 0; i < n; i++) zr[i] = creal(r->x[i]), zi[i] = cimag(r->x[i]);
    normalise_shape(M, zr, zi, mr, mi);
    omega[c] = cimag(sc);
    growth[c] = creal(sc);
    return 1;
}

/* g = p^H M z (complex) from p = pr + i pi and M z = mr + i mi. */
static void overlap(int n, const double* pr, const double* pi, const double* mr, const double* mi, double* gr,
                    double* gi) {
    double re = 0.0, im = 0.0;
    for (int r = 0; r < n; r++) {
        re += pr[r] * mr[r] + pi[r] * mi[r];
        im += pr[r] * mi[r] - pi[r] * mr[r];
    }
    *gr = re, *gi = im;
}

/* The followed shapes (prev, previ: count of them) against the instant's
 * (M z in MZ, MZi: nev of them): the overlaps G + i Gi = prev^H M Z
 * (shapes normalised to x^H M x = 1; MAC = |G|^2), then the greedy
 * assignment, best remaining pair first: followed mode p is new mode perm[p]. */
static void follow_modes(int n, int count, int nev, const double* prev, const double* previ, const double* MZ,
                         const double* MZi, double* G, double* Gi, int* used, int* perm) {
    for (int p = 0; p < count; p++)
        for (int c = 0; c < nev; c++)
            overlap(n, prev + (size_t)p * n, previ + (size_t)p * n, MZ + (size_t)c * n, MZi + (size_t)c * n,
                    &G[p + (size_t)c * count], &Gi[p + (size_t)c * count]);
    memset(used, 0, sizeof(int) * (size_t)(nev + count));
    int* assigned = used + nev;  /* new modes taken, then followed modes served */
    for (int step = 0; step < count; step++) {
        double best = -1.0;
        int bp = 0, bc = 0;
        for (int p = 0; p < count; p++) {
            if (assigned[p]) continue;
            for (int c = 0; c < nev; c++) {
                const double mac = G[p + (size_t)c * count] * G[p + (size_t)c * count] +
                                   Gi[p + (size_t)c * count] * Gi[p + (size_t)c * count];
                if (!used[c] && mac > best) best = mac, bp = p, bc = c;
            }
        }
        assigned[bp] = 1;
        used[bc] = 1;
        perm[bp] = bc;
    }
}


/* ---- one instant (any thread): kd_ked_along ------------------------------------------------
 * Its bytes: a head, then doubles: w (nev), the symmetric shapes Z and M Z (n x nev each); on
 * the refined route every mode refined: ok, omega, growth (nev each), Z, Zi, M Z, M Zi (n x nev
 * each); where the dense solver ran: omega, growth, Z, Zi, M Z, M Zi. */
typedef struct instant_head {
    double t;
    int32_t gyro, refine, dense;  /* dense: 0 not run, 1 solved, 2 failed (dense_st, msg) */
    int32_t dense_st;
    char msg[200];
} instant_head;

struct kd_ked_along {
    along_source src;             /* the link: its description, preload and instants */
    int count, nev, gyroscopic, n, kd, dense;
    kd_model* model;  /* the link's model: its own copy (the instant's preload is set in it) */
    kd_system s;
    int s_ready;
    kd_gband C, K;
    double *buf, *Ud, *work_d, *A, *B, *M, *Q, *work, *w, *Z;
    lapack_int *iwork, lwork_d, liwork_d;
    refine_ws rf;
    kd_gyro_ws gw;
    int gsparse;      /* the state-space solver is the sparse one (kd_gyro_sparse_route) */
    kd_csc Ks, Ms, Cs;  /* its K and C (both triangles) and M (upper) on the band's pattern */
    unsigned char* out;
    size_t out_size;
};

/* Doubles after the head of the largest instant. */
static size_t instant_doubles(int n, int nev) { return (size_t)nev * (6 + 10 * (size_t)n); }

void kd_ked_along_free(kd_ked_along** wp) {
    kd_ked_along* a = wp ? *wp : NULL;
    if (!a) return;
    refine_free(&a->rf);
    kd_gyro_free(&a->gw);
    kd_csc_free(&a->Ks), kd_csc_free(&a->Ms), kd_csc_free(&a->Cs);
    free(a->buf);
    free(a->iwork);
    free(a->Ud);
    free(a->work_d);
    free(a->out);
    kd_gband_free(&a->C);
    kd_gband_free(&a->K);
    if (a->s_ready) kd_system_free(&a->s);
    kd_model_free(&a->model);
    free(a);
    *wp = NULL;
}

/* The planar link's source. */
static along_source ked_source(const kd_ked* k, int link) {
    const kd_ked_link* L = &k->link[link];
    const along_source src = {L->desc, &L->preload, L->name, k->rigid.t, k->rigid.nsamples, L->model->neq};
    return src;
}

kd_status kd_ked_along_new(const kd_ked* k, int link, int count, int gyroscopic, kd_ked_along** out,
                           kd_error* err) {
    return link_along_new(ked_source(k, link), count, gyroscopic, out, err);
}

kd_status link_along_new(along_source src, int count, int gyroscopic, kd_ked_along** out, kd_error* err) {
    *out = NULL;
    kd_ked_along* a = calloc(1, sizeof(*a));
    if (!a) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    a->src = src, a->gyroscopic = gyroscopic;
    kd_status st = kd_model_compile(src.desc, &a->model, err);
    if (!st) st = kd_system_init(&a->s, a->model, err);
    if (st) {
        kd_ked_along_free(&a);
        return st;
    }
    a->s_ready = 1;
    const int n = a->s.n, kd = a->s.kd;
    if (count > n) count = n;
    const int nev = count + 2 < n ? count + 2 : n;  /* two more, so a mode entering from above is followed */
    a->n = n, a->kd = kd, a->count = count, a->nev = nev;
    const size_t nb = (size_t)(kd + 1) * (size_t)n, nn = (size_t)n * (size_t)n;
    a->buf = malloc(sizeof(double) * (3 * nb + nn + 7 * (size_t)n + (size_t)n + (size_t)n * (size_t)nev + 1));
    a->iwork = malloc(sizeof(lapack_int) * 12 * (size_t)n);
    a->out = malloc(sizeof(instant_head) + sizeof(double) * instant_doubles(n, nev));
    a->dense = n <= KED_DENSE_MAX;
    if (a->dense) a->Ud = malloc(sizeof(double) * 2 * nn);  /* U (factor of M), then the reduced K */
    if (a->dense && a->Ud) {
        /* workspaces of dsytrd, dstemr and dormtr, asked once */
        double wq[3];
        lapack_int iq = 0, mq = 0, tz = 0;
        LAPACKE_dsytrd_work(LAPACK_COL_MAJOR, 'U', n, a->Ud, n, NULL, NULL, NULL, &wq[0], -1);
        LAPACKE_dstemr_work(LAPACK_COL_MAJOR, 'V', 'I', n, NULL, NULL, 0.0, 0.0, 1, nev, &mq, NULL, NULL, n, nev, NULL,
                            &tz, &wq[1], -1, &iq, -1);
        LAPACKE_dormtr_work(LAPACK_COL_MAJOR, 'L', 'U', 'N', n, nev, a->Ud, n, NULL, NULL, n, &wq[2], -1);
        a->lwork_d = (lapack_int)fmax(wq[0], fmax(wq[1], wq[2])), a->liwork_d = iq;
        /* + the tridiagonal (d, e) and the reflectors' tau */
        a->work_d = malloc(sizeof(double) * ((size_t)a->lwork_d + 3 * (size_t)n + 1));
        if (a->liwork_d > 10 * n) a->liwork_d = 10 * n;
    }
    st = kd_gband_init(&a->C, n, kd, kd);
    if (!st) st = kd_gband_init(&a->K, n, kd, kd);
    if (!st && (!a->buf || !a->iwork || !a->out || (a->dense && (!a->Ud || !a->work_d))))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    else if (st == KD_ERR_NOMEM)
        kd_error_set(err, st, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        a->A = a->buf, a->B = a->A + nb, a->M = a->B + nb, a->Q = a->M + nb, a->work = a->Q + nn;
        a->w = a->work + 7 * (size_t)n, a->Z = a->w + n;
        band_to_sym(&a->s.M, kd, a->M);
    }
    if (!st && a->dense) {
        band_to_dense(&a->s.M, a->Ud);
        if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a->Ud, n) != 0)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "link '%s': the mass matrix is not positive definite",
                              src.name);
    }
    /* the state-space solver: dense up to KD_GYRO_MAX equations, the sparse one above (and from
     * KD_GYRO_SPARSE_DOF when few modes are wanted), as `modes` and `campbell` */
    a->gsparse = gyroscopic && kd_gyro_sparse_route(n, nev);
    if (!st && a->gsparse) {
        st = band_pattern(n, kd, 0, &a->Ks);
        if (!st) st = band_pattern(n, kd, 0, &a->Cs);
        if (!st) st = band_pattern(n, kd, 1, &a->Ms);
        if (st) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        else band_values(&a->s.M, &a->Ms);
    }
    if (!st && gyroscopic && !a->gsparse) st = kd_gyro_init(&a->gw, n, err);
    if (!st && gyroscopic && refine_init(&a->rf, n, kd))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (st) {
        kd_ked_along_free(&a);
        return st;
    }
    *out = a;
    return KD_OK;
}

const void* kd_ked_along_bytes(const kd_ked_along* a, size_t* size) {
    *size = a->out_size;
    return a->out;
}

void kd_ked_along_symmetric(const kd_ked_along* a, double* t, int* n, int* count, const double** omega2,
                            const double** shape) {
    instant_head h;
    memcpy(&h, a->out, sizeof(h));
    const double* p = (const double*)(const void*)(a->out + sizeof(h));  /* the bytes' layout above */
    *t = h.t, *n = a->n, *count = a->count;
    *omega2 = p;
    *shape = p + a->nev;
}

/* The sparse state-space solution of the instant (kd_eigen_gyro_sparse_general: K carries the
 * skew k(eps)), as instant_dense's. */
static kd_status instant_sparse(kd_ked_along* a, double t, double* om, double* gr, double* Z, double* Zi, double* MZ,
                                double* MZi, kd_error* err) {
    const int n = a->n, nev = a->nev;
    band_values(&a->K, &a->Ks);
    band_values(&a->C, &a->Cs);
    kd_gyro_sparse r = {0};
    kd_status st = kd_eigen_gyro_sparse_general(&a->Ks, &a->Ms, &a->Cs, 2 * nev + 4, &r, err);
    kd_gyro_eig* ent = st ? NULL : malloc(sizeof(*ent) * (size_t)(r.nconv + 1));
    if (!st && !ent) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    const int ne = ent ? kd_gyro_sparse_entries(&r, ent) : 0;
    if (st) {
        char why[sizeof(err->msg)];
        snprintf(why, sizeof(why), "%s", err->msg);
        st = kd_error_set(err, st, "", KD_LOC_NONE, "modes of link '%s': %s", a->src.name, why);
    } else if (ne < nev) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "modes of link '%s' at t = %g s: %d eigenvalue pairs, %d wanted", a->src.name, t, ne, nev);
    }
    for (int c = 0; c < nev && !st; c++) {
        double *zr = Z + (size_t)c * n, *zi = Zi + (size_t)c * n;
        memcpy(zr, r.vre + (size_t)ent[c].index * n, sizeof(double) * (size_t)n);
        memcpy(zi, r.vim + (size_t)ent[c].index * n, sizeof(double) * (size_t)n);
        normalise_shape(&a->s.M, zr, zi, MZ + (size_t)c * n, MZi + (size_t)c * n);
        om[c] = ent[c].omega;
        gr[c] = ent[c].growth;
    }
    free(ent);
    kd_gyro_sparse_free(&r);
    return st;
}

/* The dense state-space solution of the instant into (om, gr, Z, Zi, MZ, MZi) (theory.md sec. 3,
 * [c] and [k(eps)]); KD_OK or the failure with its message. */
static kd_status instant_dense(kd_ked_along* a, double t, double* om, double* gr, double* Z, double* Zi, double* MZ,
                               double* MZi, kd_error* err) {
    const int n = a->n, nev = a->nev;
    const char* name = a->src.name;
    if (a->gsparse) return instant_sparse(a, t, om, gr, Z, Zi, MZ, MZi, err);
    kd_status st = kd_gyro_solve(&a->gw, &a->s.M, &a->C, &a->K, t, err);
    if (st) {
        char why[sizeof(err->msg)];
        snprintf(why, sizeof(why), "%s", err->msg);
        return kd_error_set(err, st, "", KD_LOC_NONE, "modes of link '%s': %s", name, why);
    }
    if (a->gw.nent < nev)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "modes of link '%s' at t = %g s: %d eigenvalue pairs, %d wanted",
                            name, t, a->gw.nent, nev);
    for (int c = 0; c < nev; c++) {
        double *zr = Z + (size_t)c * n, *zi = Zi + (size_t)c * n;
        kd_gyro_shape(&a->gw, c, zr, zi);
        normalise_shape(&a->s.M, zr, zi, MZ + (size_t)c * n, MZi + (size_t)c * n);
        om[c] = a->gw.ent[c].omega;
        gr[c] = a->gw.ent[c].growth;
    }
    return KD_OK;
}

kd_status kd_ked_along_instant(kd_ked_along* a, int i, kd_error* err) {
    const int n = a->n, nev = a->nev, kd = a->kd;
    const size_t nn = (size_t)n * (size_t)n, nb = (size_t)(kd + 1) * (size_t)n, sh = (size_t)n * (size_t)nev;
    const double t = a->src.t[i];
    double N, dN, d2N;
    kd_law_eval(a->src.preload, t, &N, &dN, &d2N);
    a->model->body[0].preload = N;
    kd_system_invalidate(&a->s);
    int changed;
    kd_system_matrices(&a->s, t, &a->C, &a->K, &changed);
    lapack_int info = 0, m_found = 0;
    double *w = a->w, *Z = a->Z;
    if (a->dense) {
        const double* Ud = a->Ud;
        double* Kd = a->Ud + nn;
        band_to_dense(&a->K, Kd);
        for (int c = 0; c < n; c++)  /* both triangles */
            for (int r = c + 1; r < n; r++) Kd[r + (size_t)c * n] = Kd[c + (size_t)r * n];
        /* U^-T K U^-1 by two triangular solves (level 3) */
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, n, n, 1.0, Ud, n, Kd, n);
        cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, n, n, 1.0, Ud, n, Kd, n);
        /* lowest nev eigenpairs of the reduced K: Householder tridiagonal form (dsytrd), MRRR on
         * the index range (dstemr; dsyevr would take bisection and inverse iteration for a
         * subset), back-transformation of the nev vectors only (dormtr) */
        double *d = a->work_d + a->lwork_d, *e = d + n, *tau = e + n;
        lapack_int tryrac = 1;
        info = LAPACKE_dsytrd_work(LAPACK_COL_MAJOR, 'U', n, Kd, n, d, e, tau, a->work_d, a->lwork_d);
        if (info == 0)
            info = LAPACKE_dstemr_work(LAPACK_COL_MAJOR, 'V', 'I', n, d, e, 0.0, 0.0, 1, nev, &m_found, w, Z, n, nev,
                                       a->iwork + 10 * (size_t)n, &tryrac, a->work_d, a->lwork_d, a->iwork, a->liwork_d);
        if (info == 0)
            info = LAPACKE_dormtr_work(LAPACK_COL_MAJOR, 'L', 'U', 'N', n, nev, Kd, n, tau, Z, n, a->work_d, a->lwork_d);
        if (info == 0)  /* z = U^-1 y: mass-normalised */
            cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, nev, 1.0, Ud, n, Z, n);
    } else {
        band_to_sym(&a->K, kd, a->A);
        memcpy(a->B, a->M, sizeof(double) * nb);
        info = LAPACKE_dsbgvx_work(LAPACK_COL_MAJOR, 'V', 'I', 'U', n, kd, kd, a->A, kd + 1, a->B, kd + 1, a->Q, n, 0.0,
                                   0.0, 1, nev, 0.0, &m_found, w, Z, n, a->work, a->iwork, a->iwork + 5 * (size_t)n);
    }
    if (info != 0 || m_found < nev)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "modes of link '%s' at t = %g s: the eigensolver failed (LAPACK info %d)", a->src.name, t,
                            (int)info);
    instant_head h;
    memset(&h, 0, sizeof(h));
    h.t = t;
    h.gyro = a->gyroscopic && !instant_is_symmetric(&a->C, &a->K);
    h.refine = h.gyro && a->gyroscopic == KD_KED_GYRO_REFINE;
    double* p = (double*)(void*)(a->out + sizeof(h));
    memcpy(p, w, sizeof(double) * (size_t)nev);
    double *Zs = p + nev, *MZs = Zs + sh, *q = MZs + sh;
    memcpy(Zs, Z, sizeof(double) * sh);
    /* the symmetric route's shapes: real, M x for the MAC */
    for (int c = 0; c < nev; c++) kd_gband_matvec(&a->s.M, Zs + (size_t)c * n, MZs + (size_t)c * n);
    int refined_all = 1;
    if (h.refine) {
        /* every symmetric mode refined into the quadratic problem's (the followed ones are
         * known only in instant order) */
        double *ok = q, *om = ok + nev, *gr = om + nev, *Zr = gr + nev, *Zi = Zr + sh, *MZr = Zi + sh, *MZi = MZr + sh;
        memset(ok, 0, sizeof(double) * (3 * (size_t)nev + 4 * sh));
        memcpy(Zr, Zs, sizeof(double) * sh);
        memcpy(MZr, MZs, sizeof(double) * sh);
        for (int c = 0; c < nev; c++) {
            ok[c] = refine_mode(&a->rf, c, nev, &a->s.M, &a->C, &a->K, w, Zr, Zi, MZr, MZi, om, gr);
            refined_all &= ok[c] != 0.0;
        }
        q = MZi + sh;
    }
    if (h.gyro && (!h.refine || !refined_all)) {  /* the dense solver: asked for, or where refining fails */
        double *om = q, *gr = om + nev, *Zd = gr + nev, *Zdi = Zd + sh, *MZd = Zdi + sh, *MZdi = MZd + sh;
        memset(q, 0, sizeof(double) * (2 * (size_t)nev + 4 * sh));
        kd_error derr;
        kd_error_clear(&derr);
        const kd_status dst = instant_dense(a, t, om, gr, Zd, Zdi, MZd, MZdi, &derr);
        h.dense = dst ? 2 : 1, h.dense_st = (int32_t)dst;
        if (dst) memcpy(h.msg, derr.msg, strnlen(derr.msg, sizeof(h.msg) - 1));  /* h zeroed: terminated */
        q = MZdi + sh;
    }
    memcpy(a->out, &h, sizeof(h));
    a->out_size = sizeof(h) + sizeof(double) * (size_t)(q - p);
    return KD_OK;
}

/* ---- following the modes (in instant order): kd_ked_follow ------------------------------- */

struct kd_ked_follow {
    int n, count, nev, gyroscopic;
    kd_ked_modes* out;
    double *prev, *previ, *G, *Gi, *zero, *in;
    int *perm, *used;
    size_t in_cap;
};

void kd_ked_follow_free(kd_ked_follow** fp) {
    kd_ked_follow* f = fp ? *fp : NULL;
    if (!f) return;
    free(f->prev);
    free(f->perm);
    free(f->used);
    free(f->in);
    free(f);
    *fp = NULL;
}

kd_status kd_ked_follow_begin(const kd_ked* k, int link, int count, int gyroscopic, kd_ked_modes* out,
                              kd_ked_follow** fp, kd_error* err) {
    return link_follow_begin(ked_source(k, link), count, gyroscopic, out, fp, err);
}

kd_status link_follow_begin(along_source src, int count, int gyroscopic, kd_ked_modes* out, kd_ked_follow** fp,
                            kd_error* err) {
    memset(out, 0, sizeof(*out));
    *fp = NULL;
    const int n = src.neq, ns = src.ns;
    if (count > n) count = n;
    const int nev = count + 2 < n ? count + 2 : n;
    kd_ked_follow* f = calloc(1, sizeof(*f));
    if (f) {
        f->n = n, f->count = count, f->nev = nev, f->gyroscopic = gyroscopic, f->out = out;
        const size_t sh = (size_t)n * (size_t)count;
        f->prev = malloc(sizeof(double) * (2 * sh + 2 * (size_t)count * (size_t)nev + (size_t)n + 1));
        f->perm = calloc((size_t)nev, sizeof(int));
        f->used = calloc((size_t)(nev + count), sizeof(int));
    }
    out->t = malloc(sizeof(double) * (size_t)(ns ? ns : 1));
    out->omega = malloc(sizeof(double) * (size_t)(ns ? ns : 1) * (size_t)(count ? count : 1));
    if (!f || !f->prev || !f->perm || !f->used || !out->t || !out->omega) {
        kd_ked_follow_free(&f);
        kd_ked_modes_free(out);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    const size_t sh = (size_t)n * (size_t)count;
    f->previ = f->prev + sh, f->G = f->previ + sh, f->Gi = f->G + (size_t)count * nev, f->zero = f->Gi + (size_t)count * nev;
    memset(f->zero, 0, sizeof(double) * (size_t)n);
    out->nsamples = ns, out->count = count;
    out->mac_min = 1.0;
    *fp = f;
    return KD_OK;
}

/* prev^H M Z of the followed shapes against real shapes (M Z in MZ, imaginary part zero). */
static void follow_real(const kd_ked_follow* f, const double* MZ, int* perm) {
    const int n = f->n, count = f->count, nev = f->nev;
    for (int p = 0; p < count; p++)
        for (int c = 0; c < nev; c++)
            overlap(n, f->prev + (size_t)p * n, f->previ + (size_t)p * n, MZ + (size_t)c * n, f->zero,
                    &f->G[p + (size_t)c * count], &f->Gi[p + (size_t)c * count]);
    /* the assignment of follow_modes, from these overlaps */
    int* used = f->used;
    memset(used, 0, sizeof(int) * (size_t)(nev + count));
    int* assigned = used + nev;
    for (int step = 0; step < count; step++) {
        double best = -1.0;
        int bp = 0, bc = 0;
        for (int p = 0; p < count; p++) {
            if (assigned[p]) continue;
            for (int c = 0; c < nev; c++) {
                const double mac = f->G[p + (size_t)c * count] * f->G[p + (size_t)c * count] +
                                   f->Gi[p + (size_t)c * count] * f->Gi[p + (size_t)c * count];
                if (!used[c] && mac > best) best = mac, bp = p, bc = c;
            }
        }
        assigned[bp] = 1;
        used[bc] = 1;
        perm[bp] = bc;
    }
}

kd_status kd_ked_follow_add(kd_ked_follow* f, int i, const void* bytes, size_t size, kd_error* err) {
    const int n = f->n, count = f->count, nev = f->nev;
    const size_t sh = (size_t)n * (size_t)nev;
    kd_ked_modes* out = f->out;
    instant_head h;
    if (size < sizeof(h) || (size - sizeof(h)) % sizeof(double) || i < 0 || i >= out->nsamples)
        return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "modes along the motion: a damaged instant %d", i + 1);
    memcpy(&h, bytes, sizeof(h));
    const size_t nd = (size - sizeof(h)) / sizeof(double);
    const size_t want = (size_t)nev + 2 * sh + (h.refine ? 3 * (size_t)nev + 4 * sh : 0) +
                        (h.dense ? 2 * (size_t)nev + 4 * sh : 0);
    if (nd != want)
        return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "modes along the motion: a damaged instant %d", i + 1);
    if (nd > f->in_cap) {  /* aligned doubles (the bytes may come from anywhere) */
        double* q = realloc(f->in, sizeof(double) * nd);
        if (!q) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        f->in = q, f->in_cap = nd;
    }
    memcpy(f->in, (const unsigned char*)bytes + sizeof(h), sizeof(double) * nd);
    const double *w = f->in, *Zs = w + nev, *MZs = Zs + sh, *q = MZs + sh;
    const double *ok = NULL, *rom = NULL, *rgr = NULL, *Zr = NULL, *Zri = NULL, *MZr = NULL, *MZri = NULL;
    if (h.refine) {
        ok = q, rom = ok + nev, rgr = rom + nev, Zr = rgr + nev, Zri = Zr + sh, MZr = Zri + sh, MZri = MZr + sh;
        q = MZri + sh;
    }
    const double *dom = q, *dgr = dom + nev, *Zd = dgr + nev, *Zdi = Zd + sh, *MZd = Zdi + sh, *MZdi = MZd + sh;
    const int gyro = h.gyro;
    int* perm = f->perm;
    /* the set of shapes the followed modes take: symmetric, refined or dense */
    const double *Z = Zs, *Zi = NULL, *om = NULL, *gr = NULL;
    if (gyro) out->state_space++;
    int dense_ss = gyro && f->gyroscopic == KD_KED_GYRO_DENSE;
    for (int pass = 0; pass < 2; pass++) {
        if (dense_ss) {
            if (h.dense != 1) {
                h.msg[sizeof(h.msg) - 1] = '\0';
                return kd_error_set(err, h.dense == 2 && h.dense_st ? (kd_status)h.dense_st : KD_ERR_IO, "", KD_LOC_NONE,
                                    "%s", h.dense == 2 ? h.msg : "modes along the motion: no dense solution");
            }
            out->dense_instants++;
            Z = Zd, Zi = Zdi, om = dom, gr = dgr;
        }
        if (i == 0)
            for (int c = 0; c < nev; c++) perm[c] = c;
        else if (dense_ss)
            follow_modes(n, count, nev, f->prev, f->previ, MZd, MZdi, f->G, f->Gi, f->used, perm);
        else
            follow_real(f, MZs, perm);
        if (!gyro || dense_ss) break;
        /* the followed modes of the symmetric route, refined into the quadratic problem's; the
         * dense solver where that fails */
        int good = 1;
        for (int p = 0; p < count && good; p++) good = ok[perm[p]] != 0.0;
        if (good) {
            Z = Zr, Zi = Zri, om = rom, gr = rgr;
            for (int p = 0; p < count && i > 0; p++) {  /* overlaps of the refined shapes */
                const size_t o = (size_t)perm[p] * n;
                overlap(n, f->prev + (size_t)p * n, f->previ + (size_t)p * n, MZr + o, MZri + o,
                        &f->G[p + (size_t)perm[p] * count], &f->Gi[p + (size_t)perm[p] * count]);
            }
            break;
        }
        dense_ss = 1;
    }
    out->t[i] = h.t;
    if (i > 0) {
        int swapped = 0;
        for (int p = 0; p < count; p++) {
            const double gr2 = f->G[p + (size_t)perm[p] * count], gi = f->Gi[p + (size_t)perm[p] * count];
            if (gr2 * gr2 + gi * gi < out->mac_min) out->mac_min = gr2 * gr2 + gi * gi;
            swapped |= perm[p] != p;
        }
        out->swaps += swapped;
    }
    /* keep the followed shapes, phase (sign) aligned with the previous instant: multiplied by
     * conj(G) / |G| */
    for (int p = 0; p < count; p++) {
        const int c = perm[p];
        double cr = 1.0, ci = 0.0;
        if (i > 0) {
            const double gr2 = f->G[p + (size_t)c * count], gi = f->Gi[p + (size_t)c * count], ga = hypot(gr2, gi);
            if (ga > 0) cr = gr2 / ga, ci = -gi / ga;
        }
        const double *zr = Z + (size_t)c * n, *zi = Zi ? Zi + (size_t)c * n : f->zero;
        double *pr = f->prev + (size_t)p * n, *pi = f->previ + (size_t)p * n;
        for (int r = 0; r < n; r++) {
            const double xi = zi[r];
            pr[r] = cr * zr[r] - ci * xi;
            pi[r] = cr * xi + ci * zr[r];
        }
        out->omega[(size_t)i * count + p] = gyro ? om[c] : sqrt(fmax(w[c], 0.0));
        if (gyro && gr[c] > out->growth_max) out->growth_max = gr[c];
    }
    return KD_OK;
}

kd_status kd_ked_modes_along_motion_opt(kd_ked* k, int link, int count, int gyroscopic, kd_ked_modes* out,
                                        kd_error* err) {
    return link_modes_along_motion(ked_source(k, link), count, gyroscopic, out, err);
}

kd_status link_modes_along_motion(along_source src, int count, int gyroscopic, kd_ked_modes* out, kd_error* err) {
    kd_ked_follow* f = NULL;
    kd_ked_along* a = NULL;
    kd_status st = link_follow_begin(src, count, gyroscopic, out, &f, err);
    if (!st) st = link_along_new(src, count, gyroscopic, &a, err);
    for (int i = 0; i < src.ns && !st; i++) {
        st = kd_ked_along_instant(a, i, err);
        size_t size = 0;
        const void* b = st ? NULL : kd_ked_along_bytes(a, &size);
        if (!st) st = kd_ked_follow_add(f, i, b, size, err);
    }
    kd_ked_along_free(&a);
    kd_ked_follow_free(&f);
    if (st) kd_ked_modes_free(out);
    return st;
}
