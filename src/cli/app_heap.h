/* The heap policy of kedyn's programs (the command line, bench_plate): an application's choice,
 * never the library's (docs/cli.md, "Environment"). */
#ifndef KEDYN_CLI_APP_HEAP_H
#define KEDYN_CLI_APP_HEAP_H

/* Large blocks from the heap, kept for reuse after free, instead of fresh mmap'd pages (glibc:
 * M_MMAP_MAX = 0, M_TRIM_THRESHOLD 2 GB); nothing when the user set glibc's malloc tunables
 * (GLIBC_TUNABLES glibc.malloc.*, MALLOC_*_) or with another C library. Call first thing in main. */
void app_heap_default(void);

#endif
