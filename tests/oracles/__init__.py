"""What the tests check against: independent oracles, and the helpers the test folders share.

Imported as ``from oracles.<module> import ...``: pytest puts ``tests`` on the import path
(``pythonpath = ["tests"]`` in pyproject.toml), and the scripts of ``benchmarks/`` that reuse an
oracle insert it themselves. Nothing here is shipped with volsched, and volsched imports none of it.

* one sub-package per family (:mod:`oracles.checkpoint`, :mod:`oracles.coupled`,
  :mod:`oracles.prescient`, :mod:`oracles.slack`): brute force on tiny instances, exact-arithmetic
  or Monte-Carlo references, the pure-Python code a compiled kernel replaced (kept verbatim as the
  kernel's oracle), SimGrid replays, and the small random instances their tests draw;
* :mod:`oracles.cli` (the command line run in-process), :mod:`oracles.registry` (the methods and
  work budgets a test runs, read from the registries), :mod:`oracles.cbc` (a stand-in CBC),
  :mod:`oracles.json_edit` and :mod:`oracles.slow` (``--runslow``, for ``tests/`` and
  ``benchmarks/`` alike).
"""
