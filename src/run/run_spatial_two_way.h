/* Two-way elastic links of a spatial mechanism in the runner (src/run/run_spatial_two_way.c),
 * called by run_spatial_links for `coupling: two-way`. Private to the runner. */
#ifndef KEDYN_RUN_SPATIAL_TWO_WAY_H
#define KEDYN_RUN_SPATIAL_TWO_WAY_H

#include "kedyn/report.h"
#include "kedyn/run.h"
#include "output/anim_spatial.h"

/* anim (may hold no recorder): the bodies' poses from their floating frames and the links' nodal
 * u, v, w in their frames at the recording instants. */
struct kd_smech;
kd_status run_spatial_two_way(const kd_desc* d, const kd_analysis_desc* ad, const struct kd_smech* m,
                              const char* outdir, int ordinal, anim_spatial* anim, kd_analysis_report* a,
                              kd_error* err);

#endif
