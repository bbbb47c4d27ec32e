// junglezero's page: board, play, analysis, game records, training report.
// Talks to the server's JSON endpoints (/api/...) and its analysis event stream.
'use strict';

const FILES = 'abcdefg';
const CHINESE = { rat: '鼠', cat: '猫', dog: '狗', wolf: '狼', leopard: '豹', tiger: '虎', lion: '狮', elephant: '象' };
const LATIN = { rat: 'Rt', cat: 'Ct', dog: 'Dg', wolf: 'Wf', leopard: 'Lp', tiger: 'Tg', lion: 'Ln', elephant: 'El' };

// Whether this browser has a font for the Chinese names: a machine without one draws every
// character as the same empty box, so two different characters come out alike. Without one,
// pieces carry Latin abbreviations and the traps and dens their names (class `latin`).
function drawsChinese() {
  const c = document.createElement('canvas');
  c.width = 40;
  c.height = 40;
  const g = c.getContext('2d');
  if (!g) return true;
  const ink = (ch) => {
    g.clearRect(0, 0, 40, 40);
    g.font = '32px ' + getComputedStyle(document.body).fontFamily;
    g.fillText(ch, 2, 34);
    return g.getImageData(0, 0, 40, 40).data.join(',');
  };
  return ink('鼠') !== ink('象');
}
const GLYPH = drawsChinese() ? CHINESE : LATIN;
if (GLYPH === LATIN) document.body.classList.add('latin');
const WATER = new Set(['b4', 'c4', 'b5', 'c5', 'b6', 'c6', 'e4', 'f4', 'e5', 'f5', 'e6', 'f6']);
const TRAPS = new Set(['c1', 'e1', 'd2', 'c9', 'e9', 'd8']);
const DENS = new Set(['d1', 'd9']);

const S = {
  info: null,
  game: 'jungle',    // 'jungle' or 'flip' (the 4×4 flip game)
  root: null,        // FEN the game started from (null: the start position)
  rules: '',         // rule switches over the server's (records may carry their own)
  moves: [],
  view: null,        // the server's PositionView
  selected: null,
  orientation: 'red',
  session: 's' + Math.random().toString(36).slice(2, 12),
  generation: 0,     // bumps on every position change; stale answers are dropped
  thinking: false,
  stream: null,
  analysis: { network: null, mcts: null, alphabeta: null },
  records: [],
  record: null,      // the record being stepped through
};

const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const opts = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

function setStatus(text, error) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', !!error);
}

function positionRequest() {
  const req = { moves: S.moves };
  if (S.game !== 'jungle') req.game = S.game;
  if (S.root) req.fen = S.root;
  if (S.rules) req.rules = S.rules;
  return req;
}

// ---- board ----------------------------------------------------------------------------

function dims() {
  return S.game === 'flip' ? { files: 4, ranks: 4 } : { files: 7, ranks: 9 };
}

function squareNames() {
  const names = [];
  const { files, ranks } = dims();
  for (let r = ranks; r >= 1; r--) for (let f = 0; f < files; f++) names.push(FILES[f] + r);
  return S.orientation === 'red' ? names : names.reverse();
}

function buildBoard() {
  const board = $('board');
  board.innerHTML = '';
  const { files, ranks } = dims();
  board.style.gridTemplateColumns = `repeat(${files}, var(--sq))`;
  board.style.gridTemplateRows = `repeat(${ranks}, var(--sq))`;
  const big = S.game === 'jungle';
  for (const name of squareNames()) {
    const sq = document.createElement('div');
    sq.className = 'sq' + (big && WATER.has(name) ? ' water' : '') + (big && TRAPS.has(name) ? ' trap' : '') + (big && DENS.has(name) ? ' den' : '');
    sq.dataset.square = name;
    const coord = document.createElement('span');
    coord.className = 'coord';
    coord.textContent = name;
    sq.appendChild(coord);
    sq.addEventListener('click', () => onSquare(name));
    sq.addEventListener('dragover', (e) => { if (sq.classList.contains('target')) e.preventDefault(); });
    sq.addEventListener('drop', (e) => { e.preventDefault(); onSquare(name); });
    board.appendChild(sq);
  }
}

function humanToMove() {
  const v = S.view;
  return v && !v.result && (S.record || playerOf(v.side_to_move) === 'human') && !S.thinking;
}

function playerOf(side) {
  return $(side + '-player').value;
}

function render() {
  const v = S.view;
  if (!v) return;
  const bySquare = new Map(v.pieces.map((p) => [p.square, p]));
  const hidden = new Set(v.flip ? v.flip.hidden : []);
  const steps = v.legal.filter((m) => !m.startsWith('f:') && m !== 'pass');
  const flips = new Set(humanToMove() ? v.legal.filter((m) => m.startsWith('f:')).map((m) => m.slice(2, 4)) : []);
  const movableFrom = new Set(humanToMove() ? steps.map((m) => m.slice(0, 2)) : []);
  const targets = new Set(S.selected ? steps.filter((m) => m.startsWith(S.selected)).map((m) => m.slice(-2)) : []);
  const last = lastSquares(v.last_move);
  const best = bestMove();
  const heat = heatMap();
  for (const sq of $('board').children) {
    const name = sq.dataset.square;
    for (const el of sq.querySelectorAll('.piece, .heat, .heat-label')) el.remove();
    sq.classList.toggle('target', targets.has(name));
    sq.classList.toggle('last', last.includes(name));
    sq.classList.toggle('best', !!best && (best.slice(0, 2) === name || best.slice(2) === name));
    const h = heat.get(name);
    if (h && h >= 0.01) {
      const layer = document.createElement('div');
      layer.className = 'heat';
      layer.style.opacity = Math.min(0.75, 0.15 + h * 0.9).toFixed(2);
      sq.appendChild(layer);
      const label = document.createElement('span');
      label.className = 'heat-label';
      label.textContent = Math.round(h * 100) + '%';
      sq.appendChild(label);
    }
    if (hidden.has(name)) {
      const el = document.createElement('div');
      el.className = 'piece facedown' + (flips.has(name) ? ' movable' : '');
      el.title = 'face down' + (flips.has(name) ? ': click to flip' : '');
      el.innerHTML = '<span class="glyph">?</span>';
      sq.appendChild(el);
    }
    const p = bySquare.get(name);
    if (p) {
      const el = document.createElement('div');
      el.className = `piece ${p.side} ${p.kind}`;
      el.title = `${p.side} ${p.kind} (${p.strength})`;
      el.innerHTML = `<span class="glyph">${GLYPH[p.kind]}</span><span class="name">${p.kind}</span><span class="str"><span>${p.strength}</span></span>`;
      if (movableFrom.has(name)) {
        el.classList.add('movable');
        el.draggable = true;
        el.addEventListener('dragstart', () => { S.selected = name; render(); });
      }
      if (S.selected === name) el.classList.add('selected');
      sq.appendChild(el);
    }
  }
  const res = $('result');
  if (v.result) {
    res.textContent = v.result.text;
    res.dataset.winner = v.result.winner || 'draw';
    res.dataset.reason = v.result.reason;
    res.classList.remove('hidden');
  } else {
    res.classList.add('hidden');
    delete res.dataset.winner;
  }
  $('moves-text').value = movesText();
  renderPool(v);
  $('fen-input').value = v.fen;
  // The moves a human may make now (read by the end-to-end test; the board's own state).
  $('board').dataset.legal = humanToMove() ? v.legal.join(' ') : '';
  document.body.dataset.toMove = v.side_to_move;
  document.body.dataset.thinking = S.thinking ? '1' : '0';
  renderAnalysis();
  renderRecord();
}

function moverText(v) {
  if (v.flip) {
    const seat = v.side_to_move === 'red' ? 'The first player' : 'The second player';
    return v.flip.colour_to_move ? `${seat} (${v.flip.colour_to_move})` : seat;
  }
  return v.side_to_move === 'red' ? 'Red' : 'Blue';
}

function lastSquares(mv) {
  if (!mv || mv === 'pass') return [];
  if (mv.startsWith('f:')) return [mv.slice(2, 4)];
  return [mv.slice(0, 2), mv.slice(-2)];
}

function renderPool(v) {
  const pool = $('pool');
  if (!v.flip) {
    pool.classList.add('hidden');
    return;
  }
  pool.classList.remove('hidden');
  const kinds = { R: 'rat', C: 'cat', D: 'dog', W: 'wolf', P: 'leopard', T: 'tiger', L: 'lion', E: 'elephant' };
  const chips = v.flip.pool.map((l) => {
    const side = l === l.toUpperCase() ? 'red' : 'blue';
    return `<span class="chip ${side}" title="${side} ${kinds[l.toUpperCase()]}">${GLYPH[kinds[l.toUpperCase()]]}</span>`;
  });
  const owner = v.flip.first_colour ? `first player: ${v.flip.first_colour}` : 'colours are decided by the first flip';
  pool.innerHTML = `<div class="muted">${owner} · face down: ${v.flip.pool.length}</div><div>${chips.join('')}</div>`;
}

function movesText() {
  const out = [];
  S.moves.forEach((m, i) => out.push(i % 2 === 0 ? `${i / 2 + 1}. ${m}` : m));
  return out.join(' ');
}

function onSquare(name) {
  const v = S.view;
  if (!humanToMove()) return;
  const step = S.selected && v.legal.find((m) => !m.startsWith('f:') && m.startsWith(S.selected) && m.endsWith(name));
  const flip = v.legal.includes('f:' + name) && 'f:' + name;
  const mv = step || flip;
  if (mv) {
    S.selected = null;
    if (S.record) S.record = null; // playing a move leaves the record
    play(mv);
    return;
  }
  const own = v.legal.some((m) => !m.startsWith('f:') && m.startsWith(name));
  S.selected = own && S.selected !== name ? name : null;
  render();
}

// ---- game flow --------------------------------------------------------------------------

async function refresh() {
  const gen = ++S.generation;
  S.selected = null;
  S.thinking = false;
  try {
    const view = await api('/api/position', positionRequest());
    if (gen !== S.generation) return;
    S.view = view;
    S.moves = view.moves; // nature's draws written into flips
    setStatus(view.result ? 'Game over.' : `${moverText(view)} to move.`);
  } catch (e) {
    if (gen !== S.generation) return;
    setStatus(e.message, true);
    return;
  }
  S.analysis = { network: null, mcts: null, alphabeta: null };
  render();
  restartAnalysis();
  maybeEngineMove(gen);
}

function play(mv) {
  S.moves = S.moves.concat([mv]);
  refresh();
}

async function maybeEngineMove(gen) {
  const v = S.view;
  if (!v || v.result || S.record) return;
  const who = playerOf(v.side_to_move);
  if (who === 'human') return;
  const req = { position: positionRequest(), engine: who, session: S.session + '-play' };
  if (who === 'alphabeta') {
    const t = parseInt($('ab-time').value, 10);
    const level = $('ab-level').value;
    if (level !== '') req.elo = parseInt(level, 10);
    else if (t > 0) req.movetime = t; else req.depth = parseInt($('ab-depth').value, 10) || 4;
  } else {
    const t = parseInt($('net-time').value, 10);
    if (t > 0) req.movetime = t; else req.sims = parseInt($('net-sims').value, 10) || 200;
  }
  S.thinking = true;
  render();
  setStatus(`${moverText(v)} (${who}) is thinking…`);
  try {
    const reply = await api('/api/engine', req);
    if (gen !== S.generation) return;
    S.thinking = false;
    play(reply.move);
  } catch (e) {
    if (gen !== S.generation) return;
    S.thinking = false;
    setStatus(e.message, true);
    render();
  }
}

function undo() {
  if (S.moves.length === 0) return;
  let n = 1;
  // Against an engine, take back to the human's turn.
  if (!S.record && S.moves.length >= 2) {
    const sideAfter = (S.moves.length - 1) % 2 === 0 ? rootSide() : otherSide(rootSide());
    if (playerOf(sideAfter) !== 'human') n = 2;
  }
  S.moves = S.moves.slice(0, S.moves.length - n);
  refresh();
}

function rootSide() {
  const fen = S.root || (S.game === 'jungle' && S.info ? S.info.start_fen : '');
  const mover = fen.split(' ')[1];
  return mover === 'b' || mover === '2' ? 'blue' : 'red';
}

function otherSide(s) {
  return s === 'red' ? 'blue' : 'red';
}

function newGame() {
  S.root = null;
  S.rules = '';
  S.moves = [];
  S.record = null;
  refresh();
}

function setFen() {
  const fen = $('fen-input').value.trim();
  S.root = fen || null;
  S.moves = [];
  S.record = null;
  refresh();
}

function stopAll() {
  S.generation++;
  S.thinking = false;
  stopAnalysis();
  $('analyse-on').checked = false;
  api('/api/stop', { sessions: [S.session, S.session + '-play'] }).catch(() => {});
  render();
  setStatus('Stopped. Change the players or the position to go on.');
}

function copy(text) {
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => setStatus('Copied.'), () => setStatus('Copy failed: select the text and copy it.', true));
}

// ---- analysis ---------------------------------------------------------------------------

function bestMove() {
  const a = S.analysis;
  if (a.alphabeta && a.alphabeta.best) return a.alphabeta.best;
  if (a.mcts && a.mcts.best) return a.mcts.best;
  return null;
}

function heatMap() {
  const heat = new Map();
  const net = S.analysis.network;
  if (!net || !$('heat-on').checked) return heat;
  for (const { move, p } of net.policy) {
    if (S.selected && !move.startsWith(S.selected)) continue;
    const to = move.slice(-2);
    heat.set(to, (heat.get(to) || 0) + p);
  }
  return heat;
}

function stopAnalysis() {
  if (S.stream) {
    S.stream.close();
    S.stream = null;
  }
}

function restartAnalysis() {
  stopAnalysis();
  if (!$('analyse-on').checked || !S.view || S.view.result) return;
  const q = new URLSearchParams({ session: S.session, moves: S.moves.join(' ') });
  if (S.game !== 'jungle') q.set('game', S.game);
  if (S.root) q.set('fen', S.root);
  if (S.rules) q.set('rules', S.rules);
  const sims = parseInt($('an-sims').value, 10);
  const time = parseInt($('an-time').value, 10);
  if (sims > 0) q.set('sims', sims);
  if (time > 0) q.set('movetime', time);
  const gen = S.generation;
  const es = new EventSource('/api/analyse?' + q.toString());
  S.stream = es;
  const on = (name) => es.addEventListener(name, (e) => {
    if (gen !== S.generation || S.stream !== es) return;
    S.analysis[name] = JSON.parse(e.data);
    render();
  });
  on('network');
  on('mcts');
  on('alphabeta');
  es.addEventListener('done', () => {
    es.close();
    if (S.stream === es) S.stream = null;
    document.body.dataset.analysis = 'done';
  });
  es.onerror = () => {
    // The server refused the stream (it answered with an error) or went away.
    es.close();
    if (S.stream === es) {
      S.stream = null;
      setStatus('Analysis stopped: the server refused or closed the stream.', true);
    }
  };
  document.body.dataset.analysis = 'running';
}

function pct(x) {
  return (x * 100).toFixed(1) + '%';
}

function renderAnalysis() {
  const a = S.analysis;
  const hasNet = netPlays();
  $('net-block').classList.toggle('hidden', !hasNet);
  $('mcts-block').classList.toggle('hidden', !hasNet);
  const wdl = $('wdl').children;
  if (a.network) {
    const [w, d, l] = a.network.wdl;
    wdl[0].style.width = pct(w);
    wdl[1].style.width = pct(d);
    wdl[2].style.width = pct(l);
    const ml = a.network.moves_left == null ? '' : ` · about ${Math.round(a.network.moves_left)} plies left`;
    $('wdl-text').textContent = `side to move: win ${pct(w)} · draw ${pct(d)} · loss ${pct(l)}${ml}`;
  } else {
    for (const s of wdl) s.style.width = '0';
    $('wdl-text').textContent = '';
  }
  const tbody = $('mcts-table').querySelector('tbody');
  tbody.innerHTML = '';
  if (a.mcts) {
    const exact = a.mcts.exact ? ` (${a.mcts.exact})` : '';
    $('mcts-sims').textContent = `${a.mcts.sims} simulations, ${a.mcts.time_ms} ms, value ${a.mcts.value.toFixed(3)}${exact}`;
    for (const c of a.mcts.children) {
      const tr = document.createElement('tr');
      tr.innerHTML = `<td>${c.move}</td><td>${c.visits}</td><td>${pct(c.prior)}</td><td>${c.q == null ? '–' : c.q.toFixed(3)}</td>`;
      tbody.appendChild(tr);
    }
    $('mcts-pv').textContent = a.mcts.pv.join(' ');
  } else {
    $('mcts-sims').textContent = '';
    $('mcts-pv').textContent = '';
  }
  if (a.alphabeta) {
    $('ab-best').textContent = a.alphabeta.best || '';
    $('ab-score').textContent = a.alphabeta.score;
    $('ab-depth-out').textContent = a.alphabeta.depth;
    $('ab-nodes').textContent = a.alphabeta.nodes;
    $('ab-pv').textContent = a.alphabeta.pv.join(' ');
  } else {
    for (const id of ['ab-best', 'ab-score', 'ab-depth-out', 'ab-nodes', 'ab-pv']) $(id).textContent = '';
  }
}

// ---- records ----------------------------------------------------------------------------

async function loadRecords(file) {
  const bytes = await file.arrayBuffer();
  try {
    const r = await fetch('/api/records', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: bytes });
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
    S.records = data.games;
    const list = $('record-list');
    list.innerHTML = '';
    data.games.forEach((g, i) => {
      const o = document.createElement('option');
      o.value = i;
      o.textContent = g.title;
      list.appendChild(o);
    });
    setStatus(`${data.games.length} game(s) loaded.`);
    if (data.games.length > 0) {
      list.value = '0';
      openRecord(0);
    }
  } catch (e) {
    setStatus(e.message, true);
  }
}

function openRecord(i) {
  const g = S.records[i];
  if (!g) return;
  S.record = { game: g, ply: 0 };
  S.root = g.fen;
  S.rules = g.rules === 'default' ? '' : g.rules;
  S.moves = [];
  refresh();
}

function stepRecord(to) {
  if (!S.record) return;
  const n = S.record.game.moves.length;
  S.record.ply = Math.max(0, Math.min(n, to));
  S.moves = S.record.game.moves.slice(0, S.record.ply);
  refresh();
}

function renderRecord() {
  $('rec-ply').textContent = S.record ? `ply ${S.record.ply} of ${S.record.game.moves.length}` : '';
}

// ---- training report ----------------------------------------------------------------------

async function loadReport() {
  const box = $('report');
  try {
    const r = await api('/api/report');
    box.innerHTML = '';
    const md = r.files.find((f) => f.endsWith('.md'));
    if (md) {
      const a = document.createElement('a');
      a.href = '/report/' + md;
      a.textContent = 'The full report (' + md + ')';
      a.target = '_blank';
      box.appendChild(a);
    }
    for (const f of r.files.filter((f) => f.endsWith('.svg'))) {
      const img = document.createElement('img');
      img.src = '/report/' + f;
      img.alt = f;
      box.appendChild(img);
    }
    if (!r.files.length) box.textContent = 'The report is empty; run `junglezero report --run DIR`.';
  } catch (e) {
    box.textContent = e.message;
  }
}

// ---- set-up -----------------------------------------------------------------------------

function netPlays() {
  return !!(S.info && S.info.model && S.info.model_game === S.game);
}

function fillPlayers() {
  const hasNet = netPlays();
  $('red-label').textContent = S.game === 'flip' ? 'First player' : 'Red (moves first)';
  $('blue-label').textContent = S.game === 'flip' ? 'Second player' : 'Blue';
  for (const side of ['red', 'blue']) {
    const sel = $(side + '-player');
    const keep = sel.value;
    sel.innerHTML = '';
    const opts = [['human', 'Human'], ['alphabeta', 'Alpha-beta']];
    if (hasNet) opts.push(['network', 'Network (MCTS)']);
    for (const [v, t] of opts) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = t;
      sel.appendChild(o);
    }
    sel.value = side === 'red' ? 'human' : hasNet ? 'network' : 'alphabeta';
    if (keep && [...sel.options].some((o) => o.value === keep)) sel.value = keep;
  }
}

// The levels alpha-beta plays at in this game (Elo, alpha-beta depth 1 = 0), every 100 from the
// weakest; full strength (by depth or time) first.
function fillLevels() {
  const sel = $('ab-level');
  const keep = sel.value;
  sel.innerHTML = '<option value="">full strength</option>';
  const range = ((S.info && S.info.levels) || []).find((l) => l.game === S.game);
  sel.disabled = !range;
  if (!range) return;
  for (let e = Math.ceil(range.min / 100) * 100; e <= range.max; e += 100) {
    const o = document.createElement('option');
    o.value = String(e);
    o.textContent = `Elo ${e > 0 ? '+' : ''}${e}` + (e === 0 ? ' (depth 1)' : '');
    sel.appendChild(o);
  }
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
}

function setGame(game) {
  S.game = game;
  S.orientation = 'red';
  fillPlayers();
  fillLevels();
  for (const side of ['red', 'blue']) $(side + '-player').addEventListener('change', () => { S.record = null; refresh(); });
  $('game-kind').addEventListener('change', (e) => setGame(e.target.value));
  buildBoard();
  newGame();
}

function showTab(name) {
  for (const b of document.querySelectorAll('.tabs button')) b.classList.toggle('active', b.dataset.tab === name);
  for (const t of document.querySelectorAll('.tab')) t.classList.toggle('hidden', t.id !== 'tab-' + name);
  if (name === 'training') loadReport();
}

async function main() {
  try {
    S.info = await api('/api/info');
  } catch (e) {
    setStatus('Cannot reach the server: ' + e.message, true);
    return;
  }
  $('model-name').textContent = S.info.model ? `network: ${S.info.model}` : 'no network loaded (alpha-beta only)';
  $('training-tab').classList.toggle('hidden', !S.info.report);
  fillPlayers();
  fillLevels();
  for (const side of ['red', 'blue']) $(side + '-player').addEventListener('change', () => { S.record = null; refresh(); });
  $('game-kind').addEventListener('change', (e) => setGame(e.target.value));
  buildBoard();
  for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));
  $('new-game').addEventListener('click', newGame);
  $('undo').addEventListener('click', undo);
  $('flip-board').addEventListener('click', () => { S.orientation = otherSide(S.orientation); buildBoard(); render(); });
  $('stop').addEventListener('click', stopAll);
  $('set-fen').addEventListener('click', setFen);
  $('copy-fen').addEventListener('click', () => copy(S.view ? S.view.fen : ''));
  $('copy-moves').addEventListener('click', () => copy(S.moves.join(' ')));
  $('analyse-on').addEventListener('change', () => { S.analysis = { network: null, mcts: null, alphabeta: null }; restartAnalysis(); render(); });
  $('heat-on').addEventListener('change', render);
  $('record-file').addEventListener('change', (e) => { if (e.target.files[0]) loadRecords(e.target.files[0]); });
  $('record-list').addEventListener('change', (e) => openRecord(parseInt(e.target.value, 10)));
  $('rec-first').addEventListener('click', () => stepRecord(0));
  $('rec-prev').addEventListener('click', () => S.record && stepRecord(S.record.ply - 1));
  $('rec-next').addEventListener('click', () => S.record && stepRecord(S.record.ply + 1));
  $('rec-last').addEventListener('click', () => S.record && stepRecord(S.record.game.moves.length));
  refresh();
}

main();
