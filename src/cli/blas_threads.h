/* The BLAS thread count of kedyn's programs (the command line, the benchmarks): an
 * application's choice, never the library's (docs/cli.md, "Environment"). */
#ifndef KEDYN_CLI_BLAS_THREADS_H
#define KEDYN_CLI_BLAS_THREADS_H

/* One OpenBLAS thread unless OPENBLAS_NUM_THREADS or OMP_NUM_THREADS is set; nothing with
 * another BLAS (CMakeLists.txt: KEDYN_HAVE_OPENBLAS_THREADS). Call first thing in main. */
void app_blas_threads_default(void);

#endif
