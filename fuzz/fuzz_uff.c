/* Fuzz target: the bytes as a Universal File (kd_uff_read_buffer: datasets 58, 58b, 15, 2411, 55
 * and the skipped ones) and, when they read, written back (ASCII and binary) and read again; and
 * the same bytes as a CSV record with a time column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "kedyn/kedyn.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kd_record* r = NULL;
    kd_error err;
    if (kd_uff_read_buffer((const char*)data, size, "fuzz.uff", &r, &err) == KD_OK) {
        for (int binary = 0; binary < 2; binary++) {
            const char* path = fuzz_temp_file((const uint8_t*)"", 0, binary ? ".b.uff" : ".a.uff");
            kd_record* back = NULL;
            if (kd_uff_write(path, r, binary, &err) == KD_OK && kd_uff_read(path, &back, &err) != KD_OK) abort();
            if (back && back->nchannels != r->nchannels) abort();  /* what was written reads back */
            kd_record_free(&back);
        }
    }
    kd_record_free(&r);
    const char* csv = fuzz_temp_file(data, size, ".csv");
    if (kd_record_read_csv(csv, "t", 0, &r, &err) == KD_OK) kd_record_free(&r);
    return 0;
}
