"One registry, no cycles (issue 36): every paper's names resolve in a fresh process, and imports point down the layers."
import ast, os, subprocess, sys, textwrap
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / 'hdbo_nb'

def _fresh(code:str, timeout:int=600) -> subprocess.CompletedProcess:
    "Run `code` in a new Python process (nothing imported before it)."
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND='Agg')
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT)

def test_paper_problems_resolve_by_name_in_a_fresh_process():
    p = _fresh("""
        import sys
        from hdbo_nb.functions import get_problem
        for name, kw in [('chaining-se', dict(N=40)), ('chaining-himmelblau', dict(N=40)), ('chaining-graphs', dict(N=40)),
                         ('sibo-gp', dict(d=6)), ('gabor', dict(size=5)), ('goucb-f1', {}), ('goucb-f3', dict(noise_std=0.01)),
                         ('goucb-hpo-rf-breast-cancer', dict(fold=1)), ('msucb-digits', dict(h=2)), ('boo-elasticnet', {})]:
            pr = get_problem(name, **kw)
            print(name, type(pr).__name__, pr.dim)
        """)
    assert p.returncode == 0, p.stderr[-3000:]
    got = {l.split()[0]: l.split()[1:] for l in p.stdout.splitlines()}
    assert got['chaining-se'] == ['FiniteProblem', '1'] and got['sibo-gp'] == ['Problem', '6']
    assert got['gabor'][1] == '25' and got['goucb-f1'][1] == '20' and got['msucb-digits'][1] == '20'
    assert len(got) == 10

def test_lookup_is_lazy_and_finds_methods_and_experiments():
    p = _fresh("""
        import sys
        from hdbo_nb.functions import get_problem
        get_problem('chaining-se', N=30)
        print('hdbo_nb.chaining' in sys.modules, 'hdbo_nb.goucb' in sys.modules, 'hdbo_nb.boo' in sys.modules)
        from hdbo_nb.bo import get_method
        from hdbo_nb.experiments import get_experiment
        print(get_method('si-bo').__name__, get_method('boo').__name__, get_experiment('chaining-fig2').name)
        """)
    assert p.returncode == 0, p.stderr[-3000:]
    lazy, names = p.stdout.splitlines()
    assert lazy == 'True False False'            # the search stopped at the module that registers the name
    assert names == 'SIBO BOO chaining-fig2'

def test_unknown_names_list_the_closest():
    from hdbo_nb.functions import get_problem
    from hdbo_nb.bo import get_method
    with pytest.raises(ValueError, match="did you mean 'chaining-se'"): get_problem('chaining_sE2')
    with pytest.raises(ValueError, match="did you mean 'si-bo'"): get_method('sibo')

def _imports(path:Path) -> set:
    "The package modules `path` imports, at the top or inside a function (relative and absolute)."
    tree, out = ast.parse(path.read_text()), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1: base = 'hdbo_nb' + (f'.{node.module}' if node.module else '')
            elif node.module and node.module.startswith('hdbo_nb'): base = node.module
            else: continue
            if base == 'hdbo_nb': out |= {f'hdbo_nb.{a.name}' for a in node.names if (PKG / f'{a.name}.py').exists()}
            else: out.add(base)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith('hdbo_nb.')}
    return {m for m in out if (PKG / f"{m.split('.', 1)[1]}.py").exists()}

def _graph() -> dict:
    return {f'hdbo_nb.{p.stem}': _imports(p) - {f'hdbo_nb.{p.stem}'} for p in PKG.glob('*.py') if p.stem != '_modidx'}

def _cycles(g:dict) -> list:
    "Strongly connected components with more than one module (Tarjan)."
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in g.get(v, ()):
            if w not in index: visit(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop(); on.discard(w); comp.add(w)
                if w == v: break
            if len(comp) > 1: out.append(comp)
    for v in g:
        if v not in index: visit(v)
    return out

LEFT_ALONE = {frozenset({'hdbo_nb.msucb', 'hdbo_nb.msucb_experiments'})}   # MS-UCB's claims move with its own work

def test_no_import_cycles():
    cycles = [c for c in _cycles(_graph()) if frozenset(c) not in LEFT_ALONE]
    assert not cycles, f"import cycles (top-level or inside functions): {cycles}"

@pytest.mark.parametrize('low, high', [
    ('registry', {'core', 'gp', 'acquisition', 'functions', 'bo', 'experiments', 'claims', 'cli'}),
    ('core', {'registry', 'gp', 'acquisition', 'functions', 'bo', 'experiments', 'claims', 'cli'}),
    ('gp', {'functions', 'bo', 'experiments', 'claims', 'cli'}),
    ('acquisition', {'functions', 'bo', 'experiments', 'claims', 'cli'}),
    ('functions', {'bo', 'experiments', 'claims', 'cli'}),
    ('bo', {'functions', 'experiments', 'claims', 'cli'}),
])
def test_lower_modules_never_import_higher_ones(low, high):
    "Not even lazily inside a function: the registries find higher modules by name (importlib), never by an import."
    g = _graph()
    papers = {m for m in g if m.split('.')[1].split('_')[0] in ('msucb', 'sibo', 'chaining', 'goucb', 'boo')}
    bad = g[f'hdbo_nb.{low}'] & ({f'hdbo_nb.{h}' for h in high} | papers)
    assert not bad, f"hdbo_nb.{low} imports {sorted(bad)}"
