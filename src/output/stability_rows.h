/* kedyn: the rows of a stability map's CSV (kd_write_stability_csv), one grid point at a time, so
 * that the thread that computed a point formats its row and the study writes the rows as the
 * points come (src/run/run_stability.c; not public). Byte for byte the file printf's "%.10g"
 * makes. */
#ifndef KEDYN_OUTPUT_STABILITY_ROWS_H
#define KEDYN_OUTPUT_STABILITY_ROWS_H

#include <stddef.h>

#include "fmt_num.h"
#include "kedyn/run.h"

/* Room for one row with its newline and terminating NUL. */
#define IO_STABILITY_ROW_MAX (4 * IO_FMT_MAX + 8)

/* The header line, with its newline. */
const char* io_stability_csv_head(const kd_stability_map* s);

/* Grid point i ([hub][length][thickness] order) with critical speed w into buf; returns its
 * length. Reads only the map's axes. */
int io_stability_csv_row(char* buf, const kd_stability_map* s, size_t i, double w);

#endif
