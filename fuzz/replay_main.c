/* Runs a fuzz target once on each file named on the command line (a
 * directory: each file in it), without libFuzzer: the regression tests of
 * tests/fuzz_regressions/ and the seed corpus in the ordinary and the
 * sanitizer builds. Prints the number of inputs; a crash is the failure. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char* path) {
    FILE* fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    unsigned char* buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char* nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(fp);
    if (!buf) return -1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 1;
}

static int run_path(const char* path) {
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay: no such file or directory: %s\n", path);
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) return run_file(path);
    DIR* dir = opendir(path);
    if (!dir) return -1;
    int count = 0;
    struct dirent* e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.') continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (stat(sub, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        const int k = run_file(sub);
        if (k < 0) return -1;
        count += k;
    }
    closedir(dir);
    return count;
}

int main(int argc, char** argv) {
    int total = 0;
    for (int i = 1; i < argc; i++) {
        const int k = run_path(argv[i]);
        if (k < 0) return 1;
        total += k;
    }
    printf("replay: %d inputs\n", total);
    return 0;
}
