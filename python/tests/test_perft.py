"""Perft through the package's actions equals the binary's counts, so the action API walks
the same move tree as the rules."""

import re

import pytest

import junglezero as jz


def walk(state, depth):
    """Leaves `depth` plies deep through legal_actions/apply_action; a flip and what it
    reveals are one ply, as `junglezero perft` counts them."""
    if state.is_terminal():
        return 0 if depth > 0 else 1
    if state.is_chance_node():
        total = 0
        for a, _ in state.chance_outcomes():
            child = state.clone()
            child.apply_action(a)
            total += walk(child, depth)
        return total
    if depth == 0:
        return 1
    total = 0
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        total += walk(child, depth - 1)
    return total


def binary_perft(run, game, depth):
    out = run("perft", depth, "--game", game)
    return int(re.search(r"nodes (\d+)", out).group(1))


@pytest.mark.parametrize("game,depth", [("jungle", 1), ("jungle", 2), ("jungle", 3), ("flip", 1), ("flip", 2)])
def test_perft_matches_the_binary(run, game, depth):
    expected = binary_perft(run, game, depth)
    s = jz.Game(game).new_initial_state()
    assert walk(s, depth) == expected
    assert s.perft(depth) == expected
