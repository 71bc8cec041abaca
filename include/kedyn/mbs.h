/* kedyn: forward dynamics of constrained mechanical systems (theory.md sec. 4 and 6).
 *
 * Given a system kd_cms (kedyn/cms.h)
 *
 *     M q'' + Phi_q^T lambda = Q(q, q', t),     Phi(q, t) = 0,
 *
 * and an initial state (q0, q0') (projected onto the constraints first), integrate the motion by one of four formulations
 * that must give the same trajectories:
 *
 *   augmented        Lagrange multipliers by the Schur complement
 *                    (Phi_q M^-1 Phi_q^T) lambda = Phi_q M^-1 Q - gamma_s, sparse Cholesky
 *                    (CHOLMOD: symbolic analysis once, numeric factorisation per evaluation),
 *                    q'' = M^-1 (Q - Phi_q^T lambda). Stabilisation: Baumgarte
 *                    (gamma_s = gamma - 2 alpha Phi' - beta^2 Phi), projection of (q, q') onto
 *                    Phi = 0, Phi_q q' = -Phi_t after every step, or none.
 *   udwadia-kalaba   Gauss's principle (Gibbs-Appell) in closed form:
 *                    q'' = a + M^-1/2 (Phi_q M^-1/2)^+ (gamma_s - Phi_q a), a = M^-1 Q, with
 *                    B^+ = B^T (B B^T)^+: the same sparse factorisation as above for independent
 *                    constraints; with redundant ones (found at t0) the minimum-norm solution by
 *                    iterated Tikhonov refinement, so that they are accepted.
 *   maggi            independent coordinates by coordinate partitioning: w = q_i, q' = A w',
 *                    A^T M A w'' = A^T (Q - M b), dependent coordinates from Phi = 0 by Newton
 *                    (sparse LU, KLU); the partition is chosen by LU with partial pivoting of
 *                    Phi_q^T and re-chosen when the dependent block gets ill-conditioned. Only
 *                    2 f states are integrated (f degrees of freedom); no drift.
 *   ida              the stabilised index-2 DAE (Gear-Gupta-Leimkuhler) in (q, v, lambda, mu):
 *                    M (q' - v) + Phi_q^T mu = 0, M v' + Phi_q^T lambda = Q, Phi = 0,
 *                    Phi_q v + Phi_t = 0, with SUNDIALS IDA (sparse Newton matrix
 *                    factorised by KLU: cost per step linear in the length of a chain).
 *
 * The first three produce an ODE integrated with a fixed-step classical Runge-Kutta (rk4) or with
 * SUNDIALS CVODE (BDF with fixed-point iteration, adaptive; projection through CVODE's projection
 * interface).
 *
 * M is diagonal (kd_cms.mass) or block-diagonal and configuration-dependent (kd_cms.mass_blocks,
 * floating-frame elastic bodies, kedyn/ffr.h): each block is factorised by a dense Cholesky at
 * every evaluation, and S = sum over blocks of (L_B^-1 J_B^T)^T (L_B^-1 J_B^T).
 *
 * Workspaces are allocated before the first step; no evaluation allocates (Maggi's KLU
 * factorisation is redone, with allocation, only when the partition is chosen again; SUNDIALS
 * keeps its own workspaces).
 */
#ifndef KEDYN_MBS_H
#define KEDYN_MBS_H

#include "kedyn/cms.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_mbs_formulation {
    KD_MBS_AUGMENTED = 0,
    KD_MBS_UDWADIA_KALABA,
    KD_MBS_MAGGI,
    KD_MBS_IDA
} kd_mbs_formulation;

typedef enum kd_mbs_stabilization {
    KD_MBS_STAB_BAUMGARTE = 0,    /* gamma_s = gamma - 2 alpha Phi' - beta^2 Phi */
    KD_MBS_STAB_PROJECTION,       /* project (q, q') onto the constraint manifold after each step */
    KD_MBS_STAB_NONE
} kd_mbs_stabilization;

typedef enum kd_mbs_integrator {
    KD_MBS_RK4 = 0,               /* classical Runge-Kutta, fixed dt */
    KD_MBS_CVODE                  /* SUNDIALS CVODE BDF (or Adams: adams), adaptive (rtol, atol) */
} kd_mbs_integrator;

/* The corrector iteration of CVODE (docs/theory.md, "BDF with a Newton corrector"). */
typedef enum kd_mbs_nonlinear {
    KD_MBS_NLS_AUTO = 0,          /* Newton for BDF, fixed point for Adams */
    KD_MBS_NLS_NEWTON,            /* Newton with a dense difference-quotient Jacobian */
    KD_MBS_NLS_FIXED_POINT        /* functional iteration: no Jacobian, step bounded by h L < 1 */
} kd_mbs_nonlinear;

typedef struct kd_mbs_opts {
    kd_mbs_formulation formulation;
    kd_mbs_stabilization stabilization;  /* augmented and udwadia-kalaba */
    kd_mbs_integrator integrator;        /* all but ida */
    int adams;                    /* cvode: Adams-Moulton instead of BDF */
    kd_mbs_nonlinear nonlinear;   /* cvode: the corrector iteration */
    double t0, t_end;             /* t_end > t0 */
    double dt;                    /* rk4 step; adaptive methods: output spacing unit (> 0) */
    double rtol, atol;            /* adaptive tolerances (cvode, ida) */
    double alpha, beta;           /* Baumgarte parameters (1/s) */
    double proj_tol;              /* projection / position Newton tolerance on |Phi|_inf */
    int output_every;             /* output at t0 + k dt output_every (and at t_end); >= 1 */
    /* maggi only: NULL (the reduced equations A^T M A w'' = A^T (Q - M b) as matrix products), or
     * a route that forms them its own way from the same kinematic data: A (n x f, column-major:
     * the velocities of every coordinate for unit independent speeds, i.e. the partial
     * velocities), b (n: the accelerations for zero independent accelerations), Q (n), the state
     * (q, q'). It fills Mh (f x f, column-major, at least the lower triangle) and rh (f) of
     * Mh w'' = rh, adds its floating-point work to *flops and returns 0 (nonzero aborts).
     * Kane's equations use this (kedyn/mech_formalism.h). */
    int (*reduced)(void* ctx, double t, const double* q, const double* qd, int f, const double* A, const double* b,
                   const double* Q, double* Mh, double* rh, double* flops);
    void* reduced_ctx;
} kd_mbs_opts;

/* Defaults: augmented, Baumgarte alpha = beta = 10 /s, rk4, t0 = 0, t_end = 1, dt = 1e-3,
 * rtol 1e-8, atol 1e-10, proj_tol 1e-12, output_every 1. */
void kd_mbs_opts_default(kd_mbs_opts* o);

/* The defaults, then the options a dynamics analysis of a mechanism names
 * (src/constrained/opts_from_desc.c): formulation, stabilization, integrator
 * (rk4 -> KD_MBS_RK4, cvode-* -> KD_MBS_CVODE; UNSET choices resolved as
 * kd_dynamics_resolve does for mechanisms), rtol, atol, output_every, and
 * t_end; dt, or t_end / 1000 when 0. */
struct kd_dynamics_desc;
void kd_mbs_opts_from_dynamics(kd_mbs_opts* o, const struct kd_dynamics_desc* dy, double t_end);

/* Names used in model files and reports ("augmented", "udwadia-kalaba", "maggi", "ida"; "baumgarte",
 * "projection", "none"; "rk4", "cvode"); parse returns -1 for an unknown name. */
const char* kd_mbs_formulation_name(kd_mbs_formulation f);
int kd_mbs_formulation_parse(const char* s);
const char* kd_mbs_stabilization_name(kd_mbs_stabilization s);
int kd_mbs_stabilization_parse(const char* s);
const char* kd_mbs_integrator_name(kd_mbs_integrator i);
int kd_mbs_integrator_parse(const char* s);

/* One output instant. Arrays are borrowed for the duration of the callback. */
typedef struct kd_mbs_sample {
    double t;
    const double *q, *qd, *qdd;   /* (n) */
    const double* lambda;         /* (nc) multipliers (Phi_q^T lambda is the constraint force) */
    double drift_pos;             /* |Phi(q, t)|_inf */
    double drift_vel;             /* |Phi_q q' + Phi_t|_inf */
    double kinetic;               /* T = q'^T M q' / 2 */
    double work;                  /* W = integral of Q^T q' dt from t0 (applied forces; with a block
                                     mass M(q) Q includes the quadratic-velocity forces, whose power
                                     -q'^T M' q' / 2 makes T - T0 differ from W) */
} kd_mbs_sample;

/* Called at t0 and at every output instant; return nonzero to stop (reported as KD_ERR_NUMERIC). */
typedef int (*kd_mbs_output_fn)(void* ctx, const kd_mbs_sample* s);

typedef struct kd_mbs_stats {
    long steps;                   /* accepted time steps */
    long evaluations;             /* evaluations of the accelerations (or DAE residuals) */
    long factorizations;          /* numeric sparse (or dense) factorisations */
    long projections;             /* projections onto the constraint manifold */
    long jacobians;               /* cvode Newton: difference-quotient Jacobians of y' = f(t, y) */
    long nonlinear_iterations;    /* cvode: corrector iterations (Newton or fixed point) */
    long nonlinear_failures;      /* cvode: corrector convergence failures */
    long repartitions;            /* maggi: choices of the independent coordinates; ida: restarts
                                     on a new set of rows (kedyn/cms_rows.h) */
    int dof;                      /* n - rank(Phi_q) at t0 */
    int redundant;                /* constraint equations found redundant at t0 */
    double max_drift_pos;         /* largest |Phi|_inf over the output instants */
    double max_drift_vel;         /* largest |Phi_q q' + Phi_t|_inf over the output instants */
    double t_reached;             /* last time with a valid state */
    double flops;                 /* floating-point operations of the formulation's linear algebra:
                                     counted kernel calls times their known costs (sparse
                                     factorisations: CHOLMOD's and KLU's own flop counts); the
                                     constraint and force callbacks, the same for every
                                     formulation, are not included */
} kd_mbs_stats;

/* Integrate from (q0, qd0) at opts->t0 to opts->t_end. The initial state must satisfy the
 * position and velocity constraints (to proj_tol; it is projected onto them first). On failure
 * (singular configuration, redundant constraints where the formulation cannot take them, solver
 * error, callback abort) returns KD_ERR_NUMERIC with err->msg naming the time and the cause; the
 * output callback has received every state before it. stats and err may be NULL. */
kd_status kd_mbs_forward(const kd_cms* sys, const kd_mbs_opts* opts, const double* q0, const double* qd0,
                         kd_mbs_output_fn output, void* ctx, kd_mbs_stats* stats, kd_error* err);

/* One evaluation of the accelerations without integrating: q'' and lambda at a consistent state
 * (t, q, q') by the formulation of opts (augmented, udwadia-kalaba, maggi with or without
 * opts->reduced; ida evaluates as augmented: at a consistent state its DAE has the same
 * solution). No stabilisation terms. The evaluator is set up once at (t0, q0) (the Schur pattern,
 * maggi's partition) and then evaluates without allocation; stats (may be NULL) accumulate the
 * evaluations and flops of every call, so that the cost of one evaluation can be measured. */
typedef struct kd_mbs_evaluator kd_mbs_evaluator;
kd_status kd_mbs_evaluator_new(const kd_cms* sys, const kd_mbs_opts* opts, double t0, const double* q0,
                               kd_mbs_stats* stats, kd_mbs_evaluator** out, kd_error* err);
kd_status kd_mbs_evaluate(kd_mbs_evaluator* e, double t, const double* q, const double* qd, double* qdd,
                          double* lambda, kd_error* err);
void kd_mbs_evaluator_free(kd_mbs_evaluator** e);

#ifdef __cplusplus
}
#endif
#endif
