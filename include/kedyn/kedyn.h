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
 * and for mechanisms: kd_mech (rigid bodies and joints), the constrained
 * forward dynamics of kedyn/mbs.h, elastic links one-way (kedyn/ked.h) or
 * two-way (kedyn/ffr.h; spatial: kedyn/ffr3d.h).
 */
#ifndef KEDYN_KEDYN_H
#define KEDYN_KEDYN_H

#define KD_VERSION_STRING "0.1.0"

/* Every public header, by layer (bottom to top, as src/ is layered: tests/layering_test.sh);
 * each also compiles on its own (tests/CMakeLists.txt, header_check). */
/* core: status, descriptions, time laws, frames */
#include "kedyn/status.h"
#include "kedyn/desc.h"
#include "kedyn/desc_fields.h"
#include "kedyn/law.h"
#include "kedyn/frame.h"
/* numerics: band storage, time integration */
#include "kedyn/band.h"
#include "kedyn/csc_factor.h"
#include "kedyn/newmark_gyro.h"
#include "kedyn/integrate.h"
#include "kedyn/signal.h"
/* fe: elements, the compiled model, inertia terms, the moving-frame system */
#include "kedyn/element.h"
#include "kedyn/model.h"
#include "kedyn/model_check.h"
#include "kedyn/inertia.h"
#include "kedyn/system.h"
/* mechanism and constrained: rigid mechanisms, constrained systems and their forward dynamics */
#include "kedyn/body.h"
#include "kedyn/mech.h"
#include "kedyn/sdesc.h"
#include "kedyn/smech.h"
#include "kedyn/smech_lu.h"
#include "kedyn/smech_qr.h"
#include "kedyn/cms.h"
#include "kedyn/cms_rows.h"
#include "kedyn/mbs.h"
/* formalisms: element routes, Hamilton's canonical equations, routes for systems with joints */
#include "kedyn/formalism.h"
#include "kedyn/hamilton.h"
#include "kedyn/mech_formalism.h"
#include "kedyn/smech_formalism.h"
/* analyses: modes, Campbell, stability, dynamics */
#include "kedyn/modes.h"
#include "kedyn/modes_speed.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/analysis.h"
/* links: one-way and two-way elastic links */
#include "kedyn/ked.h"
#include "kedyn/sked.h"
#include "kedyn/ffr.h"
#include "kedyn/ffr3d.h"
#include "kedyn/ffr3d_shell_stress.h"
/* compare: the formalisms compared */
#include "kedyn/compare.h"
#include "kedyn/mech_compare.h"
/* load, output, report, run: the model file, result files, figures and report, the runner */
#include "kedyn/load_yaml.h"
#include "kedyn/atomic_file.h"
#include "kedyn/plot.h"
#include "kedyn/measure.h"
#include "kedyn/record.h"
#include "kedyn/report.h"
#include "kedyn/run.h"
#include "kedyn/vtk.h"

#endif
