"""The run's arguments are declared once (dpkit/_run_arguments.py) and every public function that
takes a run has them in its signature: by position where documented, by keyword otherwise, with
Python's own errors for a misspelt or repeated argument."""

import inspect

import pytest

import dpkit
from dpkit import _run_arguments

RUN = dict(noise_multiplier=1.1, sample_rate=0.01, steps=500)

# The public functions that take a run, their leading arguments, and the run arguments each
# takes by position (the documented signatures, written out here independently).
PUBLIC = [
    (dpkit.epsilon, ["delta"], ["noise_multiplier", "sample_rate", "steps"], []),
    (dpkit.delta, ["epsilon"], ["noise_multiplier", "sample_rate", "steps"], []),
    (dpkit.calibrate_noise, ["target_epsilon", "delta"], ["sample_rate", "steps"],
     ["noise_multiplier"]),
    (dpkit.calibrate_steps, ["target_epsilon", "delta"], ["noise_multiplier", "sample_rate"],
     ["steps", "epochs"]),
    (dpkit.epsilon_curve, ["delta"], ["noise_multiplier", "sample_rate", "steps"], []),
    (dpkit.delta_curve, ["epsilons"], ["noise_multiplier", "sample_rate", "steps"], []),
    (dpkit.tradeoff, ["alpha"], ["noise_multiplier", "sample_rate", "steps"], []),
    (dpkit.gdp_mu, [], ["noise_multiplier", "sample_rate", "steps"], []),
    (dpkit.rdp, ["orders"], ["noise_multiplier", "sample_rate", "steps"], []),
]


@pytest.mark.parametrize("fn, leading, positional, omitted", PUBLIC,
                         ids=[p[0].__name__ for p in PUBLIC])
def test_signature_holds_the_run_arguments(fn, leading, positional, omitted):
    params = inspect.signature(fn).parameters
    names = list(params)
    # Leading arguments, then the positional run arguments, in this order, by position.
    assert names[:len(leading) + len(positional)] == leading + positional
    for n in positional:
        assert params[n].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert params[n].default is None
    keyword = {"batch_size", "dataset_size", "epochs", "sampling", "neighbours",
               "max_batch_size", "drop_last", "phases", "noise_multiplier", "steps"}
    for n in keyword - set(positional) - set(omitted):
        assert params[n].kind is inspect.Parameter.KEYWORD_ONLY, n
    assert params["sampling"].default == "poisson"
    assert params["drop_last"].default is False
    for n in omitted:
        assert n not in params
    assert "run" not in params
    assert fn.__doc__ and fn.__module__ == "dpkit._core"


def test_accountant_signature():
    params = inspect.signature(dpkit.Accountant).parameters
    assert list(params)[:2] == ["noise_multiplier", "sample_rate"]
    assert not {"steps", "epochs", "phases", "run"} & set(params)


def test_positional_and_keyword_calls_agree():
    by_keyword = dpkit.epsilon(1e-5, accountant="rdp", **RUN)
    by_position = dpkit.epsilon(1e-5, 1.1, 0.01, 500, accountant="rdp")
    assert float(by_keyword) == float(by_position)
    c = dpkit.calibrate_noise(2.0, 1e-5, 0.01, 500, accountant="rdp")
    assert c.noise_multiplier == dpkit.calibrate_noise(2.0, 1e-5, sample_rate=0.01, steps=500,
                                                       accountant="rdp").noise_multiplier


def test_pythons_own_errors_for_misspelt_or_repeated_arguments():
    with pytest.raises(TypeError, match="unexpected keyword argument 'noise'"):
        dpkit.epsilon(1e-5, noise=1.1, sample_rate=0.01, steps=500)
    with pytest.raises(TypeError, match="multiple values for argument 'noise_multiplier'"):
        dpkit.epsilon(1e-5, 1.1, noise_multiplier=1.1, sample_rate=0.01, steps=500)
    with pytest.raises(TypeError, match="unexpected keyword argument 'steps'"):
        dpkit.calibrate_steps(2.0, 1e-5, 1.1, 0.01, steps=10)
    with pytest.raises(TypeError, match="takes from 1 to 4 positional arguments"):
        dpkit.epsilon(1e-5, 1.1, 0.01, 500, 3)


def test_run_arguments_alongside_phases_are_refused_on_every_path():
    phase = dpkit.Phase(1.1, 0.01, 500)
    for fn, lead in ((dpkit.epsilon, (1e-5,)), (dpkit.epsilon_curve, (1e-5,)),
                     (dpkit.gdp_mu, ())):
        kwargs = {"steps": [10]} if fn is dpkit.epsilon_curve else {}
        with pytest.raises(ValueError, match="^noise_multiplier must not be given together "
                                             "with phases"):
            fn(*lead, noise_multiplier=1.0, phases=[phase], **kwargs)


def test_the_decorator_refuses_malformed_declarations():
    with pytest.raises(AssertionError, match="not a run argument"):
        _run_arguments.takes_run(positional=("sigma",))
    with pytest.raises(AssertionError, match="last positional argument must be run"):
        _run_arguments.takes_run()(lambda delta: None)
    with pytest.raises(AssertionError, match="names run argument"):
        def f(run, *, steps=1):
            return None
        _run_arguments.takes_run()(f)
