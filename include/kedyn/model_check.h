/* kedyn: the checks of a description that need the element families
 * (src/fe/model_check.c): every DOF a support fixes, a load acts on or an
 * initial value sets must be one the body's element kind has at its nodes.
 * kd_model_compile runs them after kd_desc_check; the model-file loader
 * runs them too, so that such errors are found at load time with the
 * location of the item. */
#ifndef KEDYN_MODEL_CHECK_H
#define KEDYN_MODEL_CHECK_H

#include "kedyn/desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns KD_ERR_INPUT with err located at the offending item. */
kd_status kd_model_check_dofs(const kd_desc* d, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
