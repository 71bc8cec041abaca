/* The time integration of the forward-dynamics ODEs y' = f(t, y): classical fixed-step
 * Runge-Kutta (rk4) with an optional projection after every step, or SUNDIALS CVODE: BDF with a
 * Newton corrector (ode_newton.c; elastic links make these systems stiff) or Adams-Moulton with
 * fixed-point iteration (either corrector can be chosen for either method), whose
 * projection interface (CVodeSetProjFn) applies the same projection after every step. Output
 * instants between steps come from CVODE's interpolant, which is not projected: the state handed
 * to the output is projected as well (a copy; CVODE's history is left as it is).
 * Outputs come at t0 + k dt output_every and at t_end. */
#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "constrained_internal.h"

static kd_status failure(mbs_ws* w, kd_error* err, double t, const char* what) {
    if (w->failed) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
    return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", t, what);
}

static int all_finite(const double* y, int m) {
    for (int i = 0; i < m; i++)
        if (!isfinite(y[i])) return 0;
    return 1;
}

/* ---- classical Runge-Kutta, fixed step ---- */
static kd_status run_rk4(mbs_ws* w, const mbs_ode* ode, double* y, kd_error* err) {
    const kd_mbs_opts* o = w->opts;
    const int m = ode->m;
    double* k = malloc(sizeof(double) * 5 * m);
    if (!k) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    double *k1 = k, *k2 = k + m, *k3 = k + 2 * m, *k4 = k + 3 * m, *yt = k + 4 * m;
    kd_status st = KD_OK;
    const long nsteps = (long)ceil((o->t_end - o->t0) / o->dt - 1e-6);
    double t = o->t0;
    int reinit = 0;
    if (ode->output(ode->ctx, t, y, &reinit)) {
        st = failure(w, err, t, "output failed");
        goto done;
    }
    for (long s = 1; s <= nsteps; s++) {
        const double t1 = s == nsteps ? o->t_end : o->t0 + s * o->dt;
        const double h = t1 - t;
        if (ode->rhs(ode->ctx, t, y, k1)) goto fail;
        for (int i = 0; i < m; i++) yt[i] = y[i] + 0.5 * h * k1[i];
        if (ode->rhs(ode->ctx, t + 0.5 * h, yt, k2)) goto fail;
        for (int i = 0; i < m; i++) yt[i] = y[i] + 0.5 * h * k2[i];
        if (ode->rhs(ode->ctx, t + 0.5 * h, yt, k3)) goto fail;
        for (int i = 0; i < m; i++) yt[i] = y[i] + h * k3[i];
        if (ode->rhs(ode->ctx, t1, yt, k4)) goto fail;
        for (int i = 0; i < m; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        if (!all_finite(y, m)) {
            mbs_fail(w, t1, "non-finite state (the step is too large or the motion diverges)");
            goto fail;
        }
        if (ode->project && ode->project(ode->ctx, t1, y)) goto fail;
        t = t1;
        w->stats->steps++;
        if (s % o->output_every == 0 || s == nsteps) {
            if (ode->output(ode->ctx, t, y, &reinit)) goto fail;
        }
    }
    goto done;
fail:
    st = failure(w, err, t, "step failed");
done:
    free(k);
    return st;
}

/* ---- SUNDIALS CVODE ---- */
static int cv_rhs(realtype t, N_Vector y, N_Vector yd, void* ud) {
    const mbs_ode* ode = ((const mbs_cv_user*)ud)->ode;
    /* every failure of ours is final (a callback, a singular configuration): unrecoverable, and
     * sticky, so that no retry with a shorter step can pass the failure point */
    if (*ode->failed) return -1;
    return ode->rhs(ode->ctx, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yd)) ? -1 : 0;
}

/* CVODE's projection interface: the correction that takes ycur onto the constraint manifold.
 * The error estimate is projected onto the tangent space as well (CVODE's default). */
static int cv_proj(realtype t, N_Vector ycur, N_Vector corr, realtype eps, N_Vector e, void* ud) {
    (void)eps, (void)e;
    const mbs_ode* ode = ((const mbs_cv_user*)ud)->ode;
    const int m = ode->m;
    const double* y = N_VGetArrayPointer(ycur);
    double* c = N_VGetArrayPointer(corr);
    memcpy(c, y, sizeof(double) * m);
    if (ode->project(ode->ctx, t, c)) return -1;
    for (int i = 0; i < m; i++) c[i] -= y[i];
    /* the error estimate loses its component normal to the manifold, which the projection removed */
    if (e && ode->project_err(ode->ctx, t, N_VGetArrayPointer(e))) return -1;
    return 0;
}

/* SUNDIALS reports through our error messages, not on stderr. */
static void quiet(int code, const char* module, const char* fn, char* msg, void* ud) {
    (void)code, (void)module, (void)fn, (void)msg, (void)ud;
}

/* CVODE's counters into the statistics (before a reinitialisation resets them, and at the end). */
static void add_counts(void* mem, kd_mbs_stats* s) {
    long nst = 0, nni = 0, ncf = 0;
    if (CVodeGetNumSteps(mem, &nst) == 0) s->steps += nst;
    if (CVodeGetNumNonlinSolvIters(mem, &nni) == 0) s->nonlinear_iterations += nni;
    if (CVodeGetNumNonlinSolvConvFails(mem, &ncf) == 0) s->nonlinear_failures += ncf;
}

static kd_status run_cvode(mbs_ws* w, const mbs_ode* ode, double* y0, kd_error* err) {
    const kd_mbs_opts* o = w->opts;
    SUNContext sctx = NULL;
    N_Vector y = NULL;
    SUNNonlinearSolver nls = NULL;
    mbs_cv_user user = {ode, NULL};
    /* BDF takes Newton, Adams fixed point, unless chosen (docs/theory.md, "BDF with a Newton corrector") */
    const int newton = o->nonlinear == KD_MBS_NLS_NEWTON || (o->nonlinear == KD_MBS_NLS_AUTO && !o->adams);
    void* mem = NULL;
    kd_status st = KD_OK;
    int flag = SUNContext_Create(NULL, &sctx);
    if (!flag) {
        y = N_VNew_Serial(ode->m, sctx);
        if (!y) flag = -1;
    }
    if (!flag) {
        memcpy(N_VGetArrayPointer(y), y0, sizeof(double) * ode->m);
        mem = CVodeCreate(o->adams ? CV_ADAMS : CV_BDF, sctx);
        if (!mem) flag = -1;
    }
    if (!flag) flag = CVodeInit(mem, cv_rhs, o->t0, y);
    if (!flag) flag = CVodeSetUserData(mem, &user);
    if (!flag) flag = CVodeSStolerances(mem, o->rtol, o->atol);
    if (!flag) flag = CVodeSetMaxNumSteps(mem, 10000000);
    if (!flag && newton) flag = mbs_newton_attach(mem, y, sctx, ode, &user.newton);
    if (!flag && !newton) {
        nls = SUNNonlinSol_FixedPoint(y, 0, sctx);
        flag = nls ? CVodeSetNonlinearSolver(mem, nls) : -1;
    }
    if (!flag) flag = CVodeSetErrHandlerFn(mem, quiet, NULL);
    if (!flag && ode->project) flag = CVodeSetProjFn(mem, cv_proj);
    if (!flag) flag = CVodeSetStopTime(mem, o->t_end);
    if (flag) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "CVODE setup failed (flag %d)", flag);
        goto done;
    }
    int reinit = 0;
    double* yp = N_VGetArrayPointer(y);
    if (ode->output(ode->ctx, o->t0, yp, &reinit)) {
        st = failure(w, err, o->t0, "output failed");
        goto done;
    }
    const double dto = o->dt * o->output_every;
    const long nout = (long)ceil((o->t_end - o->t0) / dto - 1e-6);
    double t = o->t0;
    for (long k = 1; k <= nout; k++) {
        const double tout = k == nout ? o->t_end : o->t0 + k * dto;
        realtype tret;
        flag = CVode(mem, tout, y, &tret, CV_NORMAL);
        if (flag < 0) {
            char* name = CVodeGetReturnFlagName(flag);   /* allocated by SUNDIALS */
            st = failure(w, err, tret, name ? name : "CVODE failed");
            free(name);
            goto done;
        }
        t = tret;
        reinit = 0;
        /* an output instant inside a step is CVODE's interpolant, which is not projected: its drift
         * is of the order of the local error; project this copy of the state (CVODE keeps its own) */
        if (ode->project && ode->project(ode->ctx, t, yp)) {
            st = failure(w, err, t, "projection of an output state failed");
            goto done;
        }
        if (ode->output(ode->ctx, t, yp, &reinit)) {
            st = failure(w, err, t, "output failed");
            goto done;
        }
        if (reinit) add_counts(mem, w->stats);
        if (reinit && CVodeReInit(mem, t, y)) {
            st = failure(w, err, t, "CVODE reinitialisation failed");
            goto done;
        }
    }
done:
    if (mem) add_counts(mem, w->stats);
    w->stats->jacobians += mbs_newton_jacobians(user.newton);
    CVodeFree(&mem);
    mbs_newton_free(&user.newton);
    SUNNonlinSolFree(nls);
    N_VDestroy(y);
    SUNContext_Free(&sctx);
    return st;
}

kd_status mbs_ode_run(mbs_ws* w, const mbs_ode* ode, double* y, kd_error* err) {
    return w->opts->integrator == KD_MBS_CVODE ? run_cvode(w, ode, y, err) : run_rk4(w, ode, y, err);
}
