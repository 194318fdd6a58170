// Cube Spinner: agent-eval's own WebGL test game (three.js as an ES module): a canvas the harness must read
// in the same task it was drawn in (no preserveDrawingBuffer).
import * as THREE from "three";

const W = 200, H = 150;
const gameState = { score: 0, highScore: 0, gamePhase: "START", angle: 0 };
const held = new Set();
const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setSize(W, H);
document.body.appendChild(renderer.domElement);
const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(50, W / H, 0.1, 100);
camera.position.z = 4;
const faces = [0xff4040, 0x404040, 0x404040, 0x404040, 0x404040, 0x404040].map((c) => new THREE.MeshBasicMaterial({ color: c }));
const cube = new THREE.Mesh(new THREE.BoxGeometry(1.5, 1.5, 1.5), faces);
scene.add(cube);
const clock = new THREE.Clock();

addEventListener("keydown", (e) => {
  held.add(e.key);
  if (e.key === "Enter" && gameState.gamePhase === "START") Object.assign(gameState, { gamePhase: "PLAYING", score: 0 });
  else if (e.key === "Escape" && gameState.gamePhase !== "START") gameState.gamePhase = gameState.gamePhase === "PAUSED" ? "PLAYING" : "PAUSED";
  else if ((e.key === "r" || e.key === "R") && gameState.gamePhase !== "START") gameState.gamePhase = "START";
});
addEventListener("keyup", (e) => held.delete(e.key));

renderer.setAnimationLoop(() => {
  const dt = clock.getDelta();
  if (gameState.gamePhase === "PLAYING") {
    if (held.has("ArrowLeft")) gameState.angle -= 2 * dt;
    if (held.has("ArrowRight")) gameState.angle += 2 * dt;
    cube.rotation.y = gameState.angle;
    if (Math.cos(gameState.angle - Math.PI / 2) > 0.7) gameState.score += 1;
    gameState.highScore = Math.max(gameState.highScore, gameState.score);
  }
  renderer.render(scene, camera);
});

window.getGameState = () => gameState;
