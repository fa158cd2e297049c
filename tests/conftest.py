"""Shared test helpers.

Numbers stored in the repository
--------------------------------
OpenBLAS picks its kernels by CPU, so a fresh computation and a number committed from another machine differ in their
last bits, and an optimiser or a BO decision can amplify that. Every comparison of a fresh computation with a stored
number (the results cache, `bo_reference.json`, a table printed in a notebook) follows one rule, written out in
`nbs/00_core.ipynb` and implemented by `hdbo_nb.core.check_stored`:

- norm-wise relative, ``max|fresh - stored| <= rtol * max|stored| + atol``;
- `rtol` by what the number went through (`STORED_RTOL`): exact (counts, indices, choices), elementwise (closed forms),
  blas (products and long sums), solve (Cholesky, linear solves, GP posteriors), derivative (finite differences),
  optimizer (end points of L-BFGS-B, ADMM, marginal-likelihood fits); a known worse conditioning passes its own rtol;
- a trajectory of decisions is compared only while its margins exceed the tolerance, or by robust summaries;
- printed numbers are rounded to what they support (`drop_noise`).

Fresh-against-fresh comparisons within one process (our GP against scikit-learn's on the same inputs) are not stored
numbers and keep their tight tolerances. CI runs the suite under an OpenBLAS kernel other than the machine's own
(`.ci/run`), so a comparison that holds only where its cache was made fails there.

The results cache
-----------------
`CACHE` is the committed `results/` (found by `default_cache_dir`, also from a copy of the package), and `scorecard` is
every claim evaluated on it once per session.
"""
import pytest
from hdbo_nb.experiments import default_cache_dir

CACHE = default_cache_dir()

@pytest.fixture(scope='session')
def scorecard():
    "Every registered claim measured on the committed cache (a list of `ClaimResult`), once per test session."
    from hdbo_nb.claims import evaluate_claims
    return evaluate_claims(cache_dir=CACHE)

def paper_results(scorecard, paper:str) -> list:
    "The claims of one paper from the session's scorecard."
    return [r for r in scorecard if r.claim.paper == paper]
