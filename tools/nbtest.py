#!/usr/bin/env python
"""Run the notebooks as tests (nbdev's `test_nb`, the same cells `nbdev_test` runs) and print how long each took.

    python tools/nbtest.py                  # every notebook, cells flagged `slow` / `notest` skipped (`make test`)
    python tools/nbtest.py --flags slow     # the `slow` cells too (`make test-all`)
    python tools/nbtest.py nbs/21_sibo_theory.ipynb
    python tools/nbtest.py --report         # the table of the last full run again (`make test` ends with it)

The timing table is printed whether or not a notebook fails, slowest first, so the slowest are always in view.
Notebooks start longest-first (by the times of the previous run on this machine, kept in `.cache/`), which keeps
both workers busy to the end.
"""
import argparse, json, os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
def _times_path(flags): return ROOT/'.cache'/f"nbtest-times{'-' + '-'.join(sorted(flags.split())) if flags.strip() else ''}.json"

_CHILD = """
import os, sys, time
from pathlib import Path
from nbdev.test import test_nb
from nbdev.config import get_config
fn, skip, force = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
ok, _ = test_nb(Path(fn), skip_flags=skip, force_flags=force, basepath=get_config().config_path)
sys.exit(0 if ok else 1)
"""

def _run(fn, skip, force):
    "One notebook in a fresh process (as a reader runs it): (name, passed, seconds, stderr)."
    t0 = time.time()
    r = subprocess.run([sys.executable, '-c', _CHILD, fn, ' '.join(skip), ' '.join(force)], cwd=ROOT/'nbs',
                       capture_output=True, text=True)
    return fn, r.returncode == 0, time.time() - t0, r.stderr

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('paths', nargs='*', help='notebooks (default: every nbs/*.ipynb)')
    ap.add_argument('--flags', default='', help='space-separated test flags to run that are normally skipped (e.g. slow)')
    ap.add_argument('--n_workers', type=int, default=2)
    ap.add_argument('--report', action='store_true', help="print the last full run's table and exit")
    a = ap.parse_args(argv)
    paths = [str(Path(p).resolve()) for p in a.paths]      # relative to where the command was given
    TIMES = _times_path(a.flags)
    if a.report:
        try: last = json.loads(TIMES.read_text())
        except Exception: return print('no full notebook run recorded yet')
        return _table(last['rows'], last['wall'], last['workers'], a.flags)
    os.chdir(ROOT)
    from nbdev.config import get_config
    skip, force = get_config().tst_flags.split(), a.flags.split()
    files = paths or \
            [str(p) for p in sorted((ROOT/'nbs').glob('*.ipynb')) if not p.name.startswith('_')]
    try: prev = {n: t for n, _, t in json.loads(TIMES.read_text())['rows']}
    except Exception: prev = {}
    files.sort(key=lambda f: -prev.get(Path(f).name, 1e9))   # unknown first, then longest first
    t0, rows = time.time(), []
    with ThreadPoolExecutor(max(1, min(a.n_workers, len(files)))) as ex:
        futs = [ex.submit(_run, f, skip, force) for f in files]
        for fu in as_completed(futs):
            fn, ok, t, err = fu.result(); rows.append((Path(fn).name, ok, t))
            print(f"{'ok  ' if ok else 'FAIL'} {Path(fn).name} ({t:.0f} s)", flush=True)
            if not ok: print(err[-6000:], file=sys.stderr, flush=True)
    wall = time.time() - t0
    if not a.paths:
        TIMES.parent.mkdir(exist_ok=True); TIMES.write_text(json.dumps(dict(rows=rows, wall=wall, workers=a.n_workers)))
    _table(rows, wall, a.n_workers, a.flags)
    failed = [n for n, ok, _ in rows if not ok]
    if failed: print('\nnotebooks that failed: ' + ', '.join(failed), file=sys.stderr); return 1
    return 0

def _table(rows, wall, workers, flags):
    print(f"\nnotebook times ({len(rows)} notebooks, {workers} workers, {wall:.0f} s wall, flags: {flags or 'none'}):")
    for n, ok, t in sorted(rows, key=lambda r: -r[2]): print(f"  {t:6.0f} s  {n}{'' if ok else '   FAILED'}")

if __name__ == '__main__': sys.exit(main())
