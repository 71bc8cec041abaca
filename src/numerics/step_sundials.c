/* Adaptive integration of M q'' + C(t) q' + K(t) q = f(t) in first-order
 * form y = (q, v), y' = (v, M^-1 (f - C v - K q)), with SUNDIALS 6
 * (kedyn/integrate.h):
 *   cvode-bdf    CVODE BDF, Newton with GMRES and an exact banded
 *                preconditioner: (I - g J) z = r reduces to
 *                (M + g C + g^2 K) z_v = M r_v - g K r_q, z_q = r_q + g z_v,
 *                so GMRES converges in about one iteration and the cost stays
 *                linear in the model;
 *   cvode-adams  CVODE Adams-Moulton with fixed-point iteration (non-stiff);
 *   arkode-rk    ARKODE ERKStep, explicit Runge-Kutta.
 * M^-1 is applied with a banded LU of M factorised once. */
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <lapacke.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "kedyn/integrate.h"

kd_status integrate_sundials(const kd_ode2* sys, const kd_integrate_opts* o, const double* q0, const double* v0,
                                kd_output_fn output, void* output_ctx, kd_integrate_stats* stats, kd_error* err);

typedef struct first_order {
    const kd_ode2* sys;
    int n, lds;
    kd_gband C, K;                /* matrices at the last evaluation */
    kd_gband Mlu, Plu;            /* LU of M; LU of M + g C + g^2 K */
    lapack_int *piv_m, *piv_p;
    double *f, *tmp, *tmp2;
    int failed;                   /* a callback failed */
} first_order;

/* y' = (v, M^-1 (f - C v - K q)) */
static int rhs(realtype t, N_Vector y, N_Vector ydot, void* ud) {
    first_order* fo = ud;
    const kd_ode2* s = fo->sys;
    const int n = fo->n;
    const double* q = N_VGetArrayPointer(y);
    const double* v = q + n;
    double* dq = N_VGetArrayPointer(ydot);
    double* dv = dq + n;
    int changed;
    if (s->matrices(s->ctx, t, &fo->C, &fo->K, &changed) || s->force(s->ctx, t, fo->f)) {
        fo->failed = 1;
        return -1;
    }
    kd_gband_matvec(&fo->C, v, fo->tmp);
    kd_gband_matvec(&fo->K, q, fo->tmp2);
    for (int i = 0; i < n; i++) dq[i] = v[i], dv[i] = fo->f[i] - fo->tmp[i] - fo->tmp2[i];
    LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', n, s->kl, s->ku, 1, fo->Mlu.ab, fo->lds, fo->piv_m, dv, n);
    return 0;
}

static int psetup(realtype t, N_Vector y, N_Vector fy, booleantype jok, booleantype* jcur, realtype g, void* ud) {
    (void)y, (void)fy, (void)jok;
    first_order* fo = ud;
    const kd_ode2* s = fo->sys;
    int changed;
    if (s->matrices(s->ctx, t, &fo->C, &fo->K, &changed)) {
        fo->failed = 1;
        return -1;
    }
    kd_gband_combine_lu(&fo->Plu, 1.0, s->M, g, &fo->C, g * g, &fo->K);
    *jcur = SUNTRUE;
    return LAPACKE_dgbtrf(LAPACK_COL_MAJOR, fo->n, fo->n, s->kl, s->ku, fo->Plu.ab, fo->lds, fo->piv_p) == 0 ? 0 : 1;
}

static int psolve(realtype t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z, realtype g, realtype delta, int lr,
                  void* ud) {
    (void)t, (void)y, (void)fy, (void)delta, (void)lr;
    first_order* fo = ud;
    const kd_ode2* s = fo->sys;
    const int n = fo->n;
    const double* rq = N_VGetArrayPointer(r);
    const double* rv = rq + n;
    double* zq = N_VGetArrayPointer(z);
    double* zv = zq + n;
    /* (M + g C + g^2 K) z_v = M r_v - g K r_q, z_q = r_q + g z_v */
    kd_gband_matvec(s->M, rv, zv);
    kd_gband_matvec(&fo->K, rq, fo->tmp);
    for (int i = 0; i < n; i++) zv[i] -= g * fo->tmp[i];
    LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', n, s->kl, s->ku, 1, fo->Plu.ab, fo->lds, fo->piv_p, zv, n);
    for (int i = 0; i < n; i++) zq[i] = rq[i] + g * zv[i];
    return 0;
}

static void free_first_order(first_order* fo) {
    kd_gband_free(&fo->C);
    kd_gband_free(&fo->K);
    kd_gband_free(&fo->Mlu);
    kd_gband_free(&fo->Plu);
    free(fo->piv_m);
    free(fo->piv_p);
    free(fo->f);
}

kd_status integrate_sundials(const kd_ode2* sys, const kd_integrate_opts* o, const double* q0, const double* v0,
                                kd_output_fn output, void* output_ctx, kd_integrate_stats* stats, kd_error* err) {
    const int n = sys->n, kl = sys->kl, ku = sys->ku;
    first_order fo;
    memset(&fo, 0, sizeof(fo));
    fo.sys = sys, fo.n = n, fo.lds = 2 * kl + ku + 1;
    kd_status st = kd_gband_init(&fo.C, n, kl, ku);
    if (!st) st = kd_gband_init(&fo.K, n, kl, ku);
    if (!st) st = kd_gband_init(&fo.Mlu, n, 2 * kl, ku);
    if (!st) st = kd_gband_init(&fo.Plu, n, 2 * kl, ku);
    fo.piv_m = malloc(sizeof(lapack_int) * (size_t)n);
    fo.piv_p = malloc(sizeof(lapack_int) * (size_t)n);
    fo.f = malloc(sizeof(double) * 3 * (size_t)n);
    if (st || !fo.piv_m || !fo.piv_p || !fo.f) {
        free_first_order(&fo);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the integrator");
    }
    fo.tmp = fo.f + n, fo.tmp2 = fo.tmp + n;
    kd_gband_combine_lu(&fo.Mlu, 1.0, sys->M, 0.0, &fo.C, 0.0, &fo.K);  /* C, K are still zero */
    if (LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, kl, ku, fo.Mlu.ab, fo.lds, fo.piv_m) != 0) {
        free_first_order(&fo);
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the mass matrix is singular", o->t0);
    }

    SUNContext ctx = NULL;
    void* mem = NULL;
    SUNLinearSolver ls = NULL;
    SUNNonlinearSolver nls = NULL;
    N_Vector y = NULL, yd = NULL;
    const int cv = o->method != KD_INT_ARKODE_RK;
    const char* name = o->method == KD_INT_CVODE_BDF ? "CVODE BDF" : (cv ? "CVODE Adams" : "ARKODE ERK");
    int flag = SUNContext_Create(NULL, &ctx);
    if (!flag) {
        y = N_VNew_Serial(2 * n, ctx);
        yd = N_VNew_Serial(2 * n, ctx);
    }
    if (flag || !y || !yd) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for %s", name);
        goto done;
    }
    memcpy(N_VGetArrayPointer(y), q0, sizeof(double) * (size_t)n);
    memcpy(N_VGetArrayPointer(y) + n, v0, sizeof(double) * (size_t)n);
    if (cv) {
        mem = CVodeCreate(o->method == KD_INT_CVODE_BDF ? CV_BDF : CV_ADAMS, ctx);
        flag = mem ? CVodeInit(mem, rhs, o->t0, y) : -1;
        if (!flag) flag = CVodeSStolerances(mem, o->rtol, o->atol);
        if (!flag) flag = CVodeSetUserData(mem, &fo);
        if (!flag) flag = CVodeSetMaxNumSteps(mem, 10000000);
        if (!flag) flag = CVodeSetStopTime(mem, o->t_end);
        if (!flag && o->dt > 0) flag = CVodeSetInitStep(mem, o->dt);
        if (!flag && o->dt_max > 0) flag = CVodeSetMaxStep(mem, o->dt_max);
        if (!flag && o->method == KD_INT_CVODE_BDF) {
            ls = SUNLinSol_SPGMR(y, SUN_PREC_LEFT, 10, ctx);
            flag = ls ? CVodeSetLinearSolver(mem, ls, NULL) : -1;
            if (!flag) flag = CVodeSetPreconditioner(mem, psetup, psolve);
        } else if (!flag) {
            nls = SUNNonlinSol_FixedPoint(y, 0, ctx);
            flag = nls ? CVodeSetNonlinearSolver(mem, nls) : -1;
        }
    } else {
        mem = ERKStepCreate(rhs, o->t0, y, ctx);
        flag = mem ? ERKStepSStolerances(mem, o->rtol, o->atol) : -1;
        if (!flag) flag = ERKStepSetUserData(mem, &fo);
        if (!flag) flag = ERKStepSetMaxNumSteps(mem, 10000000);
        if (!flag) flag = ERKStepSetStopTime(mem, o->t_end);
        if (!flag && o->dt > 0) flag = ERKStepSetInitStep(mem, o->dt);
        if (!flag && o->dt_max > 0) flag = ERKStepSetMaxStep(mem, o->dt_max);
    }
    if (flag) {
        st = kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "%s could not be set up (flag %d)", name, flag);
        goto done;
    }

    /* Output at t0 and every dt_out, the last exactly at t_end. */
    const double dt_out = o->dt > 0 ? o->dt * o->output_every : (o->t_end - o->t0) / 1000.0;
    const long nout = lround(ceil((o->t_end - o->t0) / dt_out - 1e-9));
    double t = o->t0;
    for (long k = 0; k <= nout && st == KD_OK; k++) {
        if (k > 0) {
            const double tout = k == nout ? o->t_end : o->t0 + (double)k * dt_out;
            flag = cv ? CVode(mem, tout, y, &t, CV_NORMAL) : ERKStepEvolve(mem, tout, y, &t, ARK_NORMAL);
            if (flag < 0) {
                /* the flag's name is allocated by SUNDIALS */
                char* why = fo.failed ? NULL : (cv ? CVodeGetReturnFlagName(flag) : ERKStepGetReturnFlagName(flag));
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: %s failed: %s", t, name,
                                  fo.failed ? "the system could not be evaluated" : why ? why : "?");
                free(why);
                break;
            }
        }
        /* the acceleration is the second half of y' */
        if (rhs(t, y, yd, &fo)) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the system could not be evaluated", t);
            break;
        }
        const double* yy = N_VGetArrayPointer(y);
        int finite = 1;
        for (int i = 0; i < 2 * n; i++) finite &= isfinite(yy[i]) != 0;
        if (!finite) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the solution is no longer finite", t);
            break;
        }
        stats->t_reached = t;
        if (output && output(output_ctx, t, yy, yy + n, N_VGetArrayPointer(yd) + n))
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: output stopped the integration", t);
    }
    long nst = 0, nfe = 0, npe = 0;
    if (cv) {
        CVodeGetNumSteps(mem, &nst);
        CVodeGetNumRhsEvals(mem, &nfe);
        if (o->method == KD_INT_CVODE_BDF) CVodeGetNumPrecEvals(mem, &npe);
    } else {
        ERKStepGetNumSteps(mem, &nst);
        ERKStepGetNumRhsEvals(mem, &nfe);
    }
    stats->steps = nst, stats->rhs_evals = nfe, stats->factorizations = npe;
done:
    if (mem && cv) CVodeFree(&mem);
    else if (mem) ERKStepFree(&mem);
    if (ls) SUNLinSolFree(ls);
    if (nls) SUNNonlinSolFree(nls);
    if (y) N_VDestroy(y);
    if (yd) N_VDestroy(yd);
    if (ctx) SUNContext_Free(&ctx);
    free_first_order(&fo);
    return st;
}
