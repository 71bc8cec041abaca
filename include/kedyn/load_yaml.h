/* kedyn: the model-file loader (YAML -> checked description).
 *
 * Part of src/load; no lower layer includes it. The loader
 * reads a model file (docs/model-format.md) with libyaml, rejects unknown
 * keys, wrong types, missing required keys, out-of-range values and unknown
 * references with the file, line and column of the offending node, resolves
 * names to indices, and finally runs kd_desc_check(). Locations are 1-based.
 */
#ifndef KEDYN_LOAD_YAML_H
#define KEDYN_LOAD_YAML_H

#include <stddef.h>

#include "kedyn/desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Load a model file. On success *out owns a new description (free with
 * kd_desc_free). On failure returns KD_ERR_INPUT (or KD_ERR_IO when the file
 * cannot be read) with err filled; *out is NULL. */
kd_status kd_load_yaml_file(const char* path, kd_desc** out, kd_error* err);

/* Load a model from text in memory; `name` is used as the file name in
 * messages (e.g. "<demo>"). */
kd_status kd_load_yaml_string(const char* text, size_t len, const char* name,
                              kd_desc** out, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
