/* The fuzz targets' shared helpers (fuzz/fuzz_common.h). */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kedyn/load_yaml.h"
#include "kedyn/mech.h"
#include "kedyn/model.h"

/* Above this many elements, compiling the model is the mesh's cost, not the
 * checks' (the loader itself was exercised in full). */
#define FUZZ_ELEMENTS_MAX 2000

static int small_enough(const kd_desc* d) {
    long total = 0;
    for (int b = 0; b < d->nbodies; b++) total += d->bodies[b].elements > 0 ? d->bodies[b].elements : 0;
    return total <= FUZZ_ELEMENTS_MAX;
}

/* The assembly and mobility at t = 0, as `kedyn check` prints them. */
static void assemble(const kd_mech* mech) {
    kd_error err;
    kd_mech_work* w = kd_mech_work_new(mech);
    double* q = malloc(sizeof(double) * (size_t)(mech->n + 1));
    if (w && q) {
        memcpy(q, mech->q0, sizeof(double) * (size_t)mech->n);
        kd_mech_kin_info info;
        kd_mech_mobility mob;
        kd_mech_solve_position(mech, w, 0.0, q, &info, &err);
        kd_mech_mobility_at(mech, 0.0, q, &mob, &err);
    }
    free(q);
    kd_mech_work_free(&w);
}

void fuzz_load_and_check(const char* text, size_t len, const char* name) {
    kd_error err;
    kd_error_clear(&err);
    kd_desc* d = NULL;
    if (kd_load_yaml_string(text, len, name, &d, &err)) return;
    if (small_enough(d)) {
        kd_model* m = NULL;
        if (!kd_model_compile(d, &m, &err) && kd_desc_is_mechanism(d)) {
            kd_mech* mech = NULL;
            kd_error_clear(&err);
            if (!kd_mech_compile(d, &mech, &err)) assemble(mech);
            kd_mech_free(&mech);
        }
        kd_model_free(&m);
    }
    kd_desc_free(&d);
}

static char path[512];

static void remove_temp_file(void) {
    if (path[0]) remove(path);
}

const char* fuzz_temp_file(const uint8_t* data, size_t size, const char* suffix) {
    if (!path[0]) atexit(remove_temp_file);
    const char* dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/kedyn_fuzz_%ld%s", dir && *dir ? dir : "/tmp", (long)getpid(), suffix);
    FILE* fp = fopen(path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp) != 0) {
        fprintf(stderr, "fuzz: cannot write %s\n", path);
        abort();
    }
    return path;
}
