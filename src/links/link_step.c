/* The affine step of a one-way link (src/links/link_ode.h; theory.md sec. 12.7).
 *
 * A link's moving-frame matrices and inertia loads depend on its frame state and preload only
 * through p = (a_eff (3), eps (3), omega_i omega_j (6), P) and omega (3):
 *     K(t) = K0 + sum_c p_c B_c,   C(t) = C0 + sum_k omega_k G_k,   f_in(t) = sum_c p_c F_c
 * (a_eff = a_O,L - R^T g; the gyroscopic [c] linear in omega, [k(eps)] in eps, [k(omega)] and the
 * centrifugal k_g quadratic in omega, the k_g of the axial acceleration and the preload linear).
 * The parts are taken once from the system itself (kd_system at unit frame states, scaled so that
 * the differences lose nothing at the states of a motion) and kept as sparse lists; each step
 * combines them. The step's iteration matrix S(t) = cm M + cc C(t) + ck K(t) is factorised at
 * some state S_ref and kept: S(t) a = r is solved by the splitting iteration
 *     a_{k+1} = S_ref^-1 (r - (S(t) - S_ref) a_k)
 * from the previous step's acceleration, to round-off (the error after an iterate is about rho
 * times its change, rho = |a_{k+1} - a_k| / |a_k - a_{k-1}|); when more than two iterates are
 * needed the next step factorises anew. No allocation in the steps. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "link_ode.h"

enum { NPK = 13, NPC = 3, NPF = 12 };  /* parameters of K (a, eps, ww, P), of C (omega), of f (a, eps, ww) */

/* Probe scales: large against the states of a motion, so that the parts taken as differences
 * from K0 carry no more than round-off of K0 into a step's matrices. */
#define SCALE_A 1e6  /* m/s^2 */
#define SCALE_E 1e6  /* rad/s^2 */
#define SCALE_W 1e3  /* rad/s */
#define SCALE_P 1e6  /* N */
#define MAX_ITERATES 5

typedef struct part {
    int nnz;
    int* idx;                     /* into the union pattern */
    double* val;
} part;

struct link_step {
    link_ode* lo;
    int n, kd, ld;                /* equations, half-bandwidth, ld = 2 kd + 1 of C, K */
    kd_gband K0, C0;              /* at the zero state */
    int damped;                   /* C0 nonzero */
    int nk, nc;                   /* union patterns of the K and C parts */
    int *krow, *kcol, *crow, *ccol;
    part kp[NPK], cp[NPC];
    double* F[NPF];               /* (n) inertia-load parts (NULL: zero) */
    double p[NPK], w[NPC];        /* the state of t_par */
    double t_par;
    int have_par;
    double *dK, *dC;              /* (nk), (nc): sum_c p_c B_c, sum_k omega_k G_k at t_par */
    double *dK_ref, *dC_ref;      /* the same at the factorised state */
    double *Dk, *Dc;              /* ck (dK - dK_ref), cc (dC - dC_ref) */
    kd_gband Cb, Kb, lu;          /* scratch C, K; the kept factor (LU band storage) */
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

static void part_free(part* p) {
    free(p->idx), free(p->val);
    memset(p, 0, sizeof(*p));
}

void link_step_free(link_step** ps) {
    link_step* w = ps ? *ps : NULL;
    if (!w) return;
    kd_gband_free(&w->K0), kd_gband_free(&w->C0), kd_gband_free(&w->Cb), kd_gband_free(&w->Kb), kd_gband_free(&w->lu);
    free(w->krow), free(w->kcol), free(w->crow), free(w->ccol);
    for (int c = 0; c < NPK; c++) part_free(&w->kp[c]);
    for (int c = 0; c < NPC; c++) part_free(&w->cp[c]);
    for (int c = 0; c < NPF; c++) free(w->F[c]);
    free(w->dK), free(w->dC), free(w->dK_ref), free(w->dC_ref), free(w->Dk), free(w->Dc);
    free(w->piv), free(w->r0), free(w->x), free(w->x1);
    free(w);
    *ps = NULL;
}

/* The union pattern of the dense band parts B[0..np) (band entries nonzero in any) and each part
 * as a sparse list over it. */
static int sparsify(const link_step* w, double* const* B, int np, part* out, int* nu, int** row, int** col) {
    const int n = w->n, kd = w->kd, ld = w->ld;
    const size_t nab = (size_t)ld * (size_t)n;
    int* map = malloc(sizeof(int) * nab);
    if (!map) return 1;
    int u = 0;
    for (size_t e = 0; e < nab; e++) {
        int any = 0;
        for (int c = 0; c < np && !any; c++) any = B[c] && B[c][e] != 0.0;
        map[e] = any ? u++ : -1;
    }
    *nu = u;
    *row = malloc(sizeof(int) * (size_t)(u + 1)), *col = malloc(sizeof(int) * (size_t)(u + 1));
    int bad = !*row || !*col;
    for (int j = 0; j < n && !bad; j++)
        for (int i = j - kd > 0 ? j - kd : 0; i <= j + kd && i < n; i++) {
            const size_t e = (size_t)(kd + i - j) + (size_t)j * ld;  /* entry (i, j) */
            if (map[e] >= 0) (*row)[map[e]] = i, (*col)[map[e]] = j;
        }
    for (int c = 0; c < np && !bad; c++) {
        int nnz = 0;
        for (size_t e = 0; B[c] && e < nab; e++) nnz += B[c][e] != 0.0;
        out[c].nnz = nnz;
        if (!nnz) continue;
        out[c].idx = malloc(sizeof(int) * (size_t)nnz), out[c].val = malloc(sizeof(double) * (size_t)nnz);
        if (!out[c].idx || !out[c].val) {
            bad = 1;
            break;
        }
        nnz = 0;
        for (size_t e = 0; e < nab; e++)
            if (B[c][e] != 0.0) out[c].idx[nnz] = map[e], out[c].val[nnz++] = B[c][e];
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
    const size_t nab = (size_t)w->ld * (size_t)n, nv = (size_t)(n ? n : 1);
    /* dense parts while probing: K (NPK), C (NPC), f (NPF), the raw K and f of the three
     * single-axis omega probes, one probe's K, C, f */
    double* buf = calloc((NPK + NPC + 4) * nab + (NPF + 4) * nv, sizeof(double));
    kd_status st = buf ? KD_OK : KD_ERR_NOMEM;
    if (!st) st = kd_gband_init(&w->K0, n, kd, kd);
    if (!st) st = kd_gband_init(&w->C0, n, kd, kd);
    if (!st) st = kd_gband_init(&w->Cb, n, kd, kd);
    if (!st) st = kd_gband_init(&w->Kb, n, kd, kd);
    if (!st) st = kd_gband_init(&w->lu, n, 2 * kd, kd);
    w->piv = malloc(sizeof(int) * nv);
    w->r0 = malloc(sizeof(double) * nv), w->x = malloc(sizeof(double) * nv), w->x1 = malloc(sizeof(double) * nv);
    if (!w->piv || !w->r0 || !w->x || !w->x1) st = KD_ERR_NOMEM;
    if (st) {
        free(buf);
        link_step_free(&w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    double *B[NPK], *G[NPC], *Fd[NPF];
    for (int c = 0; c < NPK; c++) B[c] = buf + (size_t)c * nab;
    for (int c = 0; c < NPC; c++) G[c] = buf + (size_t)(NPK + c) * nab;
    double* Kw = buf + (size_t)(NPK + NPC) * nab;  /* raw K of the omega_k probes (3) */
    double* fbase = buf + (size_t)(NPK + NPC + 4) * nab;
    for (int c = 0; c < NPF; c++) Fd[c] = fbase + (size_t)c * nv;
    double *fw = fbase + (size_t)NPF * nv, *fp = fw + 3 * nv;  /* raw f of the omega_k probes; a probe's f */
    kd_gband Kp = {n, kd, kd, buf + (size_t)(NPK + NPC + 3) * nab}, Cp = {n, kd, kd, G[0]};
    double gsave[3];
    memcpy(gsave, m->gravity, sizeof(gsave));
    const double psave = m->body[0].preload;
    memset(m->gravity, 0, sizeof(gsave));
    const double z[3] = {0, 0, 0};
    probe(w, z, z, z, 0.0, &w->C0, &w->K0, fp);
    /* p = (a (3), eps (3), ww (xx, yy, zz, xy, xz, yz), P) */
    for (int k = 0; k < 3; k++) {
        double e[3] = {0, 0, 0};
        e[k] = SCALE_A;
        probe(w, z, z, e, 0.0, &w->Cb, &Kp, Fd[k]);
        for (size_t i = 0; i < nab; i++) B[k][i] = (Kp.ab[i] - w->K0.ab[i]) / SCALE_A;
        for (int i = 0; i < n; i++) Fd[k][i] /= SCALE_A;
        e[k] = SCALE_E;
        probe(w, z, e, z, 0.0, &w->Cb, &Kp, Fd[3 + k]);
        for (size_t i = 0; i < nab; i++) B[3 + k][i] = (Kp.ab[i] - w->K0.ab[i]) / SCALE_E;
        for (int i = 0; i < n; i++) Fd[3 + k][i] /= SCALE_E;
    }
    for (int k = 0; k < 3; k++) {
        double e[3] = {0, 0, 0};
        e[k] = SCALE_W;
        Cp.ab = G[k];
        kd_gband Kk = {n, kd, kd, Kw + (size_t)k * nab};
        probe(w, e, z, z, 0.0, &Cp, &Kk, fw + (size_t)k * nv);
        for (size_t i = 0; i < nab; i++) {
            G[k][i] = (G[k][i] - w->C0.ab[i]) / SCALE_W;
            B[6 + k][i] = (Kk.ab[i] - w->K0.ab[i]) / (SCALE_W * SCALE_W);
        }
        for (int i = 0; i < n; i++) Fd[6 + k][i] = fw[(size_t)k * nv + i] / (SCALE_W * SCALE_W);
    }
    static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int k = 0; k < 3; k++) {
        const int i0 = pair[k][0], i1 = pair[k][1];
        double e[3] = {0, 0, 0};
        e[i0] = e[i1] = SCALE_W;
        probe(w, e, z, z, 0.0, &w->Cb, &Kp, fp);
        const double *K0 = w->K0.ab, *Ka = Kw + (size_t)i0 * nab, *Kb = Kw + (size_t)i1 * nab;
        for (size_t i = 0; i < nab; i++) B[9 + k][i] = ((Kp.ab[i] - Ka[i]) - (Kb[i] - K0[i])) / (SCALE_W * SCALE_W);
        for (int i = 0; i < n; i++)
            Fd[9 + k][i] = (fp[i] - fw[(size_t)i0 * nv + i] - fw[(size_t)i1 * nv + i]) / (SCALE_W * SCALE_W);
    }
    probe(w, z, z, z, SCALE_P, &w->Cb, &Kp, fp);
    for (size_t i = 0; i < nab; i++) B[12][i] = (Kp.ab[i] - w->K0.ab[i]) / SCALE_P;
    memcpy(m->gravity, gsave, sizeof(gsave));
    m->body[0].preload = psave;
    lo->s.have_frames = 0;
    kd_system_invalidate(&lo->s);
    for (size_t i = 0; i < nab && !w->damped; i++) w->damped = w->C0.ab[i] != 0.0;
    /* sparse parts; the load parts kept dense (n each) where nonzero */
    int bad = sparsify(w, B, NPK, w->kp, &w->nk, &w->krow, &w->kcol) ||
              sparsify(w, G, NPC, w->cp, &w->nc, &w->crow, &w->ccol);
    for (int c = 0; c < NPF && !bad; c++) {
        int any = 0;
        for (int i = 0; i < n && !any; i++) any = Fd[c][i] != 0.0;
        if (!any) continue;
        if (!(w->F[c] = malloc(sizeof(double) * nv))) bad = 1;
        else memcpy(w->F[c], Fd[c], sizeof(double) * (size_t)n);
    }
    const size_t nk = (size_t)w->nk + 1, nc = (size_t)w->nc + 1;
    w->dK = calloc(nk, sizeof(double)), w->dK_ref = calloc(nk, sizeof(double)), w->Dk = calloc(nk, sizeof(double));
    w->dC = calloc(nc, sizeof(double)), w->dC_ref = calloc(nc, sizeof(double)), w->Dc = calloc(nc, sizeof(double));
    free(buf);
    if (bad || !w->dK || !w->dK_ref || !w->Dk || !w->dC || !w->dC_ref || !w->Dc) {
        link_step_free(&w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    *out = w;
    return KD_OK;
}

/* ---- a state ------------------------------------------------------------------------------ */

/* p, omega and the combined dK, dC at t (the frame as the system evaluates it). */
static void state_at(link_step* w, double t) {
    if (w->have_par && w->t_par == t) return;
    kd_system* s = &w->lo->s;
    const kd_model* m = w->lo->model;
    kd_system_frames(s, t);
    const kd_frame* f = &s->frame[0];
    const double *g = m->gravity, *om = f->omega_L;
    double* p = w->p;
    for (int i = 0; i < 3; i++) {
        p[i] = f->aO_L[i] - (f->R[i] * g[0] + f->R[3 + i] * g[1] + f->R[6 + i] * g[2]);
        p[3 + i] = f->eps_L[i];
        p[6 + i] = om[i] * om[i];
        w->w[i] = om[i];
    }
    p[9] = om[0] * om[1], p[10] = om[0] * om[2], p[11] = om[1] * om[2];
    double dN, d2N;
    kd_law_eval(w->lo->preload_law, t, &p[12], &dN, &d2N);
    memset(w->dK, 0, sizeof(double) * (size_t)w->nk);
    memset(w->dC, 0, sizeof(double) * (size_t)w->nc);
    for (int c = 0; c < NPK; c++) {
        const part* q = &w->kp[c];
        if (p[c] == 0.0) continue;
        for (int e = 0; e < q->nnz; e++) w->dK[q->idx[e]] += p[c] * q->val[e];
    }
    for (int c = 0; c < NPC; c++) {
        const part* q = &w->cp[c];
        if (w->w[c] == 0.0) continue;
        for (int e = 0; e < q->nnz; e++) w->dC[q->idx[e]] += w->w[c] * q->val[e];
    }
    w->t_par = t, w->have_par = 1;
}

/* C = C0 + dC and K = K0 + dK in band storage. */
static void form(const link_step* w, kd_gband* C, kd_gband* K) {
    const size_t nab = (size_t)w->ld * (size_t)w->n;
    memcpy(C->ab, w->C0.ab, nab * sizeof(double));
    memcpy(K->ab, w->K0.ab, nab * sizeof(double));
    for (int u = 0; u < w->nk; u++) K->ab[(size_t)(w->kd + w->krow[u] - w->kcol[u]) + (size_t)w->kcol[u] * w->ld] += w->dK[u];
    for (int u = 0; u < w->nc; u++) C->ab[(size_t)(w->kd + w->crow[u] - w->ccol[u]) + (size_t)w->ccol[u] * w->ld] += w->dC[u];
}

int link_step_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    link_step* w = ctx;
    state_at(w, t);
    form(w, C, K);
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

/* S = cm M + cc C + ck K at the current state, factorised and kept. 1 when singular. */
static int refactor(link_step* w, double cm, double cc, double ck) {
    const kd_gband* M = &w->lo->s.M;
    form(w, &w->Cb, &w->Kb);
    kd_gband_combine_lu(&w->lu, cm, M, cc, &w->Cb, ck, &w->Kb);
    if (kd_gband_lu_factor(w->lu.ab, w->n, w->kd, w->kd, w->piv, NULL)) return 1;
    memcpy(w->dK_ref, w->dK, sizeof(double) * (size_t)w->nk);
    memcpy(w->dC_ref, w->dC, sizeof(double) * (size_t)w->nc);
    w->coef[0] = cm, w->coef[1] = cc, w->coef[2] = ck;
    w->have_lu = 1, w->refactor = 0;
    return 0;
}


static void lu_solve(const link_step* w, double* b) {
    kd_gband_lu_forward(w->lu.ab, w->n, w->kd, w->kd, w->piv, b);
    kd_gband_lu_back(w->lu.ab, w->n, w->kd, w->kd, b);
}

/* z = r0 - (S(t) - S_ref) x. */
static void split_rhs(const link_step* w, const double* x, double* z) {
    memcpy(z, w->r0, sizeof(double) * (size_t)w->n);
    for (int u = 0; u < w->nk; u++) z[w->krow[u]] -= w->Dk[u] * x[w->kcol[u]];
    for (int u = 0; u < w->nc; u++) z[w->crow[u]] -= w->Dc[u] * x[w->ccol[u]];
}

int link_step_solve(void* ctx, double t, double cm, double cc, double ck, double am, const double* a,
                    const double* x, const double* y, double* r, int* factored) {
    link_step* w = ctx;
    const int n = w->n;
    state_at(w, t);
    /* r -= am M a + C x + K y */
    kd_gband_residual3(&w->lo->s.M, am, a, w->damped ? &w->C0 : NULL, x, &w->K0, y, r);
    for (int u = 0; u < w->nk; u++) r[w->krow[u]] -= w->dK[u] * y[w->kcol[u]];
    for (int u = 0; u < w->nc; u++) r[w->crow[u]] -= w->dC[u] * x[w->ccol[u]];
    if (!w->have_lu || w->refactor || cm != w->coef[0] || cc != w->coef[1] || ck != w->coef[2]) {
        if (refactor(w, cm, cc, ck)) return 1;
        ++*factored;
        lu_solve(w, r);
        return 0;
    }
    int moved = 0;
    for (int u = 0; u < w->nk; u++) moved |= (w->Dk[u] = ck * (w->dK[u] - w->dK_ref[u])) != 0.0;
    for (int u = 0; u < w->nc; u++) moved |= (w->Dc[u] = cc * (w->dC[u] - w->dC_ref[u])) != 0.0;
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
        for (int i = 0; i < n; i++) d = fmax(d, fabs(xn[i] - xk[i])), nrm = fmax(nrm, fabs(xn[i]));
        double* sw = xk;
        xk = xn, xn = sw;
        /* converged: the change at round-off, or the error left (rho times the change) below it */
        if (it >= 2 && (d <= 4 * DBL_EPSILON * nrm || (dprev > 0 && d / dprev * d <= DBL_EPSILON * nrm))) {
            memcpy(r, xk, sizeof(double) * (size_t)n);
            if (it > 2) w->refactor = 1;  /* slower: a new factor at the next step */
            return 0;
        }
        dprev = d;
    }
    /* not converged: factorise at this state */
    if (refactor(w, cm, cc, ck)) return 1;
    ++*factored;
    memcpy(r, w->r0, sizeof(double) * (size_t)n);
    lu_solve(w, r);
    return 0;
}
