/* Reused heap pages for large blocks (app_heap.h). glibc serves every block above its mmap
 * threshold (128 kB, rising to at most 32 MB) with fresh pages of its own mapping and unmaps them
 * at free: a large model's run allocates and frees its big arrays in turn (the pre-stress factor,
 * the assembly's pattern, the factor of K - sigma M, the Lanczos basis), and each new block's
 * pages are faulted in and zeroed by the kernel again. On the 300 x 240 plate at speed that is
 * 422 000 page faults for a peak of 180 000 pages, 14 % of a profile's samples
 * (docs/performance.md, "Reused heap pages"). Taken from the heap and not trimmed, a freed block's
 * pages serve the next one: 192 000 faults, 8 % less CPU for the process. The cost: a process
 * keeps its peak heap until it exits (kedyn's programs run one job and exit) and the heap's
 * fragmentation (+7 % of peak memory on that plate). */
#include "app_heap.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>

extern char** environ;

/* Has the user tuned glibc's allocator (GLIBC_TUNABLES glibc.malloc.*, MALLOC_*_ variables)? */
static int user_tuned(void) {
    const char* t = getenv("GLIBC_TUNABLES");
    if (t && strstr(t, "glibc.malloc.")) return 1;
    for (char** e = environ; e && *e; e++)
        if (strncmp(*e, "MALLOC_", 7) == 0) return 1;
    return 0;
}

void app_heap_default(void) {
    if (user_tuned()) return;
    mallopt(M_MMAP_MAX, 0);                  /* every block from the heap (thread arenas still map
                                                blocks larger than their 64 MB heaps) */
    mallopt(M_TRIM_THRESHOLD, INT_MAX);      /* freed pages stay for the next block */
}
#else
void app_heap_default(void) {}
#endif
