"""Collectives across 2 real processes on gloo: values checked; a peer that never joins is a hang."""

from __future__ import annotations

import pytest

from rocm_tune.train.preflight.collectives import check_collectives

pytestmark = pytest.mark.slow


def test_healthy_two_process_gloo_all_reduce_and_peer_copies():
    r = check_collectives(2, 60.0, use_gpu=False)
    assert r["status"] == "ok", r
    assert r["backend"] == "gloo" and r["procs"] == 2 and r["findings"] == []
    assert [x["rank"] for x in r["results"]] == [0, 1]
    for x in r["results"]:
        # every element arrived with the value it must have: sum of rank+1 = 3; the ring's pattern intact
        assert x["all_reduce_ok"] and x["all_reduce_got"] == 3.0 and x["all_reduce_bad"] == 0
        assert x["peer_ok"] and x["peer_bad"] == 0
        assert x["bus_bandwidth_gbs"] > 0


def test_peer_that_never_joins_is_reported_as_a_hang_within_the_timeout():
    timeout = 2.0
    r = check_collectives(2, timeout, use_gpu=False, absent_rank=1)
    assert r["status"] == "hang"
    assert 1 in r["hung_ranks"]
    # the wait after every worker was ready is the timeout, not "forever" (kill included)
    assert timeout <= r["waited_s"] < timeout + 30
    (f,) = r["findings"]
    assert f["code"] == "collective-hang" and f["severity"] == "error"
    assert "intel_iommu=off" in f["fix"] and "iommu=pt" in f["fix"]
