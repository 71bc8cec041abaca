/* The keys of the description, one table per struct (kedyn/desc_fields.h).
 * A key is declared here once: the reader (src/load), the checks
 * (kd_desc_check), the defaults (kd_analysis_desc_init, kd_desc_add_*) and
 * the sweep paths (kd_desc_param) read these tables. The docs are those of
 * docs/model-format.md (tests/yaml_model_test.c checks that every key is
 * mentioned there). */
#include "kedyn/desc_fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "desc_names.h"

#define FIELD(k, t, s, m, ...) {.key = k, .type = t, .offset = offsetof(s, m), __VA_ARGS__}
#define NUMBER(k, s, m, ...) FIELD(k, KD_FIELD_NUMBER, s, m, __VA_ARGS__)
#define POSITIVE(k, s, m, ...) FIELD(k, KD_FIELD_NUMBER, s, m, .range = KD_RANGE_POSITIVE, __VA_ARGS__)
#define NONNEG(k, s, m, ...) FIELD(k, KD_FIELD_NUMBER, s, m, .range = KD_RANGE_NONNEGATIVE, __VA_ARGS__)
#define INT(k, s, m, least, ...) FIELD(k, KD_FIELD_INT, s, m, .lo = least, __VA_ARGS__)
#define BOOL(k, s, m, ...) FIELD(k, KD_FIELD_BOOL, s, m, __VA_ARGS__)
/* a choice among names[first..count-1]; value = index in names */
#define CHOICE(k, s, m, arr, count, from, ...) \
    FIELD(k, KD_FIELD_CHOICE, s, m, .names = (arr) + (from), .nnames = (count) - (from), .first = from, __VA_ARGS__)
#define BODY(k, s, m, ...) FIELD(k, KD_FIELD_BODY, s, m, .def = -1, __VA_ARGS__)
#define LIST(k, s, m, cnt, r, ...) FIELD(k, KD_FIELD_LIST, s, m, .count_offset = offsetof(s, cnt), .range = r, __VA_ARGS__)
#define CUSTOM(k, ...) {.key = k, .type = KD_FIELD_CUSTOM, __VA_ARGS__}
#define TYPE CUSTOM("type", .required = 1, .doc = "the analysis type")

/* ---- the top level of a model file -------------------------------------- */

static const kd_field model_fields[] = {
    CUSTOM("kedyn", .required = 1, .doc = "format version; must be 1"),
    CUSTOM("title", .doc = "free text, copied to summary.json"),
    CUSTOM("materials", .doc = "mapping name -> material"),
    CUSTOM("sections", .doc = "mapping name -> section"),
    CUSTOM("bodies", .required = 1, .doc = "list of bodies"),
    CUSTOM("supports", .doc = "list of supports"),
    CUSTOM("analyses", .doc = "list of analyses, run in order"),
    CUSTOM("output", .doc = "output requests"),
    CUSTOM("motion", .doc = "list of prescribed frame motions"),
    CUSTOM("damping", .doc = "list of Rayleigh damping entries"),
    CUSTOM("forces", .doc = "list of loads"),
    CUSTOM("joints", .doc = "list of joints of a mechanism"),
    CUSTOM("spatial", .doc = "true: a spatial rigid mechanism (see Spatial mechanisms)"),
    CUSTOM("drivers", .doc = "list of drivers of a mechanism"),
    BOOL("force", kd_desc, force, .doc = "run even when the estimated resources exceed kedyn's limits"),
    CUSTOM("records", .doc = "list of measured records (CSV or Universal Files)"),
    CUSTOM("sensors", .doc = "list of sensors placed on the bodies"),
};

const kd_field* kd_model_fields(int* n) {
    *n = (int)(sizeof model_fields / sizeof model_fields[0]);
    return model_fields;
}

/* ---- analyses ----------------------------------------------------------- */

static const kd_field modes_fields[] = {
    TYPE,
    INT("count", kd_modes_desc, count, 1, .def = 6, .doc = "number of modes"),
    CHOICE("solver", kd_modes_desc, solver, desc_eigen_solver_names, KD_EIGEN_SOLVERS, 0, .def = KD_EIGEN_AUTO,
           .doc = "auto, dense (LAPACK) or lanczos (ARPACK shift-invert)"),
    NONNEG("at", kd_modes_desc, at, .doc = "the instant of the frame motion, s"),
};

static const kd_field campbell_fields[] = {
    TYPE,
    BODY("body", kd_campbell_desc, body, .doc = "the rotating body (default: the only one)"),
    INT("count", kd_campbell_desc, count, 1, .def = 6, .doc = "number of modes"),
    LIST("speeds", kd_campbell_desc, speeds, nspeeds, KD_RANGE_NONNEGATIVE, .required = 1, .doc = "rotation speeds, rad/s"),
};

static const kd_field stability_fields[] = {
    TYPE,
    BODY("body", kd_stability_desc, body, .doc = "the rotating body (default: the only one)"),
    INT("count", kd_stability_desc, count, 1, .def = 6, .doc = "number of modes"),
    LIST("hubs", kd_stability_desc, hubs, nhubs, KD_RANGE_NONNEGATIVE, .required = 1, .doc = "hub distances, m"),
    LIST("lengths", kd_stability_desc, lengths, nlengths, KD_RANGE_POSITIVE, .required = 1, .doc = "beam lengths, m"),
    LIST("thicknesses", kd_stability_desc, thicknesses, nthicknesses, KD_RANGE_POSITIVE,
         .doc = "plate thicknesses, m (a third axis of the map)"),
    POSITIVE("omega_max", kd_stability_desc, omega_max, .required = 1, .doc = "the largest speed searched, rad/s"),
};

static const kd_field dynamics_fields[] = {
    TYPE,
    POSITIVE("t_end", kd_dynamics_desc, t_end, .required = 1, .doc = "end time, s"),
    CHOICE("integrator", kd_dynamics_desc, integrator, desc_integrator_names, KD_INTEGRATORS, 1,
           .doc = "the time integrator (default: generalized-alpha; mechanisms and two-way links: rk4)"),
    NONNEG("dt", kd_dynamics_desc, dt, .doc = "fixed step, or first step of adaptive integrators, s"),
    NONNEG("dt_max", kd_dynamics_desc, dt_max, .doc = "largest adaptive step, s (0: free)"),
    POSITIVE("rtol", kd_dynamics_desc, rtol, .def = 1e-8, .doc = "relative tolerance (adaptive)"),
    POSITIVE("atol", kd_dynamics_desc, atol, .def = 1e-10, .doc = "absolute tolerance (adaptive)"),
    NUMBER("rho_inf", kd_dynamics_desc, rho_inf, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 1, .def = 0.9,
           .doc = "generalized-alpha spectral radius at infinity"),
    NUMBER("alpha", kd_dynamics_desc, hht_alpha, .range = KD_RANGE_CLOSED, .lo = -1.0 / 3.0, .hi = 0, .def = -0.05,
           .range_words = "lie in [-1/3, 0]", .doc = "hht alpha"),
    NUMBER("beta", kd_dynamics_desc, newmark_beta, .def = 0.25, .doc = "newmark beta"),
    NUMBER("gamma", kd_dynamics_desc, newmark_gamma, .def = 0.5, .doc = "newmark gamma"),
    INT("output_every", kd_dynamics_desc, output_every, 1, .def = 1, .doc = "a row every N steps"),
    CUSTOM("initial", .doc = "zero, static, or {static, mode, amplitude, nodes}"),
    BOOL("energy", kd_dynamics_desc, energy, .doc = "write the energy and work balance"),
    CHOICE("formalism", kd_dynamics_desc, formalism, desc_formalism_names, KD_DYN_FORMALISMS, 1,
           .doc = "the route of the inertia terms (default: invariants; mechanisms: the formulation's)"),
    CHOICE("formulation", kd_dynamics_desc, formulation, desc_formulation_names, KD_FORMULATIONS, 1,
           .doc = "mechanisms: forward-dynamics formulation (default augmented)"),
    CHOICE("stabilization", kd_dynamics_desc, stabilization, desc_stabilization_names, KD_STABILIZATIONS, 1,
           .doc = "mechanisms: constraint stabilization (default baumgarte)"),
    CHOICE("coupling", kd_dynamics_desc, coupling, desc_coupling_names, KD_COUPLINGS, 1,
           .doc = "mechanisms with elastic links: one-way (default) or two-way"),
    CHOICE("nonlinear_solver", kd_dynamics_desc, nonlinear_solver, desc_nonlinear_solver_names, KD_NONLINEAR_SOLVERS,
           1, .doc = "mechanisms, cvode-bdf or cvode-adams: newton (default for bdf) or fixed-point (adams)"),
    INT("steps", kd_dynamics_desc, steps, 2, .def = 100, .doc = "one-way links: samples of the rigid motion"),
    POSITIVE("speed", kd_dynamics_desc, speed, .doc = "one-way links: constant speed of the first driver, rad/s"),
    NONNEG("settle", kd_dynamics_desc, settle, .doc = "one-way links: time the rigid mechanism runs first, s"),
};

static const kd_field kinematics_fields[] = {
    TYPE,
    POSITIVE("t_end", kd_kinematics_desc, t_end, .required = 1, .doc = "end time, s"),
    INT("steps", kd_kinematics_desc, steps, 1, .def = 100, .doc = "time steps"),
    NUMBER("cond_max", kd_kinematics_desc, cond_max, .range = KD_RANGE_OPEN, .lo = 1, .hi = INFINITY,
           .def = KD_COND_MAX_DEFAULT, .range_words = "exceed 1", .doc = "condition number of Phi_q reported as singular"),
    BOOL("points", kd_kinematics_desc, points, .doc = "also every named point of the rigid bodies"),
};

static const kd_field inverse_dynamics_fields[] = {
    TYPE,
    POSITIVE("t_end", kd_inverse_dynamics_desc, t_end, .required = 1, .doc = "end time, s"),
    INT("steps", kd_inverse_dynamics_desc, steps, 1, .def = 100, .doc = "time steps"),
    NUMBER("cond_max", kd_inverse_dynamics_desc, cond_max, .range = KD_RANGE_OPEN, .lo = 1, .hi = INFINITY,
           .def = KD_COND_MAX_DEFAULT, .range_words = "exceed 1", .doc = "condition number of Phi_q reported as singular"),
};

static const kd_field modes_along_motion_fields[] = {
    TYPE,
    POSITIVE("t_end", kd_modes_along_motion_desc, t_end, .doc = "end time, s (with speed: one revolution when omitted)"),
    INT("steps", kd_modes_along_motion_desc, steps, 1, .def = 72, .doc = "instants"),
    INT("count", kd_modes_along_motion_desc, count, 1, .def = 6, .doc = "modes per link"),
    BODY("body", kd_modes_along_motion_desc, body, .doc = "one link only (default: every link)"),
    POSITIVE("speed", kd_modes_along_motion_desc, speed, .doc = "constant speed of the first driver, rad/s"),
    NUMBER("cond_max", kd_modes_along_motion_desc, cond_max, .range = KD_RANGE_OPEN, .lo = 1, .hi = INFINITY,
           .def = KD_COND_MAX_DEFAULT, .range_words = "exceed 1", .doc = "condition number of Phi_q reported as singular"),
    NONNEG("settle", kd_modes_along_motion_desc, settle, .doc = "time the rigid mechanism runs first, s"),
    CHOICE("gyroscopic", kd_modes_along_motion_desc, gyroscopic, desc_gyroscopic_names, KD_GYROSCOPICS, 1,
           .doc = "true (default), false or dense"),
};

static const kd_field sweep_fields[] = {
    TYPE,
    CUSTOM("set", .required = 1, .doc = "a parameter path, or a list of them"),
    CUSTOM("values", .required = 1, .doc = "the values, one list per run with several paths"),
    CUSTOM("analysis", .required = 1, .doc = "the analysis repeated"),
};

/* ---- measured records (docs/model-format.md, "Records") ------------------ */

/* kd_window_type, kd_detrend and kd_frf_quantity of kedyn/signal.h, in their enum order */
static const char* const window_names[] = {"rect", "hann", "flattop", "exponential", "force"};
static const char* const detrend_names[] = {"none", "mean", "linear"};
static const char* const from_frf_names[] = {"frf"};
static const char* const identify_method_names[] = {"lscf", "peaks"};
static const char* const quantity_names[] = {"displacement", "velocity", "acceleration"};
static const char* const measured_names[] = {"identify", "spectrum", "record"};
static const char* const computed_names[] = {"modes", "modes_along_motion"};

static const kd_field spectrum_fields[] = {
    TYPE,
    CUSTOM("record", .required = 1, .doc = "the record's name (records, or a virtual_test's record)"),
    CUSTOM("columns", .doc = "the columns analysed (default: every channel)"),
    CHOICE("window", kd_spectrum_desc, window, window_names, 5, 0, .def = 1, .doc = "rect, hann, flattop, exponential or force"),
    NUMBER("window_param", kd_spectrum_desc, window_param, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 1,
           .doc = "exponential: the window's last value; force: the fraction kept (0: default)"),
    INT("segment", kd_spectrum_desc, segment, 4, .def = 4096, .doc = "samples per segment"),
    NUMBER("overlap", kd_spectrum_desc, overlap, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 0.95, .def = 0.5,
           .doc = "fraction of a segment shared with the next"),
    CHOICE("detrend", kd_spectrum_desc, detrend, detrend_names, 3, 0, .def = 1, .doc = "none, mean or linear"),
    CUSTOM("speed", .doc = "a column of shaft speed in rpm: also a waterfall against it"),
    BOOL("orders", kd_spectrum_desc, orders, .doc = "also the spectrum against orders of the shaft speed (needs angle or speed)"),
    CUSTOM("angle", .doc = "a column of shaft angle in rad (increasing), for orders (default: integrated from speed)"),
    INT("samples_per_rev", kd_spectrum_desc, samples_per_rev, 4, .def = 64, .doc = "orders: angular samples per revolution"),
    INT("revs_per_segment", kd_spectrum_desc, revs_per_segment, 1, .def = 8,
        .doc = "orders: revolutions per segment (order resolution 1 / revs_per_segment)"),
};

static const kd_field frf_fields[] = {
    TYPE,
    CUSTOM("record", .required = 1, .doc = "the record's name"),
    CUSTOM("force", .required = 1, .doc = "the force column"),
    CUSTOM("responses", .required = 1, .doc = "the response columns (or sensor names)"),
    INT("hits", kd_frf_desc, hits, 1, .def = 1, .doc = "the record holds this many hits of equal length"),
    INT("segment", kd_frf_desc, segment, 0, .doc = "samples per block (0: one block per hit)"),
    NUMBER("overlap", kd_frf_desc, overlap, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 0.95, .doc = "between blocks of a hit"),
    CHOICE("window", kd_frf_desc, window, window_names, 5, 0, .def = 0, .doc = "the responses' window: rect, hann, exponential, ..."),
    NUMBER("window_param", kd_frf_desc, window_param, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 1,
           .doc = "exponential: the window's last value (0: 0.01)"),
    CHOICE("force_window", kd_frf_desc, force_window, window_names, 5, 0, .def = 0, .doc = "the force's window: rect or force"),
    NUMBER("force_window_param", kd_frf_desc, force_window_param, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 1,
           .doc = "force window: the fraction of the block kept (0: 0.1)"),
    CHOICE("detrend", kd_frf_desc, detrend, detrend_names, 3, 0, .def = 0, .doc = "none, mean or linear"),
};

static const kd_field identify_fields[] = {
    TYPE,
    CHOICE("from", kd_identify_desc, from, from_frf_names, 1, 0, .def = 0, .doc = "frf: the latest frf analysis before it"),
    CHOICE("method", kd_identify_desc, method, identify_method_names, 2, 0, .def = 0,
           .doc = "lscf (stabilisation diagram) or peaks (peak picking, half-power damping)"),
    LIST("band", kd_identify_desc, band, nband, KD_RANGE_NONNEGATIVE, .doc = "[fmin, fmax], Hz (default: every line)"),
    INT("order_min", kd_identify_desc, order_min, 2, .def = 2, .doc = "lscf: the lowest model order"),
    INT("order_max", kd_identify_desc, order_max, 2, .def = 40, .doc = "lscf: the highest model order (<= 200)"),
    INT("min_stable", kd_identify_desc, min_stable, 1, .def = 5, .doc = "lscf: stable successive orders that select a mode"),
    NUMBER("threshold", kd_identify_desc, threshold, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 0.99, .def = 0.05,
           .doc = "peaks: the smallest peak kept, a fraction of the largest"),
    CHOICE("quantity", kd_identify_desc, quantity, quantity_names, 3, 0, .def = 2,
           .doc = "what the responses measure: displacement, velocity or acceleration"),
};

static const kd_field correlate_fields[] = {
    TYPE,
    CHOICE("measured", kd_correlate_desc, measured, measured_names, 3, 0, .def = 0,
           .doc = "identify (the latest identify's modes), spectrum (the latest spectrum's peaks) or record (its mode shapes)"),
    CUSTOM("record", .doc = "measured: record: a record holding mode shapes (Universal File dataset 55)"),
    CHOICE("computed", kd_correlate_desc, computed, computed_names, 2, 0, .def = 0,
           .doc = "modes (the latest modes analysis) or modes_along_motion (frequencies along the cycle)"),
    NUMBER("min_mac", kd_correlate_desc, min_mac, .range = KD_RANGE_CLOSED, .lo = 0, .hi = 1, .def = 0.5,
           .doc = "pairs with a smaller MAC are dropped"),
    NUMBER("instant", kd_correlate_desc, instant, .range = KD_RANGE_CLOSED, .lo = 0, .hi = INFINITY, .def = -1,
           .doc = "computed: modes_along_motion with measured: identify or record: the time of the motion, s, whose modes are compared"),
};

static const kd_field virtual_test_fields[] = {
    TYPE,
    CUSTOM("record", .required = 1, .doc = "the name of the record it makes"),
    BODY("body", kd_virtual_test_desc, body, .required = 1, .doc = "the body hit"),
    INT("node", kd_virtual_test_desc, node, 1, .required = 1, .doc = "the node hit (1-based)"),
    CUSTOM("direction", .required = 1, .doc = "the force's direction, body frame"),
    POSITIVE("duration", kd_virtual_test_desc, duration, .def = 5e-4, .doc = "of the half-sine pulse, s"),
    POSITIVE("amplitude", kd_virtual_test_desc, amplitude, .def = 100, .doc = "the pulse's peak, N"),
    POSITIVE("rate", kd_virtual_test_desc, rate, .required = 1, .doc = "sample rate, Hz"),
    POSITIVE("length", kd_virtual_test_desc, length, .required = 1, .doc = "the record of one hit, s"),
    INT("hits", kd_virtual_test_desc, hits, 1, .def = 5, .doc = "hits, one record each, one after the other"),
    NONNEG("noise", kd_virtual_test_desc, noise, .doc = "Gaussian noise: standard deviation over the channel's RMS"),
    INT("seed", kd_virtual_test_desc, seed, 0, .def = 1, .doc = "of the noise generator"),
    INT("substeps", kd_virtual_test_desc, substeps, 1, .def = 10, .doc = "integration steps per sample"),
    CUSTOM("sensors", .doc = "the sensors recorded (default: every sensor without a record)"),
};

static const kd_field record_fields[] = {
    CUSTOM("name", .required = 1, .doc = "the record's name"),
    CUSTOM("file", .required = 1, .doc = "a CSV file or a Universal File (.uff, .unv)"),
    CUSTOM("time", .doc = "CSV: the time column"),
    POSITIVE("rate", kd_record_desc, rate, .doc = "CSV without a time column: the sample rate, Hz"),
};

static const kd_field sensor_fields[] = {
    CUSTOM("name", .required = 1, .doc = "the sensor's name"),
    BODY("body", kd_sensor_desc, body, .required = 1, .doc = "the body it is on"),
    INT("node", kd_sensor_desc, node, 1, .doc = "its node (this or point)"),
    CUSTOM("point", .doc = "a named point of the body at a node"),
    CUSTOM("direction", .required = 1, .doc = "its measuring direction, body frame"),
    CUSTOM("record", .doc = "the record holding its signal"),
    CUSTOM("column", .doc = "its column in that record (default: the sensor's name)"),
};

#define TABLE(t) {t, (int)(sizeof(t) / sizeof((t)[0]))}
static const struct {
    const kd_field* f;
    int n;
} analysis_tables[KD_ANALYSIS_TYPES] = {
    [KD_ANALYSIS_MODES] = TABLE(modes_fields),
    [KD_ANALYSIS_CAMPBELL] = TABLE(campbell_fields),
    [KD_ANALYSIS_STABILITY] = TABLE(stability_fields),
    [KD_ANALYSIS_DYNAMICS] = TABLE(dynamics_fields),
    [KD_ANALYSIS_KINEMATICS] = TABLE(kinematics_fields),
    [KD_ANALYSIS_INVERSE_DYNAMICS] = TABLE(inverse_dynamics_fields),
    [KD_ANALYSIS_MODES_ALONG_MOTION] = TABLE(modes_along_motion_fields),
    [KD_ANALYSIS_SWEEP] = TABLE(sweep_fields),
    [KD_ANALYSIS_SPECTRUM] = TABLE(spectrum_fields),
    [KD_ANALYSIS_FRF] = TABLE(frf_fields),
    [KD_ANALYSIS_IDENTIFY] = TABLE(identify_fields),
    [KD_ANALYSIS_CORRELATE] = TABLE(correlate_fields),
    [KD_ANALYSIS_VIRTUAL_TEST] = TABLE(virtual_test_fields),
};

/* ---- materials and sections --------------------------------------------- */

static const kd_field material_fields[] = {
    POSITIVE("E", kd_material_desc, E, .required = 1, .doc = "Young's modulus, Pa"),
    POSITIVE("rho", kd_material_desc, rho, .required = 1, .doc = "density, kg/m^3"),
    NUMBER("nu", kd_material_desc, nu, .range = KD_RANGE_OPEN, .lo = -1, .hi = 0.5, .def = 0.3, .doc = "Poisson's ratio"),
    NONNEG("G", kd_material_desc, G, .doc = "shear modulus, Pa (0: E / (2 (1 + nu)))"),
};

static const char* const shape_names[] = {"circle", "tube", "rectangle", "generic"};
#define SHAPES(...) .only = (__VA_ARGS__)
#define S(x) (1u << KD_SHAPE_##x)
static const kd_field section_fields[] = {
    CHOICE("shape", kd_section_desc, shape, shape_names, 4, 0, .required = 1, .doc = "circle, tube, rectangle or generic"),
    POSITIVE("d", kd_section_desc, d, .required = 1, SHAPES(S(CIRCLE) | S(TUBE)), .doc = "diameter (tube: outer), m"),
    POSITIVE("t", kd_section_desc, t, .required = 1, SHAPES(S(TUBE)), .doc = "wall thickness, m"),
    POSITIVE("b", kd_section_desc, b, .required = 1, SHAPES(S(RECTANGLE)), .doc = "width along local z, m"),
    POSITIVE("h", kd_section_desc, h, .required = 1, SHAPES(S(RECTANGLE)), .doc = "height along local y, m"),
    POSITIVE("A", kd_section_desc, A, .required = 1, SHAPES(S(GENERIC)), .doc = "area, m^2"),
    POSITIVE("Iy", kd_section_desc, Iy, .required = 1, SHAPES(S(GENERIC)), .doc = "second moment about y, m^4"),
    POSITIVE("Iz", kd_section_desc, Iz, .required = 1, SHAPES(S(GENERIC)), .doc = "second moment about z, m^4"),
    POSITIVE("J", kd_section_desc, J, .required = 1, SHAPES(S(GENERIC)), .doc = "torsion constant, m^4"),
    CUSTOM("shear", SHAPES(S(CIRCLE) | S(TUBE) | S(RECTANGLE)), .doc = "shear coefficient kappa (both axes)"),
    POSITIVE("shear_y", kd_section_desc, shear_y, SHAPES(S(GENERIC)), .doc = "shear coefficient along y"),
    POSITIVE("shear_z", kd_section_desc, shear_z, SHAPES(S(GENERIC)), .doc = "shear coefficient along z"),
};

/* ---- bodies (`only`: a mask of (1 << kd_body_type)) ---------------------- */

#define B(x) (1u << KD_BODY_##x)
static const char* const body_type_names[] = {"ground", "beam", "rigid", "plate"};
static const char* const static_correction_names[] = {"none", "output", "basis"};
static const kd_field body_fields[] = {
    CUSTOM("name", .required = 1, .doc = "unique name"),
    CHOICE("type", kd_body_desc, type, body_type_names, 4, 0, .required = 1, .doc = "ground, beam, rigid or plate"),
    CUSTOM("points", .only = B(GROUND) | B(BEAM) | B(RIGID), .doc = "named points {NAME: [x, y(, z)]}"),
    CUSTOM("material", .required = 1, .only = B(BEAM) | B(PLATE), .doc = "a material's name"),
    CUSTOM("section", .required = 1, .only = B(BEAM), .doc = "a section's name"),
    POSITIVE("length", kd_body_desc, length, .only = B(BEAM), .doc = "m (this or points)"),
    INT("elements", kd_body_desc, elements, 1, .required = 1, .only = B(BEAM), .doc = "number of elements"),
    CHOICE("theory", kd_body_desc, theory, desc_theory_names, 4, 0, .def = KD_THEORY_EULER_BERNOULLI, .only = B(BEAM),
           .doc = "bar, euler-bernoulli, rayleigh or timoshenko"),
    CHOICE("interpolation", kd_body_desc, interpolation, desc_interp_names, 2, 0, .def = KD_INTERP_CUBIC,
           .only = B(BEAM), .doc = "cubic or quintic"),
    BOOL("planar", kd_body_desc, planar, .def = 1, .only = B(BEAM), .doc = "planar element, or false for 3D"),
    BOOL("geometric_stiffness", kd_body_desc, geometric_stiffness, .def = 1, .only = B(BEAM) | B(PLATE),
         .doc = "stress stiffening of the axial force (plates: of the membrane pre-stress)"),
    /* a plate's theory and interpolation: the two-dimensional values (the defaults are the beam
     * rows', so that kd_fields_defaults keeps them; a model file must give these) */
    CHOICE("theory", kd_body_desc, theory, desc_theory_names, KD_THEORIES, KD_THEORY_MEMBRANE,
           .def = KD_THEORY_EULER_BERNOULLI, .required = 1, .only = B(PLATE), .doc = "plates: membrane, kirchhoff, mindlin or shell"),
    CHOICE("interpolation", kd_body_desc, interpolation, desc_interp_names, KD_INTERPS, KD_INTERP_CST, .def = KD_INTERP_CUBIC,
           .required = 1, .only = B(PLATE), .doc = "plates: cst, t6, q4, q8, q9, dkt, acm, bfs or mitc4"),
    POSITIVE("thickness", kd_body_desc, thickness, .required = 1, .only = B(PLATE), .doc = "plates: thickness, m"),
    CUSTOM("mesh", .required = 1, .only = B(PLATE), .doc = "plates: {rectangle, divisions} or {file}, see Meshes"),
    CUSTOM("node_sets", .only = B(PLATE), .doc = "plates: {NAME: predicate or node list}, see Node sets"),
    CUSTOM("y_axis", .only = B(BEAM), .doc = "3D beams: a direction for the local y axis"),
    NUMBER("preload", kd_body_desc, preload, .only = B(BEAM), .doc = "static axial force, N"),
    CUSTOM("frame", .only = B(BEAM), .doc = "elastic links: chord, root, or a node"),
    INT("modes", kd_body_desc, modes, 0, .only = B(BEAM),
        .doc = "elastic links (one-way): projected on their lowest N constrained modes at rest (0, the default: the full link)"),
    CHOICE("static_correction", kd_body_desc, statics, static_correction_names, 3, 0, .def = 1, .only = B(BEAM),
           .doc = "with modes: output (the truncated modes' static share at the output instants), basis or none"),
    POSITIVE("mass", kd_body_desc, mass, .required = 1, .only = B(RIGID), .doc = "kg"),
    POSITIVE("inertia", kd_body_desc, inertia, .required = 1, .only = B(RIGID), .doc = "about the centre of mass, kg m^2"),
    CUSTOM("com", .only = B(RIGID), .doc = "centre of mass in the body frame, m"),
    CUSTOM("position", .only = B(RIGID), .doc = "initial guess of the frame origin, m"),
    NUMBER("angle", kd_body_desc, angle, .only = B(RIGID), .doc = "initial guess of the frame angle, rad"),
};

/* ---- supports and dampings ---------------------------------------------- */

static const kd_field support_fields[] = {
    BODY("body", kd_support_desc, body, .required = 1, .doc = "a beam's or plate's name"),
    INT("node", kd_support_desc, node, 1, .doc = "1-based node number on that body (this or nodes)"),
    CUSTOM("nodes", .doc = "plates: a node set's name (every node of the set)"),
    CUSTOM("fix", .required = 1, .doc = "all (a clamp), or a list of DOF names"),
};

static const kd_field damping_fields[] = {
    BODY("body", kd_damping_desc, body, .required = 1, .doc = "a beam's name"),
    CUSTOM("rayleigh", .required = 1, .doc = "{alpha, beta}: C = alpha M + beta K of the body"),
};

static const kd_field rayleigh_fields[] = {
    NONNEG("alpha", kd_damping_desc, alpha, .doc = "mass-proportional coefficient, 1/s"),
    NONNEG("beta", kd_damping_desc, beta, .doc = "stiffness-proportional coefficient, s"),
};

/* ---- joints and drivers (joints: `only` is a mask of (1 << kd_joint_type)) */

#define J(x) (1u << KD_JOINT_##x)
static const kd_field joint_fields[] = {
    CUSTOM("name", .required = 1, .doc = "unique name"),
    CHOICE("type", kd_joint_desc, type, desc_joint_type_names, KD_JOINT_TYPES, 0, .required = 1,
           .doc = "revolute, prismatic, fixed, distance or rolling"),
    CUSTOM("bodies", .required = 1, .doc = "[B1, B2]: ground, rigid bodies, or beams given by points"),
    CUSTOM("points", .required = 1, .doc = "[P1, P2]: a point of B1 and a point of B2"),
    CUSTOM("axis", .only = J(PRISMATIC) | J(ROLLING), .doc = "direction in B1's frame (default [1, 0])"),
    POSITIVE("length", kd_joint_desc, length, .only = J(DISTANCE), .doc = "m (default: the distance in the initial guess)"),
    POSITIVE("radius", kd_joint_desc, radius, .required = 1, .only = J(ROLLING), .doc = "the rolling disc's radius, m"),
};

static const kd_field driver_fields[] = {
    CUSTOM("joint", .required = 1, .doc = "a revolute or prismatic joint's name"),
    CUSTOM("law", .required = 1, .doc = "a law of time, or {angle: a}"),
    NUMBER("initial", kd_driver_desc, initial, .doc = "added to the law, rad or m"),
};

/* ---- loads (`forces:` items), one table per kd_load_type ---------------- */

#define LOAD_TYPE CUSTOM("type", .required = 1, .doc = "the force type")
static const kd_field nodal_fields[] = {
    LOAD_TYPE,
    BODY("body", kd_load_desc, body, .required = 1, .doc = "a beam's or plate's name"),
    INT("node", kd_load_desc, node, 1, .doc = "1-based node number on that body (this or nodes)"),
    CUSTOM("nodes", .doc = "plates: a node set's name (the value at every node of the set)"),
    CUSTOM("dof", .required = 1, .doc = "the DOF name the force acts on (body frame)"),
    CUSTOM("value", .required = 1, .doc = "a law of time, N or N m"),
};
static const kd_field gravity_fields[] = {
    LOAD_TYPE,
    CUSTOM("g", .required = 1, .doc = "[gx, gy(, gz)], m/s^2, global"),
};
static const kd_field spring_fields[] = {
    LOAD_TYPE,
    CUSTOM("bodies", .required = 1, .doc = "[B1, B2]: ground or rigid bodies"),
    CUSTOM("points", .required = 1, .doc = "[P1, P2]: a point of each body"),
    NONNEG("k", kd_load_desc, k, .required = 1, .doc = "stiffness, N/m"),
    NONNEG("length", kd_load_desc, length, .doc = "free length, m (0: a zero-length vector spring)"),
    NONNEG("c", kd_load_desc, c, .doc = "damping, N s/m"),
};
static const kd_field friction_fields[] = {
    LOAD_TYPE,
    CUSTOM("joint", .required = 1, .doc = "a revolute or prismatic joint's name"),
    NONNEG("force", kd_load_desc, force, .required = 1, .doc = "Coulomb force, N (N m at a revolute)"),
    POSITIVE("v_smooth", kd_load_desc, v_smooth, .def = KD_FRICTION_V_SMOOTH_DEFAULT, .doc = "smoothing speed, m/s or rad/s"),
};
static const kd_field torque_fields[] = {
    LOAD_TYPE,
    CUSTOM("body", .required = 1, .doc = "a rigid body's name"),
    CUSTOM("value", .required = 1, .doc = "a law of time, N m"),
};
static const kd_field force_fields[] = {
    LOAD_TYPE,
    CUSTOM("body", .required = 1, .doc = "a rigid body's name"),
    CUSTOM("point", .required = 1, .doc = "a point of that body"),
    CUSTOM("value", .required = 1, .doc = "[Fx, Fy], each a law of time, N, global"),
};

static const struct {
    const char* name;
    const kd_field* f;
    int n;
} load_tables[KD_LOAD_TYPES] = {
    [KD_LOAD_NODAL] = {"nodal", nodal_fields, (int)(sizeof(nodal_fields) / sizeof((nodal_fields)[0]))},
    [KD_LOAD_GRAVITY] = {"gravity", gravity_fields, (int)(sizeof(gravity_fields) / sizeof((gravity_fields)[0]))},
    [KD_LOAD_SPRING] = {"spring", spring_fields, (int)(sizeof(spring_fields) / sizeof((spring_fields)[0]))},
    [KD_LOAD_FRICTION] = {"friction", friction_fields, (int)(sizeof(friction_fields) / sizeof((friction_fields)[0]))},
    [KD_LOAD_TORQUE] = {"torque", torque_fields, (int)(sizeof(torque_fields) / sizeof((torque_fields)[0]))},
    [KD_LOAD_FORCE] = {"force", force_fields, (int)(sizeof(force_fields) / sizeof((force_fields)[0]))},
};

const kd_field* kd_load_fields(kd_load_type t, int* n) {
    if ((int)t < 0 || t >= KD_LOAD_TYPES) return *n = 0, NULL;
    *n = load_tables[t].n;
    return load_tables[t].f;
}

const char* kd_load_type_name(kd_load_type t) { return (int)t >= 0 && t < KD_LOAD_TYPES ? load_tables[t].name : "?"; }

/* ---- laws of time (kedyn/law.h) ------------------------------------------
 * A law is a number (a constant) or a mapping with one key of law_form_fields,
 * whose row i is the form of kd_law_type i + 1 (speed, sine, spin_up, table). */

static const kd_field law_form_fields[] = {
    NUMBER("speed", kd_law, value, .doc = "v: the angle v t"),
    CUSTOM("sine", .doc = "{amplitude, omega, phase, offset}: A sin(w t + p) + c"),
    CUSTOM("spin_up", .doc = "{omega, T}: a smooth run-up to the speed omega in T"),
    CUSTOM("table", .doc = "{t, value} or {file, column}: a spline through the points"),
};
static const kd_field sine_fields[] = {
    NUMBER("amplitude", kd_law, amplitude, .required = 1, .doc = "A"),
    NUMBER("omega", kd_law, omega, .required = 1, .doc = "w, rad/s"),
    NUMBER("phase", kd_law, phase, .doc = "p, rad"),
    NUMBER("offset", kd_law, offset, .doc = "c"),
};
static const kd_field spin_up_fields[] = {
    NUMBER("omega", kd_law, spin_omega, .required = 1, .doc = "W, the final speed, rad/s"),
    POSITIVE("T", kd_law, spin_T, .required = 1, .doc = "the run-up time, s"),
};
static const char* const law_interp_names[] = {"spline", "linear"};
static const kd_field table_law_fields[] = {
    CUSTOM("t", .doc = "the times, increasing"),
    CUSTOM("value", .doc = "the values at those times"),
    CUSTOM("file", .doc = "a CSV file (relative to the model file) instead of t and value"),
    CUSTOM("column", .doc = "with file: a column name or 1-based number"),
    CHOICE("interpolation", kd_law, linear, law_interp_names, 2, 0, .doc = "spline (default) or linear"),
};

const kd_field* kd_law_fields(kd_law_type t, int* n) {
    switch (t) {
    case KD_LAW_SINE: *n = (int)(sizeof sine_fields / sizeof sine_fields[0]); return sine_fields;
    case KD_LAW_SPIN_UP: *n = (int)(sizeof spin_up_fields / sizeof spin_up_fields[0]); return spin_up_fields;
    case KD_LAW_TABLE: *n = (int)(sizeof table_law_fields / sizeof table_law_fields[0]); return table_law_fields;
    default: *n = 0; return NULL;
    }
}

/* ---- prescribed frame motions (kedyn/frame.h) ---------------------------- */

static const kd_field motion_fields[] = {
    BODY("body", kd_motion_desc, body, .required = 1, .doc = "a beam's name"),
    CUSTOM("rotation", .doc = "{axis, center, law}: rotation about a fixed axis"),
    CUSTOM("planar", .doc = "{x, y, phi}: planar motion of the frame, three laws"),
    CUSTOM("pose", .doc = "{t, origin, rotation} or {file}: a tabulated 3D pose"),
    NUMBER("hub", kd_motion_desc, motion.hub, .doc = "with rotation: hub radius, m (the beam starts at x = hub)"),
};
static const kd_field rotation_fields[] = {
    CUSTOM("axis", .required = 1, .doc = "x, y, z or 3 numbers (normalized)"),
    CUSTOM("center", .doc = "a point of the axis, m (default the origin)"),
    CUSTOM("law", .required = 1, .doc = "the angle theta(t), a law"),
};
static const kd_field planar_motion_fields[] = {
    CUSTOM("x", .required = 1, .doc = "origin x(t), m, a law"),
    CUSTOM("y", .required = 1, .doc = "origin y(t), m, a law"),
    CUSTOM("phi", .required = 1, .doc = "angle phi(t), rad, a law"),
};
static const kd_field pose_fields[] = {
    CUSTOM("t", .doc = "the times"),
    CUSTOM("origin", .doc = "[[x, y, z], ...] at those times, m"),
    CUSTOM("rotation", .doc = "[[phi_x, phi_y, phi_z], ...] rotation vectors, rad"),
    CUSTOM("file", .doc = "a CSV file with columns t, x, y, z, phi_x, phi_y, phi_z instead"),
};

/* ---- output requests ------------------------------------------------------ */

static const kd_field output_fields[] = {
    CUSTOM("nodes", .doc = "{BODY: [node or node set, ...]}: the nodes whose histories are written"),
};

/* ---- plate meshes and node sets ------------------------------------------ */

static const kd_field mesh_fields[] = {
    CUSTOM("rectangle", .doc = "[a, b]: a structured mesh of an a x b rectangle, m"),
    CUSTOM("divisions", .doc = "with rectangle: [nx, ny] cells"),
    CUSTOM("file", .doc = "a Gmsh 4 ASCII .msh file instead (relative to the model file)"),
    CUSTOM("origin", .doc = "global position of the mesh's origin, m (default [0, 0, 0])"),
    CUSTOM("x_axis", .doc = "global direction of the mesh's x axis (default [1, 0, 0])"),
    CUSTOM("normal", .doc = "global direction of the mesh's normal, z (default [0, 0, 1])"),
};
static const kd_field node_set_fields[] = {
    CUSTOM("x", .doc = "x = value, or [lo, hi]: the nodes with x in that range, m"),
    CUSTOM("y", .doc = "the same for y"),
    CUSTOM("z", .doc = "the same for z"),
    NONNEG("tol", kd_node_set_desc, tol, .doc = "tolerance of the predicate, m (default 1e-6 of the mesh size)"),
    CUSTOM("nodes", .doc = "an explicit list of node numbers instead"),
};

/* ---- a dynamics' `initial` mapping and its q / qdot entries ---------------- */

static const char* const initial_from_names[] = {"zero", "static"};
static const kd_field initial_fields[] = {
    CHOICE("from", kd_dynamics_desc, initial_static, initial_from_names, 2, 0, .doc = "zero (default) or static"),
    INT("mode", kd_dynamics_desc, initial_mode, 1, .doc = "add this mode's shape (1-based, modes at t = 0)"),
    NUMBER("amplitude", kd_dynamics_desc, initial_amplitude, .doc = "with mode: its largest translation, m"),
    CUSTOM("q", .doc = "[{body, node, dof, value}, ...]: prescribed displacements"),
    CUSTOM("qdot", .doc = "[{body, node, dof, value}, ...]: prescribed velocities"),
};
static const kd_field initial_value_fields[] = {
    BODY("body", kd_initial_value, body, .required = 1, .doc = "a beam's name"),
    INT("node", kd_initial_value, node, 1, .required = 1, .doc = "1-based node number"),
    CUSTOM("dof", .required = 1, .doc = "a DOF name"),
    NUMBER("value", kd_initial_value, value, .required = 1, .doc = "m or rad (q), m/s or rad/s (qdot)"),
};

/* ---- a beam's `frame` mapping (elastic links) ----------------------------- */

static const kd_field frame_fields[] = {
    INT("node", kd_body_desc, frame_node, 1, .required = 1, .doc = "the node the link's frame is attached to"),
};

#define TABLE_FN(fn, t)                            \
    const kd_field* fn(int* n) {                   \
        *n = (int)(sizeof(t) / sizeof((t)[0]));    \
        return t;                                  \
    }
TABLE_FN(kd_support_fields, support_fields)
TABLE_FN(kd_record_fields, record_fields)
TABLE_FN(kd_sensor_fields, sensor_fields)
TABLE_FN(kd_damping_fields, damping_fields)
TABLE_FN(kd_rayleigh_fields, rayleigh_fields)
TABLE_FN(kd_joint_fields, joint_fields)
TABLE_FN(kd_driver_fields, driver_fields)
TABLE_FN(kd_law_form_fields, law_form_fields)
TABLE_FN(kd_motion_fields, motion_fields)
TABLE_FN(kd_rotation_fields, rotation_fields)
TABLE_FN(kd_planar_motion_fields, planar_motion_fields)
TABLE_FN(kd_pose_fields, pose_fields)
TABLE_FN(kd_output_fields, output_fields)
TABLE_FN(kd_initial_fields, initial_fields)
TABLE_FN(kd_initial_value_fields, initial_value_fields)
TABLE_FN(kd_frame_fields, frame_fields)
TABLE_FN(kd_mesh_fields, mesh_fields)
TABLE_FN(kd_node_set_fields, node_set_fields)

const kd_field* kd_body_fields(int* n) {
    *n = (int)(sizeof body_fields / sizeof body_fields[0]);
    return body_fields;
}

const kd_field* kd_analysis_fields(kd_analysis_type t, int* n) {
    if (t < 0 || t >= KD_ANALYSIS_TYPES) return *n = 0, NULL;
    *n = analysis_tables[t].n;
    return analysis_tables[t].f;
}

const kd_field* kd_material_fields(int* n) {
    *n = (int)(sizeof material_fields / sizeof material_fields[0]);
    return material_fields;
}

const kd_field* kd_section_fields(int* n) {
    *n = (int)(sizeof section_fields / sizeof section_fields[0]);
    return section_fields;
}

const kd_field* kd_field_find(const kd_field* f, int n, const char* key) {
    for (int i = 0; i < n; i++)
        if (strcmp(f[i].key, key) == 0) return &f[i];
    return NULL;
}

void* kd_analysis_fields_base(kd_analysis_desc* a) { return &a->modes; }

/* ---- values through the table ------------------------------------------- */

void kd_fields_defaults(const kd_field* f, int n, void* base) {
    char* b = base;
    for (int i = 0; i < n; i++) {
        void* p = b + f[i].offset;
        switch (f[i].type) {
        case KD_FIELD_NUMBER: *(double*)p = f[i].def; break;
        case KD_FIELD_INT:
        case KD_FIELD_BOOL:
        case KD_FIELD_CHOICE:
        case KD_FIELD_BODY: *(int*)p = (int)f[i].def; break;
        case KD_FIELD_LIST: *(int*)(b + f[i].count_offset) = 0; break;
        case KD_FIELD_CUSTOM: break;
        }
    }
}

int kd_field_in_range(const kd_field* f, double x) {
    if (!isfinite(x)) return 0;
    switch (f->range) {
    case KD_RANGE_ANY: return 1;
    case KD_RANGE_POSITIVE: return x > 0;
    case KD_RANGE_NONNEGATIVE: return x >= 0;
    case KD_RANGE_CLOSED: return x >= f->lo && x <= f->hi;
    case KD_RANGE_OPEN: return x > f->lo && x < f->hi;
    }
    return 0;
}

const char* kd_field_range_text(const kd_field* f, char* buf, size_t n) {
    if (f->type == KD_FIELD_INT) snprintf(buf, n, "be at least %g", f->lo);
    else if (f->range_words) snprintf(buf, n, "%s", f->range_words);
    else if (f->range == KD_RANGE_POSITIVE) snprintf(buf, n, "be positive");
    else if (f->range == KD_RANGE_NONNEGATIVE) snprintf(buf, n, "be >= 0");
    else if (f->range == KD_RANGE_CLOSED) snprintf(buf, n, "lie in [%g, %g]", f->lo, f->hi);
    else if (f->range == KD_RANGE_OPEN) snprintf(buf, n, "lie in (%g, %g)", f->lo, f->hi);
    else snprintf(buf, n, "be a number");
    return buf;
}

int kd_fields_check(const kd_field* f, int n, const void* base, char* why, size_t nwhy) {
    return kd_fields_check_only(f, n, 0, base, why, nwhy);
}

int kd_fields_check_only(const kd_field* f, int n, unsigned only, const void* base, char* why, size_t nwhy) {
    const char* b = base;
    char words[64];
    for (int i = 0; i < n; i++) {
        if (only && f[i].only && !(f[i].only & only)) continue;
        const void* p = b + f[i].offset;
        switch (f[i].type) {
        case KD_FIELD_NUMBER: {
            const double x = *(const double*)p;
            /* an optional value left at its default means "not given" */
            if (!f[i].required && x == f[i].def) break;
            if (!kd_field_in_range(&f[i], x)) {
                if (f[i].required && x == f[i].def && x == 0.0)
                    snprintf(why, nwhy, "%s is required (it must %s)", f[i].key, kd_field_range_text(&f[i], words, sizeof words));
                else
                    snprintf(why, nwhy, "%s must %s (got %g)", f[i].key, kd_field_range_text(&f[i], words, sizeof words), x);
                return -1;
            }
            break;
        }
        case KD_FIELD_INT: {
            const int x = *(const int*)p;
            if (x < f[i].lo) {
                snprintf(why, nwhy, "%s must be at least %g (got %d)", f[i].key, f[i].lo, x);
                return -1;
            }
            break;
        }
        case KD_FIELD_BOOL:
            if (*(const int*)p != 0 && *(const int*)p != 1) {
                snprintf(why, nwhy, "%s must be 0 or 1 (false or true)", f[i].key);
                return -1;
            }
            break;
        case KD_FIELD_CHOICE: {
            const int x = *(const int*)p;
            if (x != 0 && (x < f[i].first || x >= f[i].first + f[i].nnames)) {
                snprintf(why, nwhy, "%s has no value %d", f[i].key, x);
                return -1;
            }
            break;
        }
        case KD_FIELD_LIST: {
            const int cnt = *(const int*)(b + f[i].count_offset);
            if ((cnt < 1 && f[i].required) || cnt > KD_LIST_MAX) {  /* an optional list may be absent */
                snprintf(why, nwhy, "the list of %s is empty", f[i].key);
                return -1;
            }
            for (int k = 0; k < cnt; k++)
                if (!kd_field_in_range(&f[i], ((const double*)p)[k])) {
                    snprintf(why, nwhy, "%s must %s", f[i].key, kd_field_range_text(&f[i], words, sizeof words));
                    return -1;
                }
            break;
        }
        case KD_FIELD_BODY:
        case KD_FIELD_CUSTOM: break;
        }
    }
    return 0;
}
