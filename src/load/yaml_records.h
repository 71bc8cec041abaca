/* The measured-record part of the model-file loader (src/load/yaml_records.c): the `records`
 * and `sensors` sections and the keys of the record analyses their key tables leave to code. */
#ifndef KEDYN_LOAD_YAML_RECORDS_H
#define KEDYN_LOAD_YAML_RECORDS_H

#include "yaml_schema.h"

/* One entry of `records` (its file read and checked) and of `sensors`. */
kd_status yaml_read_record(loader* ld, const node_t* v);
kd_status yaml_read_sensor(loader* ld, const node_t* v);

/* The CUSTOM keys of a spectrum, frf, identify, correlate or virtual_test analysis `a` (already
 * appended to the description), f: the keys its table read. */
kd_status yaml_measure_keys(loader* ld, const node_t* v, field* f, kd_analysis_desc* a);

#endif
