// Beacon: walk a lamp over an 8x6 board (arrow keys; a held key repeats every 100 ms) or click a beacon to
// light it. Each beacon lit scores 1 and a new one appears at a random free cell; a red guard walks the middle
// rows on the game's clock, and touching it ends the game (a failed terminal). Ten beacons win.
// Like GameWorld's 2048, the game is made in the page's first animation frame (until then it is "loading") and a
// restart places its beacons on the next frame: a gameAPI.init that restarts the game before that frame leaves
// the first restart's beacons, one after it draws new ones (2048's race: the start board depends on when init ran).
(function () {
  'use strict';
  var COLS = 8, ROWS = 6, CELL = 60, TOP = 0, WIN = 10, REPEAT_MS = 100, GUARD_MS = 250;
  var params = new URLSearchParams(window.location.search);
  var canvas = document.getElementById('board');
  var ctx = canvas.getContext('2d');

  function Game() {
    this.guardOn = params.get('guard') !== 'off';
    this.restart();
  }
  Game.prototype.restart = function () {
    this.player = { x: 0, y: 0 };
    this.score = 0;
    this.over = false;
    this.won = false;
    this.beacons = [];
    this.held = {};
    this.counts = { keys: 0, clicks: 0, moves: 0, wheel: 0, by_key: 0, by_click: 0 };
    this.guard = { x: 0, y: 2, dir: 1, last: performance.now() };
    this.started = performance.now();
    var self = this;
    window.requestAnimationFrame(function () { while (self.beacons.length < 3) self.spawn(); });
  };
  Game.prototype.free = function (x, y) {
    if (x === this.player.x && y === this.player.y) return false;
    for (var i = 0; i < this.beacons.length; i++) {
      if (this.beacons[i].x === x && this.beacons[i].y === y) return false;
    }
    return true;
  };
  Game.prototype.spawn = function () {
    for (var tries = 0; tries < 200; tries++) {
      var x = Math.floor(Math.random() * COLS), y = Math.floor(Math.random() * ROWS);
      if (this.free(x, y) && !(this.guardOn && (y === 2 || y === 3))) {
        this.beacons.push({ x: x, y: y });
        return;
      }
    }
  };
  Game.prototype.light = function (index, how) {
    this.beacons.splice(index, 1);
    this.score += 1;
    this.counts[how] += 1;
    if (this.score >= WIN) { this.over = true; this.won = true; } else { this.spawn(); }
  };
  Game.prototype.step = function (dx, dy) {
    if (this.over) return;
    this.player.x = Math.max(0, Math.min(COLS - 1, this.player.x + dx));
    this.player.y = Math.max(0, Math.min(ROWS - 1, this.player.y + dy));
    for (var i = 0; i < this.beacons.length; i++) {
      if (this.beacons[i].x === this.player.x && this.beacons[i].y === this.player.y) { this.light(i, 'by_key'); break; }
    }
    this.check();
  };
  Game.prototype.check = function () {
    if (this.guardOn && this.player.x === this.guard.x && this.player.y === this.guard.y) { this.over = true; }
  };
  Game.prototype.tick = function (now) {
    if (this.over) return;
    var dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    for (var key in this.held) {
      while (now - this.held[key] >= REPEAT_MS && !this.over) { this.held[key] += REPEAT_MS; this.step(dirs[key][0], dirs[key][1]); }
    }
    if (this.guardOn) {
      while (now - this.guard.last >= GUARD_MS) {
        this.guard.last += GUARD_MS;
        var next = this.guard.x + this.guard.dir;
        if (next < 0 || next >= COLS) { this.guard.dir = -this.guard.dir; this.guard.y = this.guard.y === 2 ? 3 : 2; next = this.guard.x; }
        this.guard.x = next;
        this.check();
      }
    }
  };
  Game.prototype.draw = function () {
    ctx.fillStyle = '#1b1d24';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    for (var y = 0; y < ROWS; y++) {
      for (var x = 0; x < COLS; x++) {
        ctx.fillStyle = (x + y) % 2 ? '#262a35' : '#2d3240';
        ctx.fillRect(x * CELL, TOP + y * CELL, CELL, CELL);
      }
    }
    ctx.fillStyle = '#f7c948';
    this.beacons.forEach(function (b) { ctx.fillRect(b.x * CELL + 20, TOP + b.y * CELL + 20, 20, 20); });
    if (this.guardOn) { ctx.fillStyle = '#e5484d'; ctx.fillRect(this.guard.x * CELL + 8, TOP + this.guard.y * CELL + 8, 44, 44); }
    ctx.fillStyle = this.over && !this.won ? '#6b7280' : '#4cc38a';
    ctx.fillRect(this.player.x * CELL + 12, TOP + this.player.y * CELL + 12, 36, 36);
    for (var i = 0; i < this.score; i++) { ctx.fillStyle = '#f7c948'; ctx.fillRect(4 + i * 12, 350, 8, 6); }
  };

  function frame(now) {
    if (!window.__beacon) { window.__beacon = new Game(); }
    window.__beacon.tick(now);
    window.__beacon.draw();
    window.requestAnimationFrame(frame);
  }
  window.requestAnimationFrame(frame);

  var KEYS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'];
  var DIRS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  window.addEventListener('keydown', function (e) {
    var game = window.__beacon;
    if (!game || KEYS.indexOf(e.key) < 0) return;
    e.preventDefault();
    if (e.repeat || game.held[e.key] !== undefined) return;
    game.counts.keys += 1;
    game.held[e.key] = performance.now();
    game.step(DIRS[e.key][0], DIRS[e.key][1]);
  });
  window.addEventListener('keyup', function (e) {
    var game = window.__beacon;
    if (game) delete game.held[e.key];
  });
  canvas.addEventListener('mousedown', function (e) {
    var game = window.__beacon;
    if (!game || game.over || e.button !== 0) return;
    game.counts.clicks += 1;
    var x = Math.floor(e.offsetX / CELL), y = Math.floor((e.offsetY - TOP) / CELL);
    for (var i = 0; i < game.beacons.length; i++) {
      if (game.beacons[i].x === x && game.beacons[i].y === y) { game.light(i, 'by_click'); break; }
    }
  });
  canvas.addEventListener('mousemove', function () { if (window.__beacon) window.__beacon.counts.moves += 1; });
  canvas.addEventListener('wheel', function (e) { e.preventDefault(); if (window.__beacon) window.__beacon.counts.wheel += 1; }, { passive: false });
})();
