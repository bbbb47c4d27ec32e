"""The games registered with OpenSpiel pass its own consistency test, and its algorithms run
on them."""

import numpy as np
import pyspiel
import pytest

import junglezero.openspiel  # registers the games


@pytest.mark.parametrize("short_name", ["python_jungle", "python_flip"])
def test_random_sim_test(short_name):
    game = pyspiel.load_game(short_name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_facts():
    jungle = pyspiel.load_game("python_jungle")
    assert jungle.num_distinct_actions() == 252
    assert jungle.num_players() == 2
    flip = pyspiel.load_game("python_flip")
    assert flip.max_chance_outcomes() == 16
    # A flip and its reveal are one ply but two OpenSpiel actions.
    assert flip.max_game_length() == 2 * 32 * 41
    assert flip.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = flip.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node()
    assert abs(sum(p for _, p in state.chance_outcomes()) - 1) < 1e-6


def test_observation_tensor_is_the_networks_planes():
    game = pyspiel.load_game("python_jungle")
    state = game.new_initial_state()
    obs = np.array(state.observation_tensor(0))
    assert np.array_equal(obs, state.jz.observation_tensor().ravel())
    assert obs.shape == (int(np.prod(game.observation_tensor_shape())),)


def test_openspiel_mcts_bot_plays_legal_moves():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_jungle")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8, evaluator=evaluator, random_state=np.random.RandomState(1))
    state = junglezero.openspiel.JungleSpielGame(rules="no_capture_plies=20").new_initial_state()
    for _ in range(4):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.move_number() == 4


def test_other_rules():
    game = junglezero.openspiel.JungleSpielGame(rules="repetition=draw,max_plies=40")
    assert game.max_game_length() == 40
