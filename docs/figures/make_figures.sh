#!/usr/bin/env bash
# Regenerates every figure in docs/figures: the data from the dpkit program (or the Python
# package), every figure drawn by `dpkit plot` (docs/plot.md).
#   docs/figures/make_figures.sh [path/to/dpkit] [REVIEW_DIR]
# dpkit defaults to build/release/tools/dpkit/dpkit. With REVIEW_DIR, each figure is also drawn
# as REVIEW_DIR/NAME.png, to look at.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dpkit="${1:-$here/../../build/release/tools/dpkit/dpkit}"
review="${2:-}"
[[ -x "$dpkit" ]] || { echo "make_figures: no dpkit at $dpkit (build the release preset first)" >&2; exit 2; }
[[ -z "$review" ]] || mkdir -p "$review"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# plot NAME.svg ARGS...: dpkit plot ARGS --output docs/figures/NAME.svg (and REVIEW_DIR/NAME.png).
plot() {
  local name="$1" said
  shift
  said="$("$dpkit" plot "$@" --output "$here/$name" 2>&1)" || { echo "$said" >&2; return 1; }
  if [[ -n "$review" ]]; then
    said="$("$dpkit" plot "$@" --output "$review/${name%.*}.png" 2>&1)" || { echo "$said" >&2; return 1; }
  fi
}

# Figure: tradeoff curves G(mu).
for mu in 0.5 1 2 3; do
  "$dpkit" tradeoff --mu "$mu" --points 401 --format json --output "$tmp/g_$mu.json"
done
plot gaussian_tradeoff.svg "$tmp"/g_{0.5,1,2,3}.json \
  --title "Gaussian tradeoff curves G(μ)(α) = Φ(Φ^{-1}(1 − α) − μ)"

# Figure: epsilon at delta = 1e-5 of full-batch noisy GD (sigma = 30) against the number of
# steps: exact (a composition of Gaussian mechanisms, PLD) and the best RDP conversion (the CLT
# row, exact here too, is left out).
"$dpkit" epsilon --noise-multiplier 30 --full-batch --steps 1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000 \
  --delta 1e-5 --accountant all --format csv | grep -v '^[0-9]*,clt,' > "$here/epsilon_vs_steps.csv"
plot epsilon_vs_steps.svg "$here/epsilon_vs_steps.csv" \
  --title "Full-batch noisy GD (σ = 30): exact ε against the best Rényi-DP conversion" \
  --y-label "ε at δ = 10^{-5}"

# Figure: the accountants on one DP-SGD run (q = 0.01, sigma = 1) against the number of steps.
"$dpkit" epsilon --noise-multiplier 1 --sampling-rate 0.01 \
  --steps 10,20,50,100,200,500,1000,2000,5000,10000,20000,50000,100000 --delta 1e-5 --accountant all \
  --format csv --output "$here/accountants_vs_steps.csv"
plot accountants_vs_steps.svg "$here/accountants_vs_steps.csv" \
  --title "DP-SGD (q = 0.01, σ = 1, Poisson): the accountants on one run" \
  --y-label "ε at δ = 10^{-5}"

# Figures: matrix-factorization mechanisms at one noise multiplier (sigma = 1), against the
# number of steps: DP-SGD (Poisson, q = 0.01), BandMF (banded square root, 10 bands, amplified by
# 10-min-separated sampling at q = 0.1) and a two-buffer BLT once per epoch of 100 steps (no
# sampling). epsilon (certified bracket) and the prefix sums' rmse (docs/matrix-mechanisms.md).
mm_steps=100,200,500,1000,2000,5000
"$dpkit" epsilon --strategy identity --sampling-rate 0.01 --steps "$mm_steps" --noise-multiplier 1 \
  --delta 1e-5 --format csv --output "$here/matrix_mechanisms_dpsgd.csv"
"$dpkit" epsilon --strategy sqrt:10 --min-separation 10 --sampling-rate 0.1 --steps "$mm_steps" \
  --noise-multiplier 1 --delta 1e-5 --format csv --output "$here/matrix_mechanisms_bandmf.csv"
"$dpkit" epsilon --strategy blt:0.9999528892:0.0122853238,0.9857068667:0.1878393665 \
  --min-separation 100 --sampling-rate 1 --steps "$mm_steps" --noise-multiplier 1 --delta 1e-5 \
  --format csv --output "$here/matrix_mechanisms_blt.csv"
mm_files=("$here"/matrix_mechanisms_{dpsgd,bandmf,blt}.csv)
mm_labels=(--label "DP-SGD (Poisson, q = 0.01)" --label "BandMF (sqrt:10, b = 10, q = 0.1)"
           --label "BLT (2 buffers, once per epoch)")
plot matrix_mechanisms_epsilon.svg "${mm_files[@]}" "${mm_labels[@]}" \
  --title "Matrix mechanisms at σ = 1: certified ε against the run's length" \
  --x-label "steps T (100 per epoch)" --y-label "ε at δ = 10^{-5}"
plot matrix_mechanisms_error.svg "${mm_files[@]}" "${mm_labels[@]}" --x steps --y rmse \
  --title "Matrix mechanisms at σ = 1: noise of the prefix sums" \
  --x-label "steps T (100 per epoch)" --y-label "rmse of the prefix sums (clip norms)"

# Figure: epsilon against epochs for the same noise and batch fraction (sigma = 1, q = 0.01),
# Poisson sampling against random allocation (certified bracket: the epoch's likelihood ratio in
# the convex order, both sides) and
# shuffled fixed-size batches (certified bracket: Chua et al. 2024's lower bound, upper bound
# without amplification).
"$dpkit" epsilon --noise-multiplier 1 --sampling-rate 0.01 --epochs 1,2,3,5,7,10,15,20,30,50 \
  --delta 1e-5 --format csv --output "$here/sampling_schemes_vs_epochs_poisson.csv"
"$dpkit" epsilon --sampling shuffling --noise-multiplier 1 --sampling-rate 0.01 \
  --epochs 1,2,3,5,7,10,15,20,30,50 --delta 1e-5 --format csv \
  --output "$here/sampling_schemes_vs_epochs_shuffling.csv"
"$dpkit" epsilon --sampling random-allocation --noise-multiplier 1 --sampling-rate 0.01 \
  --epochs 1,2,3,5,7,10,15,20,30,50 --delta 1e-5 --format csv \
  --output "$here/sampling_schemes_vs_epochs_allocation.csv"
plot sampling_schemes_vs_epochs.svg "$here/sampling_schemes_vs_epochs_poisson.csv" \
  "$here/sampling_schemes_vs_epochs_allocation.csv" \
  "$here/sampling_schemes_vs_epochs_shuffling.csv" --x epochs \
  --label "Poisson sampling (certified bracket)" \
  --label "random allocation (certified bracket)" \
  --label "shuffled batches (certified bracket)" \
  --log-x --log-y \
  --title "Same σ = 1 and batch fraction 1/100: Poisson, random allocation, shuffled batches" \
  --y-label "ε at δ = 10^{-5}"

# Figures: dpkit audit's worked example (docs/audit.md): the exact 0.3464-GDP claim of NoisyGD
# on the W1 pair, and the same claim halved (violated: exit 3, expected).
for claim in 0.3464:tight 0.1732:halved; do
  "$dpkit" audit --model quadratic --dataset-size 10 --dimension 2 --neighbour replace-one \
    --perturbation 1 --noise-std 0.5 --learning-rate 0.5 --steps 20 --mu "${claim%%:*}" \
    --figure "$here/audit_gdp_${claim##*:}.svg" > /dev/null || [[ $? == 3 ]]
done

# Figures: the canary-score audit of DP-SGD on Fashion-MNIST (docs/audit.md): the committed
# scores of examples/fashion_mnist_dpsgd.py's honest and broken runs (regenerate them as the page
# says), audited against the run's certified epsilon (the broken one: exit 3, expected).
for run in honest broken; do
  "$dpkit" audit --scores "$here/audit_canaries_$run.csv" --one-run --guesses 40 --delta 1e-5 \
    --accountant-run "--noise-multiplier 4.967744240164395 --batch-size 50 --dataset-size 601 --epochs 20" \
    --figure "$here/audit_canaries_$run.svg" > /dev/null || [[ $? == 3 ]]
done

printf 't,bound\n1,0.0625\n2,0.078125\n5,0.083252\n10,0.083333\n20,0.083333\n' > "$tmp/risk.csv"
"$dpkit" audit --model quadratic --dataset-size 10 --dimension 2 --noise-std 0.5 \
  --learning-rate 0.5 --steps 20 --risk-bound "$tmp/risk.csv" --figure "$here/audit_risk.svg" > /dev/null

# Figure: tradeoff curves of composed DP-SGD runs (q = 0.1, sigma = 0.7; certified bracket)
# against the CLT's G(mu), mu = q sqrt(T (e^{1/sigma^2} - 1)).
for t in 3 10 30; do
  "$dpkit" tradeoff --noise-multiplier 0.7 --sampling-rate 0.1 --steps "$t" --points 401 --format csv --output "$tmp/t_$t.csv"
  mu="$(awk -v t="$t" 'BEGIN{printf "%.17g", 0.1 * sqrt(t * (exp(1 / 0.49) - 1))}')"
  "$dpkit" tradeoff --mu "$mu" --points 401 --format csv --output "$tmp/c_$t.csv"
done
{ echo "steps,$(head -1 "$tmp/t_3.csv")"; for t in 3 10 30; do awk -v t="$t" 'NR>1{print t "," $0}' "$tmp/t_$t.csv"; done; } > "$tmp/run_tradeoff.csv"
{ echo "steps,$(head -1 "$tmp/c_3.csv")"; for t in 3 10 30; do awk -v t="$t" 'NR>1{print t "," $0}' "$tmp/c_$t.csv"; done; } > "$tmp/clt_tradeoff.csv"
cp "$tmp/run_tradeoff.csv" "$here/run_tradeoff.csv"
plot run_tradeoff.svg "$here/run_tradeoff.csv" "$tmp/clt_tradeoff.csv" --group steps \
  --label "certified bracket (PLD)" --label "CLT G(μ) (approximation)" \
  --title "DP-SGD (q = 0.1, σ = 0.7, Poisson): certified curve against the CLT"

# Validation figures: dpkit validate writes each scenario's JSON (quick tier, the docs' seed),
# dpkit plot draws it. validation ID NAME...: pairs ID:NAME.
validation() {
  local ids=() pair
  for pair in "$@"; do ids+=("${pair%%:*}"); done
  "$dpkit" validate "${ids[@]}" --tier quick --seed 2026 --output-dir "$tmp/validation" --no-figures --format csv > /dev/null
  for pair in "$@"; do
    cp "$tmp/validation/${pair%%:*}.csv" "$here/${pair##*:}.csv"
    plot "${pair##*:}.svg" "$tmp/validation/${pair%%:*}.json"
  done
}
# NoisyGD on BSA24's W1 against Thm 4.2; one NoisySGD step against Thm 4.8; BSA24 Figures 1,
# 6, 7, 8 and 9: the bounds' epsilon against steps (epochs), Monte Carlo where a bound is exact.
validation bsa24-thm4.2-tight:validation_thm42 bsa24-thm4.8-sgd-one-step:validation_sgd_one_step \
  bsa24-fig1-noisy-gd:shifted_noisy_gd bsa24-fig6-noisy-gd:shifted_noisy_gd_c099 \
  bsa24-fig7-noisy-gd-constrained:shifted_noisy_gd_constrained bsa24-fig8-noisy-cgd:shifted_noisy_cgd \
  bsa24-fig9-noisy-cgd-constrained:shifted_noisy_cgd_fig9

# Figure: BSA24 Figure 9 (right), extended: NoisyCGD, convex on a set of diameter 1, every
# bound of dpkit shifted against the epochs.
echo "epochs,$("$dpkit" shifted noisy-cgd --setting constrained-convex --sensitivity 2 --batch-size 4 \
  --batches-per-epoch 20 --noise-std 3 --learning-rate 0.02 --diameter 1 --epochs 5 --delta 1e-5 --format csv | head -1)" \
  > "$tmp/shifted_cgd.csv"
for e in 5 10 20 40 80 160 320 640 1280; do
  "$dpkit" shifted noisy-cgd --setting constrained-convex --sensitivity 2 --batch-size 4 \
    --batches-per-epoch 20 --noise-std 3 --learning-rate 0.02 --diameter 1 --epochs "$e" --delta 1e-5 --format csv |
    awk -v e="$e" 'NR>1{print e "," $0}' >> "$tmp/shifted_cgd.csv"
done
cp "$tmp/shifted_cgd.csv" "$here/shifted_noisy_cgd_constrained.csv"
plot shifted_noisy_cgd_constrained.svg "$here/shifted_noisy_cgd_constrained.csv" --log-y \
  --title "Constrained convex NoisyCGD (l = 20, L/b = 0.5, σ = 3, η = 0.02, D = 1)" \
  --y-label "ε at δ = 10^{-5} (upper bounds)"

# Figure: BSA24 Figure 10 setting (one panel): NoisySGD, convex on a set of diameter 1:
# Thm 4.10 at eta = 0.2 and 0.05 and the composition bound (Thm 4.8), certified by PLD, and the
# paper's CLT approximation at eta = 0.2 (as points: it lies on the certified value).
sgd() {
  "$dpkit" shifted noisy-sgd --setting constrained-convex --sensitivity 50 --dataset-size 10000 --batch-size 100 \
    --noise-std 3 --diameter 1 --steps "$1" --delta 1e-5 --format csv --learning-rate "$2"
}
echo "steps,learning_rate,$(sgd 1000 0.2 | head -1)" > "$tmp/shifted_sgd.csv"
for t in 1000 2000 5000 10000 20000 40000 80000; do
  sgd "$t" 0.2 | awk -F, -v t="$t" 'NR>1{print t ",0.2," $0}' >> "$tmp/shifted_sgd.csv"
  sgd "$t" 0.05 | awk -F, -v t="$t" 'NR>1 && $1=="shifted-interpolation"{print t ",0.05," $0}' >> "$tmp/shifted_sgd.csv"
done
cp "$tmp/shifted_sgd.csv" "$here/shifted_noisy_sgd.csv"
# The certified bounds (Thm 4.10 named by its eta) and the CLT, as two files.
awk -F, 'NR==1 || $3=="shifted-interpolation" || $3=="composition"' "$tmp/shifted_sgd.csv" |
  awk -F, -v OFS=, 'NR>1 && $3=="shifted-interpolation"{$3="\"Thm 4.10, η = " $2 " (PLD, certified)\""} NR>1 && $3=="composition"{$3="\"composition, Thm 4.8 (PLD, certified)\""} {print}' \
  > "$tmp/shifted_sgd_certified.csv"
awk -F, -v OFS=, 'NR==1{print; next} $3=="shifted-interpolation (CLT)"{$3="\"Thm 4.10, η = 0.2, CLT (approximation)\""; print}' \
  "$tmp/shifted_sgd.csv" > "$tmp/shifted_sgd_clt.csv"
plot shifted_noisy_sgd.svg "$tmp/shifted_sgd_certified.csv" "$tmp/shifted_sgd_clt.csv" \
  --style linespoints --style points --log-x \
  --title "NoisySGD: shifted interpolation (Thm 4.10) stops growing, composition (Thm 4.8) does not" \
  --x-label "steps t (NoisySGD, b/n = 0.01, L/b = 0.5, σ = 3, D = 1)" --y-label "ε at δ = 10^{-5}"

# Table: BSA24 Figure 10's grid at t = 80 000: NoisySGD convex on a set of diameter 1,
# sigma = 3, b = 100: Thm 4.10 (eta = 0.2, certified by PLD) against Thm 4.8 (certified).
echo "sampling_rate,L_over_b,eps_thm410_eta02,eps_composition" > "$tmp/sgd_grid.csv"
for q in 0.0025 0.005 0.01 0.02 0.04; do
  for lb in 0.125 0.25 0.5 1 2; do
    n="$(awk -v q="$q" 'BEGIN{printf "%d", 100 / q + 0.5}')"
    L="$(awk -v l="$lb" 'BEGIN{printf "%.17g", 100 * l}')"
    r="$("$dpkit" shifted noisy-sgd --setting constrained-convex --sensitivity "$L" --dataset-size "$n" --batch-size 100 \
      --noise-std 3 --learning-rate 0.2 --diameter 1 --steps 80000 --delta 1e-5 --format csv |
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
    row="$("$dpkit" shifted noisy-cgd --sensitivity 10 --batch-size 1500 --batches-per-epoch 40 --noise-std 0.01 \
      --contraction "$c" --epochs "$e" --learning-rate 0.05 --delta 1e-5 --format csv |
      awk -F, '$1=="shifted-interpolation"{a=$2","$3} $1=="lower-bound"{b=$2","$3} $1=="rdp-ys22"{r=$3} $1=="composition"{d=$2","$3} END{print a "," b "," r "," d}')"
    sgd_eps="$("$dpkit" shifted noisy-sgd --setting convex --sensitivity 10 --dataset-size 60000 --batch-size 1500 --noise-std 0.01 \
      --steps "$((40 * e))" --delta 1e-5 --format csv | awk -F, '$1=="composition"{print $3}')"
    echo "$lam,$e,$row,$sgd_eps" >> "$tmp/mnist.csv"
  done
done
cp "$tmp/mnist.csv" "$here/shifted_mnist_privacy.csv"

# Figure: LKSP25 Figure 2(a) setting: noisy HSGD risk trajectories (dpkit hsgd risk), the
# design's true Sigma against the released code's I/(12d), sigma = 1, 1.25, 1.5.
times="$(awk 'BEGIN{for(i=0;i<=120;i++){t=0.001*exp(i/120*log(1500)); printf "%s%.6g", (i?",":""), t}}')"
for fam in paper-design paper-code; do
  echo "sigma,$("$dpkit" hsgd risk --spectrum isotropic:1 --dimension 2 --learning-rate 1 --times 1 --format csv | head -1)" > "$tmp/risk_$fam.csv"
  for s in 1 1.25 1.5; do
    "$dpkit" hsgd risk --spectrum "$fam" --dimension 1000 --ridge 0.1 --label-noise 1e-5 --noise-std "$s" \
      --learning-rate 50 --times "$times" --format csv | awk -v s="$s" 'NR>1 && $1 !~ /^#/{print s "," $0}' >> "$tmp/risk_$fam.csv"
  done
done
{ echo "spectrum,$(head -1 "$tmp/risk_paper-design.csv")"
  awk 'NR>1{print "design," $0}' "$tmp/risk_paper-design.csv"
  awk 'NR>1{print "code," $0}' "$tmp/risk_paper-code.csv"; } > "$here/hsgd_risk.csv"
plot hsgd_risk.svg "$tmp/risk_paper-design.csv" "$tmp/risk_paper-code.csv" --y P --group sigma \
  --label "the design's Σ" --label "the code's Σ = I/(12d)" \
  --title "Noisy HSGD risk (d = 1000, γ = 50, ridge 0.1): the design's Σ doubles the plateau" \
  --y-label "population risk P_t"

# Figure: LKSP25 Figure 2(b) setting: Renyi DP (alpha = 2) of the last iterate against time,
# 900 extreme-label pairs of the paper's instance (dpkit hsgd privacy).
ptimes="$(awk 'BEGIN{for(i=0;i<=60;i++){t=0.001*exp(i/60*log(1500)); printf "%s%.6g", (i?",":""), t}}')"
for spec in paper-design paper-code; do
  echo "sigma,t,k,eps_alpha=2,epsilon" > "$tmp/rdp_$spec.csv"
  for s in 1 1.25 1.5; do
    "$dpkit" hsgd privacy --spectrum "$spec" --noise-std "$s" --orders 2 --times "$ptimes" --format csv |
      awk -v s="$s" 'NR>1 && $1 !~ /^#/{print s "," $0}' >> "$tmp/rdp_$spec.csv"
  done
done
{ echo "spectrum,$(head -1 "$tmp/rdp_paper-design.csv")"
  awk 'NR>1{print "design," $0}' "$tmp/rdp_paper-design.csv"
  awk 'NR>1{print "code," $0}' "$tmp/rdp_paper-code.csv"; } > "$here/hsgd_rdp.csv"
plot hsgd_rdp.svg "$tmp/rdp_paper-design.csv" "$tmp/rdp_paper-code.csv" --y eps_alpha=2 --group sigma \
  --label "the design's Σ" --label "the code's Σ = I/(12d)" \
  --title "Rényi DP (α = 2) of noisy HSGD's last iterate: rise, peak, decay, plateau" \
  --y-label "ε_2(t), last iterate"

# Figure: LKSP25 Figure 1(b): each pair's own Renyi DP (alpha = 2) at t = T/2 over 1000 random
# pairs, against the exact mean gap |r a - r' a'| at s = 0 and against the paper's g(theta) (with
# x0 for 1_d, as the released code computes it), at the risk curves' rate gamma = 50 and at the
# released privacy code's gamma = 0.05 (the code's Sigma = I/(12d), sigma = 1.5).
for rate in 50 0.05; do
  "$dpkit" hsgd privacy --spectrum paper-code --noise-std 1.5 --orders 2 --times 0.75 \
    --pairs random:1000 --learning-rate "$rate" --per-pair "$tmp/pairs_$rate.csv" > /dev/null 2>&1
done
{ echo "gamma,first,second,g_ones,g_x0,gap_exact,eps_alpha=2"
  for rate in 50 0.05; do
    awk -F, -v g="$rate" 'NR>1{print g "," $2 "," $3 "," $6 "," $7 "," $8 "," $9}' "$tmp/pairs_$rate.csv"
  done; } > "$here/hsgd_pair_scatter.csv"
plot hsgd_pair_scatter.svg "$tmp/pairs_50.csv" "$tmp/pairs_0.05.csv" --x gap_exact --y eps_alpha=2 \
  --style points --log-y --label "γ = 50 (the risk curves' rate)" --label "γ = 0.05 (the released privacy code's)" \
  --title "Each pair's own ε_2 at t = T/2 (1000 random pairs) against its mean gap at s = 0" \
  --x-label "exact mean gap ‖r a − r′a′‖ at s = 0 (r = b − a^T x_0)" --y-label "ε_2(T/2) of the pair alone"
plot hsgd_pair_scatter_g.svg "$tmp/pairs_50.csv" "$tmp/pairs_0.05.csv" --x g_x0 --y eps_alpha=2 \
  --style points --log-y --label "γ = 50 (the risk curves' rate)" --label "γ = 0.05 (the released privacy code's)" \
  --title "The same pairs against LKSP25's g(θ) with x_0 for 1_d (the released code's x-axis)" \
  --x-label "‖g(θ)‖ = ‖(b a − b′a′) − (a a^T − a′a′^T + δI) x_0‖" --y-label "ε_2(T/2) of the pair alone"

# Figure: LKSP25 Figure 3(b): the HSGD Renyi DP of unclipped noisy SGD (sigma = 1.5, 900
# extreme-label pairs) beside Ye & Shokri's last-iterate bound for the same pass clipped at
# c = 3, 5, 7 (YS22 as their released code evaluates it; docs/hsgd.md gives the mapping).
"$dpkit" hsgd privacy --noise-std 1.5 --orders 2 --times "$ptimes" --ys22-clip 3,5,7 --format csv |
  awk '$1 !~ /^#/' > "$here/hsgd_ys22.csv"
plot hsgd_ys22.svg "$here/hsgd_ys22.csv" --x t --y eps_alpha=2,ys22_c=3,ys22_c=5,ys22_c=7 --log-x --log-y \
  --name "HSGD, unclipped (approximation, this dataset)" --name "YS22 bound, clip c = 3" \
  --name "YS22 bound, c = 5" --name "YS22 bound, c = 7" --key below \
  --title "Last-iterate Rényi DP (α = 2, σ = 1.5, γ = 50): HSGD against Ye and Shokri's bound" \
  --x-label "t = k/d" --y-label "ε_2(t)"

# Validation figures of LKSP25: SGD's mean risk against the exact moment recursion and the
# Volterra P_t, the Mahalanobis QQ of the last iterate, clipped SGD, the paper's risk curves.
validation lksp25-risk-sgd:validation_risk_sgd lksp25-fig1a-mahalanobis:validation_mahalanobis \
  lksp25-fig3a-clipped:validation_clipped_sgd lksp25-fig2a-risk:validation_seed_risk
# WSK+26: the slack of Lemmas B.6-B.7 on random KANs; the test risk of DP-lambdaCGD on a KAN
# against t, T and n; the Monte Carlo truth at each calibrated kappa; every calibration on a
# lambda grid.
validation wsk26-lemmaB6-B7-random-kan:validation_kan_lemma_b6_b7 \
  wsk26-dplcgd-kan-trends:validation_kan_dplcgd_trends wsk26-dplcgd-kan-horizon:validation_kan_horizon \
  wsk26-dplcgd-kan-sample-size:validation_kan_sample_size wsk26-correlated-privacy-mc:validation_correlated_mc \
  wsk26-correlated-kappa-grid:validation_correlated_kappa_grid
# SWX+23 and ZXD+26: Alg 2's excess risk against n and epsilon with the explicit phase-sum
# bound; Alg 3's rates; Alg 8 at n proportional to d; the NTRF term; DP-SGD (Alg 10) against the
# width, T and C; ZXD+26's test error on all and long-tailed points, and the Fig 1 cells.
validation swx23-thm1-rate:validation_nonconvex_rate swx23-thm1-phase-sum:validation_nonconvex_phase_sum \
  swx23-alg10-width-ushape:validation_mlp_width swx23-alg10-steps-ushape:validation_mlp_steps \
  swx23-alg10-clip-flat:validation_mlp_clip zxd26-thm3-tail-gap:validation_longtail_tail_gap \
  zxd26-fig-synthetic:validation_longtail_fig_synthetic swx23-thm2-alg3-rate:validation_nonconvex_alg3_rate \
  swx23-thm7-alg8-dimension:validation_nonconvex_alg8_dimension swx23-fig1-ntrf:validation_mlp_ntrf

# Figure: WSK+26 Figure 1 (right): correlated noise xi_t = kappa (Z_t - lambda Z_{t-1}) partially
# cancels, so the cumulative noise sum_{s<=t} xi_s = kappa (Z_t + (1 - lambda) sum_{s<t} Z_s) grows
# like kappa sqrt(1 + (1 - lambda)^2 (t - 1)) instead of kappa sqrt(t). Closed form (lines) and
# the simulator (points: the sd of X_T = -sum xi for a zero gradient, 4000 runs, with the
# interval sd (1 +- 1.96/sqrt(2(R - 1))) of a normal sample's sd).
echo "t,lambda,sd,lo,hi" > "$tmp/cum_closed.csv"
echo "t,lambda,sd,lo,hi" > "$tmp/cum_mc.csv"
for lam in 0 0.5 0.9 0.99; do
  awk -v l="$lam" 'BEGIN{for(i=0;i<=60;i++){t=exp(i/60*log(1000)); s=sqrt(1+(1-l)^2*(t-1)); printf "%.6g,%s,%.6g,%.6g,%.6g\n", t, l, s, s, s}}' >> "$tmp/cum_closed.csv"
  for t in 1 3 10 30 100 300 1000; do
    "$dpkit" simulate --model quadratic --dataset-size 1 --dimension 1 --curvature 0 --correlation "$lam" \
      --noise-std 1 --learning-rate 1 --steps "$t" --replicates 4000 --format csv |
      awk -F, -v t="$t" -v l="$lam" '$1=="projection"{s=$7; h=1.96/sqrt(2*3999); printf "%s,%s,%.17g,%.17g,%.17g\n", t, l, s, s*(1-h), s*(1+h)}' >> "$tmp/cum_mc.csv"
  done
done
cp "$tmp/cum_mc.csv" "$here/kan_cumulative_noise.csv"
plot kan_cumulative_noise.svg "$tmp/cum_closed.csv" "$here/kan_cumulative_noise.csv" --x t --y sd \
  --y-lower lo --y-upper hi --group lambda --style lines --style points --log-x --log-y \
  --label "closed form" --label "simulator" \
  --title "Correlated noise ξ_t = κ(Z_t − λZ_{t−1}) cancels: sd of Σ_{s≤t} ξ_s (κ = 1)" \
  --x-label "steps t" --y-label "sd of the cumulative noise per coordinate"

# Figure: BSA24's accuracy protocol (Tables 2, 5, 6) turned around, on Fashion-MNIST: for each
# target epsilon the noise each accounting method certifies and the test accuracy NoisyCGD (and
# NoisySGD with its composition bound) reaches with it (validation/real_data/shifted_accuracy.py,
# full tier, about 52 min on 2 cores; its CSV is committed, regenerate it with the command in
# docs/shifted-noisy-cgd.md).
plot shifted_accuracy_fashion_mnist.svg "$here/shifted_accuracy_fashion_mnist.csv" --x epsilon \
  --y accuracy_mean --y-error accuracy_sd --group method --style linespoints --log-x --key below \
  --title "Fashion-MNIST: test accuracy at the noise each analysis certifies" \
  --x-label "target ε at δ = 10^{-5} (E = 50 epochs)" --y-label "test accuracy (mean ± sd, 4 runs)"

# Figure: ZXD+26 Figure 2(a) on real data (validation/real_data/longtail_memorisation.py, full
# tier, about 1.5 min on 2 cores; its CSV is committed, regenerate it with the command in
# docs/longtail.md): clean against DP-SGD test error on all data and on two rare classes, and the
# tail's memorisation (tail test error - tail training error), against the target epsilon.
awk -F, '$1 ~ /^#/ || $3 !~ /tail-train/' "$here/longtail_fashion_mnist.csv" > "$tmp/longtail.csv"
plot longtail_fashion_mnist.svg "$tmp/longtail.csv" --x epsilon --y mean --y-error half_width \
  --group series --style linespoints --log-x --key below \
  --title "Long-tailed Fashion-MNIST (2 rare classes): DP costs the tail and curbs memorisation" \
  --x-label "target ε of DP-SGD at δ = 10^{-5} (clean runs repeated at each ε)" \
  --y-label "test error / memorisation (mean, 95 % interval)"

# Figures: SWX+23 Figures 2-5 on Fashion-MNIST (validation/real_data/nonconvex_sweeps.py, full
# tier, about 8 min on 2 cores; its CSV is committed, regenerate it with the command in
# docs/nonconvex.md): Algorithm 10's test loss against C, m, T, and n (DP and non-private).
for fig in fig2:clip:"clipping norm C (η = 0.2 fixed)" fig3:width:"width m" fig4:steps:"steps T (ε = 4 fixed)" \
  fig5:n:"training images n (T = ⌈50 n^{2/5}⌉)"; do
  IFS=: read -r name param label <<< "$fig"
  awk -F, -v f="$name" '$1 ~ /^#/ || NR == 2 || $1 == f' "$here/nonconvex_fashion_mnist.csv" > "$tmp/$name.csv"
  plot "nonconvex_fashion_mnist_$name.svg" "$tmp/$name.csv" --x value --y test_loss --y-error half_width \
    --group run --style linespoints --log-x \
    --title "Algorithm 10 on Fashion-MNIST (T-shirt/top against shirt): SWX+23 ${name/fig/Fig }" \
    --x-label "$label" --y-label "test loss of the averaged iterate (mean, 95 % interval)"
done

# Figure: WSK+26 Figure 1 (left) on Fashion-MNIST (validation/real_data/correlated_accuracy.py,
# full tier, about 6 min on 2 cores; its CSV is committed, regenerate it with the command in
# docs/kan.md): DP-lambdaCGD's test accuracy against epsilon per lambda, at the certified kappa
# (pld for lambda = 0, f9-exact) and at the lower-bound kappa (no valid calibration uses less).
plot kan_correlated_accuracy.svg "$here/kan_correlated_accuracy.csv" --x epsilon \
  --y accuracy_mean --y-error accuracy_sd --group series --style linespoints --log-x --key below \
  --title "DP-λCGD on Fashion-MNIST: test accuracy at the certified and the lower-bound noise" \
  --x-label "target ε at δ = 10^{-5} (r = 0.01, T = 1000)" --y-label "test accuracy (mean ± sd, 4 runs)"

# Figure: DP-SGD on Fashion-MNIST (examples/fashion_mnist_dpsgd.py, the default run; its CSV is
# committed, regenerate it as docs/python-example.md says): the certified epsilon bracket and the
# test accuracy after every epoch.
plot python_fashion_mnist.svg "$here/python_fashion_mnist.csv" --x epoch \
  --y eps_upper --y-lower eps_lower --y-upper eps_upper --y2 test_accuracy \
  --name "certified ε, bracket [ε_{lower}, ε_{upper}] (left)" --name "test accuracy (right)" \
  --title "DP-SGD on Fashion-MNIST, target (ε, δ) = (3, 10^{-5}), Poisson sampling" \
  --y-label "certified ε at δ = 10^{-5}" --y2-label "test accuracy"

# Figure: the certified bound on the TPR of any membership-inference test (docs/python.md): the
# Python package writes the curves, dpkit plot draws them (needs the build's Python package).
python_dir="$(cd "$(dirname "$dpkit")/../.." && pwd)/python"
if PYTHONPATH="$python_dir" python3 -c "import dpkit" 2> /dev/null; then
  PYTHONPATH="$python_dir" python3 "$here/python_tradeoff.py" --dpkit "$dpkit" ${review:+--review "$review"}
else
  echo "make_figures: python_tradeoff.{svg,png} not redrawn (no Python package in $python_dir)" >&2
fi
echo "make_figures: wrote the figures in $here" >&2
