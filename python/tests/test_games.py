"""The state API: actions, chance, text forms, observations and errors."""

import copy
import random

import numpy as np
import pytest

import junglezero as jz


def test_registry_lists_both_games():
    assert jz.games() == ["jungle", "flip"]


def test_jungle_start_position():
    game = jz.Game("jungle")
    s = game.new_initial_state()
    assert s.current_player() == 0
    assert not s.is_terminal() and not s.is_chance_node()
    assert game.observation_shape[1:] == (9, 7)
    assert game.num_actions == 252
    assert game.num_chance_outcomes == 0
    # The rules' default: a 200-ply no-capture limit, 15 captures at most.
    assert game.max_game_length == 16 * 201
    actions = s.legal_actions()
    assert actions == sorted(actions) and len(set(actions)) == len(actions) == 24
    assert s.returns() == (0.0, 0.0)
    assert s.end_reason() is None


def test_actions_and_their_text_agree_and_the_mask_matches():
    for name in ("jungle", "flip"):
        rng = random.Random(7)
        s = jz.Game(name).new_initial_state()
        for _ in range(60):
            if s.is_terminal():
                break
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-5
                assert [a for a, _ in outcomes] == s.legal_actions()
                assert not s.legal_mask().any()
                a = rng.choice([a for a, _ in outcomes])
            else:
                actions = s.legal_actions()
                mask = s.legal_mask()
                assert mask.dtype == np.bool_ and mask.shape == (s.num_actions(),)
                assert list(np.flatnonzero(mask)) == actions
                for b in actions:
                    assert s.string_to_action(s.action_to_string(b)) == b
                a = rng.choice(actions)
            s.apply_action(a)


def test_clone_is_independent():
    s = jz.Game().new_initial_state()
    c = s.clone()
    c.apply_action(c.legal_actions()[0])
    assert c.ply() == 1 and s.ply() == 0
    d = copy.deepcopy(c)
    assert d.to_fen() == c.to_fen() and d is not c


def test_fen_round_trip_and_observation():
    game = jz.Game("jungle")
    s = game.new_initial_state()
    s.apply_action(s.legal_actions()[3])
    t = game.from_fen(s.to_fen())
    assert t.to_fen() == s.to_fen()
    assert jz.State.from_fen(s.to_fen()).to_fen() == s.to_fen()
    obs = t.observation_tensor()
    assert obs.dtype == np.float32 and obs.shape == game.observation_shape
    assert np.array_equal(obs, s.observation_tensor())
    assert ((obs >= 0) & (obs <= 1)).all()


def test_a_game_ends_with_returns_and_a_reason():
    rng = random.Random(3)
    game = jz.Game("jungle", rules="no_capture_plies=30")
    s = game.new_initial_state()
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    assert s.ply() <= game.max_game_length
    r = s.returns()
    assert r[0] == -r[1] and r[0] in (-1.0, 0.0, 1.0)
    assert s.end_reason() in ("den", "annihilation", "no-moves", "no-capture-limit", "repetition")
    assert s.legal_actions() == [] and not s.legal_mask().any()


def test_flip_has_chance_nodes():
    game = jz.Game("flip")
    assert game.num_chance_outcomes == 16
    s = game.new_initial_state()
    assert s.current_player() == 0
    flips = [a for a in s.legal_actions() if s.action_to_string(a).startswith("f:")]
    assert flips, "the flip game starts with flips"
    s.apply_action(flips[0])
    assert s.is_chance_node() and s.current_player() == jz.CHANCE
    outcomes = s.chance_outcomes()
    assert all(0 <= a < 16 for a, _ in outcomes)
    s.apply_action(outcomes[0][0])
    assert s.current_player() == 1


def test_bad_input_raises_one_line_errors():
    s = jz.Game().new_initial_state()
    cases = [
        lambda: s.apply_action(9999),
        lambda: s.apply_action(-1),
        lambda: s.string_to_action("z9z9"),
        lambda: s.string_to_action("d5d6"),
        lambda: jz.Game("chess"),
        lambda: jz.Game("jungle", rules="repetition=sometimes"),
        lambda: jz.Game().from_fen("not a fen"),
        lambda: jz.best_move(s),
        lambda: jz.best_move(s, depth=0),
    ]
    for case in cases:
        with pytest.raises(jz.JungleZeroError) as e:
            case()
        assert "\n" not in str(e.value) and str(e.value)
    # The state is unchanged by the refused actions.
    assert s.ply() == 0 and len(s.legal_actions()) == 24


def test_states_pickle_with_their_history():
    import pickle

    for name, rules in (("jungle", "repetition=forbidden,no_capture_plies=50"), ("flip", None)):
        rng = random.Random(11)
        s = jz.Game(name, rules=rules).new_initial_state()
        for _ in range(30):
            if s.is_terminal():
                break
            choices = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
            s.apply_action(rng.choice(choices))
        t = pickle.loads(pickle.dumps(s))
        assert (t.to_fen(), t.ply(), t.legal_actions(), t.rules()) == (s.to_fen(), s.ply(), s.legal_actions(), s.rules())
    with pytest.raises(jz.JungleZeroError):
        jz._native._restore("jungle", "default", jz.Game().new_initial_state().to_fen(), [0xFFFF])
