// Star Catcher: agent-eval's own test game in the AI GameStore style (p5.js global mode, getGameState with
// score, highScore and gamePhase, Enter to start, Esc to pause, R to restart). Written for this project.
const W = 320, H = 240;
const gameState = { score: 0, highScore: 0, gamePhase: "START", lives: 3, currentLevel: 1, stars: [], basket: W / 2, facing: 1, bonus: 0 };

function resetGame() {
  Object.assign(gameState, { score: 0, lives: 5, currentLevel: 1, stars: [], basket: W / 2, facing: 1, bonus: 0 });
}

function setup() {
  createCanvas(W, H);
  frameRate(60);
}

function spawnStar() {
  gameState.stars.push({ x: random(10, W - 10), y: -8, speed: random(1.5, 3) + gameState.currentLevel * 0.3 });
}

function update() {
  if (keyIsDown(LEFT_ARROW)) { gameState.basket -= 4; gameState.facing = -1; }
  if (keyIsDown(RIGHT_ARROW)) { gameState.basket += 4; gameState.facing = 1; }
  gameState.basket = constrain(gameState.basket, 20, W - 20);
  if (frameCount % 30 === 0) spawnStar();
  for (const star of gameState.stars) star.y += star.speed;
  const kept = [];
  for (const star of gameState.stars) {
    if (star.y > H - 24 && star.y < H - 8 && Math.abs(star.x - gameState.basket) < 24) {
      gameState.score += 10;
    } else if (star.y > H) {
      gameState.lives -= 1;
    } else {
      kept.push(star);
    }
  }
  gameState.stars = kept;
  gameState.currentLevel = 1 + Math.floor(gameState.score / 50);
  gameState.highScore = Math.max(gameState.highScore, gameState.score);
  if (gameState.lives <= 0) gameState.gamePhase = "GAME_OVER_LOSE";
}

function draw() {
  background(20, 24, 48);
  fill(255);
  noStroke();
  textSize(12);
  if (gameState.gamePhase === "START") {
    textAlign(CENTER, CENTER);
    text("STAR CATCHER\nPRESS ENTER", W / 2, H / 2);
    return;
  }
  if (gameState.gamePhase === "PLAYING") update();
  fill(255, 220, 0);
  for (const star of gameState.stars) circle(star.x, star.y, 10);
  fill(120, 200, 255);
  rect(gameState.basket - 20, H - 16, 40, 10);
  fill(255);
  textAlign(LEFT, TOP);
  text(`SCORE ${gameState.score}  LIVES ${gameState.lives}  BEST ${gameState.highScore}`, 6, 6);
  if (gameState.bonus > 0) text("BONUS!", W - 60, 6);
  textAlign(CENTER, CENTER);
  if (gameState.gamePhase === "PAUSED") text("PAUSED", W / 2, H / 2);
  if (gameState.gamePhase === "GAME_OVER_LOSE") text("GAME OVER\nPRESS R", W / 2, H / 2);
}

function keyPressed() {
  if (keyCode === ENTER && gameState.gamePhase === "START") {
    resetGame();
    gameState.gamePhase = "PLAYING";
    // a timer on the game's clock: a bonus star just above the basket, caught before the first decision
    setTimeout(() => { gameState.bonus = 1; gameState.stars.push({ x: gameState.basket, y: 0, speed: 6 }); }, 200);
  } else if (keyCode === ESCAPE && (gameState.gamePhase === "PLAYING" || gameState.gamePhase === "PAUSED")) {
    gameState.gamePhase = gameState.gamePhase === "PLAYING" ? "PAUSED" : "PLAYING";
  } else if ((key === "r" || key === "R") && gameState.gamePhase.startsWith("GAME_OVER")) {
    gameState.gamePhase = "START";
  } else if (key === " " && gameState.gamePhase === "PLAYING") {
    gameState.basket = constrain(gameState.basket + 30 * gameState.facing, 20, W - 20);
  }
}

window.getGameState = function () {
  return gameState;
};
