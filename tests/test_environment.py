"""The captured environment describes NumPy's BLAS, whatever else the process has loaded."""
import subprocess
import sys


def test_blas_is_numpys_and_does_not_change_when_scipy_loads_its_own():
    code = (
        "import json, numpy\n"
        "from study import environment as e\n"
        "before = e._blas()\n"
        "import scipy.linalg, scipy.stats\n"
        "scipy.linalg.blas.dgemm(1.0, numpy.ones((4, 4)), numpy.ones((4, 4)))\n"
        "scipy.stats.mannwhitneyu([1, 2, 3], [2, 3, 4])\n"
        "print(json.dumps([before, e._blas()]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    import json
    before, after = json.loads(out.stdout.strip().splitlines()[-1])
    assert before and before == after
