"README.md is generated from nbs/index.ipynb (`make readme`, i.e. `python tools/docs.py readme`): fail when it is stale."
import difflib, importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def _docs_tool():
    spec = importlib.util.spec_from_file_location('hdbo_docs_tool', ROOT/'tools'/'docs.py')
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod

def test_readme_matches_index_notebook():
    text, files = _docs_tool().readme()
    have = (ROOT/'README.md').read_text(encoding='utf-8') if (ROOT/'README.md').exists() else ''
    diff = ''.join(difflib.unified_diff(have.splitlines(True), text.splitlines(True), 'README.md', 'from nbs/index.ipynb', n=1))
    assert have == text, f'README.md is stale: run `make readme` and commit it.\n{diff[:3000]}'
    for name, data in files.items():
        assert (ROOT/name).exists() and (ROOT/name).read_bytes() == data, f'{name} is stale: run `make readme`'

def test_readme_has_no_quarto_leftovers():
    text, _ = _docs_tool().readme()
    assert text.startswith('# ') and '#|' not in text and ':::' not in text and 'output-file:' not in text

def test_readme_links_work_on_github():
    "README.md is read on GitHub and PyPI: links go to the published site or elsewhere by URL, never to a relative page."
    import re
    text, files = _docs_tool().readme()
    rel = [t for t in re.findall(r'\]\(([^)\s]+)\)', text) if not re.match(r'\w+:|#', t) and t not in files]
    assert not rel, f'relative links in README.md (link the notebook, e.g. [msucb](10_msucb.ipynb)): {rel}'
