"The user's function as it is (issue 16, item 5): a plain callable with `bounds=`, `minimize=True`, and a `Space`."
import math
import numpy as np, pytest
from hdbo_nb.core import Problem, Trace, Space, Real, Integer, Categorical
from hdbo_nb.bo import optimize

def bowl(x): return float(np.sum((np.asarray(x) - 0.3)**2)) + 2.   # minimum 2 at x = 0.3

@pytest.mark.parametrize('method', ['random', 'gp-ucb'])
def test_plain_callable_with_bounds(method):
    seen = []
    def f(x): seen.append(np.array(x)); return -bowl(x)
    tr = optimize(f, method, 12, rng=0, bounds=[[-1, 1]] * 2)
    assert len(tr) == 12 and len(seen) == 12 and all(s.shape == (2,) for s in seen)
    assert tr.meta['problem'] == 'f' and not tr.meta.get('minimize')
    assert tr.best_y == pytest.approx(max(-bowl(x) for x in tr.X)) and tr.best_value == tr.best_y
    # the same run as the equivalent Problem, whose noise is unknown as a plain function's is: nothing else changes
    ref = optimize(Problem(f, [[-1, 1]] * 2, name='f', noise_known=False), method, 12, rng=0)
    np.testing.assert_array_equal(tr.X, ref.X)

@pytest.mark.parametrize('method', ['random', 'gp-ucb'])
def test_minimize(method):
    tr = optimize(bowl, method, 15, rng=1, bounds=[[-1, 1]] * 2, minimize=True, f_opt=2.)
    assert tr.meta['minimize'] is True and tr.meta['f_opt'] == -2.
    vals = [bowl(x) for x in tr.X]
    np.testing.assert_allclose(tr.y, -np.array(vals))                  # stored in the maximisation sign
    assert tr.best_value == pytest.approx(min(vals))                    # reported in the user's sign
    np.testing.assert_allclose(tr.best_x, tr.X[int(np.argmin(vals))])
    r = tr.simple_regret()
    np.testing.assert_allclose(r, np.minimum.accumulate(vals) - 2.)     # regret of a minimisation, >= 0
    np.testing.assert_allclose(tr.simple_regret(f_opt=2.), r)           # an explicit f_opt is in the user's sign too
    np.testing.assert_allclose(tr.cumulative_regret(), np.cumsum(np.array(vals) - 2.))

def test_minimize_finds_the_minimum_with_gp():
    tr = optimize(bowl, 'gp-ucb', 25, rng=0, bounds=[[-1, 1]] * 2, minimize=True)
    assert tr.best_value < 2.01 and np.allclose(tr.best_x, 0.3, atol=0.1)

def test_minimize_survives_save_load(tmp_path):
    tr = optimize(bowl, 'random', 5, rng=0, bounds=[[-1, 1]], minimize=True, f_opt=2.)
    tr2 = Trace.load(tr.save(tmp_path / 't.npz'))
    assert tr2.best_value == pytest.approx(tr.best_value) and tr2.best_value > 0
    np.testing.assert_allclose(tr2.simple_regret(), tr.simple_regret())

SP = Space(lr=Real(1e-4, 1e-1, log=True), width=Real(-2, 3), layers=Integer(1, 5), act=Categorical(['relu', 'tanh', 'gelu']))

def test_space_parameters():
    assert SP.names == ['lr', 'width', 'layers', 'act'] and SP.dim == 6 and len(SP) == 4   # 'act': one coordinate per choice
    np.testing.assert_array_equal(SP.bounds, np.tile([0., 1.], (6, 1)))
    assert SP.decode([0, 0, 0, 1, 0, 0]) == dict(lr=1e-4, width=-2., layers=1, act='relu')
    assert SP.decode([1, 1, 1, 0, 0.1, 0.2]) == dict(lr=1e-1, width=3., layers=5, act='gelu')
    assert SP.decode([0.5] * 6)['lr'] == pytest.approx(10**-2.5)     # log scale: the geometric middle
    assert SP.decode([0.5] * 6)['width'] == pytest.approx(0.5)
    U = np.random.default_rng(0).random((3000, 6))
    P = [SP.decode(u) for u in U]
    lr = np.array([p['lr'] for p in P])
    assert lr.min() >= 1e-4 and lr.max() <= 1e-1
    assert 0.2 < np.mean(lr < 1e-3) < 0.47                                # a third of the decades, not 0.9 %
    counts = np.bincount([p['layers'] for p in P], minlength=6)[1:]
    assert all(type(p['layers']) is int for p in P) and (counts > 450).all()   # both ends reachable, equal shares
    assert {p['act'] for p in P} == {'relu', 'tanh', 'gelu'} and all(p['act'] in ('relu', 'tanh', 'gelu') for p in P)

def test_space_round_trip():
    d = dict(lr=3.3e-3, width=0.7, layers=4, act='tanh')
    out = SP.decode(SP.encode(d))
    assert out['lr'] == pytest.approx(3.3e-3) and out['width'] == pytest.approx(0.7)
    assert out['layers'] == 4 and out['act'] == 'tanh'
    for u in np.random.default_rng(1).random((50, 6)):
        p = SP.decode(u)
        v = SP.encode(p)
        np.testing.assert_allclose(v[:2], u[:2])                             # reals: the exact inverse
        q = SP.decode(v)                                                     # integers, choices: the same value back
        assert (q['layers'], q['act']) == (p['layers'], p['act'])
        assert q['lr'] == pytest.approx(p['lr']) and q['width'] == pytest.approx(p['width'])
    assert Space.from_spec(SP.spec()).decode([0.3] * 6) == SP.decode([0.3] * 6)

@pytest.mark.parametrize('method', ['random', 'gp-ucb'])
def test_space_in_optimize(method):
    seen = []
    def train(p):
        seen.append(p)
        return -(math.log10(p['lr']) + 2)**2 - 0.1 * (p['layers'] - 3)**2 + {'relu': 0., 'tanh': -.5, 'gelu': .2}[p['act']]
    tr = optimize(train, method, 14, rng=0, bounds=SP)
    assert len(seen) == 14 and all(isinstance(p, dict) and set(p) == set(SP.names) for p in seen)
    assert tr.meta['space'] == SP.spec() and tr.dim == 6
    assert tr.best_params == SP.decode(tr.best_x) and train(tr.best_params) == pytest.approx(tr.best_y)
    assert tr.best_params in seen

def test_space_minimize_and_problem():
    sp = Space(n=Integer(0, 9))
    tr = optimize(lambda p: (p['n'] - 6)**2, 'random', 40, rng=0, bounds=sp, minimize=True, f_opt=0.)
    assert tr.best_params == dict(n=6) and tr.best_value == 0. and tr.simple_regret()[-1] == 0.
    p = sp.problem(lambda d: float(d['n']))
    assert isinstance(p, Problem) and p(np.array([0.99])) == 9. and p(np.array([0.])) == 0.

@pytest.mark.parametrize('call, err, msg', [
    (lambda: optimize(bowl, 'random', 5), ValueError, 'needs bounds='),
    (lambda: optimize(Problem(bowl, [[0, 1]]), 'random', 5, bounds=[[0, 1]]), ValueError, 'a Problem carries its own bounds'),
    (lambda: optimize(Problem(bowl, [[0, 1]]), 'random', 5, minimize=True), ValueError, 'from_minimization'),
    (lambda: optimize(bowl, 'random', 5, bounds=[[1, 0]]), ValueError, 'lo >= hi'),
    (lambda: optimize('bowl', 'random', 5, bounds=[[0, 1]]), TypeError, 'a Problem or a callable'),
    (lambda: optimize(bowl, 'random', 5, bounds=[[0, 1]], minimize='yes'), TypeError, 'minimize must be'),
    (lambda: Space(), ValueError, 'at least one parameter'),
    (lambda: Space({}), ValueError, 'at least one parameter'),
    (lambda: Real(1., 1.), ValueError, 'low < high'),
    (lambda: Real(2., 1.), ValueError, 'low < high'),
    (lambda: Integer(3, 3), ValueError, 'low < high'),
    (lambda: Real(0., 1., log=True), ValueError, 'low > 0'),
    (lambda: Real(-1e-3, 1., log=True), ValueError, 'low > 0'),
    (lambda: Real(0., np.inf), ValueError, 'finite'),
    (lambda: Integer(0, 2.5), ValueError, 'integer bounds'),
    (lambda: Categorical([]), ValueError, 'at least one choice'),
    (lambda: Categorical('abc'), ValueError, 'list of choices'),
    (lambda: Categorical(['a', 'b', 'a']), ValueError, 'distinct'),
    (lambda: Space(x=(0, 1)), TypeError, 'Real, Integer or Categorical'),
    (lambda: SP.encode(dict(lr=1e-3)), ValueError, 'missing'),
    (lambda: SP.encode(dict(lr=1., width=0, layers=1, act='relu')), ValueError, 'outside'),
    (lambda: SP.encode(dict(lr=1e-3, width=0, layers=9, act='relu')), ValueError, 'not an integer in'),
    (lambda: SP.encode(dict(lr=1e-3, width=0, layers=1, act='selu')), ValueError, 'not one of'),
    (lambda: SP.decode([0.5, 0.5]), ValueError, '6 coordinates'),
    (lambda: Trace(1).best_params, ValueError, 'no Space'),
])
def test_bad_input(call, err, msg):
    with pytest.raises(err, match=msg): call()

def _box_methods():
    "Every registered method that searches a box (not the finite-set ones, nor those needing a hidden-subspace problem)."
    from hdbo_nb.experiments import load_all
    from hdbo_nb.bo import METHODS, FiniteOptimizer
    from hdbo_nb.sibo import SubspaceUCB
    load_all()
    return sorted(n for n, c in METHODS.items() if not issubclass(c, (FiniteOptimizer, SubspaceUCB)))

@pytest.mark.filterwarnings('ignore:.*initial design')
@pytest.mark.parametrize('name', _box_methods())
def test_space_with_every_method(name):
    from hdbo_nb.bo import METHODS
    sp = Space(lr=Real(1e-3, 1., log=True), k=Integer(-2, 2), c=Categorical(['a', 'b']))
    seen = []
    def f(p): seen.append(p); return -(math.log10(p['lr']) + 1)**2 - 0.1 * p['k']**2 + (p['c'] == 'b')
    budget = max(12, getattr(METHODS[name], 'min_budget', 0))
    tr = optimize(f, name, budget, rng=0, bounds=sp)
    assert len(tr) == budget == len(seen)
    assert all(set(p) == {'lr', 'k', 'c'} and 1e-3 <= p['lr'] <= 1 and p['k'] in range(-2, 3) and p['c'] in ('a', 'b')
               for p in seen)
    assert tr.best_params in seen and f(tr.best_params) == pytest.approx(tr.best_y)

@pytest.mark.parametrize('ext', ['npz', 'json'])
def test_space_run_survives_save_load(tmp_path, ext):
    tr = optimize(lambda p: -(p['n'] - 2)**2 - p['x'] + (p['c'] == 'b'), 'random', 8, rng=0,
                  bounds=Space(x=Real(1e-2, 1e2, log=True), n=Integer(0, 4), c=Categorical(['a', 'b'])), minimize=True)
    tr2 = Trace.load(tr.save(tmp_path / f't.{ext}'))
    assert tr2.best_params == tr.best_params and tr2.best_value == pytest.approx(tr.best_value)
