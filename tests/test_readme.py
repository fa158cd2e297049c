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

# ---- every snippet runs as printed (issue 36)
import json, os, re, shlex, subprocess, sys

def _blocks(text:str) -> list:
    "(language, code) of every fenced block."
    return re.findall(r'```(\w*)\n(.*?)```', text, re.S)

def _prose() -> dict:
    "The markdown of README.md and of every notebook's prose cells, by file name."
    out = {'README.md': (ROOT/'README.md').read_text(encoding='utf-8')}
    for nb in sorted((ROOT/'nbs').glob('*.ipynb')):
        out[nb.name] = '\n\n'.join(''.join(c['source']) for c in json.loads(nb.read_text(encoding='utf-8'))['cells']
                                   if c['cell_type'] == 'markdown')
    return out

def _run(code:str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND='Agg', PYTHONPATH=str(ROOT), HDBO_PROGRESS='0')
    return subprocess.run([sys.executable, '-c', code], cwd=cwd, capture_output=True, text=True, env=env, timeout=900)

def test_readme_snippets_run_as_printed(tmp_path):
    "The README's Python blocks, in order, in a fresh process and an empty directory: nothing undefined, nothing left to a comment."
    code = '\n'.join(b for lang, b in _blocks(_prose()['README.md']) if lang == 'python')
    assert 'ask()' in code and 'tell(' in code and 'catch=' in code and 'checkpoint=' in code and '.plot()' in code
    p = _run(code, tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]

def test_docs_snippets_run_as_printed(tmp_path):
    "A Python block in a notebook's prose (its code cells run in the notebook tests) runs on its own."
    for name, text in _prose().items():
        if name == 'README.md': continue
        for i, (lang, code) in enumerate(_blocks(text)):
            if lang != 'python': continue
            d = tmp_path / f'{name}-{i}'; d.mkdir()
            p = _run(code, d)
            assert p.returncode == 0, f"{name}, block {i}:\n{code}\n{p.stderr[-2000:]}"

def _command_lines() -> list:
    "Every concrete `hdbo ...` or `make ...` line of the docs: shell blocks, the CLI's epilog and inline code (no placeholders)."
    from hdbo_nb.cli import EPILOG
    lines = [(f, l.strip()) for f, t in _prose().items() for lang, b in _blocks(t) if lang in ('sh', 'bash', 'shell')
             for l in b.splitlines()]
    lines += [(f, m) for f, t in _prose().items() for m in re.findall(r'`((?:hdbo|make) [^`]+)`', t)]
    lines += [('cli EPILOG', l.strip()) for l in EPILOG.splitlines() if l.strip().startswith('hdbo ')]
    out = []
    for f, l in lines:
        cmd = re.sub(r'\s+', ' ', l.split('#')[0].split('  ')[0]).strip()
        if cmd.split(' ')[0] not in ('hdbo', 'make') or re.search(r'\b[A-Z]{3,}\b|[\[\]|]', cmd): continue   # placeholders
        if re.fullmatch(r'hdbo (run|plot)( --[\w-]+)*', cmd): continue   # the command's name in a sentence, not a command line
        out.append((f, cmd))
    return out

def test_command_lines_in_the_docs_are_valid():
    "Each `hdbo` command of the docs parses, and names an experiment that exists; each `make` target exists."
    from hdbo_nb.cli import make_parser
    from hdbo_nb.experiments import get_experiment
    targets = set(re.findall(r'^([\w-]+):', (ROOT/'Makefile').read_text(), re.M))
    cmds = _command_lines()
    assert any(c.startswith('hdbo run') for _, c in cmds) and any(c.startswith('make ') for _, c in cmds)
    for f, c in cmds:
        words = shlex.split(c)
        if words[0] == 'make': assert all(w in targets for w in words[1:]), (f, c); continue
        args = make_parser().parse_args(words[1:])
        if getattr(args, 'experiment', None): get_experiment(args.experiment, args.scale)
