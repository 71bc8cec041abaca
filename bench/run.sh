#!/usr/bin/env bash
# Benchmarks of docs/performance.md. usage: bench/run.sh [BUILD_DIR]
# Each size runs in its own process so that its peak memory is its own.
set -euo pipefail
build=${1:-build}
# The programs run single-threaded BLAS, as the command line does (docs/cli.md, "Environment");
# set OPENBLAS_NUM_THREADS before to measure another count.
echo "# lowest 10 modes of a planar cantilever (Euler-Bernoulli, cubic)"
echo "# elements dof solver compile_s solve_s total_s omega1_rad_s rel_err_omega1 peak_rss_kib"
for n in 10 100 1000 10000 100000; do
  "$build/bench/bench_modes" "$n" 5
done
echo "# seed 001 rotating bar over 0.1 s (10 000 generalized-alpha steps); cost per step of a spinning-up cantilever"
echo "# case elements dof steps total_s per_step_s peak_rss_kib"
for n in 5 10 15 20 25; do
  "$build/bench/bench_dynamics" bar "$n"
done
for n in 100 1000 10000 100000; do
  "$build/bench/bench_dynamics" step "$n"
done
echo "# the formalisms compared (docs/formalisms.md): seed 001 bar over 0.1 s; spin-up over 1 s"
cmpdir=$(mktemp -d)
"$build/kedyn" compare examples/rotating_bar.yaml -o "$cmpdir/bar" --quiet
"$build/kedyn" compare examples/spin_up.yaml --t-end 1 --elements 5,10,20,40 -o "$cmpdir/spin" --quiet
rm -rf "$cmpdir"
echo "# forward dynamics of constrained systems: planar chain of N bars (augmented, rk4, cost per step);"
echo "# closed-loop 7-bar linkage over 0.03 s by each formulation"
echo "# case size n nc steps evaluations total_s per_step_s drift energy_rel peak_rss_kib"
for n in 10 100 1000 10000; do
  "$build/bench/bench_mbs" chain "$n"
done
for f in augmented udwadia-kalaba maggi ida; do
  "$build/bench/bench_mbs" linkage "$f"
done
echo "# the same chain (0.1 kg, 0.1 m bars) over 0.1 s with the ida formulation (sparse Newton matrix, KLU)"
for n in 10 100 1000; do
  "$build/bench/bench_mbs" ida-chain "$n"
done
echo "# mechanisms: kinematics, and kinematics with both inverse-dynamics routes (cost per instant)"
echo "# case n nc instants kin_s kin_per_step_s inv_s inv_per_step_s"
for f in slider_crank wind_pump wiper; do
  "$build/bench/bench_mech" file "examples/$f.yaml" 1000
done
for n in 5 10 20 40 80; do
  "$build/bench/bench_mech" chain "$n" 200
done
echo "# two-way coupled flexible slider-crank (examples/slider_crank_flexible.yaml), one crank revolution, best of 5"
echo "# form n nc steps evaluations integrate_s total_s drift max_v peak_rss_kib"
for f in augmented maggi; do
  "$build/bench/bench_ffr" examples/slider_crank_flexible.yaml "$f" 5
done
echo "# one-way KED: wind pump with an elastic rod (10 elements), one crank revolution at 140 rpm,"
echo "# rigid solution and natural frequencies at 361 positions, best of 5"
echo "# links samples rigid_route setup_s modes_s total_s omega1_min omega1_max"
"$build/bench/bench_ked" examples/wind_pump_elastic.yaml 14.661
echo "# lowest 15 modes of the simply supported thesis plate (0.2 x 0.16 x 0.001 m, steel), MITC4 and ACM"
echo "# nx ny element dof half_bandwidth solver-factor mesh_s compile_s solve_s total_s omega1 rel_err1 peak_rss_kib"
for s in "50 40" "100 80" "141 113" "200 160" "300 240"; do
  "$build/bench/bench_plate" $s mitc4
done
"$build/bench/bench_plate" 100 80 acm
echo "# measured records: Welch (Hann, 4096, 50 %) on 1e6 samples; LSCF on 6 channels x 4096 lines"
echo "# welch samples segment overlap segments best_s per_sample_ns rel_err_amplitude"
echo "# lscf channels lines order_max poles modes best_s per_order_ms max_rel_err_f"
"$build/bench/bench_signal" 5 40
"$build/bench/bench_signal" 3 80
echo "# stages of the sparse shift-invert solver on the thesis plate (docs/scaling.md)"
echo "# nx ny dof nnz_K_upper assemble_s analyse_s factor_s solve_s matvec_s nnz_L flops_factor ordering peak_rss_kib"
for s in "50 40" "71 57" "100 80" "141 113" "200 160" "300 240"; do
  "$build/bench/bench_scaling" $s
done
echo "# start-up and the cost of a small run (docs/performance.md)"
bash bench/startup.sh "$build" 100
echo "# the same MITC4 plate clamped at x = 0 spinning about y at 1000 rad/s: lowest 15 modes at speed (rel_err1: omega1 / omega1 at rest - 1)"
for s in "100 80" "300 240"; do
  "$build/bench/bench_plate" $s mitc4 1 speed
done
echo "# dynamics of the simply supported MITC4 plate at rest, Newmark (band system): omega1 column = seconds per step"
for s in "30 24" "50 40" "100 80"; do
  "$build/bench/bench_plate" $s mitc4 1 step
done
echo "# the same plate, Newmark on the sparse factorisation (kd_newmark_csc): omega1 column = seconds per step"
for s in "30 24" "100 80" "300 240"; do
  "$build/bench/bench_plate" $s mitc4 2 sparse-step
done
echo "# rotating plates, gyroscopic Newmark on the sparse LU (kd_newmark_gcsc): omega1 column = seconds per step"
for s in "30 24" "100 80" "300 240"; do
  "$build/bench/bench_plate" $s membrane 1 gyro-step
done
"$build/bench/bench_plate" 300 240 mitc4 1 gyro-step
echo "# spatial chain of N rods on spherical joints (7 Euler-parameter coordinates per body), augmented,"
echo "# projection, rk4, cost per step, best of 3"
echo "# case N n nc steps total_s per_step_s per_body_step_us drift energy_rel peak_rss_kib"
for n in 10 100 1000 10000; do
  "$build/bench/bench_spatial" chain "$n"
done
echo "# driven spatial chain of N rods on revolutes: kinematics and multipliers per instant, sparse LU"
echo "# (dense SVD for 10 and 20 bodies, the ratio), best of 3"
echo "# kin N n path steps total_s per_instant_s per_body_instant_us per_body_instant_cpu_us max_cond drive0 newton_its peak_rss_kib"
for n in 10 20; do
  "$build/bench/bench_spatial" kin "$n" 20 dense
done
for n in 10 20 100 1000 10000; do
  "$build/bench/bench_spatial" kin "$n" 20 sparse
done
echo "# the 300 x 240 plate's dynamics analysis from a model file (sparse route of kd_dynamics_run)"
echo "# neq sparse_route compile_s setup_s best_step_s median_step_s steps w_centre_end peak_rss_kib"
"$build/bench/bench_plate_dynamics" bench/models/plate_300x240_dynamics.yaml
echo "# gyroscopic modes of the plate spinning about its normal at 14 000 rad/s (sparse state-space"
echo "# route; dense up to 1 288 equations for the ratio), lowest 15 modes"
echo "# nx ny theory dof route solve_s omega1 growth1 unstable peak_rss_kib"
for s in "10 8" "20 16" "28 22"; do
  "$build/bench/bench_gyro_sparse" $s membrane 3 sparse
  "$build/bench/bench_gyro_sparse" $s membrane 2 dense
done
for s in "50 40" "100 80" "200 160" "300 240"; do
  "$build/bench/bench_gyro_sparse" $s membrane 2 sparse
done
"$build/bench/bench_gyro_sparse" 100 80 shell 1 sparse
