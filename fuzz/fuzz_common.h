/* What the fuzz targets share (fuzz/fuzz_*.c): the entry point's
 * prototype, a model run through the loader and the checks of `kedyn
 * check` (no run), and bytes written to a temporary data file. A target is
 * one file fuzz/fuzz_NAME.c defining LLVMFuzzerTestOneInput; fuzz/
 * CMakeLists.txt builds it with libFuzzer (KEDYN_FUZZ=ON) and, in every
 * build, as NAME_replay, which runs the files of tests/fuzz_regressions/NAME/
 * and fuzz/corpus/NAME/ once (docs/testing.md). */
#ifndef KEDYN_FUZZ_COMMON_H
#define KEDYN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* Load text as the model file `name` (relative data files from its
 * directory), then compile it as `kedyn check` does when it is small
 * enough to compile quickly: the loader and the checks are the targets,
 * not the cost of a large mesh (limited by the model checks themselves). */
void fuzz_load_and_check(const char* text, size_t len, const char* name);

/* Write data to this process's temporary file with the given suffix
 * (e.g. ".csv") and return its path (static storage). Aborts when the
 * file cannot be written: the fuzzer must not silently test nothing. */
const char* fuzz_temp_file(const uint8_t* data, size_t size, const char* suffix);

#endif
