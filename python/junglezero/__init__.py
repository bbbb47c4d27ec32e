"""junglezero for Python: Jungle (Dou Shou Qi) and the 4 x 4 flip game with exact rules,
batched environments, the classical engine, MCTS with trained networks and endgame tables.

The games follow OpenSpiel's state API (``legal_actions``, ``apply_action``, ``clone``,
``current_player``, ``is_terminal``, ``returns``, ``chance_outcomes``...); actions are the
network's policy indices, so a state's ``legal_mask()`` lines up with a network's policy.
``junglezero.openspiel`` registers the games with OpenSpiel, ``junglezero.pettingzoo`` wraps
them as PettingZoo environments. See docs/python.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from ._native import (
    CHANCE,
    TERMINAL,
    Batch,
    Game,
    JungleZeroError,
    Mcts,
    Network,
    State,
    Tablebase,
    games,
)
from ._native import alphabeta as _alphabeta

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Batch",
    "EngineMove",
    "Game",
    "JungleZeroError",
    "Mcts",
    "Network",
    "SearchResult",
    "State",
    "Tablebase",
    "best_move",
    "games",
    "search",
]


@dataclass
class EngineMove:
    """The classical engine's answer: the action and move it plays, and what its last
    progress line said: the score (``score_cp`` in centipawns or ``mate`` in moves for Jungle's
    alpha-beta; ``value``, the expected result in [-1, 1], for the flip game's
    expectiminimax), the depth and the principal variation."""

    action: int
    move: str
    score_cp: Optional[int] = None
    mate: Optional[int] = None
    value: Optional[float] = None
    depth: Optional[int] = None
    pv: List[str] = field(default_factory=list)
    info: List[str] = field(default_factory=list)


def best_move(
    state: State,
    depth: Optional[int] = None,
    movetime: Optional[int] = None,
    nodes: Optional[int] = None,
    config: Optional[str] = None,
    set: Optional[List[str]] = None,
) -> EngineMove:
    """The classical engine's move in ``state`` (alpha-beta for Jungle, expectiminimax for the
    flip game), searching ``depth`` plies, ``movetime`` milliseconds or ``nodes`` nodes.
    ``config``/``set`` are a TOML config and ``key=value`` overrides, as on the command line."""
    found = _alphabeta(state, depth=depth, movetime=movetime, nodes=nodes, config=config, set=set)
    return EngineMove(**found)


@dataclass
class SearchResult:
    """What one MCTS search found: the chosen action and move, visits, priors and mean values
    per action (numpy arrays over the whole action space; 0 where not searched), the root's
    value and win/draw/loss estimate for the player to move, and the principal variation."""

    best: Optional[int]
    move: Optional[str]
    visits: np.ndarray
    priors: np.ndarray
    q: np.ndarray
    value: float
    wdl: Optional[tuple]
    pv: List[int]
    pv_moves: List[str]
    simulations: int


def _dense(values: Dict[int, float], size: int, dtype) -> np.ndarray:
    out = np.zeros(size, dtype=dtype)
    for a, v in values.items():
        out[a] = v
    return out


def search(
    state: State,
    model,
    sims: Optional[int] = None,
    movetime: Optional[int] = None,
    **options,
) -> SearchResult:
    """MCTS from ``state`` with ``model`` (a ``Network``, an ``Mcts`` or a model file's path):
    ``sims`` simulations (800 by default) or ``movetime`` milliseconds. Extra keyword
    arguments go to ``Mcts`` (``config``, ``set``, ``tablebase``)."""
    if isinstance(model, Mcts):
        mcts = model
    else:
        network = model if isinstance(model, Network) else Network(str(model))
        mcts = Mcts(network, sims=sims or 800, **options)
    found = mcts.search(state, sims=sims, movetime=movetime)
    size = state.num_actions()
    return SearchResult(
        best=found["best"],
        move=found["move"],
        visits=_dense(found["visits"], size, np.int64),
        priors=_dense(found["priors"], size, np.float32),
        q=_dense(found["q"], size, np.float32),
        value=found["value"],
        wdl=found["wdl"],
        pv=list(found["pv"]),
        pv_moves=list(found["pv_moves"]),
        simulations=found["simulations"],
    )
