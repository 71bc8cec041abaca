/* Hamilton's canonical equations integrated in (q, p) (kedyn/hamilton.h;
 * theory.md sec. 4): CVODE BDF with an exact banded preconditioner, or the
 * symplectic implicit midpoint rule. */
#include <cvode/cvode.h>
#include <lapacke.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_spgmr.h>

#include "kedyn/hamilton.h"

typedef struct canon {
    kd_system* s;
    int n, kd, lds;
    kd_gband C, K;                /* the route's second-order matrices at the last evaluation */
    kd_gband Mlu, Plu;            /* LU of M; LU of M + g C + g^2 (K - dPd) */
    lapack_int *piv_m, *piv_p;
    double *f, *tmp, *vel;        /* (n) each */
    double g_factored;            /* g of the factorisation in Plu (0: none) */
    int dirty;                    /* matrices changed since Plu was factorised */
    int failed;
    long factorizations;
} canon;

/* Matrices, loads and canonical data of the system at t. */
static int evaluate(canon* c, double t, const kd_gband** Pd, const kd_gband** dPd, const double** p0,
                    const double** dp0) {
    int changed;
    if (kd_system_matrices(c->s, t, &c->C, &c->K, &changed) || kd_system_force(c->s, t, c->f)) return -1;
    c->dirty |= changed;
    kd_system_canonical(c->s, t, Pd, dPd, p0, dp0);
    return 0;
}

/* q' = M^-1 (p - Pd q - p0) into v (matrices of the last evaluate). */
static void velocity(canon* c, const kd_gband* Pd, const double* p0, const double* q, const double* p, double* v) {
    kd_gband_matvec(Pd, q, v);
    for (int i = 0; i < c->n; i++) v[i] = p[i] - v[i] - p0[i];
    LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', c->n, c->kd, c->kd, 1, c->Mlu.ab, c->lds, c->piv_m, v, c->n);
}

/* F(t, y): q' and p' = (dPd - K) q + (Pd - C) q' + f + dp0. */
static int canonical_rhs(canon* c, double t, const double* q, const double* p, double* dq, double* dp) {
    const kd_gband *Pd, *dPd;
    const double *p0, *dp0;
    if (evaluate(c, t, &Pd, &dPd, &p0, &dp0)) return -1;
    const int n = c->n;
    velocity(c, Pd, p0, q, p, dq);
    kd_gband_matvec(dPd, q, dp);
    kd_gband_matvec(&c->K, q, c->tmp);
    for (int i = 0; i < n; i++) dp[i] += c->f[i] + dp0[i] - c->tmp[i];
    kd_gband_matvec(Pd, dq, c->tmp);
    for (int i = 0; i < n; i++) dp[i] += c->tmp[i];
    kd_gband_matvec(&c->C, dq, c->tmp);
    for (int i = 0; i < n; i++) dp[i] -= c->tmp[i];
    return 0;
}

/* Factorise M + g C + g^2 (K - dPd) with the matrices of the last
 * evaluation (kept while they and g are unchanged). */
static int factor(canon* c, double g) {
    const kd_gband* dPd = &c->s->dPd;
    if (!c->dirty && g == c->g_factored) return 0;
    /* K - dPd into K's scratch copy (K is re-evaluated before every use) */
    const size_t nab = (size_t)(2 * c->kd + 1) * (size_t)c->n;
    for (size_t i = 0; i < nab; i++) c->K.ab[i] -= dPd->ab[i];
    kd_gband_combine_lu(&c->Plu, 1.0, &c->s->M, g, &c->C, g * g, &c->K);
    for (size_t i = 0; i < nab; i++) c->K.ab[i] += dPd->ab[i];
    c->factorizations++;
    c->dirty = 0;
    c->g_factored = g;
    if (LAPACKE_dgbtrf(LAPACK_COL_MAJOR, c->n, c->n, c->kd, c->kd, c->Plu.ab, c->lds, c->piv_p) == 0) return 0;
    c->g_factored = 0.0;  /* singular: refactorise next time */
    return 1;
}

/* Solve (I - g J) z = r with the factorisation (header comment). */
static void reduced_solve(canon* c, double g, const double* rq, const double* rp, double* zq, double* zp) {
    const int n = c->n;
    const kd_gband* Pd = &c->s->Pd;
    /* z_q = P^-1 (M r_q + g (r_p - Pd r_q + C r_q)) */
    kd_gband_matvec(&c->s->M, rq, zq);
    kd_gband_matvec(Pd, rq, c->tmp);
    for (int i = 0; i < n; i++) zq[i] += g * (rp[i] - c->tmp[i]);
    kd_gband_matvec(&c->C, rq, c->tmp);
    for (int i = 0; i < n; i++) zq[i] += g * c->tmp[i];
    LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', n, c->kd, c->kd, 1, c->Plu.ab, c->lds, c->piv_p, zq, n);
    /* z_p = M (z_q - r_q) / g + Pd z_q */
    for (int i = 0; i < n; i++) c->vel[i] = zq[i] - rq[i];
    kd_gband_matvec(&c->s->M, c->vel, zp);
    kd_gband_matvec(Pd, zq, c->tmp);
    for (int i = 0; i < n; i++) zp[i] = zp[i] / g + c->tmp[i];
}

/* The state for the output callback: q, q' and q'' = M^-1 (f - C q' - K q). */
static int emit(canon* c, double t, const double* q, const double* p, kd_output_fn out, void* ctx, double* acc) {
    if (canonical_rhs(c, t, q, p, c->vel, acc)) return -1;
    const int n = c->n;
    kd_gband_matvec(&c->C, c->vel, c->tmp);
    for (int i = 0; i < n; i++) acc[i] = c->f[i] - c->tmp[i];
    kd_gband_matvec(&c->K, q, c->tmp);
    for (int i = 0; i < n; i++) acc[i] -= c->tmp[i];
    LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', n, c->kd, c->kd, 1, c->Mlu.ab, c->lds, c->piv_m, acc, n);
    for (int i = 0; i < n; i++)
        if (!isfinite(q[i]) || !isfinite(p[i])) return 2;
    return out && out(ctx, t, q, c->vel, acc) ? 3 : 0;
}

static const char* emit_failure(int code) {
    return code == 2 ? "the solution is no longer finite"
                     : (code == 3 ? "output stopped the integration" : "the system could not be evaluated");
}

/* ---- CVODE BDF on (q, p) ------------------------------------------------ */

static int cv_rhs(realtype t, N_Vector y, N_Vector ydot, void* ud) {
    canon* c = ud;
    const double* yy = N_VGetArrayPointer(y);
    double* dy = N_VGetArrayPointer(ydot);
    if (canonical_rhs(c, t, yy, yy + c->n, dy, dy + c->n)) {
        c->failed = 1;
        return -1;
    }
    return 0;
}

static int cv_psetup(realtype t, N_Vector y, N_Vector fy, booleantype jok, booleantype* jcur, realtype g, void* ud) {
    (void)y, (void)fy, (void)jok;
    canon* c = ud;
    c->dirty = 1;  /* CVODE asks for a new preconditioner: honour it */
    const kd_gband *Pd, *dPd;
    const double *p0, *dp0;
    const int r = evaluate(c, t, &Pd, &dPd, &p0, &dp0) ? -1 : factor(c, g);
    if (r < 0) c->failed = 1;
    *jcur = SUNTRUE;
    return r;
}

static int cv_psolve(realtype t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z, realtype g, realtype delta, int lr,
                     void* ud) {
    (void)t, (void)y, (void)fy, (void)delta, (void)lr;
    canon* c = ud;
    const double* rr = N_VGetArrayPointer(r);
    double* zz = N_VGetArrayPointer(z);
    reduced_solve(c, g, rr, rr + c->n, zz, zz + c->n);
    return 0;
}

static kd_status run_cvode(canon* c, const kd_integrate_opts* o, double* y0, kd_output_fn output, void* octx,
                           kd_integrate_stats* stats, kd_error* err, double* acc) {
    const int n = c->n;
    SUNContext ctx = NULL;
    void* mem = NULL;
    SUNLinearSolver ls = NULL;
    N_Vector y = NULL;
    kd_status st = KD_OK;
    int flag = SUNContext_Create(NULL, &ctx);
    if (!flag) y = N_VNew_Serial(2 * n, ctx);
    if (flag || !y) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for CVODE");
        goto done;
    }
    memcpy(N_VGetArrayPointer(y), y0, sizeof(double) * 2 * (size_t)n);
    mem = CVodeCreate(CV_BDF, ctx);
    flag = mem ? CVodeInit(mem, cv_rhs, o->t0, y) : -1;
    if (!flag) flag = CVodeSStolerances(mem, o->rtol, o->atol);
    if (!flag) flag = CVodeSetUserData(mem, c);
    if (!flag) flag = CVodeSetMaxNumSteps(mem, 10000000);
    if (!flag) flag = CVodeSetStopTime(mem, o->t_end);
    if (!flag && o->dt > 0) flag = CVodeSetInitStep(mem, o->dt);
    if (!flag && o->dt_max > 0) flag = CVodeSetMaxStep(mem, o->dt_max);
    if (!flag) {
        ls = SUNLinSol_SPGMR(y, SUN_PREC_LEFT, 10, ctx);
        flag = ls ? CVodeSetLinearSolver(mem, ls, NULL) : -1;
    }
    if (!flag) flag = CVodeSetPreconditioner(mem, cv_psetup, cv_psolve);
    if (flag) {
        st = kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "CVODE could not be set up for Hamilton's equations (flag %d)",
                          flag);
        goto done;
    }
    const double dt_out = o->dt > 0 ? o->dt * o->output_every : (o->t_end - o->t0) / 1000.0;
    const long nout = lround(ceil((o->t_end - o->t0) / dt_out - 1e-9));
    double t = o->t0;
    for (long k = 0; k <= nout && st == KD_OK; k++) {
        if (k > 0) {
            const double tout = k == nout ? o->t_end : o->t0 + (double)k * dt_out;
            flag = CVode(mem, tout, y, &t, CV_NORMAL);
            if (flag < 0) {
                char* why = c->failed ? NULL : CVodeGetReturnFlagName(flag);  /* allocated by SUNDIALS */
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: CVODE (Hamilton) failed: %s", t,
                                  c->failed ? "the system could not be evaluated" : why ? why : "?");
                free(why);
                break;
            }
        }
        const double* yy = N_VGetArrayPointer(y);
        const int e = emit(c, t, yy, yy + n, output, octx, acc);
        if (e) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: %s", t, emit_failure(e));
            break;
        }
        stats->t_reached = t;
    }
    long nst = 0, nfe = 0;
    CVodeGetNumSteps(mem, &nst);
    CVodeGetNumRhsEvals(mem, &nfe);
    stats->steps = nst, stats->rhs_evals = nfe;
done:
    if (mem) CVodeFree(&mem);
    if (ls) SUNLinSolFree(ls);
    if (y) N_VDestroy(y);
    if (ctx) SUNContext_Free(&ctx);
    return st;
}

/* ---- implicit midpoint ---------------------------------------------------- */

/* y1 = y0 + dt F(t_m, y_m), y_m = (y0 + y1)/2; F affine in y, so with
 * g = dt/2: (I - g J) y_m = y0 + g F(t_m, 0), then y1 = 2 y_m - y0. */
static kd_status run_midpoint(canon* c, const kd_integrate_opts* o, double* y, kd_output_fn output, void* octx,
                              kd_integrate_stats* stats, kd_error* err, double* acc, double* work) {
    const int n = c->n;
    const double dt = o->dt;
    const long nsteps = lround(ceil((o->t_end - o->t0) / dt - 1e-9));
    double* b = work;           /* (2 n) F(t_m, 0), then the right-hand side */
    double* ym = work + 2 * n;  /* (2 n) */
    int e = emit(c, o->t0, y, y + n, output, octx, acc);
    if (e) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: %s", o->t0, emit_failure(e));
    stats->t_reached = o->t0;
    for (long k = 0; k < nsteps; k++) {
        const double t0 = o->t0 + (double)k * dt;
        const double h = (k == nsteps - 1) ? o->t_end - t0 : dt;  /* the last step lands on t_end */
        const double gk = 0.5 * h, tm = t0 + gk;
        memset(ym, 0, sizeof(double) * 2 * (size_t)n);
        int r = canonical_rhs(c, tm, ym, ym + n, b, b + n);  /* F(t_m, 0); evaluates at t_m */
        if (!r) r = factor(c, gk);
        if (r < 0)
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the system could not be evaluated", tm);
        if (r > 0)
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the midpoint matrix is singular", tm);
        for (int i = 0; i < 2 * n; i++) b[i] = y[i] + gk * b[i];
        reduced_solve(c, gk, b, b + n, ym, ym + n);
        for (int i = 0; i < 2 * n; i++) y[i] = 2.0 * ym[i] - y[i];
        stats->steps++;
        stats->rhs_evals++;
        if ((k + 1) % o->output_every == 0 || k == nsteps - 1) {
            const double t1 = k == nsteps - 1 ? o->t_end : t0 + h;
            if ((e = emit(c, t1, y, y + n, output, octx, acc)))
                return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: %s", t1, emit_failure(e));
            stats->t_reached = t1;
        }
    }
    return KD_OK;
}

kd_status kd_hamilton_integrate(kd_system* s, const kd_integrate_opts* o, const double* q0, const double* v0,
                                kd_output_fn output, void* output_ctx, kd_integrate_stats* stats, kd_error* err) {
    kd_integrate_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof(*stats));
    stats->t_reached = o->t0;
    const int mid = o->method == KD_INT_IMPLICIT_MIDPOINT;
    if (!s->route.canonical || !(mid || o->method == KD_INT_HAMILTON_CVODE))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "Hamilton's canonical integrators need the Hamilton formalism and method "
                            "hamilton-cvode or implicit-midpoint");
    if (!(o->t_end > o->t0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "t_end (%g) must be later than t0 (%g)", o->t_end, o->t0);
    if (mid && !(o->dt > 0)) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "dt must be positive (got %g)", o->dt);
    if (!mid && !(o->rtol > 0 && o->atol > 0 && o->dt >= 0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "rtol and atol must be positive and dt >= 0");
    if (o->output_every < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "output_every must be >= 1");

    const int n = s->n, kd = s->kd;
    canon c;
    memset(&c, 0, sizeof(c));
    c.s = s, c.n = n, c.kd = kd, c.lds = 3 * kd + 1;
    kd_status st = kd_gband_init(&c.C, n, kd, kd);
    if (!st) st = kd_gband_init(&c.K, n, kd, kd);
    if (!st) st = kd_gband_init(&c.Mlu, n, 2 * kd, kd);
    if (!st) st = kd_gband_init(&c.Plu, n, 2 * kd, kd);
    c.piv_m = malloc(sizeof(lapack_int) * (size_t)(n ? n : 1));
    c.piv_p = malloc(sizeof(lapack_int) * (size_t)(n ? n : 1));
    double* buf = calloc(10 * (size_t)(n ? n : 1), sizeof(double));  /* f tmp vel | y (2n) | acc | work (4n) */
    if (st || !c.piv_m || !c.piv_p || !buf) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for Hamilton's equations");
        goto done;
    }
    c.f = buf, c.tmp = buf + n, c.vel = buf + 2 * n;
    double* y = buf + 3 * n;
    double* acc = buf + 5 * n;
    double* work = buf + 6 * n;
    /* LU of M (C, K still zero) */
    kd_gband_combine_lu(&c.Mlu, 1.0, &s->M, 0.0, &c.C, 0.0, &c.K);
    if (LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, kd, kd, c.Mlu.ab, c.lds, c.piv_m) != 0) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the mass matrix is singular", o->t0);
        goto done;
    }
    /* initial momenta p = M q' + Pd q + p0 */
    {
        const kd_gband *Pd, *dPd;
        const double *p0, *dp0;
        if (evaluate(&c, o->t0, &Pd, &dPd, &p0, &dp0)) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the system could not be evaluated",
                              o->t0);
            goto done;
        }
        memcpy(y, q0, sizeof(double) * (size_t)n);
        kd_gband_matvec(&s->M, v0, y + n);
        kd_gband_matvec(Pd, q0, c.tmp);
        for (int i = 0; i < n; i++) y[n + i] += c.tmp[i] + p0[i];
    }
    c.dirty = 1;
    st = mid ? run_midpoint(&c, o, y, output, output_ctx, stats, err, acc, work)
             : run_cvode(&c, o, y, output, output_ctx, stats, err, acc);
    stats->factorizations = c.factorizations;
done:
    kd_gband_free(&c.C);
    kd_gband_free(&c.K);
    kd_gband_free(&c.Mlu);
    kd_gband_free(&c.Plu);
    free(c.piv_m);
    free(c.piv_p);
    free(buf);
    return st;
}
