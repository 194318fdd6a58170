"""ae02: a 4x4 board of tiles; clicking (ACTION6 at x, y) a lit tile turns it off; a level is cleared when
no lit tile is left. Written for agent-eval (MIT), on ARCEngine."""

from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite

TILE, LIT, GRID = 3, 11, 4


def _level(lit):
    sprites = [
        Sprite(
            [[LIT if (x, y) in lit else TILE]],
            name=f"tile{x}{y}",
            x=x,
            y=y,
            tags=["lit"] if (x, y) in lit else ["tile"],
        )
        for y in range(GRID)
        for x in range(GRID)
    ]
    return Level(sprites=sprites, grid_size=(GRID, GRID))


LEVELS = [_level({(2, 1)}), _level({(0, 3), (3, 0)}), _level({(1, 1), (2, 2), (3, 3)})]


class Ae02(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(
            game_id="ae02",
            levels=LEVELS,
            camera=Camera(width=GRID, height=GRID, background=0, letter_box=0),
            available_actions=[6],
            seed=seed,
        )

    def step(self) -> None:
        if self.action.id == GameAction.ACTION6:
            cell = self.camera.display_to_grid(int(self.action.data.get("x", 0)), int(self.action.data.get("y", 0)))
            if cell is not None:
                for tile in self.current_level.get_sprites_by_tag("lit"):
                    if (tile.x, tile.y) == cell:
                        tile.color_remap(LIT, TILE)
                        tile.tags.remove("lit")
                if not self.current_level.get_sprites_by_tag("lit"):
                    self.next_level()
        self.complete_action()
