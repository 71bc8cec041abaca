/* Analyses of mechanisms with elastic links in the runner (src/run/run_links.c),
 * called from src/run/run.c. Private to the runner. */
#ifndef KEDYN_RUN_LINKS_H
#define KEDYN_RUN_LINKS_H

#include <stdio.h>

#include "kedyn/report.h"
#include "kedyn/run.h"
#include "run_internal.h"

/* 1 when the analysis runs on a mechanism with elastic links (beams in
 * joints): dynamics (coupling one-way or two-way) and modes_along_motion. */
int run_links_handles(const kd_desc* d, const kd_analysis_desc* ad);

/* Run one such analysis; its CSV file is the ordinal-th of its kind in
 * c->outdir (c->ordinal). c->anim (NULL: none) records a dynamics run for the animation: rigid
 * bodies and each link in its floating frame (src/output/anim_links.h). */
kd_status run_links_analysis(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err);

/* The analysis-specific part of its summary.json entry (", key: value..."). */
void run_links_summary(FILE* fp, const kd_analysis_report* a);

#endif
