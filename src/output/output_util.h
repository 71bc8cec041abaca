/* kedyn: small helpers shared by the writers and runners (not public). */
#ifndef KEDYN_OUTPUT_UTIL_H
#define KEDYN_OUTPUT_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "kedyn/atomic_file.h"
#include "kedyn/run.h"

/* A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped, bytes
 * that are not UTF-8 replaced by U+FFFD. Every string of kedyn's JSON files goes through it. */
void io_json_string(FILE* fp, const char* s);

/* A JSON array of n numbers v[i] * scale, 12 significant digits. */
void io_json_array(FILE* fp, const double* v, int n, double scale);

/* A whole file in a NUL-terminated buffer (caller frees), or NULL. */
char* io_read_all(const char* path);

/* OUTDIR/PREFIXSTEM.csv for the first analysis of its type, PREFIXSTEM_K.csv for
 * the K-th; the name is recorded in a->files[a->nfiles] (counted by the caller
 * once the file is complete). */
void io_result_path(const char* outdir, const char* stem, int ordinal, kd_analysis_report* a, char* path, size_t n);

/* Open the analysis' result file OUTDIR/PREFIXSTEM[_K].csv (io_result_path) under a temporary
 * name, to be closed by io_finish_file. */
kd_status io_open_result(kd_atomic_file* f, const char* outdir, const char* stem, int ordinal, kd_analysis_report* a,
                         kd_error* err);

/* A file streamed row by row, after its analysis: after a numerical failure
 * the rows so far are kept under the final name; any other failure discards
 * it; after an interruption (kd_interrupted) the rows are kept too, as after a numerical
 * failure. Counts the file in a->files when it is kept. Returns the analysis'
 * status, or the commit's failure when the analysis succeeded. */
kd_status io_finish_file(kd_atomic_file* f, kd_status st, kd_analysis_report* a, kd_error* err);

#endif
