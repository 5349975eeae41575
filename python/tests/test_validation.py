"""dpkit.validate: the scoreboard through the dpkit program (skipped where it is not built)."""

import pytest

import dpkit
from dpkit.validation import find_program


def program_or_skip():
    try:
        return find_program()
    except FileNotFoundError as e:
        pytest.skip(str(e))


def test_a_gdp_scenario_is_not_violated_and_its_wrong_claim_is():
    exe = program_or_skip()
    rows = dpkit.validate(["gdp-gaussian-1d"], program=exe)
    assert [r["id"] for r in rows] == ["gdp-gaussian-1d"]
    assert rows[0]["verdict"] in ("holds", "inconclusive")
    assert rows[0]["estimate_lo"] <= rows[0]["estimate"] <= rows[0]["estimate_hi"]
    # The self-check audits the scenario's named wrong claim: the data must reject it.
    wrong = dpkit.validate(["gdp-gaussian-1d"], self_check=True, program=exe)
    assert wrong[0]["verdict"] == "violated"


def test_figures_go_to_the_directory_given(tmp_path):
    exe = program_or_skip()
    dpkit.validate(["gdp-gaussian-1d"], figures_dir=tmp_path, program=exe)
    names = {p.name for p in tmp_path.rglob("*")}
    assert any(n.endswith(".json") for n in names) and any(n.endswith(".svg") for n in names)


def test_bad_input():
    with pytest.raises(ValueError, match="^tier"):
        dpkit.validate(["x"], tier="medium")
    with pytest.raises(ValueError, match="^ids"):
        dpkit.validate("gdp-gaussian-1d")
    exe = program_or_skip()
    with pytest.raises(dpkit.validation.ValidationError):
        dpkit.validate(["no-such-scenario"], program=exe)


def test_audit_of_a_gdp_claim_from_python():
    # docs/audit.md's worked example: NoisyGD on the W1 pair is exactly mu-GDP with
    # mu = Delta/s = 0.34641 (closed form; see tools/dpkit/tests/audit_test.cpp). The exact
    # claim is not violated, half of it is; both return rows, a bad claim raises.
    setting = dict(model="quadratic", dataset_size=10, dimension=2, perturbation=1,
                   noise_std=0.5, learning_rate=0.5, steps=20)
    exact = dpkit.audit(mu=0.34641, **setting)
    assert exact["verdict"] in ("holds", "inconclusive")
    assert exact["mu_lower"] <= 0.34641 <= exact["mu_upper"]
    halved = dpkit.audit(mu=0.17321, **setting)
    assert halved["verdict"] == "violated"
    assert halved["tests"] and "beta_upper" in halved["tests"][0]
    with pytest.raises(ValueError, match="exactly one"):
        dpkit.audit(**setting)
    with pytest.raises(dpkit.validation.ValidationError, match="--neighbour"):
        dpkit.audit(mu=1, neighbour="none", **setting)


def _write_idx(path, array, compress):
    """An IDX file (two zero bytes, type 0x08, the rank, big-endian sizes, the bytes)."""
    import gzip
    import struct
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(">" + "I" * array.ndim, *array.shape)
    data = header + array.astype("uint8").tobytes()
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(data)


def test_audit_on_idx_data_from_python(tmp_path):
    # One noisy GD step from 0 on logistic regression over an IDX pair written here: replace-one
    # flips y_0, whose image is (255, 0), so coordinate 0 of X_1 moves by exactly eta/n against
    # noise of sd eta*sigma: exactly mu-GDP with mu = 1/(n sigma) = 2 (n = 40, sigma = 0.0125),
    # the construction of tools/dpkit/tests/real_data_test.cpp. Labels 3 and 8, kept as a list.
    import numpy as np
    images = np.zeros((40, 1, 2))
    labels = np.zeros(40)
    for i in range(40):
        hi, lo = (255, 0) if (i // 2) % 2 == 0 else (230, 20)
        images[i, 0] = (hi, lo) if i % 2 == 0 else (lo, hi)
        labels[i] = 3 if i % 2 == 0 else 8
    _write_idx(tmp_path / "images.gz", images, True)
    _write_idx(tmp_path / "labels.idx", labels, False)
    setting = dict(data=tmp_path / "images.gz", idx_labels=tmp_path / "labels.idx",
                   keep_classes=[3, 8], model="logistic", algorithm="gd", steps=1,
                   learning_rate=1, noise_std=0.0125, index=0, replicates=20000)
    exact = dpkit.audit(mu=2, **setting)
    assert exact["verdict"] in ("holds", "inconclusive")
    assert exact["mu_lower"] <= 2 <= exact["mu_upper"]
    assert dpkit.audit(mu=1, **setting)["verdict"] == "violated"
    # A switch is the flag alone: bias=True appends the constant feature (d = 3), so coordinate
    # 2 moves by exactly eta/n as well.
    assert dpkit.audit(mu=1, bias=True, coordinate=2, **setting)["verdict"] == "violated"


def test_audit_of_a_risk_bound_from_python(tmp_path):
    # E F(X_t) = s_t^2 = eta^2 sigma^2 (1 - c^{2t})/(1 - c^2) on the quadratic (closed form):
    # the exact bound stands, half of it is violated.
    eta, sigma, c = 0.5, 0.5, 0.5
    steps = [1, 5, 20]
    exact = [eta**2 * sigma**2 * (1 - c**(2 * t)) / (1 - c**2) for t in steps]
    setting = dict(model="quadratic", dataset_size=10, dimension=2, noise_std=0.5,
                   learning_rate=0.5, steps=20)
    for name, scale, expected in (("exact", 1.0, ("holds", "inconclusive")),
                                  ("half", 0.5, ("violated",))):
        f = tmp_path / f"{name}.csv"
        f.write_text("t,bound\n" + "".join(f"{t},{b * scale!r}\n" for t, b in zip(steps, exact)))
        row = dpkit.audit(risk_bound=f, **setting)
        assert row["verdict"] in expected
        assert [r["t"] for r in row["tests"]] == steps


def test_audit_of_a_renyi_claim_from_python(tmp_path):
    # The W1 pair is Gaussian (mu = 0.34641): D_a = a mu^2/2 in both orders, exactly; a quarter
    # of it (the RDP of G(mu/2)) is refuted.
    mu = 0.34641
    setting = dict(model="quadratic", dataset_size=10, dimension=2, perturbation=1,
                   noise_std=0.5, learning_rate=0.5, steps=20)
    for name, scale, expected in (("exact", 0.5, ("holds", "inconclusive")),
                                  ("quarter", 0.125, ("violated",))):
        f = tmp_path / f"{name}.csv"
        f.write_text("order,epsilon\n" + "".join(f"{a},{a * mu * mu * scale!r}\n"
                                                 for a in (1.5, 2, 4, 8, 16, 32)))
        assert dpkit.audit(renyi=f, **setting)["verdict"] in expected


def test_a_program_message_reaches_the_user_whole(tmp_path):
    # dpkit validate without the scenarios says what to build on its second and third lines;
    # the error must carry all of it, not its last line alone.
    fake = tmp_path / "dpkit"
    fake.write_text("#!/bin/sh\n"
                    "echo 'progress line' >&2\n"
                    "echo 'dpkit validate: the validation scenarios are not part of this build. "
                    "Build them once with' >&2\n"
                    "echo '  cmake --build build/release --target dpkit-validate' >&2\n"
                    "echo '(tools/bootstrap.sh test builds them too).' >&2\n"
                    "exit 2\n")
    fake.chmod(0o755)
    with pytest.raises(dpkit.validation.ValidationError) as e:
        dpkit.validate(["gdp-gaussian-1d"], program=str(fake))
    msg = str(e.value)
    assert msg.startswith("dpkit validate: the validation scenarios are not part"), msg
    assert "cmake --build build/release --target dpkit-validate" in msg, msg
    assert "progress line" not in msg and "\n" not in msg, msg
