"""Replay an exported prescient scenario in SimGrid 3.32 and print what happened, as JSON.

Run as a script (SimGrid allows one engine per process):
``python tests/oracles/prescient/simgrid_replay.py DIR`` with ``DIR`` written by
:func:`volsched.solvers.prescient.simgrid.export_simgrid` with a schedule.
Prints ``[{"host", "task", "start", "end", "outcome"}, ...]``: each attempt's
start and end in SimGrid time and how it ended (``completed``, ``failed``:
killed by its host going off, ``cancelled``: stopped at its ``cancel_at``).
This file uses only SimGrid and the files; it does not import volsched.
"""

import json
import math
import sys

sys.path.append("/usr/lib/python3/dist-packages")

from simgrid import Engine, TimeoutException, this_actor

LOG = []
#: A restarted worker skips attempts that started before its restart date, up to this slack.
EPS = 1e-6


class Worker:
    def __init__(self, *args):
        self.attempts = [a.split() for a in args]

    def __call__(self):
        host = this_actor.get_host().name
        current = {}

        def on_exit(failed):
            if failed and current:
                LOG.append({**current, "end": Engine.clock, "outcome": "failed"})
                current.clear()

        this_actor.on_exit(on_exit)
        for task, start, flops, cancel in self.attempts:
            start, cancel = float(start), float(cancel)
            if start < Engine.clock - EPS:
                continue
            this_actor.sleep_until(start)
            current.update(host=host, task=int(task), start=Engine.clock)
            execution = this_actor.exec_init(float(flops)).start()
            outcome = "completed"
            if math.isfinite(cancel):
                try:
                    execution.wait_for(max(cancel - Engine.clock, 0.0))
                except TimeoutException:
                    execution.cancel()
                    outcome = "cancelled"
            else:
                execution.wait()
            LOG.append({**current, "end": Engine.clock, "outcome": outcome})
            current.clear()


class Keeper:
    def __init__(self, until):
        self.until = float(until)

    def __call__(self):
        this_actor.sleep_until(self.until)


def main(folder: str) -> None:
    engine = Engine([sys.argv[0], "--log=root.thres:critical"])
    engine.load_platform(f"{folder}/platform.xml")
    engine.register_actor("worker", Worker)
    engine.register_actor("keeper", Keeper)
    engine.load_deployment(f"{folder}/deployment.xml")
    engine.run()
    print(json.dumps(LOG))


if __name__ == "__main__":
    main(sys.argv[1])
