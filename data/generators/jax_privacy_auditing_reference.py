#!/usr/bin/env python3
"""Reference values of google-deepmind/jax_privacy's canary-score auditor (auditing.py,
CanaryScoreAuditor and its module helpers) where its methods and dpkit's coincide, for
lib/tests/audit/jax_privacy_test.cpp: data/reference/jax_privacy_auditing.csv.

Which values (one row each, columns kind, m, guesses, correct, epsilon, delta, significance,
value):

* one_run_p_value — jax_privacy's _one_run_p_value(m, guesses, correct, epsilon, delta) on the
  parameter grid of its own test (test_one_run_p_value: m ∈ {10, 100, 1000}, guesses ∈ {1, 10,
  100} ≤ m, wrong guesses ∈ {0, 1, 10, 100} ≤ guesses, ε ∈ {0, 0.5, 1}, δ ∈ {0, 1e-6, 1e-3,
  0.1, 1});
* one_run_epsilon — _epsilon_one_run(0, m, guesses, correct, significance, delta): the
  largest ε the guesses reject (brentq, xtol 1e-6);
* one_run_fdp_epsilon — _epsilon_one_run_fdp(0, ...): the same for the Gaussian curve of
  (ε, δ) (dp_accounting.get_sigma_gaussian), xtol 1e-6.

The other statistics are compared in the test itself against jax_privacy's test-suite values
(explicit-threshold Clopper–Pearson on its deterministic normal scores, tpr_at_given_fpr and
attack_auroc examples); its Bonferroni family (the Pareto frontier of the ROC) differs from
dpkit's (every distinct score), so Bonferroni results are not compared.

Run (needs numpy, scipy, dp_accounting, and a checkout of jax_privacy)::

    /usr/bin/python3 data/generators/jax_privacy_auditing_reference.py --jax-privacy DIR

where DIR holds jax_privacy's auditing.py (the module is imported from there). Deterministic.
"""
import argparse
import itertools
import pathlib
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jax-privacy", required=True, help="folder holding jax_privacy's auditing.py")
    p.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent
                                        / "reference" / "jax_privacy_auditing.csv"))
    p.add_argument("--revision", default="unknown", help="jax_privacy commit, for the header")
    p.add_argument("--dp-accounting", default="dp_accounting",
                   help="what provided dp_accounting.get_sigma_gaussian, for the header")
    a = p.parse_args()
    sys.path.insert(0, a.jax_privacy)
    import auditing  # noqa: E402  (jax_privacy's module)
    import numpy

    rows = []
    for m, g, wrong, eps, delta in itertools.product((10, 100, 1000), (1, 10, 100),
                                                     (0, 1, 10, 100), (0.0, 0.5, 1.0),
                                                     (0.0, 1e-6, 1e-3, 0.1, 1.0)):
        if not (wrong <= g <= m):
            continue
        v = auditing._one_run_p_value(m, g, g - wrong, eps, delta)
        rows.append(("one_run_p_value", m, g, g - wrong, eps, delta, "nan", float(v)))
    for m, g, frac, sig, delta in itertools.product((100, 1000, 10000), (10, 50, 200),
                                                    (0.6, 0.8, 0.95, 1.0), (0.05, 0.01),
                                                    (0.0, 1e-6, 1e-4)):
        if g > m:
            continue
        c = int(round(frac * g))
        e1 = auditing._epsilon_one_run(0, m, g, c, sig, delta)
        rows.append(("one_run_epsilon", m, g, c, "nan", delta, sig, float(e1)))
        if delta > 0:
            e2 = auditing._epsilon_one_run_fdp(0, m, g, c, sig, delta)
            rows.append(("one_run_fdp_epsilon", m, g, c, "nan", delta, sig, float(e2)))
    with open(a.out, "w") as f:
        f.write("# what: jax_privacy canary-score auditor helpers at fixed counts, for "
                "lib/tests/audit/jax_privacy_test.cpp\n")
        f.write(f"# source: google-deepmind/jax_privacy auditing.py ({a.revision}), "
                f"numpy {numpy.__version__}, {a.dp_accounting}; "
                f"data/generators/jax_privacy_auditing_reference.py\n")
        f.write("kind,m,guesses,correct,epsilon,delta,significance,value\n")
        for r in rows:
            f.write(",".join(str(x) if not isinstance(x, float) else repr(x) for x in r) + "\n")
    print(f"{len(rows)} rows -> {a.out}")


if __name__ == "__main__":
    main()
