"""On-line heuristics and numpy simulators (``volsched.heuristics``)."""
