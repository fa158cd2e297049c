"tools/audit_cache.py finds a cached trace that the current code no longer produces, and passes one that it does."
import importlib.util
from pathlib import Path
from hdbo_nb.core import Trace
from hdbo_nb.experiments import run_experiment, get_experiment, experiment_runs

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location('audit_cache', ROOT/'tools'/'audit_cache.py')
audit = importlib.util.module_from_spec(spec); spec.loader.exec_module(audit)

def test_audit_tells_a_stale_trace_from_a_fresh_one(tmp_path, capsys):
    run_experiment('smoke', cache_dir=tmp_path, scale='quick', show_progress=False)
    args = ['smoke', '--scale', 'quick', '--cache', str(tmp_path)]
    assert audit.main(args) == 0
    out = capsys.readouterr().out
    assert out.count(' same ') == 2 and '2 reruns, 0 differ' in out, out
    # a trace written by other code: the same run's values from evaluation 4 on are not what the code gives now
    run = next(r for r in experiment_runs(get_experiment('smoke', 'quick')) if r.seed == 0 and r.method == 'gp-ucb')
    tr = Trace.load(run.path(tmp_path))
    tr._f[3:] = [v + 1. for v in tr._f[3:]]
    tr.save(run.path(tmp_path))
    assert audit.main(args) == 1
    out = capsys.readouterr().out
    assert 'DIFFERS from evaluation 4' in out and '2 reruns, 1 differ' in out, out
