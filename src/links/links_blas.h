/* One BLAS thread for the small dense problems of the KED route (private to
 * src/ked). OpenBLAS's thread pool costs more than it gains on matrices of a
 * few dozen rows (measured on the pump: the 361 modal instants take 0.051 s
 * instead of 0.033 s on 2 cores), so these stages run their LAPACK calls on
 * one thread and restore the caller's setting afterwards. Weak references:
 * with another BLAS the functions are NULL and nothing is changed. */
#ifndef KEDYN_KED_BLAS_H
#define KEDYN_KED_BLAS_H

extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

/* Pin BLAS to one thread; returns the setting to restore (0: nothing to do). */
static inline int ked_blas_single(void) {
    if (!openblas_get_num_threads || !openblas_set_num_threads) return 0;
    const int n = openblas_get_num_threads();
    if (n > 1) openblas_set_num_threads(1);
    return n > 1 ? n : 0;
}

static inline void ked_blas_restore(int n) {
    if (n > 1 && openblas_set_num_threads) openblas_set_num_threads(n);
}

#endif
