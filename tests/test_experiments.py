"The experiment runner: cache identity, resume, damaged files, parallel determinism (loky and Dask), aggregation."
import functools, glob, os, pathlib, warnings
import numpy as np, pytest
from hdbo_nb.core import Problem, Trace, CorruptTraceError
from hdbo_nb.experiments import (Experiment, Run, experiment_runs, run_experiment, load_results, regret_curves,
                                 plot_regret, summary_table, get_experiment, list_experiments, load_all,
                                 register_experiment, EXPERIMENTS, CorruptCacheWarning, mean_interval)

TINY = Experiment('tiny', methods={'random': 'random', 'ucb': ('gp-ucb', {})}, problems={'branin': 'branin'},
                  seeds=2, budget=8)

def _same(a:Trace, b:Trace):
    np.testing.assert_array_equal(a.X, b.X); np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.f, b.f)

def _traces(cache, exp=TINY):
    res = load_results(exp, cache)
    assert not res.missing and not res.corrupt
    return {(k, i): t for k, ts in res.items() for i, t in enumerate(ts)}

@pytest.fixture(scope='module')
def serial(tmp_path_factory):
    "TINY run once in this process: the reference traces."
    cache = tmp_path_factory.mktemp('serial')
    rep = run_experiment(TINY, cache, n_jobs=1, show_progress=False)
    assert rep.ok and rep.ran == len(TINY) == 4
    return cache

def test_same_traces_with_one_or_two_jobs(serial, tmp_path):
    rep = run_experiment(TINY, tmp_path, n_jobs=2, show_progress=False)
    assert rep.ok and rep.ran == 4
    a, b = _traces(serial), _traces(tmp_path)
    assert a.keys() == b.keys()
    for k in a: _same(a[k], b[k])

def test_dask_local_cluster_gives_the_same_traces(serial, tmp_path):
    distributed = pytest.importorskip('dask.distributed', reason="dask[distributed] not installed (pip install 'hdbo-nb[dask]')")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
         distributed.Client(cluster) as client:
        rep = run_experiment(TINY, tmp_path, backend='dask', scheduler=client, show_progress=False)
        assert rep.ok and rep.ran == 4
        # an address string works too (the CLI's --scheduler); everything is cached by now
        rep = run_experiment(TINY, tmp_path, backend='dask', scheduler=cluster.scheduler_address, show_progress=False)
        assert rep.cached == 4 and rep.ran == 0
    a, b = _traces(serial), _traces(tmp_path)
    for k in a: _same(a[k], b[k])

def test_rerun_skips_finished_runs(serial):
    rep = run_experiment(TINY, serial, show_progress=False)
    assert (rep.cached, rep.ran, rep.corrupt) == (4, 0, [])

def test_truncated_cache_file_is_detected_reported_and_rerun(serial, tmp_path):
    cache = tmp_path / 'c'
    rep = run_experiment(TINY, cache, show_progress=False)
    files = sorted(glob.glob(f"{cache}/tiny/*.npz"))
    assert len(files) == 4
    raw = pathlib.Path(files[2]).read_bytes()
    pathlib.Path(files[2]).write_bytes(raw[:len(raw) // 2])
    with pytest.raises(CorruptTraceError): Trace.load(files[2])
    # reading the cache reports it and never uses it
    with pytest.warns(CorruptCacheWarning, match='cannot be read'):
        res = load_results(TINY, cache)
    assert res.corrupt == [files[2]] and sum(map(len, res.values())) == 3
    # the next sweep reports it, keeps it aside and reruns exactly that run
    with pytest.warns(CorruptCacheWarning, match='cannot be read'):
        rep = run_experiment(TINY, cache, show_progress=False)
    assert (rep.cached, rep.ran, rep.corrupt) == (3, 1, [files[2]])
    assert os.path.exists(files[2] + '.corrupt')
    a, b = _traces(serial), _traces(cache)
    for k in a: _same(a[k], b[k])

def test_a_file_of_another_run_is_not_used(tmp_path):
    run_experiment(TINY, tmp_path, show_progress=False)
    files = sorted(glob.glob(f"{tmp_path}/tiny/*.npz"))
    pathlib.Path(files[0]).write_bytes(pathlib.Path(files[1]).read_bytes())  # wrong contents under the right name
    with pytest.warns(CorruptCacheWarning, match='holds run'):
        rep = run_experiment(TINY, tmp_path, show_progress=False)
    assert rep.ran == 1

_CALLS = []   # module-level on purpose: a runner's captured variables are part of each run's identity

def flaky_runner(problem, method, budget, rng=None, **options):
    "`optimize`, but Ctrl-C arrives during the third call."
    from hdbo_nb.bo import optimize
    _CALLS.append(rng)
    if len(_CALLS) == 3: raise KeyboardInterrupt
    return optimize(problem, method, budget, rng=rng, **options)

def test_interrupted_sweep_resumes_and_loses_only_the_run_in_flight(tmp_path):
    _CALLS.clear()
    with pytest.raises(KeyboardInterrupt):
        run_experiment(TINY, tmp_path, runner=flaky_runner, show_progress=False)
    assert len(glob.glob(f"{tmp_path}/tiny/*.npz")) == 2
    assert not glob.glob(f"{tmp_path}/tiny/.*tmp")   # no half-written files
    rep = run_experiment(TINY, tmp_path, runner=flaky_runner, show_progress=False)
    assert (rep.cached, rep.ran) == (2, 2) and len(_CALLS) == 5

def test_failed_runs_are_reported_and_not_cached(tmp_path):
    def broken():
        def f(x): raise RuntimeError('simulator crashed')
        return Problem(f, [[0, 1]], f_opt=0., name='broken')
    exp = Experiment('broken', methods={'random': 'random'}, problems={'ok': 'branin', 'bad': broken}, seeds=1, budget=5)
    rep = run_experiment(exp, tmp_path, show_progress=False)
    assert not rep.ok and rep.ran == 1 and len(rep.failed) == 1
    assert 'simulator crashed' in rep.failed[0][1] and 'bad' in rep.failed[0][0] and 'FAILED' in str(rep)
    rec = glob.glob(f"{tmp_path}/broken/*bad__s0__*.failed.json")
    assert len(rec) == 1 and 'simulator crashed' in pathlib.Path(rec[0]).read_text()   # the cause, beside the cache
    rep = run_experiment(exp, tmp_path, show_progress=False)
    assert rep.cached == 1 and len(rep.failed) == 1 and rep.not_retried == 1   # recorded: not run again
    assert 'not retried' in rep.failed[0][1] and 'simulator crashed' in rep.failed[0][1]
    rep = run_experiment(exp, tmp_path, show_progress=False, retry_failed=True)
    assert rep.cached == 1 and len(rep.failed) == 1 and rep.not_retried == 0   # tried again, never cached as finished

def test_run_identity():
    r = experiment_runs(TINY)[0]
    same = Run('other-exp', 'other-label', r.method, dict(r.options), 'b', r.problem, r.budget, r.seed)
    assert same.key == r.key   # labels and experiment name are not part of the identity
    for change in [dict(seed=5), dict(budget=9), dict(options=dict(beta=2.)), dict(problem=('branin', dict(noise_std=.1))),
                   dict(method='gp-ei')]:
        kw = dict(experiment=r.experiment, method_label=r.method_label, method=r.method, options=r.options,
                  problem_label=r.problem_label, problem=r.problem, budget=r.budget, seed=r.seed)
        assert Run(**{**kw, **change}).key != r.key, change
    assert len({x.filename for x in experiment_runs(TINY)}) == 4

_MADE = []

def seeded_sphere(seed):
    "A random problem per seed: the factory takes `seed`."
    _MADE.append(seed)
    c = np.random.default_rng(seed).random(2)
    return Problem.from_minimization(lambda x: float(np.sum((x - c) ** 2)), [[0, 1]] * 2, g_min=0., x_min=c)

def test_problem_factories_and_seeded_factories(tmp_path):
    _MADE.clear()
    exp = Experiment('fac', methods={'random': 'random'}, problems={'sphere': seeded_sphere}, seeds=[3, 4], budget=6)
    rep = run_experiment(exp, tmp_path, show_progress=False)
    assert rep.ran == 2 and sorted(_MADE) == [3, 4]
    res = load_results(exp, tmp_path)
    assert [t.meta['seed'] for t in res[('random', 'sphere')]] == [3, 4]
    tr = res[('random', 'sphere')][0]
    assert tr.meta['f_opt'] == 0 and (tr.simple_regret() >= 0).all()
    # a seed bound with functools.partial is kept: one problem for every run seed
    _MADE.clear()
    exp = Experiment('fac2', methods={'random': 'random'}, problems={'sphere': functools.partial(seeded_sphere, seed=7)},
                     seeds=[3, 4], budget=6)
    run_experiment(exp, tmp_path, show_progress=False)
    assert _MADE == [7, 7]

def test_unknown_names_give_closest_valid_names(tmp_path):
    with pytest.raises(ValueError, match="did you mean 'gp-ucb'"):
        run_experiment(Experiment('x', {'m': 'gp-ucbb'}, {'p': 'branin'}), tmp_path)
    with pytest.raises(ValueError, match="'hartmann3'"):
        run_experiment(Experiment('x', {'m': 'random'}, {'p': 'hartman3'}), tmp_path)
    with pytest.raises(ValueError, match="did you mean 'baselines'"):
        get_experiment('baseline')
    assert not os.listdir(tmp_path)   # nothing ran

def test_bad_experiments_are_refused():
    with pytest.raises(ValueError, match='no entry'): Experiment('x', {'m': 'random'}, {'p': 'branin'}, budget={'q': 3})
    with pytest.raises(ValueError, match='positive'): Experiment('x', {'m': 'random'}, {'p': 'branin'}, budget=0)
    with pytest.raises(ValueError, match='distinct'): Experiment('x', {'m': 'random'}, {'p': 'branin'}, seeds=[1, 1])
    with pytest.raises(TypeError): Experiment('x', {'m': ('random', 3)}, {'p': 'branin'})

def test_workers_use_one_blas_thread(tmp_path):
    def probe(problem, method, budget, rng=None, **options):
        from threadpoolctl import threadpool_info
        from hdbo_nb.bo import optimize
        tr = optimize(problem, method, budget, rng=rng, **options)
        tr.meta['blas_threads'] = max([p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'] or [1])
        tr.meta['omp_env'] = os.environ.get('OMP_NUM_THREADS')
        return tr
    exp = Experiment('blas', {'random': 'random'}, {'branin': 'branin'}, seeds=2, budget=3)
    run_experiment(exp, tmp_path, n_jobs=2, runner=probe, show_progress=False)
    for ts in load_results(exp, tmp_path, runner=probe).values():
        for t in ts: assert t.meta['blas_threads'] == 1 and t.meta['omp_env'] == '1'

def test_regret_curves_and_plot(serial, tmp_path):
    res = load_results(TINY, serial)
    for kind in ('simple', 'cumulative'):
        C = regret_curves(res, kind)
        assert set(C) == {('random', 'branin'), ('ucb', 'branin')}
        for (m, p), A in C.items():
            assert A.shape == (2, 8)
            ts = res[(m, p)]
            np.testing.assert_allclose(A[0], ts[0].simple_regret() if kind == 'simple' else ts[0].cumulative_regret())
    A = regret_curves(res)[('ucb', 'branin')]
    assert (np.diff(A, axis=1) <= 1e-12).all() and (A >= -1e-9).all()
    for interval in ('sem', 'std', 'ci95'):
        fig = plot_regret(res, interval=interval)
        ax = fig.axes[0]
        assert ax.get_yscale() == 'log' and ax.get_xlabel() == 'evaluations' and 'simple regret' in ax.get_ylabel()
        assert {'sem': 's.e.m.', 'std': 'std', 'ci95': 'bootstrap'}[interval] in fig._suptitle.get_text()
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ['random', 'ucb (gp-ucb)']
    fig.savefig(tmp_path / 'r.png'); assert (tmp_path / 'r.png').stat().st_size > 10_000
    table = summary_table(res)
    assert 'median final simple regret' in table and 'ucb' in table and len(table.splitlines()) == 4
    assert 'sec/run' in table.splitlines()[0] and 'sec/run' not in summary_table(res, seconds=False)
    assert summary_table(res, seconds=False).splitlines()[2] == table.splitlines()[2].rsplit('  ', 1)[0].rstrip()

def test_mean_interval_closed_forms():
    A = np.array([[1., 10.], [3., 30.], [5., np.nan]])
    m, lo, hi = mean_interval(A, 'std')
    np.testing.assert_allclose(m, [3., 20.]); np.testing.assert_allclose(hi - m, [2., np.std([10, 30], ddof=1)])
    m, lo, hi = mean_interval(A, 'sem')
    np.testing.assert_allclose(hi - m, [2. / np.sqrt(3), np.std([10, 30], ddof=1) / np.sqrt(2)])
    with pytest.raises(ValueError, match='interval'): mean_interval(A, 'iqr')

def test_registry():
    names = dict(list_experiments())
    assert {'baselines', 'smoke'} <= set(names) and names['baselines']
    q, f = get_experiment('baselines', 'quick'), get_experiment('baselines', 'full')
    assert len(f.seeds) >= 10 and len(q.seeds) < len(f.seeds) and set(q.methods) == {'random', 'gp-ucb', 'gp-ei', 'gp-pi'}
    @register_experiment(name='test-reg')
    def _exp(scale='quick'):
        "A test experiment."
        return Experiment('test-reg', {'r': 'random'}, {'b': 'branin'}, seeds=1 if scale == 'quick' else 2, budget=3)
    try:
        assert get_experiment('test-reg').description == 'A test experiment.'
        assert len(get_experiment('test-reg', 'full')) == 2
    finally: EXPERIMENTS.pop('test-reg')

def test_load_all_skips_missing_and_reports_broken(tmp_path, monkeypatch):
    assert load_all(['hdbo_nb.functions', 'hdbo_nb.not_written_yet']) == ['hdbo_nb.functions']
    (tmp_path / 'broken_paper_mod.py').write_text("import hdbo_nb.no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(UserWarning, match='could not import broken_paper_mod'):
        assert load_all(['broken_paper_mod']) == []

def test_run_identity_does_not_depend_on_who_registered():
    """A notebook re-running an exported cell defines the same function in `__main__`: the runs it registers must keep
    the cache keys of the package's own registration (else a later notebook in the same process finds no results)."""
    import inspect, linecache, functools
    import hdbo_nb.sibo as sb
    from hdbo_nb.experiments import _fn_id
    src = inspect.getsource(sb.sibo_gp_problem)
    fname = '<notebook-cell>'
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)   # as IPython does for its cells
    ns = dict(vars(sb), __name__='__main__')
    import __future__
    flags = __future__.annotations.compiler_flag if getattr(sb, 'annotations', None) is __future__.annotations else 0
    exec(compile(src, fname, 'exec', flags=flags, dont_inherit=True), ns)   # the notebook has the module's future imports
    twin = ns['sibo_gp_problem']
    assert twin is not sb.sibo_gp_problem and twin.__module__ == '__main__'
    assert _fn_id(functools.partial(twin, d=100)) == _fn_id(functools.partial(sb.sibo_gp_problem, d=100))
    def other(d=100): return d
    other.__module__ = '__main__'
    assert _fn_id(other)['fn'].startswith('__main__.')      # a function only the notebook has keeps its own name

_RAN = []

def counting_runner(problem, method, budget, rng=None, **options):
    from hdbo_nb.bo import optimize
    _RAN.append(rng)
    return optimize(problem, method, budget, rng=rng, **options)

def test_an_unwritable_cache_fails_before_any_run(tmp_path):
    _RAN.clear()
    f = tmp_path / 'file'; f.write_text('x')
    with pytest.raises(OSError, match='cannot write to the cache directory'):
        run_experiment(TINY, f, runner=counting_runner, show_progress=False)
    assert _RAN == []
    # a fully cached experiment in a directory that cannot be written is still read (nothing to write)
    run_experiment(TINY, tmp_path / 'c', runner=counting_runner, show_progress=False)
    from hdbo_nb import experiments
    orig = experiments.check_writable_dir
    try:
        experiments.check_writable_dir = lambda *a: (_ for _ in ()).throw(OSError('read-only'))
        rep = run_experiment(TINY, tmp_path / 'c', runner=counting_runner, show_progress=False)
        assert rep.cached == 4
    finally: experiments.check_writable_dir = orig

def sleepy_runner(problem, method, budget, rng=None, **options):
    import time
    from hdbo_nb.bo import optimize
    time.sleep(0.6)
    return optimize(problem, method, budget, rng=rng, **options)

def test_a_long_single_run_shows_progress_in_a_log(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv('HDBO_PROGRESS', '1'); monkeypatch.setenv('HDBO_PROGRESS_INTERVAL', '0.1')
    one = Experiment('one', methods={'random': 'random'}, problems={'branin': 'branin'}, seeds=1, budget=5)
    rep = run_experiment(one, tmp_path, runner=sleepy_runner)
    assert rep.ok and rep.ran == 1
    lines = [l for l in capsys.readouterr().err.splitlines() if l.startswith('one:')]
    assert len(lines) >= 4 and '0/1' in lines[0] and '1/1' in lines[-1], lines

def killing_runner(problem, method, budget, rng=None, **options):
    "`optimize`, but the worker process of one run is killed (as by the out-of-memory killer) while told to."
    import signal
    from hdbo_nb.bo import optimize
    if rng == 1 and method == 'random' and os.environ.get('HDBO_TEST_KILL') == '1': os.kill(os.getpid(), signal.SIGKILL)
    return optimize(problem, method, budget, rng=rng, **options)

def test_a_killed_worker_fails_only_its_run(serial, tmp_path, monkeypatch):
    monkeypatch.setenv('HDBO_TEST_KILL', '1')
    rep = run_experiment(TINY, tmp_path, n_jobs=2, runner=killing_runner, show_progress=False)
    assert rep.ran == 3 and len(rep.failed) == 1, str(rep)
    label, cause = rep.failed[0]
    assert 'random on branin, seed 1' == label and 'killed by SIGKILL' in cause
    assert 'FAILED random on branin, seed 1' in str(rep) and '--retry-failed' in str(rep)
    # the other runs are the serial ones
    ok = [r for r in experiment_runs(TINY, killing_runner) if not (r.seed == 1 and r.method == 'random')]
    ref = {(r.method_label, r.seed): r for r in experiment_runs(TINY)}
    for r in ok: _same(Trace.load(r.path(tmp_path)), Trace.load(ref[(r.method_label, r.seed)].path(serial)))
    # the next sweep does not run it again (it would crash again) unless told to
    rep = run_experiment(TINY, tmp_path, n_jobs=2, runner=killing_runner, show_progress=False)
    assert (rep.cached, rep.ran, rep.not_retried) == (3, 0, 1) and not rep.ok
    monkeypatch.setenv('HDBO_TEST_KILL', '0')
    rep = run_experiment(TINY, tmp_path, n_jobs=2, runner=killing_runner, show_progress=False, retry_failed=True)
    assert (rep.cached, rep.ran) == (3, 1) and rep.ok
    assert not glob.glob(f"{tmp_path}/tiny/*.failed.json")   # the record goes once the run succeeds
    rep = run_experiment(TINY, tmp_path, n_jobs=2, runner=killing_runner, show_progress=False)
    assert rep.cached == 4 and rep.ok

def test_committed_results_keep_their_keys():
    "Cache keys without a version are what they were: the committed results under results/ still load."
    from conftest import CACHE as root
    res = load_results(get_experiment('msucb-fig4', 'quick'), root)
    assert not res.missing and not res.corrupt and sum(map(len, res.values())) == 12   # 6 methods (random search included) x 2 seeds

def test_opt_in_code_version(tmp_path, monkeypatch):
    import hdbo_nb
    from hdbo_nb.experiments import code_version
    base = dict(name='v', methods={'random': 'random'}, problems={'branin': 'branin'}, seeds=1, budget=3)
    plain = experiment_runs(Experiment(**base))[0]
    auto = experiment_runs(Experiment(**base, version='auto'))[0]
    assert plain.version is None and 'version' not in plain.spec and auto.key != plain.key
    assert auto.version.startswith(hdbo_nb.__version__ + '+')
    rep = run_experiment(Experiment(**base, version='auto'), tmp_path, show_progress=False)
    assert rep.ran == 1
    assert run_experiment(Experiment(**base, version='auto'), tmp_path, show_progress=False).cached == 1
    code_version.cache_clear()
    monkeypatch.setattr(hdbo_nb, '__version__', '99.0')   # an upgrade: the run is not silently reused
    try:
        assert run_experiment(Experiment(**base, version='auto'), tmp_path, show_progress=False).ran == 1
        assert run_experiment(Experiment(**base), tmp_path, show_progress=False).ran == 1   # no version: one key
        assert run_experiment(Experiment(**base), tmp_path, show_progress=False).cached == 1
    finally: code_version.cache_clear()
    with pytest.raises(TypeError, match='version'): Experiment(**base, version=2)

@pytest.mark.parametrize('budget', [2.5, None, float('nan'), float('inf'), 0, True, '30'])
def test_experiment_budget_must_be_a_positive_integer(budget):
    from hdbo_nb.experiments import Experiment
    with pytest.raises(ValueError, match='budget must be a positive integer'):
        Experiment('x', methods={'R': ('random', {})}, problems={'b': ('branin', {})}, seeds=1, budget=budget)

def test_store_x_false_keeps_values_and_keys(tmp_path):
    "A compact sweep (store_x=False) stores each run's values and best point only, under the same run keys."
    import dataclasses
    compact = dataclasses.replace(TINY, store_x=False)
    assert [r.key for r in experiment_runs(compact)] == [r.key for r in experiment_runs(TINY)]
    run_experiment(compact, tmp_path, show_progress=False)
    full = run_experiment(TINY, tmp_path / 'full', show_progress=False)
    a, b = load_results(compact, tmp_path), load_results(TINY, tmp_path / 'full')
    for k in a:
        for ta, tb in zip(a[k], b[k]):
            assert np.isnan(ta.X).all() and np.array_equal(ta.f, tb.f) and np.array_equal(ta.best_x, tb.best_x)

def test_every_committed_run_is_a_registered_run():
    "Run keys do not change: every trace under results/ is the file of a run some registered experiment (quick or full) asks for."
    from conftest import CACHE as root
    from hdbo_nb.experiments import EXPERIMENTS
    want = {r.path(root) for n in EXPERIMENTS.all() for sc in ('quick', 'full') for r in experiment_runs(get_experiment(n, sc))}
    have = set(glob.glob(os.path.join(root, '**', '*.npz'), recursive=True))
    assert len(have) > 1000 and not (have - want), sorted(have - want)[:5]

@pytest.mark.parametrize('jobs', [0, -2, 1.5, True])
def test_n_jobs_zero_or_negative_is_refused_before_anything_runs(tmp_path, jobs):
    _RAN.clear()
    with pytest.raises(ValueError, match='positive number of workers'):
        run_experiment(TINY, tmp_path, n_jobs=jobs, runner=counting_runner, show_progress=False)
    assert not _RAN and not list(tmp_path.iterdir())
    from hdbo_nb.experiments import parallel_map
    with pytest.raises(ValueError, match='positive number of workers'): list(parallel_map(abs, [1, 2], n_jobs=jobs))

def test_n_jobs_is_capped_at_the_cpus_available(tmp_path, monkeypatch):
    import hdbo_nb.experiments as ex
    monkeypatch.setattr(ex, 'available_cpus', lambda: 2)
    started = []
    real = ex._isolated_map
    def spy(fn, tasks, n, on_failure): started.append(n); return real(fn, tasks, n, on_failure)
    monkeypatch.setattr(ex, '_isolated_map', spy)
    with pytest.warns(UserWarning, match='n_jobs=1000 is more than the 2 CPU'):
        rep = run_experiment(TINY, tmp_path, n_jobs=1000, show_progress=False)
    assert rep.ok and rep.ran == 4 and started == [2]
    assert ex.check_jobs(-1) == 2
