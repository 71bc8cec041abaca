/* Fuzz target: the bytes as a result CSV file read back by `kedyn plot`
 * (src/report/plot_csv.c, csv_read). */
#include "fuzz_common.h"
#include "report/plot_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = fuzz_temp_file(data, size, ".csv");
    csv_table t = {0};
    kd_error err;
    if (!csv_read(path, &t, &err)) csv_free(&t);
    return 0;
}
