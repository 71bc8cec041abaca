/* kedyn: results people look at — the animation data and the HTML report.
 *
 * animation.json (docs/cli.md, "animation.json") holds, for every body, its
 * drawing points in its own frame (a beam: its nodes; a rigid body: its
 * outline) and, for every modes and dynamics analysis, the pose of each
 * body's frame (origin, rotation) and the displacements of its points in
 * that frame: per mode (drawn oscillating) or per recorded instant.
 *
 * A kd_anim_recorder collects the instants of one dynamics analysis: it is
 * sized once, when created, and kd_anim_record neither allocates nor prints,
 * so it can be called from a time-step output callback.
 *
 * The HTML report (report.html) is one self-contained file: the model
 * summary, every figure of OUTDIR/figures (inline SVG) and the animation
 * (JSON in a <script> tag, drawn on a <canvas> by plain JavaScript). Part of
 * the library (src/output).
 */
#ifndef KEDYN_REPORT_H
#define KEDYN_REPORT_H

#include "kedyn/desc.h"
#include "kedyn/model.h"
#include "kedyn/modes.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most instants an animation keeps of one dynamics analysis. */
#define KD_ANIM_FRAMES_MAX 401

typedef struct kd_anim_recorder kd_anim_recorder;

/* A recorder of up to KD_ANIM_FRAMES_MAX instants equally spaced over
 * [0, t_end] (fewer for very large models, to bound memory). *out is freed
 * with kd_anim_recorder_free. */
kd_status kd_anim_recorder_new(const kd_model* m, double t_end, kd_anim_recorder** out, kd_error* err);

/* A recorder of the poses of nbody bodies only (no elastic points): a spatial mechanism's
 * bodies (kd_anim_record_pose with q NULL; kd_write_animation_poses writes it). */
kd_status kd_anim_recorder_new_poses(int nbody, double t_end, kd_anim_recorder** out, kd_error* err);

/* Give a pose recorder (kd_anim_recorder_new_poses, before its first instant) npoints[b] drawing
 * points per body whose displacements each instant keeps: kd_anim_record_pose's q is then their
 * u, v, w in the body's frame (3 per point, body by body), e.g. the nodes of a spatial
 * mechanism's elastic links (kd_anim_smech_shapes); written as each frame's "disp". */
kd_status kd_anim_recorder_pose_points(kd_anim_recorder* r, const int* npoints, kd_error* err);

/* Offer the state q (reduced equations) at time t; kept when t reaches the
 * next recording instant. No allocation. */
void kd_anim_record(kd_anim_recorder* r, double t, const double* q);

/* Move the recording instants to [t0, t0 + t_end] (a run whose first
 * instant is after t = 0, e.g. a settled mechanism); before the first
 * instant only. */
void kd_anim_recorder_start_at(kd_anim_recorder* r, double t0);

/* 1 when an instant offered at time t would be kept (cheap; lets a caller
 * skip building poses between recording instants). */
int kd_anim_recorder_due(const kd_anim_recorder* r, double t);

/* Offer an instant with the poses given by the caller: pose holds, per body
 * of the model (m->nbody), the frame origin (3, global) and rotation (9,
 * row-major, local to global), e.g. the rigid bodies of a mechanism; NULL
 * takes the model's frame motions. q: reduced equations of the elastic
 * bodies, displacements in their (floating) frames; NULL means none. No
 * allocation. */
void kd_anim_record_pose(kd_anim_recorder* r, double t, const double* pose, const double* q);

/* The model the recorder draws. */
const kd_model* kd_anim_recorder_model(const kd_anim_recorder* r);

/* Number of instants recorded so far. */
int kd_anim_recorder_frames(const kd_anim_recorder* r);

void kd_anim_recorder_free(kd_anim_recorder** r);

/* One animation set: the mode shapes of a modes analysis (at time `at` of
 * the frame motion) or the recorded instants of a dynamics analysis. */
typedef struct kd_anim_set {
    int analysis;                        /* 0-based index in summary.json "analyses" */
    const char* label;                   /* e.g. "modes", "dynamics" */
    const kd_modes* modes;               /* a modes set, or NULL */
    double at;                           /* modes: instant of the frame motion, s */
    const kd_anim_recorder* recorder;    /* a dynamics set, or NULL */
    const char* kind;                    /* a recorded set's type in the file ("kinematics",
                                            "inverse_dynamics"...); NULL: "dynamics" */
} kd_anim_set;

/* The drawing of a body that is not drawn through finite elements: a rigid
 * body's outline (body frame) or the supports of a mechanism's ground
 * (global), in points joined by paths, with the points where joints are
 * (drawn as small circles) and where the body is fixed (drawn hatched). */
#define KD_ANIM_SHAPE_POINTS 96
#define KD_ANIM_SHAPE_PATHS 24
#define KD_ANIM_SHAPE_MARKS 32

typedef struct kd_anim_shape {
    int npoints;
    double point[KD_ANIM_SHAPE_POINTS][3];   /* m */
    int npaths;                              /* path k: path_index[path_start[k] .. path_start[k+1]) */
    int path_start[KD_ANIM_SHAPE_PATHS + 1];
    int path_index[2 * KD_ANIM_SHAPE_POINTS];
    int closed;                              /* paths are closed and filled */
    int njoints, joint[KD_ANIM_SHAPE_MARKS]; /* indices into point */
    int nhatch, hatch[KD_ANIM_SHAPE_MARKS];  /* ground: rails (paths) and pivots here are hatched */
    int ntrace, trace[KD_ANIM_SHAPE_MARKS];  /* points whose path is drawn (named points off the
                                                joints, e.g. a coupler point) */
} kd_anim_shape;

/* Write animation.json to path, atomically. */
kd_status kd_write_animation(const char* path, const kd_model* m, const char* title, const kd_anim_set* sets,
                             int nsets, kd_error* err);

/* The same, with shapes (m->nbody, may be NULL) for the bodies that are not
 * beams (kd_anim_mech_shapes builds them for a mechanism). */
kd_status kd_write_animation_with(const char* path, const kd_model* m, const char* title,
                                  const kd_anim_shape* shapes, const kd_anim_set* sets, int nsets, kd_error* err);

/* The shapes of a mechanism's bodies (d->nbodies, indexed like d->bodies)
 * from its named points and joints: a body with two points is a bar, with
 * more a plate through them, with one a block along its slide (prismatic
 * joint), a disc of the rolling radius, or else a small disc; the ground gets pivots
 * at its revolute joints and a rail along each prismatic or rolling joint
 * spanning the mechanism. Beams are left empty (drawn through their
 * elements). */
void kd_anim_mech_shapes(const kd_desc* d, kd_anim_shape* shapes);

/* Write animation.json of bodies drawn by their shapes only (a spatial mechanism: nbody bodies,
 * names, ground flags (1: ground, 2: a beam link, "beam", 3: a plate link, "plate", 0: rigid),
 * shapes in each body's frame, ground's global) from the sets whose
 * recorders were made by kd_anim_recorder_new_poses(nbody, ...); the file says
 * "spatial": true (the report draws it in 3D). */
kd_status kd_write_animation_poses(const char* path, const char* title, int nbody, const char* const* names,
                                   const int* ground, const kd_anim_shape* shapes, const int* rods, int nrods,
                                   const kd_anim_set* sets, int nsets, kd_error* err);

/* The shapes of a spatial mechanism's bodies (d->sdesc->nbodies, indexed like its bodies;
 * src/output/anim_spatial.c): an elastic link (`type: beam`) its nodes first (point n = node n + 1,
 * at p1 + x_n along the body's x axis) joined in order, its named points after; a plate link
 * (`type: plate`) its mesh nodes (at most KD_ANIM_SHAPE_POINTS less its named points: a lattice of
 * a rectangle mesh's cell corners, every line or a coarse grid with the outline, rows and columns
 * two paths; a file mesh's corner edges, or its outline through every k-th node), its named points
 * marked on it; each other body
 * the segments between its named points (two: a bar;
 * three or four: every pair; more: a closed loop in order), with one point or none a bar from it
 * to the centre of mass and a ring about that bar; joints marked, the ground's joint points
 * hatched, named points without a joint traced. rods (4 per distance joint: body, point index in
 * its shape, body, point index; may be NULL) get the rods of the distance joints, drawn between
 * two bodies ("rods" of animation.json); returns their number. */
int kd_anim_smech_shapes(const kd_desc* d, kd_anim_shape* shapes, int* rods);

/* Write OUTDIR/report.html from OUTDIR/summary.json, OUTDIR/animation.json
 * (optional) and the SVG figures listed in OUTDIR/figures/figures.json
 * (optional; `kedyn plot` writes it). `note`, when not NULL or "", is shown
 * at the top (e.g. why figures are missing). */
kd_status kd_write_report_html(const char* outdir, const char* note, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
