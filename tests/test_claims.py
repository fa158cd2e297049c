"""The claims scorecard: every registered claim measures from the committed cache, the pages that show it are fresh,
each claim links to a section that exists, and `hdbo claims` prints the same table."""
import importlib.util, json, re
from pathlib import Path
import pytest
import hdbo_nb.claims as hc
from hdbo_nb.cli import main

ROOT = Path(__file__).resolve().parent.parent
from conftest import CACHE

@pytest.fixture(scope='module')
def results(scorecard): return scorecard

def _docs_tool():
    spec = importlib.util.spec_from_file_location('hdbo_docs_tool', ROOT/'tools'/'docs.py')
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod

def _stored_markdown(nb_name, needle):
    "The text/markdown output of the one cell of `nb_name` whose source contains `needle`."
    nb = json.loads((ROOT/'nbs'/nb_name).read_text())
    cells = [c for c in nb['cells'] if c['cell_type'] == 'code' and needle in ''.join(c['source'])]
    assert len(cells) == 1, f'{nb_name}: {len(cells)} cells contain {needle!r}'
    outs = [''.join(o['data']['text/markdown']) for o in cells[0]['outputs'] if 'text/markdown' in o.get('data', {})]
    assert outs, f'{nb_name}: the cell with {needle!r} has no stored Markdown output (execute the notebook)'
    return outs[0]

def test_every_claim_measures_from_the_cache(results):
    assert results, 'no claims registered'
    errors = {r.claim.id: r.error for r in results if r.verdict == 'error'}
    assert not errors, errors
    for r in results:
        assert r.verdict in hc.VERDICTS and r.claim.paper in hc.PAPERS and r.claim.kind in hc.KINDS
        assert r.measurement.value.strip(), f'{r.claim.id}: no measured value'
        if r.verdict != 'not testable here': assert re.search(r'\d', r.measurement.value), f'{r.claim.id}: the measured value holds no number'

def test_done_papers_register_experiments_and_theory(results):
    "BOO and MS-UCB (the papers reproduced first) register both their experiments' and their theorems' claims."
    for p in ('boo', 'msucb', 'sibo'):
        kinds = {r.claim.kind for r in results if r.claim.paper == p}
        assert {'experiment', 'theory'} <= kinds, f'{p}: claims of kinds {kinds}'

def test_each_claim_links_to_a_section_that_exists(results):
    docs = _docs_tool()
    for r in results:
        nb_name, _, anchor = r.claim.page.partition('#')
        path = ROOT/'nbs'/nb_name
        assert path.exists(), f'{r.claim.id}: no notebook {nb_name}'
        if anchor: assert anchor in docs.anchors(json.loads(path.read_text())), f'{r.claim.id}: no section #{anchor} in {nb_name}'

def test_scorecard_page_is_fresh(results):
    "The table stored in the claims notebook (the site's page) is exactly a fresh evaluation of the registry."
    assert _stored_markdown('07_claims.ipynb', 'lib.claims_markdown(results)') == hc.claims_markdown(results), \
        'nbs/07_claims.ipynb shows a stale scorecard: re-execute it'

def test_home_page_counts_are_fresh(results):
    assert _stored_markdown('index.ipynb', 'claims_counts_markdown') == hc.claims_counts_markdown(results), \
        'nbs/index.ipynb shows stale claim counts: re-execute it and run `python tools/docs.py readme`'
    assert hc.claims_counts_markdown(results) in (ROOT/'README.md').read_text().replace(
        'https://hdbo-nb.github.io/hdbo-nb/claims.html', '07_claims.ipynb'), 'README.md is stale: `python tools/docs.py readme`'

def test_cli_prints_the_table(results, capsys):
    sibo = [r for r in results if r.claim.paper == 'sibo']
    assert main(['claims', '--paper', 'sibo', '--cache', CACHE, '--markdown']) == 0
    assert capsys.readouterr().out.strip() == hc.claims_markdown(sibo).strip()
    assert main(['claims', '--paper', 'sibo', '--cache', CACHE]) == 0
    out = capsys.readouterr().out
    assert all(f'[{r.verdict}] {r.claim.where}' in out for r in sibo) and 'BOO' not in out

def test_cli_bad_input(capsys, tmp_path):
    assert main(['claims', '--paper', 'nope']) == 2 and "unknown paper 'nope'" in capsys.readouterr().err
    assert main(['claims', '--paper', 'sibo', '--cache', str(tmp_path)]) == 1   # an empty cache: measurements fail, loudly
    assert 'error' in capsys.readouterr().out

def test_a_wrong_measurement_is_reported_not_hidden(monkeypatch):
    def broken(cache_dir): raise RuntimeError('boom')
    c = hc.Claim('sibo', 'broken', 'Sec. 0', 'x', broken, '07_claims.ipynb')
    monkeypatch.setitem(hc.CLAIMS, c.id, c)
    r = next(r for r in hc.evaluate_claims('sibo', CACHE) if r.claim.id == c.id)
    assert r.verdict == 'error' and 'boom' in r.error
    assert '**error**: RuntimeError: boom' in hc.claims_markdown([r])

# ---------------------------------------------------------------- what every verdict rests on
def _no_compute(*a, **k): raise AssertionError('the scorecard computes instead of reading the cache')

def test_scorecard_reads_only_the_cache(monkeypatch, scorecard):
    """The whole scorecard evaluates from the committed cache alone: no optimiser run (a run records a trace) and no GP
    fit while it evaluates, and in seconds; measured by paper in two forked workers (as `hdbo claims` does, the workers
    inherit the guards), it is the sequential scorecard, claim by claim."""
    import time
    from hdbo_nb.core import Trace
    from hdbo_nb.gp import GP
    hc.all_claims()                                   # the paper modules import first (they may build small constants)
    monkeypatch.setattr(Trace, 'add', _no_compute); monkeypatch.setattr(GP, 'fit', _no_compute)
    t0 = time.perf_counter(); res = hc.evaluate_claims(cache_dir=CACHE, quiet=True, n_jobs=2); dt = time.perf_counter() - t0
    assert not [(r.claim.id, r.error) for r in res if r.verdict == 'error']
    assert dt < 60, f'the scorecard took {dt:.0f} s'   # about 6 s on two quiet cores; the bound leaves room for a loaded machine
    assert [r.claim.id for r in res] == [r.claim.id for r in scorecard]
    assert hc.claims_markdown(res) == hc.claims_markdown(scorecard)

def test_every_comparison_states_its_null_models_and_seeds(results):
    "Each experimental claim states where its methods stand against the null models and how its verdict takes seeds."
    bad = [r.claim.id for r in results if r.claim.kind == 'experiment' and r.verdict != 'not testable here'
           and not (r.measurement.nulls and r.measurement.seeds)]
    assert not bad, f'experimental claims without null models or seed stability: {bad}'

def test_every_measurement_names_its_free_choices(results):
    "Each experimental claim names the choices it rests on (a `Dependence`, swept or not)."
    bad = [r.claim.id for r in results if r.claim.kind == 'experiment' and r.verdict != 'not testable here'
           and not r.measurement.depends]
    assert not bad, f'experimental claims that name no free choice: {bad}'

def test_every_theory_check_can_fail(results):
    "Each theory claim that is scored names the variant on which the same check fails, and the bound's slack."
    for r in results:
        if r.claim.kind != 'theory' or r.verdict == 'not testable here': continue
        m = r.measurement
        assert m.fails_on is not None, f'{r.claim.id}: no variant on which the check fails (else: not testable here)'
        assert m.fails_on.verdict in hc.FAILING, f'{r.claim.id}: on {m.fails_on.name} the check gives {m.fails_on.verdict!r}'
        assert m.slack, f'{r.claim.id}: no slack reported'

def test_errata_and_arithmetic_are_confirmed_and_counted_apart(results):
    chk = [r for r in results if r.claim.kind in ('erratum', 'arithmetic')]
    assert chk and all(r.verdict in hc.CHECK_VERDICTS for r in chk)
    assert all(r.verdict in hc.CLAIM_VERDICTS for r in results if r.claim.kind in ('experiment', 'theory'))
    text = hc.claims_text(results)
    for p in hc.PAPERS:            # one counting rule: the terminal's header line and the home page's row agree
        rows = [r for r in results if r.claim.paper == p and r.claim.kind in ('experiment', 'theory')]
        assert f"{hc.PAPERS[p]}: {len(rows)} claims (" in text
        assert f"[{hc.PAPERS[p]}](07_claims.ipynb) | {len(rows)} |" in hc.claims_counts_markdown(results)

def test_claim_order_does_not_depend_on_import_order():
    "The scorecard lists the claims in one order, whichever paper module a process imported first."
    import subprocess, sys
    code = "import hdbo_nb.{}\nfrom hdbo_nb.claims import all_claims\nprint(' '.join(c.id for c in all_claims()))"
    outs = [subprocess.run([sys.executable, '-c', code.format(m)], capture_output=True, text=True, check=True, cwd=ROOT).stdout
            for m in ('core', 'msucb_theory', 'goucb_theory')]
    assert outs[0] == outs[1] == outs[2] and len(outs[0].split()) > 50

def test_null_rule_refutation():
    "A claimed winner that does not beat the null models is refuted only by a method that beats them and beats it."
    nr = hc.null_rule
    assert nr('partly', 'x', {'A': True, 'B': False}, winner='B', refuted_by={'A': True})[0] == 'not reproduced'
    assert nr('partly', 'x', {'A': True, 'B': False}, winner='B', refuted_by={'A': False})[0] == 'inconclusive'   # A learns, does not beat B
    assert nr('partly', 'x', {'A': False, 'C': True, 'B': False}, winner='B', refuted_by={'A': True})[0] == 'inconclusive'   # A beats B, does not learn
    assert nr('partly', 'x', {'A': True, 'B': True}, winner='B', refuted_by={'A': True}) == ('partly', 'x')   # both learn: the comparison stands
