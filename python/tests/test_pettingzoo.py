"""The PettingZoo environment passes PettingZoo's own API test."""

import numpy as np
import pytest
from pettingzoo.test import api_test

from junglezero.pettingzoo import env


@pytest.mark.parametrize("game", ["jungle", "flip"])
def test_api_test(game):
    api_test(env(game, max_plies=300), num_cycles=400)


def test_a_whole_game_ends_with_opposite_rewards():
    e = env("jungle", rules="no_capture_plies=40")
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        total[agent] += reward
        if termination or truncation:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert total["player_0"] == -total["player_1"]
    assert e.state.is_terminal()
