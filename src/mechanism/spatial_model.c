/* The spatial mechanism: building it, its constraint rows and Jacobian pattern, mass blocks,
 * applied and quadratic-velocity forces, energies and its kd_cms view (theory.md sec. "Spatial
 * rigid mechanisms", S1, S7, S8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/smech_lu.h"
#include "spatial_internal.h"

kd_smech* kd_smech_new(void) { return calloc(1, sizeof(kd_smech)); }

void kd_smech_free(kd_smech** pm) {
    if (!pm || !*pm) return;
    kd_smech* m = *pm;
    for (int d = 0; d < m->ndriver; d++) kd_law_free(&m->driver[d].law);
    for (int f = 0; f < m->nforce; f++)
        for (int c = 0; c < 3; c++) kd_law_free(&m->force[f].value[c]);
    free(m->body_name), free(m->mass), free(m->J), free(m->com), free(m->q0), free(m->qd0);
    free(m->joint), free(m->driver), free(m->force);
    free(m->jac_rowptr), free(m->jac_col), free(m->jac_slot), free(m->row_owner), free(m->block_start);
    free(m->jl_work);
    free(m->qa_work);
    kd_smech_lu_free(&m->lu);
    free(m);
    *pm = NULL;
}

static int grow(void** p, int* cap, int need, size_t size) {
    if (need <= *cap) return 0;
    int c = *cap ? 2 * *cap : 8;
    while (c < need) c *= 2;
    void* q = realloc(*p, size * (size_t)c);
    if (!q) return -1;
    *p = q, *cap = c;
    return 0;
}

int kd_smech_add_body(kd_smech* m, const char* name, double mass, const double J[9], const double com[3],
                      const double origin[3], const double R[9]) {
    if (m->finished) return -1;
    const int b = m->nbody, nb = b + 1;
    if (nb > m->cap_body) {
        int cap = m->cap_body ? 2 * m->cap_body : 8;
        void* a = realloc(m->body_name, sizeof(*m->body_name) * (size_t)cap);
        if (a) m->body_name = a;
        double* mm = realloc(m->mass, sizeof(double) * (size_t)cap);
        if (mm) m->mass = mm;
        double* jj = realloc(m->J, sizeof(double) * 9 * (size_t)cap);
        if (jj) m->J = jj;
        double* cc = realloc(m->com, sizeof(double) * 3 * (size_t)cap);
        if (cc) m->com = cc;
        double* q = realloc(m->q0, sizeof(double) * KD_SPOSE * (size_t)cap);
        if (q) m->q0 = q;
        double* qd = realloc(m->qd0, sizeof(double) * KD_SPOSE * (size_t)cap);
        if (qd) m->qd0 = qd;
        if (!a || !mm || !jj || !cc || !q || !qd) return -1;
        m->cap_body = cap;
    }
    snprintf(m->body_name[b], sizeof(m->body_name[b]), "%s", name ? name : "");
    m->mass[b] = mass;
    memcpy(m->J + 9 * b, J, sizeof(double) * 9);
    memcpy(m->com + 3 * b, com, sizeof(double) * 3);
    double* q = m->q0 + KD_SPOSE * b;
    kd_quat_from_rot(R, q + 3);
    for (int i = 0; i < 3; i++) q[i] = origin[i] + R[3 * i] * com[0] + R[3 * i + 1] * com[1] + R[3 * i + 2] * com[2];
    memset(m->qd0 + KD_SPOSE * b, 0, sizeof(double) * KD_SPOSE);
    m->nbody = nb;
    m->n = KD_SPOSE * nb;
    return b;
}

void kd_smech_set_velocity(kd_smech* m, int b, const double v[3], const double w[3]) {
    kd_smech_qd_of(m, b, m->q0, v, w, m->qd0);
}

int kd_smech_add_joint(kd_smech* m, const char* name, kd_sjoint_type type, int b0, int b1, const double P0[3],
                       const double P1[3], const double axis1[3], const double axis2[3], double length) {
    if (m->finished || grow((void**)&m->joint, &m->cap_joint, m->njoint + 1, sizeof(kd_sjoint))) return -1;
    kd_sjoint* j = m->joint + m->njoint;
    memset(j, 0, sizeof(*j));
    snprintf(j->name, sizeof(j->name), "%s", name ? name : "");
    j->type = type, j->body[0] = b0, j->body[1] = b1, j->length = length, j->driver = -1;
    memcpy(j->s[0], P0, sizeof(double) * 3);
    memcpy(j->s[1], P1, sizeof(double) * 3);
    if (axis1) memcpy(j->u[0], axis1, sizeof(double) * 3);
    if (axis2) memcpy(j->u[1], axis2, sizeof(double) * 3);
    return m->njoint++;
}

int kd_smech_add_driver(kd_smech* m, int joint, const kd_law* law, double initial) {
    if (m->finished || grow((void**)&m->driver, &m->cap_driver, m->ndriver + 1, sizeof(kd_sdriver))) return -1;
    kd_sdriver* d = m->driver + m->ndriver;
    memset(d, 0, sizeof(*d));
    if (kd_law_copy(&d->law, law)) return -1;
    d->joint = joint, d->initial = initial;
    return m->ndriver++;
}

static kd_sforce* add_force(kd_smech* m) {
    if (m->finished || grow((void**)&m->force, &m->cap_force, m->nforce + 1, sizeof(kd_sforce))) return NULL;
    kd_sforce* f = m->force + m->nforce;
    memset(f, 0, sizeof(*f));
    f->body[0] = f->body[1] = -1;
    for (int c = 0; c < 3; c++) f->value[c] = kd_law_constant(0.0);
    return f;
}

static int copy_laws(kd_sforce* f, const kd_law v[3]) {
    for (int c = 0; c < 3; c++) {
        kd_law_free(&f->value[c]);
        if (kd_law_copy(&f->value[c], v + c)) return -1;
    }
    return 0;
}

int kd_smech_add_torque(kd_smech* m, int b, const kd_law value[3]) {
    kd_sforce* f = add_force(m);
    if (!f) return -1;
    f->type = KD_SFORCE_TORQUE, f->body[0] = b;
    m->nforce++;
    return copy_laws(f, value) ? -1 : m->nforce - 1;
}

int kd_smech_add_force(kd_smech* m, int b, const double P[3], const kd_law value[3]) {
    kd_sforce* f = add_force(m);
    if (!f) return -1;
    f->type = KD_SFORCE_FORCE, f->body[0] = b;
    memcpy(f->s[0], P, sizeof(double) * 3);
    m->nforce++;
    return copy_laws(f, value) ? -1 : m->nforce - 1;
}

int kd_smech_add_spring(kd_smech* m, int b0, const double P0[3], int b1, const double P1[3], double k, double length,
                        double c) {
    kd_sforce* f = add_force(m);
    if (!f) return -1;
    f->type = KD_SFORCE_SPRING, f->body[0] = b0, f->body[1] = b1, f->k = k, f->length = length, f->c = c;
    memcpy(f->s[0], P0, sizeof(double) * 3);
    memcpy(f->s[1], P1, sizeof(double) * 3);
    return m->nforce++;
}

static double norm3(const double* a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }
static void cross3(const double* a, const double* b, double* c) {
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Body-frame point (from the origin) -> from the centre of mass; ground points stay global. */
static void to_com(const kd_smech* m, int b, double* s) {
    if (b < 0) return;
    for (int i = 0; i < 3; i++) s[i] -= m->com[3 * b + i];
}

/* v0 on body b0 -> the same global direction in the axes of body b1 at the initial pose. */
static void image(const kd_smech* m, int b0, int b1, const double v0[3], double v1[3]) {
    double g[3], R[9];
    if (b0 >= 0) {
        kd_rot_from_quat(m->q0 + KD_SPOSE * b0 + 3, R);
        for (int i = 0; i < 3; i++) g[i] = R[3 * i] * v0[0] + R[3 * i + 1] * v0[1] + R[3 * i + 2] * v0[2];
    } else
        memcpy(g, v0, sizeof(g));
    if (b1 >= 0) {
        kd_rot_from_quat(m->q0 + KD_SPOSE * b1 + 3, R);
        for (int i = 0; i < 3; i++) v1[i] = R[i] * g[0] + R[3 + i] * g[1] + R[6 + i] * g[2];
    } else
        memcpy(v1, g, sizeof(g));
}

static int row_bodies(const kd_smech* m, int r, int b[2]) {
    const int o = m->row_owner[r];
    if (o >= 0) {
        b[0] = m->joint[o].body[0], b[1] = m->joint[o].body[1];
    } else if (o >= -m->nbody) {
        b[0] = -1 - o, b[1] = -1;
    } else {
        const kd_sjoint* j = m->joint + m->driver[-(1 + m->nbody) - o].joint;
        b[0] = j->body[0], b[1] = j->body[1];
    }
    return 0;
}

kd_status kd_smech_finish(kd_smech* m, kd_error* err) {
    if (m->finished) return KD_OK;
    if (m->nbody < 1) return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a spatial mechanism needs a moving body");
    double L = 0;
    int nc = 0;
    for (int k = 0; k < m->njoint; k++) {
        kd_sjoint* j = m->joint + k;
        for (int e = 0; e < 2; e++) {
            if (j->body[e] >= m->nbody)
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "joint %s: no body %d", j->name, j->body[e]);
            double r[3];
            image(m, j->body[e], -1, j->s[e], r);
            if (j->body[e] >= 0)
                for (int i = 0; i < 3; i++) r[i] += m->q0[KD_SPOSE * j->body[e] + i] - 0.0;
            L = fmax(L, norm3(r));
            to_com(m, j->body[e], j->s[e]);
        }
        if (j->body[0] == j->body[1])
            return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "joint %s joins a body to itself", j->name);
        const int axial = j->type != KD_SJOINT_SPHERICAL && j->type != KD_SJOINT_DISTANCE;
        if (axial) {
            const double l = norm3(j->u[0]);
            if (!(l > 1e-12))
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "joint %s: the axis has zero length", j->name);
            for (int i = 0; i < 3; i++) j->u[0][i] /= l;
        } else
            j->u[0][2] = 1.0;
        /* f, g, u right-handed in body 0 */
        const double* u = j->u[0];
        int kmin = 0;
        for (int i = 1; i < 3; i++)
            if (fabs(u[i]) < fabs(u[kmin])) kmin = i;
        const double ek[3] = {kmin == 0, kmin == 1, kmin == 2};
        cross3(u, ek, j->f[0]);
        const double lf = norm3(j->f[0]);
        for (int i = 0; i < 3; i++) j->f[0][i] /= lf;
        cross3(u, j->f[0], j->g[0]);
        image(m, j->body[0], j->body[1], j->f[0], j->f[1]);
        image(m, j->body[0], j->body[1], j->g[0], j->g[1]);
        if (j->type == KD_SJOINT_UNIVERSAL) {
            const double l = norm3(j->u[1]);
            if (!(l > 1e-12))
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "joint %s: axis 2 has zero length", j->name);
            for (int i = 0; i < 3; i++) j->u[1][i] /= l;
            double a1[3];
            image(m, j->body[1], j->body[0], j->u[1], a1);
            if (fabs(a1[0] * u[0] + a1[1] * u[1] + a1[2] * u[2]) > 1e-6)
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                                    "joint %s: the universal joint's axes are not orthogonal in the initial pose "
                                    "(cos = %.3g)",
                                    j->name, a1[0] * u[0] + a1[1] * u[1] + a1[2] * u[2]);
        } else
            image(m, j->body[0], j->body[1], j->u[0], j->u[1]);
        if (j->type == KD_SJOINT_DISTANCE && !(j->length > 0)) {
            double r0[3], r1[3];
            kd_smech_point(m, j->body[0], j->s[0], m->q0, NULL, r0, NULL);
            kd_smech_point(m, j->body[1], j->s[1], m->q0, NULL, r1, NULL);
            const double d[3] = {r1[0] - r0[0], r1[1] - r0[1], r1[2] - r0[2]};
            j->length = norm3(d);
            if (!(j->length > 0))
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "joint %s: zero distance", j->name);
        }
        j->row = nc, j->nrow = kd_sjoint_rows(j->type);
        nc += j->nrow;
    }
    for (int f = 0; f < m->nforce; f++)
        for (int e = 0; e < 2; e++) to_com(m, m->force[f].body[e], m->force[f].s[e]);
    m->nc_joint = nc;
    m->nc_mech = nc + m->nbody;
    for (int d = 0; d < m->ndriver; d++) {
        kd_sdriver* dv = m->driver + d;
        if (dv->joint < 0 || dv->joint >= m->njoint)
            return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "driver %d: no such joint", d);
        const kd_sjoint_type t = m->joint[dv->joint].type;
        if (t != KD_SJOINT_REVOLUTE && t != KD_SJOINT_PRISMATIC && t != KD_SJOINT_CYLINDRICAL)
            return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                                "joint %s: only revolute, prismatic and cylindrical joints can be driven",
                                m->joint[dv->joint].name);
        m->joint[dv->joint].driver = d;
        dv->row = m->nc_mech + d;
    }
    m->nc = m->nc_mech + m->ndriver;
    m->length_scale = fmax(L, 1e-3);
    m->row_owner = malloc(sizeof(int) * (size_t)(m->nc + 1));
    m->jac_rowptr = malloc(sizeof(int) * (size_t)(m->nc + 1));
    m->jac_col = malloc(sizeof(int) * (size_t)(2 * KD_SPOSE * m->nc + 1));
    m->jac_slot = malloc(sizeof(int) * (size_t)(2 * KD_SPOSE * m->nc + 1));
    m->block_start = malloc(sizeof(int) * (size_t)(m->nbody + 1));
    m->jl_work = malloc(sizeof(double) * (size_t)(2 * SP_SLOTS * m->nc + 1));  /* local rows, then a CSR Phi_q */
    m->qa_work = malloc(sizeof(double) * (size_t)(m->n + 1));
    if (!m->row_owner || !m->jac_rowptr || !m->jac_col || !m->jac_slot || !m->block_start || !m->jl_work ||
        !m->qa_work)
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int k = 0; k < m->njoint; k++)
        for (int i = 0; i < m->joint[k].nrow; i++) m->row_owner[m->joint[k].row + i] = k;
    for (int b = 0; b < m->nbody; b++) m->row_owner[m->nc_joint + b] = -1 - b;
    for (int d = 0; d < m->ndriver; d++) m->row_owner[m->driver[d].row] = -(1 + m->nbody) - d;
    for (int b = 0; b <= m->nbody; b++) m->block_start[b] = KD_SPOSE * b;
    int nnz = 0;
    for (int r = 0; r < m->nc; r++) {
        m->jac_rowptr[r] = nnz;
        int b[2];
        row_bodies(m, r, b);
        const int first = (b[1] >= 0 && (b[0] < 0 || b[1] < b[0])) ? 1 : 0;
        for (int e = 0; e < 2; e++) {
            const int sl = e == 0 ? first : 1 - first;
            if (b[sl] < 0) continue;
            for (int i = 0; i < KD_SPOSE; i++) {
                m->jac_col[nnz] = KD_SPOSE * b[sl] + i;
                m->jac_slot[nnz] = KD_SPOSE * sl + i;
                nnz++;
            }
        }
    }
    m->jac_rowptr[m->nc] = nnz;
    m->jac_nnz = nnz;
    m->finished = 1;
    return KD_OK;
}

/* ---- the functions behind kd_cms ---------------------------------------------------------- */

void kd_smech_phi(const kd_smech* m, double t, const double* q, double* phi) {
    sp_rows_all(m, t, q, NULL, phi, NULL, NULL, NULL);
}

void kd_smech_jacobian(const kd_smech* m, double t, const double* q, double* jac) {
    sp_rows_all(m, t, q, NULL, NULL, m->jl_work, NULL, NULL);
    for (int r = 0; r < m->nc; r++)
        for (int k = m->jac_rowptr[r]; k < m->jac_rowptr[r + 1]; k++)
            jac[k] = m->jl_work[(size_t)SP_SLOTS * r + m->jac_slot[k]];
}

void kd_smech_jacobian_phi_t(const kd_smech* m, double t, const double* q, double* jac, double* phi_t) {
    sp_rows_all(m, t, q, NULL, NULL, m->jl_work, phi_t, NULL);
    for (int r = 0; r < m->nc; r++)
        for (int k = m->jac_rowptr[r]; k < m->jac_rowptr[r + 1]; k++)
            jac[k] = m->jl_work[(size_t)SP_SLOTS * r + m->jac_slot[k]];
}

void kd_smech_phi_t(const kd_smech* m, double t, const double* q, double* phi_t) {
    sp_rows_all(m, t, q, NULL, NULL, NULL, phi_t, NULL);
}

void kd_smech_gamma(const kd_smech* m, double t, const double* q, const double* qd, double* gamma) {
    sp_rows_all(m, t, q, qd, NULL, NULL, NULL, gamma);
}

void kd_smech_jac_dense(const kd_smech* m, const double* jac, int nrow, double* A, int ld) {
    for (int c = 0; c < m->n; c++)
        for (int r = 0; r < nrow; r++) A[(size_t)c * ld + r] = 0.0;
    for (int r = 0; r < nrow; r++)
        for (int k = m->jac_rowptr[r]; k < m->jac_rowptr[r + 1]; k++) A[(size_t)m->jac_col[k] * ld + r] = jac[k];
}

/* c of the mass block's c p p^T (S7) */
static double norm_mass(const double* J) { return 4.0 * (J[0] + J[4] + J[8]) / 3.0; }

/* Mass block of body b: diag(m I3, 4 G^T J G + c p p^T), 7 x 7 column-major (S7). */
void kd_smech_mass_blocks(const kd_smech* m, const double* q, double* blocks) {
    for (int b = 0; b < m->nbody; b++) {
        double* B = blocks + (size_t)KD_SPOSE * KD_SPOSE * b;
        memset(B, 0, sizeof(double) * KD_SPOSE * KD_SPOSE);
        for (int i = 0; i < 3; i++) B[i * KD_SPOSE + i] = m->mass[b];
        const double* p = q + KD_SPOSE * b + 3;
        const double* J = m->J + 9 * b;
        const double c = norm_mass(J);
        double G[3][4], JG[3][4];
        sp_G(p, G);
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 4; k++) JG[i][k] = J[3 * i] * G[0][k] + J[3 * i + 1] * G[1][k] + J[3 * i + 2] * G[2][k];
        for (int k = 0; k < 4; k++)
            for (int l = 0; l < 4; l++)
                B[(3 + l) * KD_SPOSE + 3 + k] =
                    4.0 * (G[0][k] * JG[0][l] + G[1][k] * JG[1][l] + G[2][k] * JG[2][l]) + c * p[k] * p[l];
    }
}

/* Q_p += J_a^T F for a force F at the point term a (S8) */
static void add_point_force(const sp_vterm* a, const double F[3], double* Q) {
    if (a->body < 0) return;
    double* x = Q + KD_SPOSE * a->body;
    for (int i = 0; i < 3; i++) x[i] += F[i];
    for (int k = 0; k < 4; k++) x[3 + k] += a->J[0][k] * F[0] + a->J[1][k] * F[1] + a->J[2][k] * F[2];
}

/* The applied forces alone (gravity, torques, point forces, springs) as generalised forces on the
 * coordinates, without the quadratic-velocity terms of kd_smech_force: the formalism routes that
 * form their own inertia forces (src/formalisms/smech_routes.c) start from these. */
void kd_smech_applied(const kd_smech* m, double t, const double* q, const double* qd, double* Q) {
    memset(Q, 0, sizeof(double) * (size_t)m->n);
    for (int b = 0; b < m->nbody; b++)
        for (int i = 0; i < 3; i++) Q[KD_SPOSE * b + i] += m->mass[b] * m->g[i];
    for (int f = 0; f < m->nforce; f++) {
        const kd_sforce* F = m->force + f;
        double v[3] = {0, 0, 0};
        if (F->type != KD_SFORCE_SPRING)
            for (int c = 0; c < 3; c++) {
                double d1, d2;
                kd_law_eval(&F->value[c], t, v + c, &d1, &d2);
            }
        if (F->type == KD_SFORCE_TORQUE) {
            if (F->body[0] < 0) continue;
            /* virtual rotation 2 E(p) dp: Q_p = 2 E^T n (S8) */
            double E[3][4];
            sp_E(q + KD_SPOSE * F->body[0] + 3, E);
            double* x = Q + KD_SPOSE * F->body[0];
            for (int k = 0; k < 4; k++) x[3 + k] += 2.0 * (E[0][k] * v[0] + E[1][k] * v[1] + E[2][k] * v[2]);
        } else if (F->type == KD_SFORCE_FORCE) {
            sp_vterm a;
            sp_term(m, F->body[0], F->s[0], 1, q, NULL, &a);
            add_point_force(&a, v, Q);
        } else {
            sp_vterm a, b;
            sp_term(m, F->body[0], F->s[0], 1, q, qd, &a);
            sp_term(m, F->body[1], F->s[1], 1, q, qd, &b);
            const double d[3] = {b.v[0] - a.v[0], b.v[1] - a.v[1], b.v[2] - a.v[2]};
            const double dd[3] = {b.vd[0] - a.vd[0], b.vd[1] - a.vd[1], b.vd[2] - a.vd[2]};
            const double l = norm3(d);
            if (!(l > 0)) continue;
            const double fs = F->k * (l - F->length) + F->c * (d[0] * dd[0] + d[1] * dd[1] + d[2] * dd[2]) / l;
            const double Fb[3] = {-fs * d[0] / l, -fs * d[1] / l, -fs * d[2] / l};
            const double Fa[3] = {-Fb[0], -Fb[1], -Fb[2]};
            add_point_force(&a, Fa, Q);
            add_point_force(&b, Fb, Q);
        }
    }
}

void kd_smech_force(const kd_smech* m, double t, const double* q, const double* qd, double* Q) {
    kd_smech_applied(m, t, q, qd, Q);
    for (int b = 0; b < m->nbody; b++) {
        double* x = Q + KD_SPOSE * b;
        /* quadratic velocity 8 G(p')^T J G(p') p - c p (p'.p') (S7) */
        const double* p = q + KD_SPOSE * b + 3;
        const double* pd = qd + KD_SPOSE * b + 3;
        const double* J = m->J + 9 * b;
        double Gd[3][4], w[3], Jw[3];
        sp_G(pd, Gd);
        for (int i = 0; i < 3; i++) w[i] = Gd[i][0] * p[0] + Gd[i][1] * p[1] + Gd[i][2] * p[2] + Gd[i][3] * p[3];
        for (int i = 0; i < 3; i++) Jw[i] = J[3 * i] * w[0] + J[3 * i + 1] * w[1] + J[3 * i + 2] * w[2];
        const double pdpd = pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3];
        const double c = norm_mass(J);
        for (int k = 0; k < 4; k++)
            x[3 + k] += 8.0 * (Gd[0][k] * Jw[0] + Gd[1][k] * Jw[1] + Gd[2][k] * Jw[2]) - c * p[k] * pdpd;
    }
}

double kd_smech_kinetic(const kd_smech* m, const double* q, const double* qd) {
    double T = 0;
    for (int b = 0; b < m->nbody; b++) {
        const double* v = qd + KD_SPOSE * b;
        T += 0.5 * m->mass[b] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        double G[3][4], w[3];
        sp_G(q + KD_SPOSE * b + 3, G);
        for (int i = 0; i < 3; i++)
            w[i] = 2.0 * (G[i][0] * v[3] + G[i][1] * v[4] + G[i][2] * v[5] + G[i][3] * v[6]);
        const double* J = m->J + 9 * b;
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) T += 0.5 * w[i] * J[3 * i + k] * w[k];
    }
    return T;
}

double kd_smech_potential(const kd_smech* m, const double* q) {
    double V = 0;
    for (int b = 0; b < m->nbody; b++)
        for (int i = 0; i < 3; i++) V -= m->mass[b] * m->g[i] * q[KD_SPOSE * b + i];
    for (int f = 0; f < m->nforce; f++) {
        const kd_sforce* F = m->force + f;
        if (F->type != KD_SFORCE_SPRING) continue;
        double a[3], b[3];
        kd_smech_point(m, F->body[0], F->s[0], q, NULL, a, NULL);
        kd_smech_point(m, F->body[1], F->s[1], q, NULL, b, NULL);
        const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double e = norm3(d) - F->length;
        V += 0.5 * F->k * e * e;
    }
    return V;
}

/* ---- kd_cms ----------------------------------------------------------------------------- */

static int cb_phi(void* c, double t, const double* q, double* phi) {
    kd_smech_phi(c, t, q, phi);
    return 0;
}
static int cb_jac(void* c, double t, const double* q, double* jac) {
    kd_smech_jacobian(c, t, q, jac);
    return 0;
}
static int cb_phi_t(void* c, double t, const double* q, double* phi_t) {
    kd_smech_phi_t(c, t, q, phi_t);
    return 0;
}
static int cb_gamma(void* c, double t, const double* q, const double* qd, double* g) {
    kd_smech_gamma(c, t, q, qd, g);
    return 0;
}
static int cb_force(void* c, double t, const double* q, const double* qd, double* Q) {
    kd_smech_force(c, t, q, qd, Q);
    return 0;
}
static int cb_mass(void* c, double t, const double* q, double* blocks) {
    (void)t;
    kd_smech_mass_blocks(c, q, blocks);
    return 0;
}

void kd_smech_cms(const kd_smech* m, kd_cms* cms) {
    memset(cms, 0, sizeof(*cms));
    cms->n = m->n, cms->nc = m->nc;
    cms->jac_nnz = m->jac_nnz, cms->jac_rowptr = m->jac_rowptr, cms->jac_col = m->jac_col;
    cms->ctx = (void*)m;
    cms->phi = cb_phi, cms->jacobian = cb_jac, cms->phi_t = cb_phi_t, cms->gamma = cb_gamma, cms->force = cb_force;
    cms->nblocks = m->nbody, cms->block_start = m->block_start, cms->mass_blocks = cb_mass;
}
