"""Sweeps through a concurrent.futures.Executor: local processes and a local Dask cluster."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from io import StringIO
from pathlib import Path

import pytest

from layoutalg.runner import prover
from layoutalg.cli import main

SPECS = Path(__file__).resolve().parents[2] / "specs"


def verdicts(outcomes):
    return [(o.spec, o.claim, o.status) for o in outcomes]


@pytest.fixture(scope="module")
def sequential():
    found = prover.discover([SPECS / "cute.py", SPECS / "known_bad.py"])
    return found, prover.prove(found)


def test_worker_processes_give_the_same_verdicts_in_the_same_order(sequential):
    found, expected = sequential
    with ProcessPoolExecutor(max_workers=2) as pool:
        outcomes = prover.prove(found, executor=pool)
    assert verdicts(outcomes) == verdicts(expected)
    assert any(o.status == "REFUTED" for o in outcomes)


def test_a_local_dask_cluster_gives_the_same_verdicts(sequential):
    distributed = pytest.importorskip("distributed")
    found, expected = sequential
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            outcomes = prover.prove(found, executor=client.get_executor())
            out = StringIO()
            code = main(["prove", "--no-cache", "--dask", cluster.scheduler_address,
                         str(SPECS / "known_bad.py")], stream=out, errors=StringIO())
    assert verdicts(outcomes) == verdicts(expected)
    assert code == 0
    assert "all as expected" in out.getvalue()


def test_an_unreachable_dask_scheduler_is_bad_input():
    pytest.importorskip("distributed")
    err = StringIO()
    code = main(["prove", "--dask", "tcp://127.0.0.1:9", str(SPECS / "known_bad.py")],
                stream=StringIO(), errors=err)
    assert code == 2
    assert len(err.getvalue().strip().splitlines()) == 1
    assert "--dask" in err.getvalue()
