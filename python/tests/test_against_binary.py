"""A game played through the package against the binary: the binary's engine picks Blue's
moves (`junglezero search`), the package's engine Red's, the package plays both; at the end
the binary, replaying the same moves (`junglezero show`), reaches the same position with the
same legal moves."""

import re

import junglezero as jz


def test_a_game_against_the_binary(run):
    game = jz.Game("jungle", rules="no_capture_plies=40")
    state = game.new_initial_state()
    moves = []
    while not state.is_terminal() and len(moves) < 40:
        if state.current_player() == 0:
            move = jz.best_move(state, depth=2).move
        else:
            out = run("search", "--rules", "no_capture_plies=40", "--moves", " ".join(moves), "--depth", "2")
            move = re.search(r"^bestmove (\S+)", out, re.M).group(1)
        state.apply_action(state.string_to_action(move))
        moves.append(move)
    shown = run("show", "--rules", "no_capture_plies=40", "--moves", " ".join(moves))
    fen = re.search(r"^fen (.+)$", shown, re.M).group(1)
    assert fen == state.to_fen()
    if not state.is_terminal():
        legal = re.search(r"legal moves: (.+)$", shown, re.M).group(1).split()
        assert sorted(legal) == sorted(state.action_to_string(a) for a in state.legal_actions())
    else:
        assert "game over" in shown
