"""The sweep driver: plan the tasks, skip the finished ones, run the rest, store each row.

Only this process writes the store, one transaction per finished task, so a
sweep killed at any moment loses at most the tasks in flight and the next run
of the same sweep completes it. Tasks run on the local cores through joblib
(loky) or, given a scheduler address, on an existing Dask cluster.
"""

from __future__ import annotations

import signal
import threading
import time
import warnings
from typing import TYPE_CHECKING

import numpy as np
from joblib import Parallel, delayed, parallel_config
from tqdm import tqdm

from volsched.instances.errors import InputError, require

from ..compile import compile_all, step_name
from .store import Store
from .tasks import build_tasks, run_task

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from .config import Sweep

FAILED = ("error", "timeout")
DASK_CONNECT_TIMEOUT_S = 10


#: Most local worker processes (each imports the solvers; joblib refuses a million, thousands never start).
MAX_WORKERS = 256


#: Seed of the order in which a sweep runs its instances (:func:`run_order`); fixed, so that a resumed
#: sweep goes on in the order it started.
ORDER_SEED = 2026


def run_order(tasks: list[dict]) -> list[dict]:
    """``tasks`` with their instances in a seeded random order, each instance's tasks together and in order.

    A long sweep stopped at any point has then run a uniform random sample of its instances
    (in grid order, a stopped sweep would hold only the first cells of the grid), and costly
    cells are spread over the run instead of meeting at its end.
    """
    groups: dict[str, list[dict]] = {}
    for task in tasks:
        groups.setdefault(task["instance_key"], []).append(task)
    keys = list(groups)
    order = np.random.default_rng(ORDER_SEED).permutation(len(keys))
    return [task for i in order for task in groups[keys[i]]]


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()  # signal handlers are set only there


#: loky warns on stderr when it replaces a worker (its leak check, :func:`_start_worker`). The worker
#: is replaced between two tasks (none is lost), so the warning is noise in a sweep's output.
warnings.filterwarnings(
    "ignore", message="A worker stopped while some jobs were given to the executor", category=UserWarning
)


def _compile_quietly() -> dict:
    return compile_all(quiet=True)


#: How much a local worker may grow after its first task before loky replaces it (loky's default is
#: 300 MB; :func:`_start_worker`).
WORKER_GROWTH_BYTES = 8 * 2**30


def warm_steps(todo: list[dict]) -> set[str]:
    """The :func:`volsched.compile.compile_all` steps that ``todo``'s tasks call."""
    return {step_name(t["family"], t["method"], t["problem"] if t["kind"] == "exact" else None) for t in todo}


def _start_worker(only: set[str]) -> None:
    """A local worker's start: the kernels its tasks call are loaded, and loky's leak check relaxed.

    loky measures a worker's memory after its first task and replaces the worker once it has
    grown by 300 MB. A sweep's worker grows by more without leaking (``benchmarks/RESULTS.md``):
    one task repeated stays flat, but a mix of heuristics and realizations leaves the allocator's
    arenas larger, up to a plateau, so each worker was replaced every 10 to 20 s and the next one
    imported and loaded everything again. The limit is loky's module constant, which its worker
    loop reads at every check; a joblib without it keeps its default
    (``tests/volsched/experiments/test_runner.py`` checks that the loop still reads it).
    """
    from joblib.externals.loky import process_executor

    if hasattr(process_executor, "_MAX_MEMORY_LEAK_SIZE"):
        process_executor._MAX_MEMORY_LEAK_SIZE = WORKER_GROWTH_BYTES  # noqa: SLF001 (see above)
    compile_all(quiet=True, only=only)


def _local(todo: list[dict], workers: int) -> Iterator[dict]:
    if workers == 1:
        yield from map(run_task, todo)
        return
    # Ctrl-C is the driver's: workers started while SIGINT is ignored inherit that, so a worker still
    # importing (or idle) when the terminal's SIGINT reaches the whole group prints no traceback; the
    # driver stops the sweep and the pool (exit 130, the store resumes).
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main_thread() else None
    try:
        with parallel_config(backend="loky", initializer=_start_worker, initargs=(warm_steps(todo),)):
            results = Parallel(n_jobs=workers, return_as="generator_unordered", batch_size="auto")(
                delayed(run_task)(t) for t in todo
            )
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    yield from results


def _dask_client(address: str):
    """Connect first, so that an unreachable cluster is bad input before anything is written."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError("--dask-scheduler: dask is not installed (pip install 'volsched[dask]')") from None
    try:
        return Client(address, timeout=DASK_CONNECT_TIMEOUT_S)
    except OSError as exc:
        raise InputError(f"--dask-scheduler: cannot reach {address} ({exc})") from None


def _dask(todo: list[dict], client) -> Iterator[dict]:
    """The tasks on a Dask cluster; each worker first compiles every kernel (``volsched compile``),
    so that no task's run pays for it."""
    from dask.distributed import as_completed

    try:
        if todo:
            client.run(_compile_quietly)
        for future in as_completed(client.map(run_task, todo, pure=False)):
            yield future.result()
    finally:
        client.close()


def run_sweep(
    sweeps: list[Sweep],
    store_path: str | Path,
    workers: int = -1,
    dask_scheduler: str | None = None,
    quiet: bool = False,
) -> dict:
    """Run every task of ``sweeps`` not yet in the store; return counts for the summary.

    Ctrl-C stops cleanly: rows already written stay, the rest stays pending.
    """
    require(
        workers == -1 or 1 <= workers <= MAX_WORKERS,
        "--workers",
        f"must be -1 (all cores) or in [1, {MAX_WORKERS}], got {workers}",
    )
    # Overlapping sweeps share tasks: each key runs and counts once.
    every = [task for sweep in sweeps for task in build_tasks(sweep)]
    unique: dict[str, dict] = {}
    for task in every:
        unique.setdefault(task["key"], task)
    tasks = list(unique.values())
    begin = time.perf_counter()
    client = _dask_client(dask_scheduler) if dask_scheduler else None
    with Store(store_path) as store:
        finished = store.finished_keys()  # read first: a damaged store is refused before anything is written
        store.plan(every)  # each sweep's own tasks: a shared task is recorded in both
        todo = [t for t in run_order(tasks) if t["key"] not in finished]
        new = failed = 0
        interrupted = False
        results = _dask(todo, client) if client else _local(todo, workers)
        bar = tqdm(
            total=len(tasks),
            initial=len(tasks) - len(todo),
            desc="sweep",
            unit="task",
            disable=quiet,
            dynamic_ncols=True,
        )
        try:
            for row in results:
                if store.write(row):
                    new += 1
                    failed += row["status"] in FAILED
                bar.update(1)
                bar.set_postfix(failed=failed, refresh=False)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            bar.close()
            close = getattr(results, "close", None)
            if close is not None:
                close()
        done = len(store.finished_keys() & {t["key"] for t in tasks})
    return {
        "store": str(store_path),
        "tasks": len(tasks),
        "skipped": len(tasks) - len(todo),
        "new": new,
        "failed": failed,
        "done": done,
        "pending": len(tasks) - done,
        "interrupted": interrupted,
        "elapsed_s": time.perf_counter() - begin,
    }
