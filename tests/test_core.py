"Trace files: bounded loading of crafted files, non-finite values round trip."
import io, os, tracemalloc, zipfile
import numpy as np, pytest
from hdbo_nb.core import Trace, CorruptTraceError

def _crafted_npz(path, X_shape):
    "A small valid-looking trace file whose X declares `X_shape` (its data is absent)."
    buf = io.BytesIO()
    np.savez(buf, X=np.zeros((2, 1)), y=np.zeros(2), f=np.zeros(2), times=np.zeros(2), dim=np.array(X_shape[1]),
             meta_json=np.array('{}'))
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            if name != 'X.npy': dst.writestr(name, src.read(name)); continue
            h = io.BytesIO()
            np.lib.format.write_array_header_1_0(h, dict(descr='<f8', fortran_order=False, shape=X_shape))
            dst.writestr(name, h.getvalue() + bytes(4096))
    return path

def test_a_crafted_file_is_refused_before_allocating(tmp_path):
    p = _crafted_npz(str(tmp_path / 'bomb.npz'), (100_000_000, 3))   # declares 2.4 GB
    assert os.path.getsize(p) < 10_000
    tracemalloc.start()
    try:
        with pytest.raises(CorruptTraceError, match='refused before reading'): Trace.load(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally: tracemalloc.stop()
    assert peak < 20 * 2**20, f"loading allocated {peak / 2**20:.0f} MB"

def test_the_limit_can_be_raised_and_inconsistent_shapes_are_refused(tmp_path, monkeypatch):
    tr = Trace(2).add([0, 1], y=1.).add([1, 0], y=2.)
    p = tr.save(str(tmp_path / 'ok.npz'))
    with pytest.raises(CorruptTraceError, match='MB'): Trace.load(p, max_bytes=64)
    monkeypatch.setenv('HDBO_MAX_TRACE_BYTES', '64')
    with pytest.raises(CorruptTraceError): Trace.load(p)
    assert len(Trace.load(p, max_bytes=10_000)) == 2
    monkeypatch.delenv('HDBO_MAX_TRACE_BYTES')
    # X that does not match y is refused from the headers
    q = _crafted_npz(str(tmp_path / 'bad.npz'), (5, 1))
    with pytest.raises(CorruptTraceError, match='X has shape'): Trace.load(q)

def test_a_large_json_trace_is_refused_by_size(tmp_path):
    tr = Trace(1)
    for i in range(100): tr.add([i / 100], y=float(i))
    p = tr.save(str(tmp_path / 't.json'))
    with pytest.raises(CorruptTraceError, match='MB'): Trace.load(p, max_bytes=100)
    assert len(Trace.load(p)) == 100

@pytest.mark.parametrize('ext', ['npz', 'json'])
def test_infinities_round_trip(tmp_path, ext):
    tr = Trace(1, meta=dict(f_opt=1.)).add([0.], y=np.inf, f=-np.inf, beta_t=np.inf).add([1.], y=-np.inf, f=np.nan)
    t = Trace.load(tr.save(str(tmp_path / f't.{ext}')))
    np.testing.assert_array_equal(t.y, [np.inf, -np.inf])
    np.testing.assert_array_equal(t.f, [-np.inf, np.nan])
    np.testing.assert_array_equal(t.diagnostics['beta_t'], [np.inf, np.nan])

def test_progress_prints_at_a_bounded_interval_while_an_item_runs(monkeypatch):
    import time
    from hdbo_nb.core import progress
    monkeypatch.setenv('HDBO_PROGRESS_INTERVAL', '0.05')
    buf = io.StringIO()   # not a terminal: the log mode
    bar = progress(total=3, desc='long', file=buf, disable=False)
    time.sleep(0.4)
    n = len(buf.getvalue().splitlines())
    assert n >= 3, buf.getvalue()
    bar.close(); time.sleep(0.2)
    assert len(buf.getvalue().splitlines()) == n   # silent once closed
    monkeypatch.setenv('HDBO_PROGRESS', '0')
    buf = io.StringIO(); bar = progress(total=3, file=buf); time.sleep(0.2); bar.close()
    assert buf.getvalue() == ''
