"""The claims scorecard: every registered claim measures from the committed cache, the pages that show it are fresh,
each claim links to a section that exists, and `hdbo claims` prints the same table."""
import importlib.util, json, re
from pathlib import Path
import pytest
import hdbo_nb.claims as hc
from hdbo_nb.cli import main

ROOT = Path(__file__).resolve().parent.parent
CACHE = str(ROOT/'results')

@pytest.fixture(scope='module')
def results(): return hc.evaluate_claims(cache_dir=CACHE)

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
