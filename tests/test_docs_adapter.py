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
    # a changed module re-processes every page (their doc links and source line numbers come from the package)
    (tmp_path/'digests.json').write_text(json.dumps({'nbs/a.ipynb': '1', **docs._proc_inputs()}))
    docs.forget_stale_proc({'nbs/a.ipynb': '1', **docs._proc_inputs()}, cache)
    assert sorted(p.name for p in cache.iterdir()) == ['a.ipynb']
    docs.forget_stale_proc({'nbs/a.ipynb': '1', **docs._proc_inputs(), 'hdbo_nb/': 'a module changed'}, cache)
    assert not list(cache.iterdir())
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

# ------------------------------------------------------------------ issue 35
def test_none_default_shows_no_nonetype():
    "fastcore would show `rng:NoneType=None`; the build's patch shows `rng=None` (other defaults keep their inferred type)."
    from nbdev.showdoc import show_doc
    docs._patch_fastcore()
    def f(x:float, rng=None, n=3, name='a'): "A test function."
    md = show_doc(f)._repr_markdown_()
    assert 'NoneType' not in md and 'rng=None' in md and 'n:int=3' in md and 'x:float' in md, md

def test_docstrings_with_stars_are_not_garbled():
    esc = docs.escape_docstrings
    assert esc('*r_t = f* - max_{i<=t} f(x_i), from noiseless values.*') == '*r_t = f\\* - max\\_{i<=t} f(x_i), from noiseless values.*'
    assert esc('*argmin ||M||_* by FISTA.*') == '*argmin ||M||\\_\\* by FISTA.*'
    assert esc('*N_t = N0 * t**alpha.*') == '*N_t = N0 \\* t\\*\\*alpha.*'
    # emphasis its author meant, code, math and links stay as they are
    kept = '*Wrap `g*h` usually *minimised*, see [`a_b`](u.html#a_b) and $f^*_t$.*'
    assert esc(kept) == kept
    assert esc('```python\ndef f(a, *b)\n```\n\n*plain.*') == '```python\ndef f(a, *b)\n```\n\n*plain.*'

def test_runner_logs_and_stderr_are_hidden():
    "stderr (progress bars, warnings) never shows; the runner's summary of a sweep shows on toolkit pages but not on a paper's."
    log = 'msucb-fig1: 600 runs, 600 cached, 0 run, 0 failed, 0 damaged cache files rerun, 1.2s\n'
    nb = {'cells': [{'cell_type': 'code', 'source': 'run()', 'outputs': [
        {'output_type': 'stream', 'name': 'stderr', 'text': '42%|####      | 5/12\n'},
        {'output_type': 'stream', 'name': 'stdout', 'text': log + 'result 3\n'},
        {'output_type': 'stream', 'name': 'stdout', 'text': log}]}]}
    texts = lambda here: [docs._src(o['text']) for *_, outs, _ in [c for c in docs.adapt_cells(nb, SITE, here, 'myst')] for o in outs]
    assert texts('12_x_experiments.ipynb') == ['result 3\n']
    assert texts('05_experiments.ipynb') == [log + 'result 3\n', log]

def test_figure_captions_and_alt_text():
    "The markdown line under a figure is its caption (marked for the stylesheet) and its plain text the figure's alt text."
    png = {'output_type': 'display_data', 'metadata': {}, 'data': {'image/png': 'iVBORw0KGgo=', 'text/plain': '<Figure>'}}
    nb = {'cells': [{'cell_type': 'markdown', 'source': '## Regret on $D = 20$'},
                    {'cell_type': 'code', 'source': 'plot()', 'outputs': [png]},
                    {'cell_type': 'markdown', 'source': '*Figure 1.* Simple regret $r_t$ of [MS-UCB](10_msucb.ipynb) against $\\sqrt{\\beta_t}$.\n\nMore.'},
                    {'cell_type': 'code', 'source': 'plot()', 'outputs': [png]},
                    {'cell_type': 'markdown', 'source': 'The regret falls.'},
                    {'cell_type': 'code', 'source': '#| fig-cap: "Fig. 3: the tree"\nplot()', 'outputs': [png]}]}
    cells = list(docs.adapt_cells(nb, SITE, '12_x.ipynb', 'myst', title='X'))
    alts = [c[4].get('alt') for c in cells if c[0] == 'code']
    assert alts == ['Figure 1. Simple regret r_t of MS-UCB against √β_t.', 'Figure in “Regret on D = 20”: The regret falls.',
                    'Fig. 3: the tree']
    mds = [c[1] for c in cells if c[0] == 'md']
    assert mds[1].startswith('{.figure-caption}\n*Figure 1.*') and not mds[2].startswith('{') and mds[3] == '{.figure-caption}\nFig. 3: the tree'
    assert docs.caption_of('**Fig. 2**: x') and docs.caption_of('*Left: regret; right: time.*') and not docs.caption_of('## Fig. 2')
    assert docs.caption_of('Figures are nice.') is None and docs.caption_of('The regret falls.') is None

def test_heading_anchor_only_where_the_heading_lacks_quartos_id():
    "Quarto's ids that MyST's anchor or the section's own id already give would be duplicated ids: none is added then."
    assert docs.heading_anchor('One BLAS thread') == '' and docs.heading_anchor('as_rng') == ''
    assert docs.heading_anchor('β schedules for GP-UCB') == '' and docs.heading_anchor('Speed at $D = 5000$') == ''
    assert docs.heading_anchor('GP.fit') == '<a id="gp.fit"></a>\n\n'
    assert docs.heading_anchor('$\\beta_t$ (main text)') == '<a id="beta_t-main-text"></a>\n\n'

def test_toolkit_page_titles_from_the_sidebar(tmp_path):
    (tmp_path/'sidebar.yml').write_text('website:\n  sidebar:\n    contents:\n      - index.ipynb\n      - section: T\n        contents:\n'
                                        '          - text: "Gaussian processes"\n            href: 01_gp.ipynb\n          - 02_f.ipynb\n')
    assert docs.sidebar_texts(tmp_path/'sidebar.yml') == {'01_gp.ipynb': 'Gaussian processes'}
    assert docs.sidebar_order(tmp_path/'sidebar.yml') == [(None, ['index.ipynb']), ('T', ['01_gp.ipynb', '02_f.ipynb'])]
    assert docs.page_title('gp', 'Gaussian processes') == 'Gaussian processes'
    assert docs.page_title('MS-UCB: theory check', 'Theory') == 'MS-UCB: theory check' and docs.page_title('gp', None) == 'gp'
    assert docs.default_exp(ROOT/'nbs'/'01_gp.ipynb') == 'gp' and docs.default_exp(ROOT/'nbs'/'index.ipynb') is None

def test_names_break_after_underscores_and_dots():
    assert docs._wbr('EmbeddingCore.make_embedding<a class="headerlink" href="#x_y">#</a>') == \
        'EmbeddingCore.<wbr>make_<wbr>embedding<a class="headerlink" href="#x_y">#</a>'
    assert docs._wbr('Fig. 2 &amp; a_b') == 'Fig. 2 &amp; a_<wbr>b'

def test_figures_get_their_size_and_phone_width(tmp_path):
    "The build gives each figure its size, dpi and the narrowest width at which its default-size text is 7 px on a phone."
    import base64, io
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(6, 2)); buf = io.BytesIO(); fig.savefig(buf, format='png', dpi=80); plt.close(fig)
    (tmp_path/'_images').mkdir(); (tmp_path/'_images'/'a.png').write_bytes(buf.getvalue())
    assert docs._png_facts(buf.getvalue()) == (480, 160, 80)
    (tmp_path/'p.html').write_text('<html><main><h3>a_b<a class="headerlink" href="#a">#</a></h3><img alt="x" src="_images/a.png" /></main>')
    docs.finish_pages(tmp_path)
    html = (tmp_path/'p.html').read_text()
    assert '<h3>a_<wbr>b<a' in html and f'width="480" height="160" data-dpi="80" style="--fig-min: {round(480 * 7 / (10 * 80 / 72))}px"' in html

def test_contents_mark_api_entries():
    "An entry of the page's contents is an API entry when its section is a heading followed by a signature."
    sec = lambda i, h, sig: (f'<section id="{i}">\n<span id="{i}x"></span><h3>{h}<a class="headerlink" href="#{i}" title="">#</a></h3>\n'
                             + ('<div class="highlight-python notranslate"><div class="highlight"><pre>def f()</pre></div></div>' if sig else '<p>text</p>')
                             + '</section>')
    li = lambda i, h: f'<li class="toc-h3 nav-item toc-entry"><a class="reference internal nav-link" href="#{i}">{h}</a></li>'
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        page = Path(d)/'p.html'
        page.write_text('<main>' + li('trace', 'Trace') + li('traces', 'Traces') + sec('trace', 'Trace', True) + sec('traces', 'Traces', False) + '</main>')
        docs.finish_pages(Path(d))
        html = page.read_text()
    assert 'toc-entry toc-api"><a class="reference internal nav-link" href="#trace">' in html
    assert 'toc-entry"><a class="reference internal nav-link" href="#traces">' in html

def test_search_text_of_formulas():
    assert docs.tex_text('\\sqrt{\\beta_t}\\,\\sigma_{t-1}(x) \\le \\frac{1}{t}') == '√β_t σ_t-1(x) ≤ 1/t'
    assert docs.plain_text('*Figure 2.* `GP` on [$\\mathcal{X}$](u)') == 'Figure 2. GP on X'

def test_no_repository_no_source_links(monkeypatch):
    "Source links come from settings.ini's git_url and branch; without a git_url there are none (and no repository button)."
    monkeypatch.setattr(docs, 'git_url', lambda: '')
    md = '---\n\n[source](https://github.com/x/y/blob/main/hdbo_nb/gp.py#L3){target="_blank" style="float:right"}\n\n### GP.fit\n\nbody'
    out = docs.adapt_md(md, SITE, '01_gp.ipynb', 'myst', show_doc=True)
    assert 'source' not in out and '### GP.fit' in out and docs.source_url('GP.fit') is None
    assert "'use_repository_button': False" in docs.CONF.format(title='t', repo='', has_repo=False, author='a', copyright='c')

def test_printed_tables_are_recognised():
    "A printed table keeps its columns (it scrolls in its box on a phone); prose and code-like output wrap."
    table = 'method      final regret   time\nBOO         -6.06 ± 0.55   1.2\nSOO         -1.29 ± 0.00   0.3\n'
    assert docs.is_text_table('<span></span>' + table.replace('&', '&amp;'))
    assert not docs.is_text_table('fig3_hartmann: partly (holds: beats SOO; beats IMGPO)\nsecond line\nthird line')
    assert not docs.is_text_table('a  b\n')    # one line is not a table
