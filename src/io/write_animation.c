/* The animation data: drawing points of every body, the pose of its frame
 * and the displacements of its points, per mode or per instant
 * (kedyn/report.h; format in docs/cli.md, "animation.json"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "kedyn/frame.h"
#include "kedyn/modes.h"
#include "kedyn/report.h"

/* Most points drawn along one beam: long meshes are drawn through every
 * k-th node (and the last), which keeps the file small and the drawing
 * smooth enough on a screen. */
#define ANIM_POINTS_PER_BEAM 201
/* Memory bound of one recorder, doubles. */
#define ANIM_BUDGET 8000000L

/* Pose of a body's frame: origin (3) then rotation (9, row-major). */
#define POSE_N 12

struct kd_anim_recorder {
    const kd_model* m;
    int npoints;                  /* drawing points over all bodies */
    int* point_node;              /* (npoints) model node of each point */
    int frame_size;               /* doubles per instant: nbody poses + 3 npoints */
    int cap, nframes;
    double t_end, dt_frame, next_t;
    double* t;                    /* (cap) */
    double* data;                 /* (cap x frame_size) poses, then displacements */
};

/* Node stride of body b so that at most ANIM_POINTS_PER_BEAM are drawn. */
static int body_stride(const kd_body* b) {
    const int nseg = b->node_num - 1;
    return nseg <= ANIM_POINTS_PER_BEAM - 1 ? 1 : (nseg + ANIM_POINTS_PER_BEAM - 2) / (ANIM_POINTS_PER_BEAM - 1);
}

/* Drawing points of body b (model node numbers); returns the count. Beams
 * only: a ground has none. nodes may be NULL to count. */
static int body_points(const kd_model* m, int b, int* nodes) {
    const kd_body* body = &m->body[b];
    if (body->type != KD_BODY_BEAM || body->node_num < 1) return 0;
    const int stride = body_stride(body);
    int n = 0;
    for (int k = 0; k < body->node_num; k += stride) {
        if (nodes) nodes[n] = body->node_adr + k;
        n++;
    }
    if ((body->node_num - 1) % stride) {
        if (nodes) nodes[n] = body->node_adr + body->node_num - 1;
        n++;
    }
    return n;
}

/* Displacement (u, v, w) of node n in its body frame from the reduced
 * vector q (fixed DOFs and DOF kinds a node lacks are 0). */
static void node_disp(const kd_model* m, int n, const double* q, double u[3]) {
    u[0] = u[1] = u[2] = 0.0;
    for (int a = 0; a < m->node_dof_num[n]; a++) {
        const int i = m->node_dof_adr[n] + a;
        const kd_dof_name dn = m->dof_name[i];
        if (dn <= KD_DOF_W && m->dof_eq[i] >= 0) u[dn] = q[m->dof_eq[i]];
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
    for (int b = 0; b < m->nbody; b++) r->npoints += body_points(m, b, NULL);
    r->point_node = malloc(sizeof(int) * (size_t)(r->npoints ? r->npoints : 1));
    r->frame_size = POSE_N * m->nbody + 3 * r->npoints;
    long cap = ANIM_BUDGET / (r->frame_size ? r->frame_size : 1);
    r->cap = (int)(cap > KD_ANIM_FRAMES_MAX ? KD_ANIM_FRAMES_MAX : (cap < 2 ? 2 : cap));
    r->t = malloc(sizeof(double) * (size_t)r->cap);
    r->data = malloc(sizeof(double) * (size_t)r->cap * (size_t)r->frame_size);
    if (!r->point_node || !r->t || !r->data) {
        kd_anim_recorder_free(&r);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    int np = 0;
    for (int b = 0; b < m->nbody; b++) np += body_points(m, b, r->point_node + np);
    r->t_end = t_end;
    r->dt_frame = t_end / (r->cap - 1);
    r->next_t = 0.0;
    *out = r;
    return KD_OK;
}

void kd_anim_record(kd_anim_recorder* r, double t, const double* q) {
    /* Half a percent of a frame interval absorbs round-off in output times. */
    if (!r || r->nframes >= r->cap || t < r->next_t - 5e-3 * r->dt_frame) return;
    double* row = r->data + (size_t)r->nframes * (size_t)r->frame_size;
    body_poses(r->m, t, row);
    double* disp = row + (size_t)POSE_N * r->m->nbody;
    for (int p = 0; p < r->npoints; p++) node_disp(r->m, r->point_node[p], q, disp + 3 * p);
    r->t[r->nframes++] = t;
    /* The next instant on the grid after t (outputs may be coarser than it). */
    while (r->next_t <= t + 5e-3 * r->dt_frame) r->next_t += r->dt_frame;
}

int kd_anim_recorder_frames(const kd_anim_recorder* r) { return r ? r->nframes : 0; }

void kd_anim_recorder_free(kd_anim_recorder** r) {
    if (!r || !*r) return;
    free((*r)->point_node);
    free((*r)->t);
    free((*r)->data);
    free(*r);
    *r = NULL;
}

/* ---- writing ------------------------------------------------------------ */

static void json_string(FILE* fp, const char* s) {
    fputc('"', fp);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(fp, "\\%c", c);
        else if (c < 0x20) fprintf(fp, "\\u%04x", c);
        else fputc(c, fp);
    }
    fputc('"', fp);
}

/* Numbers with 6 significant digits: ample for a drawing, and compact. */
static void json_numbers(FILE* fp, const double* v, int n) {
    fputc('[', fp);
    for (int i = 0; i < n; i++) fprintf(fp, i ? ",%.6g" : "%.6g", isfinite(v[i]) ? v[i] : 0.0);
    fputc(']', fp);
}

static void write_bodies(FILE* fp, const kd_model* m, int* nodes) {
    fprintf(fp, "  \"bodies\": [\n");
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* body = &m->body[b];
        const int np = body_points(m, b, nodes);
        fprintf(fp, "    {\"name\": ");
        json_string(fp, body->name);
        fprintf(fp, ", \"type\": \"%s\", \"points\": [", body->type == KD_BODY_BEAM ? "beam" : "ground");
        for (int p = 0; p < np; p++)
            fprintf(fp, "%s[%.9g,0,0]", p ? "," : "", m->node_s[nodes[p]]);
        fprintf(fp, "], \"nodes\": [");
        for (int p = 0; p < np; p++) fprintf(fp, "%s%d", p ? "," : "", nodes[p] - body->node_adr + 1);
        fprintf(fp, "]}%s\n", b + 1 < m->nbody ? "," : "");
    }
    fprintf(fp, "  ],\n");
}

/* A modes set: one pose per body (at `at`), and per mode the displacements
 * of each body's points. */
static void write_modes_set(FILE* fp, const kd_model* m, const kd_anim_set* s, int* nodes, double* buf) {
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
            const int np = body_points(m, b, nodes);
            for (int p = 0; p < np; p++) node_disp(m, nodes[p], phi, buf + 3 * p);
            fprintf(fp, "%s", b ? "," : "");
            json_numbers(fp, buf, 3 * np);
        }
        fprintf(fp, "]}%s\n", k + 1 < r->count ? "," : "");
    }
    fprintf(fp, "     ]");
}

/* A dynamics set: times, then per instant the poses and displacements. */
static void write_dynamics_set(FILE* fp, const kd_model* m, const kd_anim_recorder* r) {
    fprintf(fp, "\"t\": ");
    json_numbers(fp, r->t, r->nframes);
    fprintf(fp, ",\n     \"frames\": [\n");
    for (int f = 0; f < r->nframes; f++) {
        const double* row = r->data + (size_t)f * r->frame_size;
        const double* disp = row + (size_t)POSE_N * m->nbody;
        fprintf(fp, "      {\"pose\": [");
        for (int b = 0; b < m->nbody; b++) {
            fprintf(fp, "%s", b ? "," : "");
            json_numbers(fp, row + (size_t)b * POSE_N, POSE_N);
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
    int maxpts = POSE_N * (m->nbody ? m->nbody : 1);
    for (int b = 0; b < m->nbody; b++) {
        const int np = body_points(m, b, NULL);
        if (3 * np > maxpts) maxpts = 3 * np;
    }
    int* nodes = malloc(sizeof(int) * (size_t)maxpts);
    double* buf = malloc(sizeof(double) * (size_t)maxpts);
    if (!nodes || !buf) {
        free(nodes), free(buf);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st == KD_OK) {
        FILE* fp = f.fp;
        fprintf(fp, "{\n  \"kedyn_animation\": 1,\n  \"title\": ");
        json_string(fp, title);
        fprintf(fp, ",\n");
        write_bodies(fp, m, nodes);
        fprintf(fp, "  \"sets\": [\n");
        for (int i = 0; i < nsets; i++) {
            const kd_anim_set* s = &sets[i];
            fprintf(fp, "    {\"analysis\": %d, \"type\": \"%s\", \"label\": ", s->analysis,
                    s->modes ? "modes" : "dynamics");
            json_string(fp, s->label);
            fprintf(fp, ",\n     ");
            if (s->modes) write_modes_set(fp, m, s, nodes, buf);
            else write_dynamics_set(fp, m, s->recorder);
            fprintf(fp, "}%s\n", i + 1 < nsets ? "," : "");
        }
        fprintf(fp, "  ]\n}\n");
        st = kd_atomic_commit(&f, err);
    }
    free(nodes);
    free(buf);
    return st;
}
