/* The animation data: drawing points of every body, the pose of its frame
 * and the displacements of its points, per mode or per instant
 * (kedyn/report.h; format in docs/cli.md, "animation.json"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "output_util.h"
#include "core/util.h"
#include "kedyn/element.h"
#include "kedyn/frame.h"
#include "kedyn/modes.h"
#include "kedyn/report.h"

/* Most points drawn along one beam. A beam is drawn through points inside
 * its elements, where the element's own shape functions give the
 * displacement (theory.md sec. 5: cubic or quintic Hermite, Timoshenko
 * fields), so a coarse mesh still bends smoothly; a mesh with more elements
 * than that is drawn through every k-th node. */
#define ANIM_POINTS_PER_BEAM 201
#define ANIM_SUBDIVISIONS 6
/* Memory bound of one recorder, doubles. */
#define ANIM_BUDGET 8000000L

/* Pose of a body's frame: origin (3) then rotation (9, row-major). */
#define POSE_N 12

/* A drawing point: element e at xi in [0, 1]. */
typedef struct anim_point {
    int elem;
    double xi;
    int node;                     /* 1-based node number in its body when at a node, else 0 */
} anim_point;

struct kd_anim_recorder {
    const kd_model* m;            /* NULL: poses only (kd_anim_recorder_new_poses) */
    int npose;                    /* bodies with a pose per instant */
    int npoints;                  /* drawing points over all bodies */
    int* eqs;                     /* (npoints x KD_ELEM_DOF_MAX) element equations, -1 fixed */
    double* N;                    /* (npoints x 3 x KD_ELEM_DOF_MAX) u, v, w shape functions */
    int* pose_points;             /* (npose) a pose recorder's drawing points per body with
                                     displacements (kd_anim_recorder_pose_points), or NULL */
    int frame_size;               /* doubles per instant: nbody poses + 3 npoints */
    int cap, nframes;
    double t_end, dt_frame, next_t;
    double* t;                    /* (cap) */
    double* data;                 /* (cap x frame_size) poses, then displacements */
};

/* Most nodes of a plate drawn (its mesh, node by node); a finer mesh is not
 * drawn (its VTK files are the way to see it). */
#define ANIM_PLATE_NODES_MAX 2500

/* Drawing points of body b; returns the count. Beams: points along the
 * axis; plates: their nodes (elem -1, node the model's node index + 1); a
 * ground has none. pts may be NULL to count. */
static int body_points(const kd_model* m, int b, anim_point* pts) {
    const kd_body* body = &m->body[b];
    if (body->type == KD_BODY_PLATE) {
        if (body->node_num > ANIM_PLATE_NODES_MAX) return 0;
        for (int k = 0; pts && k < body->node_num; k++) pts[k] = (anim_point){-1, 0.0, body->node_adr + k + 1};
        return body->node_num;
    }
    if (body->type != KD_BODY_BEAM || body->elem_num < 1) return 0;
    const int ne = body->elem_num;
    int n = 0;
    if (ne * ANIM_SUBDIVISIONS <= ANIM_POINTS_PER_BEAM - 1) {
        const int sub = (ANIM_POINTS_PER_BEAM - 1) / ne < ANIM_SUBDIVISIONS ? (ANIM_POINTS_PER_BEAM - 1) / ne
                                                                             : ANIM_SUBDIVISIONS;
        for (int e = 0; e < ne; e++)
            for (int j = 0; j < sub; j++, n++)
                if (pts) pts[n] = (anim_point){body->elem_adr + e, (double)j / sub, j == 0 ? e + 1 : 0};
    } else {
        const int stride = (ne + ANIM_POINTS_PER_BEAM - 2) / (ANIM_POINTS_PER_BEAM - 1);
        for (int e = 0; e < ne; e += stride, n++)
            if (pts) pts[n] = (anim_point){body->elem_adr + e, 0.0, e + 1};
    }
    if (pts) pts[n] = (anim_point){body->elem_adr + ne - 1, 1.0, ne + 1};
    return n + 1;
}

/* Shape functions of the u, v, w fields at a point and its element's
 * equations. */
static void point_shape(const kd_model* m, const anim_point* p, double N3[3][KD_ELEM_DOF_MAX],
                        int eqs[KD_ELEM_DOF_MAX]) {
    if (p->elem < 0) {  /* a node: its own translations u, v, w */
        const int n = p->node - 1, nd = m->node_dof_num[n];
        for (int a = 0; a < KD_ELEM_DOF_MAX; a++) {
            eqs[a] = a < nd ? m->dof_eq[m->node_dof_adr[n] + a] : -1;
            for (int f = 0; f < 3; f++) N3[f][a] = a < nd && (int)m->dof_name[m->node_dof_adr[n] + a] == f ? 1.0 : 0.0;
        }
        return;
    }
    const kd_element_props* pr = &m->prop[m->elem_prop[p->elem]];
    const double xi[3] = {p->xi, 0.0, 0.0};
    kd_element_point pt;
    pr->family->eval(pr, xi, &pt);  /* the displacement of the axis point: N0 */
    const int nd = kd_model_elem_eqs(m, p->elem, eqs);
    for (int a = nd; a < KD_ELEM_DOF_MAX; a++) eqs[a] = -1;
    for (int f = 0; f < 3; f++)
        for (int a = 0; a < KD_ELEM_DOF_MAX; a++) N3[f][a] = a < nd ? pt.N0[f][a] : 0.0;
}

/* Displacement (u, v, w) in the body frame: the element fields at the
 * point from the reduced vector q (fixed DOFs are 0). */
static void point_disp(const double N3[3][KD_ELEM_DOF_MAX], const int eqs[KD_ELEM_DOF_MAX], const double* q,
                       double u[3]) {
    for (int f = 0; f < 3; f++) {
        double s = 0.0;
        for (int a = 0; a < KD_ELEM_DOF_MAX; a++)
            if (eqs[a] >= 0) s += N3[f][a] * q[eqs[a]];
        u[f] = s;
    }
}

/* Pose of every body at time t into pose (nbody x POSE_N). */
static void body_poses(const kd_model* m, double t, double* pose) {
    for (int b = 0; b < m->nbody; b++) {
        kd_frame f;
        kd_motion_eval(&m->body[b].motion, m->body[b].rot, m->body[b].origin, t, &f);
        memcpy(pose + (size_t)b * POSE_N, f.rO, 3 * sizeof(double));
        memcpy(pose + (size_t)b * POSE_N + 3, f.R, 9 * sizeof(double));
    }
}

kd_status kd_anim_recorder_new(const kd_model* m, double t_end, kd_anim_recorder** out, kd_error* err) {
    *out = NULL;
    kd_anim_recorder* r = calloc(1, sizeof(*r));
    if (!r) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    r->m = m;
    r->npose = m->nbody;
    for (int b = 0; b < m->nbody; b++) r->npoints += body_points(m, b, NULL);
    const size_t np1 = (size_t)(r->npoints ? r->npoints : 1);
    r->eqs = malloc(sizeof(int) * np1 * KD_ELEM_DOF_MAX);
    r->N = malloc(sizeof(double) * np1 * 3 * KD_ELEM_DOF_MAX);
    anim_point* pts = malloc(sizeof(anim_point) * np1);
    r->frame_size = POSE_N * m->nbody + 3 * r->npoints;
    long cap = ANIM_BUDGET / (r->frame_size ? r->frame_size : 1);
    r->cap = (int)(cap > KD_ANIM_FRAMES_MAX ? KD_ANIM_FRAMES_MAX : (cap < 2 ? 2 : cap));
    r->t = malloc(sizeof(double) * (size_t)r->cap);
    r->data = malloc(sizeof(double) * (size_t)r->cap * (size_t)r->frame_size);
    if (!r->eqs || !r->N || !pts || !r->t || !r->data) {
        free(pts);
        kd_anim_recorder_free(&r);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    int np = 0;
    for (int b = 0; b < m->nbody; b++) np += body_points(m, b, pts + np);
    for (int p = 0; p < np; p++)
        point_shape(m, &pts[p], (double(*)[KD_ELEM_DOF_MAX])(r->N + (size_t)p * 3 * KD_ELEM_DOF_MAX),
                    r->eqs + (size_t)p * KD_ELEM_DOF_MAX);
    free(pts);
    r->t_end = t_end;
    r->dt_frame = t_end / (r->cap - 1);
    r->next_t = 0.0;
    *out = r;
    return KD_OK;
}

kd_status kd_anim_recorder_new_poses(int nbody, double t_end, kd_anim_recorder** out, kd_error* err) {
    *out = NULL;
    kd_anim_recorder* r = calloc(1, sizeof(*r));
    if (!r) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    r->npose = nbody;
    r->frame_size = POSE_N * nbody;
    long cap = ANIM_BUDGET / (r->frame_size ? r->frame_size : 1);
    r->cap = (int)(cap > KD_ANIM_FRAMES_MAX ? KD_ANIM_FRAMES_MAX : (cap < 2 ? 2 : cap));
    r->t = malloc(sizeof(double) * (size_t)r->cap);
    r->data = malloc(sizeof(double) * (size_t)r->cap * (size_t)(r->frame_size ? r->frame_size : 1));
    if (!r->t || !r->data) {
        kd_anim_recorder_free(&r);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    r->t_end = t_end;
    r->dt_frame = t_end / (r->cap - 1);
    *out = r;
    return KD_OK;
}

kd_status kd_anim_recorder_pose_points(kd_anim_recorder* r, const int* npoints, kd_error* err) {
    if (r->m || r->nframes > 0) return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "not a fresh pose recorder");
    int np = 0;
    for (int b = 0; b < r->npose; b++) np += npoints[b];
    const int fs = POSE_N * r->npose + 3 * np;
    long cap = ANIM_BUDGET / (fs ? fs : 1);
    cap = cap > KD_ANIM_FRAMES_MAX ? KD_ANIM_FRAMES_MAX : (cap < 2 ? 2 : cap);
    int* pp = malloc(sizeof(int) * (size_t)(r->npose ? r->npose : 1));
    double* t = malloc(sizeof(double) * (size_t)cap);
    double* data = malloc(sizeof(double) * (size_t)cap * (size_t)(fs ? fs : 1));
    if (!pp || !t || !data) {
        free(pp), free(t), free(data);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    memcpy(pp, npoints, sizeof(int) * (size_t)r->npose);
    free(r->pose_points), free(r->t), free(r->data);
    r->pose_points = pp, r->t = t, r->data = data;
    r->npoints = np, r->frame_size = fs, r->cap = (int)cap;
    r->dt_frame = r->t_end / (r->cap - 1);
    return KD_OK;
}

int kd_anim_recorder_due(const kd_anim_recorder* r, double t) {
    /* Half a percent of a frame interval absorbs round-off in output times. */
    return r && r->nframes < r->cap && t >= r->next_t - 5e-3 * r->dt_frame;
}

void kd_anim_recorder_start_at(kd_anim_recorder* r, double t0) {
    if (!r || r->nframes > 0) return;
    r->t_end += t0 - r->next_t;
    r->next_t = t0;
}

void kd_anim_record(kd_anim_recorder* r, double t, const double* q) { kd_anim_record_pose(r, t, NULL, q); }

void kd_anim_record_pose(kd_anim_recorder* r, double t, const double* pose, const double* q) {
    if (!kd_anim_recorder_due(r, t)) return;
    double* row = r->data + (size_t)r->nframes * (size_t)r->frame_size;
    if (pose) memcpy(row, pose, sizeof(double) * POSE_N * (size_t)r->npose);
    else if (r->m) body_poses(r->m, t, row);
    double* disp = row + (size_t)POSE_N * r->npose;
    if (q && r->m)
        for (int p = 0; p < r->npoints; p++)
            point_disp((const double(*)[KD_ELEM_DOF_MAX])(r->N + (size_t)p * 3 * KD_ELEM_DOF_MAX),
                       r->eqs + (size_t)p * KD_ELEM_DOF_MAX, q, disp + 3 * p);
    else if (q)  /* a pose recorder's points: their displacements as given */
        memcpy(disp, q, sizeof(double) * 3 * (size_t)r->npoints);
    else
        memset(disp, 0, sizeof(double) * 3 * (size_t)r->npoints);
    r->t[r->nframes++] = t;
    /* The next instant on the grid after t (outputs may be coarser than it). */
    while (r->next_t <= t + 5e-3 * r->dt_frame) r->next_t += r->dt_frame;
}

int kd_anim_recorder_frames(const kd_anim_recorder* r) { return r ? r->nframes : 0; }

const kd_model* kd_anim_recorder_model(const kd_anim_recorder* r) { return r ? r->m : NULL; }

void kd_anim_recorder_free(kd_anim_recorder** r) {
    if (!r || !*r) return;
    free((*r)->eqs);
    free((*r)->N);
    free((*r)->pose_points);
    free((*r)->t);
    free((*r)->data);
    free(*r);
    *r = NULL;
}

/* ---- writing ------------------------------------------------------------ */

/* Numbers with 6 significant digits: ample for a drawing, and compact (a
 * non-finite value drawn as 0). */
static void json_numbers(FILE* fp, const double* v, int n) { util_json_numbers(fp, "%.6g", ",", v, n, "0"); }

static const char* body_type_name(kd_body_type t) {
    switch (t) {
    case KD_BODY_BEAM: return "beam";
    case KD_BODY_RIGID: return "rigid";
    case KD_BODY_PLATE: return "plate";
    case KD_BODY_GROUND: break;
    }
    return "ground";
}

static void json_indices(FILE* fp, const int* v, int n) {
    fputc('[', fp);
    for (int i = 0; i < n; i++) fprintf(fp, i ? ",%d" : "%d", v[i]);
    fputc(']', fp);
}

/* A body drawn by its shape (rigid bodies, the ground of a mechanism):
 * outline points, paths through them, joint and support marks. */
static void write_shape(FILE* fp, const kd_anim_shape* s) {
    fprintf(fp, ", \"points\": [");
    for (int p = 0; p < s->npoints; p++)
        fprintf(fp, "%s[%.9g,%.9g,%.9g]", p ? "," : "", s->point[p][0], s->point[p][1], s->point[p][2]);
    fprintf(fp, "], \"paths\": [");
    for (int k = 0; k < s->npaths; k++) {
        fprintf(fp, "%s", k ? "," : "");
        json_indices(fp, s->path_index + s->path_start[k], s->path_start[k + 1] - s->path_start[k]);
    }
    fprintf(fp, "], \"closed\": %s, \"joints\": ", s->closed ? "true" : "false");
    json_indices(fp, s->joint, s->njoints);
    fprintf(fp, ", \"hatch\": ");
    json_indices(fp, s->hatch, s->nhatch);
    fprintf(fp, ", \"trace\": ");
    json_indices(fp, s->trace, s->ntrace);
}

/* A plate drawn as its mesh: the nodes (body frame) and one closed path
 * around each element through its corner and mid-side nodes; no node dots. */
static void write_plate(FILE* fp, const kd_model* m, int b, int drawn) {
    const kd_body* body = &m->body[b];
    const int nn = drawn ? body->node_num : 0;
    fprintf(fp, ", \"points\": [");
    for (int k = 0; k < nn; k++) {
        const double* x = &m->node_x[3 * (body->node_adr + k)];
        fprintf(fp, "%s[%.9g,%.9g,%.9g]", k ? "," : "", x[0], x[1], x[2]);
    }
    fprintf(fp, "], \"node\": [");
    for (int k = 0; k < nn; k++) fprintf(fp, k ? ",0" : "0");
    fprintf(fp, "], \"paths\": [");
    for (int e = 0; drawn && e < body->elem_num; e++) {
        const int* nodes;
        const int ne = kd_model_elem_nodes(m, body->elem_adr + e, &nodes);
        const int nc = (ne == 3 || ne == 6) ? 3 : 4, mid = ne >= 6;
        int loop[2 * 4 + 1], k = 0;
        for (int c = 0; c < nc; c++) {
            loop[k++] = nodes[c] - body->node_adr;
            if (mid) loop[k++] = nodes[nc + c] - body->node_adr;
        }
        loop[k++] = nodes[0] - body->node_adr;
        fprintf(fp, "%s", e ? "," : "");
        json_indices(fp, loop, k);
    }
    fprintf(fp, "]");
}

static void write_bodies(FILE* fp, const kd_model* m, const kd_anim_shape* shapes, anim_point* pts) {
    fprintf(fp, "  \"bodies\": [\n");
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* body = &m->body[b];
        fprintf(fp, "    {\"name\": ");
        io_json_string(fp, body->name);
        fprintf(fp, ", \"type\": \"%s\"", body_type_name(body->type));
        if (shapes && body->type != KD_BODY_BEAM) {
            write_shape(fp, &shapes[b]);
            fprintf(fp, "}%s\n", b + 1 < m->nbody ? "," : "");
            continue;
        }
        if (body->type == KD_BODY_PLATE) {
            write_plate(fp, m, b, body_points(m, b, NULL) > 0);
            fprintf(fp, "}%s\n", b + 1 < m->nbody ? "," : "");
            continue;
        }
        const int np = body_points(m, b, pts);
        fprintf(fp, ", \"points\": [");
        for (int p = 0; p < np; p++) {
            /* the element's origin (its first node) plus xi L along its own x axis, body
             * components (kd_model_elem_place: the body's x axis unless elem_rot turns it) */
            kd_element_place at;
            kd_model_elem_place(m, pts[p].elem, &at);
            const double s = pts[p].xi * m->prop[m->elem_prop[pts[p].elem]].L;
            fprintf(fp, "%s[%.9g,%.9g,%.9g]", p ? "," : "", at.r0[0] + s * at.R[0], at.r0[1] + s * at.R[3],
                    at.r0[2] + s * at.R[6]);
        }
        fprintf(fp, "], \"node\": [");
        for (int p = 0; p < np; p++) fprintf(fp, "%s%d", p ? "," : "", pts[p].node);
        fprintf(fp, "]}%s\n", b + 1 < m->nbody ? "," : "");
    }
    fprintf(fp, "  ],\n");
}

/* A modes set: one pose per body (at `at`), and per mode the displacements
 * of each body's points. */
static void write_modes_set(FILE* fp, const kd_model* m, const kd_anim_set* s, anim_point* pts, double* buf) {
    const double pi = 3.14159265358979323846;
    const kd_modes* r = s->modes;
    body_poses(m, s->at, buf);
    fprintf(fp, "\"pose\": [");
    for (int b = 0; b < m->nbody; b++) {
        fprintf(fp, "%s", b ? "," : "");
        json_numbers(fp, buf + (size_t)b * POSE_N, POSE_N);
    }
    fprintf(fp, "],\n     \"modes\": [\n");
    for (int k = 0; k < r->count; k++) {
        const double* phi = r->shape + (size_t)k * r->neq;
        fprintf(fp, "      {\"label\": \"mode %d: %.5g Hz\", \"omega\": %.9g, \"disp\": [", k + 1,
                r->omega[k] / (2 * pi), r->omega[k]);
        for (int b = 0; b < m->nbody; b++) {
            const int np = body_points(m, b, pts);
            for (int p = 0; p < np; p++) {
                double N3[3][KD_ELEM_DOF_MAX];
                int eqs[KD_ELEM_DOF_MAX];
                point_shape(m, &pts[p], N3, eqs);
                point_disp((const double(*)[KD_ELEM_DOF_MAX])N3, eqs, phi, buf + 3 * p);
            }
            fprintf(fp, "%s", b ? "," : "");
            json_numbers(fp, buf, 3 * np);
        }
        fprintf(fp, "]}%s\n", k + 1 < r->count ? "," : "");
    }
    fprintf(fp, "     ]");
}

/* A dynamics set: times, then per instant the poses and displacements. */
static void write_dynamics_set(FILE* fp, const kd_model* m, const kd_anim_recorder* r) {
    /* times with 9 digits: a pose compared with a law of time needs them */
    fprintf(fp, "\"t\": [");
    for (int f = 0; f < r->nframes; f++) fprintf(fp, f ? ",%.9g" : "%.9g", r->t[f]);
    fputc(']', fp);
    fprintf(fp, ",\n     \"frames\": [\n");
    for (int f = 0; f < r->nframes; f++) {
        const double* row = r->data + (size_t)f * r->frame_size;
        const double* disp = row + (size_t)POSE_N * r->npose;
        fprintf(fp, "      {\"pose\": [");
        for (int b = 0; b < r->npose; b++) {
            fprintf(fp, "%s", b ? "," : "");
            json_numbers(fp, row + (size_t)b * POSE_N, POSE_N);
        }
        if (!m && !r->pose_points) {  /* poses only: no displacements */
            fprintf(fp, "]}%s\n", f + 1 < r->nframes ? "," : "");
            continue;
        }
        if (!m) {  /* poses with the displacements of the bodies' shape points */
            fprintf(fp, "], \"disp\": [");
            for (int b = 0, p0 = 0; b < r->npose; b++) {
                fprintf(fp, "%s", b ? "," : "");
                json_numbers(fp, disp + 3 * p0, 3 * r->pose_points[b]);
                p0 += r->pose_points[b];
            }
            fprintf(fp, "]}%s\n", f + 1 < r->nframes ? "," : "");
            continue;
        }
        fprintf(fp, "], \"disp\": [");
        for (int b = 0, p0 = 0; b < m->nbody; b++) {
            const int np = body_points(m, b, NULL);
            fprintf(fp, "%s", b ? "," : "");
            json_numbers(fp, disp + 3 * p0, 3 * np);
            p0 += np;
        }
        fprintf(fp, "]}%s\n", f + 1 < r->nframes ? "," : "");
    }
    fprintf(fp, "     ]");
}

kd_status kd_write_animation(const char* path, const kd_model* m, const char* title, const kd_anim_set* sets,
                             int nsets, kd_error* err) {
    return kd_write_animation_with(path, m, title, NULL, sets, nsets, err);
}

kd_status kd_write_animation_with(const char* path, const kd_model* m, const char* title,
                                  const kd_anim_shape* shapes, const kd_anim_set* sets, int nsets, kd_error* err) {
    int maxpts = POSE_N * (m->nbody ? m->nbody : 1);
    for (int b = 0; b < m->nbody; b++) {
        const int np = body_points(m, b, NULL);
        if (3 * np > maxpts) maxpts = 3 * np;
    }
    anim_point* pts = malloc(sizeof(anim_point) * (size_t)maxpts);
    double* buf = malloc(sizeof(double) * (size_t)maxpts);
    if (!pts || !buf) {
        free(pts), free(buf);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st == KD_OK) {
        FILE* fp = f.fp;
        fprintf(fp, "{\n  \"kedyn_animation\": 1,\n  \"title\": ");
        io_json_string(fp, title);
        fprintf(fp, ",\n");
        write_bodies(fp, m, shapes, pts);
        fprintf(fp, "  \"sets\": [\n");
        for (int i = 0; i < nsets; i++) {
            const kd_anim_set* s = &sets[i];
            fprintf(fp, "    {\"analysis\": %d, \"type\": \"%s\", \"label\": ", s->analysis,
                    s->modes ? "modes" : (s->kind ? s->kind : "dynamics"));
            io_json_string(fp, s->label);
            fprintf(fp, ",\n     ");
            if (s->modes) write_modes_set(fp, m, s, pts, buf);
            else write_dynamics_set(fp, m, s->recorder);
            fprintf(fp, "}%s\n", i + 1 < nsets ? "," : "");
        }
        fprintf(fp, "  ]\n}\n");
        st = kd_atomic_commit(&f, err);
    }
    free(pts);
    free(buf);
    return st;
}

kd_status kd_write_animation_poses(const char* path, const char* title, int nbody, const char* const* names,
                                   const int* ground, const kd_anim_shape* shapes, const int* rods, int nrods,
                                   const kd_anim_set* sets, int nsets, kd_error* err) {
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    FILE* fp = f.fp;
    fprintf(fp, "{\n  \"kedyn_animation\": 1,\n  \"title\": ");
    io_json_string(fp, title);
    fprintf(fp, ",\n  \"spatial\": true,\n  \"bodies\": [\n");
    for (int b = 0; b < nbody; b++) {
        fprintf(fp, "    {\"name\": ");
        io_json_string(fp, names[b]);
        fprintf(fp, ", \"type\": \"%s\"",
                ground[b] == 1 ? "ground" : ground[b] == 2 ? "beam" : ground[b] == 3 ? "plate" : "rigid");
        write_shape(fp, &shapes[b]);
        fprintf(fp, "}%s\n", b + 1 < nbody ? "," : "");
    }
    fprintf(fp, "  ],\n  \"rods\": [");
    for (int i = 0; i < nrods; i++) {
        fprintf(fp, "%s", i ? "," : "");
        json_indices(fp, rods + 4 * i, 4);
    }
    fprintf(fp, "],\n  \"sets\": [\n");
    for (int i = 0, k = 0; i < nsets; i++) {
        const kd_anim_set* s = &sets[i];
        if (!s->recorder || s->recorder->m || s->recorder->npose != nbody) continue;  /* pose sets only */
        fprintf(fp, "%s    {\"analysis\": %d, \"type\": \"%s\", \"label\": ", k++ ? ",\n" : "", s->analysis,
                s->kind ? s->kind : "dynamics");
        io_json_string(fp, s->label);
        fprintf(fp, ",\n     ");
        write_dynamics_set(fp, NULL, s->recorder);
        fprintf(fp, "}");
    }
    fprintf(fp, "\n  ]\n}\n");
    return kd_atomic_commit(&f, err);
}
