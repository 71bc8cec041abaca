/* A mechanism in the animation (kedyn/report.h, src/output/anim_mech.h): the
 * drawing of each body from its named points and joints, and its pose at
 * each recorded instant from the mechanism coordinates (x, y, phi of each
 * centre of mass, kedyn/mech.h). */
#include "anim_mech.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- poses ----------------------------------------------------------------- */

void anim_mech_body_pose(const kd_desc* d, const kd_mech* m, int b, const double* q, double pose[12]) {
    /* A point p of the body sits at r_G + A(phi) (p - com): the frame origin
     * (p = 0) is r_G - A(phi) com, the rotation A(phi) = Rz(phi). */
    const kd_body_desc* bd = &d->bodies[m->body_desc[b]];
    /* a link (a beam in joints) moves as a rigid body whose frame is the beam's: origin at its
     * first point, centre of mass at (L/2, 0) (kd_mech_link_rigid, kedyn/mech.h) */
    const double link_com[3] = {0.5 * bd->length, 0.0, 0.0};
    const double* com = bd->type == KD_BODY_BEAM ? link_com : bd->com;
    const double c = cos(q[3 * b + 2]), s = sin(q[3 * b + 2]);
    const double o[12] = {q[3 * b] - (c * com[0] - s * com[1]), q[3 * b + 1] - (s * com[0] + c * com[1]), 0.0,
                          c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0};
    memcpy(pose, o, sizeof(o));
}

void anim_mech_pose(const kd_desc* d, const kd_model* model, const kd_mech* m, const double* q, double* pose) {
    static const double identity[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < d->nbodies; i++) {
        double* p = pose + 12 * (size_t)i;
        memcpy(p, identity, sizeof(identity));
        if (model && i < model->nbody && model->body[i].type == KD_BODY_BEAM) {
            memcpy(p, model->body[i].origin, 3 * sizeof(double));
            memcpy(p + 3, model->body[i].rot, 9 * sizeof(double));
        }
    }
    for (int b = 0; b < m->nbody; b++) anim_mech_body_pose(d, m, b, q, pose + 12 * (size_t)m->body_desc[b]);
}

kd_status anim_mech_init(anim_mech* a, kd_anim_recorder* rec, const kd_desc* d, const kd_mech* m,
                            kd_error* err) {
    memset(a, 0, sizeof(*a));
    if (!rec) return KD_OK;
    a->pose = malloc(sizeof(double) * 12 * (size_t)(d->nbodies ? d->nbodies : 1));
    if (!a->pose) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    a->rec = rec, a->d = d, a->m = m, a->model = kd_anim_recorder_model(rec);
    anim_mech_pose(d, a->model, m, m->q0, a->pose);  /* the fixed frames, once */
    return KD_OK;
}

void anim_mech_offer(anim_mech* a, double t, const double* q) {
    if (!a || !kd_anim_recorder_due(a->rec, t)) return;
    for (int b = 0; b < a->m->nbody; b++)
        anim_mech_body_pose(a->d, a->m, b, q, a->pose + 12 * (size_t)a->m->body_desc[b]);
    kd_anim_record_pose(a->rec, t, a->pose, NULL);
}

void anim_mech_free(anim_mech* a) {
    if (!a) return;
    free(a->pose);
    memset(a, 0, sizeof(*a));
}

/* ---- shapes ---------------------------------------------------------------- */

/* Point of body b in global coordinates in the initial guess (ground points
 * are global; a rigid body's are in its frame at position, angle). */
static void guess_global(const kd_body_desc* b, const double* p, double g[2]) {
    if (b->type != KD_BODY_RIGID) {
        g[0] = p[0], g[1] = p[1];
        return;
    }
    const double c = cos(b->angle), s = sin(b->angle);
    g[0] = b->position[0] + c * p[0] - s * p[1];
    g[1] = b->position[1] + s * p[0] + c * p[1];
}

/* Index of the point (x, y) in s, added when new; -1 when s is full. */
static int shape_point(kd_anim_shape* s, double x, double y) {
    for (int i = 0; i < s->npoints; i++)
        if (fabs(s->point[i][0] - x) <= 1e-12 && fabs(s->point[i][1] - y) <= 1e-12) return i;
    if (s->npoints >= KD_ANIM_SHAPE_POINTS) return -1;
    s->point[s->npoints][0] = x, s->point[s->npoints][1] = y, s->point[s->npoints][2] = 0.0;
    return s->npoints++;
}

static int shape_new_point(kd_anim_shape* s, double x, double y) {
    if (s->npoints >= KD_ANIM_SHAPE_POINTS) return -1;
    s->point[s->npoints][0] = x, s->point[s->npoints][1] = y, s->point[s->npoints][2] = 0.0;
    return s->npoints++;
}

static void shape_path(kd_anim_shape* s, const int* idx, int n) {
    const int at = s->path_start[s->npaths];
    if (s->npaths >= KD_ANIM_SHAPE_PATHS || at + n > 2 * KD_ANIM_SHAPE_POINTS) return;
    for (int i = 0; i < n; i++)
        if (idx[i] < 0) return;
    memcpy(s->path_index + at, idx, sizeof(int) * (size_t)n);
    s->path_start[++s->npaths] = at + n;
}

static void shape_mark(int* marks, int* n, int idx) {
    if (idx < 0) return;
    for (int i = 0; i < *n; i++)
        if (marks[i] == idx) return;
    if (*n < KD_ANIM_SHAPE_MARKS) marks[(*n)++] = idx;
}

/* A rectangle of half-sizes a (along u) and h about c, closed. */
static void shape_block(kd_anim_shape* s, const double c[2], const double u[2], double a, double h) {
    int idx[4];
    static const double sg[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++)
        idx[k] = shape_new_point(s, c[0] + sg[k][0] * a * u[0] - sg[k][1] * h * u[1],
                                 c[1] + sg[k][0] * a * u[1] + sg[k][1] * h * u[0]);
    shape_path(s, idx, 4);
    s->closed = 1;
}

/* A circle of radius r about c (24 sides), closed. */
static void shape_disc(kd_anim_shape* s, const double c[2], double r) {
    int idx[24];
    for (int k = 0; k < 24; k++) {
        const double a = 2 * 3.14159265358979323846 * k / 24;
        idx[k] = shape_new_point(s, c[0] + r * cos(a), c[1] + r * sin(a));
    }
    shape_path(s, idx, 24);
    s->closed = 1;
}

/* The outline of rigid body b through its distinct named points p0..pn-1
 * (indices 0..n-1 of s): a bar for two, a line in order along it when they
 * are collinear, else a plate through them ordered by angle about their
 * centroid. */
static void shape_outline(kd_anim_shape* s, int n) {
    int idx[KD_POINTS_MAX];
    double key[KD_POINTS_MAX];
    double cx = 0, cy = 0, far = 0;
    int fa = 0, fb = n > 1 ? 1 : 0;
    for (int i = 0; i < n; i++) cx += s->point[i][0] / n, cy += s->point[i][1] / n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const double dd = hypot(s->point[j][0] - s->point[i][0], s->point[j][1] - s->point[i][1]);
            if (dd > far) far = dd, fa = i, fb = j;
        }
    const double ux = far > 0 ? (s->point[fb][0] - s->point[fa][0]) / far : 1.0;
    const double uy = far > 0 ? (s->point[fb][1] - s->point[fa][1]) / far : 0.0;
    double off = 0;  /* largest distance from the line through the farthest pair */
    for (int i = 0; i < n; i++)
        off = fmax(off, fabs(-(s->point[i][0] - s->point[fa][0]) * uy + (s->point[i][1] - s->point[fa][1]) * ux));
    const int line = off <= 1e-6 * (far > 0 ? far : 1.0);
    for (int i = 0; i < n; i++) {
        idx[i] = i;
        key[i] = line ? (s->point[i][0] - s->point[fa][0]) * ux + (s->point[i][1] - s->point[fa][1]) * uy
                      : atan2(s->point[i][1] - cy, s->point[i][0] - cx);
    }
    for (int i = 1; i < n; i++)  /* insertion sort by key */
        for (int j = i; j > 0 && key[j] < key[j - 1]; j--) {
            const double tk = key[j];
            const int ti = idx[j];
            key[j] = key[j - 1], idx[j] = idx[j - 1], key[j - 1] = tk, idx[j - 1] = ti;
        }
    shape_path(s, idx, n);
    s->closed = !line;
}

/* Direction of joint j's axis in the frame of body b (one of its bodies).
 * The axis is given in the first body's frame; the joint keeps the relative
 * angle, so the guess angles convert it. */
static void joint_axis_in(const kd_desc* d, const kd_joint_desc* j, int b, double u[2]) {
    const kd_body_desc* b0 = &d->bodies[j->body[0]];
    const double a0 = b0->type == KD_BODY_RIGID ? b0->angle : 0.0;
    const double ab = d->bodies[b].type == KD_BODY_RIGID ? d->bodies[b].angle : 0.0;
    const double n = hypot(j->axis[0], j->axis[1]);
    const double ax = n > 0 ? j->axis[0] / n : 1.0, ay = n > 0 ? j->axis[1] / n : 0.0;
    const double c = cos(a0 - ab), s = sin(a0 - ab);
    u[0] = c * ax - s * ay, u[1] = s * ax + c * ay;
}

void kd_anim_mech_shapes(const kd_desc* d, kd_anim_shape* shapes) {
    /* The size of the mechanism in its initial guess: blocks and rails scale with it. */
    double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
    for (int b = 0; b < d->nbodies; b++) {
        const kd_body_desc* bd = &d->bodies[b];
        if (bd->type == KD_BODY_BEAM) continue;
        for (int p = 0; p < bd->npoints; p++) {
            double g[2];
            guess_global(bd, bd->points[p].x, g);
            for (int k = 0; k < 2; k++) lo[k] = fmin(lo[k], g[k]), hi[k] = fmax(hi[k], g[k]);
        }
    }
    double size = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    if (!(size > 0) || !isfinite(size)) size = 1.0;

    for (int b = 0; b < d->nbodies; b++) {
        kd_anim_shape* s = &shapes[b];
        memset(s, 0, sizeof(*s));
        const kd_body_desc* bd = &d->bodies[b];
        if (bd->type == KD_BODY_BEAM) continue;
        if (bd->type == KD_BODY_RIGID) {
            for (int p = 0; p < bd->npoints; p++) shape_point(s, bd->points[p].x[0], bd->points[p].x[1]);
            const int n = s->npoints;
            if (n >= 2) shape_outline(s, n);
            /* one point (or none): a block on it, along its slide; a disc when it rolls */
            double c[2] = {n ? s->point[0][0] : bd->com[0], n ? s->point[0][1] : bd->com[1]}, u[2] = {1, 0};
            double radius = 0;
            int slides = 0;
            for (int j = 0; j < d->njoints; j++) {
                const kd_joint_desc* jd = &d->joints[j];
                if (jd->type == KD_JOINT_PRISMATIC && (jd->body[0] == b || jd->body[1] == b))
                    joint_axis_in(d, jd, b, u), slides = 1;
                if (jd->type == KD_JOINT_ROLLING && jd->body[1] == b) {
                    radius = jd->radius;
                    c[0] = bd->points[jd->point[1]].x[0], c[1] = bd->points[jd->point[1]].x[1];
                }
            }
            if (radius > 0) shape_disc(s, c, radius);
            else if (n < 2 && slides) shape_block(s, c, u, 0.08 * size, 0.045 * size);
            else if (n < 2) shape_disc(s, c, 0.03 * size);  /* a hub, a lumped mass */
            if (n == 0) shape_mark(s->joint, &s->njoints, shape_point(s, c[0], c[1]));
            /* named points where no joint is (coupler points): their paths are drawn */
            for (int p = 0; p < bd->npoints; p++) {
                int used = 0;
                for (int j = 0; j < d->njoints && !used; j++)
                    for (int k = 0; k < 2; k++) used |= d->joints[j].body[k] == b && d->joints[j].point[k] == p;
                if (!used) shape_mark(s->trace, &s->ntrace, shape_point(s, bd->points[p].x[0], bd->points[p].x[1]));
            }
        }
        /* joints of the body: circles; the ground's pivots hatched, its slides as rails */
        for (int j = 0; j < d->njoints; j++) {
            const kd_joint_desc* jd = &d->joints[j];
            for (int k = 0; k < 2; k++) {
                if (jd->body[k] != b) continue;
                const double* p = bd->points[jd->point[k]].x;
                const int slide = jd->type == KD_JOINT_PRISMATIC || jd->type == KD_JOINT_ROLLING;
                if (bd->type != KD_BODY_GROUND || !slide || k != 0) {
                    const int idx = shape_point(s, p[0], p[1]);
                    shape_mark(s->joint, &s->njoints, idx);
                    if (bd->type == KD_BODY_GROUND) shape_mark(s->hatch, &s->nhatch, idx);
                    continue;
                }
                /* a rail along the axis through the point, spanning the mechanism */
                double u[2];
                joint_axis_in(d, jd, b, u);
                double t0 = 0, t1 = 0;
                for (int o = 0; o < d->nbodies; o++) {
                    const kd_body_desc* ob = &d->bodies[o];
                    if (ob->type == KD_BODY_BEAM) continue;
                    for (int q = 0; q < ob->npoints; q++) {
                        double g[2];
                        guess_global(ob, ob->points[q].x, g);
                        const double tt = (g[0] - p[0]) * u[0] + (g[1] - p[1]) * u[1];
                        t0 = fmin(t0, tt), t1 = fmax(t1, tt);
                    }
                }
                const double pad = 0.1 * (t1 - t0) + 0.1 * size;
                int rail[2] = {shape_new_point(s, p[0] + (t0 - pad) * u[0], p[1] + (t0 - pad) * u[1]),
                               shape_new_point(s, p[0] + (t1 + pad) * u[0], p[1] + (t1 + pad) * u[1])};
                shape_path(s, rail, 2);
            }
        }
    }
}
