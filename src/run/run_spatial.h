/* Spatial-mechanism analyses in the runner (src/run/run_spatial.c), called from src/run/run.c.
 * Private to the runner. */
#ifndef KEDYN_RUN_SPATIAL_H
#define KEDYN_RUN_SPATIAL_H

#include <stdio.h>

#include "kedyn/report.h"
#include "kedyn/run.h"

/* 1 when d is a spatial mechanism (`spatial: true`): all its analyses run here. */
int run_spatial_handles(const kd_desc* d);
/* rec: the animation's pose recorder of the analysis (kd_anim_recorder_new_poses with
 * run_spatial_bodies(d) bodies), or NULL. */
kd_status run_spatial_analysis(const kd_desc* d, const kd_analysis_desc* ad, const char* outdir, int ordinal,
                               kd_anim_recorder* rec, kd_analysis_report* a, kd_error* err);
/* Bodies of the spatial description (ground included): the poses of its animation. */
int run_spatial_bodies(const kd_desc* d);
/* Write OUTDIR/animation.json of a spatial mechanism from the analyses' pose recorders. */
kd_status run_spatial_animation(const kd_desc* d, const char* path, const kd_anim_set* sets, int nsets,
                                kd_error* err);
/* 1 when the spatial mechanism has beam bodies (elastic links); their `dynamics` and
 * `modes_along_motion` run run_spatial_links (src/run/run_spatial_links.c: one-way, kedyn/sked.h). */
int run_spatial_has_links(const kd_desc* d);
struct kd_smech;
struct anim_spatial;
/* anim: the animation of the analysis (src/output/anim_spatial.h; its recorder may be NULL). */
kd_status run_spatial_links(const kd_desc* d, const kd_analysis_desc* ad, const struct kd_smech* m, const char* outdir,
                            int ordinal, struct anim_spatial* anim, kd_analysis_report* a, kd_error* err);
/* ",\n  \"spatial\": {...}": bodies, joints, drivers, coordinates, equations, Grübler, DOF,
 * redundant equations (nothing for a planar model). */
void run_spatial_model_summary(FILE* fp, const kd_desc* d);

#endif
