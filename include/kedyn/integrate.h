/* kedyn: time integration of linear(ised) second-order systems
 *
 *     M q'' + C(t) q' + K(t) q = f(t),      q(t0) = q0, q'(t0) = v0,
 *
 * the form every moving-frame analysis reduces to (theory.md sec. 3): M is
 * the constant consistent mass (symmetric positive definite), C(t) holds the
 * gyroscopic matrix and damping (not symmetric), K(t) the elastic, geometric
 * and inertia stiffness (not symmetric), f(t) the loads and inertia forces.
 * All three matrices share one general band structure (kl sub-, ku
 * super-diagonals), so every step costs O(n (kl + ku)^2) at most and memory
 * grows linearly with n.
 *
 * Integrators:
 *   - fixed step, second-order form: Newmark-beta (average acceleration by
 *     default), HHT-alpha, generalized-alpha (Chung & Hulbert 1993). The
 *     iteration matrix is factorised once and reused while the system says
 *     its matrices did not change;
 *   - adaptive, first-order form y = (q, q'): SUNDIALS CVODE (BDF or Adams)
 *     and ARKODE explicit Runge-Kutta (ERKStep), with rtol/atol.
 *
 * Ownership: the integrator allocates its workspace in kd_integrate and frees
 * it before returning; no allocation happens inside a step.
 */
#ifndef KEDYN_INTEGRATE_H
#define KEDYN_INTEGRATE_H

#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compact general band storage, column-major: A(i, j) for
 * max(0, j - ku) <= i <= min(n - 1, j + kl) at ab[ku + i - j + j * (kl + ku + 1)]. */
typedef struct kd_gband {
    int n, kl, ku;
    double* ab;                   /* ((kl + ku + 1) x n) */
} kd_gband;

kd_status kd_gband_init(kd_gband* a, int n, int kl, int ku);
void kd_gband_free(kd_gband* a);
void kd_gband_zero(kd_gband* a);
/* y = A x (y and x distinct). */
void kd_gband_matvec(const kd_gband* a, const double* x, double* y);

/* r -= a A x + B y + C z, three matrices of one band structure, in one pass
 * (the residual of a time step); B may be NULL (a zero matrix). */
void kd_gband_residual3(const kd_gband* A, double a, const double* x, const kd_gband* B, const double* y,
                        const kd_gband* C, const double* z, double* r);

/* kd_gband_combine_lu and kd_gband_residual3 (with B = C) in one pass over
 * M, C, K; *c_zero tells whether C is zero. */
void kd_gband_combine_lu_residual(kd_gband* S, double cm, const kd_gband* M, double cc, const kd_gband* C, double ck,
                                  const kd_gband* K, double a, const double* x, const double* y, const double* z,
                                  double* r, int* c_zero);

/* S = cm M + cc C + ck K, three matrices of one band structure, written into
 * LAPACK's LU band storage of S (allocated with kl' = 2 kl: kl rows on top
 * for the fill of dgbtrf). */
void kd_gband_combine_lu(kd_gband* S, double cm, const kd_gband* M, double cc, const kd_gband* C, double ck,
                         const kd_gband* K);

/* Banded LU with partial pivoting of S in LAPACK's LU band storage (ab with
 * ld = 2 kl + ku + 1, as dgbtrf; the same pivots and factor), with the forward
 * substitution L y = P b of b done in the same pass (b may be NULL). Returns
 * 0, or j + 1 when column j has no nonzero pivot (S singular). */
int kd_gband_lu_factor(double* ab, int n, int kl, int ku, int* piv, double* b);
/* The same for columns j0..j1-1 only, so that a caller can factor a band
 * while assembling it: columns up to j1 - 1 + kl + ku and entries of b up to
 * j1 - 1 + kl must be final. Call with j0 = 0 first, then j0 = the previous
 * j1; *ju carries the reach of U between calls (0 before the first). */
int kd_gband_lu_factor_columns(double* ab, int n, int kl, int ku, int* piv, double* b, int j0, int j1, int* ju);
/* L y = P b and U x = y with that factor (together: dgbtrs). */
void kd_gband_lu_forward(const double* ab, int n, int kl, int ku, const int* piv, double* b);
void kd_gband_lu_back(const double* ab, int n, int kl, int ku, double* b);

/* The system being integrated, supplied by the caller. All callbacks return
 * 0 on success, nonzero to abort the integration (reported as
 * KD_ERR_NUMERIC with the time). */
typedef struct kd_ode2 {
    int n, kl, ku;                /* size and band structure of M, C, K */
    const kd_gband* M;            /* constant mass matrix (same kl, ku) */
    void* ctx;                    /* passed to every callback */
    /* Fill C(t) and K(t) (already allocated with n, kl, ku; overwrite all
     * entries). Set *changed = 0 when both are identical to those of the
     * previous call (e.g. constant frame speed), 1 otherwise; the first call
     * may say either. An integrator passes the same C and K at every call
     * and never writes to them, so with *changed = 0 the callback may leave
     * them as they are. */
    int (*matrices)(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed);
    /* f(t) into f (length n). */
    int (*force)(void* ctx, double t, double* f);
    /* Optional (NULL when absent; zero-initialise a kd_ode2): a fused step of
     * the fixed-step integrators. When C(t) or K(t) changed since its last
     * call (or S is new, or cm, cc, ck differ), write S = cm M + cc C + ck K
     * into S, in LAPACK's LU band storage (kl' = 2 kl, as kd_gband_combine_lu),
     * subtract am M a + C x + K y from r, and set *changed = 1; otherwise
     * touch neither and set *changed = 0 (the integrator then forms the
     * residual with C and K from `matrices`). Saves forming, storing and
     * reading C and K when they change every step. With piv not NULL the
     * callback may also factor S while it assembles it (kd_gband_lu_factor_columns,
     * pivots into piv) and forward-substitute r (L y = P r); it then sets
     * *changed = 2 (3 when S is singular) and the integrator only substitutes
     * back. It does so only
     * when S is not symmetric (a symmetric S is left to banded Cholesky). */
    int (*iteration)(void* ctx, double t, double cm, double cc, double ck, double am, const double* a, const double* x,
                     const double* y, kd_gband* S, double* r, int* piv, int* changed);
    /* Optional (NULL when absent): the whole linear step of the fixed-step integrators, for a
     * system that keeps its own factorisation. r holds f(t); overwrite it with the solution of
     * S a_new = r - am M a - C(t) x - K(t) y, S = cm M + cc C(t) + ck K(t), to round-off. When
     * set, `iteration` is not called and `matrices` only for the initial acceleration; *factored
     * += the factorisations it did. */
    int (*step)(void* ctx, double t, double cm, double cc, double ck, double am, const double* a, const double* x,
                const double* y, double* r, int* factored);
} kd_ode2;

typedef enum kd_integrator {
    KD_INT_NEWMARK = 0,           /* fixed dt; beta, gamma */
    KD_INT_HHT,                   /* fixed dt; alpha in [-1/3, 0] */
    KD_INT_GENERALIZED_ALPHA,     /* fixed dt; rho_inf in [0, 1] */
    KD_INT_CVODE_BDF,             /* adaptive; rtol, atol; dt = first step, dt_max */
    KD_INT_CVODE_ADAMS,
    KD_INT_ARKODE_RK,             /* explicit Runge-Kutta (ERKStep, default table) */
    /* Hamilton's canonical equations in (q, p) (kedyn/hamilton.h, not kd_integrate) */
    KD_INT_HAMILTON_CVODE,        /* adaptive CVODE BDF on (q, p) */
    KD_INT_IMPLICIT_MIDPOINT      /* fixed dt, symplectic */
} kd_integrator;

typedef struct kd_integrate_opts {
    kd_integrator method;
    double t0, t_end;             /* t_end > t0 */
    double dt;                    /* fixed step; for adaptive methods the first step (0 = solver's choice) */
    double dt_max;                /* adaptive: largest step (0 = none) */
    double rtol, atol;            /* adaptive tolerances */
    double beta, gamma;           /* Newmark (default 1/4, 1/2) */
    double alpha;                 /* HHT (default -0.05) */
    double rho_inf;               /* generalized-alpha spectral radius at infinity (default 0.9) */
    int output_every;             /* call `output` every this many steps (fixed) or at
                                     t0 + k * dt * output_every (adaptive); >= 1 */
} kd_integrate_opts;

/* Fill defaults: Newmark, beta 1/4, gamma 1/2, alpha -0.05, rho_inf 0.9,
 * rtol 1e-8, atol 1e-10, output_every 1. */
void kd_integrate_opts_default(kd_integrate_opts* o);

/* Called at t0 and at every output instant with the state (q, v = q', a =
 * q''); return nonzero to stop (reported as KD_ERR_NUMERIC). */
typedef int (*kd_output_fn)(void* ctx, double t, const double* q, const double* v, const double* a);

typedef struct kd_integrate_stats {
    long steps;                   /* accepted steps */
    long factorizations;          /* LU factorisations of the iteration matrix */
    long rhs_evals;               /* force/matrix evaluations */
    double t_reached;             /* last time with a valid state */
} kd_integrate_stats;

/* The quasi-static state of sys at t, K(t) q = f(t) (C and M play no part), by a
 * banded LU factorisation. Returns KD_ERR_NUMERIC ("at t = ... s: ...") when K(t)
 * is singular, e.g. a body buckled by its axial force. */
kd_status kd_ode2_static(const kd_ode2* sys, double t, double* q, kd_error* err);

/* Integrate from (q0, v0) at t0 to t_end. q0, v0 are not modified. On a
 * failure (singular iteration matrix, solver error, non-finite state,
 * callback abort) returns KD_ERR_NUMERIC with err->msg naming the time and
 * the cause; the output callback has received every state before it. */
kd_status kd_integrate(const kd_ode2* sys, const kd_integrate_opts* opts, const double* q0, const double* v0,
                       kd_output_fn output, void* output_ctx, kd_integrate_stats* stats, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
