/* kedyn: numbers of the result CSV files, formatted as printf formats them but ~10x faster
 * (not public). A history of 10 000 rows is ~100 000 numbers: printf's exact multi-precision
 * conversion was a third of a small run (docs/performance.md, "Start-up and the cost of a
 * small run"). The output is the same, byte for byte, as printf's (tests/fmt_num_test.c). */
#ifndef KEDYN_OUTPUT_FMT_NUM_H
#define KEDYN_OUTPUT_FMT_NUM_H

#include <stdio.h>

/* Room for any number these write, with its terminating NUL. */
#define IO_FMT_MAX 40

/* x as snprintf(buf, IO_FMT_MAX, "%.*e", prec, x) writes it; returns the length. prec >= 0;
 * beyond 14 digits, and where x is within rounding error of a tie, snprintf itself (at most
 * IO_FMT_MAX - 1 characters: prec <= 30). */
int io_fmt_e(char* buf, double x, int prec);

/* x as snprintf(buf, IO_FMT_MAX, "%.*g", prec, x) writes it; returns the length. */
int io_fmt_g(char* buf, double x, int prec);

/* Rows of numbers buffered in blocks: the numbers appended, the rows ended, the block written to
 * fp's descriptor with write(2) when nearly full and by io_row_flush, after fp's own buffer is
 * flushed (a 1.3 MB history in 21 calls rather than one per 4 kB of stdio's buffer); a block that
 * cannot be written sets failed to its errno (not fp's error flag: the caller checks both). */
#define IO_ROW_BLOCK 65536
typedef struct io_row {
    FILE* fp;
    int len;
    int failed;                   /* 0, or the errno of the block's write that failed */
    char buf[IO_ROW_BLOCK];
} io_row;

void io_row_start(io_row* r, FILE* fp);
/* sep (0: none), then x as "%.*e" */
void io_row_e(io_row* r, char sep, double x, int prec);
/* ",%.*e" of each of x[idx[0]], ..., x[idx[n-1]] (0 where idx[c] < 0), or of x[0], ..., x[n-1]
 * when idx is NULL: io_row_e's bytes, one call for a row's columns */
void io_row_e_cols(io_row* r, const double* x, const int* idx, int n, int prec);
/* sep (0: none), then x as "%.*g" */
void io_row_g(io_row* r, char sep, double x, int prec);
/* a whole row of a dynamics history in one call: "%.10g" of t, ",%.10e" of the columns as
 * io_row_e_cols(r, x, idx, n, 10) writes them, then, when e is not NULL, ",%.10e" of e[0..2] and
 * ",%.4e" of e[3]; the newline */
void io_row_history(io_row* r, double t, const double* x, const int* idx, int n, const double* e);
/* the newline (the row stays in the block) */
void io_row_end(io_row* r);
/* the block to fp: before anything else writes to fp, and at the end */
void io_row_flush(io_row* r);

#endif
