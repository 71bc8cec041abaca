/* The equations of motion as a DAE for SUNDIALS IDA, in the stabilised index-2 form of Gear,
 * Gupta and Leimkuhler (GGL), with y = (q, v, lambda, mu, W):
 *
 *     M (q' - v) + Phi_q^T mu = 0          (mu = 0 on exact solutions; keeps q on Phi = 0)
 *     M v' + Phi_q^T lambda - Q = 0        (theory.md sec. 6)
 *     Phi(q, t) = 0
 *     Phi_q v + Phi_t = 0
 *     W' - Q^T v = 0                       (work of the applied forces)
 *
 * Both position and velocity constraints are enforced, so neither drifts. lambda and mu are
 * algebraic and left out of the local error test (IDASetSuppressAlg), as advised for index-2
 * systems. The first step is chosen here (initial_step), not by IDA. The Newton matrix is sparse
 * (ida_jacobian.c: exact first-derivative blocks, coloured difference quotients for the second
 * derivatives) and factorised by KLU through SUNDIALS' sunlinsol_klu, so that the cost per step
 * grows linearly with the length of a chain. */
#include <ida/ida.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "constrained_internal.h"
#include "kedyn/cms_rows.h"

typedef struct ggl {
    mbs_ws* w;
    ida_jac* J;
} ggl;

/* IDA's Jacobian callback: the sparse Newton matrix (ida_jacobian.c). */
static int newton_matrix(realtype t, realtype cj, N_Vector yy, N_Vector yp, N_Vector rr, SUNMatrix A, void* ud,
                         N_Vector t1, N_Vector t2, N_Vector t3) {
    (void)rr, (void)t1, (void)t2, (void)t3;
    ggl* g = ud;
    if (g->w->failed) return -1;
    return mbs_ida_jac_eval(g->w, g->J, t, cj, N_VGetArrayPointer(yy), N_VGetArrayPointer(yp), A) ? -1 : 0;
}

static int residual(realtype t, N_Vector yy, N_Vector yp, N_Vector rr, void* ud) {
    mbs_ws* w = ((ggl*)ud)->w;
    const kd_cms* s = w->sys;
    const int n = w->n, nc = w->nc;
    const double* y = N_VGetArrayPointer(yy);
    const double* d = N_VGetArrayPointer(yp);
    double* r = N_VGetArrayPointer(rr);
    const double *q = y, *v = y + n, *lam = y + 2 * n, *mu = y + 2 * n + nc;
    w->stats->evaluations++;
    if (w->failed) return -1;     /* sticky: no retry may pass a failure point */
    if (s->jacobian(s->ctx, t, q, w->jac) || s->phi(s->ctx, t, q, r + 2 * n) || s->phi_t(s->ctx, t, q, w->phit) ||
        s->force(s->ctx, t, q, v, w->Q)) {
        mbs_fail(w, t, "a system callback failed");
        return -1;
    }
    if (mbs_mass_values(w, t, q)) return -1;
    /* r_q = M (q' - v) + Phi_q^T mu, r_v = M v' + Phi_q^T lambda - Q */
    for (int i = 0; i < n; i++) w->tn3[i] = d[i] - v[i];
    mbs_mass_apply(w, w->tn3, r);
    mbs_mass_apply(w, d + n, r + n);
    mbs_jac_tmult(w, mu, w->tn);
    mbs_jac_tmult(w, lam, w->tn2);
    double p = 0;
    for (int i = 0; i < n; i++) {
        r[i] += w->tn[i];
        r[n + i] += w->tn2[i] - w->Q[i];
        p += w->Q[i] * v[i];
    }
    mbs_jac_mult(w, v, r + 2 * n + nc);
    for (int k = 0; k < nc; k++) r[2 * n + nc + k] += w->phit[k];
    r[2 * (n + nc)] = d[2 * (n + nc)] - p;
    return 0;
}

/* The first step, from the positions' second-order term: ||h^2 q''/2||_wrms = 1 with the
 * weights of (q, rtol, atol), at most one output interval. IDA's own estimate, 0.5/||y'||_wrms,
 * is ruled by the velocities: released from rest they are zero, their weight is 1/atol and the
 * first step comes out near 1e-11 s, where the Newton matrix of the index-2 system (condition
 * growing like 1/h^2) no longer converges in floating point and every retry shrinks h further. */
static double initial_step(const mbs_ws* w, const kd_mbs_opts* o, const double* y, const double* d, double rtol,
                           double abstol) {
    const int n = w->n;
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double e = d[n + i] / (rtol * fabs(y[i]) + abstol);
        s += e * e;
    }
    const double nrm = sqrt(s / n), span = o->dt * o->output_every;
    const double h = nrm > 0 ? sqrt(2 / nrm) : span;
    return fmin(h, span);
}

/* SUNDIALS reports through our error messages, not on stderr. */
static void quiet(int code, const char* module, const char* fn, char* msg, void* ud) {
    (void)code, (void)module, (void)fn, (void)msg, (void)ud;
}

static kd_status ida_failed(mbs_ws* w, void* mem, int flag, kd_error* err) {
    if (w->failed) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
    realtype tret = 0, h = 0;
    IDAGetCurrentTime(mem, &tret), IDAGetCurrentStep(mem, &h);
    char* name = IDAGetReturnFlagName(flag);  /* allocated by SUNDIALS */
    const kd_status st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                      "t = %g: IDA failed: %s with step %.3g s (near a singular configuration, such "
                                      "as a limit position, the corrector cannot converge)",
                                      tret, name ? name : "?", h);
    free(name);
    return st;
}

/* The integration on a view without the redundant rows (theory.md sec. 11.2, S16): one IDA step
 * at a time, the outputs interpolated (IDAGetDky); after each step the view checks its rows at the
 * step's state, and when they change IDA restarts there from a consistent state: q, v and W as
 * they are (the rows left out hold on the motion, so the new set is satisfied too), lambda and q''
 * from the augmented equations of the new rows, mu = 0, and a new factorisation with pivoting. */
static kd_status run_view(mbs_ws* w, ggl* g, void* mem, SUNLinearSolver LS, SUNMatrix A, N_Vector yy, N_Vector yp,
                          kd_cms_rows* view, long nout, double dto, kd_mbs_output_fn out, void* ctx,
                          kd_error* err) {
    const kd_mbs_opts* o = w->opts;
    const int n = w->n, nc = w->nc, m = 2 * (n + nc) + 1;
    N_Vector yi = N_VClone(yy), di = N_VClone(yp);
    if (!yi || !di) {
        if (yi) N_VDestroy(yi);
        if (di) N_VDestroy(di);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    double* y = N_VGetArrayPointer(yy);
    double* d = N_VGetArrayPointer(yp);
    kd_status st = KD_OK;
    long k = 1;
    while (!st && k <= nout) {
        realtype tret = o->t0;
        const int flag = IDASolve(mem, o->t_end, &tret, yy, yp, IDA_ONE_STEP);
        if (flag < 0) {
            st = ida_failed(w, mem, flag, err);
            break;
        }
        /* the outputs passed by this step */
        for (; k <= nout; k++) {
            const double tout = k == nout ? o->t_end : o->t0 + k * dto;
            if (tret < tout - 1e-12 * fmax(1.0, fabs(tout))) break;
            if (IDAGetDky(mem, tout, 0, yi) || IDAGetDky(mem, tout, 1, di)) {
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: IDA interpolation failed", tout);
                break;
            }
            const double *yv = N_VGetArrayPointer(yi), *dv = N_VGetArrayPointer(di);
            memcpy(w->qdd, dv + n, sizeof(double) * n);
            memcpy(w->lambda, yv + 2 * n, sizeof(double) * nc);
            if (mbs_emit(w, tout, yv, yv + n, yv[m - 1], out, ctx)) {
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
                break;
            }
        }
        if (st || k > nout) break;
        const int changed = kd_cms_rows_revise(view, tret, y);
        if (changed < 0) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: the Jacobian callback failed", tret);
            break;
        }
        if (!changed) continue;
        /* restart on the new rows from a consistent state */
        kd_mbs_opts plain = *o;
        plain.stabilization = KD_MBS_STAB_NONE;
        w->opts = &plain;
        const int bad = mbs_accel(w, tret, y, y + n, 0);
        w->opts = o;
        if (bad) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
            break;
        }
        double p = 0;
        for (int i = 0; i < n; i++) d[i] = y[n + i], d[n + i] = w->qdd[i], p += w->Q[i] * y[n + i];
        for (int r = 0; r < nc; r++) y[2 * n + r] = w->lambda[r], y[2 * n + nc + r] = 0.0, d[2 * n + r] = 0.0,
                                     d[2 * n + nc + r] = 0.0;
        d[m - 1] = p;
        realtype h = 0;
        IDAGetLastStep(mem, &h);
        long v = 0;  /* IDAReInit sets IDA's counters to zero */
        if (IDAGetNumSteps(mem, &v) == 0) w->stats->steps += v;
        if (IDAGetNumLinSolvSetups(mem, &v) == 0) w->stats->factorizations += v;
        if (IDAReInit(mem, tret, yy, yp) || IDASetInitStep(mem, h) ||
            SUNLinSol_KLUReInit(LS, A, mbs_ida_jac_nnz(g->J), SUNKLU_REINIT_PARTIAL)) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: IDA restart failed", tret);
            break;
        }
        w->stats->repartitions++;
    }
    N_VDestroy(yi), N_VDestroy(di);
    return st;
}

kd_status mbs_run_ida(mbs_ws* w, const double* q0, const double* qd0, kd_mbs_output_fn out, void* ctx,
                      kd_error* err) {
    const kd_mbs_opts* o = w->opts;
    const int n = w->n, nc = w->nc, m = 2 * (n + nc) + 1;
    if (w->stats->redundant > 0)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "t = %g: the ida formulation needs independent constraints; %d are redundant", o->t0,
                            w->stats->redundant);
    ggl g = {w, NULL};
    /* a view without redundant rows (kedyn/cms_rows.h) changes its rows only between steps here */
    kd_cms_rows* view = kd_cms_rows_of(w->sys);
    if (view) kd_cms_rows_defer(view, 1);
    SUNContext sctx = NULL;
    N_Vector yy = NULL, yp = NULL, id = NULL, av = NULL;
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    void* mem = NULL;
    kd_status st = KD_OK;
    const double rtol = o->rtol, abstol = o->atol;
    double h0 = 0;

    /* consistent initial values: q'' and lambda from the augmented equations without stabilisation */
    kd_mbs_opts plain = *o;
    plain.stabilization = KD_MBS_STAB_NONE;
    w->opts = &plain;
    const int bad0 = mbs_accel(w, o->t0, q0, qd0, 0);
    w->opts = o;
    if (bad0) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
    st = mbs_ida_jac_new(w, o->t0, q0, qd0, &g.J, err);
    if (st) return st;

    int flag = SUNContext_Create(NULL, &sctx);
    if (!flag) {
        yy = N_VNew_Serial(m, sctx), yp = N_VNew_Serial(m, sctx), id = N_VNew_Serial(m, sctx);
        av = N_VNew_Serial(m, sctx);
        A = SUNSparseMatrix(m, m, mbs_ida_jac_nnz(g.J), CSC_MAT, sctx);
        if (!yy || !yp || !id || !av || !A) flag = -1;
    }
    if (!flag) {
        double *y = N_VGetArrayPointer(yy), *d = N_VGetArrayPointer(yp), *di = N_VGetArrayPointer(id);
        memset(y, 0, sizeof(double) * m), memset(d, 0, sizeof(double) * m);
        double p = 0;
        for (int i = 0; i < n; i++) {
            y[i] = q0[i], y[n + i] = qd0[i];
            d[i] = qd0[i], d[n + i] = w->qdd[i];
            p += w->Q[i] * qd0[i];
        }
        for (int k = 0; k < nc; k++) y[2 * n + k] = w->lambda[k];
        d[m - 1] = p;
        for (int i = 0; i < m; i++) di[i] = (i < 2 * n || i == m - 1) ? 1.0 : 0.0;
        /* absolute tolerances: atol for (q, v, W); the multipliers are out of the error test and
         * only need Newton to converge to a level the index-2 round-off allows (their scale
         * times 1e-6) */
        double lmax = 0;
        for (int k = 0; k < nc; k++) lmax = fmax(lmax, fabs(w->lambda[k]));
        double* a = N_VGetArrayPointer(av);
        for (int i = 0; i < m; i++) a[i] = di[i] > 0 ? abstol : 1e-6 * (1 + lmax);
        h0 = initial_step(w, o, y, d, rtol, abstol);
        LS = SUNLinSol_KLU(yy, A, sctx);
        mem = IDACreate(sctx);
        if (!LS || !mem) flag = -1;
    }
    if (!flag) flag = IDAInit(mem, residual, o->t0, yy, yp);
    if (!flag) flag = IDASetUserData(mem, &g);
    if (!flag) flag = IDASVtolerances(mem, rtol, av);
    if (!flag) flag = IDASetErrHandlerFn(mem, quiet, NULL);
    if (!flag) flag = IDASetLinearSolver(mem, LS, A);
    if (!flag) flag = IDASetJacFn(mem, newton_matrix);
    if (!flag) flag = IDASetId(mem, id);
    if (!flag) flag = IDASetSuppressAlg(mem, SUNTRUE);
    if (!flag) flag = IDASetMaxNumSteps(mem, 10000000);
    if (!flag) flag = IDASetStopTime(mem, o->t_end);
    if (!flag) flag = IDASetInitStep(mem, h0);
    if (flag) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "IDA setup failed (flag %d)", flag);
        goto done;
    }
    const double* y = N_VGetArrayPointer(yy);
    const double* d = N_VGetArrayPointer(yp);
    /* the sample at t0 carries the consistent q'' and lambda just computed */
    if (mbs_emit(w, o->t0, y, y + n, 0, out, ctx)) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
        goto done;
    }
    const double dto = o->dt * o->output_every;
    const long nout = (long)ceil((o->t_end - o->t0) / dto - 1e-6);
    if (view) {
        st = run_view(w, &g, mem, LS, A, yy, yp, view, nout, dto, out, ctx, err);
        goto done;
    }
    for (long k = 1; k <= nout; k++) {
        const double tout = k == nout ? o->t_end : o->t0 + k * dto;
        realtype tret = o->t0;
        flag = IDASolve(mem, tout, &tret, yy, yp, IDA_NORMAL);
        if (flag < 0) {
            if (w->failed) st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
            else {
                realtype h = 0;
                IDAGetCurrentTime(mem, &tret), IDAGetCurrentStep(mem, &h);
                char* name = IDAGetReturnFlagName(flag);  /* allocated by SUNDIALS */
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                  "t = %g: IDA failed: %s with step %.3g s (near a singular configuration, such "
                                  "as a limit position, the corrector cannot converge)",
                                  tret, name ? name : "?", h);
                free(name);
            }
            goto done;
        }
        memcpy(w->qdd, d + n, sizeof(double) * n);
        memcpy(w->lambda, y + 2 * n, sizeof(double) * nc);
        if (mbs_emit(w, tret, y, y + n, y[m - 1], out, ctx)) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
            goto done;
        }
    }
done:;
    if (view) kd_cms_rows_defer(view, 0);
    long v = 0;
    if (mem && IDAGetNumSteps(mem, &v) == 0) w->stats->steps += v;
    if (mem && IDAGetNumLinSolvSetups(mem, &v) == 0) w->stats->factorizations += v;
    IDAFree(&mem);
    SUNLinSolFree(LS);
    SUNMatDestroy(A);
    N_VDestroy(yy), N_VDestroy(yp), N_VDestroy(id), N_VDestroy(av);
    SUNContext_Free(&sctx);
    mbs_ida_jac_free(&g.J);
    return st;
}
