#!/usr/bin/env bash
# Regenerates the figures in docs/figures from the dpkit program and gnuplot.
#   docs/figures/make_figures.sh [path/to/dpkit]     (default: build/release/tools/dpkit/dpkit)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dpkit="${1:-$here/../../build/release/tools/dpkit/dpkit}"
[[ -x "$dpkit" ]] || { echo "make_figures: no dpkit at $dpkit (build the release preset first)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Figure 1: tradeoff curves G(mu).
for mu in 0.5 1 2 3; do
  "$dpkit" tradeoff --mu "$mu" --points 401 --format csv --output "$tmp/g_$mu.csv"
done
gnuplot -e "dir='$tmp'; out='$here/gaussian_tradeoff.svg'" "$here/gaussian_tradeoff.gp"

# Figure 2: epsilon at delta = 1e-5 of full-batch noisy GD (sigma = 30) against the number of
# steps: exact (GDP) and the best RDP conversion.
echo "steps,exact,rdp" > "$tmp/eps_steps.csv"
for t in 1 2 5 10 20 50 100 200 500 1000 2000 5000 10000 20000; do
  "$dpkit" epsilon --noise-multiplier 30 --steps "$t" --delta 1e-5 --accountant all --format csv |
    awk -F, -v t="$t" 'NR==2{e=$2} NR==3{r=$2} END{print t "," e "," r}' >> "$tmp/eps_steps.csv"
done
cp "$tmp/eps_steps.csv" "$here/epsilon_vs_steps.csv"
gnuplot -e "data='$tmp/eps_steps.csv'; out='$here/epsilon_vs_steps.svg'" "$here/epsilon_vs_steps.gp"
# Figure 3: the accountants on one DP-SGD run (q = 0.01, σ = 1) against the number of steps.
echo "steps,pld_upper,pld_lower,rdp,clt" > "$tmp/accountants.csv"
for t in 10 20 50 100 200 500 1000 2000 5000 10000 20000 50000 100000; do
  "$dpkit" epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps "$t" --delta 1e-5 --accountant all --format csv |
    awk -F, -v t="$t" 'NR==2{u=$2; l=$4} NR==3{r=$2} NR==4{c=$2} END{print t "," u "," l "," r "," c}' >> "$tmp/accountants.csv"
done
cp "$tmp/accountants.csv" "$here/accountants_vs_steps.csv"
gnuplot -e "data='$tmp/accountants.csv'; out='$here/accountants_vs_steps.svg'" "$here/accountants_vs_steps.gp"
# Figure 4: tradeoff curves of composed DP-SGD runs (q = 0.1, sigma = 0.7; certified lower bound,
# the upper bound is within 1e-3) against the CLT's G(mu), mu = q sqrt(T (e^{1/sigma^2} - 1)).
echo "steps,alpha,beta,beta_upper" > "$tmp/run_tradeoff.csv"
for t in 3 10 30; do
  "$dpkit" tradeoff --noise-multiplier 0.7 --sampling-rate 0.1 --steps "$t" --points 401 --format csv --output "$tmp/t_$t.csv"
  mu="$(awk -v t="$t" 'BEGIN{printf "%.17g", 0.1 * sqrt(t * (exp(1 / 0.49) - 1))}')"
  "$dpkit" tradeoff --mu "$mu" --points 401 --format csv --output "$tmp/c_$t.csv"
  awk -v t="$t" 'NR>1{print t "," $0}' "$tmp/t_$t.csv" >> "$tmp/run_tradeoff.csv"
done
cp "$tmp/run_tradeoff.csv" "$here/run_tradeoff.csv"
gnuplot -e "dir='$tmp'; out='$here/run_tradeoff.svg'" "$here/run_tradeoff.gp"
# Figure 5: a validation scenario — NoisyGD on BSA24's W1 construction against Thm 4.2
# (dpkit validate writes the JSON, CSV and figure; the quick tier's sample size).
"$dpkit" validate bsa24-thm4.2-tight --tier quick --seed 2026 --out "$tmp/validation" --format csv > /dev/null
cp "$tmp/validation/bsa24-thm4.2-tight.svg" "$here/validation_thm42.svg"
cp "$tmp/validation/bsa24-thm4.2-tight.csv" "$here/validation_thm42.csv"
"$dpkit" validate bsa24-thm4.8-sgd-one-step --tier quick --seed 2026 --out "$tmp/validation" --format csv > /dev/null
cp "$tmp/validation/bsa24-thm4.8-sgd-one-step.svg" "$here/validation_sgd_one_step.svg"
cp "$tmp/validation/bsa24-thm4.8-sgd-one-step.csv" "$here/validation_sgd_one_step.csv"
# Figures 6-7b: BSA24 Figures 1, 6, 7, 8 and 9 as validation scenarios: the bounds' epsilon
# against steps (epochs), with Monte Carlo on the Gaussian constructions W1/W2 where a bound is
# exact (dpkit validate writes the JSON, CSV and figure; quick tier, the docs' seed).
"$dpkit" validate bsa24-fig1-noisy-gd bsa24-fig6-noisy-gd bsa24-fig7-noisy-gd-constrained bsa24-fig8-noisy-cgd \
  bsa24-fig9-noisy-cgd-constrained --tier quick --seed 2026 --out "$tmp/figures" --format csv > /dev/null
for pair in bsa24-fig1-noisy-gd:shifted_noisy_gd bsa24-fig6-noisy-gd:shifted_noisy_gd_c099 \
             bsa24-fig7-noisy-gd-constrained:shifted_noisy_gd_constrained bsa24-fig8-noisy-cgd:shifted_noisy_cgd \
             bsa24-fig9-noisy-cgd-constrained:shifted_noisy_cgd_fig9; do
  cp "$tmp/figures/${pair%%:*}.svg" "$here/${pair#*:}.svg"
  cp "$tmp/figures/${pair%%:*}.csv" "$here/${pair#*:}.csv"
done
# Figure 7: BSA24 Figure 9 (right), extended — NoisyCGD, convex on a set of diameter 1.
echo "epochs,shifted,derived,thm46,composition" > "$tmp/shifted_cgd.csv"
for e in 5 10 20 40 80 160 320 640 1280; do
  "$dpkit" shifted noisy-cgd --setting constrained-convex --sensitivity 2 --batch-size 4 \
    --batches-per-epoch 20 --noise 3 --learning-rate 0.02 --diameter 1 --epochs "$e" --delta 1e-5 --format csv |
    awk -F, -v e="$e" '$1=="shifted-interpolation"{a=$3} $1=="shifted-interpolation (derived c = 1)"{b=$3} $1=="shifted-interpolation (Thm 4.6)"{c=$3} $1=="composition"{d=$3} END{print e "," a "," b "," c "," d}' >> "$tmp/shifted_cgd.csv"
done
cp "$tmp/shifted_cgd.csv" "$here/shifted_noisy_cgd_constrained.csv"
gnuplot -e "data='$tmp/shifted_cgd.csv'; out='$here/shifted_noisy_cgd_constrained.svg'" "$here/shifted_noisy_cgd_constrained.gp"
# Figure 8: BSA24 Figure 10 setting (one panel) — NoisySGD, convex on a set of diameter 1.
echo "steps,ours_eta02,ours_eta005,clt_eta02,composition" > "$tmp/shifted_sgd.csv"
for t in 1000 2000 5000 10000 20000 40000 80000; do
  run() { "$dpkit" shifted noisy-sgd --setting constrained-convex --sensitivity 50 --n 10000 --batch-size 100 \
            --noise 3 --diameter 1 --steps "$t" --delta 1e-5 --format csv --learning-rate "$1"; }
  a="$(run 0.2 | awk -F, '$1=="shifted-interpolation"{a=$3} $1=="shifted-interpolation (CLT)"{c=$3} $1=="composition"{d=$3} END{print a "," c "," d}')"
  b="$(run 0.05 | awk -F, '$1=="shifted-interpolation"{print $3}')"
  echo "$a" | awk -F, -v t="$t" -v b="$b" '{print t "," $1 "," b "," $2 "," $3}' >> "$tmp/shifted_sgd.csv"
done
cp "$tmp/shifted_sgd.csv" "$here/shifted_noisy_sgd.csv"
gnuplot -e "data='$tmp/shifted_sgd.csv'; out='$here/shifted_noisy_sgd.svg'" "$here/shifted_noisy_sgd.gp"
# Table: BSA24 Figure 10's grid at t = 80 000 — NoisySGD convex on a set of diameter 1,
# sigma = 3, b = 100: Thm 4.10 (eta = 0.2, certified by PLD) against Thm 4.8 (certified).
echo "sampling_rate,L_over_b,eps_thm410_eta02,eps_composition" > "$tmp/sgd_grid.csv"
for q in 0.0025 0.005 0.01 0.02 0.04; do
  for lb in 0.125 0.25 0.5 1 2; do
    n="$(awk -v q="$q" 'BEGIN{printf "%d", 100 / q + 0.5}')"
    L="$(awk -v l="$lb" 'BEGIN{printf "%.17g", 100 * l}')"
    r="$("$dpkit" shifted noisy-sgd --setting constrained-convex --sensitivity "$L" --n "$n" --batch-size 100 \
      --noise 3 --learning-rate 0.2 --diameter 1 --steps 80000 --delta 1e-5 --format csv |
      awk -F, '$1=="shifted-interpolation"{a=$3} $1=="composition"{d=$3} END{print a "," d}')"
    echo "$q,$lb,$r" >> "$tmp/sgd_grid.csv"
  done
done
cp "$tmp/sgd_grid.csv" "$here/shifted_noisy_sgd_grid.csv"
# Table: BSA24 Tables 3 and 4 (privacy of the MNIST runs, delta = 1e-5): NoisyCGD with
# L = 10, b = 1500, l = 40, sigma = 0.01, c = 1 - eta lambda; NoisySGD composition by PLD.
echo "lambda,epochs,mu_ours,eps_ours,mu_lower,eps_lower,eps_rdp_ys22,mu_composition,eps_composition,eps_sgd_composition_pld" > "$tmp/mnist.csv"
for lam in 0.002 0.004; do
  c="$(awk -v l="$lam" 'BEGIN{printf "%.17g", 1 - 0.05 * l}')"
  for e in 50 100 200; do
    row="$("$dpkit" shifted noisy-cgd --sensitivity 10 --batch-size 1500 --batches-per-epoch 40 --noise 0.01 \
      --contraction "$c" --epochs "$e" --learning-rate 0.05 --delta 1e-5 --format csv |
      awk -F, '$1=="shifted-interpolation"{a=$2","$3} $1=="lower-bound"{b=$2","$3} $1=="rdp-ys22"{r=$3} $1=="composition"{d=$2","$3} END{print a "," b "," r "," d}')"
    sgd="$("$dpkit" shifted noisy-sgd --setting convex --sensitivity 10 --n 60000 --batch-size 1500 --noise 0.01 \
      --steps "$((40 * e))" --delta 1e-5 --format csv | awk -F, '$1=="composition"{print $3}')"
    echo "$lam,$e,$row,$sgd" >> "$tmp/mnist.csv"
  done
done
cp "$tmp/mnist.csv" "$here/shifted_mnist_privacy.csv"
# Figure: LKSP25 Figure 2(a) setting — noisy HSGD risk trajectories (dpkit hsgd risk), true
# Sigma of the design against the released code's I/(12d), sigma = 1, 1.25, 1.5.
times="$(awk 'BEGIN{for(i=0;i<=120;i++){t=0.001*exp(i/120*log(1500)); printf "%s%.6g", (i?",":""), t}}')"
for fam in paper-design paper-code; do
  for s in 1 1.25 1.5; do
    "$dpkit" hsgd risk --spectrum "$fam" --dim 1000 --ridge 0.1 --label-noise 1e-5 --noise "$s" \
      --learning-rate 50 --times "$times" --format csv | awk -F, 'NR>1 && $1 !~ /^#/{print $2}' > "$tmp/risk_${fam}_$s.txt"
  done
done
echo "$times" | tr ',' '\n' > "$tmp/risk_t.txt"
{ echo "t,design_1,design_1.25,design_1.5,code_1,code_1.25,code_1.5"
  paste -d, "$tmp/risk_t.txt" "$tmp"/risk_paper-design_{1,1.25,1.5}.txt "$tmp"/risk_paper-code_{1,1.25,1.5}.txt; } > "$tmp/hsgd_risk.csv"
cp "$tmp/hsgd_risk.csv" "$here/hsgd_risk.csv"
gnuplot -e "data='$tmp/hsgd_risk.csv'; out='$here/hsgd_risk.svg'" "$here/hsgd_risk.gp"
# Figure: LKSP25 Figure 2(b) setting — Renyi DP (alpha = 2) of the last iterate against the
# iteration, 900 extreme-label pairs of the paper's instance (dpkit hsgd privacy).
ptimes="$(awk 'BEGIN{for(i=0;i<=60;i++){t=0.001*exp(i/60*log(1500)); printf "%s%.6g", (i?",":""), t}}')"
for spec in paper-design paper-code; do
  for s in 1 1.25 1.5; do
    "$dpkit" hsgd privacy --spectrum "$spec" --noise "$s" --order 2 --times "$ptimes" --format csv |
      awk -F, 'NR>1 && $1 !~ /^#/{print $3}' > "$tmp/rdp_${spec}_$s.txt"
  done
done
echo "$ptimes" | tr ',' '\n' > "$tmp/rdp_t.txt"
{ echo "t,design_1,design_1.25,design_1.5,code_1,code_1.25,code_1.5"
  paste -d, "$tmp/rdp_t.txt" "$tmp"/rdp_paper-design_{1,1.25,1.5}.txt "$tmp"/rdp_paper-code_{1,1.25,1.5}.txt; } > "$tmp/hsgd_rdp.csv"
cp "$tmp/hsgd_rdp.csv" "$here/hsgd_rdp.csv"
gnuplot -e "data='$tmp/hsgd_rdp.csv'; out='$here/hsgd_rdp.svg'" "$here/hsgd_rdp.gp"
# Figures: LKSP25 validation — SGD's mean risk against the exact moment recursion and the
# Volterra P_t, and the Mahalanobis QQ of the last iterate (dpkit validate, quick tier).
"$dpkit" validate lksp25-risk-sgd lksp25-fig1a-mahalanobis lksp25-fig3a-clipped lksp25-fig2a-risk --tier quick --seed 2026 --out "$tmp/v004" --format csv > /dev/null
cp "$tmp/v004/lksp25-risk-sgd.svg" "$here/validation_risk_sgd.svg"
cp "$tmp/v004/lksp25-risk-sgd.csv" "$here/validation_risk_sgd.csv"
cp "$tmp/v004/lksp25-fig1a-mahalanobis.svg" "$here/validation_mahalanobis.svg"
cp "$tmp/v004/lksp25-fig1a-mahalanobis.csv" "$here/validation_mahalanobis.csv"
cp "$tmp/v004/lksp25-fig3a-clipped.svg" "$here/validation_clipped_sgd.svg"
cp "$tmp/v004/lksp25-fig3a-clipped.csv" "$here/validation_clipped_sgd.csv"
cp "$tmp/v004/lksp25-fig2a-risk.svg" "$here/validation_seed_risk.svg"
cp "$tmp/v004/lksp25-fig2a-risk.csv" "$here/validation_seed_risk.csv"
# Figures: WSK+26 validation — the slack of Lemmas B.6-B.7 on random KANs; the test risk of
# DP-lambdaCGD on a KAN against t (several kappa, lambda), T and n; the Monte Carlo truth at each
# calibrated kappa; every calibration on a lambda grid (dpkit validate, quick tier).
"$dpkit" validate wsk26-lemmaB6-B7-random-kan wsk26-dplcgd-kan-trends wsk26-dplcgd-kan-horizon \
  wsk26-dplcgd-kan-sample-size wsk26-correlated-privacy-mc wsk26-correlated-kappa-grid \
  --tier quick --seed 2026 --out "$tmp/v000" --format csv > /dev/null
cp "$tmp/v000/wsk26-lemmaB6-B7-random-kan.svg" "$here/validation_kan_lemma_b6_b7.svg"
cp "$tmp/v000/wsk26-lemmaB6-B7-random-kan.csv" "$here/validation_kan_lemma_b6_b7.csv"
cp "$tmp/v000/wsk26-dplcgd-kan-trends.svg" "$here/validation_kan_dplcgd_trends.svg"
cp "$tmp/v000/wsk26-dplcgd-kan-trends.csv" "$here/validation_kan_dplcgd_trends.csv"
cp "$tmp/v000/wsk26-correlated-privacy-mc.svg" "$here/validation_correlated_mc.svg"
cp "$tmp/v000/wsk26-correlated-privacy-mc.csv" "$here/validation_correlated_mc.csv"
cp "$tmp/v000/wsk26-dplcgd-kan-horizon.svg" "$here/validation_kan_horizon.svg"
cp "$tmp/v000/wsk26-dplcgd-kan-horizon.csv" "$here/validation_kan_horizon.csv"
cp "$tmp/v000/wsk26-dplcgd-kan-sample-size.svg" "$here/validation_kan_sample_size.svg"
cp "$tmp/v000/wsk26-dplcgd-kan-sample-size.csv" "$here/validation_kan_sample_size.csv"
cp "$tmp/v000/wsk26-correlated-kappa-grid.svg" "$here/validation_correlated_kappa_grid.svg"
cp "$tmp/v000/wsk26-correlated-kappa-grid.csv" "$here/validation_correlated_kappa_grid.csv"
# Figures: SWX+23 and ZXD+26 validation — Alg 2's excess risk against n and epsilon with the
# explicit phase-sum bound; Alg 3's rates; Alg 8 at n proportional to d; the NTRF term (Fig 1); DP-SGD (Alg 10) against the width, T and C; ZXD+26's test error on
# all and long-tailed points against the noise, and the Fig 1 cells (dpkit validate, quick tier).
"$dpkit" validate swx23-thm1-rate swx23-thm1-phase-sum swx23-alg10-width-ushape swx23-alg10-steps-ushape \
  swx23-alg10-clip-flat zxd26-thm3-tail-gap zxd26-fig-synthetic swx23-thm2-alg3-rate \
  swx23-thm7-alg8-dimension swx23-fig1-ntrf \
  --tier quick --seed 2026 --out "$tmp/v001" --format csv > /dev/null
for pair in swx23-thm1-rate:validation_nonconvex_rate swx23-thm1-phase-sum:validation_nonconvex_phase_sum \
  swx23-alg10-width-ushape:validation_mlp_width swx23-alg10-steps-ushape:validation_mlp_steps \
  swx23-alg10-clip-flat:validation_mlp_clip zxd26-thm3-tail-gap:validation_longtail_tail_gap \
  zxd26-fig-synthetic:validation_longtail_fig_synthetic swx23-thm2-alg3-rate:validation_nonconvex_alg3_rate \
  swx23-thm7-alg8-dimension:validation_nonconvex_alg8_dimension swx23-fig1-ntrf:validation_mlp_ntrf; do
  cp "$tmp/v001/${pair%%:*}.svg" "$here/${pair##*:}.svg"
  cp "$tmp/v001/${pair%%:*}.csv" "$here/${pair##*:}.csv"
done
echo "make_figures: wrote the figures in $here" >&2
