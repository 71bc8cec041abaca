/* A planar system of rigid and floating-frame elastic bodies with joints and drivers, as a
 * kd_cms with block-diagonal M(q) (kedyn/ffr.h, kedyn/cms.h; theory.md sec. 6).
 *
 * Bodies and joint points are kedyn/body.h's kd_mbody and kd_mpoint: r_P = R + A(theta) s, with
 * s = p (rigid body) or s = (X_node + u, v) (a beam node and its elastic displacement in the
 * frame). The joint equations (revolute, point on a fixed line, relative angle) are those of
 * src/mechanism/joints.c, shared with the rigid mechanism. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mechanism/joints.h"
#include "floating_internal.h"

/* A joint of the system: the joint equations of joints.h between points a (I) and b (J).
 * revolute: JOINT_REVOLUTE; line: JOINT_POINT_ON_LINE from the ground point c (a = c, b = the
 * body's point); angle: JOINT_ANGLE, angle(b) - angle(a) = theta0 + law(t). */
typedef struct ffr_joint {
    joint_def def;
    kd_mpoint a, b;
    double theta0;                /* angle */
    kd_law law;                   /* angle */
    int row, nrow;                /* first constraint row, rows */
    int tag;                      /* caller's label (kd_ffr_reaction), -1 when none */
} ffr_joint;

struct kd_ffr_system {
    double g[2];
    int nb, nj, nb_cap, nj_cap;
    ffr_body* body;
    ffr_joint* joint;
    int finished;
    int n, nc, nnz;
    kd_mbody* mbody;              /* (nb) the bodies as kedyn/body.h describes them */
    int *block_start, *rowptr, *col, *slot;
    double* scratch;              /* (2 max nf) */
    double* mblock;               /* (max size^2) one body's mass block for kd_ffr_energy */
    kd_cms cms;
};

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
        if (s->joint[j].def.type == JOINT_ANGLE) kd_law_free(&s->joint[j].law);
    free(s->body), free(s->joint), free(s->mbody), free(s->block_start), free(s->rowptr), free(s->col), free(s->slot);
    free(s->scratch);
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

/* The body point of a kd_ffr_point (checked): a beam node at its undeformed place in the frame,
 * a rigid body's point from its centre of mass, or a ground point. */
static kd_mpoint body_point(const kd_ffr_system* s, kd_ffr_point a) {
    kd_mpoint p = {a.body, -1, {a.p[0], a.p[1]}};
    if (a.body >= 0 && s->body[a.body].elastic) {
        const ffr_body* b = &s->body[a.body];
        p.node = a.node;
        p.s[0] = a.node * b->beam.length / b->beam.elements, p.s[1] = 0;
    }
    return p;
}

kd_status kd_ffr_add_revolute(kd_ffr_system* s, kd_ffr_point a, kd_ffr_point b, kd_error* err) {
    kd_status st;
    if ((st = check_point(s, a, err)) || (st = check_point(s, b, err))) return st;
    if (a.body == b.body)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a revolute joint needs two different bodies");
    ffr_joint* j = new_joint(s, err);
    if (!j) return err ? err->status : KD_ERR_USAGE;
    j->def.type = JOINT_REVOLUTE, j->a = body_point(s, a), j->b = body_point(s, b);
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
    /* the ground point c, fixed axis d, and the body's point on the line */
    j->def.type = JOINT_POINT_ON_LINE;
    j->def.axis[0] = d[0] / nd, j->def.axis[1] = d[1] / nd;
    j->a = (kd_mpoint){-1, -1, {c[0], c[1]}}, j->b = body_point(s, a);
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
    j->def.type = JOINT_ANGLE, j->a = body_point(s, a), j->b = body_point(s, b), j->theta0 = c;
    const kd_law zero = kd_law_constant(0);
    if (kd_law_copy(&j->law, law ? law : &zero))
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    s->nj++;
    return KD_OK;
}

kd_status kd_ffr_add_driver(kd_ffr_system* s, int body, double theta0, const kd_law* law, kd_error* err) {
    return kd_ffr_add_angle(s, (kd_ffr_point){.body = -1}, (kd_ffr_point){.body = body}, theta0, law, err);
}

/* Phi, local Jacobian rows and gamma of joint k (any may be NULL; gam needs qd). */
static void joint_values(const kd_ffr_system* s, int k, double t, const double* q, const double* qd, double* phi,
                         double* jl, double* gam) {
    const ffr_joint* j = &s->joint[k];
    kd_mpoint_state pa, pb;
    mpoint_eval(s->mbody, &j->a, q, qd, &pa);
    mpoint_eval(s->mbody, &j->b, q, qd, &pb);
    double f = 0, df, d2f = 0;
    if (j->def.type == JOINT_ANGLE && (phi || gam)) kd_law_eval(&j->law, t, &f, &df, &d2f);
    joint_eval(&j->def, &pa, &pb, j->theta0, f, d2f, phi, jl, gam);
}

static int cb_phi(void* ctx, double t, const double* q, double* phi) {
    const kd_ffr_system* s = ctx;
    for (int k = 0; k < s->nj; k++) joint_values(s, k, t, q, NULL, phi + s->joint[k].row, NULL, NULL);
    return 0;
}

static int cb_jacobian(void* ctx, double t, const double* q, double* jac) {
    const kd_ffr_system* s = ctx;
    double jl[JOINT_SLOTS * 3];
    for (int k = 0; k < s->nj; k++) {
        joint_values(s, k, t, q, NULL, NULL, jl, NULL);
        joint_scatter(s->rowptr, s->slot, s->joint[k].row, s->joint[k].nrow, jl, jac);
    }
    return 0;
}

static int cb_phi_t(void* ctx, double t, const double* q, double* phi_t) {
    (void)q;
    const kd_ffr_system* s = ctx;
    memset(phi_t, 0, sizeof(double) * s->nc);
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        if (j->def.type != JOINT_ANGLE) continue;
        double f, df, d2f;
        kd_law_eval(&j->law, t, &f, &df, &d2f);
        phi_t[j->row] = -df;
    }
    return 0;
}

static int cb_gamma(void* ctx, double t, const double* q, const double* qd, double* gam) {
    const kd_ffr_system* s = ctx;
    for (int k = 0; k < s->nj; k++) joint_values(s, k, t, q, qd, NULL, NULL, gam + s->joint[k].row);
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
        s->joint[k].nrow = joint_rows(s->joint[k].def.type);
        nc += s->joint[k].nrow;
    }
    s->nc = nc;
    s->scratch = malloc(sizeof(double) * (2 * nfmax + 2));
    s->mblock = malloc(sizeof(double) * (size_t)(3 + nfmax) * (size_t)(3 + nfmax));
    s->mbody = calloc(s->nb, sizeof(kd_mbody));
    s->rowptr = calloc(nc + 1, sizeof(int));
    s->col = malloc(sizeof(int) * (JOINT_SLOTS * (nc + 1)));
    s->slot = malloc(sizeof(int) * (JOINT_SLOTS * (nc + 1)));
    if (!s->scratch || !s->mblock || !s->mbody || !s->rowptr || !s->col || !s->slot)
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int b = 0; b < s->nb; b++) {
        const ffr_body* bd = &s->body[b];
        s->mbody[b] = (kd_mbody){.kind = bd->elastic ? KD_MBODY_ELASTIC : KD_MBODY_RIGID,
                                 .pose = KD_POSE_PLANAR,
                                 .off = bd->off,
                                 .nref = KD_POSE_PLANAR_SIZE,
                                 .elastic_off = bd->off + KD_POSE_PLANAR_SIZE,
                                 .nelastic = bd->nf,
                                 .nnode = bd->nodes,
                                 .node_coord = bd->node_coord};
    }
    /* the pattern: the sorted columns each row can make nonzero (joint_row_slots) */
    int nnz = 0;
    for (int k = 0; k < s->nj; k++) {
        const ffr_joint* j = &s->joint[k];
        const kd_mpoint p[2] = {j->a, j->b};
        for (int r = 0; r < j->nrow; r++) {
            const unsigned mask[2] = {joint_row_slots(j->def.type, r, 0), joint_row_slots(j->def.type, r, 1)};
            nnz += joint_pattern_row(s->mbody, p, mask, s->col + nnz, s->slot + nnz);
            s->rowptr[j->row + r + 1] = nnz;
        }
    }
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
    if (!s->finished) {
        r[0] = r[1] = NAN;
        return;
    }
    const kd_mpoint p = body_point(s, a);
    kd_mpoint_state o;
    mpoint_eval(s->mbody, &p, q, NULL, &o);
    r[0] = o.r[0] + o.a[0], r[1] = o.r[1] + o.a[1];
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
        if (s->joint[k].def.type == JOINT_REVOLUTE) f = fmax(f, hypot(lambda[s->joint[k].row], lambda[s->joint[k].row + 1]));
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
        switch (j->def.type) {
        case JOINT_REVOLUTE: F[0] += lambda[j->row], F[1] += lambda[j->row + 1]; break;
        case JOINT_POINT_ON_LINE:  /* along the line's unit normal (-axis_y, axis_x) */
            F[0] += j->def.axis[1] * lambda[j->row], F[1] -= j->def.axis[0] * lambda[j->row];
            break;
        case JOINT_ANGLE: F[2] -= lambda[j->row]; break;
        default: break;
        }
    }
}
