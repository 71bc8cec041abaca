/* One-way kineto-elastodynamics of elastic links on a spatial mechanism
 * (kedyn/sked.h, theory.md sec. 12): the rigid solution by kinematics and
 * multipliers, each link as a 3D beam in the moving frame of its body (a
 * tabulated pose fed into kd_system), its integration and post-processing. */
#include "kedyn/sked.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/element.h"
#include "kedyn/frame.h"
#include "kedyn/mbs.h"
#include "kedyn/sdesc.h"
#include "kedyn/smech_lu.h"
#include "kedyn/system.h"
#include "link_ode.h"
#include "spatial_plate_link.h"

#define TWO_PI 6.28318530717958647692
#define NOMEM() kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory")

/* ---- the rigid solution -------------------------------------------------------- */

typedef struct rsink {
    const kd_smech* m;
    kd_sked_rigid* r;
    int cap;
    kd_smech_reactions re;
    kd_error* err;
    kd_status st;
} rsink;

static int rstore(void* ctx, double t, const double* q, const double* qd, const double* qdd, const kd_smech_info* info) {
    (void)info;
    rsink* s = ctx;
    kd_sked_rigid* r = s->r;
    if (r->nsamples >= s->cap || (r->nsamples > 0 && !(t > r->t[r->nsamples - 1]))) return 0;
    if ((s->st = kd_smech_inverse_multipliers(s->m, t, q, qd, NULL, &s->re, s->err))) return 1;
    const size_t n = (size_t)r->n, i = (size_t)r->nsamples++;
    r->t[i] = t;
    memcpy(r->q + i * n, q, n * sizeof(double));
    memcpy(r->qd + i * n, qd, n * sizeof(double));
    memcpy(r->qdd + i * n, qdd, n * sizeof(double));
    memcpy(r->F + i * 6 * (size_t)r->njoint, s->re.F, 6 * (size_t)r->njoint * sizeof(double));
    return 0;
}

/* A fully driven mechanism without redundant rows has a square, regular Phi_q (nc = n): one sparse
 * LU (kedyn/smech_lu.h, KLU) per Newton iterate and one at the solution serve velocity (Phi_q q' =
 * -Phi_t), acceleration (Phi_q q'' = gamma) and the multipliers (Phi_q^T lambda = Q - M q'',
 * theory.md sec. 11, 12.8), with the condition number estimated from the LU (1-norm, Hager-Higham)
 * for singular positions. The workspace is allocated once; no allocation inside the instants
 * (a new pivot order excepted). */
typedef struct lu_work {
    kd_smech_lu* lu;
    double *jac, *phi, *b, *Mb, *Q;
} lu_work;

static void lu_free(lu_work* w) {
    kd_smech_lu_free(&w->lu);
    free(w->jac), free(w->phi), free(w->b), free(w->Mb), free(w->Q);
}

/* Phi_q at (t, q) factorised (and Phi_t into phi_t when not NULL); cond estimated when not NULL.
 * Returns nonzero when singular. */
static int lu_factor(const kd_smech* m, lu_work* w, double t, const double* q, double* phi_t, double* cond) {
    if (phi_t) kd_smech_jacobian_phi_t(m, t, q, w->jac, phi_t);
    else kd_smech_jacobian(m, t, q, w->jac);
    return kd_smech_lu_factor(w->lu, w->jac, cond);
}

#define CHORD_MAX 8

static kd_status rigid_lu(const kd_smech* m, double t_end, int steps, double cond_max, kd_sked_rigid* r,
                          kd_smech_reactions* re, int* at_start, kd_error* err) {
    const int n = m->n;
    const size_t N = (size_t)n;
    lu_work w = {NULL, calloc((size_t)m->jac_nnz + 1, sizeof(double)), calloc(N, sizeof(double)),
                 calloc(N, sizeof(double)), calloc(49 * (size_t)m->nbody, sizeof(double)), calloc(N, sizeof(double))};
    double* q = calloc(4 * N, sizeof(double));
    if (!w.jac || !w.phi || !w.b || !w.Mb || !w.Q || !q) {
        lu_free(&w), free(q);
        return NOMEM();
    }
    kd_status st = kd_smech_lu_new(m, &w.lu, err);
    if (st) {
        lu_free(&w), free(q);
        return st;
    }
    double *qd = q + N, *qdd = q + 2 * N, *qdd0 = q + 3 * N;  /* qdd0: the previous instant's */
    memcpy(q, m->q0, N * sizeof(double));
    const double tol = 1e-11 * fmax(1.0, m->length_scale), tol_r = 1e-3 * tol, h = t_end / steps;
    for (int k = 0; k <= steps && !st; k++) {
        const double t = k * h;
        /* predictor: Taylor to the third order, the jerk from the last two accelerations */
        for (int i = 0; k > 0 && i < n; i++)
            q[i] += h * qd[i] + 0.5 * h * h * qdd[i] + (k > 1 ? h * h * (qdd[i] - qdd0[i]) / 6.0 : 0.0);
        int it = 0;
        double res = INFINITY, cond = INFINITY;
        /* Newton on Phi(t, q) = 0; from the second instant on, the first iterates keep the factor
         * of the previous instant's Phi_q (chord iterations: no Jacobian and no LU; they
         * contract by about |Phi_q^-1 dPhi_q| ~ h), full Newton after CHORD_MAX of them */
        double res_prev = INFINITY;
        for (; it <= 50; it++) {
            kd_smech_phi(m, t, q, w.phi);
            res = 0.0;
            for (int i = 0; i < m->nc; i++) res = fmax(res, fabs(w.phi[i]));
            /* full Newton stops within tol, its last step having squared the error; the chord
             * iterates, which contract linearly, go on to round-off (tol_r, or no more decrease) */
            if (!isfinite(res) || (res <= tol && (k == 0 || res <= tol_r || res > 0.1 * res_prev))) break;
            res_prev = res;
            if ((k == 0 || it >= CHORD_MAX) && lu_factor(m, &w, t, q, NULL, NULL)) break;
            for (int i = 0; i < n; i++) w.b[i] = -w.phi[i];
            if (kd_smech_lu_solve(w.lu, 0, w.b)) break;
            for (int i = 0; i < n; i++) q[i] += w.b[i];
        }
        /* at the solution: Phi_q and Phi_t in one pass, one LU with its condition estimate */
        if (!(res <= tol) || lu_factor(m, &w, t, q, qd, &cond) || !(cond < cond_max)) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "singular position at t = %g s (|Phi| = %.3g after %d Newton iterations, condition "
                              "number of Phi_q %.3g)",
                              t, res, it, cond);
            if (at_start) *at_start = k == 0;
            break;
        }
        for (int i = 0; i < n; i++) qd[i] = -qd[i];
        if (kd_smech_lu_solve(w.lu, 0, qd)) st = KD_ERR_NUMERIC;
        memcpy(qdd0, qdd, N * sizeof(double));
        kd_smech_gamma(m, t, q, qd, qdd);
        if (!st && kd_smech_lu_solve(w.lu, 0, qdd)) st = KD_ERR_NUMERIC;
        /* multipliers: Phi_q^T lambda = Q - M q'' */
        kd_smech_mass_blocks(m, q, w.Mb);
        kd_smech_force(m, t, q, qd, w.Q);
        for (int b = 0; b < m->nbody; b++)
            for (int i = 0; i < 7; i++) {
                double a = w.Q[7 * b + i];
                for (int c = 0; c < 7; c++) a -= w.Mb[49 * (size_t)b + 7 * c + i] * qdd[7 * b + c];
                re->lambda[7 * b + i] = a;
            }
        if (!st && kd_smech_lu_solve(w.lu, 1, re->lambda)) st = KD_ERR_NUMERIC;
        if (st) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g s: sparse LU failure", t);
            break;
        }
        kd_smech_reactions_jac(m, q, w.jac, re);
        const size_t i = (size_t)r->nsamples++;
        r->t[i] = t;
        memcpy(r->q + i * N, q, N * sizeof(double));
        memcpy(r->qd + i * N, qd, N * sizeof(double));
        memcpy(r->qdd + i * N, qdd, N * sizeof(double));
        memcpy(r->F + i * 6 * (size_t)r->njoint, re->F, 6 * (size_t)r->njoint * sizeof(double));
    }
    lu_free(&w), free(q);
    return st;
}

static int fwd_store(void* ctx, const kd_mbs_sample* smp) { return rstore(ctx, smp->t, smp->q, smp->qd, smp->qdd, NULL); }

/* Runge-Kutta steps per sample of a rigid solution by forward dynamics (as the planar route). */
#define SKED_RK_SUBSTEPS 3

/* Forward dynamics of a mechanism with undriven degrees of freedom from the assembled q (its
 * given velocities projected on the velocity constraints): augmented Newton-Euler form with
 * Baumgarte stabilisation, classical Runge-Kutta with SKED_RK_SUBSTEPS steps per sample; each
 * sample's joint wrenches by the multipliers (theory.md sec. 12.10). */
static kd_status rigid_forward(const kd_smech* m, double t_end, int steps, double* q, rsink* s, kd_error* err) {
    double* qd = malloc(sizeof(double) * (size_t)m->n + 1);
    if (!qd) return NOMEM();
    memcpy(qd, m->qd0, sizeof(double) * (size_t)m->n);
    kd_status st = kd_smech_solve_velocity(m, 0.0, q, qd, 1, err);
    if (!st) {
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        o.t_end = t_end;
        o.dt = t_end / steps / SKED_RK_SUBSTEPS;
        o.output_every = SKED_RK_SUBSTEPS;
        kd_cms cms;
        kd_smech_cms(m, &cms);
        st = kd_mbs_forward(&cms, &o, q, qd, fwd_store, s, NULL, err);
        if (st && s->st) st = s->st;
    }
    free(qd);
    return st;
}

kd_status kd_sked_rigid_solve(const kd_smech* m, double t_end, int steps, double cond_max, kd_sked_rigid* r,
                              kd_error* err) {
    memset(r, 0, sizeof(*r));
    r->n = m->n, r->njoint = m->njoint;
    const size_t ns = (size_t)steps + 1, n = (size_t)m->n;
    r->t = calloc(ns, sizeof(double));
    r->q = calloc(ns * n, sizeof(double));
    r->qd = calloc(ns * n, sizeof(double));
    r->qdd = calloc(ns * n, sizeof(double));
    r->F = calloc(ns * 6 * (size_t)m->njoint + 1, sizeof(double));
    rsink s = {m, r, (int)ns, {0}, err, KD_OK};
    double* q = calloc(n + 1, sizeof(double));
    if (!r->t || !r->q || !r->qd || !r->qdd || !r->F || !q || kd_smech_reactions_alloc(m, &s.re)) {
        free(q);
        kd_smech_reactions_free(&s.re);
        kd_sked_rigid_free(r);
        return NOMEM();
    }
    kd_status st = KD_OK;
    int done = 0;
    if (m->nc == m->n) {
        /* a square Phi_q regular at the assembled start: fully driven, the LU route at once (its
         * first instant is the Newton assembly from q0); otherwise the rank decides below */
        int at_start = 0;
        kd_error e1;
        kd_error_clear(&e1);
        st = rigid_lu(m, t_end, steps, cond_max, r, &s.re, &at_start, &e1);
        done = !st || !at_start;
        if (st && !at_start) *err = e1;
        if (!done) st = KD_OK, r->nsamples = 0;
    }
    memcpy(q, m->q0, n * sizeof(double));
    kd_smech_mobility mob;
    if (!done) st = kd_smech_solve_position(m, 0.0, q, NULL, err);
    if (!done && !st) st = kd_smech_mobility_at(m, 0.0, q, &mob, err);
    double cmax = 0.0;
    if (!done && !st && mob.dof_undriven > 0) {
        r->forward = 1;
        st = rigid_forward(m, t_end, steps, q, &s, err);
    } else if (!done && !st && m->nc == m->n && mob.rank_driven == m->n)
        st = rigid_lu(m, t_end, steps, cond_max, r, &s.re, NULL, err);
    else if (!done && !st) st = kd_smech_kinematics(m, t_end, steps, cond_max, rstore, &s, &cmax, err);
    if (!st && s.st) st = s.st;
    if (!st && r->nsamples < 2)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "the rigid solution has fewer than 2 instants");
    free(q);
    kd_smech_reactions_free(&s.re);
    if (st) kd_sked_rigid_free(r);
    return st;
}

void kd_sked_rigid_free(kd_sked_rigid* r) {
    free(r->t), free(r->q), free(r->qd), free(r->qdd), free(r->F);
    memset(r, 0, sizeof(*r));
}

/* ---- the frame of a link ------------------------------------------------------ */

static void cross(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Rotation vector of R (row-major): axis times angle in [0, pi]. */
static void rot_log(const double R[9], double phi[3]) {
    const double c = fmax(-1.0, fmin(1.0, 0.5 * (R[0] + R[4] + R[8] - 1.0)));
    const double th = acos(c);
    const double w[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]};  /* 2 sin(th) axis */
    if (th < 1e-6) {
        for (int i = 0; i < 3; i++) phi[i] = 0.5 * w[i];
        return;
    }
    if (th < 3.0) {
        const double f = th / (2.0 * sin(th));
        for (int i = 0; i < 3; i++) phi[i] = f * w[i];
        return;
    }
    /* near pi: axis from the diagonal of (R + I)/2 = a a^T (cos th ~ -1) */
    double a[3];
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (R[4 * i] > R[4 * k]) k = i;
    a[k] = sqrt(fmax(0.0, (R[4 * k] - c) / (1.0 - c)));
    for (int i = 0; i < 3; i++)
        if (i != k) a[i] = 0.5 * (R[3 * i + k] + R[3 * k + i]) / ((1.0 - c) * a[k]);
    if (a[0] * w[0] + a[1] * w[1] + a[2] * w[2] < 0) a[0] = -a[0], a[1] = -a[1], a[2] = -a[2];
    const double nn = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int i = 0; i < 3; i++) phi[i] = th * a[i] / nn;
}

/* The rotation vector equivalent to phi (same rotation: the axis with angle + 2 pi k) closest
 * to prev, so that the tabulated rotation vector is continuous over several turns. */
static void rot_unwrap(double phi[3], const double prev[3]) {
    const double th = sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
    if (th < 1e-12) {
        /* identity: only multiples of 2 pi along prev's axis */
        const double tp = sqrt(prev[0] * prev[0] + prev[1] * prev[1] + prev[2] * prev[2]);
        if (tp < 1e-12) return;
        const double k = floor(tp / (TWO_PI) + 0.5);
        for (int i = 0; i < 3; i++) phi[i] = prev[i] / tp * TWO_PI * k;
        return;
    }
    double best[3] = {phi[0], phi[1], phi[2]}, dbest = INFINITY;
    for (int sgn = -1; sgn <= 1; sgn += 2)
        for (int k = -50; k <= 50; k++) {
            /* axis sgn a, angle sgn th + 2 pi k: the same rotation */
            const double ang = th + TWO_PI * k * sgn, f = ang / th;
            double c[3], d = 0.0;
            for (int i = 0; i < 3; i++) c[i] = f * phi[i], d += (c[i] - prev[i]) * (c[i] - prev[i]);
            if (d < dbest) dbest = d, memcpy(best, c, sizeof(best));
        }
    memcpy(phi, best, sizeof(best));
}

/* Pose of node 1 (point p1 of the body, its frame origin) at sample i: R, position, velocity,
 * acceleration a = a_G + eps x (R s) + w x (w x (R s)) (theory.md sec. 12). */
static void sample_pose(const kd_smech* m, const kd_sked_rigid* r, const kd_sked_link_spec* sp, int i, double R[9],
                        double p[3], double v[3], double a[3], double w[3], double e[3]) {
    const size_t n = (size_t)r->n;
    const double *q = r->q + i * n, *qd = r->qd + i * n, *qdd = r->qdd + i * n;
    const int b = sp->body;
    kd_rot_from_quat(q + 7 * b + 3, R);
    const double* com = m->com + 3 * b;
    const double s[3] = {sp->p1[0] - com[0], sp->p1[1] - com[1], sp->p1[2] - com[2]};
    kd_smech_point(m, b, s, q, qd, p, v);
    double Rs[3], t1[3], t2[3], t3[3];
    kd_smech_omega(m, b, q, qd, w);
    kd_smech_omega(m, b, q, qdd, e);  /* eps = 2 E(p) p'' (E(p') p' = 0) */
    for (int k = 0; k < 3; k++) Rs[k] = R[3 * k] * s[0] + R[3 * k + 1] * s[1] + R[3 * k + 2] * s[2];
    cross(e, Rs, t1);
    cross(w, Rs, t2);
    cross(w, t2, t3);
    for (int k = 0; k < 3; k++) a[k] = qdd[7 * b + k] + t1[k] + t3[k];
}

/* Solve the 3x3 system A x = b (A row-major) by Cramer's rule. */
static void solve3(const double A[9], const double b[3], double x[3]) {
    const double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                       A[2] * (A[3] * A[7] - A[4] * A[6]);
    for (int c = 0; c < 3; c++) {
        double M[9];
        memcpy(M, A, sizeof(M));
        for (int r = 0; r < 3; r++) M[3 * r + c] = b[r];
        x[c] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
                M[2] * (M[3] * M[7] - M[4] * M[6])) / det;
    }
}

/* Rates of the rotation vector from the body's angular velocity and acceleration (global):
 * omega = J(phi) phi', eps = J(phi) phi'' + J'(phi, phi') phi' (kedyn/frame.h), J's columns and
 * J' phi' from kd_rotvec_rates. */
static void rotvec_rates_inverse(const double phi[3], const double w[3], const double e[3], double dphi[3],
                                 double d2phi[3]) {
    double J[9], Q[9], col[3], eps0[3];
    const double zero[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++) {
        double ec[3] = {0, 0, 0};
        ec[c] = 1.0;
        kd_rotvec_rates(phi, ec, zero, Q, col, eps0);
        for (int r = 0; r < 3; r++) J[3 * r + c] = col[r];
    }
    solve3(J, w, dphi);
    kd_rotvec_rates(phi, dphi, zero, Q, col, eps0);
    const double rhs[3] = {e[0] - eps0[0], e[1] - eps0[1], e[2] - eps0[2]};
    solve3(J, rhs, d2phi);
}

/* ---- one link ---------------------------------------------------------------------- */

static kd_status link_joints(const kd_smech* m, kd_sked_link* L, kd_error* err) {
    const kd_sked_link_spec* sp = &L->spec;
    const double h = sp->length / sp->elements, *com = m->com + 3 * sp->body;
    for (int j = 0; j < m->njoint; j++)
        for (int side = 0; side < 2; side++) {
            const kd_sjoint* sj = &m->joint[j];
            if (sj->body[side] != sp->body) continue;
            /* the joint point from the link's node 1 along the body's x axis */
            const double dx[3] = {sj->s[side][0] + com[0] - sp->p1[0], sj->s[side][1] + com[1] - sp->p1[1],
                                  sj->s[side][2] + com[2] - sp->p1[2]};
            const double x = dx[0];
            const int node = (int)floor(x / h + 0.5);
            if (node < 0 || node > sp->elements || fabs(x - node * h) > 1e-6 * sp->length ||
                hypot(dx[1], dx[2]) > 1e-6 * sp->length)
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                                    "joint '%s' is not at a node of the elastic link '%s' (its x axis)", sj->name,
                                    sp->name);
            if (L->njoint == KD_KED_LINK_JOINTS)
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "link '%s' has more than %d joints", sp->name,
                                    KD_KED_LINK_JOINTS);
            L->joint[L->njoint] = j;
            L->joint_node[L->njoint] = node + 1;
            L->joint_sign[L->njoint] = side == 1 ? 1.0 : -1.0;
            L->njoint++;
        }
    if (L->njoint == 0)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "elastic link '%s' is in no joint", sp->name);
    return KD_OK;
}

void kd_sked_link_spec_of(const kd_desc* d, int b, int mb, kd_sked_link_spec* sp) {
    const kd_sdesc* sd = d->sdesc;
    const kd_sbody_desc* B = &sd->bodies[b];
    memset(sp, 0, sizeof(*sp));
    snprintf(sp->name, sizeof(sp->name), "%s", B->name);
    sp->body = mb;
    memcpy(sp->p1, B->p1, sizeof(sp->p1));
    sp->length = B->length, sp->elements = B->elements, sp->theory = B->theory, sp->frame_node = B->frame_node;
    sp->modes = B->modes, sp->statics = B->statics;
    if (!B->plate) sp->material = d->materials[B->material], sp->section = d->sections[B->section];
    if (B->plate) {  /* a shell link: its mesh in the body frame (theory.md sec. 22) */
        memset(sp->p1, 0, sizeof(sp->p1));
        sp->shell = B->shell, sp->support_set = B->support_set, sp->output_set = B->output_set;
        sp->material = d->materials[B->shell->material];
    }
    for (int i = 0; i < sd->nforces; i++)
        if (sd->forces[i].kind == KD_SF_GRAVITY)
            for (int c = 0; c < 3; c++) sp->g[c] += sd->forces[i].g[c];
}

kd_status kd_sked_link_new(const kd_smech* m, const kd_sked_rigid* r, const kd_sked_link_spec* spec,
                           kd_sked_link** out, kd_error* err) {
    *out = NULL;
    kd_sked_link* L = calloc(1, sizeof(*L));
    if (!L) return NOMEM();
    L->spec = *spec;
    for (int j = 0; j < KD_KED_LINK_JOINTS; j++)
        for (int c = 0; c < 6; c++) L->load[j][c] = kd_law_constant(0.0);
    L->preload = kd_law_constant(0.0);
    const int ns = r->nsamples;
    L->t0 = r->t[0], L->t_end = r->t[ns - 1];
    kd_status st = spec->shell ? splate_link_joints(m, L, err) : link_joints(m, L, err);
    int first = spec->elements + 2, last = 0;
    for (int j = 0; j < L->njoint; j++) {
        if (L->joint_node[j] < first) first = L->joint_node[j];
        if (L->joint_node[j] > last) last = L->joint_node[j];
    }
    int fnode = spec->frame_node;
    if (!st && fnode == 0 && first == last) fnode = first;
    L->node_u = fnode ? fnode : first;
    kd_desc* ld = NULL;
    if (!st && !(ld = L->desc = kd_desc_new())) st = NOMEM();
    kd_material_desc* mat = NULL;
    kd_section_desc* sec = NULL;
    kd_body_desc* b = NULL;
    if (!st) {
        snprintf(ld->title, sizeof(ld->title), "elastic link %s", spec->name);
        mat = kd_desc_add_material(ld), sec = spec->shell ? NULL : kd_desc_add_section(ld), b = kd_desc_add_body(ld);
        if (!mat || (!sec && !spec->shell) || !b) st = NOMEM();
    }
    if (!st && spec->shell) {
        *mat = spec->material;
        snprintf(b->name, sizeof(b->name), "%s", spec->name);
        if (splate_link_body(ld, spec, b)) st = NOMEM();
    } else if (!st) {
        *mat = spec->material, *sec = spec->section;
        snprintf(b->name, sizeof(b->name), "%s", spec->name);
        b->type = KD_BODY_BEAM;
        b->material = b->section = 0;
        b->length = spec->length, b->elements = spec->elements, b->theory = spec->theory;
        b->planar = 0, b->geometric_stiffness = 1;
        const unsigned U = 1u << KD_DOF_U, V = 1u << KD_DOF_V, W = 1u << KD_DOF_W, RX = 1u << KD_DOF_RX,
                       RY = 1u << KD_DOF_RY, RZ = 1u << KD_DOF_RZ;
        if (fnode) st = link_desc_support(ld, fnode, U | V | W | RX | RY | RZ);
        else if (!(st = link_desc_support(ld, first, U | V | W | RX))) st = link_desc_support(ld, last, V | W);
        if (st) st = NOMEM();
    }
    /* the frame motion: a tabulated pose (kedyn/frame.h) */
    double* buf = st ? NULL : malloc(sizeof(double) * 18 * (size_t)ns);
    if (!st && !buf) st = NOMEM();
    double Rs[9] = {0};
    if (!st) {
        double *pos = buf, *vel = buf + 3 * ns, *acc = buf + 6 * ns, *rv = buf + 9 * ns, *drv = buf + 12 * ns;
        double* d2rv = buf + 15 * ns;
        double prev[3] = {0, 0, 0};
        for (int i = 0; i < ns; i++) {
            double p[3], v[3], a[3], w[3], e[3], phi[3], dphi[3], d2phi[3];
            sample_pose(m, r, spec, i, Rs, p, v, a, w, e);
            rot_log(Rs, phi);
            rot_unwrap(phi, prev);
            memcpy(prev, phi, sizeof(prev));
            rotvec_rates_inverse(phi, w, e, dphi, d2phi);
            for (int c = 0; c < 3; c++) {
                pos[c * ns + i] = p[c], vel[c * ns + i] = v[c], acc[c * ns + i] = a[c];
                rv[c * ns + i] = phi[c], drv[c * ns + i] = dphi[c], d2rv[c * ns + i] = d2phi[c];
            }
        }
        kd_motion_desc* mo = kd_desc_add_motion(ld);
        if (!mo) st = NOMEM();
        if (!st) {
            mo->body = 0;
            mo->motion.type = KD_MOTION_POSE;
            for (int c = 0; c < 6; c++) mo->motion.pose[c] = kd_law_constant(0.0);
            for (int c = 0; c < 3 && !st; c++)
                st = kd_law_hermite(&mo->motion.pose[c], ns, r->t, pos + c * ns, vel + c * ns, acc + c * ns, err);
            for (int c = 0; c < 3 && !st; c++)
                st = kd_law_hermite(&mo->motion.pose[3 + c], ns, r->t, rv + c * ns, drv + c * ns, d2rv + c * ns, err);
        }
    }
    /* joint wrenches on the link in its frame: F_L = R^T (sign F), M_L = R^T (sign M) */
    for (int j = 0; j < L->njoint && !st; j++) {
        double* comp = buf;  /* reuse: 6 series */
        for (int i = 0; i < ns; i++) {
            double p[3], v[3], a[3], w[3], e[3];
            sample_pose(m, r, spec, i, Rs, p, v, a, w, e);
            const double* F = r->F + (size_t)i * 6 * (size_t)r->njoint + 6 * (size_t)L->joint[j];
            const double sg = L->joint_sign[j];
            for (int c = 0; c < 3; c++) {
                comp[c * ns + i] = sg * (Rs[c] * F[0] + Rs[3 + c] * F[1] + Rs[6 + c] * F[2]);
                comp[(3 + c) * ns + i] = sg * (Rs[c] * F[3] + Rs[3 + c] * F[4] + Rs[6 + c] * F[5]);
            }
        }
        static const kd_dof_name dofs[6] = {KD_DOF_U, KD_DOF_V, KD_DOF_W, KD_DOF_RX, KD_DOF_RY, KD_DOF_RZ};
        for (int c = 0; c < 6 && !st; c++) st = kd_law_table(&L->load[j][c], ns, r->t, comp + c * ns, 0, err);
        for (int c = 0; c < 6 && !st; c++) st = link_desc_nodal(ld, L->joint_node[j], dofs[c], &L->load[j][c]);
    }
    /* axial force the joints transmit past the node whose u the frame holds (beams) */
    if (!st && !spec->shell)
        st = link_preload_table(&L->preload, &L->load[0][0], 6, L->njoint, L->joint_node, L->node_u, ns, r->t, buf,
                                err);
    free(buf);
    if (!st && (spec->g[0] != 0 || spec->g[1] != 0 || spec->g[2] != 0)) {
        kd_load_desc* g = kd_desc_add_load(ld);
        if (!g) st = NOMEM();
        else {
            g->type = KD_LOAD_GRAVITY;
            memcpy(g->g, spec->g, sizeof(g->g));
            g->value = kd_law_constant(0.0), g->value_y = kd_law_constant(0.0);
        }
    }
    if (!st && (spec->damp_alpha > 0 || spec->damp_beta > 0)) {
        kd_damping_desc* dm = kd_desc_add_damping(ld);
        if (!dm) st = NOMEM();
        else dm->body = 0, dm->alpha = spec->damp_alpha, dm->beta = spec->damp_beta;
    }
    if (!st) st = kd_model_compile(ld, &L->model, err);
    if (!st && !spec->shell) switch (sec->shape) {
        case KD_SHAPE_CIRCLE:
        case KD_SHAPE_TUBE: L->c_y = L->c_z = 0.5 * sec->d; break;
        case KD_SHAPE_RECTANGLE: L->c_y = 0.5 * sec->h, L->c_z = 0.5 * sec->b; break;
        case KD_SHAPE_GENERIC: L->c_y = L->c_z = 0.0; break;
        }
    if (st) {
        kd_sked_link_free(&L);
        return st;
    }
    *out = L;
    return KD_OK;
}

void kd_sked_link_free(kd_sked_link** pl) {
    if (!pl || !*pl) return;
    kd_sked_link* L = *pl;
    kd_model_free(&L->model);
    kd_desc_free(&L->desc);
    for (int j = 0; j < KD_KED_LINK_JOINTS; j++)
        for (int c = 0; c < 6; c++) kd_law_free(&L->load[j][c]);
    kd_law_free(&L->preload);
    free(L);
    *pl = NULL;
}

/* ---- integration --------------------------------------------------------------- */

/* The link's equations: full (the affine or, plain_step, the plain step) or, spec.modes > 0,
 * projected on its modal basis (theory.md sec. 12.11). */
static kd_status link_open(kd_sked_link* L, link_ode* lo, kd_error* err) {
    const int modal = L->spec.modes > 0;
    kd_status st = link_ode_init(lo, L->model, &L->preload, L->spec.name, modal || !L->plain_step, err);
    if (!st && modal && (st = link_ode_reduce(lo, L->spec.modes, L->spec.statics, err))) link_ode_free(lo);
    return st;
}

kd_status kd_sked_link_static(kd_sked_link* L, double t, double* q, kd_error* err) {
    link_ode lo;
    kd_status st = link_open(L, &lo, err);
    if (st) return st;
    st = link_ode_static(&lo, t, q, err);
    link_ode_free(&lo);
    return st;
}

kd_status kd_sked_link_dynamics(kd_sked_link* L, const kd_dynamics_desc* dy, kd_ked_output out, void* ctx,
                                kd_integrate_stats* stats, kd_error* err) {
    link_ode lo;
    kd_status st = link_open(L, &lo, err);
    if (st) return st;
    const int n = lo.s.n;
    double* q0 = calloc(2 * (size_t)n + 1, sizeof(double));
    if (!q0) st = NOMEM();
    if (!st) st = link_ode_static(&lo, L->t0, q0, err);  /* at rest relative to the frame */
    if (!st) st = link_ode_integrate(&lo, dy, L->t0, L->t_end, q0, q0 + n, out, ctx, 0, stats, err);
    free(q0);
    link_ode_free(&lo);
    return st;
}

kd_status kd_sked_modes_along_motion(const kd_sked_link* L, const kd_sked_rigid* r, int count, int gyroscopic,
                                     kd_ked_modes* out, kd_error* err) {
    if (L->spec.modes > 0) {  /* the reduced matrices' frequencies at each instant, ascending */
        memset(out, 0, sizeof(*out));
        link_ode lo;
        kd_status st = link_open((kd_sked_link*)L, &lo, err);  /* the probes restore the model they touch */
        if (st) return st;
        out->nsamples = r->nsamples, out->count = count, out->mac_min = 1.0;
        out->t = malloc(sizeof(double) * (size_t)r->nsamples);
        out->omega = malloc(sizeof(double) * (size_t)r->nsamples * (size_t)count);
        if (!out->t || !out->omega) st = NOMEM();
        for (int i = 0; i < r->nsamples && !st; i++) {
            out->t[i] = r->t[i];
            if (link_modal_frequencies(lo.modal, r->t[i], count, gyroscopic != KD_KED_GYRO_OFF,
                                       out->omega + (size_t)i * count))
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                  "link '%s': at t = %g s fewer than %d frequencies of its modal basis", L->spec.name,
                                  r->t[i], count);
            out->state_space += gyroscopic != KD_KED_GYRO_OFF, out->dense_instants += gyroscopic != KD_KED_GYRO_OFF;
        }
        link_ode_free(&lo);
        if (st) kd_ked_modes_free(out);
        return st;
    }
    const along_source src = {L->desc, &L->preload, L->spec.name, r->t, r->nsamples, L->model->neq};
    return link_modes_along_motion(src, count, gyroscopic, out, err);
}

/* ---- post-processing ----------------------------------------------------------- */

void kd_sked_link_displacements(const kd_sked_link* L, const double* q, double* out) {
    const kd_model* m = L->model;
    for (int n = 0; n < m->nnode; n++)
        for (int c = 0; c < 6; c++) {
            const int dof = link_node_dof(m, n, (kd_dof_name)(KD_DOF_U + c));
            out[6 * n + c] = dof >= 0 && m->dof_eq[dof] >= 0 ? q[m->dof_eq[dof]] : 0.0;
        }
}

void kd_sked_link_section_forces(const kd_sked_link* L, const double* q, double* out) {
    const kd_model* m = L->model;
    memset(out, 0, sizeof(double) * 4 * (size_t)m->nnode);
    for (int e = 0; e < m->nelem; e++) {
        const kd_element_props* pr = &m->prop[m->elem_prop[e]];
        int eqs[KD_ELEM_DOF_MAX];
        double de[KD_ELEM_DOF_MAX];
        const int nd = kd_model_elem_eqs(m, e, eqs);
        for (int a = 0; a < nd; a++) de[a] = eqs[a] >= 0 ? q[eqs[a]] : 0.0;
        for (int end = 0; end < 2; end++) {
            double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
            kd_element_shape(pr->kind, &pr->c, pr->L, (double)end, N, dN);
            double du = 0.0, dry = 0.0, drz = 0.0;
            for (int a = 0; a < nd; a++) du += dN[0][a] * de[a], dry += dN[4][a] * de[a], drz += dN[5][a] * de[a];
            const int node = m->elem_node[m->elem_node_adr[e] + end];
            const double w = node > 0 && node < m->nnode - 1 ? 0.5 : 1.0;
            out[4 * node] += w * pr->c.E * pr->c.A * du;         /* N = EA u' */
            out[4 * node + 1] += w * pr->c.E * pr->c.Iy * dry;   /* My = EIy ry' */
            out[4 * node + 2] += w * pr->c.E * pr->c.Iz * drz;   /* Mz = EIz rz' */
        }
    }
    const kd_element_props* pr = &m->prop[0];
    for (int n = 0; n < m->nnode; n++)
        out[4 * n + 3] = L->c_y > 0 ? fabs(out[4 * n]) / pr->c.A + fabs(out[4 * n + 1]) * L->c_z / pr->c.Iy +
                                          fabs(out[4 * n + 2]) * L->c_y / pr->c.Iz
                                    : 0.0;
}

/* As the planar kd_ked_link_reactions (theory.md sec. 7.3, 12): r = (m (a + alpha v) + c v +
 * k (q + beta v) + (k_g + k_eps + k_omega) q + q_inertia)_dof at each supported translation. */
void kd_sked_link_reactions(const kd_sked_link* L, double t, const double* q, const double* v, const double* a,
                            double* out) {
    const kd_body* body = &L->model->body[0];
    kd_frame f;
    kd_motion_eval(&body->motion, body->rot, body->origin, t, &f);
    double R[3 * KD_KED_LINK_JOINTS];  /* frame components */
    if (L->spec.shell) splate_link_reactions(L, t, q, v, a, R);  /* the support set's (sec. 22, SL7) */
    else link_support_reactions(L->model, &f, &L->preload, &L->load[0][0], 6, L->njoint, L->joint_node, 3, t, q, v, a, R);
    for (int j = 0; j < L->njoint; j++)
        for (int i = 0; i < 3; i++)
            out[3 * j + i] = f.R[3 * i] * R[3 * j] + f.R[3 * i + 1] * R[3 * j + 1] + f.R[3 * i + 2] * R[3 * j + 2];
}
