"""Each family's part of ``volsched demo`` (:mod:`volsched.demo`), one module per family.

A module ``volsched.demos.<family>`` defines ``demo(out, quiet, full, seed) -> DemoPart``. The
demos sit in the application layer, above the family registry and :mod:`volsched.evaluate` that
they use; a family without a module here has no part in the demo.
"""
