"""Where many seeded games run: in this process, on a pool of processes, or on a Dask cluster.

Every task is a plain, picklable tuple and every game is seeded by its task alone, so the
results are the same whichever backend plays them; they come back in the order of the tasks.
"""
from __future__ import annotations

import gc
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from typing import Callable


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_tasks(fn: Callable, tasks: list, jobs: int | None = None, cluster: str | None = None,
              progress: Callable[[], None] | None = None, meanwhile: Callable[[], None] | None = None) -> list:
    """fn(task) for every task, in order. ``cluster`` is the address of a Dask scheduler
    ("tcp://host:8786"); otherwise ``jobs`` processes (None: all cores; 1: this process).
    ``meanwhile``: work for this process while a pool plays the tasks (it only waits for them), run
    in a thread once the workers are forked (a fork copies no thread half way); not waited for (an
    import it has begun is finished before another thread's import of the same module goes on)."""
    if cluster:
        return _run_dask(fn, tasks, cluster, progress)
    jobs = default_jobs() if jobs is None else jobs
    pooled = jobs > 1 and len(tasks) > 2
    out = []
    with frozen_heap(), ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) if pooled else nullcontext() as pool:
        if pooled:
            # map submits every task, and a pool that forks starts all its workers at the first
            results = pool.map(fn, tasks, chunksize=max(1, len(tasks) // (jobs * 8)))
            if meanwhile is not None:
                # (not a daemon: a process that ends meanwhile waits for it rather than stop an import half way)
                threading.Thread(target=_quietly, args=(meanwhile,)).start()
        else:
            results = map(fn, tasks)
        for result in results:
            out.append(result)
            if progress:
                progress()
    return out


def _quietly(work: Callable[[], None]) -> None:
    try:
        work()
    except Exception:  # (only a head start: what fails here fails again, and is reported, where it is needed)
        pass


@contextmanager
def frozen_heap():
    """Many games ahead: what exists now (the loaded game: its program, its generated code, its AST)
    outlives them. Frozen, Python's cycle collector does not scan it again each time it collects the
    games' own objects (a copy of a match for a planning bot costs a third of the time), and workers
    forked from this process do not copy it page by page as the collector writes to it. Only speed
    changes; everything is collected as before afterwards."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run_dask(fn: Callable, tasks: list, address: str, progress) -> list:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ValueError("--cluster needs Dask: python3 -m pip install 'dask[distributed]'") from None
    client = address if not isinstance(address, str) else None
    own = client is None
    if own:
        try:
            client = Client(address, timeout="20s")
        except OSError as exc:
            raise ValueError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    try:
        # chunks of games per task: fewer round trips, still spread over every worker
        workers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
        size = max(1, len(tasks) // (workers * 4))
        chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        futures = client.map(_run_chunk, [(fn, c) for c in chunks], pure=False)
        done: dict = {}
        index = {f.key: i for i, f in enumerate(futures)}
        for future in as_completed(futures):
            done[index[future.key]] = future.result()
            if progress:
                for _ in done[index[future.key]]:
                    progress()
        return [r for i in range(len(chunks)) for r in done[i]]
    finally:
        if own:
            client.close()


def _run_chunk(job) -> list:
    fn, chunk = job
    return [fn(t) for t in chunk]

