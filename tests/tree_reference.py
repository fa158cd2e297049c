"Pieces shared by the reference traces of the tree searches (tests/test_boo.py, tests/test_optimistic.py)."
import itertools

class _Spent(Exception): "The budget is spent."

def _split(lo, w, a, b):
    "P(a^b; a, b): cut the b longest sides (lowest index first on ties) into a equal parts; children in lexicographic order."
    dims = sorted(range(len(w)), key=lambda k: (-w[k], k))[:b]
    kids = []
    for idx in itertools.product(range(a), repeat=b):
        l, ww = lo.copy(), w.copy()
        for k, j in zip(dims, idx): ww[k] = w[k] / a; l[k] = lo[k] + j * ww[k]
        kids.append((l, ww))
    return kids
