/* Fuzz target: the bytes as the CSV file of a law's table (a driver's law
 * {table: {file, column}}), its column by header name and by number, with
 * spline and linear interpolation. */
#include <stdio.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = fuzz_temp_file(data, size, ".csv");
    char model[2048];
    const int n = snprintf(model, sizeof model,
                           "kedyn: 1\n"
                           "bodies:\n"
                           "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
                           "  - {name: crank, type: rigid, mass: 1, inertia: 0.1, points: {A: [0, 0]}}\n"
                           "joints:\n"
                           "  - {name: A, type: revolute, bodies: [ground, crank], points: [O, A]}\n"
                           "drivers:\n"
                           "  - {joint: A, law: {table: {file: '%s', column: phi}}}\n"
                           "analyses:\n"
                           "  - {type: kinematics, t_end: 1, steps: 10}\n"
                           "forces:\n"
                           "  - {type: gravity, g: [0, -9.81]}\n"
                           "  - {type: torque, body: crank, value: {table: {file: '%s', column: 2, "
                           "interpolation: linear}}}\n",
                           path, path);
    if (n > 0 && (size_t)n < sizeof model) fuzz_load_and_check(model, (size_t)n, "fuzz_table.yaml");
    return 0;
}
