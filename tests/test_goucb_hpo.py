"GO-UCB's hyperparameter-tuning objectives (Sec. 6.2, App. D.2): encoding, data, folds, determinism, regret against f*."
import warnings
import numpy as np, pytest
from sklearn.datasets import make_classification, dump_svmlight_file
from hdbo_nb.bo import optimize
from hdbo_nb.goucb import (HPO_SPACES, HPO_PROBLEMS, HPO_EPS, hpo_dim, hpo_decode, hpo_encode, hpo_data, hpo_fold,
                           hpo_classifier, hpo_accuracy, hpo_problem, get_hpo_problem, hpo_factory, empirical_f_opt,
                           with_empirical_f_opt, hpo_regret)

TOY = (*make_classification(60, 4, n_informative=2, n_redundant=0, random_state=3), 'toy')

# ---------------------------------------------------------------- encoding
def test_dimensions():
    assert [hpo_dim(m) for m in ('rf', 'mlp', 'gb')] == [7, 8, 11]

@pytest.mark.parametrize('model', ['rf', 'mlp', 'gb'])
def test_ends_of_every_coordinate(model):
    "0 -> the lower end (first choice), 10 -> the upper end (last choice); open ends clipped by 1e-6."
    lo, hi = hpo_decode(model, np.zeros(hpo_dim(model))), hpo_decode(model, np.full(hpo_dim(model), 10.))
    for name, kind, rng in HPO_SPACES[model]:
        if kind == 'cat': assert (lo[name], hi[name]) == (rng[0], rng[-1])
        elif kind == 'open': assert (lo[name], hi[name]) == (rng[0] + HPO_EPS, rng[1] - HPO_EPS)
        else: assert (lo[name], hi[name]) == tuple(rng), name
        if kind == 'int': assert type(lo[name]) is int and type(hi[name]) is int

def test_paper_example_bins():
    "App. D.2: bootstrap [0, 5) -> True, [5, 10] -> False; three and four choices in equal bins."
    b = lambda u: hpo_decode('rf', [0] * 6 + [u])['bootstrap']
    assert [b(0), b(4.9999999), b(5.), b(7.), b(10.)] == [True, True, False, False, False]
    crit = lambda u: hpo_decode('rf', [0, u, 0, 0, 0, 0, 0])['criterion']
    assert [crit(u) for u in (0, 3.333, 3.334, 6.666, 6.667, 10)] == ['gini', 'gini', 'entropy', 'entropy', 'log_loss', 'log_loss']
    act = lambda u: hpo_decode('mlp', [u] + [0] * 7)['activation']
    assert [act(u) for u in (2.4999, 2.5, 4.9999, 5, 7.5, 10)] == ['identity', 'logistic', 'logistic', 'tanh', 'relu', 'relu']

def test_integers_round_half_up_and_continuous_is_linear():
    x = np.zeros(7)
    ne = lambda u: hpo_decode('rf', np.r_[u, x[1:]])['n_estimators']   # 20 + 18 u
    assert [ne(0.0277), ne(0.0278), ne(5.), ne(9.972), ne(9.973)] == [20, 21, 110, 199, 200]
    md = lambda u: hpo_decode('rf', np.r_[0, 0, u, x[3:]])['max_depth']   # 1 + 0.9 u: 1.5 -> 2
    assert [md(5 / 9 - 1e-9), md(5 / 9)] == [1, 2]
    mss = lambda u: hpo_decode('rf', np.r_[0, 0, 0, u, x[4:]])['min_samples_split']   # 2 + 0.8 u, exact in binary
    assert [mss(0.625), mss(1.875), mss(3.125)] == [3, 4, 5]   # 2.5, 3.5, 4.5 round half up (not to even)
    a = hpo_decode('mlp', [0, 2.5, 7.5, 0, 0, 3., 9.9999999, 0])
    np.testing.assert_allclose([a['alpha'], a['learning_rate_init'], a['beta_1']], [1e-6 + 0.25 * (1e-2 - 1e-6), 1e-6 + 0.75 * (1e-2 - 1e-6), 0.3])
    assert a['beta_2'] == 1 - 1e-6   # clipped: beta_2 must lie in [0, 1)

@pytest.mark.parametrize('model', ['rf', 'mlp', 'gb'])
def test_encode_decode_round_trip(model):
    for x in np.random.default_rng(0).uniform(0, 10, (50, hpo_dim(model))):
        p = hpo_decode(model, x); q = hpo_decode(model, hpo_encode(model, p))
        assert set(p) == set(q)
        for k, v in p.items():
            if type(v) is float: assert abs(q[k] - v) <= 1e-12 * max(1, abs(v)), k
            else: assert q[k] == v and type(q[k]) is type(v), k

@pytest.mark.parametrize('model', ['rf', 'mlp', 'gb'])
def test_decode_is_what_is_built(model):
    "The classifier's parameters are exactly the decoded hyperparameters (plus random_state=0), scaled or not."
    x = np.random.default_rng(7).uniform(0, 10, hpo_dim(model))
    dec = hpo_decode(model, x)
    for scale in (False, True):
        clf = hpo_classifier(model, x, scale=scale)
        est = clf.steps[-1][1] if scale else clf
        if scale: assert type(clf.steps[0][1]).__name__ == 'StandardScaler'
        assert {k: est.get_params()[k] for k in dec} == dec and est.random_state == 0
    if model == 'mlp': assert est.solver == 'adam' and est.hidden_layer_sizes == (100,)

def test_bad_points_and_names():
    with pytest.raises(ValueError, match='7 coordinates'): hpo_decode('rf', np.zeros(8))
    with pytest.raises(ValueError, match=r'\[0, 10\]'): hpo_decode('rf', np.full(7, 10.5))
    with pytest.raises(ValueError, match=r'\[0, 10\]'): hpo_decode('rf', [np.nan] + [0] * 6)
    with pytest.raises(ValueError, match="unknown model 'svm'"): hpo_decode('svm', np.zeros(7))
    with pytest.raises(ValueError, match="unknown model"): hpo_problem('svm')
    with pytest.raises(ValueError, match='missing'): hpo_encode('rf', {'n_estimators': 20})
    with pytest.raises(ValueError, match='must be one of'): hpo_encode('rf', {**hpo_decode('rf', np.zeros(7)), 'criterion': 'mse'})
    with pytest.raises(ValueError, match="unknown data 'iris'"): hpo_data('iris')
    with pytest.raises(ValueError, match='0..4'): hpo_fold(np.r_[[0, 1] * 10], 5)
    with pytest.raises(ValueError, match='0..4'): hpo_problem('rf', TOY, fold=-1)
    with pytest.raises(ValueError, match='0..4'): hpo_accuracy('rf', np.zeros(7), TOY, fold=1.5)
    with pytest.raises(ValueError, match='shape'): hpo_problem('rf', TOY)(np.zeros(8))
    with pytest.raises(ValueError, match="did you mean 'goucb-hpo-mlp-breast-cancer'"): get_hpo_problem('goucb-hpo-mlp-breastcancer')
    with pytest.raises(ValueError, match='two classes'): hpo_data((np.zeros((9, 2)), np.arange(9) % 3))

# ---------------------------------------------------------------- data
def test_bundled_and_stand_in_data():
    X, y, name = hpo_data('breast-cancer')
    assert X.shape == (569, 30) and name == 'breast-cancer' and set(np.unique(y)) == {0, 1}
    for d, shape in (('australian', (690, 14)), ('diabetes', (768, 8))):
        X, y, name = hpo_data(d)
        assert X.shape == shape and name == f'{d}-stand-in' and set(np.unique(y)) == {0, 1}
        assert hpo_data(f'{d}-stand-in')[2] == name and np.array_equal(hpo_data(d)[0], X)
    assert not hpo_data('diabetes')[0].flags.writeable   # the cached arrays cannot be changed by a caller

def test_stand_ins_labelled_everywhere():
    for name, (m, d) in HPO_PROBLEMS.items():
        if d != 'breast-cancer': assert name.endswith('-stand-in') and 'stand-in' in get_hpo_problem(name).name
    assert {d for _, d in HPO_PROBLEMS.values()} == {'breast-cancer', 'australian-stand-in', 'diabetes-stand-in'}
    assert 'stand-in' in hpo_problem('gb', 'australian', fold=4).name

def test_svmlight_and_csv_round_trip(tmp_path):
    X, y = make_classification(40, 5, random_state=1)
    y = 2 * y - 1   # LIBSVM's -1/+1 labels
    f = tmp_path / 'australian_scale'
    dump_svmlight_file(X, y, str(f))
    X2, y2, name = hpo_data(str(f))
    np.testing.assert_allclose(X2, X, rtol=1e-12); assert np.array_equal(y2, (y > 0).astype(int)) and name == 'australian_scale'
    c = tmp_path / 'pima.csv'
    np.savetxt(c, np.c_[X, y], delimiter=',', header=','.join([f'x{i}' for i in range(5)] + ['label']), comments='')
    X3, y3, name = hpo_data(c)
    np.testing.assert_allclose(X3, X, rtol=1e-12); assert np.array_equal(y3, y2) and name == 'pima'
    p = hpo_problem('rf', str(f), fold=0); assert p.name == 'goucb-hpo-rf-australian_scale-fold0'

# ---------------------------------------------------------------- objective
def test_folds_partition_and_stratify():
    y = hpo_data('breast-cancer')[1]
    tests = [hpo_fold(y, k)[1] for k in range(5)]
    assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(len(y)))
    for k in range(5):
        tr, te = hpo_fold(y, k)
        assert len(np.intersect1d(tr, te)) == 0 and len(tr) + len(te) == len(y) and abs(len(te) - len(y) / 5) <= 1
        assert abs(y[te].mean() - y.mean()) < 0.01
    assert np.array_equal(hpo_fold(y, 2)[1], hpo_fold(y.copy(), 2)[1])   # the same split every time
    from sklearn.model_selection import StratifiedKFold
    ref = list(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros((len(y), 1)), y))
    for k in range(5): assert all(np.array_equal(a, b) for a, b in zip(hpo_fold(y, k), ref[k]))

@pytest.mark.parametrize('model', ['rf', 'mlp', 'gb'])
def test_deterministic_accuracy_in_unit_interval(model):
    g = np.random.default_rng(0)
    p = hpo_problem(model, TOY, fold=1)
    assert p.dim == hpo_dim(model) and p.f_opt is None and np.all(p.bounds == [0, 10])
    for x in g.uniform(0, 10, (2, p.dim)):
        x[:] = np.minimum(x, 3.)   # small forests and short MLPs: fast
        a = p(x)
        assert 0 <= a <= 1 and a * 12 == round(a * 12)   # 60 samples: 12 per test fold
        assert p(x) == a == hpo_accuracy(model, x, TOY, fold=1)
        assert p.decode(x) == hpo_decode(model, x)

def test_accuracy_is_the_test_fold_score():
    "The objective equals fitting the decoded classifier on four folds and scoring the fifth, done by hand."
    from sklearn.ensemble import RandomForestClassifier
    X, y, _ = hpo_data(TOY)
    x = np.array([0, 2, 3, 0, 0, 7, 2.])
    for k in (0, 3):
        tr, te = hpo_fold(y, k)
        clf = RandomForestClassifier(random_state=0, **hpo_decode('rf', x)).fit(X[tr], y[tr])
        assert hpo_accuracy('rf', x, TOY, fold=k) == clf.score(X[te], y[te])

def test_warnings_silenced():
    x = np.array([10, 0, 10, 0, 0, 5, 5, 10.])   # relu, learning rate 1e-2, 100 iterations: not converged
    X, y, _ = hpo_data(TOY); tr, _ = hpo_fold(y, 0)
    with pytest.warns(Warning, match='Maximum iterations'): hpo_classifier('mlp', x).fit(X[tr], y[tr])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        hpo_accuracy('mlp', x, TOY, fold=0)

def test_registry_and_factory():
    assert len(HPO_PROBLEMS) == 9
    p = get_hpo_problem('goucb-hpo-mlp-diabetes-stand-in', fold=2, scale=True)
    assert p.name == 'goucb-hpo-mlp-diabetes-stand-in-fold2-scaled' and p.dim == 8 and p.fold == 2
    f = hpo_factory('goucb-hpo-rf-breast-cancer')
    assert [f(seed=k).name for k in (0, 4)] == ['goucb-hpo-rf-breast-cancer-fold0', 'goucb-hpo-rf-breast-cancer-fold4']
    with pytest.raises(ValueError, match='0..4'): f(seed=5)
    with pytest.raises(ValueError, match='unknown problem'): hpo_factory('goucb-hpo-rf')

# ---------------------------------------------------------------- regret against the best empirical accuracy
@pytest.fixture(scope='module')
def toy_runs():
    "Three methods' runs on two folds; cheap stand-in objectives with an unknown optimum, as the HPO problems have."
    from hdbo_nb.core import Problem
    ps = [Problem(lambda x, k=k: float(np.round(np.sin(x).sum() + k, 2)), [[0, 10]] * 3, name=f'toy-fold{k}') for k in (0, 1)]
    return ps, {m: [optimize(p, 'random', 6, rng=s) for p in ps] for m, s in (('a', 0), ('b', 1), ('c', 2))}

def test_regret_on_hpo_traces():
    "The HPO problems' traces carry f_opt None and their fold in meta['problem']."
    p = hpo_problem('rf', TOY, fold=3)
    t = optimize(p, 'random', 2, rng=0)
    assert t.meta['f_opt'] is None and t.meta['problem'] == 'goucb-hpo-rf-toy-fold3'
    fs, c = hpo_regret({'random': [t]})
    assert fs == {p.name: t.y.max()} and c['random'].shape == (1, 2)

def test_empirical_f_opt_and_regret(toy_runs):
    ps, runs = toy_runs
    fs = empirical_f_opt(runs)
    assert set(fs) == {p.name for p in ps}
    for p in ps:
        ys = [t.y for ts in runs.values() for t in ts if t.meta['problem'] == p.name]
        assert fs[p.name] == max(y.max() for y in ys)
    f_star, cum = hpo_regret(runs)
    _, simple = hpo_regret(runs, kind='simple')
    assert f_star == fs
    for m, ts in runs.items():
        for i, t in enumerate(ts):
            np.testing.assert_array_equal(cum[m][i], np.cumsum(fs[t.meta['problem']] - t.y))
            np.testing.assert_array_equal(simple[m][i], fs[t.meta['problem']] - np.maximum.accumulate(t.y))
    assert min(s[:, -1].min() for s in simple.values()) == 0   # some method reaches f* on every fold
    assert all(t.meta['f_opt'] is None for ts in runs.values() for t in ts)   # the inputs are left alone
    r = with_empirical_f_opt(runs)
    assert r['a'][1].meta['f_opt'] == fs[ps[1].name]
    np.testing.assert_array_equal(r['b'][0].cumulative_regret(), cum['b'][0])

def test_empirical_f_opt_with_results_keys(toy_runs):
    "Keys of `load_results` style ((method, problem label) -> traces, the seeds being the folds) work the same."
    ps, runs = toy_runs
    res = {(m, 'rf-toy'): ts for m, ts in runs.items()}
    fs, curves = hpo_regret(res)
    assert fs == empirical_f_opt(runs) and set(curves) == set(res)
    with pytest.raises(TypeError, match='dict'): empirical_f_opt([runs['a']])

def test_changed_file_is_read_again(tmp_path):
    f = tmp_path / 'd.csv'
    np.savetxt(f, np.c_[np.arange(10.), np.arange(10) % 2], delimiter=',')
    assert hpo_data(f)[0].shape == (10, 1)
    np.savetxt(f, np.c_[np.arange(12.), np.arange(12.), np.arange(12) % 2], delimiter=',')
    import os; os.utime(f, (1e9, 1e9 + 7))
    assert hpo_data(f)[0].shape == (12, 2)

def test_in_an_experiment(tmp_path):
    "hpo_factory in an Experiment (seeds = folds); its cached results get f* per fold and work with the regret tables."
    from hdbo_nb.experiments import Experiment, run_experiment, load_results, summary_table
    e = Experiment('hpo-smoke', methods={'r0': 'random', 'r1': ('random', {})},
                   problems={'gb-bc': hpo_factory('goucb-hpo-gb-breast-cancer')}, seeds=2, budget=2)
    assert run_experiment(e, tmp_path, n_jobs=1).ok
    res = load_results(e, tmp_path)
    fs, curves = hpo_regret(res)
    assert set(fs) == {'goucb-hpo-gb-breast-cancer-fold0', 'goucb-hpo-gb-breast-cancer-fold1'}
    assert {k: v.shape for k, v in curves.items()} == {('r0', 'gb-bc'): (2, 2), ('r1', 'gb-bc'): (2, 2)}
    table = summary_table(with_empirical_f_opt(res), 'cumulative')
    assert 'cumulative regret' in table and 'best y' not in table
