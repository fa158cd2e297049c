"""The documentation site in a real browser: headless Chromium driven by Playwright over a local http server.

Builds the site with the offline engine (`tools/docs.py build --engine offline`) unless `_docs/` already holds an
offline build of the current notebooks, then checks every page: it loads, internal links and anchors resolve,
images load, math typesets, no raw Quarto syntax shows, nothing is requested from outside the machine, and search
finds the papers' pages; figures keep their aspect ratio and code does not scroll sideways at a desktop and a phone
width; the API reference has an entry for every public name. At 1400 and 390 px (issue 35): no console errors, no page
wider than the window, no duplicated ids, no NoneType in signatures, legible figures with captions and alt text, no
docstring placeholder, no output block over 25 lines, a paper page's first figure within two screens, contents and
search that serve a reader. What only the notebooks can fix is listed in KNOWN_OFFENDERS and reported in
test-artifacts/docs-offenders.md. Screenshots go to test-artifacts/. Skipped only when
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
DESKTOP, PHONE = (1400, 900), (390, 844)      # the two widths every page is checked at (a laptop and a phone)
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
                                                   viewport={'width': DESKTOP[0], 'height': DESKTOP[1]})
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
        page, console = browser.new_page(), _Console()
        _listen(page, console)
        resp = page.goto(url, wait_until='load')
        facts = {'status': resp.status if resp else None, 'console': console}
        if facts['status'] == 200:
            _wait_math(page)
            facts['facts'] = page.evaluate(FACTS_JS)
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
                  api: [...document.querySelectorAll('.bd-article section > h3')].filter(h => /^[A-Za-z_][\\w.]*$/.test(
                           [...h.childNodes].filter(n => !(n.classList && n.classList.contains('headerlink'))).map(n => n.textContent).join('').trim()))
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

FACTS_JS = r"""async () => {   // what the checks of issue 35 measure on a page, at the window's width
    const imgs = [...document.images]; imgs.forEach(i => i.loading = 'eager');
    await Promise.all(imgs.map(i => i.decode().catch(() => null)));
    const art = document.querySelector('.bd-article') || document.body, W = document.documentElement.clientWidth;
    const headingText = h => h ? [...h.childNodes].filter(n => !(n.classList && n.classList.contains('headerlink')))
                                   .map(n => n.textContent).join('').replace(/\s+/g, ' ').trim() : '';
    const sectionOf = e => { const s = e.closest('section'); return s ? headingText(s.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4')) : ''; };
    // elements that stick out of the window on the right, unless a box around them scrolls (tables, display math)
    const boxed = e => { for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; } return false; };
    const outside = [...art.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > W + 1 && !boxed(e));
    const roots = outside.filter(e => !outside.includes(e.parentElement));
    const ids = {}; document.querySelectorAll('[id]').forEach(e => ids[e.id] = (ids[e.id] || 0) + 1);
    const figs = [...art.querySelectorAll('img')].filter(i => i.naturalWidth > 0).map(i => {
        const cell = i.closest('.cell'), next = cell ? cell.nextElementSibling : i.parentElement.nextElementSibling;
        return {src: i.src.split('/').pop(), alt: i.getAttribute('alt') || '', w: i.getBoundingClientRect().width, nw: i.naturalWidth,
                dpi: +(i.dataset.dpi || 0), top: i.getBoundingClientRect().top + window.scrollY, section: sectionOf(i),
                box: i.parentElement.getBoundingClientRect().width,
                caption: !!(next && next.classList.contains('figure-caption')) || !!i.closest('figure')?.querySelector('figcaption')};
    });
    const outputs = [...art.querySelectorAll('.cell_output pre')].filter(e => e.offsetParent !== null).map(e => {
        const lines = e.innerText.replace(/\n+$/, '').split('\n');
        return {lines: lines.length, first: lines[0].slice(0, 70), section: sectionOf(e)};
    });
    const placeholder = [...art.querySelectorAll('p')].filter(p => p.textContent.trim() === 'Call self as a function.').map(sectionOf);
    const nonetype = [...art.querySelectorAll('.highlight-python pre')].filter(e => /\bNoneType\b/.test(e.textContent)).map(sectionOf);
    // the page's contents (desktop): the entries in view when the page opens, and names broken inside a word
    const nav = document.querySelector('#pst-page-toc-nav'); let toc = null;
    if (nav && nav.offsetParent !== null) {
      const shown = [...nav.querySelectorAll('a')].filter(a => a.offsetParent !== null);
      const closed = [...nav.querySelectorAll('ul')].filter(u => getComputedStyle(u).display === 'none');
      closed.forEach(u => u.style.display = 'block');
      const broken = [];
      for (const a of nav.querySelectorAll('a')) {
        const walk = document.createTreeWalker(a, NodeFilter.SHOW_TEXT); let node, top = null, prev = '';
        while ((node = walk.nextNode())) {
          if (node.parentElement.closest('.math, mjx-container')) { top = null; prev = ''; continue; }
          for (let k = 0; k < node.length; k++) {
            const ch = node.data[k]; if (/\s/.test(ch)) { prev = ch; continue; }
            const r = document.createRange(); r.setStart(node, k); r.setEnd(node, k + 1);
            const t = r.getBoundingClientRect().top;
            if (top !== null && t > top + 2 && /[A-Za-z0-9]/.test(prev) && /\w/.test(ch)) broken.push(a.textContent.trim());
            top = t; prev = ch;
          }
        }
      }
      closed.forEach(u => u.style.display = '');
      toc = {shown: shown.length, api: shown.filter(a => a.parentElement.classList.contains('toc-api')).length,
             names: shown.map(a => a.textContent.trim()), broken: [...new Set(broken)]};
    }
    return {width: W, height: window.innerHeight, page_width: document.scrollingElement.scrollWidth,
            outside: roots.slice(0, 8).map(e => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ')[0] : '') + ': ' +
                                             e.textContent.replace(/\s+/g, ' ').trim().slice(0, 60)),
            duplicate_ids: Object.keys(ids).filter(k => ids[k] > 1), figures: figs, outputs, placeholder, nonetype, toc,
            title: document.title, h1: headingText(document.querySelector('.bd-article h1')),
            favicon: [...document.querySelectorAll('link[rel~="icon"]')].map(l => l.href)};
}"""

BLOCKS_JS = """() => {   // visible code (cell inputs, markdown code, API signatures) and outputs, and which scroll sideways
    const all = [...document.querySelectorAll('.bd-article pre')].filter(e => e.offsetParent !== null && !e.classList.contains('text-table'));
    const kind = e => e.closest('.cell_output') ? 'output' : 'code';
    const scrolls = e => e.scrollWidth > e.clientWidth + 2;
    return {code: all.filter(e => kind(e) == 'code').length, output: all.filter(e => kind(e) == 'output').length,
            scrolling: all.filter(scrolls).map(e => kind(e) + ': ' + e.innerText.split('\\n').reduce((a, b) => b.length > a.length ? b : a, '').slice(0, 80))};
}"""

@pytest.fixture(scope='module')
def phone(site, server, browser):
    "Every page of the site at a phone's width (390 px): its figures, its code blocks and the facts of `FACTS_JS`."
    page, facts = browser.new_page(), {}
    page.set_viewport_size({'width': PHONE[0], 'height': PHONE[1]})
    for url in _pages_of(site, server).values():
        console = _Console()
        _listen(page, console)
        page.goto(url, wait_until='load')
        _wait_math(page)
        facts[url] = page.evaluate("""async () => { const imgs = [...document.images]; imgs.forEach(i => i.loading = 'eager');
            await Promise.all(imgs.map(i => i.decode().catch(() => null)));
            return {images: imgs.map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0, w: i.clientWidth, h: i.clientHeight,
                                            nw: i.naturalWidth, nh: i.naturalHeight})),
                    blocks: (""" + BLOCKS_JS + """)()}; }""")
        facts[url]['facts'] = page.evaluate(FACTS_JS)
        facts[url]['console'] = console
        page.remove_listener('console', console.handler); page.remove_listener('pageerror', console.error_handler)
    page.close()
    return facts

class _Console(list): "Console errors of one page (a list that holds its listeners too)."

def _listen(page, into):
    "Record the page's console errors (a failed request such as a missing favicon included) and uncaught exceptions in `into`."
    into.handler = lambda m: into.append(m.text + (f" ({m.location.get('url', '')})" if m.location else '')) if m.type == 'error' else None
    into.error_handler = lambda e: into.append(f'uncaught: {e}')
    page.on('console', into.handler); page.on('pageerror', into.error_handler)

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
        elif frag and 'ids' in f and unquote(frag) not in f['ids']: broken.append((src, href, 'no such anchor'))   # a browser decodes %CE%BB to λ
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
    """Home page, one paper page (the first that exists; core until then), a figure, and the first screen of every paper's
    experiments page at 1400 and 390 px, for a person to look at (test-artifacts/docs-*.png)."""
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
    # the first screen of each paper's experiments page, on a desktop and on a phone (issue 35: "ones you would show")
    for width in (DESKTOP, PHONE):
        page = browser.new_page(); page.set_viewport_size({'width': width[0], 'height': width[1]})
        for nb in [nb for nb in urls if re.fullmatch(r'[1-9]\d_\w+_experiments\.ipynb', nb)]:
            page.goto(urls[nb], wait_until='load'); _wait_math(page)
            name = f'{Path(nb).stem}-{width[0]}'; shots[name] = urls[nb]
            page.screenshot(path=str(ARTIFACTS/f'docs-{name}.png'))
        page.close()
    for name in shots: assert (ARTIFACTS/f'docs-{name}.png').stat().st_size > 10_000, name

def test_claims_page_shows_the_scorecard(site, server, browser):
    """The scorecard page renders one table row per claim of the notebook's stored table (which tests/test_claims.py
    checks against a fresh evaluation), with its verdict and a link to its section."""
    nb = json.loads((ROOT/'nbs'/'07_claims.ipynb').read_text())
    stored = ''.join(next(o['data']['text/markdown'] for c in nb['cells'] if 'lib.claims_markdown(results)' in ''.join(c['source'])
                          for o in c['outputs'] if 'text/markdown' in o.get('data', {})))
    head = next(l for l in stored.splitlines() if l.startswith('| where |')).strip('| ').split(' | ')
    col, ncol = head.index('verdict'), len(head)
    expected = [(re.search(r'\]\(([^)#]+)', l)[1], re.search(r'\*\*([^*]+)\*\*', l.split(' | ')[col])[1])
                for l in stored.splitlines() if l.startswith('| [')]
    assert expected, 'no claims in the stored scorecard'
    page, _ = _open(browser, _pages_of(site, server)['07_claims.ipynb'])
    rows = page.evaluate("""([ncol, col]) => [...document.querySelectorAll('main table tbody tr, article table tbody tr')]
        .filter(tr => tr.cells.length === ncol)
        .map(tr => ({verdict: tr.cells[col].innerText, link: tr.cells[0].querySelector('a') ? tr.cells[0].querySelector('a').href : ''}))""", [ncol, col])
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
    "At a desktop width (the crawl's 1400 px) and a phone width, no figure is squashed or stretched."
    pages, _ = crawl
    assert sum(len(f.get('images', [])) for f in phone.values()) > 0, 'no figures at the phone width'
    for width, facts in (('1400', pages), ('390', phone)):
        bad = {u: d for u, f in facts.items() if (d := _distorted(f.get('images', [])))}
        assert not bad, f'distorted figures at {width} px: {bad}'

def test_code_and_outputs_do_not_scroll_sideways(crawl, phone):
    """Code cells, outputs and signatures wrap at the column's width: nothing is hidden to the right, on a desktop or a phone.
    Printed tables (`text-table`) are the exception: wrapping would scramble their columns, so they scroll in their box."""
    pages, _ = crawl
    for width, facts in (('1400', pages), ('390', phone)):
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
    page.set_viewport_size({'width': PHONE[0], 'height': PHONE[1]}); page.wait_for_timeout(200)
    narrow = page.evaluate(count)
    page.close()
    assert wide == 1 and narrow == 1, (wide, narrow)

def test_sidebar_toggles_work(site, server, browser):
    """The sidebar buttons a reader sees: on a phone they open the site's navigation and the page's contents as panels, on a
    desktop the first one folds the navigation away."""
    page, _ = _open(browser, server + 'gp.html')
    page.set_viewport_size({'width': PHONE[0], 'height': PHONE[1]})
    visible = lambda sel: page.locator(sel + ':visible')
    for toggle, modal in (('.primary-toggle', '#pst-primary-sidebar-modal'), ('.secondary-toggle', '#pst-secondary-sidebar-modal')):
        assert visible(toggle).count() == 1, toggle
        visible(toggle).first.click()
        page.wait_for_function(f"() => document.querySelector('{modal}').open")
        assert page.locator(modal + ' a:visible').count() > 5, modal
        page.keyboard.press('Escape')
        page.wait_for_function(f"() => !document.querySelector('{modal}').open")
    page.set_viewport_size({'width': DESKTOP[0], 'height': DESKTOP[1]})
    assert page.locator('.bd-sidebar-primary a:visible').count() > 10
    visible('.primary-toggle').first.click()
    page.wait_for_function("() => document.querySelector('#pst-primary-sidebar').classList.contains('pst-sidebar-hidden')")
    page.close()

def test_api_signatures_wrap(crawl):
    "API signatures (show_doc) wrap in the text column instead of scrolling sideways."
    pages, _ = crawl
    bad = {u: f['sig_scroll'] for u, f in pages.items() if f.get('sig_scroll')}
    assert not bad, f'signatures that scroll sideways at 1400 px: {bad}'

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
    "Figures are stored at most 2.5x the width they are shown at on a 1400 px screen (2x for sharp screens), under 300 kB."
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
    assert not (static/'mathjax'/'sre').exists() and not (static/'mathjax'/'input'/'tex-full.js').exists()
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
    "At 1400 px the page's contents list (its sections and API entries) fits its column: no entry is cut at the right."
    pages, _ = crawl
    bad = {u.rsplit('/', 1)[-1]: f['toc_cut'][:5] for u, f in pages.items() if f.get('toc_cut')}
    assert not bad, f'contents entries running past their column: {bad}'

def test_every_api_entry_has_a_source_link(site):
    """Each API entry of a public function, class or method (methods attached after their class too) carries a link to its
    source, and every `Class.method` entry on the site does."""
    import importlib
    bad, n = [], 0
    for p in site['pages']:
        html = (SITE/p['page']).read_text().replace('<wbr>', '')
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

# ------------------------------------------------------------------ issue 35: pages a reader enjoys, on a desktop and a phone
# What only the notebooks' authors can fix (a docstring, a caption, a shorter output, a figure laid out for a phone, the story
# first) is listed below, page by page, as measured on the current notebooks. A check fails when a page has an offender this
# list does not allow (something got worse, or a new page offends) and reports, as a warning and in
# test-artifacts/docs-offenders.md, every offender it still sees. The lead empties these lists as the notebooks are fixed;
# an entry whose offence is gone is reported as such, so that it can be deleted.
KNOWN_OFFENDERS = {
    # API entries without a docstring ("Call self as a function."): 'page: entry'
    'docstring': set(),
    # figures per page whose text is too small at 1400 px (shown below 0.7 of their size, or default-size text under 9 px)
    'figure_text_desktop': {},
    # figures per page that a phone must scroll over more than two screens wide to read (more than ~3 panels across)
    'figure_text_phone': {},
    # figures per page without a caption (a markdown line right under the figure: "*Figure 2.* ..." or `#| fig-cap:`)
    'caption': {},
    # printed output blocks per page over 25 lines
    'long_output': {},
    # paper pages whose first figure is not within two screens (or that have none): {page: ['1400', '390']}
    'first_figure': {},
}
ARTIFACT_REPORT = ARTIFACTS/'docs-offenders.md'
MAX_OUTPUT_LINES = 25

def _page(url): return url.rsplit('/', 1)[-1]

def _report(check, offenders:dict, allowed, explain):
    """Compare this check's offenders ({page: [what]}) with what `KNOWN_OFFENDERS[check]` allows (a set of 'page: what' or
    {page: count}); return what goes beyond it (the test fails on that), warn about everything still there and about
    fixed entries, and add all of it to the report in test-artifacts/."""
    import warnings
    ARTIFACTS.mkdir(exist_ok=True)
    lines = [f'## {check}: {explain}', ''] + [f'- {pg}: ' + '; '.join(map(str, w)) for pg, w in sorted(offenders.items())] + ['']
    with open(ARTIFACT_REPORT, 'a', encoding='utf-8') as f: f.write('\n'.join(lines) + '\n')
    if isinstance(allowed, set):
        have = {f'{pg}: {w}' for pg, ws in offenders.items() for w in ws}
        new, fixed = sorted(have - allowed), sorted(allowed - have)
    else:
        new = [f'{pg}: {len(ws)} (allowed {allowed.get(pg, 0)}): ' + '; '.join(map(str, ws)) for pg, ws in sorted(offenders.items())
               if len(ws) > (allowed.get(pg, 0) if isinstance(allowed.get(pg, 0), int) else len(allowed[pg]))]
        fixed = sorted(pg for pg in allowed if pg not in offenders)
    if offenders: warnings.warn(f'{check}: {sum(map(len, offenders.values()))} known offender(s) on {len(offenders)} page(s) '
                                f'({explain}); see {ARTIFACT_REPORT.relative_to(ROOT)}', UserWarning, stacklevel=2)
    if fixed: warnings.warn(f'{check}: fixed, delete from KNOWN_OFFENDERS: {fixed}', UserWarning, stacklevel=2)
    return [f'{check} ({explain}), not in KNOWN_OFFENDERS:'] + new[:40] if new else []

@pytest.fixture(scope='module', autouse=True)
def _fresh_report():
    ARTIFACTS.mkdir(exist_ok=True)
    ARTIFACT_REPORT.write_text('# Docs site: offenders the notebooks must fix (tests/test_docs_site.py, KNOWN_OFFENDERS)\n\n')

def _both(crawl, phone):
    "The page facts at both widths: [('1400', {url: facts}), ('390', {url: facts})] (the crawl's pages at 1400 px)."
    pages, _ = crawl
    return [(str(DESKTOP[0]), {u: f['facts'] for u, f in pages.items() if 'facts' in f}),
            (str(PHONE[0]), {u: f['facts'] for u, f in phone.items()})]

def test_no_console_errors(crawl, phone):
    """No page logs an error at either width: no `Got invalid theme mode` (the theme's default mode is set), no failed
    request (the site has a favicon, so the browser asks for no missing /favicon.ico), no uncaught exception."""
    pages, _ = crawl
    for width, facts in ((str(DESKTOP[0]), pages), (str(PHONE[0]), phone)):
        bad = {_page(u): f['console'] for u, f in facts.items() if f.get('console')}
        assert not bad, f'console errors at {width} px: {bad}'
    icons = {f['facts']['favicon'][0] if f['facts']['favicon'] else None for f in pages.values() if 'facts' in f}
    assert None not in icons and all((SITE/unquote(urlparse(i).path).lstrip('/')).is_file() for i in icons), icons

def test_nothing_scrolls_the_page_sideways(crawl, phone):
    """At 1400 and 390 px no page is wider than the window: API headings and long inline code wrap, display math, tables and
    figures too wide for a phone scroll inside their own box."""
    for width, facts in _both(crawl, phone):
        bad = {_page(u): (f['page_width'], f['outside']) for u, f in facts.items() if f['page_width'] > f['width'] or f['outside']}
        assert not bad, f'pages wider than the window at {width} px (page width, what sticks out): {bad}'

def test_no_duplicated_element_ids(crawl):
    "Each id names one element (the adapter adds Quarto's id to a heading only when the heading does not have it already)."
    pages, _ = crawl
    bad = {_page(u): f['facts']['duplicate_ids'][:10] for u, f in pages.items() if f.get('facts', {}).get('duplicate_ids')}
    assert not bad, f'duplicated ids: {bad}'

def _union(crawl, phone, fn):
    "{page: sorted offenders} of `fn(facts)` over the pages at both widths."
    out = {}
    for _, facts in _both(crawl, phone):
        for u, f in facts.items(): out.setdefault(_page(u), set()).update(fn(f))
    return {pg: sorted(v) for pg, v in out.items() if v}

def test_every_api_entry_has_a_docstring(crawl, phone):
    """No entry shows Python's placeholder "Call self as a function." (what show_doc prints for a function without a
    docstring): every public name has a real one-line docstring. Reports the entries, by page, for their owners."""
    offenders = _union(crawl, phone, lambda f: f['placeholder'])
    new = _report('docstring', offenders, KNOWN_OFFENDERS['docstring'], 'API entries without a docstring')
    assert not new, '\n'.join(new)

def test_signatures_show_no_false_nonetype(crawl, phone):
    "A parameter defaulting to None shows no inferred type (`rng=None`, not `rng:NoneType=None`)."
    bad = _union(crawl, phone, lambda f: f['nonetype'])
    assert not bad, f'signatures with NoneType: {bad}'

def _fig_name(f): return f"{f['src'][:10]}… in “{f['section'][:50]}”"

def test_figure_text_is_legible(crawl, phone):
    """At 1400 px every figure is shown at 0.7 of its size or more (of half its pixels for a dpi-200 figure, drawn for sharp
    screens), and the text matplotlib draws at its default 10 pt is at
    least 9 px tall (from the figure's dpi: a dpi-60 figure has 8 px text even at full size). On a phone the build keeps
    every figure at least as wide as its 7 px text needs (it scrolls inside its box), which must not take more than two
    screens of sideways scrolling (more than about 3 panels across: re-lay the figure for a phone)."""
    pages, _ = crawl
    assert sum(len(f['facts']['figures']) for f in pages.values() if 'facts' in f) > 20, 'figures not found'
    text_px = lambda f: 10 * f['dpi'] / 72 * f['w'] / f['nw'] if f['dpi'] else None
    desk = {}
    for u, facts in _both(crawl, phone)[0][1].items():
        for f in facts['figures']:
            design = f['nw'] * min(1, 100 / f['dpi']) if f['dpi'] else f['nw']     # a dpi-200 figure is drawn for sharp screens at 0.5
            why = [f'shown at {f["w"] / design:.2f} of its size'] if f['w'] < 0.7 * design else []
            if text_px(f) is not None and text_px(f) < 8.95: why.append(f'text {text_px(f):.1f} px (dpi {f["dpi"]})')
            if why: desk.setdefault(_page(u), []).append(_fig_name(f) + ': ' + ', '.join(why))
    tel = {}
    for u, facts in phone.items():
        for f in facts['facts']['figures']:
            if text_px(f) is not None and text_px(f) < 6.9 and f['w'] < f['nw'] - 1:
                pytest.fail(f'{_page(u)}: {_fig_name(f)} is shrunk to {text_px(f):.1f} px text on a phone (the build keeps 7 px)')
            if f['w'] > 2 * f['box'] + 1: tel.setdefault(_page(u), []).append(_fig_name(f) + f': {f["w"] / f["box"]:.1f} screens wide')
    new = _report('figure_text_desktop', desk, KNOWN_OFFENDERS['figure_text_desktop'], f'figure text too small at {DESKTOP[0]} px')
    new += _report('figure_text_phone', tel, KNOWN_OFFENDERS['figure_text_phone'], 'figures more than two phone screens wide')
    assert not new, '\n'.join(new)

def test_figures_have_captions_and_alt_text(crawl, phone):
    """Every figure has alt text that says what it shows (the build derives it from the caption, never a file name), and a
    caption: a markdown line right under it, starting with "Figure"/"Fig." or in italics (or Quarto's `#| fig-cap:`)."""
    no_alt = _union(crawl, phone, lambda f: {f'{g["src"]} alt={g["alt"]!r}' for g in f['figures']
                                             if not g['alt'] or re.search(r'\.png$|^[0-9a-f]{16,}|_images/', g['alt']) or len(g['alt'].split()) < 2})
    no_caption = _union(crawl, phone, lambda f: {_fig_name(g) for g in f['figures'] if not g['caption']})
    assert not no_alt, f'figures whose alt text does not say what they show: {list(no_alt.items())[:10]}'
    new = _report('caption', no_caption, KNOWN_OFFENDERS['caption'], 'figures without a caption')
    assert not new, '\n'.join(new)

def test_output_blocks_are_short(crawl, phone):
    "No printed output block is over 25 lines (results as compact tables, no logs or raw dicts). Reports the blocks."
    offenders = _union(crawl, phone, lambda f: {f"{o['lines']} lines in “{o['section'][:40]}”: {o['first'][:50]}" for o in f['outputs']
                                                if o['lines'] > MAX_OUTPUT_LINES})
    new = _report('long_output', offenders, KNOWN_OFFENDERS['long_output'],
                  f'printed output blocks over {MAX_OUTPUT_LINES} lines')
    assert not new, '\n'.join(new)

def test_paper_pages_show_a_figure_within_two_screens(site, server, crawl, phone):
    "A paper's page (10_msucb ... 52_boo_experiments) shows its first figure within two screens, at 1400 and at 390 px."
    urls = {u: nb for nb, u in _pages_of(site, server).items() if re.match(r'[1-9]\d', nb)}
    assert len(urls) >= 10, urls
    offenders = {}
    for width, facts in _both(crawl, phone):
        for u, f in facts.items():
            if u not in urls: continue
            first = min((g['top'] for g in f['figures']), default=None)
            if first is None or first > 2 * f['height']:
                offenders.setdefault(_page(u), []).append(width)
    new = _report('first_figure', offenders, KNOWN_OFFENDERS['first_figure'],
                  'paper pages whose first figure is not within two screens, at the widths listed')
    assert not new, '\n'.join(new)

def test_page_contents_are_not_dominated_by_api_names(crawl):
    """The right-hand contents list shows the page's own sections; API entries are grouped under their section (shown while
    it is read): at most half the entries in view when a page opens are API names, and no name breaks inside a word."""
    pages, _ = crawl
    tocs = {_page(u): f['facts']['toc'] for u, f in pages.items() if f.get('facts', {}).get('toc')}
    assert len(tocs) > 20
    dominated = {pg: f"{t['api']} of {t['shown']}" for pg, t in tocs.items() if t['shown'] >= 6 and t['api'] > t['shown'] / 2}
    assert not dominated, f'contents lists mostly API names when the page opens: {dominated}'
    broken = {pg: t['broken'][:5] for pg, t in tocs.items() if t['broken']}
    assert not broken, f'contents entries broken inside a word: {broken}'

def test_search_finds_sections_and_entries(site, server, browser):
    """Searching a word finds the sections and API entries whose title has it, linked to their anchor: "Dantzig" finds the
    `dantzig_selector` entry and the "Dantzig selector (Eq. 2)" section of SI-BO's page."""
    page, _ = _open(browser, server + 'search.html?q=' + quote('Dantzig'))
    page.wait_for_function("() => /Search finished|found \\d+ page/i.test(document.body.innerText)", timeout=30_000)
    hits = page.eval_on_selector_all('#search-results li > a', 'els => els.map(e => [e.textContent, e.getAttribute("href")])')
    page.close()
    sibo = _pages_of(site, server)['20_sibo.ipynb'].rsplit('/', 1)[-1]
    entry = [h for t, h in hits if t.endswith('dantzig_selector') and h.startswith(sibo + '#')]
    section = [h for t, h in hits if 'Dantzig selector (Eq. 2)' in t and h.startswith(sibo + '#')]
    assert entry and section, hits[:10]
    html = (SITE/sibo).read_text()
    assert all(f'id="{h.split("#")[1]}"' in html for h in entry + section)

def test_search_snippets_are_plain_text(site, server, browser):
    "Snippets of page hits are plain text from the section holding the words: no TeX, no navigation; the hit links to it."
    page, _ = _open(browser, server + 'search.html?q=' + quote('confidence bound'))
    page.wait_for_function("() => document.querySelectorAll('#search-results li p.context').length >= 3", timeout=60_000)
    page.wait_for_timeout(300)
    items = page.eval_on_selector_all('#search-results li', 'els => els.map(e => [e.querySelector("a").getAttribute("href"), '
                                      '(e.querySelector("p.context") || {}).innerText || ""])')
    page.close()
    snippets = [s for _, s in items if s]
    tex = [s for s in snippets if re.search(r'\\[A-Za-z]+|\\\(|\\\[|\$\$', s)]
    assert not tex, tex[:3]
    assert not [s for s in snippets if re.search(r'System Settings|On this page|Skip to main content|Contents', s)], snippets[:3]
    assert sum('#' in h for h, _ in items) >= len(items) // 2, items[:6]     # section-level: most hits link to a section

def test_toolkit_pages_are_titled_by_what_they_are(crawl, site, server):
    "A toolkit page's title says what it documents (the sidebar's label), not its module's name; the module is named under it."
    pages, _ = crawl
    for nb in ('00_core.ipynb', '01_gp.ipynb', '04_bo.ipynb'):
        f = pages[_pages_of(site, server)[nb]]['facts']
        assert ' ' in f['h1'] and not re.fullmatch(r'[a-z_]+', f['h1']) and f['title'].startswith(f['h1']), (nb, f['h1'], f['title'])
    html = (SITE/_pages_of(site, server)['01_gp.ipynb'].rsplit('/', 1)[-1]).read_text()
    assert 'class="page-module"' in html and 'hdbo_nb.gp' in html

def test_site_weighs_under_15_mb():
    "The whole site (pages, figures, theme, MathJax without the speech-rule engine no page loads) stays under 15 MB."
    mb = sum(f.stat().st_size for f in SITE.rglob('*') if f.is_file()) / 1e6
    assert not (SITE/'_static'/'mathjax'/'sre').exists()
    assert mb < 15, f'the site weighs {mb:.1f} MB'

def test_source_links_come_from_settings_and_point_at_the_definition(site):
    """Source links (and the repository button) use settings.ini's git_url and branch; each names a file of the repository
    and the line where the entry's definition starts (a decorator or `def`/`class`)."""
    import configparser
    cfg = configparser.ConfigParser(); cfg.read(ROOT/'settings.ini')
    git, branch = cfg['DEFAULT'].get('git_url', '').rstrip('/'), cfg['DEFAULT'].get('branch', 'main')
    n, bad = 0, []
    for p in site['pages']:
        html = (SITE/p['page']).read_text()
        for url in re.findall(r'<a href="([^"]+)"[^>]*>source</a>', html):
            n += 1
            m = re.fullmatch(re.escape(git) + '/blob/' + re.escape(branch) + r'/([\w/.-]+\.py)#L(\d+)', url) if git else None
            lines = (ROOT/m[1]).read_text().splitlines() if m and (ROOT/m[1]).is_file() else []
            if not m or not lines or not re.match(r'\s*(@|def |async def |class )', lines[int(m[2]) - 1] if int(m[2]) <= len(lines) else ''):
                bad.append(f"{p['page']}: {url}")
        repo = re.findall(r'href="(https://github\.com/[^"#]+)"[^>]*>\s*<span class="btn__icon-container">\s*<i class="fab fa-github"', html)
        assert all(r.rstrip('/') == git for r in repo), repo
    assert (n > 300) == bool(git), n
    assert not bad, f'{len(bad)} source links that do not point at a definition: {bad[:10]}'
