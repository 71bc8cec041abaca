/* kedyn: the rows of a dynamics history, formatted and written beside the integration (not
 * public). The integration hands each row's numbers over (a copy of a few doubles); a thread of
 * the writer's own formats them (io_row_history) and writes the blocks, so that on a machine with
 * a second core the history's text and its write(2) calls cost the run no time of its own
 * (docs/performance.md, "The history written beside the integration"). The bytes are those of
 * io_row_history called row by row, in the same order.
 *
 * The thread starts when the first batch of rows is full (a short history is formatted in the
 * caller's thread, as before), and only if this process may run on more than one CPU. It waits on
 * a condition variable, never spinning. The ring holds the whole history when it fits in 4 MB (the
 * integration never waits for the thread, so a machine whose other core is busy loses little),
 * else as many batches as fit (at least three; the integration then waits when it is a whole ring
 * ahead). Memory: the ring (batches of IO_ROWS_BATCH rows of 1 + n + 4 doubles) and one 64 kB
 * block, allocated by io_rows_open; nothing is allocated per row. */
#ifndef KEDYN_OUTPUT_ROW_WRITER_H
#define KEDYN_OUTPUT_ROW_WRITER_H

#include <stdio.h>

#define IO_ROWS_BATCH 256

typedef struct io_rows io_rows;

/* Rows of t, n columns (x[idx[c]], 0 where idx[c] < 0; x[c] when idx is NULL) and, when energy is
 * nonzero, the four numbers of the energy balance, to fp (whose header is written; fp is not
 * touched by the caller until io_rows_close). rows: how many rows the history will have (the
 * ring's size; any number may be pushed). threaded = 0: always in the caller's thread (the same
 * bytes). NULL when out of memory. */
io_rows* io_rows_open(FILE* fp, int n, const int* idx, int energy, long rows, int threaded);
/* one row (e: the energy balance, read when the writer was opened with energy) */
void io_rows_push(io_rows* w, double t, const double* x, const double* e);
/* 0, or the errno of a block that could not be written (so far: the thread may not have reached
 * the last rows) */
int io_rows_failed(const io_rows* w);
/* every row written, the thread joined, the writer freed; 0 or the errno of a failed write */
int io_rows_close(io_rows* w);

#endif
