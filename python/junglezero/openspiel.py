"""The games registered with OpenSpiel, so its algorithms and tests run on them.

Importing this module registers ``python_jungle`` and ``python_flip``::

    import pyspiel
    import junglezero.openspiel
    game = pyspiel.load_game("python_jungle")

Other rules: ``junglezero.openspiel.JungleSpielGame(rules="repetition=draw")`` (OpenSpiel's
game strings cannot carry the rules' own ``key=value`` text). The states are perfect-information
(the flip game's face-down pieces are undecided until flipped, when nature picks one from the
pool: an explicit chance node); player actions are the network's policy indices, chance actions
the game's numbers of the revealed pieces.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pyspiel

from . import CHANCE, TERMINAL, Game

_UNBOUNDED = 1_000_000


def _game_type(name: str, chance: bool) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=f"python_{name}",
        long_name=f"junglezero {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if chance else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )


class _SpielGame(pyspiel.Game):
    _NAME = ""
    _TYPE: "pyspiel.GameType"

    def __init__(self, params=None, rules: Optional[str] = None):
        self.jz = Game(self._NAME, rules)
        # OpenSpiel counts nature's actions in a game's length; the rules' bound counts plies, a
        # flip and what it reveals being one: at most one chance action a ply.
        bound = self.jz.max_game_length
        length = _UNBOUNDED if bound is None else bound * (2 if self.jz.num_chance_outcomes else 1)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.jz.num_actions,
            max_chance_outcomes=self.jz.num_chance_outcomes,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=length,
        )
        super().__init__(self._TYPE, info, params or dict())

    def new_initial_state(self):
        return SpielState(self, self.jz.new_initial_state())

    def state_from_fen(self, fen: str) -> "SpielState":
        """A state from a position's text (Jungle: FEN)."""
        return SpielState(self, self.jz.from_fen(fen))

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(self.jz)


class SpielState(pyspiel.State):
    """An OpenSpiel state around a junglezero state (``.jz``)."""

    def __init__(self, game: _SpielGame, state):
        super().__init__(game)
        self.jz = state

    def current_player(self):
        p = self.jz.current_player()
        if p == CHANCE:
            return pyspiel.PlayerId.CHANCE
        if p == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return p

    def _legal_actions(self, player):
        return self.jz.legal_actions()

    def chance_outcomes(self):
        return self.jz.chance_outcomes()

    def _apply_action(self, action):
        self.jz.apply_action(int(action))

    def _action_to_string(self, player, action):
        try:
            return self.jz.action_to_string(int(action))
        except ValueError:
            # OpenSpiel also names actions of other states (a history's); say what it is.
            return f"action {action}"

    def is_terminal(self):
        return self.jz.is_terminal()

    def returns(self):
        return list(self.jz.returns())

    def __str__(self):
        return self.jz.to_fen()


class _Observer:
    """The network's input planes, from the view of the player to move (both players get the
    same planes: the games are of perfect information)."""

    def __init__(self, game: Game):
        planes, rows, cols = game.observation_shape
        self.tensor = np.zeros(planes * rows * cols, np.float32)
        self.dict = {"observation": self.tensor.reshape(planes, rows, cols)}

    def set_from(self, state: SpielState, player: int) -> None:
        self.tensor[:] = state.jz.observation_tensor().ravel()

    def string_from(self, state: SpielState, player: int) -> str:
        return state.jz.to_fen()


class JungleSpielGame(_SpielGame):
    """Jungle for OpenSpiel (``python_jungle``)."""

    _NAME = "jungle"
    _TYPE = _game_type("jungle", chance=False)


class FlipSpielGame(_SpielGame):
    """The 4 x 4 flip game for OpenSpiel (``python_flip``), nature's flips as chance nodes."""

    _NAME = "flip"
    _TYPE = _game_type("flip", chance=True)


for _cls in (JungleSpielGame, FlipSpielGame):
    if _cls._TYPE.short_name not in pyspiel.registered_names():
        pyspiel.register_game(_cls._TYPE, _cls)
