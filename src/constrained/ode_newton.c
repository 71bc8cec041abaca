/* The Newton corrector of CVODE's BDF integration of the forward-dynamics ODEs y' = f(t, y)
 * (docs/theory.md, "BDF with a Newton corrector"): each step solves
 *   G(y_n) = y_n - h beta_0 f(t_n, y_n) - a_n = 0
 * by Newton's method with the matrix I - gamma J, gamma = h beta_0, J ~ df/dy. J is a dense
 * difference-quotient Jacobian (one evaluation of f per column, the increments of CVODE's own
 * dense quotient), built here so that its evaluations are counted and it sees the same callbacks
 * as the right-hand side; SUNDIALS keeps it over several steps (rebuilding I - gamma J when gamma
 * changes) and evaluates it again after a convergence failure. The linear system is ours (CVODE's
 * linear-system function and a linear solver of our own; SUNDIALS' dense LU, in plain loops, took
 * 38 % of the two-way wiper's time, and its copies of the m x m matrix at every setup 18 % of the
 * rigid wiper's): where the ODE says that y = (x, x', e) with x' = y[n..2n) exactly and f
 * independent of e (mbs_ode.nq = n), J = [0 I 0; A B 0; C D 0], only its rows of x'' and e are
 * kept (quotients over the 2 n columns of x and x') and only the n x n block I - gamma B -
 * gamma^2 A is factorised by LAPACK (docs/theory.md sec. 23, "The reduced Newton matrix");
 * otherwise the whole m x m matrix. */
#include <cblas.h>
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sunnonlinsol/sunnonlinsol_newton.h>

#include "constrained_internal.h"

#define JAC_STEPS 1000            /* steps between Jacobians without a convergence failure (CVODE: 51) */
#define CONV_COEF 0.03            /* the corrector's convergence test, times the error test's (CVODE: 0.1) */

/* ---- the Newton system M = I - gamma J (sec. 23) ---- */
kd_status mbs_newton_sys_init(mbs_newton_sys* s, int m, int nq) {
    memset(s, 0, sizeof(*s));
    s->m = m, s->nq = nq > 0 && 2 * nq <= m ? nq : 0;
    s->rows = s->nq ? m - s->nq : m, s->cols = s->nq ? 2 * s->nq : m;
    const size_t k = (size_t)(s->nq ? s->nq : m);
    s->J = malloc(sizeof(double) * (size_t)s->rows * (size_t)s->cols);
    s->LU = malloc(sizeof(double) * k * k);
    s->ipiv = malloc(sizeof(lapack_int) * k);
    if (s->J && s->LU && s->ipiv) return KD_OK;
    mbs_newton_sys_free(s);
    return KD_ERR_NOMEM;
}

void mbs_newton_sys_free(mbs_newton_sys* s) {
    free(s->J), free(s->LU), free(s->ipiv);
    s->J = s->LU = NULL, s->ipiv = NULL;
}

/* Form and factorise: K = I - gamma B - gamma^2 A (reduced), or I - gamma J. Nonzero: singular. */
int mbs_newton_sys_setup(mbs_newton_sys* s, double gamma) {
    const int nq = s->nq, r = s->rows;
    s->gamma = gamma;
    if (!nq) {
        const size_t mm = (size_t)s->m * (size_t)s->m;
        for (size_t k = 0; k < mm; k++) s->LU[k] = -gamma * s->J[k];
        for (int i = 0; i < s->m; i++) s->LU[i + (size_t)s->m * i] += 1;
        return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, s->m, s->m, s->LU, s->m, s->ipiv) != 0;
    }
    for (int j = 0; j < nq; j++) {
        const double* a = s->J + (size_t)r * j;          /* A[:, j]: rows of x'' */
        const double* b = s->J + (size_t)r * (nq + j);   /* B[:, j] */
        double* k = s->LU + (size_t)nq * j;
        for (int i = 0; i < nq; i++) k[i] = -gamma * (b[i] + gamma * a[i]);
        k[j] += 1;
    }
    return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, nq, nq, s->LU, nq, s->ipiv) != 0;
}

/* M x = b in place. Reduced, b = (r1, r2, r3):
 *   K dv = r2 + gamma A r1,   dq = r1 + gamma dv,   de = r3 + gamma (C dq + D dv). */
int mbs_newton_sys_solve(const mbs_newton_sys* s, double* x) {
    const int nq = s->nq, r = s->rows;
    if (!nq) return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', s->m, 1, s->LU, s->m, s->ipiv, x, s->m) != 0;
    const double g = s->gamma;
    cblas_dgemv(CblasColMajor, CblasNoTrans, nq, nq, g, s->J, r, x, 1, 1.0, x + nq, 1);
    if (LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nq, 1, s->LU, nq, s->ipiv, x + nq, nq)) return -1;
    for (int i = 0; i < nq; i++) x[i] += g * x[nq + i];
    if (r > nq) cblas_dgemv(CblasColMajor, CblasNoTrans, r - nq, 2 * nq, g, s->J + nq, r, x, 1, 1.0, x + 2 * nq, 1);
    return 0;
}

struct mbs_newton {
    const mbs_ode* ode;
    void* mem;                    /* the CVODE memory (error weights, current step) */
    SUNMatrix A;                  /* a handle for CVODE: the system is sys */
    SUNLinearSolver ls;
    SUNNonlinearSolver nls;
    N_Vector ewt;
    long jacobians;
    mbs_newton_sys sys;
};

/* ---- CVODE's interface: the matrix handle and the linear solver on sys ---- */
static SUNMatrix_ID mat_id(SUNMatrix A) {
    (void)A;
    return SUNMATRIX_CUSTOM;
}
static void mat_destroy(SUNMatrix A) { SUNMatFreeEmpty(A); }

static SUNLinearSolver_Type lu_type(SUNLinearSolver S) {
    (void)S;
    return SUNLINEARSOLVER_DIRECT;
}
static SUNLinearSolver_ID lu_id(SUNLinearSolver S) {
    (void)S;
    return SUNLINEARSOLVER_CUSTOM;
}
/* sys holds I - gamma J, formed by the linear-system function below: factorise it */
static int lu_setup(SUNLinearSolver S, SUNMatrix A) {
    (void)A;
    mbs_newton* nw = S->content;
    return mbs_newton_sys_setup(&nw->sys, nw->sys.gamma) ? SUNLS_LUFACT_FAIL : SUNLS_SUCCESS;
}
static int lu_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, realtype tol) {
    (void)A, (void)tol;
    const mbs_newton* nw = S->content;
    N_VScale(1.0, b, x);
    return mbs_newton_sys_solve(&nw->sys, N_VGetArrayPointer(x)) ? SUNLS_PACKAGE_FAIL_UNREC : SUNLS_SUCCESS;
}
static int lu_free(SUNLinearSolver S) {
    SUNLinSolFreeEmpty(S);
    return SUNLS_SUCCESS;
}

/* J[:, j] = (f(t, y + d_j e_j) - f(t, y)) / d_j, d_j = max(sqrt(eps) |y_j|, d_min / w_j), with
 * w the error weights and d_min = 1000 |h| eps m |f|_wrms (CVODE's choice). Reduced (sec. 23):
 * the 2 nq columns of x and x', rows nq..m only. */
static int dq_jac(mbs_newton* nw, realtype t, N_Vector y, N_Vector fy, N_Vector tmp) {
    const mbs_ode* ode = nw->ode;
    mbs_newton_sys* s = &nw->sys;
    const int m = ode->m, r0 = m - s->rows;
    realtype h = 0;
    if (CVodeGetErrWeights(nw->mem, nw->ewt) || CVodeGetCurrentStep(nw->mem, &h)) return -1;
    const double* w = N_VGetArrayPointer(nw->ewt);
    const double* f0 = N_VGetArrayPointer(fy);
    double* yv = N_VGetArrayPointer(y);
    double* f1 = N_VGetArrayPointer(tmp);
    const double srur = sqrt(DBL_EPSILON);
    const double fnorm = N_VWrmsNorm(fy, nw->ewt);
    const double dmin = fnorm != 0 ? 1000 * fabs(h) * DBL_EPSILON * m * fnorm : 1.0;
    for (int j = 0; j < s->cols; j++) {
        const double yj = yv[j];
        const double d = fmax(srur * fabs(yj), dmin / w[j]);
        yv[j] = yj + d;
        const int bad = ode->rhs(ode->ctx, t, yv, f1);
        yv[j] = yj;
        if (bad) return -1;
        double* col = s->J + (size_t)s->rows * j;
        for (int i = 0; i < s->rows; i++) col[i] = (f1[r0 + i] - f0[r0 + i]) / d;
    }
    nw->jacobians++;
    return 0;
}

/* CVODE's linear-system function: a new J when CVODE asks (jok false), then gamma for the setup */
static int linsys(realtype t, N_Vector y, N_Vector fy, SUNMatrix A, booleantype jok, booleantype* jcur,
                  realtype gamma, void* ud, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
    (void)A, (void)tmp2, (void)tmp3;
    mbs_newton* nw = ((const mbs_cv_user*)ud)->newton;
    if (*nw->ode->failed) return -1;
    *jcur = !jok;
    if (!jok && dq_jac(nw, t, y, fy, tmp1)) return -1;
    nw->sys.gamma = gamma;
    return 0;
}

int mbs_newton_attach(void* mem, N_Vector y, SUNContext sctx, const mbs_ode* ode, mbs_newton** out) {
    mbs_newton* nw = calloc(1, sizeof(*nw));
    *out = nw;
    if (!nw) return -1;
    nw->ode = ode, nw->mem = mem;
    if (mbs_newton_sys_init(&nw->sys, ode->m, ode->nq)) return -1;
    nw->A = SUNMatNewEmpty(sctx);
    if (nw->A) nw->A->content = nw, nw->A->ops->getid = mat_id, nw->A->ops->destroy = mat_destroy;
    nw->ls = SUNLinSolNewEmpty(sctx);
    if (nw->ls) {
        nw->ls->content = nw;
        nw->ls->ops->gettype = lu_type, nw->ls->ops->getid = lu_id;
        nw->ls->ops->setup = lu_setup, nw->ls->ops->solve = lu_solve, nw->ls->ops->free = lu_free;
    }
    nw->nls = SUNNonlinSol_Newton(y, sctx);
    nw->ewt = N_VClone(y);
    if (!nw->A || !nw->ls || !nw->nls || !nw->ewt) return -1;
    int flag = CVodeSetNonlinearSolver(mem, nw->nls);
    if (!flag) flag = CVodeSetLinearSolver(mem, nw->ls, nw->A);
    if (!flag) flag = CVodeSetLinSysFn(mem, linsys);
    /* a new J only after a convergence failure (or every JAC_STEPS steps): each is m evaluations
     * of f, and where gamma |J| is small (not stiff) an old J converges as well as a new one. The
     * corrector is accepted on a convergence rate estimated from earlier iterations, which an old J
     * makes optimistic, and its error passes the error test unseen (it is in the solution, not in
     * the estimate): a tighter test keeps it well below the tolerance (docs/theory.md, sec. 23) */
    if (!flag) flag = CVodeSetJacEvalFrequency(mem, JAC_STEPS);
    if (!flag) flag = CVodeSetNonlinConvCoef(mem, CONV_COEF);
    return flag;
}

long mbs_newton_jacobians(const mbs_newton* nw) { return nw ? nw->jacobians : 0; }

void mbs_newton_free(mbs_newton** nw) {
    if (!*nw) return;
    SUNNonlinSolFree((*nw)->nls);
    SUNLinSolFree((*nw)->ls);
    SUNMatDestroy((*nw)->A);
    N_VDestroy((*nw)->ewt);
    mbs_newton_sys_free(&(*nw)->sys);
    free(*nw);
    *nw = NULL;
}
