/* kedyn: prescribed rigid motion of a body's floating frame.
 *
 * A body's frame carries its elastic displacements (theory.md sec. 2). Its
 * motion is prescribed by a `motion` entry (docs/model-format.md):
 *   rotation   about a fixed axis (unit vector n through point c) by an angle
 *              law theta(t): R(t) = Rot(n, theta) R0, r_O(t) = c + Rot(n, theta)
 *              (r0 + hub e_x0 - c), where (R0, r0) is the body's frame as
 *              built from its points and e_x0 its axis; hub moves the body
 *              outward along its own axis;
 *   planar     a tabulated planar pose: r_O(t) = (x(t), y(t), 0), R(t) =
 *              Rz(phi(t)), each a law (tables are splined, so velocities and
 *              accelerations are consistent with the positions);
 *   pose       a general tabulated 3D pose: r_O(t) = (x, y, z)(t) and R(t) =
 *              Exp([phi(t)]) R0, phi the rotation vector (axis times angle,
 *              global components) of the rotation applied to the body's
 *              reference frame; each of the six components is a law (a cubic
 *              spline through the table: C2), and omega = J(phi) phi',
 *              eps = J(phi) phi'' + J'(phi, phi') phi' follow exactly from the
 *              spline (J the left Jacobian of the exponential map), so that
 *              [omega] = R' R^T and eps = omega' hold to round-off.
 * kd_motion_eval gives R, the origin's position, velocity and acceleration,
 * and the angular velocity and acceleration, in global and local components
 * (omega_L = R^T omega, eps_L = R^T eps, a_O,L = R^T a_O).
 */
#ifndef KEDYN_FRAME_H
#define KEDYN_FRAME_H

#include "kedyn/law.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_motion_type {
    KD_MOTION_NONE = 0,           /* the frame stays where the body was built */
    KD_MOTION_ROTATION,
    KD_MOTION_PLANAR,
    KD_MOTION_POSE
} kd_motion_type;

typedef struct kd_motion {
    kd_motion_type type;
    double axis[3];               /* rotation: unit axis (global) */
    double center[3];             /* rotation: a point of the axis (global) */
    double hub;                   /* rotation: outward shift of the body origin along its axis, m */
    kd_law angle;                 /* rotation: theta(t), rad */
    kd_law x, y, phi;             /* planar: origin x(t), y(t) in m, angle phi(t) in rad */
    kd_law pose[6];               /* pose: origin x, y, z (m), rotation vector phi_x, phi_y,
                                     phi_z (rad), global components */
} kd_motion;

typedef struct kd_frame {
    double t;
    double R[9];                  /* local -> global, row-major (columns: local axes) */
    double rO[3], vO[3], aO[3];   /* origin: position, velocity, acceleration (global) */
    double omega[3], eps[3];      /* angular velocity and acceleration (global) */
    double omega_L[3], eps_L[3];  /* the same in local components */
    double vO_L[3], aO_L[3];      /* origin velocity and acceleration, local components */
} kd_frame;

/* Evaluate the frame of a body whose reference pose is (R0, r0) at time t. */
void kd_motion_eval(const kd_motion* mo, const double R0[9], const double r0[3], double t, kd_frame* f);

/* Angular velocity and acceleration (global) of R = Exp([phi]) R0 from the
 * rotation vector and its first two time derivatives; Q = Exp([phi]). */
void kd_rotvec_rates(const double phi[3], const double dphi[3], const double d2phi[3], double Q[9], double omega[3],
                     double eps[3]);

/* Smallest number of continuous derivatives among the motion's laws
 * (accelerations need 2). */
int kd_motion_smoothness(const kd_motion* mo);

/* Deep copy and release (laws may own tables). */
kd_status kd_motion_copy(kd_motion* dst, const kd_motion* src);
void kd_motion_free(kd_motion* mo);

#ifdef __cplusplus
}
#endif
#endif
