"""A smoke-sized distributed training run on a local Ray cluster against an S3 server on
127.0.0.1 (moto): two self-play actors, the learner and the gatekeeper of scripts/ray_train.py,
two generations, one self-play actor killed with SIGKILL in the middle. Then the run is checked:
training finished, every shard in the bucket decodes and the learner counted each one it read
exactly once (`junglezero verify`), no shard was unreadable when the learner read it, and the
promoted networks load.

    pip install 'moto[server]' ray pytest boto3
    cargo build --release
    python3 -m pytest tests/distributed -v
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("JUNGLEZERO_BIN", REPO / "target" / "release" / "junglezero")).resolve()

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install ray)")
boto3 = pytest.importorskip("boto3", reason="boto3 is not installed (pip install boto3)")
pytest.importorskip("moto.server", reason="moto's S3 server is not installed (pip install 'moto[server]')")

sys.path.insert(0, str(REPO / "scripts"))
import ray_train  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def running(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A moto S3 server on 127.0.0.1 with one bucket; yields the environment to reach it."""
    port = free_port()
    log = open(tmp_path_factory.mktemp("moto") / "moto.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=log)
    endpoint = f"http://127.0.0.1:{port}"
    env = {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ALLOW_HTTP": "true",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_REGION": "us-east-1",
    }
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
    last = None
    for _ in range(100):
        try:
            client.create_bucket(Bucket="jz-ray")
            break
        except Exception as e:  # the server is still starting
            last = e
            time.sleep(0.2)
    else:
        server.kill()
        pytest.fail(f"moto_server on {endpoint} did not create the bucket: {last}")
    yield env, client
    server.kill()
    server.wait()


def test_two_generations_on_s3_with_a_selfplay_actor_killed(s3, tmp_path):
    if not BINARY.is_file():
        pytest.skip(f"no junglezero binary at {BINARY} (cargo build --release)")
    env, client = s3
    env = {**env, "JZ_CACHE_DIR": str(tmp_path / "cache"), "JUNGLEZERO_BIN": str(BINARY)}
    run = "s3://jz-ray/runs/smoke"
    args = argparse.Namespace(
        run=run,
        config=str(REPO / "configs" / "smoke.toml"),
        generations=2,
        selfplay=2,
        games=4,
        min_games=8,
        selfplay_gpus=0,
        selfplay_cpus=1,
        learner_gpus=0,
        set=["selfplay.workers=1"],
    )
    os.environ.update(env)
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=True, runtime_env={"env_vars": {"PYTHONPATH": str(REPO / "scripts")}})
    try:
        handles = ray_train.start(args, str(BINARY), env)

        # Wait for the first self-play shard in the bucket, then kill one self-play actor
        # (and the junglezero process it is running) with SIGKILL.
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            listed = client.list_objects_v2(Bucket="jz-ray", Prefix="runs/smoke/games/").get("Contents", [])
            if any(not o["Key"].split("/")[-1].startswith("teacher") for o in listed):
                break
            time.sleep(0.5)
        else:
            pytest.fail("no self-play shard reached the bucket within 240 s")
        victim = handles["selfplay"][0]
        actor_pid, child_pid = ray.get(victim.pids.remote())
        os.kill(actor_pid, signal.SIGKILL)
        if child_pid:
            # The child dies with its parent (PR_SET_PDEATHSIG); make sure it is gone (a dead
            # child may stay a zombie until whoever adopted it reaps it).
            deadline = time.monotonic() + 10
            while running(child_pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not running(child_pid), "the killed actor's junglezero process kept running"

        warnings = ray_train.wait(handles, str(BINARY), run, env, every=0)
    finally:
        ray.shutdown()
    # The stopped self-play actors' processes die with them; let an upload in flight settle.
    time.sleep(2)

    # Training finished: candidate 2 was written and decided.
    keys = [o["Key"] for o in client.list_objects_v2(Bucket="jz-ray", Prefix="runs/smoke/").get("Contents", [])]
    assert "runs/smoke/verdicts/gen-0002" in keys, keys
    assert "runs/smoke/verdicts/gen-0001" in keys, keys
    # The learner never met a shard it could not read.
    assert not [w for w in warnings if "unreadable" in w or "skipp" in w], warnings

    # Every shard decodes, the learner's count matches the shards it read (each once), the
    # networks load.
    out = subprocess.run([str(BINARY), "verify", "--run", run, "--json"], capture_output=True, text=True, env={**os.environ, **env})
    assert out.returncode == 0, out.stdout + out.stderr
    audit = json.loads(out.stdout.strip().splitlines()[-1])
    assert audit["problems"] == [], audit["problems"]
    assert audit["checkpoint"]["iteration"] == 2
    assert audit["checkpoint"]["seen_shards"] >= 2
    assert audit["models"] >= 1 and audit["candidates"] == 0
    shards = [k for k in keys if k.startswith("runs/smoke/games/")]
    assert audit["shards"] == len(shards)
    # Each of the two verdicts is one object, and a decided generation is in models/ or rejected/.
    for g in (1, 2):
        decided = [k for k in keys if k.endswith(f"/gen-{g:04}.jzm") and ("/models/" in k or "/rejected/" in k)]
        assert len(decided) == 1, (g, decided)
    # The promoted networks play: a short match between the best and generation 0.
    best = max(k for k in keys if "/models/" in k)
    local = Path(env["JZ_CACHE_DIR"])
    model = next(local.rglob(Path(best).name))
    played = subprocess.run(
        [str(BINARY), "arena", "--a", f"mcts:model={model},sims=4", "--b", "random", "--games", "2", "--config", str(REPO / "configs" / "smoke.toml")],
        capture_output=True,
        text=True,
    )
    assert played.returncode == 0, played.stdout + played.stderr
