/* Fuzz target: the bytes as the CSV file of a tabulated pose (motion
 * {pose: {file}}: columns t, x, y, z, phi_x, phi_y, phi_z by name). */
#include <stdio.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = fuzz_temp_file(data, size, ".csv");
    char model[2048];
    const int n = snprintf(model, sizeof model,
                           "kedyn: 1\n"
                           "materials: {steel: {E: 2.0e11, nu: 0.3, rho: 7850}}\n"
                           "sections: {s: {shape: circle, d: 0.02}}\n"
                           "bodies:\n"
                           "  - {name: rod, type: beam, material: steel, section: s, length: 0.5, elements: 4}\n"
                           "supports:\n"
                           "  - {body: rod, node: 1, fix: all}\n"
                           "motion:\n"
                           "  - {body: rod, pose: {file: '%s'}}\n"
                           "analyses:\n"
                           "  - {type: dynamics, t_end: 0.5, dt: 1e-3}\n",
                           path);
    if (n > 0 && (size_t)n < sizeof model) fuzz_load_and_check(model, (size_t)n, "fuzz_pose.yaml");
    return 0;
}
