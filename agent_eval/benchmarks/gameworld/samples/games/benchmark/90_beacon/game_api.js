// window.gameAPI for Beacon, in the shape of GameWorld's games (schemaVersion 2.0): init, reset, getState.
(function () {
  'use strict';
  var GAME_ID = '90_beacon';
  var episodes = 0;

  function nextFrame() {
    return new Promise(function (resolve) { window.requestAnimationFrame(function () { resolve(); }); });
  }
  async function waitForGame(frames) {
    for (var i = 0; i < frames && !window.__beacon; i++) await nextFrame();
    return window.__beacon || null;
  }
  function loading() {
    return {
      schemaVersion: '2.0', gameId: GAME_ID, status: 'loading', is_actionable: false,
      terminal: { isTerminal: false, outcome: null, reason: null },
      game_state: { score: null, level: null, player: null, completion_progress: null },
      metrics: {}
    };
  }
  window.gameAPI = {
    version: '2.0',
    init: async function () {
      var game = await waitForGame(120);
      if (game) { game.restart(); episodes += 1; }
      return { ok: !!game };
    },
    reset: async function () {
      var game = await waitForGame(120);
      if (game) { game.restart(); episodes += 1; }
      return { ok: !!game, method: 'inplace' };
    },
    getState: function () {
      var game = window.__beacon;
      if (!game) return loading();
      var terminal = game.over;
      return {
        schemaVersion: '2.0',
        gameId: GAME_ID,
        gameTimeMs: Math.round(performance.now() - game.started),
        status: terminal ? 'terminal' : 'playing',
        is_actionable: !terminal,
        terminal: {
          isTerminal: terminal,
          outcome: terminal ? (game.won ? 'success' : 'fail') : null,
          reason: terminal ? (game.won ? 'all_beacons_lit' : 'caught_by_guard') : null
        },
        game_state: {
          score: game.score,
          level: Math.floor(game.score / 3) + 1,
          player: { x: game.player.x, y: game.player.y },
          guard: game.guardOn ? { x: game.guard.x, y: game.guard.y } : null,
          beacons: game.beacons.map(function (b) { return { x: b.x, y: b.y }; }),
          completion_progress: game.score / 10
        },
        metrics: {
          lit_by_key: game.counts.by_key,
          lit_by_click: game.counts.by_click,
          key_presses: game.counts.keys,
          clicks: game.counts.clicks,
          pointer_moves: game.counts.moves,
          wheel_events: game.counts.wheel,
          episodes: episodes
        }
      };
    }
  };
})();
