// Relay: two tokens on two rows of five cells. The amber token (row 0) moves with a / d, the teal one (row 1) with
// ArrowLeft / ArrowRight. Each row has a gem (amber's at the right end, teal's at the left end): a token on its
// gem collects it (1 point). Both gems collected: the game is won.
(function () {
  'use strict';
  var CELLS = 5, CELL = 60;
  var canvas = document.getElementById('board');
  var ctx = canvas.getContext('2d');
  var MOVES = { a: [0, -1], d: [0, 1], ArrowLeft: [1, -1], ArrowRight: [1, 1] };
  var GEMS = [CELLS - 1, 0];
  var episodes = 0;

  function Game() { this.restart(); }
  Game.prototype.restart = function () {
    this.tokens = [2, 2];
    this.collected = [0, 0];
    this.keys = { amber: 0, teal: 0 };
    this.started = performance.now();
  };
  Game.prototype.score = function () { return this.collected[0] + this.collected[1]; };
  Game.prototype.won = function () { return this.score() === 2; };
  Game.prototype.move = function (key) {
    var row = MOVES[key][0];
    this.keys[row ? 'teal' : 'amber'] += 1;
    if (this.won()) return;
    this.tokens[row] = Math.max(0, Math.min(CELLS - 1, this.tokens[row] + MOVES[key][1]));
    if (this.tokens[row] === GEMS[row]) this.collected[row] = 1;
  };
  Game.prototype.draw = function () {
    var colours = ['#f5a524', '#12a594'];
    ctx.fillStyle = '#1b1d24';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    for (var row = 0; row < 2; row++) {
      for (var x = 0; x < CELLS; x++) {
        ctx.fillStyle = (x + row) % 2 ? '#262a35' : '#2d3240';
        ctx.fillRect(x * CELL, row * CELL, CELL, CELL);
      }
      if (!this.collected[row]) { ctx.fillStyle = '#ffffff'; ctx.fillRect(GEMS[row] * CELL + 24, row * CELL + 24, 12, 12); }
      ctx.fillStyle = colours[row];
      ctx.fillRect(this.tokens[row] * CELL + 10, row * CELL + 10, 40, 40);
    }
  };

  function frame() {
    if (!window.__relay) window.__relay = new Game();
    window.__relay.draw();
    window.requestAnimationFrame(frame);
  }
  window.requestAnimationFrame(frame);
  window.addEventListener('keydown', function (e) {
    if (!window.__relay || !MOVES[e.key] || e.repeat) return;
    e.preventDefault();
    window.__relay.move(e.key);
  });

  window.gameAPI = {
    version: '2.0',
    init: async function () { if (window.__relay) { window.__relay.restart(); episodes += 1; } return { ok: !!window.__relay }; },
    reset: async function () { if (window.__relay) { window.__relay.restart(); episodes += 1; } return { ok: !!window.__relay, method: 'inplace' }; },
    getState: function () {
      var game = window.__relay;
      var won = !!game && game.won();
      return {
        schemaVersion: '2.0', gameId: '91_relay',
        status: !game ? 'loading' : won ? 'terminal' : 'playing', is_actionable: !!game && !won,
        terminal: { isTerminal: won, outcome: won ? 'success' : null, reason: won ? 'both_gems' : null },
        game_state: game ? {
          score: game.score(), tokens: { amber: game.tokens[0], teal: game.tokens[1] },
          gems: { amber: game.collected[0], teal: game.collected[1] }
        } : { score: null },
        metrics: game ? { amber_keys: game.keys.amber, teal_keys: game.keys.teal, episodes: episodes } : {}
      };
    }
  };
})();
