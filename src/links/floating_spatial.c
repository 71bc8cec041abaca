/* A spatial system of rigid and floating-frame elastic bodies with joints and drivers, as a
 * kd_cms with block-diagonal M(q) (kedyn/ffr3d.h, kedyn/cms.h; theory.md sec. 17).
 *
 * Joint rows are built from body vectors (F6): a point r_P = R + A(p) (s0 + u_node) or an axis
 * a = A(p) (a0 + theta_node x a0) (a0 the axis in the frame at the undeformed node, turned by the
 * node's small rotation), each with its Jacobian (R, p and the node's three elastic columns) and
 * its velocity-squared term (the second derivative at q'' = 0). The equations are those of the
 * rigid spatial mechanism (theory.md sec. 11, S4-S6: component rows of d = r_b - r_a, dot-1 rows
 * of two axes, dot-2 rows a.d, the distance row (d.d - L^2)/2 and the drivers) evaluated on these
 * vectors (F8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mechanism/spatial_internal.h"
#include "floating3d_internal.h"

#define F3_SIDE 13                /* slots of one side of a row: R (3), p (4), node u v w rx ry rz */
#define F3_SLOTS (2 * F3_SIDE)

typedef struct f3_joint {
    kd_ffr3d_joint_type type;
    kd_ffr3d_point pt[2];
    double axis[3];               /* global, initial pose */
    double axis2[3];              /* universal: b's axis, global, initial pose */
    double length;                /* distance (0: from the initial state) */
    double tri[2][3][3];          /* (f, g, u) in each side's frame (ground: global) */
    int row, nrow;
    int driven, drow;
    kd_law law;
    double initial;
    int tag;
} f3_joint;

struct kd_ffr3d_system {
    double g[3];
    int nb, nj, nb_cap, nj_cap, ndrv;
    f3_body* body;
    f3_joint* joint;
    int finished;
    int n, nc, nnz, nrow_joint;
    int *block_start, *rowptr, *col, *slot;
    double* jl;                   /* (F3_SLOTS nc) local Jacobian rows */
    double* scratch;
    kd_cms cms;
};

/* A body vector at (q, q') (F6). */
typedef struct f3_term {
    int body, point, ecol;        /* ecol: first elastic slot of its side (7: u v w, 10: rx ry rz) */
    double v[3], vd[3], acc[3];
    double Jp[3][4], Jf[3][3];
} f3_term;

kd_ffr3d_system* kd_ffr3d_new(const double g[3]) {
    kd_ffr3d_system* s = calloc(1, sizeof(*s));
    if (s && g) memcpy(s->g, g, sizeof(s->g));
    return s;
}

void kd_ffr3d_free(kd_ffr3d_system** ps) {
    if (!ps || !*ps) return;
    kd_ffr3d_system* s = *ps;
    for (int b = 0; b < s->nb; b++) f3_body_free(&s->body[b]);
    for (int j = 0; j < s->nj; j++)
        if (s->joint[j].driven) kd_law_free(&s->joint[j].law);
    free(s->body), free(s->joint), free(s->block_start), free(s->rowptr), free(s->col), free(s->slot);
    free(s->jl), free(s->scratch);
    free(s);
    *ps = NULL;
}

static void* grow(void** items, int n, int* cap, size_t size) {
    if (n == *cap) {
        const int c = *cap ? 2 * *cap : 8;
        void* g = realloc(*items, size * (size_t)c);
        if (!g) return NULL;
        *items = g, *cap = c;
    }
    char* it = (char*)*items + size * (size_t)n;
    memset(it, 0, size);
    return it;
}

static f3_body* new_body(kd_ffr3d_system* s, const char* name, kd_error* err) {
    if (s->finished) {
        kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "floating-frame system already finished");
        return NULL;
    }
    f3_body* b = grow((void**)&s->body, s->nb, &s->nb_cap, sizeof(f3_body));
    if (!b) kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    else snprintf(b->name, sizeof(b->name), "%s", name ? name : "");
    return b;
}

int kd_ffr3d_add_rigid(kd_ffr3d_system* s, const char* name, double mass, const double J[9], kd_error* err) {
    const double Jd[6] = {J[0], J[4], J[8], J[1], J[5], J[2]};
    double Jc[9];
    if (!(mass > 0) || kd_inertia_tensor(Jd, Jc) == 1) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "rigid body '%s': the mass and the inertia tensor must be positive",
                     name);
        return -1;
    }
    f3_body* b = new_body(s, name, err);
    if (!b) return -1;
    f3_body_init_rigid(b, mass, J);
    b->off = s->n, s->n += b->size;
    return s->nb++;
}

int kd_ffr3d_add_shell(kd_ffr3d_system* s, const char* name, const struct kd_model* model, kd_error* err) {
    f3_body* b = new_body(s, name, err);
    if (!b) return -1;
    if (f3_body_init_shell(b, model, err)) {
        f3_body_free(b);
        return -1;
    }
    b->off = s->n, s->n += b->size;
    return s->nb++;
}

int kd_ffr3d_add_shell_reduced(kd_ffr3d_system* s, const char* name, const struct kd_model* model, int modes,
                               const int* joint_nodes, int njoint_nodes, int static_vectors, kd_error* err) {
    if (modes < 1) {
        kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "kd_ffr3d_add_shell_reduced: modes >= 1");
        return -1;
    }
    f3_body* b = new_body(s, name, err);
    if (b) b->shell_modes = modes;   /* SL9: no dense blocks, the basis from the sparse matrices */
    if (b && (f3_body_init_shell(b, model, err) || f3_shell_reduce(b, model, joint_nodes, njoint_nodes, static_vectors, err))) {
        f3_body_free(b);
        b = NULL;
    }
    if (!b) return -1;
    b->off = s->n, s->n += b->size;
    return s->nb++;
}

int kd_ffr3d_add_beam(kd_ffr3d_system* s, const char* name, const kd_ffr3d_beam* beam, kd_error* err) {
    if (!(beam->length > 0) || beam->elements < 1 || !(beam->E > 0) || !(beam->G > 0) || !(beam->rho > 0) ||
        !(beam->A > 0) || !(beam->Iy > 0) || !(beam->Iz > 0) || !(beam->J > 0) ||
        !(beam->theory == KD_THEORY_EULER_BERNOULLI || beam->theory == KD_THEORY_RAYLEIGH)) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                     "elastic body '%s': need length, E, G, rho, A, Iy, Iz, J > 0, elements >= 1 and an "
                     "Euler-Bernoulli or Rayleigh beam",
                     name);
        return -1;
    }
    f3_body* b = new_body(s, name, err);
    if (!b) return -1;
    if (f3_body_init_beam(b, beam, err)) {
        f3_body_free(b);
        return -1;
    }
    b->off = s->n, s->n += b->size;
    return s->nb++;
}

static kd_status check_point(const kd_ffr3d_system* s, kd_ffr3d_point a, kd_error* err) {
    if (a.body < -1 || a.body >= s->nb)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "joint point on unknown body %d", a.body);
    if (a.body >= 0 && s->body[a.body].elastic && (a.node < 0 || a.node >= s->body[a.body].nodes))
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "body '%s' has nodes 0..%d, not %d",
                            s->body[a.body].name, s->body[a.body].nodes - 1, a.node);
    /* a reduced body's joints at its boundary nodes (a beam's frame node 0, a shell's support set) */
    if (a.body >= 0 && s->body[a.body].T && s->body[a.body].node_coord[6 * a.node] < 0 &&
        (s->body[a.body].shell ? s->body[a.body].full_coord[6 * a.node] >= 0 : a.node > 0))
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "node %d of the reduced body '%s' is not one of its joint nodes (kd_ffr3d_reduce)", a.node,
                            s->body[a.body].name);
    return KD_OK;
}

kd_status kd_ffr3d_reduce(kd_ffr3d_system* s, int b, int modes, const int* joint_nodes, int njoint_nodes,
                          kd_error* err) {
    return kd_ffr3d_reduce_basis(s, b, modes, joint_nodes, njoint_nodes, 1, err);
}

kd_status kd_ffr3d_reduce_basis(kd_ffr3d_system* s, int b, int modes, const int* joint_nodes, int njoint_nodes,
                                int static_vectors, kd_error* err) {
    if (s->finished || b < 0 || b >= s->nb || !s->body[b].elastic || s->body[b].shell || s->body[b].T || modes < 1)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "kd_ffr3d_reduce: an unreduced elastic body before kd_ffr3d_finish and modes >= 1");
    f3_body* bd = &s->body[b];
    int* bnd = calloc((size_t)bd->nodes, sizeof(int));
    if (!bnd) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = KD_OK;
    for (int k = 0; k < njoint_nodes && !st; k++)
        if (joint_nodes[k] < 0 || joint_nodes[k] >= bd->nodes)
            st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "body '%s' has nodes 0..%d, not %d", bd->name,
                              bd->nodes - 1, joint_nodes[k]);
        else bnd[joint_nodes[k]] = 1;
    for (int k = 0; k < s->nj && !st; k++)   /* joints added before: their nodes are boundary nodes */
        for (int side = 0; side < 2; side++)
            if (s->joint[k].pt[side].body == b) bnd[s->joint[k].pt[side].node] = 1;
    if (!st) st = f3_body_reduce(bd, modes, bnd, static_vectors, err);
    free(bnd);
    /* the coordinates laid out again */
    s->n = 0;
    for (int k = 0; k < s->nb; k++) s->body[k].off = s->n, s->n += s->body[k].size;
    return st;
}

double kd_ffr3d_body_omega_max(const kd_ffr3d_system* s, int b) { return s->body[b].omega_max; }
int kd_ffr3d_body_shell(const kd_ffr3d_system* s, int b) { return s->body[b].shell; }
int kd_ffr3d_body_geometric(const kd_ffr3d_system* s, int b) { return s->body[b].shell && s->body[b].sgeo; }

void kd_ffr3d_node_displacement(const kd_ffr3d_system* s, int b, int node, const double* q, double u[6]) {
    const f3_body* bd = &s->body[b];
    for (int d = 0; d < 6; d++) u[d] = 0.0;
    if (!bd->elastic || node < 0 || node >= bd->nodes) return;
    const double* x = q + bd->off + KD_FFR3D_POSE;
    for (int d = 0; d < 6; d++) {
        const int c = F3_FULL_COORD(bd)[6 * node + d];
        if (c < 0) continue;
        if (!bd->T) u[d] = x[c];
        else
            for (int a = 0; a < bd->nf; a++) u[d] += bd->T[(size_t)c * bd->nf + a] * x[a];
    }
}

int kd_ffr3d_shell_relaxation(const kd_ffr3d_system* s, int b, const double* q, double* u) {
    const f3_body* bd = &s->body[b];
    const double* zs = bd->shell ? f3_shell_relaxation(bd, q + bd->off + KD_FFR3D_POSE) : NULL;
    if (!zs) return 0;
    for (int n = 0; n < bd->nodes; n++)
        for (int d = 0; d < 6; d++) {
            const int c = F3_FULL_COORD(bd)[6 * n + d];
            u[6 * n + d] = c < 0 ? 0.0 : zs[c];
        }
    return 1;
}

int kd_ffr3d_add_joint(kd_ffr3d_system* s, kd_ffr3d_joint_type type, kd_ffr3d_point a, kd_ffr3d_point b,
                       const double axis[3], kd_error* err) {
    return kd_ffr3d_add_joint_ex(s, type, a, b, axis, NULL, 0.0, err);
}

static double norm(const double* a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

int kd_ffr3d_add_joint_ex(kd_ffr3d_system* s, kd_ffr3d_joint_type type, kd_ffr3d_point a, kd_ffr3d_point b,
                          const double axis[3], const double axis2[3], double length, kd_error* err) {
    static const int rows[] = {3, 5, 6, 4, 4, 5, 2, 1, 1};
    if ((unsigned)type > KD_FFR3D_DISTANCE) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "unknown joint type %d", (int)type);
        return -1;
    }
    if (check_point(s, a, err) || check_point(s, b, err)) return -1;
    if (a.body == b.body) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a joint needs two different bodies");
        return -1;
    }
    const int axial = type != KD_FFR3D_SPHERICAL && type != KD_FFR3D_DISTANCE;
    /* SL6: at a shell's free node a joint follows the node's translations only (spherical, distance);
     * a node of the support set moves with the frame and takes any joint */
    for (int side = 0; side < 2 && axial; side++) {
        const kd_ffr3d_point P = side ? b : a;
        const f3_body* B = P.body >= 0 ? &s->body[P.body] : NULL;
        int free_node = 0;
        for (int d = 0; B && B->shell && d < 6; d++) free_node |= B->node_coord[6 * P.node + d] >= 0;
        if (free_node) {
            kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                         "node %d of shell link '%s' is not in its support set: a joint there must be spherical or "
                         "distance (the node's rotations are not carried to a joint axis): to hinge the link there, use "
                         "spherical joints at two nodes on the axis, or put the node in the support set",
                         P.node + 1, B->name);
            return -1;
        }
    }
    const double n = axial && axis ? norm(axis) : 0, n2 = type == KD_FFR3D_UNIVERSAL && axis2 ? norm(axis2) : 0;
    if (axial && !(n > 0)) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a %s joint needs an axis of nonzero length",
                     type == KD_FFR3D_UNIVERSAL ? "universal" : "revolute, fixed, cylindrical, prismatic or point-on-line/plane");
        return -1;
    }
    if (type == KD_FFR3D_UNIVERSAL &&
        (!(n2 > 0) || fabs(axis[0] * axis2[0] + axis[1] * axis2[1] + axis[2] * axis2[2]) > 1e-6 * n * n2)) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a universal joint needs two orthogonal axes of nonzero length");
        return -1;
    }
    if (type == KD_FFR3D_DISTANCE && !(length >= 0)) {
        kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a distance joint needs a length >= 0");
        return -1;
    }
    if (s->finished) {
        kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "floating-frame system already finished");
        return -1;
    }
    f3_joint* j = grow((void**)&s->joint, s->nj, &s->nj_cap, sizeof(f3_joint));
    if (!j) {
        kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        return -1;
    }
    j->type = type, j->pt[0] = a, j->pt[1] = b, j->tag = -1, j->length = length;
    if (axial)
        for (int i = 0; i < 3; i++) j->axis[i] = axis[i] / n;
    else
        j->axis[2] = 1.0;
    for (int i = 0; i < 3 && n2 > 0; i++) j->axis2[i] = axis2[i] / n2;
    j->nrow = rows[type];
    return s->nj++;
}

kd_status kd_ffr3d_add_driver(kd_ffr3d_system* s, int joint, const kd_law* law, double initial, kd_error* err) {
    const kd_ffr3d_joint_type t = joint >= 0 && joint < s->nj ? s->joint[joint].type : KD_FFR3D_SPHERICAL;
    if ((t != KD_FFR3D_REVOLUTE && t != KD_FFR3D_PRISMATIC && t != KD_FFR3D_CYLINDRICAL) || s->joint[joint].driven ||
        s->finished)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "a driver needs an undriven revolute, prismatic or cylindrical joint");
    f3_joint* j = &s->joint[joint];
    if (kd_law_copy(&j->law, law)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    j->driven = 1, j->initial = initial;
    s->ndrv++;
    return KD_OK;
}

void kd_ffr3d_set_pose(const kd_ffr3d_system* s, int b, const double r[3], const double R[9], const double v[3],
                       const double w[3], double* q, double* qd) {
    const f3_body* bd = &s->body[b];
    double* x = q + bd->off;
    memset(x, 0, sizeof(double) * (size_t)bd->size);
    memcpy(x, r, sizeof(double) * 3);
    kd_quat_from_rot(R, x + 3);
    if (!qd) return;
    double* xd = qd + bd->off;
    memset(xd, 0, sizeof(double) * (size_t)bd->size);
    double E[3][4];
    sp_E(x + 3, E);
    for (int i = 0; i < 3; i++) xd[i] = v ? v[i] : 0.0;
    for (int c = 0; c < 4 && w; c++) xd[3 + c] = 0.5 * (E[0][c] * w[0] + E[1][c] * w[1] + E[2][c] * w[2]);
}

/* The frame position of point a in its body (a node: undeformed). */
static void point_local(const kd_ffr3d_system* s, kd_ffr3d_point a, double s0[3]) {
    if (a.body >= 0 && s->body[a.body].elastic) {
        const f3_body* b = &s->body[a.body];
        if (b->node_x) memcpy(s0, b->node_x + 3 * a.node, sizeof(double) * 3);   /* SL6: a shell node */
        else s0[0] = a.node * b->beam.length / b->beam.elements, s0[1] = s0[2] = 0;
    } else
        memcpy(s0, a.p, sizeof(double) * 3);
}

/* F6: the body vector of point or axis s0 of side a at (q, q') (qd may be NULL). */
static void term(const kd_ffr3d_system* s, kd_ffr3d_point a, const double s0[3], int point, const double* q,
                 const double* qd, f3_term* o) {
    memset(o, 0, sizeof(*o));
    o->body = a.body, o->point = point, o->ecol = point ? 7 : 10;
    if (a.body < 0) {
        memcpy(o->v, s0, sizeof(double) * 3);
        return;
    }
    const f3_body* b = &s->body[a.body];
    const double *x = q + b->off, *p = x + 3;
    double w[3] = {s0[0], s0[1], s0[2]}, wd[3] = {0, 0, 0}, ek[3][3];
    memset(ek, 0, sizeof(ek));
    if (b->elastic) {
        const int base = 6 * a.node + (point ? 0 : 3);
        for (int k = 0; k < 3; k++) {
            /* point: e_k; axis: e_k x a0 (the small rotation theta_k about e_k) */
            const double e[3] = {k == 0, k == 1, k == 2};
            if (point) memcpy(ek[k], e, sizeof(e));
            else ek[k][0] = e[1] * s0[2] - e[2] * s0[1], ek[k][1] = e[2] * s0[0] - e[0] * s0[2],
                 ek[k][2] = e[0] * s0[1] - e[1] * s0[0];
            const int c = b->node_coord[base + k];
            if (c < 0) {
                memset(ek[k], 0, sizeof(ek[k]));
                continue;
            }
            const double val = x[KD_FFR3D_POSE + c], vel = qd ? qd[b->off + KD_FFR3D_POSE + c] : 0.0;
            for (int i = 0; i < 3; i++) w[i] += ek[k][i] * val, wd[i] += ek[k][i] * vel;
        }
        for (int k = 0; k < 3; k++) {
            double c[3];
            sp_rot_apply(p, ek[k], c);
            for (int i = 0; i < 3; i++) o->Jf[i][k] = c[i];
        }
    }
    sp_rot_apply(p, w, o->v);
    sp_rot_jac(p, w, o->Jp);
    if (point)
        for (int i = 0; i < 3; i++) o->v[i] += x[i];
    if (!qd) return;
    const double* pd = qd + b->off + 3;
    double Jd[3][4], Awd[3], Apd[3];
    sp_rot_apply(p, wd, Awd);
    sp_rot_jac(p, wd, Jd);
    sp_rot_apply(pd, w, Apd);
    for (int i = 0; i < 3; i++) {
        double jp = 0, jd = 0;
        for (int c = 0; c < 4; c++) jp += o->Jp[i][c] * pd[c], jd += Jd[i][c] * pd[c];
        /* v' = [R' +] dv/dp p' + A w';  v'' (q'' = 0) = 2 A(p') w + 2 d(A w')/dp p' */
        o->vd[i] = jp + Awd[i] + (point ? qd[b->off + i] : 0.0);
        o->acc[i] = 2 * Apd[i] + 2 * jd;
    }
}

/* jl (one row, F3_SLOTS) += c^T d v / d q of term t on side `side` */
static void term_jac_add(const f3_term* t, int side, const double c[3], double* jl) {
    if (t->body < 0) return;
    double* r = jl + side * F3_SIDE;
    for (int i = 0; i < 3; i++) {
        if (t->point) r[i] += c[i];
        for (int k = 0; k < 4; k++) r[3 + k] += c[i] * t->Jp[i][k];
        for (int k = 0; k < 3; k++) r[t->ecol + k] += c[i] * t->Jf[i][k];
    }
}

static double dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* A dot-1 row x.y (x on side 0, y on side 1; theory.md sec. 11 S5). */
static void dot_row(const f3_term* x, const f3_term* y, double* phi, double* jl, double* gam) {
    if (phi) *phi = dot(x->v, y->v);
    if (jl) term_jac_add(x, 0, y->v, jl), term_jac_add(y, 1, x->v, jl);
    if (gam) *gam = -(dot(y->v, x->acc) + dot(x->v, y->acc) + 2 * dot(x->vd, y->vd));
}

/* The joint's body vectors: its points and (for joints with axes) the triads (f, g, u) of both
 * sides; d = P_b - P_a with its rate and velocity-squared acceleration. */
typedef struct f3_jterms {
    f3_term P[2], X[2][3];
    double d[3], dd[3], dacc[3];
} f3_jterms;

static void jterms(const kd_ffr3d_system* s, const f3_joint* j, const double* q, const double* qd, f3_jterms* T) {
    const int axes = j->type != KD_FFR3D_SPHERICAL && j->type != KD_FFR3D_DISTANCE;
    for (int side = 0; side < 2; side++) {
        double s0[3];
        point_local(s, j->pt[side], s0);
        term(s, j->pt[side], s0, 1, q, qd, &T->P[side]);
        if (axes)
            for (int a = 0; a < 3; a++) term(s, j->pt[side], j->tri[side][a], 0, q, qd, &T->X[side][a]);
    }
    for (int i = 0; i < 3; i++) {
        T->d[i] = T->P[1].v[i] - T->P[0].v[i];
        T->dd[i] = T->P[1].vd[i] - T->P[0].vd[i];
        T->dacc[i] = T->P[1].acc[i] - T->P[0].acc[i];
    }
}

/* A dot-2 row x.d (x an axis on side 0; theory.md sec. 11 S5, F8). */
static void dot2_row(const f3_term* x, const f3_jterms* T, double* phi, double* jl, double* gam) {
    if (phi) *phi = dot(x->v, T->d);
    if (jl) {
        const double m[3] = {-x->v[0], -x->v[1], -x->v[2]};
        term_jac_add(x, 0, T->d, jl), term_jac_add(&T->P[0], 0, m, jl), term_jac_add(&T->P[1], 1, x->v, jl);
    }
    if (gam) *gam = -(dot(x->v, T->dacc) + dot(T->d, x->acc) + 2 * dot(x->vd, T->dd));
}

/* The rows of joint k (and of its driver, at drow): any output may be NULL; gam needs qd. */
static void joint_eval(const kd_ffr3d_system* s, int k, double t, const double* q, const double* qd, double* phi,
                       double* jl, double* phit, double* gam) {
    const f3_joint* j = &s->joint[k];
    f3_jterms T;
    jterms(s, j, q, qd, &T);
    f3_term(*X)[3] = T.X;
#define ROW(r) (jl ? jl + (size_t)(r) * F3_SLOTS : NULL)
#define PHI(r) (phi ? phi + (r) : NULL)
#define GAM(r) (gam ? gam + (r) : NULL)
    int r = j->row;
    const kd_ffr3d_joint_type ty = j->type;
    /* S4: d = r_b - r_a = 0 */
    if (ty == KD_FFR3D_SPHERICAL || ty == KD_FFR3D_REVOLUTE || ty == KD_FFR3D_FIXED || ty == KD_FFR3D_UNIVERSAL)
        for (int i = 0; i < 3; i++, r++) {
            if (phi) phi[r] = T.d[i];
            if (jl) {
                const double e[3] = {i == 0, i == 1, i == 2}, me[3] = {-(i == 0), -(i == 1), -(i == 2)};
                term_jac_add(&T.P[0], 0, me, ROW(r)), term_jac_add(&T.P[1], 1, e, ROW(r));
            }
            if (gam) gam[r] = -T.dacc[i];
        }
    /* S5 (F8): revolute f.u2 = g.u2 = 0; fixed f.g2 = g.u2 = u.f2 = 0; universal u.u2' = 0 (u2' b's
     * own axis); cylindrical f.u2 = g.u2 = f.d = g.d = 0, prismatic and f.g2 = 0; point-on-line
     * f.d = g.d = 0; point-on-plane u.d = 0; distance (d.d - L^2)/2 = 0 */
    switch (ty) {
    case KD_FFR3D_REVOLUTE:
        dot_row(&X[0][0], &X[1][2], PHI(r), ROW(r), GAM(r)), r++;
        dot_row(&X[0][1], &X[1][2], PHI(r), ROW(r), GAM(r)), r++;
        break;
    case KD_FFR3D_FIXED:
        dot_row(&X[0][0], &X[1][1], PHI(r), ROW(r), GAM(r)), r++;
        dot_row(&X[0][1], &X[1][2], PHI(r), ROW(r), GAM(r)), r++;
        dot_row(&X[0][2], &X[1][0], PHI(r), ROW(r), GAM(r)), r++;
        break;
    case KD_FFR3D_UNIVERSAL: dot_row(&X[0][2], &X[1][2], PHI(r), ROW(r), GAM(r)), r++; break;
    case KD_FFR3D_CYLINDRICAL:
    case KD_FFR3D_PRISMATIC:
        dot_row(&X[0][0], &X[1][2], PHI(r), ROW(r), GAM(r)), r++;
        dot_row(&X[0][1], &X[1][2], PHI(r), ROW(r), GAM(r)), r++;
        dot2_row(&X[0][0], &T, PHI(r), ROW(r), GAM(r)), r++;
        dot2_row(&X[0][1], &T, PHI(r), ROW(r), GAM(r)), r++;
        if (ty == KD_FFR3D_PRISMATIC) dot_row(&X[0][0], &X[1][1], PHI(r), ROW(r), GAM(r)), r++;
        break;
    case KD_FFR3D_POINT_ON_LINE:
        dot2_row(&X[0][0], &T, PHI(r), ROW(r), GAM(r)), r++;
        dot2_row(&X[0][1], &T, PHI(r), ROW(r), GAM(r)), r++;
        break;
    case KD_FFR3D_POINT_ON_PLANE: dot2_row(&X[0][2], &T, PHI(r), ROW(r), GAM(r)), r++; break;
    case KD_FFR3D_DISTANCE:
        if (phi) phi[r] = 0.5 * (dot(T.d, T.d) - j->length * j->length);
        if (jl) {
            const double m[3] = {-T.d[0], -T.d[1], -T.d[2]};
            term_jac_add(&T.P[0], 0, m, ROW(r)), term_jac_add(&T.P[1], 1, T.d, ROW(r));
        }
        if (gam) gam[r] = -(dot(T.d, T.dacc) + dot(T.dd, T.dd));
        r++;
        break;
    default: break;
    }
    if (j->driven && ty != KD_FFR3D_REVOLUTE) {
        /* S6: the translation u.d - x(t) of a prismatic or cylindrical joint */
        const int rd = j->drow;
        double x, xd, xdd, ph = 0, g = 0;
        kd_law_eval(&j->law, t, &x, &xd, &xdd);
        dot2_row(&X[0][2], &T, &ph, ROW(rd), qd ? &g : NULL);
        if (phi) phi[rd] = ph - x - j->initial;
        if (phit) phit[rd] = -xd;
        if (gam) gam[rd] = g + xdd;
    } else if (j->driven) {
        /* S6: Phi = D1 cos th - D2 sin th, D1 = g.f2, D2 = f.f2 */
        const int rd = j->drow;
        double th, thd, thdd;
        kd_law_eval(&j->law, t, &th, &thd, &thdd);
        th += j->initial;
        const double c = cos(th), sn = sin(th);
        double D1, D2, g1 = 0, g2 = 0;
        double j1[F3_SLOTS], j2[F3_SLOTS];
        memset(j1, 0, sizeof(j1)), memset(j2, 0, sizeof(j2));
        dot_row(&X[0][1], &X[1][0], &D1, j1, qd ? &g1 : NULL);
        dot_row(&X[0][0], &X[1][0], &D2, j2, qd ? &g2 : NULL);
        if (phi) phi[rd] = D1 * c - D2 * sn;
        if (jl)
            for (int k2 = 0; k2 < F3_SLOTS; k2++) ROW(rd)[k2] = c * j1[k2] - sn * j2[k2];
        if (phit) phit[rd] = -thd * (D1 * sn + D2 * c);
        if (gam) {
            const double D1d = dot(X[0][1].vd, X[1][0].v) + dot(X[0][1].v, X[1][0].vd);
            const double D2d = dot(X[0][0].vd, X[1][0].v) + dot(X[0][0].v, X[1][0].vd);
            const double cd = -sn * thd, sd = c * thd;
            const double cdd = -c * thd * thd - sn * thdd, sdd = -sn * thd * thd + c * thdd;
            gam[rd] = c * g1 - sn * g2 - 2 * (cd * D1d - sd * D2d) - (cdd * D1 - sdd * D2);
        }
    }
#undef ROW
#undef PHI
#undef GAM
}

/* Every row: joints, normalisation (one per body), drivers. */
static void rows_all(const kd_ffr3d_system* s, double t, const double* q, const double* qd, double* phi, double* jl,
                     double* phit, double* gam) {
    if (jl) memset(jl, 0, sizeof(double) * F3_SLOTS * (size_t)s->nc);
    if (phit) memset(phit, 0, sizeof(double) * (size_t)s->nc);
    for (int k = 0; k < s->nj; k++) joint_eval(s, k, t, q, qd, phi, jl, phit, gam);
    for (int b = 0; b < s->nb; b++) {
        /* (p.p - 1) / 2 = 0: Jacobian p^T, gamma = -p'.p' */
        const int r = s->nrow_joint + b;
        const double* p = q + s->body[b].off + 3;
        if (phi) phi[r] = 0.5 * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3] - 1);
        if (jl)
            for (int c = 0; c < 4; c++) jl[(size_t)r * F3_SLOTS + 3 + c] = p[c];
        if (gam) {
            const double* pd = qd + s->body[b].off + 3;
            gam[r] = -(pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3]);
        }
    }
}

static int cb_phi(void* ctx, double t, const double* q, double* phi) {
    rows_all(ctx, t, q, NULL, phi, NULL, NULL, NULL);
    return 0;
}

static int cb_jacobian(void* ctx, double t, const double* q, double* jac) {
    const kd_ffr3d_system* s = ctx;
    rows_all(s, t, q, NULL, NULL, s->jl, NULL, NULL);
    for (int r = 0; r < s->nc; r++)
        for (int k = s->rowptr[r]; k < s->rowptr[r + 1]; k++) jac[k] = s->jl[(size_t)r * F3_SLOTS + s->slot[k]];
    return 0;
}

static int cb_phi_t(void* ctx, double t, const double* q, double* phit) {
    const kd_ffr3d_system* s = ctx;
    memset(phit, 0, sizeof(double) * (size_t)s->nc);
    for (int k = 0; k < s->nj; k++)
        if (s->joint[k].driven) joint_eval(s, k, t, q, NULL, NULL, NULL, phit, NULL);
    return 0;
}

static int cb_gamma(void* ctx, double t, const double* q, const double* qd, double* gam) {
    rows_all(ctx, t, q, qd, NULL, NULL, NULL, gam);
    return 0;
}

static int cb_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    (void)t;
    const kd_ffr3d_system* s = ctx;
    for (int b = 0; b < s->nb; b++) {
        const f3_body* bd = &s->body[b];
        f3_body_force(bd, q + bd->off, qd + bd->off, s->g, Q + bd->off, s->scratch);
    }
    return 0;
}

static int cb_mass(void* ctx, double t, const double* q, double* blocks) {
    (void)t;
    const kd_ffr3d_system* s = ctx;
    size_t o = 0;
    for (int b = 0; b < s->nb; b++) {
        const f3_body* bd = &s->body[b];
        f3_body_mass(bd, q + bd->off, blocks + o, s->scratch);
        o += (size_t)bd->size * bd->size;
    }
    return 0;
}

/* The columns of side `side` of a row on point a: slot -> column (-1: none). */
static void side_columns(const kd_ffr3d_system* s, kd_ffr3d_point a, int cols[F3_SIDE]) {
    for (int k = 0; k < F3_SIDE; k++) cols[k] = -1;
    if (a.body < 0) return;
    const f3_body* b = &s->body[a.body];
    for (int k = 0; k < KD_FFR3D_POSE; k++) cols[k] = b->off + k;
    if (b->elastic)
        for (int k = 0; k < 6; k++) {
            const int c = b->node_coord[6 * a.node + k];
            cols[7 + k] = c < 0 ? -1 : b->off + KD_FFR3D_POSE + c;
        }
}

static int add_row_pattern(kd_ffr3d_system* s, const int* cols, int nslot, int nnz) {
    /* insertion by column (the two sides' columns are disjoint: different bodies) */
    int n = 0;
    for (int k = 0; k < nslot; k++) {
        if (cols[k] < 0) continue;
        int i = n++;
        while (i > 0 && s->col[nnz + i - 1] > cols[k]) s->col[nnz + i] = s->col[nnz + i - 1], s->slot[nnz + i] = s->slot[nnz + i - 1], i--;
        s->col[nnz + i] = cols[k], s->slot[nnz + i] = k;
    }
    return nnz + n;
}

kd_status kd_ffr3d_finish(kd_ffr3d_system* s, const double* q0, kd_error* err) {
    if (s->finished) return KD_OK;
    if (s->nb == 0) return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a floating-frame system needs a body");
    const int n = s->n;   /* the offsets were laid out as the bodies were added */
    int nfmax = 0;
    s->block_start = malloc(sizeof(int) * (size_t)(s->nb + 1));
    if (!s->block_start) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int b = 0; b < s->nb; b++) {
        s->block_start[b] = s->body[b].off;
        const int nfb = s->body[b].T ? s->body[b].nfull : s->body[b].nf;
        nfmax = nfb > nfmax ? nfb : nfmax;
    }
    s->block_start[s->nb] = n;
    int nc = 0;
    for (int k = 0; k < s->nj; k++) s->joint[k].row = nc, nc += s->joint[k].nrow;
    s->nrow_joint = nc;
    nc += s->nb;
    for (int k = 0; k < s->nj; k++)
        if (s->joint[k].driven) s->joint[k].drow = nc++;
    s->nc = nc;
    s->rowptr = calloc((size_t)nc + 1, sizeof(int));
    s->col = malloc(sizeof(int) * ((size_t)F3_SLOTS * nc + 1));
    s->slot = malloc(sizeof(int) * ((size_t)F3_SLOTS * nc + 1));
    s->jl = malloc(sizeof(double) * ((size_t)F3_SLOTS * nc + 1));
    s->scratch = malloc(sizeof(double) * F3_SCRATCH(nfmax));
    if (!s->rowptr || !s->col || !s->slot || !s->jl || !s->scratch)
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    /* the joints' triads (f, g, u) in each side's frame from the global axis at q0 */
    for (int k = 0; k < s->nj; k++) {
        f3_joint* j = &s->joint[k];
        double tri[3][3];
        const double* u = j->axis;
        const int m = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0 : fabs(u[1]) <= fabs(u[2]) ? 1 : 2;
        double e[3] = {0, 0, 0}, f[3];
        e[m] = 1;
        const double eu = dot(e, u);
        for (int i = 0; i < 3; i++) f[i] = e[i] - eu * u[i];
        const double nf = sqrt(dot(f, f));
        for (int i = 0; i < 3; i++) tri[0][i] = f[i] / nf, tri[2][i] = u[i];
        tri[1][0] = u[1] * tri[0][2] - u[2] * tri[0][1];
        tri[1][1] = u[2] * tri[0][0] - u[0] * tri[0][2];
        tri[1][2] = u[0] * tri[0][1] - u[1] * tri[0][0];
        for (int side = 0; side < 2; side++) {
            double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            if (j->pt[side].body >= 0) kd_rot_from_quat(q0 + s->body[j->pt[side].body].off + 3, R);
            /* universal: b's third vector is its own axis (F8) */
            if (side == 1 && j->type == KD_FFR3D_UNIVERSAL) memcpy(tri[2], j->axis2, sizeof(tri[2]));
            for (int a = 0; a < 3; a++)
                for (int i = 0; i < 3; i++)
                    j->tri[side][a][i] = R[i] * tri[a][0] + R[3 + i] * tri[a][1] + R[6 + i] * tri[a][2];
        }
        if (j->type == KD_FFR3D_DISTANCE && j->length == 0) {
            double ra[3], rb[3];
            kd_ffr3d_point_position(s, q0, j->pt[0], ra);
            kd_ffr3d_point_position(s, q0, j->pt[1], rb);
            const double dv[3] = {rb[0] - ra[0], rb[1] - ra[1], rb[2] - ra[2]};
            j->length = norm(dv);
            if (!(j->length > 0)) return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a distance joint of zero length");
        }
    }
    /* the pattern: each joint row spans both sides' slots; a normalisation row its body's p */
    int nnz = 0;
    for (int k = 0; k < s->nj; k++) {
        const f3_joint* j = &s->joint[k];
        int cols[F3_SLOTS];
        side_columns(s, j->pt[0], cols), side_columns(s, j->pt[1], cols + F3_SIDE);
        for (int r = 0; r < j->nrow; r++) {
            nnz = add_row_pattern(s, cols, F3_SLOTS, nnz);
            s->rowptr[j->row + r + 1] = nnz;
        }
    }
    for (int b = 0; b < s->nb; b++) {
        int cols[F3_SIDE];
        for (int k = 0; k < F3_SIDE; k++) cols[k] = k >= 3 && k < 7 ? s->body[b].off + k : -1;
        nnz = add_row_pattern(s, cols, F3_SIDE, nnz);
        s->rowptr[s->nrow_joint + b + 1] = nnz;
    }
    for (int k = 0; k < s->nj; k++) {
        const f3_joint* j = &s->joint[k];
        if (!j->driven) continue;
        int cols[F3_SLOTS];
        side_columns(s, j->pt[0], cols), side_columns(s, j->pt[1], cols + F3_SIDE);
        nnz = add_row_pattern(s, cols, F3_SLOTS, nnz);
        s->rowptr[j->drow + 1] = nnz;
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

const kd_cms* kd_ffr3d_cms(const kd_ffr3d_system* s) { return s->finished ? &s->cms : NULL; }
int kd_ffr3d_size(const kd_ffr3d_system* s) { return s->n; }
int kd_ffr3d_body_count(const kd_ffr3d_system* s) { return s->nb; }
const char* kd_ffr3d_body_name(const kd_ffr3d_system* s, int b) { return s->body[b].name; }
int kd_ffr3d_body_offset(const kd_ffr3d_system* s, int b) { return s->body[b].off; }
int kd_ffr3d_body_nodes(const kd_ffr3d_system* s, int b) { return s->body[b].nodes; }
int kd_ffr3d_body_size(const kd_ffr3d_system* s, int b) { return s->body[b].size; }
int kd_ffr3d_joint_count(const kd_ffr3d_system* s) { return s->nj; }
int kd_ffr3d_joint_tag(const kd_ffr3d_system* s, int j) { return s->joint[j].tag; }

void f3_set_joint_tag(kd_ffr3d_system* s, int j, int tag) { s->joint[j].tag = tag; }

int kd_ffr3d_node_coordinate(const kd_ffr3d_system* s, int b, int node, int d) {
    const f3_body* bd = &s->body[b];
    if (!bd->elastic || node < 0 || node >= bd->nodes || d < 0 || d > 5) return -1;
    const int c = bd->node_coord[6 * node + d];
    return c < 0 ? -1 : bd->off + KD_FFR3D_POSE + c;
}

void kd_ffr3d_point_position(const kd_ffr3d_system* s, const double* q, kd_ffr3d_point a, double r[3]) {
    double s0[3];
    f3_term t;
    point_local(s, a, s0);
    term(s, a, s0, 1, q, NULL, &t);
    memcpy(r, t.v, sizeof(double) * 3);
}

void kd_ffr3d_energy(const kd_ffr3d_system* s, const double* q, const double* qd, double* T, double* Vg,
                     double* Vs) {
    double t = 0, vg = 0, vs = 0;
    for (int b = 0; b < s->nb; b++) {
        const f3_body* bd = &s->body[b];
        t += f3_body_kinetic(bd, q + bd->off, qd + bd->off, s->scratch);
        vg += f3_body_gravity_potential(bd, q + bd->off, s->g);
        vs += f3_body_strain(bd, q + bd->off);
    }
    if (T) *T = t;
    if (Vg) *Vg = vg;
    if (Vs) *Vs = vs;
}

void kd_ffr3d_momentum(const kd_ffr3d_system* s, const double* q, const double* qd, double p[3], double L[3]) {
    memset(p, 0, sizeof(double) * 3), memset(L, 0, sizeof(double) * 3);
    for (int b = 0; b < s->nb; b++) {
        double pb[3], lb[3];
        f3_body_momentum(&s->body[b], q + s->body[b].off, qd + s->body[b].off, pb, lb, s->scratch);
        for (int i = 0; i < 3; i++) p[i] += pb[i], L[i] += lb[i];
    }
}

/* The force -Phi_q^T lambda on b's point: -(d Phi_r / d r_b) lambda_r over the joint's rows, d Phi / d r_b
 * e_i (component rows), the axis x (dot-2 rows x.d), d (distance), 0 (dot-1 rows), and the
 * translation driver's u. */
void kd_ffr3d_joint_force(const kd_ffr3d_system* s, int k, const double* q, const double* lambda, double F[3]) {
    const f3_joint* j = &s->joint[k];
    f3_jterms T;
    jterms(s, j, q, NULL, &T);
    const kd_ffr3d_joint_type ty = j->type;
    const double* l = lambda + j->row;
    memset(F, 0, sizeof(double) * 3);
    for (int i = 0; i < 3; i++) {
        double f = 0;
        switch (ty) {
        case KD_FFR3D_SPHERICAL:
        case KD_FFR3D_REVOLUTE:
        case KD_FFR3D_FIXED:
        case KD_FFR3D_UNIVERSAL: f = l[i]; break;
        case KD_FFR3D_CYLINDRICAL:
        case KD_FFR3D_PRISMATIC: f = T.X[0][0].v[i] * l[2] + T.X[0][1].v[i] * l[3]; break;
        case KD_FFR3D_POINT_ON_LINE: f = T.X[0][0].v[i] * l[0] + T.X[0][1].v[i] * l[1]; break;
        case KD_FFR3D_POINT_ON_PLANE: f = T.X[0][2].v[i] * l[0]; break;
        case KD_FFR3D_DISTANCE: f = T.d[i] * l[0]; break;
        default: break;
        }
        if (j->driven && ty != KD_FFR3D_REVOLUTE) f += T.X[0][2].v[i] * lambda[j->drow];
        F[i] = -f;
    }
}

void kd_ffr3d_body_mass(const kd_ffr3d_system* s, int b, const double* qb, double* M) {
    f3_body_mass(&s->body[b], qb, M, s->scratch);
}

void kd_ffr3d_body_force(const kd_ffr3d_system* s, int b, const double* qb, const double* qdb, double* Q) {
    f3_body_force(&s->body[b], qb, qdb, s->g, Q, s->scratch);
}

void kd_ffr3d_section_forces(const kd_ffr3d_system* s, int b, const double* q, double c_y, double c_z, double* out) {
    f3_body_section_forces(&s->body[b], q + s->body[b].off, c_y, c_z, out);
}
