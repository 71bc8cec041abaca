/* An undriven spatial chain of N rods (0.1 m, 0.1 kg) hanging from ground on spherical joints S0,
 * S1, ..., each rod turned out of the vertical about x or y by 0.2 sin(0.7 b), gravity along -z:
 * mobility 3 N, no redundant row. Not finished (the caller calls kd_smech_finish). Shared by
 * tests/smech_sparse_test.c and bench/bench_spatial.c. */
#ifndef KEDYN_TESTS_BALL_CHAIN_H
#define KEDYN_TESTS_BALL_CHAIN_H

#include <math.h>
#include <stdio.h>

#include "kedyn/smech.h"

static inline kd_smech* ball_chain(int N) {
    const double L = 0.1, mass = 0.1;
    const double I6[6] = {mass * L * L / 12, mass * L * L / 12, 1e-6, 0, 0, 0};
    double J[9], top[3] = {0, 0, 0};
    kd_inertia_tensor(I6, J);
    kd_smech* m = kd_smech_new();
    for (int b = 0; b < N; b++) {
        double R[9];
        const double ax[3] = {b % 2 ? 1.0 : 0.0, b % 2 ? 0.0 : 1.0, 0}, com[3] = {0, 0, -L / 2};
        kd_rot_axis_angle(ax, 0.2 * sin(0.7 * b), R);
        kd_smech_add_body(m, "rod", mass, J, com, top, R);
        const double P0[3] = {0, 0, b == 0 ? 0 : -L}, P1[3] = {0, 0, 0};
        char name[16];
        snprintf(name, sizeof(name), "S%d", b);
        kd_smech_add_joint(m, name, KD_SJOINT_SPHERICAL, b - 1, b, b == 0 ? top : P0, P1, NULL, NULL, 0);
        for (int i = 0; i < 3; i++) top[i] += R[3 * i + 2] * (-L);
    }
    m->g[2] = -9.81;
    return m;
}

#endif
