"""Smoke test of examples/fashion_mnist_dpsgd.py: its per-example gradients against one backward
pass per example, its clipped noisy gradient, and a one-epoch run on a few hundred examples
whose printed certified bracket is recomputed here with dpkit.epsilon.

Needs Debian's python3-torch (and dataset-fashion-mnist for the run); skipped without them.
"""

import math
import pathlib
import re
import subprocess
import sys

import pytest

import dpkit

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (Debian: apt-get install python3-torch)")

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SCRIPT = EXAMPLES / "fashion_mnist_dpsgd.py"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import fashion_mnist_dpsgd
    finally:
        sys.path.remove(str(EXAMPLES))
    return fashion_mnist_dpsgd


def _batch(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand((n, 1, 28, 28), generator=g) * 2 - 1
    y = torch.randint(0, 10, (n,), generator=g)
    return x, y


@pytest.mark.parametrize("method", ["vmap", "hooks"])
def test_per_example_grads_equal_one_backward_pass_per_example(example, method):
    if method == "vmap" and example._vmap_tools() is None:
        pytest.skip("this PyTorch has neither torch.func nor functorch (the example uses hooks)")
    torch.manual_seed(1)
    model = example.make_model().double()
    x, y = _batch(7)
    x = x.double()
    fast = example.per_example_grads(model, x, y, method)
    slow = example.per_example_grads_loop(model, x, y)
    params = list(model.parameters())
    assert len(fast) == len(slow) == len(params) == 8
    for f, s, p in zip(fast, slow, params):
        assert f.shape == (7, *p.shape)
        torch.testing.assert_close(f, s, rtol=1e-10, atol=1e-12)
    # and in the float32 the training uses
    model = model.float()
    fast = example.per_example_grads(model, x.float(), y, method)
    slow = example.per_example_grads_loop(model, x.float(), y)
    for f, s in zip(fast, slow):
        torch.testing.assert_close(f, s, rtol=1e-4, atol=1e-6)


def test_clipped_noisy_gradient_clips_each_example_and_divides_by_expected_batch(example):
    torch.manual_seed(2)
    model = example.make_model().double()
    x, y = _batch(5, seed=3)
    grads = example.per_example_grads(model, x.double(), y)
    norms = torch.sqrt(sum(g.reshape(5, -1).pow(2).sum(1) for g in grads))
    clip = float(norms.median())        # some examples are clipped, some are not
    out = example.clipped_noisy_gradient(grads, clip, 0.0, expected_batch_size=8.0)
    for j, g in enumerate(grads):
        want = sum(g[i] * min(1.0, clip / float(norms[i])) for i in range(5)) / 8.0
        torch.testing.assert_close(out[j], want, rtol=1e-9, atol=1e-13)
    # noise: standard deviation noise_std in every coordinate, before the division
    big = [torch.zeros((0, 200_000), dtype=torch.float64)]
    noisy = example.clipped_noisy_gradient(big, 1.0, 3.0, expected_batch_size=2.0,
                                           generator=torch.Generator().manual_seed(4))
    assert noisy[0].shape == (200_000,)
    assert abs(float(noisy[0].std()) - 1.5) < 0.02
    assert abs(float(noisy[0].mean())) < 0.02


def test_read_idx_parses_plain_and_gzipped_files(example, tmp_path):
    import gzip
    import numpy as np
    data = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    raw = bytes([0, 0, 0x08, 3]) + np.array([2, 3, 4], ">u4").tobytes() + data.tobytes()
    (tmp_path / "a-idx3-ubyte").write_bytes(raw)
    with gzip.open(tmp_path / "b-idx3-ubyte.gz", "wb") as f:
        f.write(raw)
    assert np.array_equal(example.read_idx(tmp_path / "a-idx3-ubyte"), data)
    assert np.array_equal(example.read_idx(tmp_path / "b-idx3-ubyte.gz"), data)
    (tmp_path / "c-idx3-ubyte").write_bytes(raw[:-1])
    with pytest.raises(ValueError, match="bytes"):
        example.read_idx(tmp_path / "c-idx3-ubyte")


def test_missing_data_names_the_debian_package(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--data-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "dataset-fashion-mnist" in r.stderr


def test_one_epoch_on_a_few_hundred_examples_is_within_budget_and_certified(example):
    try:
        example.find_data_dir()
    except FileNotFoundError:
        pytest.skip("Fashion-MNIST is not installed (Debian: apt-get install "
                    "dataset-fashion-mnist)")
    n, b, epochs, eps, delta = 400, 40, 1, 3.0, 1e-5
    cmd = [sys.executable, str(SCRIPT), "--limit", str(n), "--batch-size", str(b),
           "--epochs", str(epochs), "--target-epsilon", str(eps), "--delta", str(delta),
           "--lr", "0.5", "--seed", "7", "--threads", "1"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()

    epoch_lines = [ln for ln in lines if ln.startswith("epoch ")]
    assert len(epoch_lines) == epochs
    m = re.match(r"epoch +1/1 +step +(\d+) +test accuracy +([\d.]+)% +certified eps in "
                 r"\[([\d.]+), ([\d.]+)\] at delta = ([\deE.+-]+) +elapsed +([\d.]+) s$",
                 epoch_lines[0])
    assert m, epoch_lines[0]
    assert 0 <= float(m.group(2)) <= 100

    final = [ln for ln in lines if ln.startswith("final: ")]
    assert len(final) == 1
    kv = dict(item.split("=", 1) for item in final[0][len("final: "):].split())
    steps, sigma, q = int(kv["steps"]), float(kv["noise_multiplier"]), float(kv["sample_rate"])
    lo, hi = float(kv["eps_lower"]), float(kv["eps_upper"])

    # The run as this test computes it, independently of the example.
    assert steps == math.ceil(epochs * n / b) == int(m.group(1))
    assert q == b / n
    assert sigma == float(dpkit.calibrate_noise(eps, delta, batch_size=b, dataset_size=n,
                                                epochs=epochs))
    # The example's accountant grows with the run and reuses its grid (dpkit.Accountant), so its
    # bracket may sit on another grid than a fresh accounting's: both are certified, so they
    # intersect, and both meet the default accuracy.
    ref = dpkit.epsilon(delta, noise_multiplier=sigma, sample_rate=q, steps=steps)
    assert lo <= ref.upper and ref.lower <= hi
    assert hi - lo <= 1e-3 * hi
    assert lo <= hi <= eps                       # the run is within its budget, certified
    assert float(m.group(3)) == pytest.approx(lo, abs=1e-4)
    assert float(m.group(4)) == pytest.approx(hi, abs=1e-4)


def test_canaries_are_fair_coins_and_wrong_labels(example):
    import numpy as np
    labels = np.arange(2000) % 10
    c = example.make_canaries(np.zeros((2000, 28, 28), np.uint8), labels, seed=5)
    assert np.all(c["labels"] != labels)          # mislabelled: never the image's own label
    # Fair coins: the number inserted is Binomial(2000, 1/2); |k − 1000| ≤ 4.5 sd = 101 has
    # probability 1 − 7e-6.
    assert abs(int(c["member"].sum()) - 1000) <= 101
    noise = example.make_canaries(np.zeros((50, 28, 28), np.uint8), labels[:50], seed=5,
                                  kind="noise")
    assert noise["images"].std() > 50             # uniform pixels, not the given images


def test_gradient_scores_add_the_inner_product_of_each_step(example):
    # One observed step: the score is <clip(g_i), noisy sum> for every canary, the sum being
    # the noisy mean gradient times B.
    import numpy as np
    model = example.make_model()
    c = example.make_canaries(np.zeros((6, 28, 28), np.uint8), np.zeros(6, np.int64), seed=1,
                              kind="noise")
    w = example.GradientScores(c, clip=1.0, method="hooks")
    step = [torch.randn(p.shape) for p in model.parameters()]
    w.observe(model, step, b=4.0)
    x, y = example.to_tensors(c["images"], c["labels"])
    grads = example.per_example_grads_loop(model, x, y)
    flat = torch.cat([g.reshape(6, -1) for g in grads], dim=1)
    flat = flat / flat.norm(dim=1, keepdim=True).clamp(min=1.0)
    expected = (flat @ (torch.cat([s.reshape(-1) for s in step]) * 4.0)).numpy()
    assert np.allclose(w.scores, expected, rtol=1e-4, atol=1e-4)


def test_a_run_with_canaries_audits_them_as_dpkit_audit_does(example, tmp_path):
    try:
        example.find_data_dir()
    except FileNotFoundError:
        pytest.skip("Fashion-MNIST is not installed (Debian: apt-get install "
                    "dataset-fashion-mnist)")
    from conftest import cli
    scores = tmp_path / "canaries.csv"
    cmd = [sys.executable, str(SCRIPT), "--limit", "200", "--batch-size", "40", "--epochs", "1",
           "--target-epsilon", "1", "--delta", "1e-5", "--canaries", "40", "--guesses", "8",
           "--canary-kind", "noise", "--score", "gradient", "--break", "noise", "--seed", "2",
           "--threads", "1", "--canary-scores", str(scores)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 3), r.stderr
    final = [ln for ln in r.stdout.splitlines() if ln.startswith("audit-final: ")]
    assert len(final) == 1
    kv = dict(item.split("=", 1) for item in final[0][len("audit-final: "):].split())
    run = dict(item.split("=", 1) for item in
               [ln for ln in r.stdout.splitlines() if ln.startswith("final: ")][0][7:].split())
    # The claim is the run's certified ε; the exit status is the verdict's.
    assert float(kv["eps_claimed"]) == float(run["eps_upper"])
    assert (r.returncode == 3) == (kv["verdict"] == "violated")
    # The scores file audited again, by the Python package and by the program: the same bound.
    import numpy as np
    table = np.loadtxt(scores, delimiter=",", skiprows=1)
    member = table[:, 1] == 1
    assert int(kv["inserted"]) == int(member.sum())
    a = dpkit.audit_scores(table[member, 0], table[~member, 0], one_run=True, guesses=8,
                           delta=1e-5, claim_epsilon=float(kv["eps_claimed"]))
    assert a["one-run"]["epsilon"] == float(kv["eps_lower_bound"])
    assert a.verdict == kv["verdict"]
    p = subprocess.run([cli(), "audit", "--scores", str(scores), "--one-run", "--guesses", "8",
                        "--delta", "1e-5", "--claim-epsilon", kv["eps_claimed"]],
                       capture_output=True, text=True)
    assert p.returncode == r.returncode
