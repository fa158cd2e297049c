"Same seed, same trace: for every method in the registry, including those the paper modules add."
import numpy as np, pytest
from hdbo_nb.experiments import load_all
from hdbo_nb.bo import METHODS, optimize
from hdbo_nb.functions import get_problem

load_all()  # paper modules register their methods on import

# a small budget keeps this quick; methods whose minimum budget is larger say so through `min_budget`
def _budget(name): return max(12, getattr(METHODS[name], 'min_budget', 0))

def _finite_problem():
    "A small problem on a finite domain, for the methods that search a finite set (`FiniteOptimizer`)."
    from hdbo_nb.core import Finite, FiniteProblem
    X = np.linspace(0, 5, 60)[:, None]
    return FiniteProblem(np.sin(3 * X[:, 0]), Finite(X, gram=np.exp(-0.5 * (X - X.T)**2)), noise_std=0.05)

def _case(name):
    "Problem, options and budget for `name`: finite-set methods get a finite problem; SI-BO's subspace methods a hidden-subspace problem."
    from hdbo_nb.bo import FiniteOptimizer
    from hdbo_nb.sibo import SubspaceUCB, sibo_gp_problem
    cls = METHODS[name]
    if issubclass(cls, FiniteOptimizer): return _finite_problem(), {}, _budget(name)
    if issubclass(cls, SubspaceUCB):  # Exact-UCB needs the true subspace; SI-BO's SI phase must fit in the budget
        return sibo_gp_problem(d=8, seed=0), (dict(m_X=3, m_Phi=20) if name == 'si-bo' else {}), 80
    return get_problem('hartmann3'), {}, _budget(name)

@pytest.mark.parametrize('name', sorted(METHODS))
def test_same_seed_same_trace(name):
    problem, opts, budget = _case(name)
    t1 = optimize(problem, name, budget=budget, rng=7, **opts)
    t2 = optimize(problem, name, budget=budget, rng=7, **opts)
    assert len(t1) == budget
    np.testing.assert_array_equal(t1.X, t2.X)
    np.testing.assert_array_equal(t1.y, t2.y)
