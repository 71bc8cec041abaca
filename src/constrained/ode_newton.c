/* The Newton corrector of CVODE's BDF integration of the forward-dynamics ODEs y' = f(t, y)
 * (docs/theory.md, "BDF with a Newton corrector"): each step solves
 *   G(y_n) = y_n - h beta_0 f(t_n, y_n) - a_n = 0
 * by Newton's method with the matrix I - gamma J, gamma = h beta_0, J ~ df/dy. J is a dense
 * difference-quotient Jacobian (one evaluation of f per column, the increments of CVODE's own
 * dense quotient), built here so that its evaluations are counted and it sees the same callbacks
 * as the right-hand side; SUNDIALS keeps it over several steps (rebuilding I - gamma J when gamma
 * changes) and evaluates it again after a convergence failure. I - gamma J is factorised by
 * LAPACK's dense LU (a SUNDIALS linear solver of our own: SUNDIALS' dense LU, in plain loops,
 * took 38 % of the two-way wiper's time), which suits the sizes of these ODEs (2 n + 1 for n
 * coordinates: tens to a few hundred). */
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_newton.h>

#include "constrained_internal.h"

#define JAC_STEPS 1000            /* steps between Jacobians without a convergence failure (CVODE: 51) */
#define CONV_COEF 0.03            /* the corrector's convergence test, times the error test's (CVODE: 0.1) */

struct mbs_newton {
    const mbs_ode* ode;
    void* mem;                    /* the CVODE memory (error weights, current step) */
    SUNMatrix A;
    SUNLinearSolver ls;
    SUNNonlinearSolver nls;
    N_Vector ewt;
    long jacobians;
    lapack_int* ipiv;             /* (m) pivots of the LU of I - gamma J */
};

/* ---- the dense LU of the Newton matrix by LAPACK, as a SUNDIALS linear solver ---- */
static SUNLinearSolver_Type lu_type(SUNLinearSolver S) {
    (void)S;
    return SUNLINEARSOLVER_DIRECT;
}
static SUNLinearSolver_ID lu_id(SUNLinearSolver S) {
    (void)S;
    return SUNLINEARSOLVER_CUSTOM;
}
/* A = I - gamma J (dense, column-major) is overwritten by its LU factors */
static int lu_setup(SUNLinearSolver S, SUNMatrix A) {
    const mbs_newton* nw = S->content;
    const lapack_int m = (lapack_int)SUNDenseMatrix_Rows(A);
    const lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, m, SUNDenseMatrix_Data(A), m, nw->ipiv);
    return info == 0 ? SUNLS_SUCCESS : info > 0 ? SUNLS_LUFACT_FAIL : SUNLS_PACKAGE_FAIL_UNREC;
}
static int lu_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, realtype tol) {
    (void)tol;
    const mbs_newton* nw = S->content;
    const lapack_int m = (lapack_int)SUNDenseMatrix_Rows(A);
    N_VScale(1.0, b, x);
    const lapack_int info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', m, 1, SUNDenseMatrix_Data(A), m, nw->ipiv,
                                                N_VGetArrayPointer(x), m);
    return info == 0 ? SUNLS_SUCCESS : SUNLS_PACKAGE_FAIL_UNREC;
}
static int lu_free(SUNLinearSolver S) {
    SUNLinSolFreeEmpty(S);
    return SUNLS_SUCCESS;
}

/* J[:, j] = (f(t, y + d_j e_j) - f(t, y)) / d_j, d_j = max(sqrt(eps) |y_j|, d_min / w_j), with
 * w the error weights and d_min = 1000 |h| eps m |f|_wrms (CVODE's choice). */
static int dq_jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* ud, N_Vector tmp1, N_Vector tmp2,
                  N_Vector tmp3) {
    (void)tmp2, (void)tmp3;
    mbs_newton* nw = ((const mbs_cv_user*)ud)->newton;
    const mbs_ode* ode = nw->ode;
    if (*ode->failed) return -1;
    const int m = ode->m;
    realtype h = 0;
    if (CVodeGetErrWeights(nw->mem, nw->ewt) || CVodeGetCurrentStep(nw->mem, &h)) return -1;
    const double* w = N_VGetArrayPointer(nw->ewt);
    const double* f0 = N_VGetArrayPointer(fy);
    double* yv = N_VGetArrayPointer(y);
    double* f1 = N_VGetArrayPointer(tmp1);
    const double srur = sqrt(DBL_EPSILON);
    const double fnorm = N_VWrmsNorm(fy, nw->ewt);
    const double dmin = fnorm != 0 ? 1000 * fabs(h) * DBL_EPSILON * m * fnorm : 1.0;
    for (int j = 0; j < m; j++) {
        const double yj = yv[j];
        const double d = fmax(srur * fabs(yj), dmin / w[j]);
        yv[j] = yj + d;
        const int bad = ode->rhs(ode->ctx, t, yv, f1);
        yv[j] = yj;
        if (bad) return -1;
        double* col = SUNDenseMatrix_Column(J, j);
        for (int i = 0; i < m; i++) col[i] = (f1[i] - f0[i]) / d;
    }
    nw->jacobians++;
    return 0;
}

int mbs_newton_attach(void* mem, N_Vector y, SUNContext sctx, const mbs_ode* ode, mbs_newton** out) {
    mbs_newton* nw = calloc(1, sizeof(*nw));
    *out = nw;
    if (!nw) return -1;
    nw->ode = ode, nw->mem = mem;
    nw->A = SUNDenseMatrix(ode->m, ode->m, sctx);
    nw->ipiv = malloc(sizeof(lapack_int) * (size_t)ode->m);
    nw->ls = SUNLinSolNewEmpty(sctx);
    if (nw->ls) {
        nw->ls->content = nw;
        nw->ls->ops->gettype = lu_type, nw->ls->ops->getid = lu_id;
        nw->ls->ops->setup = lu_setup, nw->ls->ops->solve = lu_solve, nw->ls->ops->free = lu_free;
    }
    nw->nls = SUNNonlinSol_Newton(y, sctx);
    nw->ewt = N_VClone(y);
    if (!nw->A || !nw->ipiv || !nw->ls || !nw->nls || !nw->ewt) return -1;
    int flag = CVodeSetNonlinearSolver(mem, nw->nls);
    if (!flag) flag = CVodeSetLinearSolver(mem, nw->ls, nw->A);
    if (!flag) flag = CVodeSetJacFn(mem, dq_jac);
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
    free((*nw)->ipiv);
    free(*nw);
    *nw = NULL;
}
