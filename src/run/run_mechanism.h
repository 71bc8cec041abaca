/* Mechanism analyses in the runner (src/run/run_mechanism.c), called from
 * src/run/run.c. Private to the runner. */
#ifndef KEDYN_RUN_MECHANISM_H
#define KEDYN_RUN_MECHANISM_H

#include <stdio.h>

#include "kedyn/report.h"
#include "kedyn/run.h"

/* 1 when the analysis runs on the compiled mechanism: kinematics and
 * inverse_dynamics, and dynamics of a mechanism. */
int run_mechanism_handles(const kd_desc* d, const kd_analysis_desc* ad);

/* Run one mechanism analysis; its CSV file is the ordinal-th of its kind in
 * outdir. Fills a (files, mech statistics, message). rec (may be NULL)
 * records the bodies' poses for the animation (src/output/anim_mech.h). */
kd_status run_mechanism_analysis(const kd_desc* d, const kd_analysis_desc* ad, const char* outdir, int ordinal,
                               kd_anim_recorder* rec, kd_analysis_report* a, kd_error* err);

/* Before a run writes anything: a kinematics or inverse_dynamics analysis of a mechanism whose
 * assembled position leaves a DOF undriven is a model error (KD_ERR_INPUT at the analysis). A
 * mechanism that does not compile or assemble is left to the analysis to report. */
kd_status run_mechanism_precheck(const kd_desc* d, kd_error* err);

/* The analysis-specific part of its summary.json entry (", key: value..."). */
void run_mechanism_summary(FILE* fp, const kd_analysis_report* a);

/* The mechanism's part of summary.json (",\n  \"mechanism\": {...}"; nothing
 * when d is not a mechanism or does not compile): moving bodies, joints,
 * drivers, the Gruebler count of degrees of freedom 3 bodies - joint
 * constraints, elastic links and their elastic DOF in their floating frames
 * (the beam's nodal DOF of model m less the frame's 3), and the mass of the
 * moving bodies and links. */
void run_mechanism_model_summary(FILE* fp, const kd_desc* d, const kd_model* m);

#endif
