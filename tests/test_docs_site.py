"""The documentation site in a real browser: headless Chromium driven by Playwright over a local http server.

Builds the site with the offline engine (`tools/docs.py build --engine offline`) unless `_docs/` already holds an
offline build of the current notebooks, then checks every page: it loads, internal links and anchors resolve,
images load, math typesets, no raw Quarto syntax shows, nothing is requested from outside the machine, and search
finds the papers' pages; figures keep their aspect ratio and code does not scroll sideways at a desktop and a phone
width; the API reference has an entry for every public name. Screenshots go to test-artifacts/. Skipped only when
Chromium or Playwright is missing, and never when HDBO_REQUIRE_BROWSER=1 (`.ci/run` sets it): then those fail.
HDBO_CHROMIUM names another Chromium binary (a path that does not exist counts as missing).
"""
import functools, http.server, json, os, re, shutil, subprocess, sys, tempfile, threading, time
from collections import deque
from pathlib import Path
from urllib.parse import quote, unquote, urldefrag, urlparse
import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT/'_docs'
ARTIFACTS = ROOT/'test-artifacts'
CHROMIUM = ((os.environ['HDBO_CHROMIUM'] if Path(os.environ['HDBO_CHROMIUM']).is_file() else None) if os.environ.get('HDBO_CHROMIUM')
            else shutil.which('chromium') or ('/usr/bin/chromium' if Path('/usr/bin/chromium').exists() else None))
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync']
LOCAL_HOSTS = {'127.0.0.1', 'localhost'}
# A paper's algorithm name and its notebook: once the notebook exists, searching the name must find its page.
PAPERS = {'BOO': '50_boo.ipynb', 'MS-UCB': '10_msucb.ipynb', 'SI-BO': '20_sibo.ipynb',
          'Chaining-UCB': '30_chaining.ipynb', 'GO-UCB': '40_goucb.ipynb'}

try: from playwright.sync_api import sync_playwright
except ImportError: sync_playwright = None
if os.environ.get('HDBO_REQUIRE_BROWSER') == '1' and (CHROMIUM is None or sync_playwright is None):   # CI sets it: no silent skips
    pytest.fail('HDBO_REQUIRE_BROWSER=1 but ' + ('Chromium' if CHROMIUM is None else 'playwright') + ' is missing', pytrace=False)
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason='needs Chromium (Debian: apt-get install chromium); .ci/run installs it'),
              pytest.mark.skipif(sync_playwright is None, reason='needs playwright (pip install -e ".[docs]")')]

def _docs_tool():
    import importlib.util
    spec = importlib.util.spec_from_file_location('hdbo_docs_tool', ROOT/'tools'/'docs.py')
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod

@pytest.fixture(scope='module')
def site():
    "The built site's manifest; rebuilds unless _docs/ is an offline build of exactly the current inputs."
    stamp = SITE/'.hdbo-docs.json'
    info = json.loads(stamp.read_text()) if stamp.exists() else {}
    if info.get('engine') != 'offline' or info.get('fingerprint') != _docs_tool().fingerprint():
        t0 = time.time()
        subprocess.run([sys.executable, str(ROOT/'tools'/'docs.py'), 'build', '--engine', 'offline'], cwd=ROOT, check=True)
        print(f'built the site in {time.time() - t0:.1f} s')
        info = json.loads(stamp.read_text())
    return info

@pytest.fixture(scope='module')
def server(site):
    "Serve _docs/ on 127.0.0.1 (a free port) from a throwaway thread."
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f'http://127.0.0.1:{httpd.server_address[1]}/'
    httpd.shutdown(); httpd.server_close()

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass

@pytest.fixture(scope='module')
def browser():
    "A fresh Chromium profile; every request outside this machine is recorded and aborted."
    outside = []
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
                                                   viewport={'width': 1280, 'height': 900})
        def guard(route):
            u = urlparse(route.request.url)
            if u.scheme in ('file', 'data', 'blob', 'about') or u.hostname in LOCAL_HOSTS: route.continue_()
            else: outside.append(route.request.url); route.abort()
        ctx.set_default_navigation_timeout(120_000); ctx.set_default_timeout(60_000)   # a shared, busy machine is slow, not broken
        ctx.route('**/*', guard)
        ctx.outside = outside
        ctx.failed = []    # local requests (scripts, fonts, figures) that the server could not satisfy
        ctx.on('response', lambda r: ctx.failed.append((r.url, r.status)) if r.status >= 400 and urlparse(r.url).hostname in LOCAL_HOSTS else None)
        yield ctx
        ctx.close()

def _open(ctx, url):
    page = ctx.new_page()
    resp = page.goto(url, wait_until='load')
    return page, resp

def _wait_math(page):
    "Wait until MathJax (loaded from _static/mathjax on pages with math) has typeset the page."
    page.evaluate("async () => { if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise; }")

RAW = [(re.compile(r'#\|'), '`#|` cell option'), (re.compile(r'^\s*:::', re.M), '`:::` fence'),
       (re.compile(r'^\s*output-file\s*:|^---\s*\n\s*(title|description)\s*:', re.M), 'front matter'),
       (re.compile(r'\{\s*\.callout-|\{target="'), 'Quarto attributes')]

@pytest.fixture(scope='module')
def crawl(site, server, browser):
    "Visit every page reachable from the home page; collect per-page facts."
    pages, links, queue = {}, [], deque([server + 'index.html'])
    seen = set(queue)
    while queue:
        url = queue.popleft()
        if not url.endswith('.html'):                      # a figure or file: does it exist?
            pages[url] = {'status': browser.request.head(url).status}; continue
        page, resp = _open(browser, url)
        facts = {'status': resp.status if resp else None}
        if facts['status'] == 200:
            _wait_math(page)
            facts.update(page.evaluate("""async () => { const BLOCKS = """ + BLOCKS_JS + """;
                const imgs = [...document.images];
                imgs.forEach(i => i.loading = 'eager');
                await Promise.all(imgs.map(i => i.decode().catch(() => null)));
                const main = document.querySelector('main, article, .bd-article') || document.body;
                return {
                  ids: [...document.querySelectorAll('[id]')].map(e => e.id).concat([...document.querySelectorAll('a[name]')].map(e => e.name)),
                  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
                  images: imgs.map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0, w: i.clientWidth, h: i.clientHeight, nw: i.naturalWidth, nh: i.naturalHeight})),
                  math: document.querySelectorAll('mjx-container').length,
                  sig_scroll: [...document.querySelectorAll('.highlight-python pre')].filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 2).length,
                  blocks: BLOCKS(),
                  toc_cut: (sb => sb ? [...sb.querySelectorAll('nav a')].filter(a => a.getBoundingClientRect().right > sb.getBoundingClientRect().right + 1)
                                       .map(a => a.textContent.trim()) : [])(document.querySelector('.bd-sidebar-secondary')),
                  resources: performance.getEntriesByType('resource').map(e => e.name),
                  toc: [...document.querySelectorAll('#pst-page-toc-nav a')].map(a => a.getAttribute('href')),
                  api: [...document.querySelectorAll('.bd-article section > h3')].filter(h => /^[A-Za-z_][\\w.]*$/.test(h.firstChild.textContent.trim()))
                         .map(h => h.parentElement.id),
                  code_font: [...document.querySelectorAll('.bd-article code')].filter(c => !c.closest('a, pre')).map(c => c.textContent.trim()),
                  math_errors: document.querySelectorAll('mjx-merror, [data-mjx-error]').length,
                  text: main.innerText,
                };}"""))
            for href in facts['links']:
                target, _ = urldefrag(href)
                if not target.startswith(server): continue
                links.append((url, href))
                if target not in seen: seen.add(target); queue.append(target)
        pages[url] = facts
        page.close()
    return pages, links

BLOCKS_JS = """() => {   // visible code (cell inputs, markdown code, API signatures) and outputs, and which scroll sideways
    const all = [...document.querySelectorAll('.bd-article pre')].filter(e => e.offsetParent !== null);
    const kind = e => e.closest('.cell_output') ? 'output' : 'code';
    const scrolls = e => e.scrollWidth > e.clientWidth + 2;
    return {code: all.filter(e => kind(e) == 'code').length, output: all.filter(e => kind(e) == 'output').length,
            scrolling: all.filter(scrolls).map(e => kind(e) + ': ' + e.innerText.split('\\n').reduce((a, b) => b.length > a.length ? b : a, '').slice(0, 80))};
}"""

@pytest.fixture(scope='module')
def phone(site, server, browser):
    "Every page of the site at a phone's width (390 px): its figures and its code blocks."
    page, facts = browser.new_page(), {}
    page.set_viewport_size({'width': 390, 'height': 844})
    for url in _pages_of(site, server).values():
        page.goto(url, wait_until='load')
        facts[url] = page.evaluate("""async () => { const imgs = [...document.images]; imgs.forEach(i => i.loading = 'eager');
            await Promise.all(imgs.map(i => i.decode().catch(() => null)));
            return {images: imgs.map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0, w: i.clientWidth, h: i.clientHeight,
                                            nw: i.naturalWidth, nh: i.naturalHeight})),
                    blocks: (""" + BLOCKS_JS + """)()}; }""")
    page.close()
    return facts

def _pages_of(site, server): return {p['notebook']: server + p['page'] for p in site['pages']}

def test_every_notebook_has_a_page(site, server, crawl):
    pages, _ = crawl
    nbs = sorted(str(p.relative_to(ROOT/'nbs')) for p in (ROOT/'nbs').rglob('*.ipynb')
                 if not any(s.startswith(('.', '_')) for s in p.relative_to(ROOT/'nbs').parts))
    built = _pages_of(site, server)
    assert sorted(built) == nbs, 'notebooks in nbs/ without a page (or pages without a notebook)'
    missing = [u for u in built.values() if u not in pages]
    assert not missing, f'pages not reachable by links from the home page: {missing}'

def test_pages_load(crawl):
    pages, _ = crawl
    bad = {u: f['status'] for u, f in pages.items() if f['status'] != 200}
    assert not bad, f'pages that did not load: {bad}'

def test_internal_links_and_anchors_resolve(crawl):
    pages, links = crawl
    broken = []
    for src, href in links:
        target, frag = urldefrag(href)
        f = pages.get(target)
        if f is None or f['status'] != 200: broken.append((src, href, 'page missing'))
        elif frag and 'ids' in f and frag not in f['ids']: broken.append((src, href, 'no such anchor'))
    assert not broken, 'broken internal links:\n' + '\n'.join(map(str, broken[:30]))

def test_images_load(crawl):
    pages, _ = crawl
    bad = [(u, i['src']) for u, f in pages.items() for i in f.get('images', []) if not i['ok']]
    assert not bad, f'images that did not load: {bad}'
    assert sum(len(f.get('images', [])) for f in pages.values()) > 0, 'no figures anywhere on the site'

def test_math_typesets(site, server, crawl):
    pages, _ = crawl
    for nb, url in _pages_of(site, server).items():
        f = pages[url]
        assert f['math_errors'] == 0, f'{url}: {f["math_errors"]} MathJax errors'
        if next(p for p in site['pages'] if p['notebook'] == nb)['math']:
            assert f['math'] > 0, f'{url}: the notebook has LaTeX but nothing was typeset'

def test_no_raw_quarto_syntax(crawl):
    pages, _ = crawl
    leaks = [(u, what, m.group(0)) for u, f in pages.items() if 'text' in f
             for rx, what in RAW for m in [rx.search(f['text'])] if m]
    assert not leaks, f'raw Quarto syntax in the rendered text: {leaks}'

def test_guard_sees_outside_requests(browser):
    "The request guard itself works: a page asking another machine for an image is caught (and the image blocked)."
    n = len(browser.outside)
    page = browser.new_page()
    page.set_content('<img src="https://example.com/probe.png">'); page.wait_for_timeout(300)
    caught = browser.outside[n:]; del browser.outside[n:]; page.close()
    assert caught == ['https://example.com/probe.png']

def test_nothing_leaves_the_machine(crawl, browser):
    assert not browser.outside, f'requests to other machines: {sorted(set(browser.outside))[:20]}'

def _search(ctx, server, term):
    page, _ = _open(ctx, server + 'search.html?q=' + quote(term))
    page.wait_for_function("() => /Search finished|found \\d+ page/i.test(document.body.innerText)", timeout=30_000)
    hrefs = page.eval_on_selector_all('#search-results a[href]', 'els => els.map(e => e.href)')
    page.close()
    return [urldefrag(h)[0] for h in hrefs]

def test_search_finds_core(site, server, browser):
    assert _pages_of(site, server)['00_core.ipynb'] in _search(browser, server, 'Trace')

@pytest.mark.parametrize('term,nb', [pytest.param(t, nb, marks=pytest.mark.skipif(
    not (ROOT/'nbs'/nb).exists(), reason=f'nbs/{nb} is not written yet')) for t, nb in PAPERS.items()])
def test_search_finds_paper(site, server, browser, term, nb):
    assert _pages_of(site, server)[nb] in _search(browser, server, term), f'searching {term!r} did not find {nb}'

def test_screenshots(site, server, browser):
    "Home page, one paper page (the first that exists; core until then) and a figure, for a person to look at."
    ARTIFACTS.mkdir(exist_ok=True)
    urls = _pages_of(site, server)
    paper = next((nb for nb in PAPERS.values() if nb in urls), '00_core.ipynb')
    shots = {'home': urls['index.ipynb'], 'paper-' + Path(paper).stem: urls[paper]}
    for name, url in shots.items():
        page, _ = _open(browser, url); _wait_math(page)
        page.screenshot(path=str(ARTIFACTS/f'docs-{name}.png'))
        page.close()
    # the first figure of a paper's notebooks (BOO's theory/experiment pages count), else of any page
    for nb in sorted(urls, key=lambda nb: (not any(nb.startswith(p[:2]) for p in PAPERS.values()), nb)):
        page, _ = _open(browser, urls[nb]); _wait_math(page)
        if page.locator('main img').count():
            page.locator('main img').first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS/'docs-figure.png')); shots['figure'] = urls[nb]
            page.close(); break
        page.close()
    for name in shots: assert (ARTIFACTS/f'docs-{name}.png').stat().st_size > 10_000, name

def test_claims_page_shows_the_scorecard(site, server, browser):
    """The scorecard page renders one table row per claim of the notebook's stored table (which tests/test_claims.py
    checks against a fresh evaluation), with its verdict and a link to its section."""
    nb = json.loads((ROOT/'nbs'/'07_claims.ipynb').read_text())
    stored = ''.join(next(o['data']['text/markdown'] for c in nb['cells'] if 'lib.claims_markdown(results)' in ''.join(c['source'])
                          for o in c['outputs'] if 'text/markdown' in o.get('data', {})))
    expected = [(re.search(r'\]\(([^)#]+)', l)[1], re.search(r'\*\*([^*]+)\*\*', l.rsplit(' | ', 1)[-1])[1])
                for l in stored.splitlines() if l.startswith('| [')]
    assert expected, 'no claims in the stored scorecard'
    page, _ = _open(browser, _pages_of(site, server)['07_claims.ipynb'])
    rows = page.evaluate("""() => [...document.querySelectorAll('main table tbody tr, article table tbody tr')]
        .filter(tr => tr.cells.length === 4)
        .map(tr => ({verdict: tr.cells[3].innerText, link: tr.cells[0].querySelector('a') ? tr.cells[0].querySelector('a').href : ''}))""")
    page.close()
    rows = rows[-len(expected):]   # the example table above the scorecard comes first
    assert len(rows) == len(expected), f'{len(rows)} rows on the page, {len(expected)} claims in the notebook'
    for row, (nb_link, verdict) in zip(rows, expected):
        assert row['verdict'].startswith(verdict), (nb_link, row['verdict'], verdict)
        assert row['link'].split('#')[0].endswith(re.sub(r'^\d+[a-z]?_', '', nb_link).replace('.ipynb', '.html')), (nb_link, row['link'])

def _distorted(images):
    "Images whose rendered aspect ratio is more than 2 % off their natural one."
    return [(i['src'].rsplit('/', 1)[-1], round(i['w'] / i['h'] / (i['nw'] / i['nh']), 2)) for i in images
            if i.get('ok') and i['h'] and i['nh'] and abs(i['w'] / i['h'] / (i['nw'] / i['nh']) - 1) > 0.02]

def test_figures_keep_their_aspect_ratio(crawl, phone):
    "At a desktop width (the crawl's 1280 px) and a phone width, no figure is squashed or stretched."
    pages, _ = crawl
    assert sum(len(f.get('images', [])) for f in phone.values()) > 0, 'no figures at the phone width'
    for width, facts in (('1280', pages), ('390', phone)):
        bad = {u: d for u, f in facts.items() if (d := _distorted(f.get('images', [])))}
        assert not bad, f'distorted figures at {width} px: {bad}'

def test_code_and_outputs_do_not_scroll_sideways(crawl, phone):
    "Code cells, outputs and signatures wrap at the column's width: nothing is hidden to the right, on a desktop or a phone."
    pages, _ = crawl
    for width, facts in (('1280', pages), ('390', phone)):
        blocks = [f['blocks'] for f in facts.values() if 'blocks' in f]
        assert sum(b['code'] for b in blocks) > 100 and sum(b['output'] for b in blocks) > 50, 'code blocks not found'
        bad = {u: f['blocks']['scrolling'] for u, f in facts.items() if f.get('blocks', {}).get('scrolling')}
        assert not bad, f'{sum(map(len, bad.values()))} code/output blocks scroll sideways at {width} px: {bad}'

def test_notebook_mentions_are_links(site, crawl):
    "A notebook named in the text (`51_boo_theory`, `01_gp.ipynb`) is a link to its page, not code font."
    pages, _ = crawl
    names = {n for p in site['pages'] for n in (p['notebook'], p['notebook'][:-len('.ipynb')])}
    bad = {u: hits for u, f in pages.items() if (hits := sorted({c for c in f.get('code_font', []) if c in names}))}
    assert not bad, f'notebooks named in code font without a link: {bad}'

def test_no_links_to_private_names(crawl):
    "nbdev links every name it indexes; a private one (`_maximize_acq`, `GP._fit`) has no entry and must not be a link."
    _, links = crawl
    private = re.compile(r'(^|\.)_(?!_)')
    bad = sorted({(src.rsplit('/', 1)[-1], href.rsplit('/', 1)[-1]) for src, href in links
                  if private.search(urldefrag(href)[1])})
    assert not bad, f'links to private names: {bad[:20]}'

def test_api_entries_are_in_the_page_contents(site, server, browser):
    "show_doc entries are sections: the page's contents list names them (as Quarto's build does)."
    page, _ = _open(browser, _pages_of(site, server)['01_gp.ipynb'])
    toc = page.evaluate("() => [...document.querySelectorAll('#pst-page-toc-nav a')].map(a => a.textContent.trim())")
    page.close()
    assert {'Matern', 'GP.fit', 'GP.predict'} <= set(toc), toc[:20]

def test_sidebar_groups_toolkit_baselines_and_papers(site, server, browser):
    page, _ = _open(browser, server + 'index.html')
    captions = page.evaluate("() => [...document.querySelectorAll('.bd-sidebar-primary .caption-text')].map(e => e.textContent.trim())")
    page.close()
    assert captions[:2] == ['Toolkit', 'Baselines'], captions
    for name in PAPERS: assert any(c.startswith(name + ' (') for c in captions), (name, captions)

def test_one_search_field(site, server, browser):
    "One search field or button in view at a desktop and a phone width (the theme's empty top bar with a second one is hidden)."
    page, _ = _open(browser, server + 'index.html')
    count = "() => [...document.querySelectorAll('.search-button-field, .search-button__button')].filter(e => e.getBoundingClientRect().height > 0).length"
    wide = page.evaluate(count)
    page.set_viewport_size({'width': 390, 'height': 844}); page.wait_for_timeout(200)
    narrow = page.evaluate(count)
    page.close()
    assert wide == 1 and narrow == 1, (wide, narrow)

def test_sidebar_toggles_work(site, server, browser):
    """The sidebar buttons a reader sees: on a phone they open the site's navigation and the page's contents as panels, on a
    desktop the first one folds the navigation away."""
    page, _ = _open(browser, server + 'gp.html')
    page.set_viewport_size({'width': 390, 'height': 844})
    visible = lambda sel: page.locator(sel + ':visible')
    for toggle, modal in (('.primary-toggle', '#pst-primary-sidebar-modal'), ('.secondary-toggle', '#pst-secondary-sidebar-modal')):
        assert visible(toggle).count() == 1, toggle
        visible(toggle).first.click()
        page.wait_for_function(f"() => document.querySelector('{modal}').open")
        assert page.locator(modal + ' a:visible').count() > 5, modal
        page.keyboard.press('Escape')
        page.wait_for_function(f"() => !document.querySelector('{modal}').open")
    page.set_viewport_size({'width': 1280, 'height': 900})
    assert page.locator('.bd-sidebar-primary a:visible').count() > 10
    visible('.primary-toggle').first.click()
    page.wait_for_function("() => document.querySelector('#pst-primary-sidebar').classList.contains('pst-sidebar-hidden')")
    page.close()

def test_api_signatures_wrap(crawl):
    "API signatures (show_doc) wrap in the text column instead of scrolling sideways."
    pages, _ = crawl
    bad = {u: f['sig_scroll'] for u, f in pages.items() if f.get('sig_scroll')}
    assert not bad, f'signatures that scroll sideways at 1280 px: {bad}'

def test_every_asset_a_page_requests_exists(crawl, browser):
    "Scripts, styles, fonts and figures requested while the pages load and typeset all exist (the site ships only those)."
    assert not browser.failed, f'missing assets: {sorted(set(browser.failed))[:20]}'

def _public_methods(mod):
    "(Class, name) for the public methods each exported class of `mod` defines itself (properties are in the class's entry)."
    import inspect
    for cname in getattr(mod, '__all__', []):
        cls = getattr(mod, cname, None)
        if not inspect.isclass(cls) or cls.__module__ != mod.__name__: continue
        for k, v in vars(cls).items():
            f = v.__func__ if isinstance(v, (classmethod, staticmethod)) else v
            if not k.startswith('_') and inspect.isfunction(f): yield cname, k

def _public_names(mod):
    "The functions and classes `mod` exports (`__all__`) and defines itself."
    import inspect
    for name in getattr(mod, '__all__', []):
        o = getattr(mod, name, None)
        if (inspect.isfunction(o) or inspect.isclass(o)) and getattr(o, '__module__', None) == mod.__name__: yield name

def test_every_public_name_has_an_entry(site, server, crawl):
    "Each exported function and class, and each public method of an exported class, has an API entry (a linkable heading) on its module's page."
    import importlib
    pages, _ = crawl
    missing, n = [], 0
    for nb, url in _pages_of(site, server).items():
        m = re.search(r'#\| default_exp ([\w.]+)', (ROOT/'nbs'/nb).read_text().replace('\\n', '\n'))
        if not m: continue
        ids, mod = set(pages[url].get('ids', [])), importlib.import_module('hdbo_nb.' + m[1])
        names = list(_public_names(mod)) + [f'{c}.{k}' for c, k in _public_methods(mod)]
        n += len(names); missing += [f'{nb}: {x}' for x in names if x.lower() not in ids]
    assert n > 300, f'only {n} public names found'
    assert not missing, f'{len(missing)} public names without an entry: {missing[:20]}'

def test_search_snippets_show_page_text(site, server, browser):
    "Result snippets quote the page's article, not the theme's buttons or the list of the page's sections."
    page, _ = _open(browser, server + 'search.html?q=' + quote('regret'))
    page.wait_for_function("() => document.querySelectorAll('#search-results li p.context').length >= 3", timeout=60_000)
    snippets = page.eval_on_selector_all('#search-results li p.context', 'els => els.map(e => e.innerText)')
    page.close()
    theme = re.compile(r'System Settings|Light Dark|On this page|Skip to main content')
    assert not [s for s in snippets if theme.search(s)], snippets[:3]
    toc_like = [s for s in snippets if 'claim_' in s]       # section lists run the exported names together
    assert len(toc_like) <= len(snippets) // 4, toc_like[:3]

def test_figures_at_display_resolution(crawl):
    "Figures are stored at most 2.5x the width they are shown at on a 1280 px screen (2x for sharp screens), under 300 kB."
    pages, _ = crawl
    big = [(i['src'].rsplit('/', 1)[-1], i['nw'], i['w']) for f in pages.values() for i in f.get('images', [])
           if i.get('ok') and i['w'] and i['nw'] > 2.5 * i['w']]
    assert not big, f'figures stored far above their display width: {big[:10]}'
    heavy = [p.name for p in (SITE/'_images').glob('*.png') if p.stat().st_size > 300_000]
    assert not heavy, f'figures over 300 kB: {heavy}'

def test_build_is_quiet(site):
    """`make docs` prints which engine it uses and a one-line summary: anything else (a warning of nbdev's while it processes
    the notebooks, a notebook missing from the sidebar, a doc link without its entry) is a defect to fix."""
    assert not site['nbdev_output'], 'nbdev printed while processing the notebooks:\n' + '\n'.join(site['nbdev_output'][:30])
    assert len(site['printed']) == 2, site['printed']

def test_site_ships_only_what_pages_use(site, crawl, browser):
    """No source maps or build-time catalogues; MathJax pruned to the bundle the pages load (with what it loads on demand):
    the theme and MathJax together stay far below the 24 MB of the full MathJax distribution."""
    static = SITE/'_static'
    assert not list(static.rglob('*.map')) and not (static/'locales').exists() and not (static/'scripts'/'fontawesome.js').exists()
    mb = lambda d: sum(f.stat().st_size for f in d.rglob('*') if f.is_file()) / 1e6
    assert (static/'mathjax'/'tex-chtml.js').exists() and not (static/'mathjax'/'tex-svg-full.js').exists()
    assert mb(static/'mathjax') < 10 and mb(static) < 13, (mb(static/'mathjax'), mb(static))

def test_page_weight(crawl, server):
    """What a first visit to a page downloads besides its own text and figures (theme, scripts, fonts, MathJax) stays under
    2.5 MB: the theme's 1.6 MB Font Awesome script is not shipped (its icons come from the webfonts), MathJax loads one bundle."""
    pages, _ = crawl
    size = lambda u: (SITE/unquote(urlparse(u).path).lstrip('/')).stat().st_size if (SITE/unquote(urlparse(u).path).lstrip('/')).is_file() else 0
    shared = {u: sum(size(r) for r in set(f['resources']) if '/_static/' in r)
              for u, f in pages.items() if f.get('resources')}
    assert len(shared) > 20 and max(shared.values()) > 0.5e6, 'resources not recorded'
    heavy = {u: round(b / 1e6, 2) for u, b in shared.items() if b > 2.5e6}
    assert not heavy, f'pages loading more than 2.5 MB of shared assets: {heavy}'

def test_api_entries_are_in_the_contents_of_every_page(crawl):
    "Every API entry (a heading naming a function, class or method) is listed in its page's contents, on every page."
    pages, _ = crawl
    assert sum(len(f.get('api', [])) for f in pages.values()) > 400, 'API entries not found'
    bad = {u: missing[:5] for u, f in pages.items() if (missing := [i for i in f.get('api', []) if '#' + i not in f['toc']])}
    assert not bad, f'API entries missing from the page contents: {bad}'

def test_page_contents_fit_their_column(crawl):
    "At 1280 px the page's contents list (its sections and API entries) fits its column: no entry is cut at the right."
    pages, _ = crawl
    bad = {u.rsplit('/', 1)[-1]: f['toc_cut'][:5] for u, f in pages.items() if f.get('toc_cut')}
    assert not bad, f'contents entries running past their column: {bad}'

def test_every_api_entry_has_a_source_link(site):
    """Each API entry of a public function, class or method (methods attached after their class too) carries a link to its
    source, and every `Class.method` entry on the site does."""
    import importlib
    bad, n = [], 0
    for p in site['pages']:
        html = (SITE/p['page']).read_text()
        m = re.search(r'#\| default_exp ([\w.]+)', (ROOT/'nbs'/p['notebook']).read_text().replace('\\n', '\n'))
        names = set()
        if m:
            mod = importlib.import_module('hdbo_nb.' + m[1])
            names = set(_public_names(mod)) | {f'{c}.{k}' for c, k in _public_methods(mod)}
        for e in re.finditer(r'<section id="[^"]+">\s*(?:<span[^>]*></span>)*<h3>([A-Za-z_]\w*(?:\.\w+)?)<a class="headerlink"', html):
            if e[1] not in names and not re.fullmatch(r'[A-Z]\w*\.[a-z_]\w*', e[1]): continue
            n += 1
            if '>source</a>' not in html[max(0, e.start() - 1500):e.start()].rsplit('</h3>', 1)[-1]: bad.append(f"{p['page']}: {e[1]}")
    assert n > 400, f'only {n} API entries found'
    assert not bad, f'{len(bad)} API entries without a source link: {bad[:20]}'
