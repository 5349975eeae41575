"""`dpkit shifted` and dpkit.shifted.noisy_gd / noisy_cgd / noisy_sgd / lmc give the same table:
one decision tree, in the library (shifted/report.hpp). A seeded grid of settings, each asked of
both front ends: the same rows in the same order, the same μ, ε, label and τ to the last bit,
and the same refusals (each in its own spelling of the inputs)."""

import math
import random
import subprocess

import pytest

import dpkit
from conftest import cli, cli_json

_FLAGS = {"noise": "--noise-std", "dataset_size": "--dataset-size"}


def _flag(name):
    return _FLAGS.get(name, "--" + name.replace("_", "-"))


def _case(rng):
    alg = rng.choice(["noisy-gd", "noisy-cgd", "noisy-sgd", "lmc"])
    setting = rng.choice(["strongly-convex", "convex", "constrained-convex"])
    kw = {"sensitivity": rng.choice([0.1, 1.0, 2.0])}
    if alg == "lmc":
        kw.update(strong_convexity=rng.choice([0.5, 1.0]), learning_rate=0.1)
        if setting == "constrained-convex":
            kw["diameter"] = rng.choice([1.0, 3.0])
        if rng.random() < 0.4:
            kw["steps"] = rng.choice([5, 50])
    else:
        kw.update(noise=rng.choice([0.5, 1.0, 2.0]), learning_rate=rng.choice([0.05, 0.1, 0.5]))
        if alg == "noisy-gd":
            kw.update(dataset_size=rng.choice([1, 10, 100]), steps=rng.choice([5, 50, 160]))
        elif alg == "noisy-cgd":
            kw.update(batch_size=10, batches_per_epoch=rng.choice([4, 20]),
                      epochs=rng.choice([2, 10]))
        else:
            kw.update(dataset_size=rng.choice([100, 1000]), batch_size=rng.choice([10, 100]),
                      steps=rng.choice([1, 5, 20]))
        if rng.random() < 0.6:
            kw["contraction"] = rng.choice([0.9, 0.95, 0.99])
        else:
            kw.update(strong_convexity=rng.choice([0.5, 1.0]), smoothness=rng.choice([2.0, 5.0]))
        if setting == "constrained-convex" or rng.random() < 0.2:
            kw["diameter"] = rng.choice([1.0, 10.0])
    if rng.random() < 0.15:  # a slip: an input the setting needs is left out
        kw.pop(rng.choice(sorted(kw)))
    return alg, setting, kw


def _python(alg, setting, kw):
    fn = {"noisy-gd": dpkit.shifted.noisy_gd, "noisy-cgd": dpkit.shifted.noisy_cgd,
          "noisy-sgd": dpkit.shifted.noisy_sgd, "lmc": dpkit.shifted.lmc}[alg]
    args = dict(kw)
    if alg != "noisy-cgd":
        for k in ("epochs", "batches_per_epoch"):
            args.pop(k, None)
    return fn(setting=setting, **args)


def test_the_cli_and_python_tables_are_one_decision_tree():
    rng = random.Random(20261125)
    answered = refused = 0
    for _ in range(60):
        alg, setting, kw = _case(rng)
        argv = ["shifted", alg, "--setting", setting]
        for k, v in kw.items():
            argv += [_flag(k), repr(v)]
        proc = subprocess.run([cli(), *argv, "--format", "json"], capture_output=True, text=True)
        try:
            report = _python(alg, setting, kw)
        except (ValueError, TypeError) as e:
            # Refused by both, in each one's spelling of the same rule.
            assert proc.returncode == 2, (argv, str(e))
            refused += 1
            continue
        assert proc.returncode == 0, (argv, proc.stderr)
        import json
        rows = json.loads(proc.stdout)["results"]
        assert [r["bound"] for r in rows] == list(report.names), argv
        for r, b in zip(rows, report):
            assert r["kind"] == b.kind
            assert (r["tau"] if r["tau"] is not None else None) == b.tau
            mu = math.nan if r["mu"] is None else r["mu"]
            assert (mu == b.mu) or (math.isnan(mu) and math.isnan(b.mu)), (argv, r, b)
            eps = math.nan if r["epsilon"] is None else r["epsilon"]
            assert (eps == b.value) or (math.isnan(eps) and math.isnan(b.value)), (argv, r, b)
            assert r.get("note", "") == b.note
        answered += 1
    assert answered >= 30 and refused >= 3, (answered, refused)


def test_a_refusal_names_the_python_keywords():
    with pytest.raises(ValueError, match=r"^setting='strongly-convex' needs contraction, or "
                                         r"learning_rate with strong_convexity and smoothness"):
        dpkit.shifted.noisy_gd(sensitivity=1, dataset_size=10, noise=1, steps=5)
    with pytest.raises(ValueError, match=r"^batch_size is 20, but must be <= dataset_size = 10"):
        dpkit.shifted.noisy_sgd(sensitivity=1, dataset_size=10, batch_size=20, noise=1, steps=5,
                                learning_rate=0.1, contraction=0.9)


def test_a_row_beyond_the_gdp_conversion_is_a_failure_row_not_an_error():
    # Composition mu = L sqrt(t)/(n sigma) = 1e7 (BSA24 Thm 4.1) at sigma = 1e-4, t = 1e6: beyond
    # the exact conversion's range (1e6). That row has no epsilon and says why; shifted
    # interpolation (Thm 4.2, near 1e4) and the rest of the table are still returned.
    r = dpkit.shifted.noisy_gd(sensitivity=1, dataset_size=1, noise=1e-4, steps=1_000_000,
                               contraction=0.5, learning_rate=0.1)
    comp = r["composition"]
    assert math.isnan(comp.value) and comp.termination == "failure"
    assert "outside [0, 1e6]" in comp.message
    assert math.isfinite(float(r["shifted-interpolation"]))
    proc = subprocess.run([cli(), "shifted", "noisy-gd", "--sensitivity", "1", "--dataset-size",
                           "1", "--noise-std", "1e-4", "--steps", "1000000", "--contraction", "0.5",
                           "--learning-rate", "0.1"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "composition: mu = 10000000 is outside [0, 1e6]" in proc.stdout
