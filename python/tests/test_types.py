"""The types the extension and the Python layer exchange (python/src/bind_types.cpp): enums with
the library's names, TrainingPhase, PrivacyEstimate with edge_value, and the library's argument
error as a ValueError carrying its parts — no string protocol, no text read back."""

import math

import pytest

import dpkit
from dpkit import _dpkit, _errors


def test_enum_members_are_the_library_names():
    assert tuple(_dpkit.SamplingScheme.__members__)[:1] == ("poisson",)
    assert set(dpkit.SAMPLING_SCHEMES) <= set(_dpkit.SamplingScheme.__members__)
    assert set(dpkit.ACCOUNTANTS) == set(_dpkit.Accountant.__members__)
    assert set(_dpkit.Neighbouring.__members__) >= set(_dpkit.NEIGHBOURS)


@pytest.mark.parametrize("phase", [
    dpkit.Phase(1.5, 0.01, 100),
    dpkit.Phase(0.8, 0.25, 7, "without-replacement"),
    dpkit.Phase(2.0, 0.02, 30, "poisson", "replace-one"),
    dpkit.Phase(1.0, 0.01, 50, "truncated-poisson", dataset_size=1000, max_batch_size=20),
    dpkit.Phase(1.0, 0.1, 3, "shuffling"),
])
def test_a_phase_crosses_as_the_library_type_and_back(phase):
    native = phase._native()
    assert isinstance(native, _dpkit.TrainingPhase)
    assert native.noise_multiplier == phase.noise_multiplier
    assert native.sampling_rate == phase.sample_rate
    assert native.steps == phase.steps
    assert native.sampling.name == phase.sampling
    assert dpkit.Phase._of(native) == phase


def test_edge_value_is_a_field_of_the_answer():
    r = dpkit.epsilon(1e-5, noise_multiplier=0.0, sample_rate=0.01, steps=100)
    assert r.edge_value and r.value == math.inf and r.certified
    assert float(r) == math.inf
    for accountant in ("pld", "rdp", "clt"):
        s = dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=100,
                          accountant=accountant)
        assert not s.edge_value
    e = _dpkit.epsilon([dpkit.Phase(0.0, 0.01, 100)._native()], 0.0, 1e-5,
                       _dpkit.Accountant.pld, {})
    assert isinstance(e, _dpkit.PrivacyEstimate) and e.edge_value
    assert (e.kind, e.accountant, e.termination) == ("upper-bound", "pld", "converged")


def test_the_library_argument_error_carries_its_parts():
    phase = dpkit.Phase(1.0, 0.01, 10)._native()
    with pytest.raises(_dpkit.ArgumentError) as info:
        _dpkit.epsilon([phase], 0.0, 2.0, _dpkit.Accountant.pld, {})
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.name, e.value) == ("delta", "2")
    assert e.constraint and e.function
    assert str(e) == f"{e.function}: delta is 2, but must be {e.constraint}"


def _raising(name, value="2", constraint="in (0, 1]"):
    def fn():
        e = _dpkit.ArgumentError(f"f: {name} is {value}, but must be {constraint}")
        e.function, e.name, e.value, e.constraint = "f", name, value, constraint
        raise e
    return fn


@pytest.mark.parametrize("name, kwargs, word", [
    ("sampling_rate", {}, "sample_rate"),
    ("delta", {}, "delta"),
    ("params.sigma", {"names": {"params.sigma": "noise"}, "strip": ("params.",)}, "noise"),
    ("params.ridge", {"names": {"params.sigma": "noise"}, "strip": ("params.",)}, "ridge"),
    ("t", {"names": {"t": "steps"}}, "steps"),
])
def test_the_python_layer_words_the_error_from_its_fields(name, kwargs, word):
    with pytest.raises(ValueError) as info:
        _errors.call(_raising(name), **kwargs)
    assert str(info.value) == f"{word} is 2, but must be in (0, 1]"
    assert not isinstance(info.value, _dpkit.ArgumentError)  # one line, the user's words
