"""The games as PettingZoo AEC environments::

    from junglezero.pettingzoo import env
    e = env("jungle")
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        mask = obs["action_mask"]
        action = None if termination or truncation else int(np.flatnonzero(mask)[0])
        e.step(action)

Agents ``player_0`` (Red, who moves first) and ``player_1``. An observation is a dict:
``observation``, the network's input planes (float32, planes x rows x cols, from the view of
the player to move), and ``action_mask`` (int8 over the fixed action space, the legal actions of
the agent to move; zeros for the other). Rewards are +1/-1/0 at the end. Nature's flips (the
flip game) are drawn by the environment's generator, seeded by ``reset(seed=...)``.
``max_plies`` truncates a game that runs longer.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import CHANCE, Game


class JungleEnv(AECEnv):
    """A junglezero game as a two-agent AEC environment."""

    metadata = {"render_modes": ["ansi", "human"], "name": "junglezero_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str = "jungle",
        rules: Optional[str] = None,
        render_mode: Optional[str] = None,
        max_plies: Optional[int] = None,
    ):
        super().__init__()
        self.game = Game(game, rules)
        self.metadata = dict(self.metadata, name=f"junglezero_{game}_v0")
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        planes, rows, cols = self.game.observation_shape
        n = self.game.num_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=1.0, shape=(planes, rows, cols), dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.state = self.game.new_initial_state()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _settle(self) -> None:
        """Nature's moves, drawn by their probabilities, until a player is to move."""
        while self.state.current_player() == CHANCE:
            outcomes = self.state.chance_outcomes()
            p = np.array([q for _, q in outcomes], dtype=np.float64)
            i = self._rng.choice(len(outcomes), p=p / p.sum())
            self.state.apply_action(outcomes[i][0])

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self.game.new_initial_state()
        self._settle()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent):
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.state.is_terminal():
            mask[:] = self.state.legal_mask()
        return {"observation": self.state.observation_tensor(), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        self.state.apply_action(int(action))
        self._settle()
        if self.state.is_terminal():
            r = self.state.returns()
            self.rewards = {a: int(r[i]) for i, a in enumerate(self.possible_agents)}
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: {"reason": self.state.end_reason()} for a in self.agents}
            self.agent_selection = self.possible_agents[1 - self.possible_agents.index(agent)]
        elif self.max_plies is not None and self.state.ply() >= self.max_plies:
            self.truncations = {a: True for a in self.agents}
            self.agent_selection = self.possible_agents[1 - self.possible_agents.index(agent)]
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        text = str(self.state)
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass


def env(game: str = "jungle", **kwargs) -> JungleEnv:
    """The environment of ``game`` ("jungle" or "flip"); keyword arguments go to
    ``JungleEnv`` (``rules``, ``render_mode``, ``max_plies``)."""
    return JungleEnv(game, **kwargs)
