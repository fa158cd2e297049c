"High-dimensional baselines (hdbo_nb.embeddings): registered, in bounds, deterministic, defining behaviour via optimize."
import numpy as np, pytest
import hdbo_nb.embeddings as E
from hdbo_nb.bo import optimize, get_method
from hdbo_nb.functions import get_problem

NAMES = ['dropout-ucb', 'line-bo', 'sre', 'rembo', 'hesbo']


@pytest.mark.parametrize('name', NAMES)
def test_registered_runs_in_bounds(name):
    P = get_problem('augmented-camelback', dim=12)
    tr = optimize(P, name, budget=14, rng=3, n_init=6)
    assert len(tr) == 14
    assert np.all(tr.X >= P.bounds[:, 0] - 1e-12) and np.all(tr.X <= P.bounds[:, 1] + 1e-12)
    tr2 = optimize(P, name, budget=14, rng=3, n_init=6)
    np.testing.assert_array_equal(tr.X, tr2.X)


def test_unknown_option():
    with pytest.raises(TypeError, match='unknown option'): optimize(get_problem('branin'), 'rembo', 5, rng=0, q=1)


def test_hesbo_sketch_through_optimize():
    P = get_problem('levy', dim=10, rescale_to=(-1, 1))
    opt = get_method('hesbo')(P.bounds, rng=0, d=3, n_init=4)
    tr = opt.run(P, 10)
    h, s = opt.core.h, opt.core.s
    for x in tr.X:
        for j in range(3):
            v = x[h == j] * s[h == j]
            assert np.allclose(v, v[0])


def test_rembo_image():
    P = get_problem('ackley', dim=15, rescale_to=(-1, 1))
    opt = get_method('rembo')(P.bounds, rng=1, d=2, n_init=4)
    tr = opt.run(P, 10)
    for x, y in zip(tr.X, opt.core.V): np.testing.assert_allclose(x, np.clip(opt.core.A @ y, -1, 1))


def test_sre_budget_split():
    P = get_problem('ackley', dim=15, rescale_to=(-1, 1))
    tr = optimize(P, 'sre', budget=25, rng=2, d=2, m=5, n_init=3, n_init_stage=2)
    assert list(tr.diagnostics['stage']) == [s for s in range(1, 6) for _ in range(5)]


def test_dropout_bad_p():
    with pytest.raises(ValueError, match='p must be'): E.DropoutUCBCore(5, p=2.)


def test_linebo_bad_direction():
    with pytest.raises(ValueError, match='direction'): E.LineBOCore(5, direction='diagonal')
