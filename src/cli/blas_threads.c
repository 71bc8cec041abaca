/* One BLAS thread by default (blas_threads.h): kedyn's computations are serial and their
 * matrices small, and OpenBLAS's worker threads would spin on another core for nothing. */
#include "blas_threads.h"

#include <stdlib.h>

#ifdef KEDYN_HAVE_OPENBLAS_THREADS
void openblas_set_num_threads(int n);  /* OpenBLAS (CMakeLists.txt checks that the BLAS has it) */
#endif

void app_blas_threads_default(void) {
#ifdef KEDYN_HAVE_OPENBLAS_THREADS
    if (!getenv("OPENBLAS_NUM_THREADS") && !getenv("OMP_NUM_THREADS")) openblas_set_num_threads(1);
#endif
}
