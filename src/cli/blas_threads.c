/* One BLAS thread by default (blas_threads.h): kedyn's computations are serial and their
 * matrices small. OpenBLAS starts its worker threads when it is loaded, before main, and each
 * spins on its core for a while (its thread timeout) before it sleeps: on a run of a few tenths
 * of a second that doubles the CPU time for nothing (docs/performance.md, "CPU time of a serial
 * run"). openblas_set_num_threads(1) keeps every later call on the calling thread, and
 * blas_thread_shutdown_ (OpenBLAS's own fork handler: it joins the workers; a later
 * multi-threaded call would start them again) ends the spinning at once. */
#include "blas_threads.h"

#include <stdlib.h>

#ifdef KEDYN_HAVE_OPENBLAS_THREADS
void openblas_set_num_threads(int n);  /* OpenBLAS (CMakeLists.txt checks that the BLAS has them) */
#endif
#ifdef KEDYN_HAVE_OPENBLAS_SHUTDOWN
int blas_thread_shutdown_(void);
#endif

void app_blas_threads_default(void) {
    if (getenv("OPENBLAS_NUM_THREADS") || getenv("OMP_NUM_THREADS")) return;  /* the user's choice */
#ifdef KEDYN_HAVE_OPENBLAS_THREADS
    openblas_set_num_threads(1);
#endif
#ifdef KEDYN_HAVE_OPENBLAS_SHUTDOWN
    blas_thread_shutdown_();
#endif
}
