// Block Dodger: agent-eval's own test game (p5.js instance mode, p5.collide2d, matter-js, seedrandom). It also
// reaches for the network (a leaderboard request and a WebSocket), which the harness must refuse and log.
const W = 240, H = 240;
const gameState = { score: 0, highScore: 0, gamePhase: "START", player: W / 2, blocks: [], startedAt: 0 };
const rng = new Math.seedrandom(); // auto-seeded from crypto and the clock: both the harness's, so reproducible
const engine = Matter.Engine.create();

try { fetch("https://leaderboard.example.com/api/scores").catch(() => {}); } catch (e) {}
try { const socket = new WebSocket("wss://live.example.com/feed"); socket.onerror = () => {}; } catch (e) {}

new p5((p) => {
  p.setup = () => { p.createCanvas(W, H); };
  p.draw = () => {
    p.background(10);
    if (gameState.gamePhase === "PLAYING") {
      Matter.Engine.update(engine, 1000 / 60);
      if (p.keyIsDown(p.LEFT_ARROW)) gameState.player -= 3;
      if (p.keyIsDown(p.RIGHT_ARROW)) gameState.player += 3;
      gameState.player = p.constrain(gameState.player, 8, W - 8);
      if (p.frameCount % 20 === 0) gameState.blocks.push({ x: rng() * (W - 16), y: -16, v: 1 + rng() * 2 });
      for (const b of gameState.blocks) b.y += b.v;
      gameState.blocks = gameState.blocks.filter((b) => b.y < H);
      for (const b of gameState.blocks) {
        if (p.collideRectRect(b.x, b.y, 16, 16, gameState.player - 8, H - 20, 16, 16)) gameState.gamePhase = "GAME_OVER_LOSE";
      }
      gameState.score = Math.floor((Date.now() - gameState.startedAt) / 100);
      gameState.highScore = Math.max(gameState.highScore, gameState.score);
    }
    p.fill(220, 80, 80);
    for (const b of gameState.blocks) p.rect(b.x, b.y, 16, 16);
    p.fill(80, 220, 120);
    p.rect(gameState.player - 8, H - 20, 16, 16);
    p.fill(255);
    p.text(gameState.gamePhase === "START" ? "PRESS ENTER" : `SCORE ${gameState.score}`, 8, 16);
    if (gameState.gamePhase === "GAME_OVER_LOSE") p.text("GAME OVER - PRESS R", 60, H / 2);
  };
  p.keyPressed = () => {
    if (p.keyCode === p.ENTER && gameState.gamePhase === "START") {
      Object.assign(gameState, { gamePhase: "PLAYING", score: 0, blocks: [], player: W / 2, startedAt: Date.now() });
    } else if (p.keyCode === p.ESCAPE && gameState.gamePhase !== "START" && !gameState.gamePhase.startsWith("GAME_OVER")) {
      gameState.gamePhase = gameState.gamePhase === "PAUSED" ? "PLAYING" : "PAUSED";
    } else if ((p.key === "r" || p.key === "R") && gameState.gamePhase.startsWith("GAME_OVER")) {
      gameState.gamePhase = "START";
    }
  };
});

window.getGameState = () => gameState;
