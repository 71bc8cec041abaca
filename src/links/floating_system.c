/* A planar system of rigid and floating-frame elastic bodies with joints and drivers, as a
 * kd_cms with block-diagonal M(q) (kedyn/ffr.h, kedyn/cms.h; theory.md sec. 6).
 *
 * Joint points: r_P = R + A(theta) s, with s = p (rigid body) or s = (X_node + u, v) (a beam node
 * and its elastic displacement in the frame). Its Jacobian columns are I (R), A J s (theta),
 * A e_x (u), A e_y (v), and its acceleration r_P'' = [Jacobian] q'' + A (-theta'^2 s
 * + 2 theta' J s'), so gamma_P = theta'^2 A s - 2 theta' A J s'. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floating_internal.h"

enum { J_REVOLUTE, J_LINE, J_ANGLE };

typedef struct ffr_joint {
    int type;
    kd_ffr_point a, b;            /* revolute: a and b; line: a */
    double c[2], nrm[2];          /* line: a point and the unit normal */
    double theta0;                /* angle: angle(b) - angle(a) = theta0 + law(t) */
    kd_law law;
    int row;                      /* first constraint row */
    int tag;                      /* caller's label (kd_ffr_reaction), -1 when none */
} ffr_joint;

struct kd_ffr_system {
    double g[2];
    int nb, nj, nb_cap, nj_cap;
    ffr_body* body;
    ffr_joint* joint;
    int finished;
    int n, nc, nnz;
    int *block_start, *rowptr, *col;
    double* scratch;              /* (2 max nf) */
    double* mblock;               /* (max size^2) one body's mass block for kd_ffr_energy */
    kd_cms cms;
};

typedef struct pt_terms {
    double r[2], gam[2];
    int ncol;
    int col[5];
    double d[5][2];
} pt_terms;

kd_ffr_system* kd_ffr_new(double gx, double gy) {
    kd_ffr_system* s = calloc(1, sizeof(*s));
    if (s) s->g[0] = gx, s->g[1] = gy;
    return s;
}

void kd_ffr_free(kd_ffr_system** ps) {
    if (!ps || !*ps) return;
    kd_ffr_system* s = *ps;
    for (int b = 0; b < s->nb; b++) ffr_body_free(&s->body[b]);
    for (int j = 0; j < s->nj; j++)
        if (s->joint[j].type == J_ANGLE) kd_law_free(&s->joint[j].law);
    free(s->body), free(s->joint), free(s->block_start), free(s->rowptr), free(s->col), free(s->scratch);
    free(s->mblock);
    free(s);
    *ps = NULL;
}

/* A zeroed slot at the end of an array of the system (bodies, joints), grown by doubling; NULL
 * (err set) when the system is finished or memory runs out. */
static void* new_item(const kd_ffr_system* s, void** items, int n, int* cap, size_t size, kd_error* err) {
    if (s->finished) {
        kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "floating-frame system already finished");
        return NULL;
    }
    if (n == *cap) {
        const int c = *cap ? 2 * *cap : 8;
        void* grown = realloc(*items, size * (size_t)c);
        if (!grown) {
            kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
            return NULL;
        }
        *items = grown, *cap = c;
    }
    char* item = (char*)*items + size * (size_t)n;
    memset(item, 0, size);
    return item;
}

static ffr_body* new_body(kd_ffr_system* s, const char* name, kd_error* err) {
    ffr_body* b = new_item(s, (void**)&s->body, s->nb, &s->nb_cap, sizeof(ffr_body), err);
    if (b) snprintf(b->name, sizeof(b->name), "%s", name ? name : "");
    return b;
}

int kd_ffr_add_rigid(kd_ffr_system* s, const char* name, double mass, double J_G, kd_error* err) {
    if (!(mass > 0) || !(J_G > 0)) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "rigid body '%s': mass and J_G must be positive", name);
        return -1;
    }
    ffr_body* b = new_body(s, name, err);
    if (!b) return -1;
    ffr_body_init_rigid(b, mass, J_G);
    return s->nb++;
}

int kd_ffr_add_beam(kd_ffr_system* s, const char* name, const kd_ffr_beam* beam, kd_error* err) {
    if (!(beam->length > 0) || beam->elements < 1 || !(beam->E > 0) || !(beam->rho > 0) || !(beam->A > 0) ||
        !(beam->Iz > 0) ||
        !(beam->theory == KD_THEORY_EULER_BERNOULLI || beam->theory == KD_THEORY_RAYLEIGH) ||
        !(beam->frame == KD_FFR_ROOT || beam->frame == KD_FFR_CHORD)) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                     "elastic body '%s': need length, E, rho, A, Iz > 0, elements >= 1, an Euler-Bernoulli or "
                     "Rayleigh beam and a root or chord frame",
                     name);
        return -1;
    }
    ffr_body* b = new_body(s, name, err);
    if (!b) return -1;
    if (ffr_body_init_beam(b, beam, err)) {
        ffr_body_free(b);
        return -1;
    }
    return s->nb++;
}

static ffr_joint* new_joint(kd_ffr_system* s, kd_error* err) {
    ffr_joint* j = new_item(s, (void**)&s->joint, s->nj, &s->nj_cap, sizeof(ffr_joint), err);
    if (j) j->tag = -1;
    return j;
}

static kd_status check_point(const kd_ffr_system* s, kd_ffr_point a, kd_error* err) {
    if (a.body < -1 || a.body >= s->nb)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "joint point on unknown body %d", a.body);
    if (a.body >= 0 && s->body[a.body].elastic && (a.node < 0 || a.node >= s->body[a.body].nodes))
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "body '%s' has nodes 0..%d, not %d",
                            s->body[a.body].name, s->body[a.body].nodes - 1, a.node);
    return KD_OK;
}

kd_status kd_ffr_add_revolute(kd_ffr_system* s, kd_ffr_point a, kd_ffr_point b, kd_error* err) {
    kd_status st;
    if ((st = check_point(s, a, err)) || (st = check_point(s, b, err))) return st;
    if (a.body == b.body)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a revolute joint needs two different bodies");
    ffr_joint* j = new_joint(s, err);
    if (!j) return err ? err->status : KD_ERR_USAGE;
    j->type = J_REVOLUTE, j->a = a, j->b = b;
    s->nj++;
    return KD_OK;
}

kd_status kd_ffr_add_line(kd_ffr_system* s, kd_ffr_point a, const double c[2], const double d[2], kd_error* err) {
    kd_status st;
    if ((st = check_point(s, a, err))) return st;
    const double nd = hypot(d[0], d[1]);
    if (a.body < 0 || !(nd > 0))
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a line joint needs a body point and a direction");
    ffr_joint* j = new_joint(s, err);
    if (!j) return err ? err->status : KD_ERR_USAGE;
    j->type = J_LINE, j->a = a;
    j->c[0] = c[0], j->c[1] = c[1];
    j->nrm[0] = -d[1] / nd, j->nrm[1] = d[0] / nd;
    s->nj++;
    return KD_OK;
}

kd_status kd_ffr_add_angle(kd_ffr_system* s, kd_ffr_point a, kd_ffr_point b, double c, const kd_law* law,
                           kd_error* err) {
    kd_status st;
    if ((st = check_point(s, a, err)) || (st = check_point(s, b, err))) return st;
    if (a.body == b.body)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "an angle constraint needs two different bodies");
    ffr_joint* j = new_joint(s, err);
    if (!j) return err ? err->status : KD_ERR_USAGE;
    j->type = J_ANGLE, j->a = a, j->b = b, j->theta0 = c;
    const kd_law zero = kd_law_constant(0);
    if (kd_law_copy(&j->law, law ? law : &zero))
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    s->nj++;
    return KD_OK;
}

kd_status kd_ffr_add_driver(kd_ffr_system* s, int body, double theta0, const kd_law* law, kd_error* err) {
    return kd_ffr_add_angle(s, (kd_ffr_point){.body = -1}, (kd_ffr_point){.body = body}, theta0, law, err);
}

/* The angle of a point (theta, plus rz at a beam node) and its Jacobian columns (at most 2). */
static double point_angle(const kd_ffr_system* s, const double* q, kd_ffr_point a, int col[2], int* ncol) {
    *ncol = 0;
    if (a.body < 0) return 0;
    const ffr_body* b = &s->body[a.body];
    double th = q[b->off + 2];
    col[(*ncol)++] = b->off + 2;
    if (b->elastic) {
        const int ir = b->node_coord[3 * a.node + 2];
        if (ir >= 0) th += q[b->off + 3 + ir], col[(*ncol)++] = b->off + 3 + ir;
    }
    return th;
}

/* Position, Jacobian columns and gamma_P of a point (qd may be NULL: no gamma). */
static void point_terms(const kd_ffr_system* s, const double* q, const double* qd, kd_ffr_point a, pt_terms* o) {
    o->ncol = 0;
    o->gam[0] = o->gam[1] = 0;
    if (a.body < 0) {
        o->r[0] = a.p[0], o->r[1] = a.p[1];
        return;
    }
    const ffr_body* b = &s->body[a.body];
    const int off = b->off;
    const double c = cos(q[off + 2]), sn = sin(q[off + 2]);
    double sl[2] = {a.p[0], a.p[1]}, sd[2] = {0, 0};
    int cu = -1, cv = -1;
    if (b->elastic) {
        sl[0] = a.node * b->beam.length / b->beam.elements, sl[1] = 0;
        const int iu = b->node_coord[3 * a.node], iv = b->node_coord[3 * a.node + 1];
        if (iu >= 0) cu = off + 3 + iu, sl[0] += q[cu], sd[0] = qd ? qd[cu] : 0;
        if (iv >= 0) cv = off + 3 + iv, sl[1] += q[cv], sd[1] = qd ? qd[cv] : 0;
    }
    const double As[2] = {c * sl[0] - sn * sl[1], sn * sl[0] + c * sl[1]};
    o->r[0] = q[off] + As[0], o->r[1] = q[off + 1] + As[1];
    o->col[0] = off, o->d[0][0] = 1, o->d[0][1] = 0;
    o->col[1] = off + 1, o->d[1][0] = 0, o->d[1][1] = 1;
    o->col[2] = off + 2, o->d[2][0] = -As[1], o->d[2][1] = As[0];   /* A J s = J A s */
    o->ncol = 3;
    if (cu >= 0) o->col[o->ncol] = cu, o->d[o->ncol][0] = c, o->d[o->ncol][1] = sn, o->ncol++;
    if (cv >= 0) o->col[o->ncol] = cv, o->d[o->ncol][0] = -sn, o->d[o->ncol][1] = c, o->ncol++;
    if (qd) {
        /* gamma_P = w^2 A s - 2 w J A s' */
        const double w = qd[off + 2];
        const double Asd[2] = {c * sd[0] - sn * sd[1], sn * sd[0] + c * sd[1]};
        o->gam[0] = w * w * As[0] + 2 * w * Asd[1];
        o->gam[1] = w * w * As[1] - 2 * w * Asd[0];
    }
}

static int cmp_int(const void* x, const void* y) { return *(const int*)x - *(const int*)y; }

/* Add value v at column col of row r (the column is in the row's pattern). */
static void jac_add(const kd_ffr_system* s, double* jac, int r, int col, double v) {
    for (int k = s->rowptr[r]; k < s->rowptr[r + 1]; k++)
        if (s->col[k] == col) {
            jac[k] += v;
            return;
        }
}

static int cb_phi(void* ctx, double t, const double* q, double* phi) {
    const kd_ffr_system* s = ctx;
    pt_terms A, B;
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        switch (j->type) {
        case J_REVOLUTE:
            point_terms(s, q, NULL, j->a, &A), point_terms(s, q, NULL, j->b, &B);
            phi[j->row] = A.r[0] - B.r[0], phi[j->row + 1] = A.r[1] - B.r[1];
            break;
        case J_LINE:
            point_terms(s, q, NULL, j->a, &A);
            phi[j->row] = j->nrm[0] * (A.r[0] - j->c[0]) + j->nrm[1] * (A.r[1] - j->c[1]);
            break;
        case J_ANGLE: {
            double f, df, d2f;
            int ca[2], cb[2], na, nb;
            kd_law_eval(&j->law, t, &f, &df, &d2f);
            phi[j->row] = point_angle(s, q, j->b, cb, &nb) - point_angle(s, q, j->a, ca, &na) - j->theta0 - f;
            break;
        }
        }
    }
    return 0;
}

static int cb_jacobian(void* ctx, double t, const double* q, double* jac) {
    (void)t;
    const kd_ffr_system* s = ctx;
    memset(jac, 0, sizeof(double) * s->nnz);
    pt_terms A, B;
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        switch (j->type) {
        case J_REVOLUTE:
            point_terms(s, q, NULL, j->a, &A), point_terms(s, q, NULL, j->b, &B);
            for (int c = 0; c < A.ncol; c++)
                jac_add(s, jac, j->row, A.col[c], A.d[c][0]), jac_add(s, jac, j->row + 1, A.col[c], A.d[c][1]);
            for (int c = 0; c < B.ncol; c++)
                jac_add(s, jac, j->row, B.col[c], -B.d[c][0]), jac_add(s, jac, j->row + 1, B.col[c], -B.d[c][1]);
            break;
        case J_LINE:
            point_terms(s, q, NULL, j->a, &A);
            for (int c = 0; c < A.ncol; c++)
                jac_add(s, jac, j->row, A.col[c], j->nrm[0] * A.d[c][0] + j->nrm[1] * A.d[c][1]);
            break;
        case J_ANGLE: {
            int ca[2], cb[2], na, nb;
            point_angle(s, q, j->a, ca, &na), point_angle(s, q, j->b, cb, &nb);
            for (int c = 0; c < na; c++) jac_add(s, jac, j->row, ca[c], -1);
            for (int c = 0; c < nb; c++) jac_add(s, jac, j->row, cb[c], 1);
            break;
        }
        }
    }
    return 0;
}

static int cb_phi_t(void* ctx, double t, const double* q, double* phi_t) {
    (void)q;
    const kd_ffr_system* s = ctx;
    memset(phi_t, 0, sizeof(double) * s->nc);
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        if (j->type != J_ANGLE) continue;
        double f, df, d2f;
        kd_law_eval(&j->law, t, &f, &df, &d2f);
        phi_t[j->row] = -df;
    }
    return 0;
}

static int cb_gamma(void* ctx, double t, const double* q, const double* qd, double* gam) {
    const kd_ffr_system* s = ctx;
    pt_terms A, B;
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        switch (j->type) {
        case J_REVOLUTE:
            point_terms(s, q, qd, j->a, &A), point_terms(s, q, qd, j->b, &B);
            gam[j->row] = A.gam[0] - B.gam[0], gam[j->row + 1] = A.gam[1] - B.gam[1];
            break;
        case J_LINE:
            point_terms(s, q, qd, j->a, &A);
            gam[j->row] = j->nrm[0] * A.gam[0] + j->nrm[1] * A.gam[1];
            break;
        case J_ANGLE: {   /* linear in q: gamma = -Phi_tt */
            double f, df, d2f;
            kd_law_eval(&j->law, t, &f, &df, &d2f);
            gam[j->row] = d2f;
            break;
        }
        }
    }
    return 0;
}

static int cb_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    (void)t;
    const kd_ffr_system* s = ctx;
    for (int b = 0; b < s->nb; b++) {
        const ffr_body* bd = &s->body[b];
        ffr_body_force(bd, q + bd->off, qd + bd->off, s->g, Q + bd->off, s->scratch);
    }
    return 0;
}

static int cb_mass(void* ctx, double t, const double* q, double* blocks) {
    (void)t;
    const kd_ffr_system* s = ctx;
    size_t o = 0;
    for (int b = 0; b < s->nb; b++) {
        const ffr_body* bd = &s->body[b];
        ffr_body_mass(bd, q + bd->off, blocks + o, s->scratch);
        o += (size_t)bd->size * bd->size;
    }
    return 0;
}

kd_status kd_ffr_finish(kd_ffr_system* s, kd_error* err) {
    if (s->finished) return KD_OK;
    if (s->nb == 0) return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a floating-frame system needs a body");
    int n = 0, nfmax = 0;
    s->block_start = malloc(sizeof(int) * (s->nb + 1));
    if (!s->block_start) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int b = 0; b < s->nb; b++) {
        s->block_start[b] = n;
        s->body[b].off = n;
        n += s->body[b].size;
        if (s->body[b].nf > nfmax) nfmax = s->body[b].nf;
    }
    s->block_start[s->nb] = n;
    s->n = n;
    int nc = 0;
    for (int k = 0; k < s->nj; k++) {
        s->joint[k].row = nc;
        nc += s->joint[k].type == J_REVOLUTE ? 2 : 1;
    }
    s->nc = nc;
    s->scratch = malloc(sizeof(double) * (2 * nfmax + 2));
    s->mblock = malloc(sizeof(double) * (size_t)(3 + nfmax) * (size_t)(3 + nfmax));
    s->rowptr = calloc(nc + 1, sizeof(int));
    s->col = malloc(sizeof(int) * (10 * (nc + 1)));
    double* q = calloc(n, sizeof(double));
    if (!s->scratch || !s->mblock || !s->rowptr || !s->col || !q) {
        free(q);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* the pattern: the sorted columns each row touches */
    pt_terms A, B;
    int nnz = 0;
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        const int rows = j->type == J_REVOLUTE ? 2 : 1;
        for (int r = 0; r < rows; r++) {
            const int start = nnz;
            if (j->type == J_ANGLE) {
                int ca[2], cb[2], na, nb;
                point_angle(s, q, j->a, ca, &na), point_angle(s, q, j->b, cb, &nb);
                for (int c = 0; c < na; c++) s->col[nnz++] = ca[c];
                for (int c = 0; c < nb; c++) s->col[nnz++] = cb[c];
            } else {
                point_terms(s, q, NULL, j->a, &A);
                for (int c = 0; c < A.ncol; c++) s->col[nnz++] = A.col[c];
                if (j->type == J_REVOLUTE) {
                    point_terms(s, q, NULL, j->b, &B);
                    for (int c = 0; c < B.ncol; c++) s->col[nnz++] = B.col[c];
                }
            }
            qsort(s->col + start, nnz - start, sizeof(int), cmp_int);
            s->rowptr[j->row + r + 1] = nnz;
        }
    }
    free(q);
    s->nnz = nnz;
    s->finished = 1;
    kd_cms* c = &s->cms;
    memset(c, 0, sizeof(*c));
    c->n = n, c->nc = nc;
    c->jac_nnz = nnz, c->jac_rowptr = s->rowptr, c->jac_col = s->col;
    c->ctx = s;
    c->phi = cb_phi, c->jacobian = cb_jacobian, c->phi_t = cb_phi_t, c->gamma = cb_gamma, c->force = cb_force;
    c->nblocks = s->nb, c->block_start = s->block_start, c->mass_blocks = cb_mass;
    return KD_OK;
}

const kd_cms* kd_ffr_cms(const kd_ffr_system* s) { return s->finished ? &s->cms : NULL; }
int kd_ffr_size(const kd_ffr_system* s) { return s->n; }
int kd_ffr_body_count(const kd_ffr_system* s) { return s->nb; }
const char* kd_ffr_body_name(const kd_ffr_system* s, int b) { return s->body[b].name; }
int kd_ffr_body_offset(const kd_ffr_system* s, int b) { return s->body[b].off; }
int kd_ffr_body_elastic(const kd_ffr_system* s, int b) { return s->body[b].nf; }
int kd_ffr_body_nodes(const kd_ffr_system* s, int b) { return s->body[b].nodes; }

int kd_ffr_node_coordinate(const kd_ffr_system* s, int b, int node, kd_dof_name dof) {
    const ffr_body* bd = &s->body[b];
    const int d = dof == KD_DOF_U ? 0 : dof == KD_DOF_V ? 1 : dof == KD_DOF_RZ ? 2 : -1;
    if (!bd->elastic || d < 0 || node < 0 || node >= bd->nodes) return -1;
    const int i = bd->node_coord[3 * node + d];
    return i < 0 ? -1 : bd->off + 3 + i;
}

void kd_ffr_point_position(const kd_ffr_system* s, const double* q, kd_ffr_point a, double r[2]) {
    pt_terms o;
    point_terms(s, q, NULL, a, &o);
    r[0] = o.r[0], r[1] = o.r[1];
}

void kd_ffr_energy(const kd_ffr_system* s, const double* q, const double* qd, double* T, double* Vg, double* Vs) {
    double t = 0, vg = 0, vs = 0;
    for (int b = 0; b < s->nb; b++) {
        const ffr_body* bd = &s->body[b];
        const int d = bd->size;
        /* T = v^T M v / 2 with the body's block */
        double* M = s->mblock;
        ffr_body_mass(bd, q + bd->off, M, s->scratch);
        for (int i = 0; i < d; i++)
            for (int k = 0; k < d; k++) t += 0.5 * qd[bd->off + i] * M[i + (size_t)d * k] * qd[bd->off + k];
        vg += ffr_body_gravity_potential(bd, q + bd->off, s->g);
        vs += ffr_body_strain(bd, q + bd->off);
    }
    if (T) *T = t;
    if (Vg) *Vg = vg;
    if (Vs) *Vs = vs;
}

void kd_ffr_momentum(const kd_ffr_system* s, const double* q, const double* qd, double p[2], double* L) {
    p[0] = p[1] = 0;
    *L = 0;
    for (int b = 0; b < s->nb; b++) {
        double pb[2], lb;
        ffr_body_momentum(&s->body[b], q + s->body[b].off, qd + s->body[b].off, pb, &lb, s->scratch);
        p[0] += pb[0], p[1] += pb[1], *L += lb;
    }
}

void kd_ffr_section_forces(const kd_ffr_system* s, int body, const double* q, double c, double* out) {
    const ffr_body* b = &s->body[body];
    ffr_body_section_forces(b, q + b->off, c, out);
}

double kd_ffr_max_pin_force(const kd_ffr_system* s, const double* lambda) {
    double f = 0;
    for (int k = 0; k < s->nj; k++)
        if (s->joint[k].type == J_REVOLUTE) f = fmax(f, hypot(lambda[s->joint[k].row], lambda[s->joint[k].row + 1]));
    return f;
}

/* Dense Phi_q restricted to the reference columns (nc x 3 nb, column-major). */
static void reference_jacobian(const kd_ffr_system* s, const double* jac, double* A) {
    const int nc = s->nc;
    memset(A, 0, sizeof(double) * (size_t)nc * 3 * (size_t)s->nb);
    for (int b = 0; b < s->nb; b++)
        for (int r = 0; r < nc; r++)
            for (int k = s->rowptr[r]; k < s->rowptr[r + 1]; k++) {
                const int c = s->col[k] - s->body[b].off;
                if (c >= 0 && c < 3) A[r + (size_t)nc * (3 * b + c)] = jac[k];
            }
}

/* x = minimum-norm least-squares solution of A x = rhs (A nc x m, overwritten); rhs of size max(nc, m). */
static int solve_min_norm(int nc, int m, double* A, double* rhs) {
    double rcond = 1e-12;
    lapack_int rank;
    double* sv = malloc(sizeof(double) * (size_t)(nc < m ? nc : m) + 1);
    if (!sv) return 1;
    const int info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, nc, m, 1, A, nc, rhs, nc > m ? nc : m, sv, rcond, &rank);
    free(sv);
    return info != 0;
}

kd_status kd_ffr_assemble(const kd_ffr_system* s, double t, double* q, double* qd, kd_error* err) {
    const int nc = s->nc, m = 3 * s->nb, ld = nc > m ? nc : m;
    if (nc == 0) return KD_OK;
    double* jac = malloc(sizeof(double) * (size_t)(s->nnz + 1));
    double* A = malloc(sizeof(double) * (size_t)nc * (size_t)m);
    double* r = malloc(sizeof(double) * (size_t)ld);
    double* v = malloc(sizeof(double) * (size_t)ld);
    kd_status st = jac && A && r && v ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    double scale = 1;
    for (int i = 0; i < s->n; i++) scale = fmax(scale, fabs(q[i]));
    int it = 0;
    for (; !st && it < 30; it++) {
        cb_phi((void*)s, t, q, r);
        double e = 0;
        for (int k = 0; k < nc; k++) e = fmax(e, fabs(r[k]));
        if (e < 1e-14 * scale) break;
        cb_jacobian((void*)s, t, q, jac);
        reference_jacobian(s, jac, A);
        for (int k = 0; k < nc; k++) r[k] = -r[k];
        if (solve_min_norm(nc, m, A, r)) st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "assembly: least squares failed");
        for (int b = 0; !st && b < s->nb; b++)
            for (int c = 0; c < 3; c++) q[s->body[b].off + c] += r[3 * b + c];
    }
    if (!st && it == 30)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: the deformed start does not assemble", t);
    if (!st) {
        /* Phi_q,ref v_ref = -Phi_t - Phi_q,f v_f */
        cb_jacobian((void*)s, t, q, jac);
        cb_phi_t((void*)s, t, q, v);
        for (int k = 0; k < nc; k++) {
            double a = v[k];
            for (int e = s->rowptr[k]; e < s->rowptr[k + 1]; e++) {
                int ref = 0;
                for (int b = 0; b < s->nb; b++) ref |= s->col[e] >= s->body[b].off && s->col[e] < s->body[b].off + 3;
                if (!ref) a += jac[e] * qd[s->col[e]];
            }
            v[k] = -a;
        }
        reference_jacobian(s, jac, A);
        if (solve_min_norm(nc, m, A, v)) st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "assembly: least squares failed");
        for (int b = 0; !st && b < s->nb; b++)
            for (int c = 0; c < 3; c++) qd[s->body[b].off + c] = v[3 * b + c];
    }
    free(jac), free(A), free(r), free(v);
    return st;
}

int ffr_joint_count(const kd_ffr_system* s) { return s->nj; }

void ffr_tag_joints(kd_ffr_system* s, int from, int tag) {
    for (int k = from; k < s->nj; k++) s->joint[k].tag = tag;
}

/* Force and moment on the second point's body from the constraint force -Phi_q^T lambda:
 * revolute (Phi = r_a - r_b): +lambda; line (Phi = n.(r_a - c), on its point): -n lambda;
 * angle (Phi = angle_b - angle_a - ...): moment -lambda. */
void kd_ffr_reaction(const kd_ffr_system* s, int tag, const double* lambda, double F[3]) {
    F[0] = F[1] = F[2] = 0;
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        if (j->tag != tag) continue;
        switch (j->type) {
        case J_REVOLUTE: F[0] += lambda[j->row], F[1] += lambda[j->row + 1]; break;
        case J_LINE: F[0] -= j->nrm[0] * lambda[j->row], F[1] -= j->nrm[1] * lambda[j->row]; break;
        case J_ANGLE: F[2] -= lambda[j->row]; break;
        }
    }
}
