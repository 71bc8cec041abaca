/* Fuzz target: a model file's bytes through the loader and the checks of
 * `kedyn check` (no analysis is run). Named as a file of examples/, so that
 * the seeds' relative data files (data/NAME.csv) resolve. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz_load_and_check((const char*)data, size, KEDYN_EXAMPLES_DIR "/fuzz_model.yaml");
    return 0;
}
