"""ae01: a walker on an 8x8 board. ACTION1-4 move up/down/left/right; reaching the goal clears the
level; stepping on a hazard ends the game (GAME_OVER). Written for agent-eval (MIT), on ARCEngine."""

from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite

PLAYER, GOAL, HAZARD, FLOOR = 9, 14, 8, 0
MOVES = {
    GameAction.ACTION1: (0, -1),
    GameAction.ACTION2: (0, 1),
    GameAction.ACTION3: (-1, 0),
    GameAction.ACTION4: (1, 0),
}


def _cell(color, x, y, name, tags):
    return Sprite([[color]], name=name, x=x, y=y, tags=tags)


def _level(player, goal, hazards):
    sprites = [_cell(PLAYER, *player, "player", ["player"]), _cell(GOAL, *goal, "goal", ["goal"])]
    sprites += [_cell(HAZARD, x, y, f"hazard{i}", ["hazard"]) for i, (x, y) in enumerate(hazards)]
    return Level(sprites=sprites, grid_size=(8, 8))


LEVELS = [
    _level((1, 1), (6, 1), []),
    _level((1, 1), (6, 6), [(x, 3) for x in range(6)]),
    _level((0, 7), (7, 0), [(3, 3), (4, 4), (5, 5), (1, 6), (2, 5), (6, 2), (1, 1)]),
]


class Ae01(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(
            game_id="ae01",
            levels=LEVELS,
            camera=Camera(width=8, height=8, background=FLOOR, letter_box=FLOOR),
            available_actions=[1, 2, 3, 4],
            seed=seed,
        )

    def step(self) -> None:
        move = MOVES.get(self.action.id)
        if move is not None:
            player = self.current_level.get_sprites_by_name("player")[0]
            x, y = player.x + move[0], player.y + move[1]
            if 0 <= x < 8 and 0 <= y < 8:
                player.set_position(x, y)
                if any(s.x == x and s.y == y for s in self.current_level.get_sprites_by_tag("hazard")):
                    self.lose()
                elif any(s.x == x and s.y == y for s in self.current_level.get_sprites_by_tag("goal")):
                    self.next_level()
        self.complete_action()
