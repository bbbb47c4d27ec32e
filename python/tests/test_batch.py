"""Batched stepping and encoding agree with single states, refuse bad actions whole, and
random playouts finish games."""

import numpy as np
import pytest

import junglezero as jz


@pytest.mark.parametrize("name", ["jungle", "flip"])
def test_batch_matches_single_states(name):
    game = jz.Game(name)
    batch = jz.Batch(game, 16, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = batch.legal_masks()
        players = batch.current_players()
        obs = batch.observations()
        assert obs.shape == (16, *game.observation_shape) and masks.shape == (16, game.num_actions)
        actions = np.full(16, -1, dtype=np.int64)
        for i in range(16):
            s = batch.state(i)
            assert players[i] == s.current_player()
            assert np.array_equal(obs[i], s.observation_tensor())
            assert np.array_equal(masks[i], s.legal_mask())
            if not s.is_terminal():
                actions[i] = rng.choice(np.flatnonzero(masks[i]))
        batch.step(actions)
    assert batch.counters()[0] > 0


def test_a_bad_action_changes_no_game():
    batch = jz.Batch(jz.Game(), 4)
    before = [batch.state(i).to_fen() for i in range(4)]
    good = batch.state(0).legal_actions()[0]
    with pytest.raises(jz.JungleZeroError, match="game 2"):
        batch.step([good, good, 9999, good])
    with pytest.raises(jz.JungleZeroError):
        batch.step([good, good])
    # Only -1 leaves a game as it is; a float is not an action (1.7 is not action 1).
    with pytest.raises(jz.JungleZeroError, match="-1 leaves a game"):
        batch.step([good, -5, good, good])
    with pytest.raises(jz.JungleZeroError, match="integers"):
        batch.step(np.array([good, good, good, good], dtype=np.float64) + 0.7)
    assert [batch.state(i).to_fen() for i in range(4)] == before
    batch.step([good, -1, -1, -1])
    assert batch.state(0).to_fen() != before[0] and batch.state(1).to_fen() == before[1]


def test_random_playouts_finish_games():
    for name in ("jungle", "flip"):
        batch = jz.Batch(jz.Game(name), 8, seed=2)
        games, plies = batch.random_playouts(20)
        assert games >= 20 and plies > games
        going = batch.step_random()
        assert 0 <= going <= 8
        r = batch.returns()
        assert r.shape == (8, 2) and (r[:, 0] == -r[:, 1]).all()


def test_batch_size_is_checked():
    with pytest.raises(jz.JungleZeroError):
        jz.Batch(jz.Game(), 0)


def test_step_policy_plays_only_legal_weighted_moves():
    game = jz.Game()
    batch = jz.Batch(game, 6, seed=4)
    start = batch.state(0)
    legal = start.legal_actions()
    # All the weight on one legal action and on illegal ones: that legal action is played.
    w = np.zeros((6, game.num_actions), dtype=np.float32)
    illegal = [a for a in range(game.num_actions) if a not in legal]
    w[:, illegal] = 5.0
    w[:, legal[3]] = 1.0
    assert batch.step_policy(w) == 6
    expected = start.clone()
    expected.apply_action(legal[3])
    assert all(batch.state(i).to_fen() == expected.to_fen() for i in range(6))
    # Weights only on illegal actions: a uniform legal draw, never an error.
    w[:] = 0.0
    w[:, illegal] = 1.0
    batch.step_policy(w)
    assert batch.counters()[0] == 12
    for bad in (np.full((6, game.num_actions), np.nan, np.float32), -np.ones((6, game.num_actions), np.float32), np.ones(5)):
        with pytest.raises(jz.JungleZeroError):
            batch.step_policy(bad)
