"""A training loop's units — batch size, dataset size, sampling rate, epochs — give the same run
from Python and from the CLI: one rule in the library (accounting/run_units.hpp), T = ⌈E·N/B⌉ or
⌈E/q⌉ exact on the numbers as written, checked here against Python's own exact decimals."""

import math
import random
from fractions import Fraction

import pytest

import dpkit
from conftest import cli_json


def _decimal(rng):
    """A number as a user types it: up to 4 significant digits, 0 to 4 decimals."""
    return repr(rng.randint(1, 9999) / 10 ** rng.randint(0, 4))


def _expected_steps(epochs_text, q_fraction, scheme="poisson", batches=None):
    # The decimal as written, exactly (Fraction of the text, not of the binary double). Poisson:
    # ⌈E/q⌉ (= ⌈E·N/B⌉); a data loader's schemes: ⌈E·k⌉ with k batches per pass, ⌈N/B⌉ or
    # ⌈1/q⌉ (given here by the caller, from integers or the rate's text).
    if scheme == "poisson":
        return max(1, math.ceil(Fraction(epochs_text) / q_fraction))
    return max(1, math.ceil(Fraction(epochs_text) * batches))


def test_a_data_loaders_epochs_are_whole_passes():
    # 10 epochs of 60 000 in batches of 256: a shuffled DataLoader takes 10 · ⌈60000/256⌉ = 2 350
    # steps (Poisson: TF Privacy's ⌈10 · 60000/256⌉ = 2 344), from both front ends.
    for scheme, want in (("shuffling", 2350), ("random-allocation", 2350),
                         ("without-replacement", 2350), ("poisson", 2344)):
        r = dpkit.epsilon_curve(1e-5, noise_multiplier=1.1, batch_size=256, dataset_size=60_000,
                                epochs=[10], sampling=scheme, accountant="rdp")
        assert list(r.steps) == [want], scheme
        out = cli_json("epsilon", "--noise-multiplier", "1.1", "--batch-size", "256",
                       "--dataset-size", "60000", "--epochs", "10", "--sampling", scheme,
                       "--delta", "1e-5", "--accountant", "rdp")
        assert out["results"][0]["steps"] == want, scheme


def test_the_cases_the_front_ends_disagreed_on():
    # 2.2 epochs of 1 000 examples in batches of 100 are 22 steps (Python's binary reading of 2.2
    # made 23); 3 epochs at q = 0.3 are 10 (11 before); 1.0000000001 epochs of N/B = 10 are 11
    # (the CLI's tolerance made 10).
    for kwargs, steps in ((dict(batch_size=100, dataset_size=1000, epochs=2.2), 22),
                          (dict(sample_rate=0.3, epochs=3), 10),
                          (dict(batch_size=10, dataset_size=100, epochs=1.0000000001), 11)):
        r = dpkit.epsilon_curve(1e-5, noise_multiplier=1.1, accountant="rdp",
                                **{k: ([v] if k == "epochs" else v) for k, v in kwargs.items()})
        assert list(r.steps) == [steps], kwargs


def test_too_many_steps_refused_in_the_arguments_words():
    with pytest.raises(ValueError, match=r"^epochs is 1e\+300, but must be a length of at most "
                                         r"2\^53 steps"):
        dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.1, epochs=1e300)
    with pytest.raises(ValueError, match="at most dataset_size"):
        dpkit.epsilon(1e-5, noise_multiplier=1.0, batch_size=11, dataset_size=10, epochs=1)


def test_python_and_cli_derive_the_same_runs_on_a_seeded_grid_of_units():
    # 3 000 unit combinations: 150 runs (batch size of a dataset, or a sampling rate; the four
    # schemes of a data loader's epochs and Poisson's in turn), each at 20 epoch counts (one CLI
    # curve per run). For each: the same q, the same T — the exact ceiling of the decimals as
    # typed, by the scheme's rule — and the same epsilon to the last bit.
    rng = random.Random(20261125)
    combinations = 0
    for k in range(150):
        sigma = repr(round(10 ** rng.uniform(-0.3, 1), 3))
        epochs = [_decimal(rng) for _ in range(20)]
        if k % 2 == 0:
            n = rng.choice([rng.randint(1, 100), rng.randint(100, 10**6)])
            b = rng.randint(1, n)
            run = ["--batch-size", str(b), "--dataset-size", str(n)]
            kwargs = dict(batch_size=b, dataset_size=n)
            q_exact = Fraction(b, n)
            q = b / n
        else:
            digits = rng.randint(1, 4)
            q_text = repr(rng.randint(1, 10**digits) / 10**digits)
            run = ["--sampling-rate", q_text]
            kwargs = dict(sample_rate=float(q_text))
            q_exact = Fraction(q_text)
            q = float(q_text)
        scheme = ("poisson", "shuffling", "poisson", "random-allocation", "poisson",
                  "without-replacement")[k % 6]
        run += ["--sampling", scheme]
        kwargs["sampling"] = scheme
        # k batches per pass: ⌈N/B⌉, or ⌈1/q⌉ of the rate as typed.
        batches = math.ceil(1 / q_exact)
        # Keep T within a curve the RDP accountant answers at once (≤ 10^7 steps).
        epochs = [e for e in epochs if Fraction(e) * batches <= 10**7]
        if not epochs:
            continue
        out = cli_json("epsilon", "--noise-multiplier", sigma, *run, "--epochs", ",".join(epochs),
                       "--delta", "1e-5", "--accountant", "rdp")
        assert out["context"]["parameters"]["sampling_rate"] == q
        rows = out["results"]
        curve = dpkit.epsilon_curve(1e-5, noise_multiplier=float(sigma), accountant="rdp",
                                    epochs=[float(e) for e in epochs], **kwargs)
        assert len(rows) == len(epochs) == len(curve.steps)
        for e, row, t, upper in zip(epochs, rows, curve.steps, curve.upper):
            where = f"{run} --epochs {e}"
            want = _expected_steps(e, q_exact, scheme, batches)
            assert row["steps"] == want, where
            assert int(t) == want, where
            assert row["epsilon_upper"] == upper, where
            single = dpkit.epsilon(1e-5, noise_multiplier=float(sigma), accountant="rdp",
                                   epochs=float(e), **kwargs)
            assert single.upper == upper, where
            combinations += 1
    assert combinations >= 2500


def test_a_loader_that_drops_the_last_batch():
    # DataLoader(drop_last=True): 10 · ⌊60000/256⌋ = 2 340 steps, from both front ends; a shuffled
    # loader's epochs of 234 steps use an example with probability 234·256/60000 = 0.9984, and
    # the bracket is the same number on both paths.
    for scheme in ("shuffling", "without-replacement"):
        r = dpkit.epsilon(1e-5, noise_multiplier=1.1, batch_size=256, dataset_size=60_000,
                          epochs=10, sampling=scheme, drop_last=True)
        out = cli_json("epsilon", "--noise-multiplier", "1.1", "--batch-size", "256",
                       "--dataset-size", "60000", "--epochs", "10", "--sampling", scheme,
                       "--drop-last", "--delta", "1e-5")
        row = out["results"][0]
        assert row["steps"] == 2340, scheme
        assert (row["epsilon_lower"], row["epsilon_upper"]) == (r.lower, r.upper), scheme
        assert r.lower <= r.upper
    shuffled = dpkit.epsilon(1e-5, noise_multiplier=1.1, batch_size=256, dataset_size=60_000,
                             epochs=10, sampling="shuffling", drop_last=True)
    assert "probability 0.9984" in shuffled.method
    # Dropping the last batch only hides examples: a lower bound no higher than the loader's
    # that keeps it, over as many complete epochs of 234 steps.
    kept = dpkit.epsilon(1e-5, noise_multiplier=1.1, batch_size=256, dataset_size=59_904,
                         epochs=10, sampling="shuffling")
    assert shuffled.lower <= kept.lower
    with pytest.raises(ValueError, match="^drop_last is only used with sampling='shuffling'"):
        dpkit.epsilon(1e-5, noise_multiplier=1.1, batch_size=256, dataset_size=60_000, epochs=10,
                      drop_last=True)
    with pytest.raises(ValueError, match="^drop_last needs batch_size and dataset_size"):
        dpkit.epsilon(1e-5, noise_multiplier=1.1, sample_rate=0.01, epochs=10,
                      sampling="shuffling", drop_last=True)
    with pytest.raises(ValueError, match="^drop_last is 1, but must be True or False"):
        dpkit.epsilon(1e-5, noise_multiplier=1.1, batch_size=256, dataset_size=60_000, epochs=10,
                      sampling="shuffling", drop_last=1)
