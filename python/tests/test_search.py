"""Search and networks: the classical engine, MCTS with the shipped networks, raw outputs,
table probes, and the errors of a model of another game."""

import numpy as np
import pytest

import junglezero as jz


def test_classical_engine_moves():
    s = jz.Game().new_initial_state()
    m = jz.best_move(s, depth=3)
    assert m.action in s.legal_actions()
    assert m.move == s.action_to_string(m.action)
    assert m.depth is not None and (m.score_cp is not None or m.mate is not None)
    assert m.pv and m.pv[0] == m.move


def test_flip_engine_moves():
    s = jz.Game("flip").new_initial_state()
    m = jz.best_move(s, depth=2)
    assert m.action in s.legal_actions()
    assert m.depth == 2 and m.value is not None and -1 <= m.value <= 1


def test_mcts_with_the_shipped_network(jungle_model):
    net = jz.Network(str(jungle_model))
    assert net.game == "jungle"
    s = jz.Game().new_initial_state()
    r = jz.search(s, net, sims=64)
    assert r.best in s.legal_actions()
    assert r.visits.sum() >= 63 and r.visits[r.best] == r.visits.max()
    assert r.visits[~s.legal_mask()].sum() == 0
    assert -1 <= r.value <= 1
    assert r.pv[0] == r.best and r.pv_moves[0] == r.move
    if r.wdl is not None:
        assert abs(sum(r.wdl) - 1) < 1e-3


def test_a_huge_budget_stops_at_the_tree_memory(jungle_model):
    # sims=2**32-1 grew without bound; the tree's memory cap (here 16 MiB) ends it.
    net = jz.Network(str(jungle_model))
    m = jz.Mcts(net, sims=2**32 - 1, set=["mcts.play_tree_mb=16"])
    r = m.search(jz.Game().new_initial_state())
    assert r["best"] is not None
    assert 1000 < r["simulations"] < 2**32 - 1


def test_network_outputs(jungle_model, flip_model):
    net = jz.Network(str(jungle_model))
    game = jz.Game()
    batch = jz.Batch(game, 5)
    states = [batch.state(i) for i in range(5)]
    policy, wdl = net.evaluate(states)
    assert policy.shape == (5, 252) and wdl.shape == (5, 3)
    assert np.allclose(wdl.sum(axis=1), 1, atol=1e-4)
    p2, w2 = net.evaluate_planes(batch.observations())
    assert np.allclose(policy, p2) and np.allclose(wdl, w2)
    flip_state = jz.Game("flip").new_initial_state()
    with pytest.raises(jz.JungleZeroError, match="flip"):
        net.evaluate([flip_state])
    with pytest.raises(jz.JungleZeroError, match="flip"):
        jz.Mcts(net, sims=8).search(flip_state)
    fnet = jz.Network(str(flip_model))
    assert fnet.game == "flip"
    r = jz.search(flip_state, fnet, sims=32)
    assert r.best in flip_state.legal_actions()


def test_bad_model_files(tmp_path):
    with pytest.raises(jz.JungleZeroError):
        jz.Network(str(tmp_path / "missing.jzm"))
    junk = tmp_path / "junk.jzm"
    junk.write_bytes(b"not a model")
    with pytest.raises(jz.JungleZeroError):
        jz.Network(str(junk))


def test_table_probes_agree_with_the_binary(binary, run, tmp_path):
    import subprocess

    run("tb", "build", "--pieces", "2", "--out", tmp_path / "tb")
    tb = jz.Tablebase(str(tmp_path / "tb"))
    game = jz.Game()
    fens = ["7/7/r6/7/7/7/7/7/R6 w 0 1", "7/7/7/7/7/7/1e5/7/R6 w 0 1", "7/3E3/7/7/7/7/7/2c4/7 b 0 1"]
    answers = subprocess.run(
        [str(binary), "tb", "probe", "--tb", str(tmp_path / "tb")],
        input="\n".join(fens) + "\n", capture_output=True, text=True, timeout=60,
    ).stdout.split("\n")
    for fen, answer in zip(fens, answers):
        value, plies = tb.probe(game.from_fen(fen))
        words = answer.split()
        expected = {"win": 1.0, "loss": -1.0, "draw": 0.0}[words[0]]
        assert value == expected, (fen, answer)
        if words[0] != "draw":
            assert plies == int(words[1]), (fen, answer)
    assert tb.probe(game.new_initial_state()) is None
    with pytest.raises(jz.JungleZeroError):
        jz.Tablebase(str(tmp_path / "tb"), game="flip")
