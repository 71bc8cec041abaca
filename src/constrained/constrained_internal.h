/* Internal to the forward-dynamics solvers (src/constrained/): the shared workspace, the sparse Schur
 * complement of the augmented system and the generic ODE driver. Not a public header. */
#ifndef KEDYN_MBS_INTERNAL_H
#define KEDYN_MBS_INTERNAL_H

#include <cholmod.h>
#include <lapacke.h>

#include "kedyn/mbs.h"

/* Workspace of one forward-dynamics run: the system, the options, the evaluated constraint
 * quantities at the last state and the Cholesky factorisation of S = Phi_q M^-1 Phi_q^T.
 * Everything is allocated by mbs_ws_init, before the first step. */
typedef struct mbs_ws {
    const kd_cms* sys;
    const kd_mbs_opts* opts;
    int n, nc, nnz;
    double* minv;                 /* (n) diagonal of M^-1 (diagonal M only) */
    /* Block-diagonal M(q) (kd_cms.mass_blocks): values and Cholesky factors of every block at
     * the last evaluated position, and for the Schur complement the dense U_B = L_B^-1 J_B^T of
     * each block (the constraint rows touching it), filled from the Jacobian through jac_upos. */
    int blocked;
    size_t* boff;                 /* (nblocks + 1) offset of each block in Mb and Lb */
    double *Mb, *Lb;              /* (boff[nblocks]) M blocks and their lower Cholesky factors */
    int* brows;                   /* (nblocks + 1) offsets of each block's row count and U_B */
    size_t* uoff;                 /* (nblocks + 1) offset of U_B in U */
    double* U;                    /* (uoff[nblocks]) */
    int* jac_upos;                /* (nnz) position in U of each Jacobian entry */
    int* row_of;                  /* (brows[nblocks]) the constraint row of each block-row pair */
    double* jac;                  /* (nnz) Phi_q values at the last evaluation */
    double *phi, *phit, *gam;     /* (nc) Phi, Phi_t, gamma (Baumgarte-corrected when asked) */
    double* Q;                    /* (n) applied forces */
    double *qdd, *lambda;         /* (n), (nc) accelerations and multipliers of the last evaluation */
    double *tn, *tn2, *tn3;       /* (n) scratch */
    double *tc, *tc2, *tc3;       /* (nc) scratch */
    /* Sparse LDL^T of S + reg I, S = Phi_q M^-1 Phi_q^T, theory.md sec. 6 */
    cholmod_common cc;
    int cc_started;
    cholmod_sparse* S;            /* (nc x nc) upper triangle, rows and columns in AMD order */
    int *perm, *iperm;            /* (nc) perm[i]: constraint row at position i; iperm its inverse */
    int ncontrib;
    int* contrib;                 /* (4 ncontrib) entry of S, two Phi_q entries, coordinate */
    cholmod_factor* L;
    cholmod_dense* B;             /* (nc) permuted right-hand side and solution */
    double reg;                   /* 0, or the Tikhonov parameter when Phi_q is rank-deficient */
    double chol_fl, chol_lnz;     /* CHOLMOD's flop count of one factorisation and nnz(L) */
    kd_mbs_stats* stats;
    /* first failure: time and cause */
    int failed;
    double fail_t;
    char why[256];
} mbs_ws;

kd_status mbs_ws_init(mbs_ws* w, const kd_cms* sys, const kd_mbs_opts* o, kd_mbs_stats* stats, kd_error* err);
void mbs_ws_free(mbs_ws* w);
/* Record the first failure (time, printf message); returns -1 for use as a callback result. */
int mbs_fail(mbs_ws* w, double t, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Count floating-point work of a kernel (kd_mbs_stats.flops). */
static inline void mbs_flops(const mbs_ws* w, double fl) {
    if (w->stats) w->stats->flops += fl;
}
/* M(q) at (t, q): with block masses, the callback's values into w->Mb (mass_values) and their
 * Cholesky factors (mass_eval); nothing for a diagonal M. Nonzero after recording a failure. */
int mbs_mass_values(mbs_ws* w, double t, const double* q);
int mbs_mass_eval(mbs_ws* w, double t, const double* q);
/* y = M^-1 x with the last factors (y may alias x) and y = M x with the last values (no alias). */
void mbs_minv_apply(const mbs_ws* w, const double* x, double* y);
void mbs_mass_apply(const mbs_ws* w, const double* x, double* y);

/* y = Phi_q x (nc) and y = Phi_q^T x (n), from the values in w->jac. */
void mbs_jac_mult(const mbs_ws* w, const double* x, double* y);
void mbs_jac_tmult(const mbs_ws* w, const double* x, double* y);

/* Evaluate Phi_q at (q, t) into w->jac and factorise S (+ reg I). Returns 0, or nonzero after
 * recording a singular configuration. */
int mbs_schur_factor(mbs_ws* w, double t, const double* q);
/* x = S^-1 b (nc), or with reg > 0 the minimum-norm least-squares solution S^+ b by iterated
 * Tikhonov refinement. x and b may not alias. */
int mbs_schur_solve(mbs_ws* w, double t, const double* b, double* x);
/* At t0: detect rank deficiency of Phi_q (dense rank-revealing QR only when the Cholesky
 * factorisation says S is singular). Sets stats->dof, stats->redundant; with accept_redundant
 * switches to the regularised solve, otherwise fails. */
kd_status mbs_schur_check_rank(mbs_ws* w, double t, const double* q, int accept_redundant, kd_error* err);

/* Accelerations and multipliers at (t, q, v) by the augmented (uk = 0) or Udwadia-Kalaba
 * (uk = 1) form into w->qdd, w->lambda, with Baumgarte terms when the options ask for them. */
int mbs_accel(mbs_ws* w, double t, const double* q, const double* v, int uk);
/* Project (q, v) onto Phi = 0 (Gauss-Newton, minimum M-norm corrections) and then onto
 * Phi_q v + Phi_t = 0 (one M-orthogonal projection). */
int mbs_project(mbs_ws* w, double t, double* q, double* v);
/* x <- x - M^-1 Phi_q^T S^-1 Phi_q x: the M-orthogonal projection of x onto ker Phi_q, with the
 * Jacobian and factorisation of the last mbs_project (the tangent space of the manifold). */
int mbs_project_tangent(mbs_ws* w, double t, double* x);
/* Fill and emit one sample from (t, q, v) with w->qdd, w->lambda already evaluated at it. */
int mbs_emit(mbs_ws* w, double t, const double* q, const double* v, double work, kd_mbs_output_fn out, void* ctx);

/* A first-order ODE y' = f(t, y) for the generic driver (rk4 or CVODE). */
typedef struct mbs_ode {
    int m;                        /* state size */
    const int* failed;            /* the workspace's failure flag */
    void* ctx;
    int (*rhs)(void* ctx, double t, const double* y, double* yd);
    /* NULL, or project y in place onto the constraint manifold after each step */
    int (*project)(void* ctx, double t, double* y);
    /* NULL, or project an error vector e onto the tangent space at the last projected state */
    int (*project_err)(void* ctx, double t, double* e);
    /* at every output instant; may change y (new coordinates) and then sets *reinit = 1 */
    int (*output)(void* ctx, double t, double* y, int* reinit);
    /* 0, or nq > 0 when y = (x, x', e) with yd[i] = y[nq + i] exactly for i < nq and f
     * independent of e = y[2 nq..m): the Newton corrector then factorises an nq x nq block
     * (ode_newton.c, docs/theory.md sec. 23) */
    int nq;
} mbs_ode;

kd_status mbs_ode_run(mbs_ws* w, const mbs_ode* ode, double* y, kd_error* err);

/* CVODE's Newton corrector with a dense difference-quotient Jacobian (ode_newton.c). CVODE's user
 * data is an mbs_cv_user. attach creates the solvers and hands them to CVODE (nonzero: failed;
 * free *out in any case). */
typedef struct mbs_newton mbs_newton;
typedef struct mbs_cv_user {
    const mbs_ode* ode;
    mbs_newton* newton;           /* NULL with the fixed-point corrector */
} mbs_cv_user;
struct _generic_N_Vector;
struct _SUNContext;
int mbs_newton_attach(void* mem, struct _generic_N_Vector* y, struct _SUNContext* sctx, const mbs_ode* ode,
                      mbs_newton** out);
long mbs_newton_jacobians(const mbs_newton* nw);
/* The Newton system M = I - gamma J of the corrector (sec. 23). With 0 < nq <= m / 2 (J = [0 I 0;
 * A B 0; C D 0] by blocks of nq, nq, m - 2 nq rows and columns) J holds rows nq..m of columns
 * 0..2 nq ((m - nq) x 2 nq, column-major: [A B; C D]) and setup factorises the nq x nq block
 * I - gamma B - gamma^2 A; with nq = 0 J is the whole m x m Jacobian and M is factorised. */
typedef struct mbs_newton_sys {
    int m, nq, rows, cols;
    double* J;                    /* (rows x cols) */
    double* LU;                   /* (nq x nq, or m x m) the factorised matrix */
    lapack_int* ipiv;
    double gamma;                 /* of the last setup */
} mbs_newton_sys;
kd_status mbs_newton_sys_init(mbs_newton_sys* s, int m, int nq);
/* Form and factorise M for gamma (nonzero: singular); solve M x = b in place (x = b on entry). */
int mbs_newton_sys_setup(mbs_newton_sys* s, double gamma);
int mbs_newton_sys_solve(const mbs_newton_sys* s, double* x);
void mbs_newton_sys_free(mbs_newton_sys* s);
void mbs_newton_free(mbs_newton** nw);

/* The formulations (augmented and Udwadia-Kalaba in forward.c). */
kd_status mbs_run_maggi(mbs_ws* w, const double* q0, const double* qd0, kd_mbs_output_fn out, void* ctx,
                        kd_error* err);
/* Maggi's partitioned equations, set up once for repeated evaluations (maggi.c). */
typedef struct maggi maggi;
kd_status mbs_maggi_new(mbs_ws* w, double t0, const double* q0, maggi** out, kd_error* err);
/* q'' into w->qdd and lambda into w->lambda at the consistent state (t, q, q'). */
int mbs_maggi_eval(maggi* g, double t, const double* q, const double* qd);
void mbs_maggi_free(maggi** g);
/* The sparse Newton matrix of the GGL DAE (ida_jacobian.c): pattern and colouring set up at
 * (t0, q0, v0); eval fills the values of J = dF/dy + cj dF/dy' into a CSC SUNMatrix. */
typedef struct ida_jac ida_jac;
struct _generic_SUNMatrix;
kd_status mbs_ida_jac_new(mbs_ws* w, double t0, const double* q0, const double* v0, ida_jac** out, kd_error* err);
int mbs_ida_jac_eval(mbs_ws* w, ida_jac* J, double t, double cj, const double* y, const double* yp,
                     struct _generic_SUNMatrix* A);
int mbs_ida_jac_nnz(const ida_jac* J);
int mbs_ida_jac_colours(const ida_jac* J);
void mbs_ida_jac_free(ida_jac** J);
kd_status mbs_run_ida(mbs_ws* w, const double* q0, const double* qd0, kd_mbs_output_fn out, void* ctx,
                      kd_error* err);

#endif
