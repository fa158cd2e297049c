"The docs adapter (tools/docs.py) on small inputs: Quarto syntax in, MyST / GitHub markdown out. No browser needed."
import importlib.util, re, types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location('hdbo_docs_tool', ROOT/'tools'/'docs.py')
docs = importlib.util.module_from_spec(spec); spec.loader.exec_module(docs)
CFG = types.SimpleNamespace(doc_host='https://example.github.io', doc_baseurl='/pkg')
SITE = docs.Site(CFG, {'00_core.ipynb': 'core.html', '01_gp.ipynb': 'gp.html', 'index.ipynb': 'index.html'},
                 {'core.html': {'problem'}, 'gp.html': {'gp', 'gp.fit'}, 'index.html': set()})

def test_cell_options():
    opts, code = docs.cell_options('#| echo: false\n#| output: asis\n#| hide\nshow_doc(f)\n#| not an option')
    assert opts == {'echo': False, 'output': 'asis', 'hide': True} and code == 'show_doc(f)\n#| not an option'

def test_pandoc_ids_match_nbdev_doc_links():
    assert docs.pandoc_id('GP.fit') == 'gp.fit' and docs.pandoc_id('Kernel.__call__') == 'kernel.__call__'
    assert docs.pandoc_id('as_rng') == 'as_rng' and docs.pandoc_id('One BLAS thread') == 'one-blas-thread'

def test_callouts():
    md = 'a\n\n::: {.callout-note}\n## Why\nbody $x$\n:::\n\n::: {.callout-warning title="Careful"}\nw\n:::\n::: {.column-margin}\nm\n:::'
    myst = docs.convert_divs(md, 'myst')
    assert ':::{admonition} Why\n:class: note\nbody $x$\n:::' in myst
    assert ':::{admonition} Careful\n:class: warning\nw\n:::' in myst and '{.column-margin}' not in myst and myst.endswith(':::\nm')
    gfm = docs.convert_divs(md, 'gfm')
    assert '> [!NOTE]\n> **Why**\n> body $x$' in gfm and '> [!WARNING]' in gfm and ':::' not in gfm
    assert docs.convert_divs(':::{note}\nMyST stays\n:::', 'myst') == ':::{note}\nMyST stays\n:::'

def test_links():
    md = '[`GP`](https://example.github.io/pkg/gp.html#gp) [`x`](https://example.github.io/pkg/core.html#_private) [s](01_gp.ipynb#gp.fit)'
    assert docs.Site.fix_links(SITE, md, '00_core.ipynb', 'myst') == '[`GP`](gp.html#gp) `x` [s](gp.html#gp.fit)'   # private: no link
    md = '[`GP.theta`](https://example.github.io/pkg/gp.html#gp.theta) [`f`](https://example.github.io/pkg/gp.html#f)'
    assert docs.Site.fix_links(SITE, md, '00_core.ipynb', 'myst') == '[`GP.theta`](gp.html#gp) [`f`](gp.html)'  # a property: its class
    assert docs.Site.fix_links(SITE, '[s](01_gp.ipynb)', 'index.ipynb', 'gfm') == '[s](https://example.github.io/pkg/gp.html)'
    assert docs.attr_links('[source](u){target="_blank" style="float:right"}', 'myst') == \
        '<a href="u" target="_blank" style="float:right">source</a>'
    assert docs.attr_links('[source](u){target="_blank"}', 'gfm') == '[source](u)'

def test_show_doc_markdown():
    md = '---\n\n### GP.fit\n\n```python\ndef fit(X, # see [`GP`](https://example.github.io/pkg/gp.html#gp)\n)\n```\n\n| Returns | $C h\\^{\\nu}$ |'
    out = docs.adapt_md(md, SITE, '01_gp.ipynb', 'myst', show_doc=True)
    assert out.startswith('<a href="https://github.com/') and '>source</a>\n\n<a id="gp.fit"></a>\n\n### GP.fit' in out and '# see `GP`\n' in out and '$C h^{\\nu}$' in out

def test_cells_to_gfm():
    nb = {'cells': [
        {'cell_type': 'raw', 'source': '---\ntitle: demo\ndescription: one line\noutput-file: demo.html\n---\n'},
        {'cell_type': 'markdown', 'source': '## Use\n::: {.callout-tip}\nok\n:::'},
        {'cell_type': 'code', 'source': '#| echo: false\nprint(1)', 'outputs': [{'output_type': 'stream', 'name': 'stdout', 'text': '1\n'}]},
        {'cell_type': 'code', 'source': '#| include: false\nsecret()', 'outputs': []},
        {'cell_type': 'code', 'source': '1 + 1', 'outputs': [{'output_type': 'execute_result', 'data': {'text/plain': '2'}}]}]}
    text, files = docs.to_gfm(nb, SITE, 'index.ipynb', 'x')
    assert text == ('# demo\n\n> one line\n\n## Use\n> [!TIP]\n> ok\n\n```\n1\n```\n\n```python\n1 + 1\n```\n\n```\n2\n```\n')
    assert files == {}

def test_display_math_inside_a_paragraph():
    md = 'so\n$$a = b\n+ c$$\nand\n```sh\necho $$\nx $$\n```\n$$\nx\n$$'
    assert docs.join_display_math(md) == 'so\n$$a = b + c$$\nand\n```sh\necho $$\nx $$\n```\n$$ x $$'

def test_source_link_for_methods_attached_after_the_class():
    "nbdev's index knows only methods in the class body or @patch-ed: the adapter links the others from the object."
    url = docs.source_url('GP.fit')
    import inspect, hdbo_nb.gp as g
    assert url.endswith(f"/blob/main/hdbo_nb/gp.py#L{inspect.getsourcelines(g.GP.fit)[1]}")
    assert docs.source_url('GP.no_such_method') is None and docs.source_url('NoSuchClass.fit') is None
    out = docs.add_source_link('---\n\n### GP.fit\n\nbody')
    assert out.startswith('---\n') and out.index('[source](' + url + ')') < out.index('### GP.fit')
    kept = '---\n\n[source](u){target="_blank"}\n\n### GP.fit\n'
    assert docs.add_source_link(kept) == kept

def test_pages_for_notebooks_the_sidebar_does_not_list(tmp_path):
    "Every notebook gets a page: one missing from sidebar.yml joins its numbered siblings; one listed but gone is skipped."
    (tmp_path/'sidebar.yml').write_text('website:\n  sidebar:\n    contents:\n      - index.ipynb\n      - section: Toolkit\n'
        '        contents: [00_core.ipynb, 06a_x.ipynb]\n      - section: P\n        contents: [10_p.ipynb, 12_p_exp.ipynb, 13_gone.ipynb]\n')
    said = []
    groups = docs.page_groups(tmp_path/'sidebar.yml', ['00_core.ipynb', '06a_x.ipynb', '06d_y.ipynb', '10_p.ipynb', '11_p_theory.ipynb',
                                                       '12_p_exp.ipynb', '90_other.ipynb', 'index.ipynb'], said.append)
    assert groups == [(None, ['index.ipynb']), ('Toolkit', ['00_core.ipynb', '06a_x.ipynb', '06d_y.ipynb']),
                      ('P', ['10_p.ipynb', '11_p_theory.ipynb', '12_p_exp.ipynb']), ('More', ['90_other.ipynb'])]
    assert len(said) == 4 and '13_gone.ipynb' in said[0] and all('not in nbs/sidebar.yml' in s for s in said[1:])
    assert docs.notebooks(ROOT/'nbs')[:3] == ['00_core.ipynb', '00a_registry.ipynb', '01_gp.ipynb'] and 'index.ipynb' in docs.notebooks(ROOT/'nbs')

def test_no_cell_makes_nbdev_warn():
    """While rendering, nbdev runs the cells that export, import or show_doc; a cell mixing imports with other code makes it
    warn ("Found cells containing imports and other code") and run that code at every docs build. Checked in every notebook
    with nbdev's own rule (the build only sees the notebooks that changed since its last run)."""
    import warnings
    from nbdev.process import NBProcessor
    from nbdev.processors import _do_eval
    bad = []
    for nb in docs.notebooks(ROOT/'nbs'):
        for cell in NBProcessor(ROOT/'nbs'/nb).nb.cells:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                _do_eval(cell)
            if any('imports and other code' in str(x.message) for x in w):
                bad.append(f'{nb} cell {cell.idx_}: ' + cell.source.splitlines()[0][:60])
    assert not bad, 'cells with imports and other code (put the imports in a cell of their own):\n' + '\n'.join(bad)

def test_site_tests_cannot_skip_in_ci():
    """Without Chromium the browser tests skip, unless HDBO_REQUIRE_BROWSER=1 (which `.ci/run` sets): then they fail."""
    import os, subprocess, sys
    assert re.search(r'^export HDBO_REQUIRE_BROWSER=1', (ROOT/'.ci'/'run').read_text(), re.M)
    env = dict(os.environ, HDBO_CHROMIUM=str(ROOT/'no-such-chromium'))
    run = lambda **kw: subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_docs_site.py',
                                       '-k', 'guard_sees_outside'], cwd=ROOT, env=dict(env, **kw), capture_output=True, text=True)
    r = run(HDBO_REQUIRE_BROWSER='0')
    assert r.returncode == 0 and '1 skipped' in r.stdout, r.stdout[-500:]
    r = run(HDBO_REQUIRE_BROWSER='1')
    assert r.returncode != 0 and 'HDBO_REQUIRE_BROWSER=1 but Chromium is missing' in r.stdout + r.stderr, r.stdout[-500:]

def test_a_notebook_saved_during_a_build_is_processed_again(tmp_path, monkeypatch):
    "nbdev's cache goes by modification times; the build also compares contents, so no page stays stale."
    import json
    monkeypatch.setattr(docs, 'PROC_DIGESTS', tmp_path/'digests.json')
    (tmp_path/'digests.json').write_text(json.dumps({'nbs/a.ipynb': '1', 'nbs/b.ipynb': '2'}))
    cache = tmp_path/'_proc'; cache.mkdir()
    for n in 'abc': (cache/f'{n}.ipynb').write_text('{}')
    docs.forget_stale_proc({'nbs/a.ipynb': '1', 'nbs/b.ipynb': 'changed', 'nbs/c.ipynb': 'unknown'}, cache)
    assert sorted(p.name for p in cache.iterdir()) == ['a.ipynb']
    now = docs.notebook_digests()
    assert docs.fingerprint(now) == docs.fingerprint() != docs.fingerprint(dict(now, **{'nbs/index.ipynb': 'other'}))

def test_every_public_name_renders_with_show_doc():
    """nbdev renders an entry for every exported name with show_doc while it builds the site; one that raises (fastcore's
    docments fails, e.g., on a numpy-array default) stops Quarto's nbdev_docs (the offline build works around that
    comparison, and the entry then prints the whole array). Checked here for every module, without a build."""
    import importlib, inspect, pkgutil, hdbo_nb
    from nbdev.showdoc import show_doc
    bad, n = [], 0
    for mi in pkgutil.iter_modules(hdbo_nb.__path__):
        mod = importlib.import_module(f'hdbo_nb.{mi.name}')
        for name in getattr(mod, '__all__', []):
            o = getattr(mod, name, None)
            if not (inspect.isfunction(o) or inspect.isclass(o)) or getattr(o, '__module__', None) != mod.__name__: continue
            objs = [(name, o)] + [(f'{name}.{k}', v) for k, v in vars(o).items() if inspect.isclass(o) and not k.startswith('_')
                                  and inspect.isfunction(getattr(v, '__func__', v))]
            for qual, obj in objs:
                n += 1
                try: show_doc(getattr(obj, '__func__', obj), name=qual)
                except Exception as e: bad.append(f'{mod.__name__}.{qual}: {type(e).__name__}: {str(e)[:80]}')
    assert n > 400, n
    assert not bad, 'show_doc fails (nbdev_docs would stop) for:\n' + '\n'.join(bad)
