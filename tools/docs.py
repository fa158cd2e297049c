#!/usr/bin/env python
"""Build the documentation site and README.md from the notebooks in `nbs/`.

    python tools/docs.py build [--engine auto|quarto|offline] [--out _docs]   # the site (`make docs`)
    python tools/docs.py proc                                                 # only nbdev's processing into _proc/
    python tools/docs.py readme [--check]                                     # README.md from nbs/index.ipynb

Two engines build the same site. `quarto` is nbdev's own `nbdev_docs`, used whenever `quarto` is on PATH.
`offline` needs no Quarto:

1. nbdev processes `nbs/` into `_proc/` exactly as it does before Quarto renders (front matter, show_doc,
   hidden cells, doc links); only its attempt to install Quarto is switched off, and a parameter defaulting to None
   shows no inferred `NoneType`.
2. The adapter below turns the Quarto-specific parts into plain notebooks that myst-nb reads: front matter ->
   title and description, `#|` options -> cell tags, `output: asis` -> markdown, callouts -> admonitions,
   show_doc headings -> the anchors nbdev's doc links (`_modidx`) point at (where the heading lacks that id),
   links to the published site -> relative links. Pages are named after Quarto's `output-file` (`core.html`) and
   ordered as in `sidebar.yml`, whose labels title the pages nbdev titles with a module's name (`core`).
   For readers: a docstring's `*` and `_` that are not emphasis stay literal; a figure's caption is the markdown line
   right under it when that line starts with "Figure"/"Fig." or is in italics (or `#| fig-cap:`), and gives the
   figure its alt text; stderr (progress bars, warnings) and, on the papers' pages, the runner's sweep summaries
   are not shown.
3. Sphinx (`-W`, myst-nb, sphinx-book-theme, MathJax served from the site itself) renders `_docs/`; the build then
   lets names break after `_` and `.`, marks API entries in the contents, gives figures their size and the width at
   which their text stays legible on a phone, and marks printed tables (they keep their columns). The stylesheet
   keeps every page within a phone's width (display math, tables and wide figures scroll in their own box).

README.md is written from the same adapted cells of `nbs/index.ipynb`, as GitHub-flavoured markdown.
"""
import argparse, hashlib, json, os, posixpath, re, shutil, subprocess, sys, time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT/'.cache'/'docs'          # generated Sphinx sources and doctrees (git-ignored)
STAMP = '.hdbo-docs.json'           # written into the site: engine and a fingerprint of the inputs

@contextmanager
def _in_root(sub=''):
    "nbdev finds settings.ini from the working directory (ROOT, or a folder below it: `sub`)."
    old = os.getcwd(); os.chdir(ROOT/sub)
    try: yield
    finally: os.chdir(old)

def _settings():
    from nbdev.config import get_config
    with _in_root(): return get_config()

# ------------------------------------------------------------------ nbdev's processing (no Quarto)
def _patch_fastcore():
    """fastcore's docments compares a parameter's default with `!=`, which raises for a numpy-array default and stops
    nbdev's processing of the whole site: compare by identity (the same answer for every other default). And it gives a
    parameter without annotation the type of its default, which for `None` is the false `NoneType`: none is shown then."""
    import fastcore.docments as fd
    from inspect import Parameter
    if getattr(fd._get_full, '_hdbo', False): return
    def _get_full(p, docs, eval_str=False):
        anno = p.annotation
        if anno is Parameter.empty:
            # fastcore shows the type of the default as the parameter's type: `rng=None` would read `rng:NoneType=None`,
            # which says the parameter must be None. A None default shows no type (the default is still shown).
            if p.default is not Parameter.empty and p.default is not None: anno = type(p.default)
            elif eval_str and p.default is Parameter.empty: anno = None
        return fd.AttrDict(docment=docs.get(p.name), anno=anno, default=p.default, kind=p.kind)
    def _fmt_param(self, nm, p):
        anno, default, kind = p.get('anno', Parameter.empty), p.get('default', Parameter.empty), p.get('kind')
        pre = '*' if kind == Parameter.VAR_POSITIONAL else '**' if kind == Parameter.VAR_KEYWORD else ''
        return (pre + nm + (f':{fd._maybe_nm(anno)}' if anno is not Parameter.empty else '')
                + (f'={fd._fmt_default(default)}' if default is not Parameter.empty else ''))
    _get_full._hdbo = True
    fd._get_full = _get_full
    if hasattr(fd, 'DocmentText') and all(hasattr(fd, f) for f in ('_maybe_nm', '_fmt_default')): fd.DocmentText._fmt_param = _fmt_param

if __name__ == '__mp_main__': _patch_fastcore()   # nbdev's workers (started with "spawn") import this script under that name

@contextmanager
def _captured_output():
    "Collect what this process and the workers it starts write to stdout and stderr (file descriptors 1 and 2)."
    import tempfile
    sys.stdout.flush(); sys.stderr.flush()
    got = []
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(1), os.dup(2)
        os.dup2(tmp.fileno(), 1); os.dup2(tmp.fileno(), 2)
        try: yield got
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2); os.close(saved[0]); os.close(saved[1])
            tmp.seek(0); got.append(tmp.read().decode(errors='replace'))

def proc(n_workers:int=2, noise:list=None) -> Path:
    """Run nbdev's pre-docs step (nbdev.yml, sidebar.yml, _modidx, `proc_nbs` into _proc/) without Quarto.
    What nbdev prints (warnings about cells it had to run, ...) is passed on and, if `noise` is a list, added to it."""
    import nbdev.quarto
    nbdev.quarto._ensure_quarto = lambda: None   # nbdev would otherwise try to download and install Quarto
    _patch_fastcore()
    err = None
    # from nbs/, where the notebooks run: a cell nbdev executes finds `../results` (the results cache) as it does there
    with _in_root('nbs'), _captured_output() as got:
        try: cache, _, _ = nbdev.quarto._pre_docs(n_workers=n_workers)
        except Exception as e: err = e
    text = got[0].strip('\n')
    if text: print(text, file=sys.stderr)
    if noise is not None: noise += text.splitlines() if text else []
    if err is not None:
        cause = f'\n{type(err.__cause__).__name__}: {err.__cause__}' if err.__cause__ else ''
        sys.exit(f"docs: nbdev could not process the notebooks:\n{err}{cause}\nWhile rendering, nbdev runs only the cells "
                 "that export, import or show_doc: a show_doc of a name no exported cell defines, or a cell that mixes "
                 "imports with code using earlier variables, fails here (and in nbdev_docs).")
    return Path(cache)

def proc_one(nb_path) -> dict:
    "One notebook through nbdev's docs processors, in this process (what `proc` does per file)."
    from execnb.nbio import read_nb, nb2str
    from nbdev.processors import FilterDefaults
    with _in_root():
        nb = read_nb(nb_path)
        os.environ['IN_TEST'] = '1'
        try: FilterDefaults()(nb)
        finally: del os.environ['IN_TEST']
    return json.loads(nb2str(nb))

# ------------------------------------------------------------------ the adapter
def _src(x): return ''.join(x) if isinstance(x, list) else (x or '')

def front_matter(nb):
    "Pop the raw `---` front-matter cell nbdev puts first; return its fields."
    import yaml
    cells = nb['cells']
    m = re.match(r'\s*---\s*\n(.*?)\n---\s*$', _src(cells[0]['source']), re.S) if cells and cells[0]['cell_type'] == 'raw' else None
    if not m: return {}
    cells.pop(0)
    return yaml.safe_load(m[1]) or {}

def cell_options(source):
    "Split the leading `#| key: value` lines of a code cell into a dict, and return the rest of the source."
    import yaml
    lines, opts = source.splitlines(), {}
    while lines and lines[0].startswith('#|'):
        m = re.match(r'#\|\s*([\w-]+)\s*:?\s*(.*)', lines.pop(0))
        if not m: continue
        try: opts[m[1]] = yaml.safe_load(m[2]) if m[2].strip() else True
        except yaml.YAMLError: opts[m[1]] = m[2].strip()
    return opts, '\n'.join(lines).strip('\n')

def pandoc_id(text):
    "The id Quarto (pandoc) gives a heading: `### GP.fit` -> `gp.fit`; nbdev's doc links point at these."
    s = re.sub(r'[^\w\s.-]', '', text.strip().lower())
    return re.sub(r'^[^a-z]+', '', re.sub(r'\s+', '-', s))

_MATH = re.compile(r'\$\$.+?\$\$|\$[^$\n]+\$', re.S)
_CALLOUT = re.compile(r'^(:{3,})\s*\{\s*\.callout-(\w+)([^}]*)\}\s*$')
_FENCE = re.compile(r'^(:{3,})\s*(\{\s*[.#][^}]*\}|\{[^}]*=[^}]*\}|[A-Za-z][\w-]*)?\s*$')   # Quarto divs, not MyST directives
_ATTR_LINK = re.compile(r'\[([^\]]*)\]\(([^)\s]+)\)\{([^}]*)\}')

def convert_divs(text, flavour):
    "Quarto `::: {.callout-X}` -> MyST admonition (site) or GitHub alert (README); other `:::` divs unwrapped."
    out, stack, lines = [], [], text.split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]; i += 1
        m = _CALLOUT.match(line)
        if m:
            colons, kind, attrs = m[1], m[2], m[3]
            title = re.search(r'title="([^"]*)"', attrs)
            title = title[1] if title else ''
            if not title and i < len(lines) and lines[i].startswith('## '): title = lines[i][3:].strip(); i += 1
            stack.append((colons, 'callout'))
            if flavour == 'myst':
                out += [f'{colons}{{admonition}} {title or kind.title()}', f':class: {kind}']
            else:
                out.append(f'> [!{kind.upper()}]' + (f'\n> **{title}**' if title else ''))
            continue
        m = _FENCE.match(line)
        if m and m[2]:                                                     # opening of any other div: unwrap it
            stack.append((m[1], 'div')); continue
        if m and stack and stack[-1][0] == m[1]:                           # a closing fence
            if stack.pop()[1] == 'callout' and flavour == 'myst': out.append(m[1])
            continue
        if flavour == 'gfm' and any(k == 'callout' for _, k in stack): line = '> ' + line if line else '>'
        out.append(line)
    return '\n'.join(out)

class Site:
    "What links need: the published base URL, where each notebook's page lives and which anchors it has."
    def __init__(self, cfg, pages, anchors=None):
        self.base = (cfg.doc_host + cfg.doc_baseurl).rstrip('/') + '/'
        self.pages = pages                       # {'01_gp.ipynb': 'gp.html', ...}
        self.anchors = anchors                   # {'gp.html': {'gp', 'gp.fit', ...}} or None (keep every fragment)
        self.unanchored = set()                  # doc links to names without an entry on their page

    def fix_links(self, text, here, flavour):
        "Links to the published site become relative (site) and links to notebooks point at their pages."
        def sub(m):
            target = m[2]
            path, _, frag = target.partition('#')
            if not re.match(r'\w+:', path) and path.endswith('.ipynb'):
                html = self.pages.get(posixpath.normpath(posixpath.join(posixpath.dirname(here), path)))
                if html: target = (self.base + html if flavour == 'gfm'
                                   else posixpath.relpath(html, posixpath.dirname(here) or '.')) + ('#' + frag if frag else '')
            elif flavour == 'myst' and path.startswith(self.base):
                page = path[len(self.base):] or 'index.html'
                if frag and self.anchors is not None and frag not in self.anchors.get(page, ()):
                    # nbdev links every name in backticks that _modidx knows, documented (show_doc) or not: a private
                    # name is no link at all; a property links to its class's entry; anything else to its page.
                    owner = frag.rsplit('.', 1)[0]
                    if frag.rsplit('.', 1)[-1].startswith('_'): return m[1][1:-1]
                    if '.' in frag and owner in self.anchors.get(page, ()): frag = owner
                    else: self.unanchored.add(f'{page}#{frag}'); frag = ''
                target = posixpath.relpath(page, posixpath.dirname(self.pages.get(here, here)) or '.') + ('#' + frag if frag else '')
            return f'{m[1]}({target})'
        return re.sub(r'(\[[^\]]*\])\(([^)\s]+)\)', sub, text)

def anchors(nb):
    "The Quarto ids of a notebook's headings, show_doc entries included."
    texts = [_src(c['source']) for c in nb['cells'] if c['cell_type'] == 'markdown']
    texts += [_src(o['data']['text/markdown']) for c in nb['cells'] for o in c.get('outputs', []) if 'text/markdown' in o.get('data', {})]
    return {pandoc_id(h) for t in texts for h in re.findall(r'^#{1,6} (.+)$', t, re.M)}

def attr_links(text, flavour):
    "`[source](url){target=\"_blank\" style=...}` (Quarto attributes) -> an HTML link (site) or a plain link."
    def sub(m):
        if flavour == 'gfm': return f'[{m[1]}]({m[2]})'
        attrs = ' '.join(f'{k}="{v}"' for k, v in re.findall(r'([\w-]+)="([^"]*)"', m[3]))
        return f'<a href="{m[2]}" {attrs}>{m[1]}</a>'
    return _ATTR_LINK.sub(sub, text)

_CODE = re.compile(r'^(```+|~~~+).*?^\1', re.M | re.S)

def _outside_code(fn, text):
    "Apply `fn` to the parts of markdown `text` outside fenced code blocks."
    parts, last = [], 0
    for m in _CODE.finditer(text): parts += [fn(text[last:m.start()]), m[0]]; last = m.end()
    return ''.join(parts + [fn(text[last:])])

def join_display_math(text):
    "Put multi-line `$$...$$` on one line: CommonMark would read a line starting with `+ ` or `- ` as a list."
    def sub(m):
        if '\n' not in m[1] or '%' in m[1]: return m[0]
        return '$$' + ' '.join(l.strip() for l in m[1].split('\n')) + '$$'
    return _outside_code(lambda t: re.sub(r'\$\$(.+?)\$\$', sub, t, flags=re.S), text)

def unescape_math(text):
    "fastcore's docments writes `^` as `\\^`, which is a TeX error inside `$...$`."
    return _MATH.sub(lambda m: m[0].replace('\\^', '^'), text)

def unlink_code(text):
    "nbdev also links names inside code blocks, where markdown shows as raw text: put back the plain `name`."
    return _CODE.sub(lambda m: re.sub(r'\[(`[^`]+`)\]\([^)\s]*\)', r'\1', m[0]), text)

_SRC_LINK = '[source]({}){{target="_blank" style="float:right; font-size:smaller"}}\n\n'
_ANY_SRC_LINK = re.compile(r'^\[source\]\([^)\s]*\)(\{[^}]*\})?[ \t]*\n*', re.M)

def git_url():
    "The repository's URL from settings.ini (`git_url`), without a trailing slash; '' when it has none (no source links then)."
    return (_settings().get('git_url') or '').strip().rstrip('/')

def source_url(qualname:str):
    "GitHub link to the source of `Class.method` in the package (nbdev links only what its module index knows), or None."
    import importlib, inspect, pkgutil
    cls, _, meth = qualname.partition('.')
    if not meth: return None
    cfg = _settings(); lib = cfg['lib_path'].name if hasattr(cfg['lib_path'], 'name') else str(cfg['lib_path'])
    if not git_url(): return None
    pkg = importlib.import_module(lib)
    for mi in pkgutil.iter_modules(pkg.__path__):
        try: mod = importlib.import_module(f'{lib}.{mi.name}')
        except Exception: continue
        c = getattr(mod, cls, None)
        if not isinstance(c, type) or getattr(c, '__module__', None) != mod.__name__: continue
        f = c.__dict__.get(meth)
        f = getattr(f, 'fget', getattr(f, '__func__', f))
        if not inspect.isfunction(f): return None
        try: path, line = Path(inspect.getsourcefile(f)).resolve(), inspect.getsourcelines(f)[1]
        except (OSError, TypeError): return None
        if ROOT not in path.parents: return None
        return f"{git_url()}/blob/{cfg.get('branch') or 'main'}/{path.relative_to(ROOT).as_posix()}#L{line}"
    return None

def _definition_url(module:str, name:str):
    "GitHub link to the definition of what `name` is in the package module `module` (defined there or imported), or None."
    import importlib, inspect
    if not git_url(): return None
    try: obj = getattr(importlib.import_module(module), name)
    except Exception: return None
    if not (inspect.isfunction(obj) or inspect.isclass(obj)): return None
    try: path, line = Path(inspect.getsourcefile(obj)).resolve(), inspect.getsourcelines(obj)[1]
    except (OSError, TypeError): return None
    if ROOT not in path.parents: return None
    cfg = _settings()
    return f"{git_url()}/blob/{cfg.get('branch') or 'main'}/{path.relative_to(ROOT).as_posix()}#L{line}"

def fix_source_link(text, module):
    """nbdev finds an entry's source by its bare name, so of two modules defining the same name (`full_results`) one
    page links to the other's; the entry of a function or class of the page's own module links to its definition."""
    m = re.search(r'^#{2,6} ([A-Za-z_]\w*)\s*$', text, re.M)
    url = _definition_url(module, m[1]) if module and m else None
    return _ANY_SRC_LINK.sub(lambda _: _SRC_LINK.format(url), text, count=1) if url and '[source](' in text else text

def add_source_link(text):
    "A show_doc entry of a method attached to its class after the class body gets the source link nbdev leaves out."
    if '[source](' in text: return text
    m = re.search(r'^#{2,6} ([A-Za-z_]\w*\.[A-Za-z_]\w*)\s*$', text, re.M)
    url = source_url(m[1]) if m else None
    if not url: return text
    rule = re.match(r'\A\s*---\s*\n', text)                         # where nbdev puts it: after the rule
    return (rule[0] + '\n' if rule else '') + _SRC_LINK.format(url) + text[rule.end() if rule else 0:]

_EMPHASIS = re.compile(r'(?<![\w*\\])\*(?=[^\s*])[^*\n]*?[^\s*\\]\*(?![\w*])')   # *word ...*: emphasis its author meant
_VERBATIM = re.compile(r'(`+).*?\1|\$\$.+?\$\$|\$[^$\n]+\$|\]\([^)\s]*\)|</?[A-Za-z][^<>\n]*>', re.S)    # code, math, link targets, HTML

def _literal_marks(text):
    "`*` and `_` that cannot be emphasis as their author wrote them (`f*`, `||M||_*`, `t**a`, `max_{i}`) escaped."
    def plain(t):
        t = re.sub(r'(?<!\\)\*', r'\\*', t)
        return re.sub(r'(?<![\\\w])_|(?<!\\)_(?!\w)', r'\\_', t)
    def outside_emphasis(t):
        out, last = [], 0
        for m in _EMPHASIS.finditer(t): out += [plain(t[last:m.start()]), m[0]]; last = m.end()
        return ''.join(out + [plain(t[last:])])
    out, last = [], 0
    for m in _VERBATIM.finditer(text): out += [outside_emphasis(text[last:m.start()]), m[0]]; last = m.end()
    return ''.join(out + [outside_emphasis(text[last:])])

def escape_docstrings(text):
    """nbdev shows a docstring in italics, `*docstring*`, as markdown: a `*` or `_` inside it that is not emphasis (`f* - f(x)`,
    `||M||_* by FISTA`) pairs with another one and garbles the sentence. Those are escaped; code, math and links are kept."""
    def para(m):
        inner = m[2]
        return m[1] + '*' + _literal_marks(inner) + '*' + m[3]
    return _outside_code(lambda t: re.sub(r'(^|\n\n)\*(?!\*)(\S(?:(?:(?!\n\n).)*?\S)?)\*(?=\n\n|\Z)()', para, t, flags=re.S), text)

def github_slug(title):
    "The id MyST gives a heading (`myst_heading_anchors`, GitHub's rule) from its text."
    return re.sub(r'[^\w\u4e00-\u9fff\- ]', '', title.lower().replace(' ', '-'))

def _heading_text(md):
    "What a markdown heading shows: link texts, no code or emphasis marks."
    return re.sub(r'[`*]', '', re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', md)).strip()

def heading_anchor(title):
    """The `<a id>` that gives a heading Quarto's id (nbdev's doc links use it), or '' when the heading has that id already:
    its section's id (docutils' rule) or MyST's anchor (GitHub's rule)."""
    from docutils.nodes import make_id
    text = _heading_text(title)
    qid, myst_text = pandoc_id(title), re.sub(r'\$[^$]*\$', '', text)    # MyST's slug leaves formulas out, docutils keeps their TeX
    return '' if not qid or qid in (github_slug(myst_text), make_id(text.replace('$', ''))) else f'<a id="{qid}"></a>\n\n'

def adapt_md(text, site, here, flavour, show_doc=False, module=None):
    if show_doc:
        text = add_source_link(fix_source_link(text, module))
        if not git_url(): text = _ANY_SRC_LINK.sub('', text)     # no repository in settings.ini: no source links
        text = escape_docstrings(text)
    text = unlink_code(convert_divs(text, flavour))
    text = attr_links(site.fix_links(text, here, flavour), flavour)
    text = join_display_math(unescape_math(text))
    if show_doc:
        text = re.sub(r'\A\s*---\s*\n', '', text)                    # the rule nbdev puts above each entry
        if flavour == 'myst':
            anchor = lambda m: f'{heading_anchor(m[2])}{m[1]} {m[2]}'
            text = _outside_code(lambda t: re.sub(r'^(#{2,6}) (.+)$', anchor, t, flags=re.M), text)
    return text

# ------------------------------------------------------------------ figures: captions and alt text
_CAPTION_START = re.compile(r'(?:[*_]{1,2})?(?:Figure|Fig\.)[\s\d]', re.I)

def caption_of(md):
    """The caption a markdown cell right under a figure opens with, or None. A caption is the cell's first paragraph when it
    starts with "Figure"/"Fig." (emphasised or not: `*Figure 2.* ...`, `**Fig. 1**: ...`) or is wholly in italics."""
    first = re.split(r'\n[ \t]*\n', md.strip(), maxsplit=1)[0].strip()
    if not first or re.match(r'#|[-+|>:<]|\$\$|```|\d+[.)] ', first): return None
    if _CAPTION_START.match(first) or re.fullmatch(r'\*(?!\*)\S.*\S\*|_(?!_)\S.*\S_', first, re.S): return first
    return None

_TEX_WORDS = {'alpha': 'α', 'beta': 'β', 'gamma': 'γ', 'delta': 'δ', 'epsilon': 'ε', 'varepsilon': 'ε', 'zeta': 'ζ', 'eta': 'η',
              'theta': 'θ', 'kappa': 'κ', 'lambda': 'λ', 'mu': 'μ', 'nu': 'ν', 'xi': 'ξ', 'pi': 'π', 'rho': 'ρ', 'sigma': 'σ',
              'tau': 'τ', 'phi': 'φ', 'varphi': 'φ', 'chi': 'χ', 'psi': 'ψ', 'omega': 'ω', 'Gamma': 'Γ', 'Delta': 'Δ',
              'Theta': 'Θ', 'Lambda': 'Λ', 'Sigma': 'Σ', 'Phi': 'Φ', 'Psi': 'Ψ', 'Omega': 'Ω', 'le': '≤', 'leq': '≤', 'ge': '≥',
              'geq': '≥', 'ne': '≠', 'neq': '≠', 'approx': '≈', 'sim': '~', 'in': '∈', 'times': '×', 'cdot': '·', 'pm': '±',
              'infty': '∞', 'sum': 'Σ', 'prod': 'Π', 'sqrt': '√', 'to': '→', 'rightarrow': '→', 'ldots': '…', 'dots': '…',
              'cdots': '…', 'log': 'log', 'exp': 'exp', 'max': 'max', 'min': 'min', 'arg': 'arg', '|': '‖', 'quad': ' ',
              'qquad': ' ', 'rm': '', 'it': '', 'bf': '', 'displaystyle': '', 'lfloor': '⌊', 'rfloor': '⌋', 'lceil': '⌈',
              'rceil': '⌉', 'mid': '|', 'vert': '|', 'lVert': '‖', 'rVert': '‖', 'langle': '⟨', 'rangle': '⟩', 'top': 'ᵀ',
              'ast': '*', 'star': '*', 'prime': '′', 'partial': '∂', 'nabla': '∇', 'forall': '∀', 'exists': '∃',
              'subset': '⊂', 'subseteq': '⊆', 'cup': '∪', 'cap': '∩', 'emptyset': '∅', 'mapsto': '↦', 'propto': '∝',
              'ell': 'ℓ', 'circ': '∘', 'lesssim': '≲', 'gtrsim': '≳', 'll': '≪', 'gg': '≫', 'equiv': '≡'}

def tex_text(tex):
    "Readable plain text for a TeX formula (alt text, search snippets): `\\sigma_t^2` -> `σ_t^2`."
    t = re.sub(r'\\(?:frac|dfrac|tfrac)\s*\{([^{}]*)\}\s*\{([^{}]*)\}', r'(\1)/(\2)', tex)
    t = re.sub(r'\\(?:left|right|big|Big|bigg|Bigg)\b\s*', '', t)
    t = re.sub(r'\\(?:math\w+|text\w*|operatorname|boldsymbol|bm|hat|tilde|bar|widehat|widetilde|overline)\s*', '', t)
    t = re.sub(r'\\([A-Za-z]+|\|)', lambda m: _TEX_WORDS.get(m[1], m[1]), t)
    t = re.sub(r'\\[,;:! ]', ' ', t).replace('\\', ' ')
    t = re.sub(r'\((\w+)\)/\((\w+)\)', r'\1/\2', t)
    return re.sub(r'\s+', ' ', t.replace('{', '').replace('}', '')).strip()

def plain_text(md):
    "A line of markdown as plain text: link texts, formulas in readable symbols, no emphasis or code marks."
    t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', md)
    t = re.sub(r'\$\$(.+?)\$\$|\$([^$\n]+)\$', lambda m: tex_text(m[1] or m[2]), t, flags=re.S)
    t = re.sub(r'<[^>\n]+>', '', t)
    t = re.sub(r'\*{1,3}|`+', '', t).replace('\\_', '_')
    return re.sub(r'\s+', ' ', t).strip()

_DROP_MIME = ('application/vnd.jupyter.widget-view+json', 'application/vnd.jupyter.widget-state+json')

# the runner's summary of a sweep ("msucb-fig1: 600 runs, 600 cached, 0 run, 0 failed, 0 damaged cache files rerun, 1.2s")
RUNNER_LOG = re.compile(r'^[\w.+-]+: \d+ runs, \d+ cached, \d+ run, \d+ failed, \d+ damaged cache files rerun, [\d.]+ ?s\n?', re.M)

def is_paper_page(nb_path):
    "A paper's notebook (numbered 10 and up: 10_msucb, 52_boo_experiments), not the toolkit (0x) or the home page."
    m = re.match(r'(\d+)', Path(nb_path).name)
    return bool(m) and int(m[1]) >= 10

def _images(cell):
    return sum(1 for o in cell.get('outputs', []) if any(k.startswith('image/') for k in o.get('data', {})))

def _fallback_alt(section, nxt):
    "Alt text for a figure without a caption: its section and the first sentence of the paragraph under it, if any."
    alt = f'Figure in “{section}”' if section else 'Figure'
    first = re.split(r'\n[ \t]*\n', _src(nxt['source']).strip(), maxsplit=1)[0] if nxt is not None and nxt['cell_type'] == 'markdown' else ''
    if first and not re.match(r'#|[-+|>:<]|\$\$|```|\d+[.)] ', first):
        sentence = re.match(r'(.{20,}?[.!?:])(\s|$)', plain_text(first))
        text = sentence[1] if sentence else plain_text(first)
        alt += ': ' + (text if len(text) <= 200 else text[:200].rsplit(' ', 1)[0] + ' …')
    return alt

def adapt_cells(nb, site, here, flavour, title=''):
    """Yield (kind, cell) for the cells to render: ('md', text) or ('code', code, tags, outputs, meta), where `meta` has the
    alt text of the cell's figures (`alt`), from their caption: the `fig-cap` option or the markdown line right under them
    (`caption_of`), which is marked as the caption (`.figure-caption`). Streams a reader does not need are dropped: stderr
    (progress bars, warnings) everywhere, and the runner's summary of a sweep on the papers' pages."""
    cells, section = nb['cells'], title
    exp = re.search(r'^#\|\s*default_exp\s+(\S+)', '\n'.join(_src(c['source']) for c in cells if c['cell_type'] == 'code'), re.M)
    lib = _settings()['lib_path']; module = f"{getattr(lib, 'name', lib)}.{exp[1]}" if exp else None
    for i, cell in enumerate(cells):
        src = _src(cell['source'])
        if cell['cell_type'] == 'markdown':
            md = adapt_md(src, site, here, flavour)
            if flavour == 'myst':   # section links by Quarto's heading ids (e.g. from the claims page) resolve here too
                md = _outside_code(lambda t: re.sub(r'^(#{2,6}) (.+)$', lambda m: f'{heading_anchor(m[2])}{m[0]}', t, flags=re.M), md)
                prev = cells[i - 1] if i else None
                if prev is not None and prev['cell_type'] == 'code' and _images(prev) and not cell_options(_src(prev['source']))[0].get('fig-cap') \
                        and caption_of(src):
                    md = '{.figure-caption}\n' + md.lstrip('\n')
            for h in re.findall(r'^#{1,6} (.+)$', src, re.M): section = plain_text(h)
            yield 'md', md
        elif cell['cell_type'] == 'code':
            opts, code = cell_options(src)
            if opts.get('include') is False: continue
            for h in re.findall(r'^#{2,6} (.+)$', '\n'.join(_src(o.get('data', {}).get('text/markdown', '')) for o in cell.get('outputs', [])), re.M):
                section = plain_text(h)
            meta, caption = {}, None
            if _images(cell):
                nxt = cells[i + 1] if i + 1 < len(cells) else None
                caption = opts.get('fig-cap') if isinstance(opts.get('fig-cap'), str) else None
                if caption is None and nxt is not None and nxt['cell_type'] == 'markdown': caption = caption_of(_src(nxt['source']))
                meta['alt'] = plain_text(caption) if caption else _fallback_alt(section, nxt)
            tags = []
            if opts.get('echo') is False or not code.strip(): tags.append('remove-input')
            if opts.get('output') is False: tags.append('remove-output')
            if opts.get('code-fold') in (True, 'true', 'show'): tags.append('hide-input')
            asis = opts.get('output') == 'asis'
            md_out = lambda o: _src(o['text']) if o['output_type'] == 'stream' else _src(o.get('data', {}).get('text/markdown'))
            if asis and 'remove-input' in tags and flavour == 'myst' and all(md_out(o) for o in cell.get('outputs', [])):
                # show_doc entries: markdown in the page itself, so that their headings are sections in the contents
                text = '\n\n'.join(md_out(o) for o in cell.get('outputs', []))
                if text.strip(): yield 'md', adapt_md(text, site, here, flavour, show_doc=True, module=module)
                continue
            outs = []
            for o in cell.get('outputs', []) if opts.get('output') is not False else []:
                o = dict(o)
                if o['output_type'] == 'stream' and o.get('name') == 'stderr' and not asis: continue
                if o['output_type'] == 'stream' and not asis and is_paper_page(here) and RUNNER_LOG.search(_src(o['text'])):
                    o['text'] = RUNNER_LOG.sub('', _src(o['text']))
                    if not o['text'].strip(): continue
                if o['output_type'] == 'stream' and asis:
                    o = {'output_type': 'display_data', 'metadata': {}, 'data': {'text/markdown': _src(o['text'])}}
                if 'data' in o:
                    data = {k: v for k, v in o['data'].items() if k not in _DROP_MIME}
                    if 'text/markdown' in data:
                        data = {'text/markdown': adapt_md(_src(data['text/markdown']), site, here, flavour, show_doc=asis)}
                    if not data: continue
                    o['data'] = data
                outs.append(o)
            yield 'code', code, tags, outs, meta
            if isinstance(opts.get('fig-cap'), str) and _images(cell):      # Quarto's caption option: the line under the figure
                yield 'md', ('{.figure-caption}\n' if flavour == 'myst' else '') + adapt_md(opts['fig-cap'], site, here, flavour)

# ------------------------------------------------------------------ pages: the site's notebooks in sidebar order
def sidebar_order(sidebar_yml):
    "[(section caption or None, [notebook paths])] from nbdev's sidebar.yml."
    import yaml
    groups = [(None, [])]
    def walk(items, caption):
        for it in items or []:
            if isinstance(it, str):
                if caption != groups[-1][0]: groups.append((caption, []))
                groups[-1][1].append(it)
            elif isinstance(it, dict) and 'contents' in it: walk(it['contents'], it.get('section') or caption)
            elif isinstance(it, dict) and 'href' in it: walk([it['href']], caption)
    walk(yaml.safe_load(Path(sidebar_yml).read_text())['website']['sidebar']['contents'], None)
    return [(c, [p for p in ps if p.endswith('.ipynb')]) for c, ps in groups if ps]

def sidebar_texts(sidebar_yml):
    "{notebook: label} for the sidebar.yml entries written as `{text: ..., href: ...}` (Quarto's way to label a page)."
    import yaml
    texts = {}
    def walk(items):
        for it in items or []:
            if isinstance(it, dict) and 'contents' in it: walk(it['contents'])
            elif isinstance(it, dict) and it.get('href') and it.get('text'): texts[it['href']] = str(it['text'])
    walk(yaml.safe_load(Path(sidebar_yml).read_text())['website']['sidebar']['contents'])
    return texts

def page_title(fm_title, label):
    """A page's title: the notebook's own, unless that is only its module's name (`core`, `gp`: nbdev's habit) and the
    sidebar gives the page a label, which then says what the page is ("Gaussian processes")."""
    return label if label and (not fm_title or re.fullmatch(r'[a-z_][a-z0-9_]*', fm_title)) else fm_title

def default_exp(nb_file):
    "The module a notebook exports to (`#| default_exp core` -> 'core'), or None."
    m = re.search(r'#\|\s*default_exp\s+([\w.]+)', Path(nb_file).read_text(encoding='utf-8').replace('\\n', '\n')) if Path(nb_file).exists() else None
    return m[1] if m else None

def notebooks(nbs:Path):
    "The notebooks nbdev renders: every .ipynb under `nbs`, except in folders or files whose name starts with . or _."
    return sorted(p.relative_to(nbs).as_posix() for p in nbs.rglob('*.ipynb')
                  if not any(s.startswith(('.', '_')) for s in p.relative_to(nbs).parts))

def _number(nb): return re.match(r'(\d+)', Path(nb).name)[1] if re.match(r'\d', Path(nb).name) else None

def page_groups(sidebar_yml, nbs:list, say=print):
    """`sidebar_order` restricted to the notebooks that exist (`nbs`), with every notebook the sidebar does not list
    added to the group of its numbered siblings (`11_x` joins `10_y`'s group, `06d_x` joins `06a_y`'s), else at the end."""
    groups = [(c, [p for p in ps if p in nbs]) for c, ps in sidebar_order(sidebar_yml)]
    listed = {p for _, ps in sidebar_order(sidebar_yml) for p in ps}
    if listed - set(nbs): say(f"docs: sidebar.yml lists {', '.join(sorted(listed - set(nbs)))}, which nbs/ does not have: skipped")
    for nb in (nb for nb in nbs if nb not in listed):
        num = _number(nb)
        def same(p, num=num):     # a sibling: the same number (06a, 06d), or the same paper (10, 11, 12; not 0x)
            n = _number(p)
            return num is not None and n is not None and (n == num or (len(n) == len(num) == 2 and n[0] == num[0] != '0'))
        at = next((i for i, (_, ps) in enumerate(groups) if any(map(same, ps))), None)
        if at is None:
            if not groups or groups[-1][0] != 'More': groups.append(('More', []))
            at = len(groups) - 1
        ps = groups[at][1]
        sib = [i for i, p in enumerate(ps) if same(p)]
        ps.insert(next((i for i in sib if ps[i] > nb), sib[-1] + 1 if sib else len(ps)), nb)
        say(f'docs: {nb} is not in nbs/sidebar.yml; its page is listed under {groups[at][0] or "the top"}')
    return [(c, ps) for c, ps in groups if ps]

def load_pages(cache, groups):
    "Read the notebooks of `groups` from `cache` (_proc/): {path: (html name, front matter, notebook)}."
    pages = {}
    for _, paths in groups:
        for p in paths:
            nb = json.loads((cache/p).read_text(encoding='utf-8'))
            fm = front_matter(nb)
            html = posixpath.join(posixpath.dirname(p), fm.get('output-file') or Path(p).stem + '.html')
            clash = [q for q, v in pages.items() if v[0] == html]
            if clash: sys.exit(f'docs: {clash[0]} and {p} both render to {html}; rename one of them')
            pages[p] = (html, fm, nb)
    return pages

def _has_math(nb):
    return any(_MATH.search(_src(c['source'])) for c in nb['cells'] if c['cell_type'] == 'markdown') or \
        any(_MATH.search(_src(o.get('data', {}).get('text/markdown', ''))) for c in nb['cells'] for o in c.get('outputs', []))

def myst_notebook(path, html, fm, nb, site, toctree='', module=None):
    """A plain notebook for myst-nb: a title cell (with the module the page documents, `module`), the adapted cells, and
    the site's toctree on the home page."""
    head = f"# {fm.get('title') or Path(html).stem}\n"
    if fm.get('description'): head += f"\n{{.page-description}}\n{fm['description'].strip()}\n"
    if module: head += f"\n{{.page-module}}\nModule `{module}`\n"
    cells = [{'cell_type': 'markdown', 'metadata': {}, 'source': head}]
    for kind, *rest in adapt_cells(nb, site, path, 'myst', title=fm.get('title') or ''):
        if kind == 'md': cells.append({'cell_type': 'markdown', 'metadata': {}, 'source': rest[0]})
        else:
            code, tags, outs, meta = rest
            md = {'tags': tags} if tags else {}
            if meta.get('alt'): md['mystnb'] = {'image': {'alt': meta['alt']}}     # what the figure shows, from its caption
            cells.append({'cell_type': 'code', 'metadata': md, 'source': code, 'execution_count': None, 'outputs': outs})
    if toctree: cells.append({'cell_type': 'markdown', 'metadata': {}, 'source': toctree})
    for i, c in enumerate(cells): c['id'] = f'c{i}'
    return {'nbformat': 4, 'nbformat_minor': 5, 'cells': cells,
            'metadata': {'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'},
                         'language_info': {'name': 'python', 'pygments_lexer': 'ipython3'}}}

CSS = """.page-description { font-size: 1.15em; color: var(--pst-color-text-muted); margin-bottom: 0.5em; }
.page-module { font-size: 0.9em; color: var(--pst-color-text-muted); margin-bottom: 1.5em; }
a[style*="float:right"] { font-size: smaller; }
.bd-article [id] { scroll-margin-top: 5rem; }   /* anchors (show_doc entries) clear the sticky header */
.bd-article img { max-width: 100%; height: auto; }   /* figures keep their aspect ratio when the column is narrower */
.bd-page-width { max-width: 96rem; }                  /* room for code: the text column grows on wide screens */
.bd-main .bd-content .bd-article-container { max-width: 72rem; }
/* code, outputs (text and HTML <pre>, such as progress bars) and API signatures wrap at the column's width instead of
   scrolling sideways; at 0.75rem a line of 110 characters fits the column at 1280 px */
.bd-article .highlight pre, .bd-article .cell_output pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.75rem; }
.bd-sidebar-primary { width: 15rem; flex-basis: 15rem; } .bd-sidebar-secondary { width: 13rem; flex-basis: 13rem; }
.bd-sidebar-secondary .sidebar-secondary-item { min-width: 0; }
/* the page's contents: names break only after `_` or `.` (the build puts <wbr> there), never inside a word; API entries
   are listed under their section, in code type, and unfold with the section being read */
.bd-sidebar-secondary nav a, .page-toc a { overflow-wrap: normal; word-break: normal; hyphens: none; }
.page-toc li.toc-api > a { font-family: var(--pst-font-family-monospace); font-size: 0.8em; }
#pst-header { display: none; }   /* pydata's top bar holds only a second search field (the sidebar and the article header have one) */
/* nothing is wider than a phone's screen: headings and inline code wrap (names after `_` and `.`), display math and
   tables scroll inside their own box */
.bd-article h1, .bd-article h2, .bd-article h3, .bd-article h4, .bd-article h5, .bd-article h6 { overflow-wrap: break-word; }
.bd-article code, .bd-article code span.pre { overflow-wrap: anywhere; white-space: pre-wrap; }
.bd-article div.math, .bd-article mjx-container[display="true"] { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
.bd-article .pst-scrollable-table-container, .bd-article .cell_output .output { max-width: 100%; overflow-x: auto; }
.bd-article .cell_output table { display: block; max-width: 100%; overflow-x: auto; }
.bd-article .figure-caption { font-size: 0.9em; color: var(--pst-color-text-muted); margin-top: -0.25rem; }
/* on a phone a figure is not shrunk below the width at which its text stays legible (`--fig-min`, set by the build from
   the figure's resolution): a wider one scrolls inside its box */
@media (max-width: 767.98px) {
  .bd-article .cell_output { overflow-x: auto; }
  .bd-article .cell_output img[style*="--fig-min"] { min-width: var(--fig-min); }
  .bd-article h1 { font-size: 1.9rem; }                  /* the story starts within the first screen */
  .bd-article h2 { font-size: 1.5rem; } .bd-article h3 { font-size: 1.25rem; } .bd-article h4 { font-size: 1.1rem; }
  .bd-article .page-description { font-size: 1em; }
}
/* a printed table (columns aligned with spaces; the build marks it `text-table`) keeps its columns: wrapping would scramble
   them, so a table wider than the column scrolls inside its box */
.bd-article .cell_output pre.text-table { white-space: pre; overflow-wrap: normal; overflow-x: auto; }
"""

SITE_JS = """// Search: section-level hits, and result snippets in plain text from the page's article (not from the theme's
// navigation or contents list; formulas as readable symbols, not TeX).
const HDBO_TEX = %(tex)s;
const hdboTexText = tex => {
  let t = tex.replace(/^\\s*\\\\[(\\[]|\\\\[)\\]]\\s*$/g, '').replace(/^\\\\[(\\[]|\\\\[)\\]]$/g, '');
  t = t.replace(/\\\\[(\\[]/g, '').replace(/\\\\[)\\]]/g, '');
  t = t.replace(/\\\\(?:frac|dfrac|tfrac)\\s*\\{([^{}]*)\\}\\s*\\{([^{}]*)\\}/g, '($1)/($2)');
  t = t.replace(/\\\\(?:left|right|big|Big|bigg|Bigg)\\b\\s*/g, '');
  t = t.replace(/\\\\(?:math\\w+|text\\w*|operatorname|boldsymbol|bm|hat|tilde|bar|widehat|widetilde|overline)\\s*/g, '');
  t = t.replace(/\\\\([A-Za-z]+|\\|)/g, (m, w) => HDBO_TEX[w] !== undefined ? HDBO_TEX[w] : w);
  t = t.replace(/\\\\[,;:! ]/g, ' ').replace(/\\\\/g, ' ').replace(/[{}]/g, '').replace(/\\((\\w+)\\)\\/\\((\\w+)\\)/g, '$1/$2');
  return t.replace(/\\s+/g, ' ').trim();
};
const HDBO_CHROME = '.headerlink, script, style, nav, .toctree-wrapper, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header, ' +
                    '.bd-footer, .bd-header-article, .bd-footer-article, .prev-next-area, a[target="_blank"][style*="float"]';
const hdboPlain = (el, withSubsections = true, withCode = true) => {
  const c = el.cloneNode(true);
  c.querySelectorAll(HDBO_CHROME).forEach(e => e.remove());
  if (!withSubsections) c.querySelectorAll('section').forEach(e => e.remove());
  if (!withCode) c.querySelectorAll('.cell_input, div.highlight, pre').forEach(e => e.remove());
  c.querySelectorAll('.math').forEach(m => m.replaceWith(' ' + hdboTexText(m.textContent) + ' '));
  return c.textContent.replace(/\\s+/g, ' ').trim();
};
const hdboWords = s => s.toLowerCase().split(/[^\\p{L}\\p{N}]+/u).filter(Boolean);
const hdboPatchSearch = () => {
  if (typeof Search === 'undefined' || !Search._performSearch || Search._hdbo) return;
  Search._hdbo = true;
  Search.htmlToText = (html, anchor) => {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    const main = doc.querySelector('[role="main"]') || doc.body;
    return hdboPlain((anchor && main.querySelector(anchor)) || main);
  };
  // Sphinx offers a section whose title contains the query only when the query is at least half the title: "Dantzig"
  // finds neither `dantzig_selector` nor "The Dantzig selector (Eq. 2)". Here every query word that begins a word of a
  // section's title (words split at `_`, `.`, spaces and punctuation) makes that section a hit, linked to its anchor.
  const perform = Search._performSearch;
  Search._performSearch = (query, ...rest) => {
    const results = perform(query, ...rest);
    const q = hdboWords(query).filter(w => w.length > 1);
    const idx = Search._index;
    if (!q.length || !idx || !idx.alltitles) return results;
    const have = new Set(results.map(r => r[0] + r[2])), extra = [];
    for (const [title, found] of Object.entries(idx.alltitles)) {
      const tw = hdboWords(title);
      if (!q.every(w => tw.some(t => t.startsWith(w)))) continue;
      for (const [file, id] of found) {
        if (!id || have.has(idx.docnames[file] + '#' + id)) continue;
        const score = Scorer.title + Math.round(10 * q.join('').length / title.length);
        extra.push([idx.docnames[file], `${idx.titles[file]} › ${title}`, '#' + id, null, score, idx.filenames[file], 'title']);
      }
    }
    extra.sort((a, b) => a[4] - b[4] || (a[1] > b[1] ? -1 : 1));
    return results.concat(extra.slice(-20));     // Sphinx shows the last results first
  };
  // A hit on a page's text links to the section that holds the words (and says which), with a snippet from there.
  Search.makeSearchSummary = (html, keywords, anchor) => {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    const main = doc.querySelector('[role="main"]') || doc.body;
    const kws = [...keywords].map(k => k.toLowerCase()).filter(Boolean);
    const has = t => kws.some(k => t.toLowerCase().includes(k));
    let scope = anchor ? main.querySelector(anchor) : null, refined = null;
    if (!scope) {   // the first section whose own prose has the words, else whose own text (code included) has them
      const secs = [...main.querySelectorAll('section section')];
      refined = secs.find(s => has(hdboPlain(s, false, false))) || secs.find(s => has(hdboPlain(s, false))) || null;
    }
    const sub = !refined, el = refined || scope || main;
    const text = has(hdboPlain(el, sub, false)) ? hdboPlain(el, sub, false) : hdboPlain(el, sub);
    if (!text) return null;
    const lower = text.toLowerCase(), hits = kws.map(k => lower.indexOf(k)).filter(i => i >= 0);
    const start = Math.max((hits.length ? Math.min(...hits) : 0) - 80, 0);
    const p = document.createElement('p');
    p.classList.add('context');
    p.textContent = (start > 0 ? '… ' : '') + text.substr(start, 240).trim() + (start + 240 < text.length ? ' …' : '');
    if (refined && refined.id) {
      const h = refined.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5, :scope > h6');
      const title = h ? hdboPlain(h) : '';
      setTimeout(() => {
        const li = p.parentElement, a = li && li.querySelector('a');
        if (!a || a.hash) return;
        a.href += '#' + refined.id;
        if (title) a.textContent += ' › ' + title;
        const same = [...document.querySelectorAll('#search-results li > a')].filter(b => b !== a && b.href === a.href);
        if (same.length) li.remove();             // that section is already a hit (its title has the words)
      }, 0);
    }
    return p;
  };
};
hdboPatchSearch();
document.addEventListener('DOMContentLoaded', hdboPatchSearch);

// The themes bind their sidebar toggles to the first `.primary-toggle` / `.secondary-toggle` of the page, which sits in
// pydata's top bar (hidden: it holds only a second search field); the buttons a reader sees are in the article's header.
// A click on any of them goes to the first one: the sidebar collapses on a desktop and opens as a panel on a phone.
document.addEventListener('click', e => {
  const t = e.target.closest && e.target.closest('.primary-toggle, .secondary-toggle');
  if (!t) return;
  const first = document.querySelector(t.classList.contains('primary-toggle') ? '.primary-toggle' : '.secondary-toggle');
  if (first && first !== t) { e.preventDefault(); first.click(); }
});
""" % {'tex': json.dumps(_TEX_WORDS, ensure_ascii=False)}

CONF = """# Generated by tools/docs.py; edit that file, not this one.
project = html_title = {title!r}
author, copyright = {author!r}, {copyright!r}
extensions = ['myst_nb', 'sphinx.ext.mathjax', 'sphinx-mathjax-offline']   # MathJax 3 served from _static/
nb_execution_mode = 'off'                 # notebooks carry their outputs, as nbdev's do
nb_render_markdown_format = 'myst'        # show_doc tables and math in markdown outputs
nb_ipywidgets_js = {{}}                     # no widget JavaScript from a CDN
myst_enable_extensions = ['dollarmath', 'amsmath', 'colon_fence', 'attrs_block']
myst_dmath_double_inline = True           # $$...$$ inside a paragraph, as pandoc allows
myst_all_links_external = True            # links are already relative .html paths, as on the Quarto site
myst_heading_anchors = 3
suppress_warnings = ['myst.header']
exclude_patterns = ['_build', '**.ipynb_checkpoints']
html_theme = 'sphinx_book_theme'
# the repository (button and source links) comes from settings.ini's git_url; none when it is empty. 'auto' follows the
# reader's system (the theme's default is an empty mode, which it reports as an error in the console on a first visit).
html_theme_options = {{'repository_url': {repo!r}, 'use_repository_button': {has_repo!r}, 'use_download_button': False,
                      'home_page_in_toc': True, 'show_toc_level': 1}}
html_context = {{'default_mode': 'auto'}}
html_favicon = '_static/favicon.svg'
html_static_path = ['_static']
html_css_files = ['hdbo.css']
html_js_files = ['hdbo.js']
html_copy_source = html_show_sourcelink = False
html_last_updated_fmt = None
"""

FAVICON = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2c5282"/>
<path d="M4 24 C 9 24, 10 8, 16 8 S 23 20, 28 14" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/>
<circle cx="16" cy="8" r="3" fill="#f6ad55"/></svg>
"""

def _digest(p:Path): return hashlib.sha256(p.read_bytes()).hexdigest()

def _inputs():
    return [p for d in ('nbs', 'hdbo_nb') for p in sorted((ROOT/d).rglob('*'))
            if p.is_file() and '__pycache__' not in p.parts and not any(s.startswith('.') for s in p.relative_to(ROOT).parts)]

def notebook_digests():
    "{'nbs/01_gp.ipynb': sha256 of its bytes} for every notebook under nbs/: what a build reads."
    return {p.relative_to(ROOT).as_posix(): _digest(p) for p in _inputs() if p.suffix == '.ipynb'}

def fingerprint(notebooks:dict=None):
    """A hash of everything the site is built from: notebooks (as in `notebooks`, the digests a build took before it read
    them, else as they are now), the other files of nbs/, the package, settings, this script."""
    h = hashlib.sha256()
    for rel, d in sorted((notebook_digests() if notebooks is None else notebooks).items()): h.update(rel.encode()); h.update(d.encode())
    for p in [p for p in _inputs() if p.suffix != '.ipynb'] + [ROOT/'settings.ini', Path(__file__).resolve()]:
        h.update(p.relative_to(ROOT).as_posix().encode()); h.update(_digest(p).encode())
    return h.hexdigest()

PROC_DIGESTS = ROOT/'.cache'/'docs'/'proc-digests.json'

def _proc_digest():
    "A hash of the part of this script that shapes nbdev's processing (its patches of fastcore and nbdev)."
    import inspect
    return hashlib.sha256((inspect.getsource(_patch_fastcore) + inspect.getsource(proc)).encode()).hexdigest()

def _package_digest():
    """A hash of the package's modules: the processed pages take their doc links and source line numbers from them, so a
    change of any exported name re-processes every page that may link to it (all of them)."""
    h = hashlib.sha256()
    for p in sorted((ROOT/'hdbo_nb').rglob('*.py')):
        if '__pycache__' not in p.parts and p.name != '_modidx.py': h.update(p.relative_to(ROOT).as_posix().encode()); h.update(_digest(p).encode())
    return h.hexdigest()

def _proc_inputs():
    "What nbdev's processing reads beside the notebooks: this script's patches and the package (keys outside nbs/)."
    return {'tools/docs.py': _proc_digest(), 'hdbo_nb/': _package_digest()}

def forget_stale_proc(digests:dict, cache:Path=ROOT/'_proc'):
    """nbdev re-processes a notebook only when it is newer than its folder _proc/, which it touches when it finishes: a
    notebook saved while nbdev runs would stay stale for good. Delete the processed copy of every notebook whose content
    differs from what the last build read (all of them when that is unknown), so that nbdev processes it again; all of
    them when the processing or what it links to changed (`digests`' keys outside nbs/, from `_proc_inputs`: this
    script's patches, which shape show_doc, and the package, whose names and line numbers the pages link to)."""
    old = json.loads(PROC_DIGESTS.read_text()) if PROC_DIGESTS.exists() else {}
    if any(old.get(rel) != d for rel, d in digests.items() if not rel.startswith('nbs/')):   # the processing itself changed
        for f in cache.rglob('*.ipynb') if cache.is_dir() else (): f.unlink()
    for rel, d in digests.items():
        if rel.startswith('nbs/') and old.get(rel) != d: (cache/Path(rel).relative_to('nbs')).unlink(missing_ok=True)

def prune_mathjax(mj:Path, keep:str='tex-chtml.js'):
    """The pages load one MathJax bundle (`keep`: TeX input, CommonHTML output, the menu), then its fonts and, for a macro
    outside the bundle, a TeX extension. Everything else is never requested: the other bundles and the components they
    are made of, the SVG output, MathML and AsciiMath input, the node entry point, and the speech-rule engine (`sre/`,
    3.9 MB of speech rules in 20 languages, loaded only by the accessibility explorer, which the pages do not enable)."""
    if not mj.is_dir() or not (mj/keep).exists(): return
    for f in mj.glob('*.js'):
        if f.name != keep and (f.name.startswith(('tex-', 'mml-')) or f.name in
                               ('node-main.js', 'latest.js', 'core.js', 'startup.js', 'loader.js')): f.unlink()
    for rel in ('output/svg', 'output/svg.js', 'output/chtml.js', 'input/tex.js', 'input/tex-full.js', 'input/tex-base.js',
                'input/mml', 'input/mml.js', 'input/asciimath.js', 'adaptors', 'sre', 'a11y/sre.js', 'a11y/explorer.js',
                'a11y/semantic-enrich.js', 'a11y/complexity.js'):
        d = mj/rel
        if d.is_dir(): shutil.rmtree(d)
        elif d.exists(): d.unlink()

def _png_facts(data:bytes):
    "(width, height, dpi or None) of a PNG from its header and `pHYs` chunk (matplotlib writes the figure's dpi there)."
    import struct
    if data[:8] != b'\x89PNG\r\n\x1a\n': return None
    i, w, h, dpi = 8, None, None, None
    while i + 8 <= len(data):
        n, kind = struct.unpack('>I', data[i:i + 4])[0], data[i + 4:i + 8]
        body = data[i + 8:i + 8 + n]
        if kind == b'IHDR': w, h = struct.unpack('>II', body[:8])
        elif kind == b'pHYs' and len(body) == 9:
            x, _, unit = struct.unpack('>IIB', body)
            if unit == 1 and x: dpi = round(x * 0.0254)
        elif kind == b'IDAT': break
        i += 12 + n
    return (w, h, dpi) if w and h else None

# Figures are legible when the text matplotlib draws at its default size (10 pt) is at least this tall on screen (CSS px):
FIG_TEXT_PX = 9             # at a desktop width (1400 px), as the project's standards ask
FIG_TEXT_PX_PHONE = 7       # on a phone (its CSS pixel is 2-3 device pixels); a wider figure scrolls inside its box
MPL_DEFAULT_PT = 10

def figure_min_width(width, dpi, text_px=FIG_TEXT_PX_PHONE):
    "The narrowest width (CSS px) at which a figure `width` px wide saved at `dpi` shows default-size text `text_px` tall."
    return round(width * min(1.0, text_px / (MPL_DEFAULT_PT * dpi / 72))) if dpi else None

_IMG = re.compile(r'<img\b([^>]*?)\bsrc="([^"]+\.png)"([^>]*?)\s*/?>')
_HEADING = re.compile(r'(<h[1-6][^>]*>)(.*?)(</h[1-6]>)', re.S)
_TOC_LINK = re.compile(r'(<li class="([^"]*)">)(<a class="reference internal nav-link[^"]*" href="[^"]*">)(.*?)(</a>)', re.S)
_API_SECTION = re.compile(r'<section id="([^"]+)">\s*(?:<span id="[^"]*"></span>)*<h[1-6]>[^<]*(?:<wbr>[^<]*)*<a class="headerlink"'
                          r'[^>]*>[^<]*</a></h[1-6]>\s*<div class="highlight-python notranslate">')

def _wbr(html):
    "`<wbr>` after `_` and `.` inside names in the text (not in tags or entities) of an HTML fragment: where a name may break."
    parts = re.split(r'(<[^>]+>|&\w+;|&#\d+;)', html)
    return ''.join(p if p.startswith(('<', '&')) else re.sub(r'(?<=\w)([_.])(?=\w)', r'\1<wbr>', p) for p in parts)

_OUTPUT_PRE = re.compile(r'(<div class="output [^"]*"><div class="highlight"><pre)>(.*?)(</pre>)', re.S)

def is_text_table(text):
    "Printed text laid out as a table: most of its lines (at least three) have columns aligned by runs of spaces."
    import html as _html
    lines = [l for l in _html.unescape(re.sub(r'<[^>]+>', '', text)).split('\n') if l.strip()]
    return len(lines) >= 3 and sum(bool(re.search(r'\S {2,}\S', l.strip())) for l in lines) >= 0.6 * len(lines)

def finish_pages(out:Path):
    """Finish the HTML Sphinx wrote. Headings and the page's contents get `<wbr>` after `_` and `.`, so that a long name
    (`EmbeddingCore.make_embedding`) breaks there on a phone and never inside a word; the contents list marks API entries
    (`toc-api`). Figures get their size (no page jump while they load), their resolution (`data-dpi`) and the narrowest
    width at which their text stays legible on a phone (`--fig-min`, used by the stylesheet). Printed tables are marked
    (`text-table`): they keep their columns and scroll in their box where the column is too narrow."""
    facts = {}
    for page in out.rglob('*.html'):
        html = page.read_text(encoding='utf-8')
        def img(m):
            attrs = m[1] + m[3]
            src = page.parent/m[2]
            if 'data-dpi=' in attrs or not src.is_file(): return m[0]
            if src not in facts: facts[src] = _png_facts(src.read_bytes())
            f = facts[src]
            if not f: return m[0]
            w, h, dpi = f
            extra = f' width="{w}" height="{h}"' if 'width=' not in attrs else ''    # a retina figure has its own width
            if dpi: extra += f' data-dpi="{dpi}"' + (f' style="--fig-min: {figure_min_width(w, dpi)}px"' if 'style=' not in attrs else '')
            return f'<img{m[1]}src="{m[2]}"{m[3]}{extra} />'
        html = _IMG.sub(img, html)
        html = _OUTPUT_PRE.sub(lambda m: m[1] + (' class="text-table">' if is_text_table(m[2]) else '>') + m[2] + m[3], html)
        body_at = html.find('<main')
        if body_at >= 0:
            head, body = html[:body_at], html[body_at:]
            body = _HEADING.sub(lambda m: m[1] + _wbr(m[2]) + m[3], body)
            api = set(_API_SECTION.findall(body))        # sections that are API entries: a heading, then a signature
            def toc(m):
                href = re.search(r'href="#([^"]+)"', m[3])
                cls = m[2] + (' toc-api' if href and href[1] in api else '')
                return f'<li class="{cls}">' + m[3] + _wbr(m[4]) + m[5]
            body = _TOC_LINK.sub(toc, body)
            html = head + body
        page.write_text(html, encoding='utf-8')

_FA_JS = re.compile(r'<script defer src="(?:\.\./)*_static/scripts/fontawesome\.js(?:\?[^"]*)?"></script>\n?')

def prune_theme(out:Path):
    """Drop what no reader needs: source maps (read only by a browser's developer tools), the theme's translation
    catalogues (used while building), and Font Awesome's 1.6 MB SVG script, the largest file every page loaded: the
    theme's stylesheet already draws the same icons from Font Awesome's webfonts."""
    static = out/'_static'
    for f in static.rglob('*.map'): f.unlink()
    shutil.rmtree(static/'locales', ignore_errors=True)
    for page in out.rglob('*.html'):
        html = page.read_text(encoding='utf-8')
        if 'fontawesome.js' in html: page.write_text(_FA_JS.sub('', html), encoding='utf-8')
    (static/'scripts'/'fontawesome.js').unlink(missing_ok=True)

def build_offline(out:Path, n_workers=2, printed=None):
    "The site with nbdev's processing, the adapter and Sphinx; the lines it prints are kept in the site's stamp."
    t0, printed, noise = time.time(), list(printed or []), []
    def say(line): print(line); printed.append(line)
    digests = notebook_digests()            # before nbdev reads them: a notebook saved during the build counts as changed
    read = dict(digests, **_proc_inputs())  # and what processing reads beside them, also before
    forget_stale_proc(read)
    cache = proc(n_workers, noise)
    PROC_DIGESTS.parent.mkdir(parents=True, exist_ok=True)
    PROC_DIGESTS.write_text(json.dumps(read, indent=0))
    t1, fp = time.time(), fingerprint(digests)   # after proc, which refreshes nbdev.yml and _modidx.py
    cfg = _settings()
    groups = page_groups(cfg.nbs_path/'sidebar.yml', notebooks(cfg.nbs_path), say)
    pages = load_pages(cache, groups)
    labels = sidebar_texts(cfg.nbs_path/'sidebar.yml')
    for nb_path, (_, fm, _) in pages.items():
        if page_title(fm.get('title'), labels.get(nb_path)) != fm.get('title'): fm['title'] = labels[nb_path]
    site = Site(cfg, {p: html for p, (html, _, _) in pages.items()}, {html: anchors(nb) for html, _, nb in pages.values()})
    src = SRC/'src'
    shutil.rmtree(src, ignore_errors=True); (src/'_static').mkdir(parents=True)
    for f in cache.rglob('*'):          # figures and other files the notebooks link to
        rel = f.relative_to(cache)
        if f.is_file() and f.suffix not in ('.ipynb', '.yml', '.yaml', '.qmd', '.md', '.css') and not rel.parts[0].startswith(('_', '.')):
            (src/rel).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(f, src/rel)
    docs = {p: html[:-len('.html')] for p, (html, _, _) in pages.items()}
    root = next((p for p in docs if docs[p] == 'index'), None)
    if root is None: sys.exit('docs: no notebook renders to index.html (nbs/index.ipynb is the home page)')
    toc = ''
    for caption, paths in groups:
        names = [docs[p] for p in paths if p in docs and p != root]
        if names: toc += '```{toctree}\n:hidden:\n' + (f':caption: {caption}\n' if caption else '') + '\n' + '\n'.join(names) + '\n```\n\n'
    manifest = []
    for p, (html, fm, nb) in pages.items():
        dst = src/(docs[p] + '.ipynb'); dst.parent.mkdir(parents=True, exist_ok=True)
        mod = default_exp(cfg.nbs_path/p)
        dst.write_text(json.dumps(myst_notebook(p, html, fm, nb, site, toc if p == root else '',
                                                module=f'{cfg.lib_name}.{mod}' if mod else None), indent=1))
        manifest.append({'notebook': p, 'page': html, 'title': fm.get('title'), 'math': _has_math(nb)})
    if site.unanchored:
        say(f'docs: {len(site.unanchored)} doc link(s) name something without a show_doc entry; they point at the '
            f'page instead: ' + ', '.join(sorted(site.unanchored)[:8]) + (' ...' if len(site.unanchored) > 8 else ''))
    nbd = yaml_load(cache/'nbdev.yml').get('website', {})
    (src/'conf.py').write_text(CONF.format(title=nbd.get('title') or cfg.lib_name, repo=git_url(), has_repo=bool(git_url()),
                                             author=cfg.get('author', ''), copyright=cfg.get('copyright', '')))
    (src/'_static'/'hdbo.css').write_text(CSS)
    (src/'_static'/'hdbo.js').write_text(SITE_JS)
    icon = cfg.nbs_path/'favicon.svg'           # the site's icon, shared with Quarto's build (_quarto.yml: website.favicon)
    (src/'_static'/'favicon.svg').write_text(icon.read_text() if icon.exists() else FAVICON)
    if out.exists(): shutil.rmtree(out)
    cmd = [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q', '-E', '-b', 'html', '-d', str(SRC/'doctrees'), str(src), str(out)]
    r = subprocess.run(cmd)
    if r.returncode: sys.exit(f'docs: sphinx-build failed (exit {r.returncode}); warnings are errors (-W)')
    prune_mathjax(out/'_static'/'mathjax'); prune_theme(out); finish_pages(out)
    say(f'docs: offline engine: {len(pages)} pages in {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} '
        f'(nbdev processing {t1 - t0:.1f} s, sphinx {time.time() - t1:.1f} s)')
    (out/STAMP).write_text(json.dumps({'engine': 'offline', 'fingerprint': fp, 'pages': manifest, 'seconds': round(time.time() - t0, 1),
                                       'printed': printed, 'nbdev_output': noise}, indent=1))

def yaml_load(p):
    import yaml
    return yaml.safe_load(Path(p).read_text()) if Path(p).exists() else {}

def build(engine='auto', out=None):
    out = Path(out) if out else ROOT/'_docs'
    if engine == 'auto': engine = 'quarto' if shutil.which('quarto') else 'offline'
    line = f'docs: using the {engine} engine' + (' (quarto is not on PATH)' if engine == 'offline' else ' (nbdev_docs)')
    print(line)
    if engine == 'offline': return build_offline(out, printed=[line])
    with _in_root(): subprocess.run([str(Path(sys.executable).parent/'nbdev_docs')], check=True)
    write_readme()     # nbdev_docs may have rendered README.md with Quarto; keep the one `make readme` checks
    (ROOT/'_docs'/STAMP).write_text(json.dumps({'engine': 'quarto', 'fingerprint': fingerprint()}))
    if out != ROOT/'_docs': shutil.copytree(ROOT/'_docs', out, dirs_exist_ok=True)

# ------------------------------------------------------------------ README.md
def _fence(text, lang=''):
    text = text.rstrip('\n')
    ticks = '`' * max(3, 1 + max((len(m) for m in re.findall(r'`+', text)), default=0))
    return f'{ticks}{lang}\n{text}\n{ticks}'

def to_gfm(nb, site, here, title):
    "GitHub markdown for one processed notebook (front matter already in `nb`): text, {image path: bytes}."
    import base64
    fm = front_matter(nb)
    parts, files = [f"# {fm.get('title') or title}"], {}
    if fm.get('description'): parts.append('> ' + ' '.join(fm['description'].split()))
    for i, (kind, *rest) in enumerate(adapt_cells(nb, site, here, 'gfm')):
        if kind == 'md': parts.append(rest[0].strip('\n')); continue
        code, tags, outs, meta = rest
        if 'remove-input' not in tags: parts.append(_fence(code, 'python'))
        for j, o in enumerate(outs if 'remove-output' not in tags else []):
            d = o.get('data', {})
            if o['output_type'] == 'stream': parts.append(_fence(_src(o['text'])))
            elif o['output_type'] == 'error': parts.append(_fence(re.sub(r'\x1b\[[0-9;]*m', '', '\n'.join(o.get('traceback', [])))))
            elif 'text/markdown' in d: parts.append(_src(d['text/markdown']).strip('\n'))
            elif 'image/png' in d:
                name = f'README_files/cell-{i}-output-{j}.png'
                files[name] = base64.b64decode(_src(d['image/png'])); parts.append(f'![{meta.get("alt", "")}]({name})')
            elif 'text/html' in d: parts.append(_src(d['text/html']).strip('\n'))
            elif 'text/plain' in d: parts.append(_fence(_src(d['text/plain'])))
    text = '\n\n'.join(p for p in parts if p.strip()) + '\n'
    return re.sub(r'\n{3,}', '\n\n', text), files

def readme():
    "README.md text (GitHub markdown) and its image files, from nbs/index.ipynb through the same adapter."
    cfg = _settings()
    name = cfg.get('readme_nb', 'index.ipynb')
    from nbdev.doclinks import _nbpath2html       # the page name nbdev gives a notebook (front matter's output-file)
    pages = {p.relative_to(cfg.nbs_path).as_posix(): _nbpath2html(p.relative_to(cfg.nbs_path)).as_posix()
             for p in cfg.nbs_path.rglob('*.ipynb')}
    return to_gfm(proc_one(cfg.nbs_path/name), Site(cfg, pages), name, cfg.lib_name)

def write_readme(check=False):
    text, files = readme()
    want = {ROOT/'README.md': text.encode()} | {ROOT/k: v for k, v in files.items()}
    stale = [p.relative_to(ROOT) for p, b in want.items() if not p.exists() or p.read_bytes() != b]
    if check:
        if stale: sys.exit(f'README is stale ({", ".join(map(str, stale))}): run `make readme`')
        return print('README.md is up to date with nbs/index.ipynb')
    for p, b in want.items(): p.parent.mkdir(parents=True, exist_ok=True); p.write_bytes(b)
    print(f'wrote README.md from nbs/index.ipynb' + (f' and {len(files)} image(s) in README_files/' if files else ''))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    b = sub.add_parser('build', help='build the site into _docs/ (Quarto if installed, else offline)')
    b.add_argument('--engine', choices=['auto', 'quarto', 'offline'], default='auto')
    b.add_argument('--out', default=None, help='output folder (default _docs/)')
    sub.add_parser('proc', help="nbdev's processing of nbs/ into _proc/, without Quarto")
    r = sub.add_parser('readme', help='write README.md from nbs/index.ipynb')
    r.add_argument('--check', action='store_true', help='only check that README.md is up to date')
    a = ap.parse_args(argv)
    if a.cmd == 'build': build(a.engine, a.out)
    elif a.cmd == 'proc': print(f'processed notebooks into {proc()}')
    else: write_readme(a.check)

if __name__ == '__main__':   # required: nbdev's proc_nbs starts its workers with multiprocessing "spawn"
    main()
