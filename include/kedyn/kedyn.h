/* kedyn: dynamics of mechanisms and machines with elastic links by the
 * finite element method. Umbrella header of the public API.
 *
 * Stages (docs/architecture.md):
 *   model file --kd_load_yaml_file--> kd_desc (checked description)
 *              --kd_model_compile---> kd_model (immutable, flat arrays)
 *              --analyses (kd_modes_solve, kd_campbell_run, kd_stability_run,
 *                          kd_dynamics_run on kd_system, built by a formalism's
 *                          route; kd_compare_run over all routes)--> results
 *              --kd_run writers-----> OUTDIR/summary.json, CSV files
 */
#ifndef KEDYN_KEDYN_H
#define KEDYN_KEDYN_H

#define KD_VERSION_STRING "0.1.0"

#include "kedyn/status.h"
#include "kedyn/desc.h"
#include "kedyn/element.h"
#include "kedyn/model.h"
#include "kedyn/band.h"
#include "kedyn/modes.h"
#include "kedyn/law.h"
#include "kedyn/frame.h"
#include "kedyn/inertia.h"
#include "kedyn/integrate.h"
#include "kedyn/system.h"
#include "kedyn/analysis.h"
#include "kedyn/formalism.h"
#include "kedyn/hamilton.h"
#include "kedyn/compare.h"

#endif
