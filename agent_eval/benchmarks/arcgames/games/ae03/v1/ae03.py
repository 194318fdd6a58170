"""ae03: a carrier on the top row of an 8x8 board moves with ACTION3/ACTION4; ACTION1 drops a ball that falls
one row per frame (one action returns the whole fall as an animation). A ball landing on the target clears the
level; one stopped by a block, or landing elsewhere, is lost. Written for agent-eval (MIT), on ARCEngine."""

from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite

CARRIER, BALL, TARGET, BLOCK, SKY = 12, 10, 14, 2, 0


def _level(carrier_x, target_x, blocks):
    sprites = [
        Sprite([[CARRIER]], name="carrier", x=carrier_x, y=0),
        Sprite([[TARGET]], name="target", x=target_x, y=7, layer=0),
    ]
    sprites += [Sprite([[BLOCK]], name=f"block{i}", x=x, y=y, tags=["block"]) for i, (x, y) in enumerate(blocks)]
    return Level(sprites=sprites, grid_size=(8, 8))


LEVELS = [_level(1, 4, []), _level(6, 1, [(3, 6)]), _level(0, 7, [(3, 5), (4, 5), (6, 4)])]


class Ae03(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(
            game_id="ae03",
            levels=LEVELS,
            camera=Camera(width=8, height=8, background=SKY, letter_box=SKY),
            available_actions=[1, 3, 4],
            seed=seed,
        )

    def _ball(self):
        balls = self.current_level.get_sprites_by_name("ball")
        return balls[0] if balls else None

    def step(self) -> None:
        level, ball = self.current_level, self._ball()
        if ball is not None:  # an animation frame: the ball falls one row
            below = (ball.x, ball.y + 1)
            if ball.y + 1 > 7 or any((b.x, b.y) == below for b in level.get_sprites_by_tag("block")):
                hit = ball.y == 7 and ball.x == level.get_sprites_by_name("target")[0].x
                level.remove_sprite(ball)
                if hit:
                    self.next_level()
                self.complete_action()
            else:
                ball.set_position(*below)
            return
        carrier = level.get_sprites_by_name("carrier")[0]
        if self.action.id == GameAction.ACTION3 and carrier.x > 0:
            carrier.set_position(carrier.x - 1, 0)
        elif self.action.id == GameAction.ACTION4 and carrier.x < 7:
            carrier.set_position(carrier.x + 1, 0)
        elif self.action.id == GameAction.ACTION1:
            level.add_sprite(Sprite([[BALL]], name="ball", x=carrier.x, y=1, layer=1))
            return  # not complete: the fall continues on the next frames
        self.complete_action()
