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

/* Linked statically (CMakeLists.txt: KEDYN_STATIC_SOLVERS), OpenBLAS initialises in a constructor
 * that runs after this one (a constructor with a priority runs before those without): with
 * OPENBLAS_NUM_THREADS=1 it starts no worker thread at all, which saves creating and joining
 * them in every process (docs/performance.md, "Start-up and the cost of a small run"). The
 * variable is removed again first thing in main, so that the environment of main and of the
 * programs kedyn starts is the user's. With the shared OpenBLAS, whose constructor has already
 * run, this changes nothing and blas_thread_shutdown_ below stops the threads. */
static int blas_env_set, omp_env_set;

/* The same for OpenMP: Debian's CHOLMOD runs its supernodal factorisation on OpenMP threads (4
 * of them on a 2-core machine, about 0.9 s of CPU on the 216 543-DOF plate, docs/performance.md),
 * and libgomp reads its limit once, in its own constructor (statically linked: after this one). */
__attribute__((constructor(101))) static void app_blas_one_thread_env(void) {
    if (!getenv("OMP_NUM_THREADS") && !getenv("OMP_THREAD_LIMIT"))
        omp_env_set = setenv("OMP_THREAD_LIMIT", "1", 0) == 0;
    if (getenv("OPENBLAS_NUM_THREADS") || getenv("OMP_NUM_THREADS")) return;
    blas_env_set = setenv("OPENBLAS_NUM_THREADS", "1", 0) == 0;
}

void app_blas_threads_default(void) {
    if (omp_env_set) {
        unsetenv("OMP_THREAD_LIMIT");
        omp_env_set = 0;
    }
    if (blas_env_set) {
        unsetenv("OPENBLAS_NUM_THREADS");
        blas_env_set = 0;
    } else if (getenv("OPENBLAS_NUM_THREADS") || getenv("OMP_NUM_THREADS")) {
        return;  /* the user's choice */
    }
#ifdef KEDYN_HAVE_OPENBLAS_THREADS
    openblas_set_num_threads(1);
#endif
#ifdef KEDYN_HAVE_OPENBLAS_SHUTDOWN
    blas_thread_shutdown_();
#endif
}
