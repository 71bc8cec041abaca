/* Time integration (kedyn/integrate.h): option checks, dispatch, and the
 * fixed-step generalized-alpha family for M q'' + C(t) q' + K(t) q = f(t).
 *
 * Generalized-alpha (Chung & Hulbert 1993) enforces the equations at
 * intermediate instants,
 *   M a_{n+1-am} + C v_{n+1-af} + K q_{n+1-af} = f(t_{n+1-af}),
 *   x_{n+1-a} = (1 - a) x_{n+1} + a x_n,
 * with the Newmark updates q_{n+1} = q~ + beta dt^2 a_{n+1}, v_{n+1} = v~ +
 * gamma dt a_{n+1} (q~ = q_n + dt v_n + (1/2 - beta) dt^2 a_n, v~ = v_n +
 * (1 - gamma) dt a_n). The system is linear in the state, so each step is one
 * banded solve with the iteration matrix S = (1 - am) M + (1 - af)(gamma dt C
 * + beta dt^2 K), factorised again only when C or K changed (by banded
 * Cholesky when S is symmetric, banded LU otherwise). Newmark is am =
 * af = 0; HHT-alpha is am = 0, af = -alpha, gamma = (1 - 2 alpha)/2, beta =
 * (1 - alpha)^2/4. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/integrate.h"
#include "numerics/pair.h"

/* Implemented in step_sundials.c. */
kd_status integrate_sundials(const kd_ode2* sys, const kd_integrate_opts* o, const double* q0, const double* v0,
                                kd_output_fn output, void* output_ctx, kd_integrate_stats* stats, kd_error* err);

void kd_integrate_opts_default(kd_integrate_opts* o) {
    memset(o, 0, sizeof(*o));
    o->method = KD_INT_NEWMARK;
    o->beta = 0.25, o->gamma = 0.5, o->alpha = -0.05, o->rho_inf = 0.9;
    o->rtol = 1e-8, o->atol = 1e-10;
    o->output_every = 1;
}

static int fixed_step(kd_integrator m) {
    return m == KD_INT_NEWMARK || m == KD_INT_HHT || m == KD_INT_GENERALIZED_ALPHA;
}

/* The iteration matrix factorised: banded Cholesky when it is symmetric
 * (no gyroscopic or angular-acceleration terms: two triangular band solves
 * per step), banded LU otherwise. */
typedef struct iteration_matrix {
    kd_gband lu;                  /* LU band storage ((2 kl + ku + 1) x n) */
    double* chol;                 /* upper band ((ku + 1) x n) when symmetric, then the n */
                                  /* reciprocals of its diagonal (chol_band_solve) */
    int* piv;
    int symmetric;
} iteration_matrix;

/* Factorise S, already combined in it->lu, and solve S x = b in place.
 * The LU route forms the factor and the forward substitution in one pass over
 * the band (kd_gband_lu_factor), then substitutes back. Returns 0 on success. */
static void chol_band_solve(const double* u, int n, int ku, double* x);
static void chol_band_recip(double* u, int n, int ku);
static int factor_solve(iteration_matrix* it, double* b) {
    const int n = it->lu.n, kl = it->lu.kl / 2, ku = it->lu.ku;
    const double* S = it->lu.ab + kl;  /* compact band view inside the LU storage */
    const int lds = 2 * kl + ku + 1;
    it->symmetric = kl == ku;
    for (int j = 0; j < n && it->symmetric; j++)
        for (int i = j + 1; i <= j + kl && i < n; i++)
            if (S[(size_t)(ku + i - j) + (size_t)j * lds] != S[(size_t)(ku + j - i) + (size_t)i * lds]) {
                it->symmetric = 0;
                break;
            }
    if (it->symmetric) {
        for (int j = 0; j < n; j++)
            for (int r = 0; r <= ku; r++) it->chol[(size_t)r + (size_t)j * (ku + 1)] = S[(size_t)r + (size_t)j * lds];
        if (LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'U', n, ku, it->chol, ku + 1) != 0) return 1;
        chol_band_recip(it->chol, n, ku);
        chol_band_solve(it->chol, n, ku, b);
        return 0;
    }
    if (kd_gband_lu_factor(it->lu.ab, n, kl, ku, it->piv, b) != 0) return 1;
    kd_gband_lu_back(it->lu.ab, n, kl, ku, b);
    return 0;
}

/* The reciprocals 1 / U(j, j) after the factor (u[(ku + 1) n + j]): the substitutions multiply
 * rather than divide, their 2 n divisions being one chain of dependent operations (measured: a
 * third of a time step of the seed 001 bar; the solution changes in the last bit only). */
static void chol_band_recip(double* u, int n, int ku) {
    double* r = u + (size_t)(ku + 1) * (size_t)n;
    for (int j = 0; j < n; j++) r[j] = 1.0 / u[(size_t)j * (size_t)(ku + 1) + (size_t)ku];
}

/* U^T U x = b with the upper band Cholesky factor of dpbtrf (U(i, j) at
 * u[ku + i - j + j (ku + 1)]) and the reciprocals of its diagonal after it: forward by rows of
 * U^T, back by columns of U. Written out rather than LAPACK dpbtrs: on the narrow bands of these
 * models the two calls of OpenBLAS dtbsv (with their locking and buffer set-up) cost more than
 * the arithmetic (measured: a quarter of a time step of the seed 001 bar). */
static void chol_band_solve(const double* u, int n, int ku, double* x) {
    const int ld = ku + 1;
    const double* rd = u + (size_t)ld * (size_t)n;
    if (ku == 1) {  /* bidiagonal U (axial bars): the loops below without their one-term inner loops */
        x[0] *= rd[0];
        for (int j = 1; j < n; j++) x[j] = (x[j] - u[2 * j] * x[j - 1]) * rd[j];
        for (int j = n - 1; j >= 0; j--) {
            const double xj = x[j] * rd[j];
            x[j] = xj;
            if (j > 0) x[j - 1] -= u[2 * j] * xj;
        }
        return;
    }
    for (int j = 0; j < n; j++) {
        const double* col = u + (size_t)j * ld + ku - j;  /* col[i] = U(i, j) */
        double sum = x[j];
        for (int i = j - ku > 0 ? j - ku : 0; i < j; i++) sum -= col[i] * x[i];
        x[j] = sum * rd[j];
    }
    for (int j = n - 1; j >= 0; j--) {
        const double* col = u + (size_t)j * ld + ku - j;
        const double xj = x[j] * rd[j];
        x[j] = xj;
        for (int i = j - ku > 0 ? j - ku : 0; i < j; i++) x[i] -= col[i] * xj;
    }
}

static void solve(const iteration_matrix* it, double* x) {
    const int n = it->lu.n, kl = it->lu.kl / 2, ku = it->lu.ku;
    if (it->symmetric) chol_band_solve(it->chol, n, ku, x);
    else {
        kd_gband_lu_forward(it->lu.ab, n, kl, ku, it->piv, x);
        kd_gband_lu_back(it->lu.ab, n, kl, ku, x);
    }
}

/* The Newmark update of q and v with the new acceleration ai = rhs, and the arguments tmp, tmp2
 * of C and K for the next step, q~ and v~ formed where needed rather than stored (fewer passes over
 * the state vectors, which leave the cache on large models). The buffers are distinct (restrict),
 * so the loop vectorises. Returns 0 once the state is NaN or Inf (divergence). */
static int alpha_update(int n, double dt, double beta, double gamma, double af, double* restrict q,
                        double* restrict v, const double* restrict a, const double* restrict rhs,
                        double* restrict tmp, double* restrict tmp2) {
    double sum = 0;  /* finite unless the state is */
    for (int i = 0; i < n; i++) {
        const double qti = q[i] + dt * v[i] + dt * dt * (0.5 - beta) * a[i];
        const double vti = v[i] + dt * (1 - gamma) * a[i];
        const double ai = rhs[i], qi = qti + beta * dt * dt * ai, vi = vti + gamma * dt * ai;
        q[i] = qi, v[i] = vi;
        const double qtn = qi + dt * vi + dt * dt * (0.5 - beta) * ai, vtn = vi + dt * (1 - gamma) * ai;
        tmp[i] = (1 - af) * vtn + af * vi;
        tmp2[i] = (1 - af) * qtn + af * qi;
        sum += 0.0 * qi + 0.0 * vi;
    }
    return isfinite(sum);
}

/* The diagonals of tridiagonal M and K (band storage, A(i, j) at ab[1 + i + 2 j]) apart, for the
 * rows of tri_step with unit stride: d[0..n) M(i, i-1), then M(i, i), M(i, i+1), K(i, i-1), K(i, i),
 * K(i, i+1) (the missing corners zero). */
static void tri_split(const double* pm, const double* pk, int n, double* d) {
    const size_t N = (size_t)n;
    for (int i = 0; i < n; i++) {
        d[i] = i > 0 ? pm[3 * i - 1] : 0.0;
        d[N + i] = pm[3 * i + 1];
        d[2 * N + i] = i < n - 1 ? pm[3 * i + 3] : 0.0;
        d[3 * N + i] = i > 0 ? pk[3 * i - 1] : 0.0;
        d[4 * N + i] = pk[3 * i + 1];
        d[5 * N + i] = i < n - 1 ? pk[3 * i + 3] : 0.0;
    }
}

/* One step of a tridiagonal system with C = 0 and a bidiagonal Cholesky factor (axial bars: the
 * seed 001 bar; theory.md sec. 19), in two passes rather than five: ascending, the residual row
 * of kd_gband_residual3 (r_i -= M(i, j) (am a_j) + K(i, j) z_j for j = i - 1, i, i + 1) and at once
 * the forward substitution of chol_band_solve; descending, the back substitution and the Newmark
 * update of alpha_update for the entry just solved. Every value is formed by the same operations
 * in the same order as in those functions, so the bits are the same (tests/dynamics_steady_test.c,
 * the examples' CSV files); the carried x_j stays in a register rather than going through memory
 * (a store and a load in each link of the substitutions' chains of dependent operations), and the
 * residual rows and the updates, independent of each other, are formed two at a time beside them.
 * d: M and K split by tri_split; u: the factor of dpbtrf with ku = 1 and the reciprocals of its
 * diagonal after it. r: f in, the new acceleration out. n >= 2. Returns 0 once the state is NaN
 * or Inf. */
static int tri_step(int n, const double* restrict d, const double* restrict u, double am, double dt, double beta,
                    double gamma, double af, double* restrict q, double* restrict v, const double* restrict a,
                    double* restrict r, double* restrict tmp, double* restrict tmp2) {
    const size_t N = (size_t)n;
    const double *ml = d, *md = d + N, *mu = d + 2 * N, *kl = d + 3 * N, *kd = d + 4 * N, *ku = d + 5 * N;
    const double* rd = u + 2 * N;
    const double* z = tmp2;
    double ri = r[0];  /* the first row has no term on its left */
    ri -= md[0] * (am * a[0]) + kd[0] * z[0];
    ri -= mu[0] * (am * a[1]) + ku[0] * z[1];
    double x = ri * rd[0];  /* x_{i-1} of the forward substitution */
    r[0] = x;
    int i = 1;
#if KD_V2
    for (; i + 1 < n - 1; i += 2) {  /* rows i and i + 1, both inner */
        kd_v2 rr = ld2(r + i);
        rr -= ld2(ml + i) * (am * ld2(a + i - 1)) + ld2(kl + i) * ld2(z + i - 1);
        rr -= ld2(md + i) * (am * ld2(a + i)) + ld2(kd + i) * ld2(z + i);
        rr -= ld2(mu + i) * (am * ld2(a + i + 1)) + ld2(ku + i) * ld2(z + i + 1);
        x = (rr[0] - u[2 * i] * x) * rd[i];
        r[i] = x;
        x = (rr[1] - u[2 * i + 2] * x) * rd[i + 1];
        r[i + 1] = x;
    }
#endif
    for (; i < n; i++) {
        ri = r[i];
        ri -= ml[i] * (am * a[i - 1]) + kl[i] * z[i - 1];
        ri -= md[i] * (am * a[i]) + kd[i] * z[i];
        if (i < n - 1) ri -= mu[i] * (am * a[i + 1]) + ku[i] * z[i + 1];
        x = (ri - u[2 * i] * x) * rd[i];
        r[i] = x;
    }
    /* the constant factors of alpha_update, each the same product it forms */
    const double c1 = dt * dt * (0.5 - beta), c2 = beta * dt * dt, c3 = gamma * dt, c4 = dt * (1 - gamma);
    const double f1 = 1 - af;
    double c = x;  /* x_j once the terms of the rows below it are subtracted */
    i = n - 1;
#if KD_V2
    kd_v2 sum2 = {0.0, 0.0};
    for (; i >= 1; i -= 2) {  /* entries i and i - 1: the chain in scalars, the update in pairs */
        const double a1 = c * rd[i];
        c = r[i - 1] - u[2 * i] * a1;
        const double a0 = c * rd[i - 1];
        if (i > 1) c = r[i - 2] - u[2 * i - 2] * a0;
        r[i] = a1, r[i - 1] = a0;
        const int k = i - 1;
        const kd_v2 ai = {a0, a1}, qk = ld2(q + k), vk = ld2(v + k), ak = ld2(a + k);
        const kd_v2 qti = qk + dt * vk + c1 * ak, vti = vk + c4 * ak;
        const kd_v2 qi = qti + c2 * ai, vi = vti + c3 * ai;
        st2(q + k, qi), st2(v + k, vi);
        const kd_v2 qtn = qi + dt * vi + c1 * ai, vtn = vi + c4 * ai;
        st2(tmp + k, f1 * vtn + af * vi);
        st2(tmp2 + k, f1 * qtn + af * qi);
        sum2 += 0.0 * qi + 0.0 * vi;
    }
    double sum = sum2[0] + sum2[1];  /* finite unless the state is */
#else
    double sum = 0;
#endif
    for (; i >= 0; i--) {
        const double ai = c * rd[i];
        if (i > 0) c = r[i - 1] - u[2 * i] * ai;
        r[i] = ai;
        const double qti = q[i] + dt * v[i] + c1 * a[i];
        const double vti = v[i] + c4 * a[i];
        const double qi = qti + c2 * ai, vi = vti + c3 * ai;
        q[i] = qi, v[i] = vi;
        const double qtn = qi + dt * vi + c1 * ai, vtn = vi + c4 * ai;
        tmp[i] = f1 * vtn + af * vi;
        tmp2[i] = f1 * qtn + af * qi;
        sum += 0.0 * qi + 0.0 * vi;
    }
    return isfinite(sum);
}

#define FAILT(t, ...) kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, __VA_ARGS__)

static kd_status alpha_family(const kd_ode2* sys, const kd_integrate_opts* o, const double* q0, const double* v0,
                              kd_output_fn output, void* octx, kd_integrate_stats* stats, kd_error* err) {
    const int n = sys->n, kl = sys->kl, ku = sys->ku;
    double am = 0, af = 0, beta = o->beta, gamma = o->gamma;
    if (o->method == KD_INT_HHT) {
        af = -o->alpha;
        gamma = 0.5 - o->alpha;
        beta = 0.25 * (1 - o->alpha) * (1 - o->alpha);
    } else if (o->method == KD_INT_GENERALIZED_ALPHA) {
        const double r = o->rho_inf;
        am = (2 * r - 1) / (r + 1);
        af = r / (r + 1);
        gamma = 0.5 - am + af;
        beta = 0.25 * (1 - am + af) * (1 - am + af);
    }
    /* Steps: a whole number, the last one landing on t_end. */
    const long nsteps = lround((o->t_end - o->t0) / o->dt) > 0 ? lround((o->t_end - o->t0) / o->dt) : 1;
    const double dt = (o->t_end - o->t0) / (double)nsteps;

    kd_gband C = {0}, K = {0};
    iteration_matrix S = {0};
    S.piv = malloc(sizeof(int) * (size_t)n);
    S.chol = malloc(sizeof(double) * (size_t)(ku + 2) * (size_t)n);
    double* work = malloc(sizeof(double) * 13 * (size_t)n);  /* the state, then M and K split (tri_step) */
    kd_status st = kd_gband_init(&C, n, kl, ku);
    if (!st) st = kd_gband_init(&K, n, kl, ku);
    if (!st) st = kd_gband_init(&S.lu, n, 2 * kl, ku);  /* (2 kl + ku + 1) rows for dgbtrf */
    if (st || !S.piv || !S.chol || !work) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the integrator");
        goto done;
    }
    double *q = work, *v = q + n, *a = v + n, *rhs = a + n, *f = rhs + n, *tmp = f + n, *tmp2 = tmp + n;
    double* tri = tmp2 + n;
    int tri_valid = 0;  /* tri holds the M and K of this step */
    memcpy(q, q0, sizeof(double) * (size_t)n);
    memcpy(v, v0, sizeof(double) * (size_t)n);
    double t = o->t0;
    int changed;

    /* Initial acceleration: M a0 = f(t0) - C v0 - K q0. */
    if (sys->matrices(sys->ctx, t, &C, &K, &changed) || sys->force(sys->ctx, t, f)) {
        st = FAILT(t, "at t = %g s: the system could not be evaluated", t);
        goto done;
    }
    stats->rhs_evals++;
    kd_gband_matvec(&C, v, tmp);
    kd_gband_matvec(&K, q, tmp2);
    for (int i = 0; i < n; i++) a[i] = f[i] - tmp[i] - tmp2[i];
    kd_gband_combine_lu(&S.lu, 1.0, sys->M, 0.0, &C, 0.0, &K);
    if (factor_solve(&S, a)) {
        st = FAILT(t, "at t = %g s: the mass matrix is singular", t);
        goto done;
    }
    stats->t_reached = t;
    if (output && output(octx, t, q, v, a)) {
        st = FAILT(t, "at t = %g s: output stopped the integration", t);
        goto done;
    }

    /* S a1 = f - am M a - C[(1-af) v~ + af v] - K[(1-af) q~ + af q]: the
     * arguments tmp, tmp2 of C and K are formed here for the first step and
     * then by each step's update for the next one, and the predictors q~, v~
     * are formed again where needed rather than stored (fewer passes over
     * the state vectors, which leave the cache on large models). */
    for (int i = 0; i < n; i++) {
        const double qti = q[i] + dt * v[i] + dt * dt * (0.5 - beta) * a[i];
        const double vti = v[i] + dt * (1 - gamma) * a[i];
        tmp[i] = (1 - af) * vti + af * v[i];
        tmp2[i] = (1 - af) * qti + af * q[i];
    }
    int factored = 0, c_zero = 0, ck_valid = 0;
    for (long step = 1; step <= nsteps; step++) {
        int finite;
        const double t1 = step == nsteps ? o->t_end : o->t0 + (double)step * dt;
        const double tf = t1 - af * (t1 - t);
        if (sys->step) {  /* the system's own step (kd_ode2.step) */
            int nf = 0;
            if (sys->force(sys->ctx, tf, rhs) ||
                sys->step(sys->ctx, tf, 1 - am, (1 - af) * gamma * dt, (1 - af) * beta * dt * dt, am, a, tmp, tmp2, rhs, &nf)) {
                st = FAILT(tf, "at t = %g s: the system could not be evaluated or its step not solved", tf);
                break;
            }
            stats->rhs_evals++;
            stats->factorizations += nf;
            goto update;
        }
        /* f(t) straight into the residual */
        if ((!sys->iteration && sys->matrices(sys->ctx, tf, &C, &K, &changed)) || sys->force(sys->ctx, tf, rhs)) {
            st = FAILT(tf, "at t = %g s: the system could not be evaluated", tf);
            break;
        }
        stats->rhs_evals++;
        if (!sys->iteration) tri_valid = 0;  /* K evaluated again */
        const double cc = (1 - af) * gamma * dt, ck = (1 - af) * beta * dt * dt;
        int fresh = 0;  /* S and the residual formed by the system's fused step */
        if (sys->iteration) {
            if (sys->iteration(sys->ctx, tf, 1 - am, cc, ck, am, a, tmp, tmp2, &S.lu, rhs, S.piv, &fresh)) {
                st = FAILT(tf, "at t = %g s: the system could not be evaluated", tf);
                break;
            }
            if (fresh == 3) {
                st = FAILT(tf, "at t = %g s: the iteration matrix is singular", tf);
                break;
            }
            if (fresh) ck_valid = 0;
            changed = fresh;
            if (!fresh && !ck_valid) {  /* C and K for the residuals of unchanged steps */
                if (sys->matrices(sys->ctx, tf, &C, &K, &changed)) {
                    st = FAILT(tf, "at t = %g s: the system could not be evaluated", tf);
                    break;
                }
                changed = 0;
                c_zero = 1;
                for (size_t i = 0; i < (size_t)(kl + ku + 1) * (size_t)n && c_zero; i++) c_zero = C.ab[i] == 0.0;
                ck_valid = 1;
                tri_valid = 0;
            }
        }
        if (fresh || ((changed || !factored) && !sys->iteration)) {
            /* one pass over M, C, K: the new iteration matrix and the residual;
             * c_zero: no gyroscopic or damping terms (e.g. a bar), C skipped later */
            if (!fresh) kd_gband_combine_lu_residual(&S.lu, 1 - am, sys->M, cc, &C, ck, &K, am, a, tmp, tmp2, rhs, &c_zero);
            if (fresh == 2) {  /* factored and forward-substituted by the system's step */
                S.symmetric = 0;
                kd_gband_lu_back(S.lu.ab, n, kl, ku, rhs);
            } else if (factor_solve(&S, rhs)) {
                st = FAILT(tf, "at t = %g s: the iteration matrix is singular", tf);
                break;
            }
            stats->factorizations++;
            factored = 1;
            tri_valid = 0;
        } else if (c_zero && S.symmetric && kl == 1 && ku == 1 && n >= 2 && sys->M->kl == 1 && sys->M->ku == 1) {
            /* a bar: residual, solve and update in two passes */
            if (!tri_valid) tri_split(sys->M->ab, K.ab, n, tri), tri_valid = 1;
            finite = tri_step(n, tri, S.chol, am, dt, beta, gamma, af, q, v, a, rhs, tmp, tmp2);
            goto updated;
        } else {
            kd_gband_residual3(sys->M, am, a, c_zero ? NULL : &C, tmp, &K, tmp2, rhs);
            solve(&S, rhs);
        }
    update:
        /* the update, and tmp, tmp2 of the next step; the new acceleration
         * stays in rhs, which becomes a (the buffers swap) */
        finite = alpha_update(n, dt, beta, gamma, af, q, v, a, rhs, tmp, tmp2);
    updated:;
        double* swap = a;
        a = rhs, rhs = swap;
        if (!finite) {
            st = FAILT(t1, "at t = %g s: the solution is no longer finite (divergence)", t1);
            break;
        }
        t = t1;
        stats->steps++;
        stats->t_reached = t;
        if ((step % o->output_every == 0 || step == nsteps) && output && output(octx, t, q, v, a)) {
            st = FAILT(t, "at t = %g s: output stopped the integration", t);
            break;
        }
    }
done:
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_gband_free(&S.lu);
    free(S.piv);
    free(S.chol);
    free(work);
    return st;
}

kd_status kd_integrate(const kd_ode2* sys, const kd_integrate_opts* o, const double* q0, const double* v0,
                       kd_output_fn output, void* output_ctx, kd_integrate_stats* stats, kd_error* err) {
    kd_integrate_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof(*stats));
    stats->t_reached = o->t0;
    if (!(o->t_end > o->t0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "t_end (%g) must be later than t0 (%g)", o->t_end, o->t0);
    if (fixed_step(o->method) && !(o->dt > 0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "dt must be positive (got %g)", o->dt);
    if (!fixed_step(o->method) && !(o->rtol > 0 && o->atol > 0 && o->dt >= 0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "rtol and atol must be positive and dt >= 0");
    if (o->output_every < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "output_every must be >= 1");
    if (o->method == KD_INT_HAMILTON_CVODE || o->method == KD_INT_IMPLICIT_MIDPOINT)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "Hamilton's canonical integrators need the system's momenta (kd_hamilton_integrate)");
    if (fixed_step(o->method)) return alpha_family(sys, o, q0, v0, output, output_ctx, stats, err);
    return integrate_sundials(sys, o, q0, v0, output, output_ctx, stats, err);
}
