#!/usr/bin/env python3
"""Mutation check: does the test suite notice a wrong physical coefficient?

Each mutation below is one exact source pattern of one file and its replacement (a coefficient
doubled or halved). For each, in a scratch copy of the tree (the tracked and untracked,
non-ignored files of the working tree, copied to a temporary directory), the script applies the
mutation alone, rebuilds incrementally, and runs the tests most likely to notice it (ctest
--stop-on-failure); when they all pass it runs the rest of the suite. A mutation is *killed* when
some test fails (or the build fails), *survived* otherwise. The original file is restored before
the next one. Exit status: 0 when every mutation is killed, 1 otherwise, 2 on a setup error (a
pattern that does not occur exactly once, a configuration or baseline failure).

Usage (from the repository root; takes ~20-40 min on 2 cores, so not run in CI):
    scripts/mutation_check.py                 # all mutations
    scripts/mutation_check.py -k damping      # those whose name matches "damping" (a regex)
    scripts/mutation_check.py --list          # the list, nothing run
Options: --jobs N (build and ctest parallelism, default 2), --keep (keep the scratch copy),
--scratch DIR (reuse a scratch copy and its build from an earlier --keep run), --exclude REGEX
(leave these tests out, e.g. to show that a mutation survived before a test was added:
scripts/mutation_check.py -k damping --exclude damping_test).
"""
import argparse
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time

# (name, file, exact pattern (must occur once), replacement, tests tried first (ctest -R regex))
MUTATIONS = [
    # Rayleigh damping C = alpha M + beta K: the assembled matrix (state-space modes, C(t) of the
    # explicit and Hamilton routes) and the integrators' fused element-by-element step
    ("damping alpha (assembled C)", "src/fe/system.c",
     "scatter(&s->Cd, body->damp_alpha, me, eqs, n);", "scatter(&s->Cd, 2.0 * body->damp_alpha, me, eqs, n);",
     "damping_test"),
    ("damping beta (assembled C)", "src/fe/system.c",
     "scatter(&s->Cd, body->damp_beta, ke, eqs, n);", "scatter(&s->Cd, 2.0 * body->damp_beta, ke, eqs, n);",
     "damping_test"),
    ("damping alpha (fused step)", "src/fe/system.c",
     "body->damp_alpha * me[i] + body->damp_beta * kel[i]", "2.0 * body->damp_alpha * me[i] + body->damp_beta * kel[i]",
     "damping_test"),
    ("damping beta (fused step)", "src/fe/system.c",
     "body->damp_alpha * me[i] + body->damp_beta * kel[i]", "body->damp_alpha * me[i] + 2.0 * body->damp_beta * kel[i]",
     "damping_test"),
    # moving-frame inertia terms (theory.md sec. 3) of the invariants route
    ("Coriolis [c]", "src/fe/inertia.c",
     "const double cw = 2.0 * W[3 * i + j]", "const double cw = 4.0 * W[3 * i + j]",
     "formalism_test|rotating_test|inertia_test"),
    ("k(eps)", "src/fe/inertia.c",
     "ce = E[3 * i + j], cww", "ce = 2.0 * E[3 * i + j], cww",
     "formalism_test|inertia_test|dynamics_test"),
    ("k(omega)", "src/fe/inertia.c",
     "cww = WW[3 * i + j];", "cww = 2.0 * WW[3 * i + j];",
     "formalism_test|rotating_test|inertia_test"),
    ("[m_Oi] a (frame acceleration and gravity load)", "src/fe/inertia.c",
     "out->q[dof] += a[i] * p->s_i[i][dof];", "out->q[dof] += 2.0 * a[i] * p->s_i[i][dof];",
     "formalism_test|dynamics_test|inertia_test"),
    ("q_i(eps)", "src/fe/inertia.c",
     "const double coef = E[3 * i + j] + WW[3 * i + j];", "const double coef = 2.0 * E[3 * i + j] + WW[3 * i + j];",
     "formalism_test|inertia_test|dynamics_test"),
    ("q_i(omega)", "src/fe/inertia.c",
     "const double coef = E[3 * i + j] + WW[3 * i + j];", "const double coef = E[3 * i + j] + 2.0 * WW[3 * i + j];",
     "formalism_test|dynamics_test|inertia_test"),
    # geometric stiffness (theory.md sec. 5)
    ("geometric stiffness invariants", "src/fe/element_integrate.c",
     "add_geometric(p->g_k[k], n, dV, S, &pt);", "add_geometric(p->g_k[k], n, 2.0 * dV, S, &pt);",
     "rotating_test|dynamics_test"),
    ("centrifugal axial force Omega^2 P_c", "src/fe/assemble.c",
     "ax * pc[0] + omega2 * pc[3] + body->preload", "ax * pc[0] + 2.0 * omega2 * pc[3] + body->preload",
     "dynamics_test|rotating_test"),
    ("beam preload", "src/fe/assemble.c",
     "ax * pc[0] + omega2 * pc[3] + body->preload", "ax * pc[0] + omega2 * pc[3] + 2.0 * body->preload",
     "ked_test|rotating_test|modes_test|modes_accuracy_test"),
    ("gravity on a body at rest (a = -R^T g)", "src/fe/assemble.c",
     "return -(R[0] * g[0] + R[3] * g[1] + R[6] * g[2]);", "return (R[0] * g[0] + R[3] * g[1] + R[6] * g[2]);",
     "modes_accuracy_test"),
    ("gravity on beams (frame acceleration -g)", "src/fe/system.c",
     "a[i] = f->aO_L[i] - (f->R[i] * g[0]", "a[i] = f->aO_L[i] - 2.0 * (f->R[i] * g[0]",
     "dynamics_test|ked_test|ffr_test"),
    # beam sections and elements
    ("shear correction (Timoshenko kappa)", "src/fe/section.c",
     "const double kappa = kd_section_shear_coefficient(", "const double kappa = 0.5 * kd_section_shear_coefficient(",
     "element_test|modes_test|element_family_test"),
    ("rotary inertia rho Iz", "src/fe/element_beam.c",
     "p->rho2[0][0] = c->rho * c->Iz;", "p->rho2[0][0] = 2.0 * c->rho * c->Iz;",
     "element_test|modes_test|element_family_test"),
    ("elastic stiffness EA", "src/fe/element_beam.c",
     "const double d[6] = {c->E * c->A,", "const double d[6] = {2.0 * c->E * c->A,",
     "element_test|modes_test"),
    # mechanisms (src/mechanism/forces.c, model.c)
    ("mechanism gravity", "src/mechanism/forces.c",
     "Q[3 * b + 1] += m->mass[3 * b + 1] * m->g[1];", "Q[3 * b + 1] += 2.0 * m->mass[3 * b + 1] * m->g[1];",
     "friction_test|mbs_test|mech_inverse_test"),
    ("friction force", "src/mechanism/forces.c",
     "return -F * tanh(v / vs);", "return -2.0 * F * tanh(v / vs);",
     "friction_test|mech_test"),
    ("friction smoothing speed", "src/mechanism/forces.c",
     "return -F * tanh(v / vs);", "return -F * tanh(v / (2.0 * vs));",
     "friction_test|mech_test"),
    ("spring stiffness (free length)", "src/mechanism/forces.c",
     "const double tension = f->k * (l - f->length)", "const double tension = 2.0 * f->k * (l - f->length)",
     "friction_test|mech_inverse_test"),
    ("spring free length", "src/mechanism/forces.c",
     "const double tension = f->k * (l - f->length)", "const double tension = f->k * (l - 1.01 * f->length)",
     "friction_test|mech_inverse_test"),
    ("damper (free length spring)", "src/mechanism/forces.c",
     "+ f->c * (e[0] * dd[0] + e[1] * dd[1]);", "+ 2.0 * f->c * (e[0] * dd[0] + e[1] * dd[1]);",
     "friction_test|mech_inverse_test"),
    ("spring stiffness (zero length)", "src/mechanism/forces.c",
     "F[0] = -f->k * d[0] - f->c * dd[0];", "F[0] = -2.0 * f->k * d[0] - f->c * dd[0];",
     "friction_test|mech_inverse_test|mech_test"),
    ("damper (zero length)", "src/mechanism/forces.c",
     "F[0] = -f->k * d[0] - f->c * dd[0];", "F[0] = -f->k * d[0] - 2.0 * f->c * dd[0];",
     "friction_test|mech_inverse_test"),
    ("applied torque", "src/mechanism/forces.c",
     "Q[3 * f->body[0] + 2] += T;", "Q[3 * f->body[0] + 2] += 2.0 * T;",
     "friction_test|mbs_test|mech_inverse_test"),
    ("rigid body mass", "src/mechanism/model.c",
     "m->mass[3 * k] = m->mass[3 * k + 1] = mass;", "m->mass[3 * k] = m->mass[3 * k + 1] = 2.0 * mass;",
     "friction_test|mech_inverse_test|mbs_test"),
    ("rigid body moment of inertia", "src/mechanism/model.c",
     "m->mass[3 * k + 2] = inertia;", "m->mass[3 * k + 2] = 2.0 * inertia;",
     "mech_inverse_test|mbs_test|formalism_mech_test"),
    # plates in moving frames (theory.md sec. 14)
    ("gravity on a plate at rest (a = -R^T g)", "src/fe/prestress_rest.c",
     "a[k] = -(R[k] * g[0] + R[3 + k] * g[1] + R[6 + k] * g[2]);",
     "a[k] = -1.02 * (R[k] * g[0] + R[3 + k] * g[1] + R[6 + k] * g[2]);",
     "plate_gravity_test"),
    ("gyroscopic pencil: reference frequency in the stiffness scaling", "src/analyses/gyro_pencil.c",
     "k = gb_at(K, i, j) * dd / (wr * wr)", "k = gb_at(K, i, j) * dd / (1.0001 * wr * wr)",
     "gyro_pencil_test"),
    ("gyroscopic pencil: round-off bound", "src/analyses/gyro_pencil.c",
     "tol_mu = 1e-5 * tnorm", "tol_mu = 1e-11 * tnorm",
     "gyro_pencil_test|rotating_test"),
    # warped shells, shells at rest under gravity, the thickness axis (theory.md sec. 14.6-14.8)
    ("warped shell: rigid link", "src/fe/element_shell.c",
     "rows[r][6 * a + 3] += h * rows[r][6 * a + 1];", "rows[r][6 * a + 3] += 0.9 * h * rows[r][6 * a + 1];",
     "shell_warp_test"),
    ("shell at rest: the weight's load", "src/fe/prestress_rest.c",
     "f[0] = p->s_i[0][i] * gb[0]", "f[0] = 1.02 * p->s_i[0][i] * gb[0]",
     "shell_gravity_test"),
    # shells off their plane in a moving frame (theory.md sec. 18.6)
    ("shell in motion: the centrifugal load", "src/fe/prestress_membrane.c",
     "f[3 + 3 * j + k] = -(p->x_ik[j][k][i]", "f[3 + 3 * j + k] = -1.02 * (p->x_ik[j][k][i]",
     "shell_spin_test"),
    ("shell in motion: the origin term of the centrifugal load", "src/fe/prestress_membrane.c",
     "+ r0[k] * p->s_i[j][i]);", "+ 0.0 * r0[k] * p->s_i[j][i]);",
     "shell_spin_test"),
    ("shell in motion: the sign of the frame acceleration's load", "src/fe/prestress_membrane.c",
     "f[j] = -p->s_i[j][i];", "f[j] = p->s_i[j][i];",
     "shell_spin_test"),
    ("plate stability map: thickness axis", "src/analyses/stability.c",
     "b->thickness = thickness;", "b->thickness = thickness * thickness / 0.001;",
     "plate_stability_test"),
    ("plate stability map: side scaling", "src/analyses/stability.c",
     "const double s = length / (hi - lo);", "const double s = sqrt(length / (hi - lo));",
     "plate_stability_test"),
    # the sparse gyroscopic route (theory.md sec. 14.5): the sign of the assembled C = G + damping,
    # the velocity half of the shift-inverted state-space operator
    ("sparse gyroscopic route: sign of C", "src/fe/system_damping_csc.c",
     "C->x[at] += ce[r * n + q], *nonzero = 1;", "C->x[at] -= ce[r * n + q], *nonzero = 1;",
     "gyro_sparse_test"),
    ("sparse gyroscopic route: reference frequency of the operator", "src/numerics/eigen_gyro_sparse.c",
     "x2[i] = (y1[i] + o->sigma * x1[i]) / o->wr;", "x2[i] = (y1[i] + o->sigma * x1[i]) / (1.001 * o->wr);",
     "gyro_sparse_test"),
    # the formalism routes on spatial mechanisms (theory.md sec. 11.1): the gyroscopic terms of
    # Kane and Gibbs-Appell, and dT/dq in Lagrange's h
    ("spatial Kane gyroscopic moment", "src/formalisms/smech_routes.c",
     "- dot3(Ja0, wr) - dot3(gyro, wr);", "- dot3(Ja0, wr) - 0.5 * dot3(gyro, wr);",
     "smech_routes_test"),
    ("spatial Appell gyroscopic term", "src/formalisms/smech_routes.c",
     "*S = hd_add(*S, hd_scale(g[i], al[i]));", "*S = hd_add(*S, hd_scale(0.5 * g[i], al[i]));",
     "smech_routes_test"),
    ("spatial Lagrange dT/dq", "src/formalisms/smech_routes.c",
     "h[i] = mixed - kinetic_hd(J, m->mass[b], x).e1;", "h[i] = mixed - 0.5 * kinetic_hd(J, m->mass[b], x).e1;",
     "smech_routes_test"),
]

# Tests that need more than the build (a browser) or check the build itself: not run here.
EXCLUDE = "report_test|layering_test"


def run(cmd, cwd, log, timeout=None):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write("timeout\n")
            return 124


def failed_tests(build, log_start, log):
    """Names of the failed tests in ctest's last log (LastTestsFailed.log)."""
    p = os.path.join(build, "Testing", "Temporary", "LastTestsFailed.log")
    if not os.path.exists(p) or os.path.getmtime(p) < log_start:
        return []
    with open(p) as f:
        return [line.strip().split(":", 1)[-1] for line in f if line.strip()]


def ctest(build, regex, exclude, jobs, log):
    """Run ctest; return the list of failed tests ([] when all pass)."""
    cmd = ["ctest", "--test-dir", build, "-j", str(jobs), "--stop-on-failure", "--timeout", "600"]
    if regex:
        cmd += ["-R", regex]
    if exclude:
        cmd += ["-E", exclude]
    start = time.time()
    rc = run(cmd, None, log)
    if rc == 0:
        return []
    return failed_tests(build, start, log) or ["(ctest exit %d)" % rc]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", dest="pattern", default="", help="only mutations whose name matches this regex")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--scratch", default="")
    ap.add_argument("--exclude", default="", help="regex of tests left out")
    args = ap.parse_args()
    exclude = EXCLUDE + ("|" + args.exclude if args.exclude else "")
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True).stdout.strip()
    chosen = [m for m in MUTATIONS if re.search(args.pattern, m[0], re.IGNORECASE)]
    if args.list:
        for name, path, pat, rep, tests in chosen:
            print(f"{name}\n    {path}: {pat!r} -> {rep!r}  (first: {tests})")
        return 0
    # every pattern must name one place in the real tree
    for name, path, pat, rep, tests in chosen:
        with open(os.path.join(root, path)) as f:
            n = f.read().count(pat)
        if n != 1:
            print(f"setup error: '{name}': pattern occurs {n} times in {path}: {pat!r}", file=sys.stderr)
            return 2
    scratch = args.scratch or tempfile.mkdtemp(prefix="kedyn_mutation_")
    src = os.path.join(scratch, "src_tree")
    build = os.path.join(scratch, "build")
    log = os.path.join(scratch, "mutation.log")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        if not os.path.isfile(os.path.join(root, rel)):
            continue
        dst = os.path.join(src, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst) or open(os.path.join(root, rel), "rb").read() != open(dst, "rb").read():
            shutil.copy2(os.path.join(root, rel), dst)
    print(f"scratch copy: {scratch} (log: {log})", flush=True)
    env_jobs = str(args.jobs)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DKEDYN_BENCH=OFF"], None, log) or \
            run(["cmake", "--build", build, "-j", env_jobs], None, log):
        print("setup error: the unmutated tree does not build (see the log)", file=sys.stderr)
        return 2
    base = ctest(build, "", exclude, args.jobs, log)
    if base:
        print(f"setup error: the unmutated suite fails: {base}", file=sys.stderr)
        return 2
    results = []
    for name, path, pat, rep, tests in chosen:
        t0 = time.time()
        target = os.path.join(src, path)
        with open(target) as f:
            original = f.read()
        try:
            with open(target, "w") as f:
                f.write(original.replace(pat, rep, 1))
            if run(["cmake", "--build", build, "-j", env_jobs], None, log):
                killed_by = ["(build)"]
            else:
                killed_by = ctest(build, tests, exclude, args.jobs, log)
                if not killed_by:  # the likely tests missed it: the rest of the suite
                    killed_by = ctest(build, "", f"{exclude}|{tests}", args.jobs, log)
        finally:
            with open(target, "w") as f:
                f.write(original)
        status = "killed" if killed_by else "SURVIVED"
        results.append((name, status, killed_by))
        print(f"{status:8s} {name:48s} {', '.join(killed_by)}  ({time.time() - t0:.0f} s)", flush=True)
    run(["cmake", "--build", build, "-j", env_jobs], None, log)  # leave the scratch build unmutated
    killed = sum(1 for r in results if r[1] == "killed")
    print(f"\nmutation score: {killed} of {len(results)} killed")
    if not args.keep and not args.scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
