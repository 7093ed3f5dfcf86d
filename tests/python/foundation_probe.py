"""Probes for known crashes in code outside these tests' modules, run in a
child process so a crash cannot take the test session down.  Tests skip
only the affected dtype and run it again as soon as the probe passes."""
import subprocess
import sys

import numpy as np


def _ok(code):
    return subprocess.run([sys.executable, "-c", "import ember as em, numpy as np; " + code],
                          capture_output=True).returncode == 0


#: em_copy_into / astype of float16 crashed in the foundation's block interpreter.
F16_COPY_OK = _ok("em.asarray(np.ones(3, np.float16)).copy()")


def copy_ok(dtype):
    return np.dtype(dtype) != np.float16 or F16_COPY_OK
