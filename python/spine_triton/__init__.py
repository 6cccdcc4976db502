"""spine-triton: an open Triton backend for CPUs (x86-64 and RISC-V with RVV).

Triton finds this package through its ``triton.backends`` entry point and imports it while
``import triton`` runs, so the aliases below exist before any user code does.
"""

import sys

# Importing triton first (a no-op when triton is the one importing us) lets Triton's backend
# discovery load .compiler and .driver before they are aliased.
import triton.backends  # noqa: F401

from . import compiler, driver, triton_key

# Triton hashes its 500 MB library in every new process; remember the result per install.
triton_key.install()

# Code written for SpacemiT's spine-triton imports `triton.backends.spine_triton.driver`.
_ALIAS = "triton.backends." + driver.MODULE_ALIAS
sys.modules.setdefault(_ALIAS, sys.modules[__name__])
sys.modules.setdefault(_ALIAS + ".compiler", compiler)
sys.modules.setdefault(_ALIAS + ".driver", driver)
# triton.backends may still be initialising (when triton imports us): reach it via sys.modules.
setattr(sys.modules["triton.backends"], driver.MODULE_ALIAS, sys.modules[__name__])
