"The installed `hdbo` command, run as a user would: in a subprocess."
import os, shutil, subprocess, sys, time, pathlib
import pytest

HDBO = shutil.which('hdbo', path=os.path.dirname(sys.executable)) or shutil.which('hdbo')
pytestmark = pytest.mark.skipif(HDBO is None, reason="the `hdbo` console script is not installed (pip install -e .)")

def hdbo(*args, cwd=None, timeout=300):
    env = dict(os.environ, MPLBACKEND='Agg', HDBO_PROGRESS='1')
    for k in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'): env.pop(k, None)  # the CLI sets them
    return subprocess.run([HDBO, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)

def test_list():
    p = hdbo('list')
    assert p.returncode == 0, p.stderr
    for word in ('experiments', 'baselines', 'smoke', 'methods', 'gp-ucb', 'random', 'problems', 'branin', 'hartmann6'):
        assert word in p.stdout

def test_python_m_runs_the_same_command():
    p = subprocess.run([sys.executable, '-m', 'hdbo_nb.cli', 'list'], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout == hdbo('list').stdout, p.stderr

@pytest.mark.parametrize('args, suggestion', [
    (('run', 'baseline'), "did you mean 'baselines'"),
    (('plot', 'smok'), "did you mean 'smoke'"),
    (('demo', '--method', 'gp_ucb', '--budget', '5'), "'gp-ucb'"),
    (('demo', '--problem', 'hartman6', '--budget', '5'), "'hartmann6'"),
])
def test_unknown_names_are_usage_errors_with_suggestions(args, suggestion):
    p = hdbo(*args)
    assert p.returncode == 2
    assert suggestion in p.stderr and 'Traceback' not in p.stderr

def test_bad_usage_exits_2():
    p = hdbo('run', 'smoke', '--quick', '--full')
    assert p.returncode == 2 and 'not allowed with' in p.stderr
    assert hdbo().returncode == 2

def test_run_resume_and_plot(tmp_path):
    cache = tmp_path / 'cache'
    p = hdbo('run', 'smoke', '--quick', '--jobs', '2', '--cache', str(cache))
    assert p.returncode == 0, p.stderr
    assert '4 runs, 0 cached, 4 run, 0 failed' in p.stdout and 'median final simple regret' in p.stdout
    assert len(list((cache / 'smoke').glob('*.npz'))) == 4
    # truncate one run: reported and rerun, the others are reused
    f = sorted((cache / 'smoke').glob('*.npz'))[0]
    f.write_bytes(f.read_bytes()[:100])
    p = hdbo('run', 'smoke', '--cache', str(cache))
    assert p.returncode == 0, p.stderr
    assert '3 cached, 1 run' in p.stdout and 'damaged cache file' in p.stderr
    out = tmp_path / 'smoke.png'
    p = hdbo('plot', 'smoke', '--cache', str(cache), '--out', str(out), '--interval', 'ci95')
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 10_000 and out.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    p = hdbo('plot', 'smoke', '--cache', str(cache), '--out', str(tmp_path / 'no-dir' / 'x.png'))
    assert p.returncode == 1 and 'does not exist' in p.stderr and 'Traceback' not in p.stderr

def test_plot_without_results_says_what_to_do(tmp_path):
    p = hdbo('plot', 'smoke', '--cache', str(tmp_path))
    assert p.returncode == 1 and 'hdbo run smoke' in p.stderr

def test_demo(tmp_path):
    t0 = time.perf_counter()
    p = hdbo('demo', '--budget', '15', cwd=tmp_path)
    secs = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    assert 'simple regret' in p.stdout and 'best value' in p.stdout
    assert '15/15' in p.stderr   # the progress bar
    png = tmp_path / 'hdbo-demo.png'
    assert png.exists() and png.stat().st_size > 10_000
    assert secs < 60

def _one_line_error(p, code, text):
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    assert 'Traceback' not in p.stderr and text in p.stderr, p.stderr
    assert len([l for l in p.stderr.splitlines() if l.startswith('hdbo: error:')]) == 1

def test_unwritable_cache_fails_before_any_run(tmp_path):
    f = tmp_path / 'a-file'; f.write_text('not a directory')
    t0 = time.perf_counter()
    p = hdbo('run', 'smoke', '--cache', str(f))
    _one_line_error(p, 1, 'cannot write to the cache directory')
    assert ' cached, ' not in p.stdout and f.read_text() == 'not a directory'   # nothing ran
    p = hdbo('run', 'smoke', '--cache', '/proc/hdbo-no-such-cache')   # cannot be created, even by root
    _one_line_error(p, 1, 'cannot write to the cache directory')
    assert time.perf_counter() - t0 < 60

def test_read_only_cache_fails_before_any_run(tmp_path):
    ro = tmp_path / 'ro'; ro.mkdir(); (ro / 'smoke').mkdir()
    (ro / 'smoke').chmod(0o555)
    try:
        try: (ro / 'smoke' / 'probe').write_text('x')
        except OSError: pass
        else: pytest.skip("permissions do not stop this user (root)")
        p = hdbo('run', 'smoke', '--cache', str(ro))
        _one_line_error(p, 1, 'Permission denied')
        assert ' cached, ' not in p.stdout
    finally: (ro / 'smoke').chmod(0o755)

@pytest.mark.parametrize('out, code, text', [
    ('/nonexistent/x.png', 1, 'does not exist'),
    ('.', 1, 'is a directory'),
    ('regret.xyz', 2, "unknown image format 'xyz'"),
])
def test_demo_checks_out_before_the_compute(tmp_path, out, code, text):
    p = hdbo('demo', '--budget', '15', '--out', out, cwd=tmp_path)
    _one_line_error(p, code, text)
    assert 'simple regret' not in p.stdout and '15/15' not in p.stderr   # nothing was computed
    assert not list(tmp_path.iterdir())

def test_retry_failed_option():
    from hdbo_nb.cli import make_parser
    assert make_parser().parse_args(['run', 'smoke', '--retry-failed']).retry_failed
    assert not make_parser().parse_args(['run', 'smoke']).retry_failed

@pytest.mark.parametrize('jobs', ['0', '-3'])
def test_jobs_zero_or_negative_is_a_usage_error(tmp_path, jobs):
    "It used to wait forever at '0/4 ... eta ?': refused at once, nothing run."
    p = hdbo('run', 'smoke', '--jobs', jobs, '--cache', str(tmp_path / 'c'), timeout=60)
    assert p.returncode == 2 and 'positive number of workers' in p.stderr and 'Traceback' not in p.stderr
    assert not (tmp_path / 'c').exists()

def test_jobs_above_the_cpus_are_capped(tmp_path):
    p = hdbo('run', 'smoke', '--jobs', '1000', '--cache', str(tmp_path / 'c'), timeout=300)
    assert p.returncode == 0, p.stderr
    assert 'CPU(s) available here; using' in p.stderr and '4 runs, 0 cached, 4 run, 0 failed' in p.stdout
