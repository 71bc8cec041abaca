/* The affine step of a one-way link (src/links/link_ode.h; theory.md sec. 12.7).
 *
 * A link's moving-frame matrices and inertia loads depend on its frame state and preload only
 * through p = (a_eff (3), eps (3), omega_i omega_j (6), P) and omega (3):
 *     K(t) = K0 + sum_c p_c B_c,   C(t) = C0 + sum_k omega_k G_k,   f_in(t) = sum_c p_c F_c
 * (a_eff = a_O,L - R^T g; the gyroscopic [c] linear in omega, [k(eps)] in eps, [k(omega)] and the
 * centrifugal k_g quadratic in omega, the k_g of the axial acceleration and the preload linear).
 * The parts are taken once from the system itself (kd_system at unit frame states, scaled so that
 * the differences lose nothing at the states of a motion) and kept as sparse lists over their
 * union pattern; each step combines them. The step's iteration matrix S(t) = cm M + cc C(t) + ck K(t) is factorised at
 * some state S_ref and kept: S(t) a = r is solved by the splitting iteration
 *     a_{k+1} = S_ref^-1 (r - (S(t) - S_ref) a_k)
 * from the previous step's acceleration, to round-off (the error after an iterate is about rho
 * times its change, rho = |a_{k+1} - a_k| / |a_k - a_{k-1}|); when more than REFACTOR_AFTER
 * iterates are needed the next step factorises anew, after MAX_ITERATES this one. No allocation
 * in the steps. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "link_ode.h"

enum { NPK = LINK_NPK, NPC = LINK_NPC, NPF = LINK_NPF };

/* Probe scales: large against the states of a motion, so that the parts taken as differences
 * from K0 carry no more than round-off of K0 into a step's matrices. */
#define SCALE_A 1e6  /* m/s^2 */
#define SCALE_E 1e6  /* rad/s^2 */
#define SCALE_W 1e3  /* rad/s */
#define SCALE_P 1e6  /* N */
#define MAX_ITERATES 6
#define REFACTOR_AFTER 3  /* iterates of a step beyond which the next step factorises anew */

typedef struct part {
    int nnz;
    int* idx;                     /* into the union pattern */
    double* val;
} part;

struct link_step {
    link_ode* lo;
    int n, kd, ld;                /* equations, half-bandwidth, ld = 2 kd + 1 of C, K */
    size_t nab;                   /* band entries of C, K */
    int c_any;                    /* C is not always zero */
    part B[NPK + NPC];            /* parts of K (p) and C (omega) over the union pattern */
    int nu, *urow, *ucol;         /* the union pattern: every band entry some part has, by columns */
    double* F[NPF];               /* (n) inertia-load parts (NULL: zero) */
    double p[NPK + NPC];          /* the state of t_par: p, then omega */
    double t_par;
    int have_par;
    kd_gband Cr, Kr;              /* C and K at the reference state (first the zero state, then
                                     the factorised one) */
    double p_ref[NPK + NPC];      /* its p and omega */
    double *dk, *dc, *D;          /* (nu) K(t) - Kr, C(t) - Cr, cc dc + ck dk */
    kd_gband lu;                  /* the factor of S_ref = cm M + cc Cr + ck Kr */
    int* piv;
    double coef[3];               /* cm, cc, ck of the factor */
    int have_lu, refactor;
    double *r0, *x, *x1;          /* (n) */
};

/* ---- the parts ------------------------------------------------------------------------- */

/* The system's matrices and inertia loads at one frame state (R = I, no gravity) and preload. */
static void probe(link_step* w, const double om[3], const double eps[3], const double acc[3], double P, kd_gband* C,
                  kd_gband* K, double* f) {
    kd_system* s = &w->lo->s;
    kd_frame* fr = &s->frame[0];
    memset(fr, 0, sizeof(*fr));
    fr->R[0] = fr->R[4] = fr->R[8] = 1.0;
    for (int i = 0; i < 3; i++) {
        fr->omega[i] = fr->omega_L[i] = om[i];
        fr->eps[i] = fr->eps_L[i] = eps[i];
        fr->aO[i] = fr->aO_L[i] = acc[i];
    }
    s->have_frames = 1, s->t_frames = 0.0;
    w->lo->model->body[0].preload = P;
    kd_system_invalidate(s);
    int changed;
    kd_system_matrices(s, 0.0, C, K, &changed);
    kd_system_force(s, 0.0, f);
    memcpy(f, s->f_inertia, sizeof(double) * (size_t)w->n);
}

void link_step_free(link_step** ps) {
    link_step* w = ps ? *ps : NULL;
    if (!w) return;
    kd_gband_free(&w->Cr), kd_gband_free(&w->Kr), kd_gband_free(&w->lu);
    for (int c = 0; c < NPK + NPC; c++) free(w->B[c].idx), free(w->B[c].val);
    for (int c = 0; c < NPF; c++) free(w->F[c]);
    free(w->urow), free(w->ucol), free(w->dk), free(w->dc), free(w->D);
    free(w->piv), free(w->r0), free(w->x), free(w->x1);
    free(w);
    *ps = NULL;
}

/* The union pattern of the dense band parts B[0..np) (entries nonzero in any, by columns) and
 * each part as a sparse list over it. 1 when out of memory. */
static int sparsify(link_step* w, double* const* B, int np) {
    const int n = w->n, kd = w->kd, ld = w->ld;
    int* map = malloc(sizeof(int) * w->nab);
    if (!map) return 1;
    int u = 0;
    for (size_t e = 0; e < w->nab; e++) {  /* band order: column by column, rows down */
        int any = 0;
        for (int c = 0; c < np && !any; c++) any = B[c][e] != 0.0;
        map[e] = any ? u++ : -1;
    }
    w->nu = u;
    w->urow = malloc(sizeof(int) * (size_t)(u + 1)), w->ucol = malloc(sizeof(int) * (size_t)(u + 1));
    w->dk = calloc((size_t)u + 1, sizeof(double)), w->dc = calloc((size_t)u + 1, sizeof(double));
    w->D = calloc((size_t)u + 1, sizeof(double));
    int bad = !w->urow || !w->ucol || !w->dk || !w->dc || !w->D;
    for (int j = 0; j < n && !bad; j++)
        for (int i = j - kd > 0 ? j - kd : 0; i <= j + kd && i < n; i++) {
            const size_t e = (size_t)(kd + i - j) + (size_t)j * ld;  /* entry (i, j) */
            if (map[e] >= 0) w->urow[map[e]] = i, w->ucol[map[e]] = j;
        }
    for (int c = 0; c < np && !bad; c++) {
        part* q = &w->B[c];
        for (size_t e = 0; e < w->nab; e++) q->nnz += B[c][e] != 0.0;
        if (!q->nnz) continue;
        q->idx = malloc(sizeof(int) * (size_t)q->nnz), q->val = malloc(sizeof(double) * (size_t)q->nnz);
        if (!q->idx || !q->val) {
            bad = 1;
            break;
        }
        int k = 0;
        for (size_t e = 0; e < w->nab; e++)
            if (B[c][e] != 0.0) q->idx[k] = map[e], q->val[k++] = B[c][e];
    }
    free(map);
    return bad;
}

kd_status link_step_new(link_ode* lo, link_step** out, kd_error* err) {
    *out = NULL;
    kd_model* m = lo->model;
    if (m->nbody != 1 || lo->s.route.element) return KD_OK;  /* the plain route */
    link_step* w = calloc(1, sizeof(*w));
    if (!w) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    w->lo = lo;
    const int n = w->n = lo->s.n, kd = w->kd = lo->s.kd;
    w->ld = 2 * kd + 1;
    const size_t nab = w->nab = (size_t)w->ld * (size_t)n, nv = (size_t)(n ? n : 1);
    /* dense parts while probing: K (NPK), C (NPC), the raw K of the three single-axis omega
     * probes and one probe's K; f (NPF), the raw f of the omega probes and one probe's f */
    double* buf = calloc((NPK + NPC + 4) * nab + (NPF + 4) * nv, sizeof(double));
    kd_status st = buf ? KD_OK : KD_ERR_NOMEM;
    kd_gband Cs = {0};  /* scratch C of the probes */
    if (!st) st = kd_gband_init(&w->Cr, n, kd, kd);
    if (!st) st = kd_gband_init(&w->Kr, n, kd, kd);
    if (!st) st = kd_gband_init(&Cs, n, kd, kd);
    if (!st) st = kd_gband_init(&w->lu, n, 2 * kd, kd);
    w->piv = malloc(sizeof(int) * nv);
    w->r0 = malloc(sizeof(double) * nv), w->x = malloc(sizeof(double) * nv), w->x1 = malloc(sizeof(double) * nv);
    if (!w->piv || !w->r0 || !w->x || !w->x1) st = KD_ERR_NOMEM;
    if (st) {
        free(buf);
        kd_gband_free(&Cs);
        link_step_free(&w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    double *B[NPK + NPC], *Fd[NPF];
    for (int c = 0; c < NPK + NPC; c++) B[c] = buf + (size_t)c * nab;
    double* Kw = buf + (size_t)(NPK + NPC) * nab;  /* raw K of the omega_k probes (3) */
    double* fbase = buf + (size_t)(NPK + NPC + 4) * nab;
    for (int c = 0; c < NPF; c++) Fd[c] = fbase + (size_t)c * nv;
    double *fw = fbase + (size_t)NPF * nv, *fp = fw + 3 * nv;  /* raw f of the omega_k probes; a probe's f */
    kd_gband Kp = {n, kd, kd, buf + (size_t)(NPK + NPC + 3) * nab}, Cp = {n, kd, kd, NULL};
    double gsave[3];
    memcpy(gsave, m->gravity, sizeof(gsave));
    const double psave = m->body[0].preload;
    memset(m->gravity, 0, sizeof(gsave));
    const double z[3] = {0, 0, 0};
    probe(w, z, z, z, 0.0, &w->Cr, &w->Kr, fp);
    /* p = (a (3), eps (3), ww (xx, yy, zz, xy, xz, yz), P), then omega */
    for (int k = 0; k < 3; k++) {
        double e[3] = {0, 0, 0};
        e[k] = SCALE_A;
        probe(w, z, z, e, 0.0, &Cs, &Kp, Fd[k]);
        for (size_t i = 0; i < nab; i++) B[k][i] = (Kp.ab[i] - w->Kr.ab[i]) / SCALE_A;
        for (int i = 0; i < n; i++) Fd[k][i] /= SCALE_A;
        e[k] = SCALE_E;
        probe(w, z, e, z, 0.0, &Cs, &Kp, Fd[3 + k]);
        for (size_t i = 0; i < nab; i++) B[3 + k][i] = (Kp.ab[i] - w->Kr.ab[i]) / SCALE_E;
        for (int i = 0; i < n; i++) Fd[3 + k][i] /= SCALE_E;
    }
    for (int k = 0; k < 3; k++) {
        double e[3] = {0, 0, 0};
        e[k] = SCALE_W;
        Cp.ab = B[NPK + k];
        kd_gband Kk = {n, kd, kd, Kw + (size_t)k * nab};
        probe(w, e, z, z, 0.0, &Cp, &Kk, fw + (size_t)k * nv);
        for (size_t i = 0; i < nab; i++) {
            Cp.ab[i] = (Cp.ab[i] - w->Cr.ab[i]) / SCALE_W;
            B[6 + k][i] = (Kk.ab[i] - w->Kr.ab[i]) / (SCALE_W * SCALE_W);
        }
        for (int i = 0; i < n; i++) Fd[6 + k][i] = fw[(size_t)k * nv + i] / (SCALE_W * SCALE_W);
    }
    static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int k = 0; k < 3; k++) {
        const int i0 = pair[k][0], i1 = pair[k][1];
        double e[3] = {0, 0, 0};
        e[i0] = e[i1] = SCALE_W;
        probe(w, e, z, z, 0.0, &Cs, &Kp, fp);
        const double *K0 = w->Kr.ab, *Ka = Kw + (size_t)i0 * nab, *Kb = Kw + (size_t)i1 * nab;
        for (size_t i = 0; i < nab; i++) B[9 + k][i] = ((Kp.ab[i] - Ka[i]) - (Kb[i] - K0[i])) / (SCALE_W * SCALE_W);
        for (int i = 0; i < n; i++)
            Fd[9 + k][i] = (fp[i] - fw[(size_t)i0 * nv + i] - fw[(size_t)i1 * nv + i]) / (SCALE_W * SCALE_W);
    }
    probe(w, z, z, z, SCALE_P, &Cs, &Kp, fp);
    for (size_t i = 0; i < nab; i++) B[12][i] = (Kp.ab[i] - w->Kr.ab[i]) / SCALE_P;
    memcpy(m->gravity, gsave, sizeof(gsave));
    m->body[0].preload = psave;
    lo->s.have_frames = 0;
    kd_system_invalidate(&lo->s);
    /* the parts over their union pattern; the load parts kept dense (n each) where nonzero */
    kd_gband_free(&Cs);
    int bad = sparsify(w, B, NPK + NPC);
    for (size_t i = 0; i < nab && !w->c_any; i++) w->c_any = w->Cr.ab[i] != 0.0;
    for (int c = NPK; c < NPK + NPC; c++) w->c_any |= w->B[c].nnz > 0;
    for (int c = 0; c < NPF && !bad; c++) {
        int any = 0;
        for (int i = 0; i < n && !any; i++) any = Fd[c][i] != 0.0;
        if (any && !(w->F[c] = malloc(sizeof(double) * nv))) bad = 1;
        else if (any) memcpy(w->F[c], Fd[c], sizeof(double) * (size_t)n);
    }
    free(buf);
    if (bad) {
        link_step_free(&w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    *out = w;
    return KD_OK;
}

/* ---- a state ------------------------------------------------------------------------------ */

/* p and omega at t (the frame as the system evaluates it; theory.md sec. 12.7). */
void link_step_params(link_step* w, double t, double* p) {
    kd_system* s = &w->lo->s;
    const kd_model* m = w->lo->model;
    kd_system_frames(s, t);
    const kd_frame* f = &s->frame[0];
    const double *g = m->gravity, *om = f->omega_L;
    for (int i = 0; i < 3; i++) {
        p[i] = f->aO_L[i] - (f->R[i] * g[0] + f->R[3 + i] * g[1] + f->R[6 + i] * g[2]);
        p[3 + i] = f->eps_L[i];
        p[6 + i] = om[i] * om[i];
        p[NPK + i] = om[i];
    }
    p[9] = om[0] * om[1], p[10] = om[0] * om[2], p[11] = om[1] * om[2];
    double dN, d2N;
    kd_law_eval(w->lo->preload_law, t, &p[12], &dN, &d2N);
}

/* p, omega and dk = K(t) - Kr, dc = C(t) - Cr at t. */
static void state_at(link_step* w, double t) {
    if (w->have_par && w->t_par == t) return;
    const double* p = w->p;
    link_step_params(w, t, w->p);
    memset(w->dk, 0, sizeof(double) * (size_t)w->nu);
    memset(w->dc, 0, sizeof(double) * (size_t)w->nu);
    for (int c = 0; c < NPK + NPC; c++) {
        const part* q = &w->B[c];
        const double dp = p[c] - w->p_ref[c];
        if (!q->nnz || dp == 0.0) continue;
        double* d = c < NPK ? w->dk : w->dc;
        for (int e = 0; e < q->nnz; e++) d[q->idx[e]] += dp * q->val[e];
    }
    w->t_par = t, w->have_par = 1;
}

void link_step_parts(const link_step* w, link_parts* out) {
    memset(out, 0, sizeof(*out));
    out->n = w->n, out->kd = w->kd;
    out->K0 = &w->Kr, out->C0 = &w->Cr, out->M = &w->lo->s.M;
    out->nu = w->nu, out->urow = w->urow, out->ucol = w->ucol;
    for (int c = 0; c < LINK_NPK + LINK_NPC; c++) out->nnz[c] = w->B[c].nnz, out->idx[c] = w->B[c].idx, out->val[c] = w->B[c].val;
    for (int c = 0; c < LINK_NPF; c++) out->F[c] = w->F[c];
}

/* A += d on the union pattern (A in band storage). */
static void add_union(const link_step* w, const double* d, double* A) {
    for (int u = 0; u < w->nu; u++) A[(size_t)(w->kd + w->urow[u] - w->ucol[u]) + (size_t)w->ucol[u] * w->ld] += d[u];
}

int link_step_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    link_step* w = ctx;
    state_at(w, t);
    memcpy(C->ab, w->Cr.ab, sizeof(double) * w->nab);
    memcpy(K->ab, w->Kr.ab, sizeof(double) * w->nab);
    add_union(w, w->dc, C->ab);
    add_union(w, w->dk, K->ab);
    *changed = 1;
    return 0;
}

int link_step_force(void* ctx, double t, double* f) {
    link_step* w = ctx;
    state_at(w, t);
    const kd_model* m = w->lo->model;
    const int n = w->n;
    memset(f, 0, sizeof(double) * (size_t)n);
    for (int c = 0; c < NPF; c++)
        if (w->F[c] && w->p[c] != 0.0)
            for (int i = 0; i < n; i++) f[i] += w->p[c] * w->F[c][i];
    for (int i = 0; i < m->nnodal; i++) {
        double v, dv, d2v;
        kd_law_eval(&m->nodal[i].value, t, &v, &dv, &d2v);
        f[m->nodal[i].eq] += v;
    }
    return 0;
}

/* ---- the step -------------------------------------------------------------------------------- */

/* The current state becomes the reference: S = cm M + cc C + ck K factorised and kept. 1 when
 * singular. */
static int refactor(link_step* w, double cm, double cc, double ck) {
    add_union(w, w->dc, w->Cr.ab);
    add_union(w, w->dk, w->Kr.ab);
    memcpy(w->p_ref, w->p, sizeof(w->p));
    memset(w->dk, 0, sizeof(double) * (size_t)w->nu);
    memset(w->dc, 0, sizeof(double) * (size_t)w->nu);
    kd_gband_combine_lu(&w->lu, cm, &w->lo->s.M, cc, &w->Cr, ck, &w->Kr);
    if (kd_gband_lu_factor(w->lu.ab, w->n, w->kd, w->kd, w->piv, NULL)) return 1;
    w->coef[0] = cm, w->coef[1] = cc, w->coef[2] = ck;
    w->have_lu = 1, w->refactor = 0;
    return 0;
}

static void lu_solve(const link_step* w, double* b) {
    kd_gband_lu_forward(w->lu.ab, w->n, w->kd, w->kd, w->piv, b);
    kd_gband_lu_back(w->lu.ab, w->n, w->kd, w->kd, b);
}

/* z = r0 - D x on the union pattern. */
static void split_rhs(const link_step* w, const double* x, double* z) {
    memcpy(z, w->r0, sizeof(double) * (size_t)w->n);
    const int *row = w->urow, *col = w->ucol;
    const double* D = w->D;
    for (int u = 0; u < w->nu; u++) z[row[u]] -= D[u] * x[col[u]];
}

int link_step_solve(void* ctx, double t, double cm, double cc, double ck, double am, const double* a,
                    const double* x, const double* y, double* r, int* factored) {
    link_step* w = ctx;
    const int n = w->n;
    state_at(w, t);
    if (!w->have_lu || w->refactor || cm != w->coef[0] || cc != w->coef[1] || ck != w->coef[2]) {
        if (refactor(w, cm, cc, ck)) return 1;
        ++*factored;
        kd_gband_residual3(&w->lo->s.M, am, a, w->c_any ? &w->Cr : NULL, x, &w->Kr, y, r);
        lu_solve(w, r);
        return 0;
    }
    /* r -= am M a + C x + K y: the reference's band matrices, then the state's differences */
    kd_gband_residual3(&w->lo->s.M, am, a, w->c_any ? &w->Cr : NULL, x, &w->Kr, y, r);
    int moved = 0;
    const int *row = w->urow, *col = w->ucol;
    for (int u = 0; u < w->nu; u++) {
        r[row[u]] -= w->dc[u] * x[col[u]] + w->dk[u] * y[col[u]];
        w->D[u] = cc * w->dc[u] + ck * w->dk[u];
        moved |= w->D[u] != 0.0;
    }
    if (!moved) {  /* the factorised state: exact at once */
        lu_solve(w, r);
        return 0;
    }
    /* the splitting iteration from the previous acceleration */
    memcpy(w->r0, r, sizeof(double) * (size_t)n);
    double *xk = w->x, *xn = w->x1, dprev = 0.0;
    memcpy(xk, a, sizeof(double) * (size_t)n);
    for (int it = 1; it <= MAX_ITERATES; it++) {
        split_rhs(w, xk, xn);
        lu_solve(w, xn);
        double d = 0.0, nrm = 0.0;
        for (int i = 0; i < n; i++) {
            const double di = fabs(xn[i] - xk[i]), ai = fabs(xn[i]);
            d = di > d ? di : d;
            nrm = ai > nrm ? ai : nrm;
        }
        double* sw = xk;
        xk = xn, xn = sw;
        /* converged: the change at round-off, or the error left (rho times the change) below it */
        if (it >= 2 && (d <= 4 * DBL_EPSILON * nrm || (dprev > 0 && d / dprev * d <= DBL_EPSILON * nrm))) {
            memcpy(r, xk, sizeof(double) * (size_t)n);
            if (it > REFACTOR_AFTER) w->refactor = 1;  /* slower: a new factor at the next step */
            return 0;
        }
        dprev = d;
    }
    /* not converged: factorise at this state (its residual is r0) */
    if (refactor(w, cm, cc, ck)) return 1;
    ++*factored;
    memcpy(r, w->r0, sizeof(double) * (size_t)n);
    lu_solve(w, r);
    return 0;
}
