// The rulelang table: draws whatever view the server sends for this seat, for any game.
// Plain JavaScript, no build step, nothing fetched from the internet.
"use strict";

const token = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";

let socket = null;
let state = null;        // the last message from the server
let picked = [];         // the parts of an option chosen so far (tokens)
let pickedAt = null;     // the decision those parts belong to
let notice = null;

// ------------------------------------------------------------------ connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${token}`);
  socket.onopen = () => { setBanner(null); };
  socket.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "view") {
      const key = `${msg.history.at}/${msg.history.live}`;
      if (key !== pickedAt) { picked = []; pickedAt = key; }
      state = msg;
      render();
    } else if (msg.type === "notice") {
      notice = msg; renderFiles();
    } else if (msg.type === "saves") {
      renderSaves(msg.files);
    }
  };
  socket.onclose = () => {
    setBanner("Disconnected from the table: trying again…", "offline");
    setTimeout(connect, 1000);
  };
}

function send(msg) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(msg)); }

function setBanner(text, cls) {
  const b = $("banner");
  b.hidden = !text;
  b.className = cls || "";
  b.textContent = text || "";
}

// ------------------------------------------------------------------ helpers

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

const pretty = (s) => String(s).replace(/_/g, " ");
const seatName = (n) => `Player ${n}`;
function who(seat) {
  const s = state.seats.find((x) => x.seat === seat);
  return s && s.who !== "human" ? `${seatName(seat)} (${s.who})` : seatName(seat);
}
function valueText(v) {
  if (v === true) return "yes";
  if (v === false) return "no";
  if (v === null || v === undefined || v === "") return "–";  // (an empty text reads as nothing yet)
  return pretty(v);
}

// ------------------------------------------------------------------ choosing part by part

// What an option still needs after the parts picked so far: one list of tokens per way it can
// still be reached (none when it no longer fits). A named option ("place c, cell") may be reached
// by its name or straight by its first part.
function remaining(option) {
  const seqs = [option.tokens];
  // a part with a place on the table (a card, a cell, a player) says which option it is; a bare
  // number or word does not, so then the option's name comes first
  if (option.named && option.tokens.length > 1 && ["card", "cell", "player"].includes(option.tokens[1].kind))
    seqs.push(option.tokens.slice(1));
  const out = [];
  for (const seq of seqs) {
    if (picked.length > seq.length) continue;
    if (picked.every((t, i) => t.key === seq[i].key)) out.push(seq.slice(picked.length));
  }
  return out;
}

function candidates() {
  const choice = state && state.view.choice;
  if (!choice) return { fitting: [], next: [] };
  const fitting = choice.options.map((o) => ({ o, rests: remaining(o) })).filter((x) => x.rests.length > 0);
  for (const x of fitting) x.done = x.rests.some((r) => r.length === 0);
  const next = new Map();
  for (const { rests } of fitting) for (const rest of rests) if (rest.length) next.set(rest[0].key, rest[0]);
  return { fitting, next: [...next.values()] };
}

function pick(tok) {
  picked.push(tok);
  const { fitting, next } = candidates();
  const done = fitting.filter((x) => x.done);
  if (done.length && (fitting.length === 1 || (done.length === fitting.length && !next.length))) submit(done[0].o);
  else render();
}

function submit(option) {
  send({ type: "choose", index: option.index, at: state.history.at });
  picked = [];
  state.view.choice = null; // until the server answers
  render();
}

// ------------------------------------------------------------------ drawing

function render() {
  if (!state) return;
  const v = state.view;
  document.title = `${v.title} · ${v.you ? seatName(v.you) : "watching"}`;
  $("title").textContent = v.title + (v.variants.length ? ` (${v.variants.map(pretty).join(", ")})` : "");
  $("you").textContent = v.you ? `You are ${seatName(v.you)}` : "Watching: public cards only";
  const status = $("status");
  status.replaceChildren();
  const bits = [];
  if (v.round) bits.push(`Round ${v.round}`);
  if (v.phase) bits.push(`phase: ${v.phase}`);
  if (v.to_move) bits.push(`${who(v.to_move)} to play`);
  status.append(bits.join(" · "), " ");
  for (const [k, val] of Object.entries(v.globals)) {
    if (val === null || val === undefined) continue;
    status.append(el("span", { class: "chip", text: `${pretty(k)}: ${valueText(val)}` }));
  }
  if (state.error) {
    setBanner("The rules stopped with an error (go back in time to play on):\n" + state.error, "offline");
  } else if (v.over) {
    setBanner(`Game over ${v.ending}.`, "over");  // (the words the terminal prints)
  } else if (!state.history.live) {
    setBanner(`Looking back at decision ${state.history.at} of ${state.history.length}. ` +
              "Nothing can be played here: use “Play on from here” or go back to now.");
  } else setBanner(null);

  const { next } = candidates();
  const targets = new Map(next.map((t) => [t.key, t]));
  const placed = new Set();
  renderBoards(v, targets, placed);
  renderShared(v, targets, placed);
  renderPlayers(v, targets, placed);
  renderPrompt(v, next, placed);
  renderTravel();
  renderFeed();
  renderFiles();
  fitLabels(document);
}

function isPicked(key) { return picked.some((t) => t.key === key); }

function cardEl(card, targets, placed) {
  if (card.hidden) {
    const e = el("div", { class: "card back" + (card.face_down ? " facedown" : ""), "data-ref": card.ref,
                          title: (card.face_down ? "a face-down card" : "a hidden card") + (card.back ? ` (${card.back})` : "") },
                 card.back || "?");
    markCard(e, card, targets, placed);
    return e;
  }
  // the fields worth a glance (the rest, and every field, are in the tooltip)
  const extra = Object.entries(card.fields)
    .filter(([k, val]) => val !== null && val !== "" && val !== false && val !== 0 && val !== "[]" &&
                          typeof val !== "object" && !card.label.includes(String(val)))
    .slice(0, 6)
    .map(([k, val]) => val === true ? pretty(k) : `${pretty(k)} ${valueText(val)}`);
  const tip = [card.label, `(${card.component})`, ...Object.entries(card.fields).map(([k, val]) => `${pretty(k)}: ${valueText(val)}`)];
  if (card.face_down) tip.push("face down: only its owner sees it");
  const e = el("div", { class: "card" + (card.face_down ? " facedown" : ""), "data-ref": card.ref,
                        style: `background:${card.colour}`, title: tip.join("\n") },
               el("div", { class: "name", text: pretty(card.label) }),
               extra.length ? el("div", { class: "fields", text: extra.join(" · ") }) : null);
  markCard(e, card, targets, placed);
  return e;
}

function markCard(e, card, targets, placed) {
  const key = "card:" + card.ref;
  if (isPicked(key)) e.classList.add("chosen");
  const t = targets.get(key);
  if (t) {
    placed.add(key);
    e.classList.add("target");
    e.addEventListener("click", () => pick(t));
  }
}

function zoneEl(zone, targets, placed, title) {
  const name = title || pretty(zone.name);
  const head = el("h3", {}, name, " ", el("span", { class: "count", text: `(${zone.count})` }));
  const box = el("div", { class: "zone", "data-zone": zone.key }, head);
  if (!zone.cards) {
    box.append(el("div", { class: "deck", title: `${zone.count} face-down cards`, text: String(zone.count) }));
    return box;
  }
  let cards = zone.cards;
  const wanted = cards.some((c) => targets.has("card:" + c.ref) || isPicked("card:" + c.ref));
  // cards alike (same name, fields and owner) are shown once, with how many there are; one of
  // them can be chosen for all (hidden cards wanted by the choice are each their own)
  const groups = alike(cards, wanted);
  if (groups.length < cards.length) {
    box.append(el("div", { class: "cards" }, ...groups.map(({ card, cards: same }) => {
      const first = same.find((c) => targets.has("card:" + c.ref)) || same.find((c) => isPicked("card:" + c.ref)) || card;
      const e = cardEl(first, targets, placed);
      if (same.length > 1) e.append(el("span", { class: "times", text: `×${same.length}` }));
      return e;
    })));
    return box;
  }
  const LIMIT = 10;
  if (cards.length > LIMIT && !wanted) {
    // a long pile: its top cards, the rest folded away
    const top = cards.slice(-LIMIT).reverse();
    box.append(el("div", { class: "cards" }, ...top.map((c) => cardEl(c, targets, placed))));
    const rest = el("details", { class: "more" }, el("summary", { text: `${cards.length - LIMIT} more below` }),
                    el("div", { class: "cards" }, ...cards.slice(0, -LIMIT).reverse().map((c) => cardEl(c, targets, placed))));
    box.append(rest);
  } else {
    box.append(el("div", { class: "cards" }, ...cards.map((c) => cardEl(c, targets, placed))));
  }
  return box;
}

function renderShared(v, targets, placed) {
  const root = $("shared");
  root.replaceChildren();
  const shared = v.zones.filter((z) => !z.board && z.owner === undefined);
  const full = shared.filter((z) => z.count > 0);
  const empty = shared.filter((z) => z.count === 0);
  if (!full.length && !empty.length) return;
  const row = el("div", { class: "zones" }, ...full.map((z) => zoneEl(z, targets, placed)));
  if (empty.length)
    row.append(el("div", { class: "zone empty-list", text: "Empty: " + empty.map((z) => pretty(z.name)).join(", ") }));
  root.append(row);
}

function renderPlayers(v, targets, placed) {
  const root = $("players");
  root.replaceChildren();
  $("mine").replaceChildren();
  const order = v.players.map((p) => p.seat);
  if (v.you) order.sort((a, b) => (a === v.you ? -1 : b === v.you ? 1 : a - b));
  for (const seat of order) {
    const p = v.players.find((x) => x.seat === seat);
    const mine = v.zones.filter((z) => z.owner === seat && !z.board);
    const boards = v.zones.filter((z) => z.owner === seat && z.board);
    const head = el("header", {}, el("span", { class: "who", text: who(seat) + (seat === v.you ? " · you" : "") }),
                    v.to_move === seat ? el("span", { class: "badge", text: "to play" }) : null);
    const fields = el("div", { class: "fields" });
    for (const [k, val] of Object.entries(p.fields)) fields.append(el("span", { class: "chip", text: `${pretty(k)}: ${valueText(val)}` }));
    const box = el("div", { class: "player" + (seat === v.you ? " you" : "") + (v.to_move === seat ? " turn" : ""), "data-seat": seat },
                   head, fields);
    const emptyNames = [];
    for (const z of mine) {
      if (z.count === 0) { emptyNames.push(pretty(z.name)); continue; }
      box.append(zoneEl(z, targets, placed));
    }
    if (emptyNames.length) box.append(el("div", { class: "hint", style: "color:var(--muted);font-size:12px", text: "Empty: " + emptyNames.join(", ") }));
    for (const z of boards) if (!isDrawnOnBase(v, z)) box.append(boardEl(z, targets, placed, `${pretty(z.name)}`, layersOf(v, z)));
    const t = targets.get("player:" + seat);
    if (t) { box.classList.add("target"); box.addEventListener("click", () => pick(t)); placed.add(t.key); }
    (seat === v.you ? $("mine") : root).append(box);
  }
}

// ---- boards

const SQ = 84, HR = 50;

function cellXY(board, cell, index, count) {
  const k = board.kind;
  if (k === "grid") return [cell[0] * SQ, cell[1] * SQ];
  if (k === "hex") return [Math.sqrt(3) * HR * (cell[0] + cell[1] / 2), 1.5 * HR * cell[1]];
  if (k === "track" && !board.loop) { const per = 10; return [(index % per) * SQ, Math.floor(index / per) * SQ * 1.2]; }
  const r = Math.max(1.4 * SQ, (count * SQ * 1.1) / (2 * Math.PI));
  const a = (2 * Math.PI * index) / Math.max(count, 1) - Math.PI / 2;
  return [r * Math.cos(a), r * Math.sin(a)];
}

function shape(board, x, y) {
  if (board.kind === "hex") {
    const pts = [];
    for (let i = 0; i < 6; i++) {
      const a = Math.PI / 180 * (60 * i - 30);
      pts.push(`${(x + (HR - 2) * Math.cos(a)).toFixed(1)},${(y + (HR - 2) * Math.sin(a)).toFixed(1)}`);
    }
    return svg("polygon", { points: pts.join(" ") });
  }
  if (board.kind === "grid") return svg("rect", { x: x - SQ / 2 + 3, y: y - SQ / 2 + 3, width: SQ - 6, height: SQ - 6, rx: 7 });
  return svg("circle", { cx: x, cy: y, r: SQ * 0.42 });
}

// how wide a label may be at dy from the middle of a cell's shape (a circle is narrower away
// from its middle), leaving a little margin on each side
function roomAt(board, dy) {
  const pad = 6, half = Math.abs(dy) + 7;  // the text's farther edge: half a line beyond its middle
  if (board.kind === "hex") return 2 * (HR - 2) * Math.cos(Math.PI / 6) - pad;
  if (board.kind === "grid") return SQ - 6 - pad;
  const r = SQ * 0.42;
  return 2 * Math.sqrt(Math.max(r * r - half * half, 0)) - pad;
}

// a label wider than its shape leaves room for is narrowed to fit (its full text is in the
// cell's tooltip); measured once the board is on the page
function fitLabels(root) {
  for (const t of root.querySelectorAll("text[data-fit]")) {
    const room = Number(t.dataset.fit);
    if (t.getComputedTextLength() > room) {
      t.setAttribute("textLength", room);
      t.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }
}

function wrap(text, width) {
  const words = text.split(/\s+/);
  const lines = [];
  let line = "";
  for (const w of words) {
    if (line && (line + " " + w).length > width) { lines.push(line); line = w; }
    else line = line ? line + " " + w : w;
  }
  if (line) lines.push(line);
  return lines.slice(0, 4);
}

// cards alike (same look) as one entry with how many there are, in the order each look first
// comes; a card the seat does not see is never merged with one it sees, nor, when it can be
// chosen, with another (where it lies may be all a player knows of it)
function lookKey(c, wanted) {
  if (c.hidden) return wanted ? `hidden/${c.ref}` : `hidden/${!!c.face_down}/${c.back || ""}`;
  return JSON.stringify([c.label, c.colour, c.fields, c.owner || 0, !!c.face_down]);
}
function alike(cards, wanted) {
  const groups = new Map();
  for (const c of cards) {
    const key = lookKey(c, wanted);
    if (groups.has(key)) groups.get(key).cards.push(c); else groups.set(key, { card: c, cards: [c] });
  }
  return [...groups.values()];
}

// the neighbours of a cell of a square grid or a hex map, as cell keys (for a piece's outline)
function aroundKeys(board, cell) {
  const d = board.kind === "hex" ? [[1, 0], [-1, 0], [0, 1], [0, -1], [1, -1], [-1, 1]] : [[1, 0], [-1, 0], [0, 1], [0, -1]];
  return d.map(([dx, dy]) => `${cell[0] + dx},${cell[1] + dy}`);
}

function cellLines(c) {
  // every card of the cell, the top first, alike ones once with their count (a piece's name is
  // written once, across its cells)
  const lines = [];
  for (const { card, cards } of alike(c.cards.slice().reverse(), false)) {
    if (card.covers) continue;
    const txt = card.hidden ? (card.back || "face down") : pretty(card.label);
    lines.push({ text: (cards.length > 1 ? `${cards.length}× ` : "") + txt, hidden: !!card.hidden });
  }
  return lines;
}

function boardEl(zone, targets, placed, title, layers) {
  const board = zone.board;
  layers = layers || [];
  const names = layers.map((z) => pretty(z.name));
  const box = el("div", { class: "board", "data-zone": zone.key },
                 el("h2", {}, title || pretty(zone.name), names.length ? el("span", { class: "layers", text: ` with ${names.join(", ")} on it` }) : null));
  const s = svg("svg", {});
  const pos = new Map();
  // a layer's cells are its base's: shown on them (a layer's cell the base does not show is added)
  const cells = zone.cells.slice();
  const known = new Set(cells.map((c) => c.key));
  const onCell = new Map();
  for (const z of layers) for (const c of z.cells) {
    if (!known.has(c.key)) { known.add(c.key); cells.push({ cell: c.cell, key: c.key, cards: [] }); }
    if (!onCell.has(c.key)) onCell.set(c.key, []);
    onCell.get(c.key).push({ zone: z, cell: c });
  }
  cells.forEach((c, i) => pos.set(c.key, cellXY(board, c.cell, i, cells.length)));
  if (board.edges || board.kind === "track") {
    const edges = board.edges || cells.slice(1).map((c, i) => [cells[i].cell, c.cell])
      .concat(board.loop && cells.length > 2 ? [[cells[cells.length - 1].cell, cells[0].cell]] : []);
    for (const [a, b] of edges) {
      const pa = pos.get(String(a)), pb = pos.get(String(b));
      if (pa && pb) s.append(svg("line", { class: "edge", x1: pa[0], y1: pa[1], x2: pb[0], y2: pb[1] }));
    }
  }
  const xs = [], ys = [];
  const pieces = new Map();  // ref -> the piece's card (drawn once, outlined, under its cells' marks)
  for (const c of cells) for (const cd of c.cards) if (cd.covers && !pieces.has(cd.ref)) pieces.set(cd.ref, cd);
  const under = svg("g", { class: "pieces" });
  if (pieces.size) s.append(under);
  for (const c of cells) {
    const [x, y] = pos.get(c.key);
    xs.push(x); ys.push(y);
    const g = svg("g", { "data-cell": `${zone.key}:${c.key}` });
    const top = c.cards.length ? c.cards[c.cards.length - 1] : null;
    const sh = shape(board, x, y);
    sh.classList.add("cell-shape");
    if (top && top.covers) sh.classList.add("under-piece"); // (the piece is drawn whole beneath)
    else if (!top) sh.classList.add("empty");
    else if (top.hidden) sh.classList.add("occupied", "back");
    else { sh.classList.add("occupied"); sh.style.fill = top.colour; }
    g.append(sh);
    const lines = cellLines(c);
    const over = onCell.get(c.key) || [];
    if (lines.length) {
      const width = board.kind === "hex" ? 11 : 10;
      const shown = lines.length > 3 ? lines.slice(0, 2).concat([{ text: `+${lines.length - 2} more`, sub: true }]) : lines;
      const rows = shown.length === 1 ? wrap(shown[0].text, width).map((t) => ({ ...shown[0], text: t })) : shown;
      const lh = 13;
      const lift = over.length ? 9 : 0;
      rows.forEach((ln, i) => {
        const t = svg("text", { x, y: y + (i - (rows.length - 1) / 2) * lh - lift,
                                class: (ln.sub ? "sub" : "") + (top.hidden && !top.covers ? " onback" : "") });
        t.textContent = rows.length > 1 && ln.text.length > width + 3 ? ln.text.slice(0, width + 2) + "…" : ln.text;
        t.dataset.fit = roomAt(board, Number(t.getAttribute("y")) - y).toFixed(1);
        g.append(t);
      });
    }
    if (c.cards.length) {
      const tip = svg("title", {});
      tip.textContent = c.cards.slice().reverse().map((cd) => cd.hidden ? "a hidden card" + (cd.back ? ` (${cd.back})` : "") : cd.label).join("\n") + `\ncell ${c.key}`;
      g.append(tip);
    } else if (!over.length) {
      const t = svg("text", { x, y, class: "coord" });
      t.textContent = board.kind === "grid" || board.kind === "hex" ? `${c.cell[0]}, ${c.cell[1]}` : String(c.cell);
      g.append(t);
    }
    if (top && board.kind !== "grid" && board.kind !== "hex") {
      const t = svg("text", { x, y: y + SQ * 0.42 + 11, class: "coord" });
      t.textContent = String(c.cell);
      g.append(t);
    }
    // what clicking here picks: the top card if it is wanted, else the cell (of the board, or of a
    // layer on it)
    const cardKey = top ? "card:" + top.ref : null;
    const cellKeys = [`cell:${zone.key}:${c.key}`, ...over.map((o) => `cell:${o.zone.key}:${c.key}`)];
    if ((cardKey && isPicked(cardKey)) || cellKeys.some(isPicked)) g.classList.add("chosen");
    const cellKey = cellKeys.find((k) => targets.has(k)) || cellKeys[0];
    const t = (cardKey && targets.get(cardKey)) || targets.get(cellKey);
    if (t) {
      placed.add(t.key);
      if (t.kind === "cell" && t.also_listed) placed.delete(t.key); // listed as a button as well
      g.classList.add("target");
      if (!top) g.classList.add("empty-target");
      g.addEventListener("click", () => pick(t));
      if (cardKey && targets.get(cardKey) && targets.get(cellKey)) placed.add(cellKey);
    }
    // the cards of the layers on this cell: chips along its foot, each to be chosen if wanted
    const chips = over.flatMap((o) => alike(o.cell.cards.slice().reverse(), o.cell.cards.some((cd) => targets.has("card:" + cd.ref))));
    const cw = board.kind === "hex" ? 40 : 36, ch = 15;
    const shownChips = chips.slice(0, board.kind === "hex" ? 2 : 2);
    shownChips.forEach(({ card, cards }, i) => {
      const cx = x + (i - (shownChips.length - 1) / 2) * (cw + 3);
      const cy = y + (board.kind === "hex" ? HR * 0.42 : SQ * 0.27);
      const chip = svg("g", { class: "layer-chip", "data-ref": card.ref });
      const r = svg("rect", { x: cx - cw / 2, y: cy - ch / 2, width: cw, height: ch, rx: 5 });
      r.style.fill = card.hidden ? "var(--back)" : card.colour;
      chip.append(r);
      const tx = svg("text", { x: cx, y: cy + 0.5, class: "chip-text" + (card.hidden ? " onback" : "") });
      const name = card.hidden ? (card.back || "?") : pretty(card.label);
      tx.textContent = (cards.length > 1 ? `${cards.length} ` : "") + (name.length > 6 ? name.slice(0, 5) + "…" : name);
      chip.append(tx);
      const tip = svg("title", {});
      tip.textContent = (cards.length > 1 ? `${cards.length} × ` : "") + (card.hidden ? "a hidden card" : card.label);
      chip.append(tip);
      const want = cards.map((cd) => targets.get("card:" + cd.ref)).find((x) => x);
      if (cards.some((cd) => isPicked("card:" + cd.ref))) chip.classList.add("chosen");
      if (want) {
        placed.add(want.key);
        chip.classList.add("target");
        chip.addEventListener("click", (ev) => { ev.stopPropagation(); pick(want); });
      }
      g.append(chip);
    });
    if (chips.length > shownChips.length) {
      const more = svg("text", { x, y: y + (board.kind === "hex" ? HR * 0.72 : SQ * 0.42), class: "sub" });
      more.textContent = `+${chips.slice(shownChips.length).reduce((n, g2) => n + g2.cards.length, 0)} more`;
      g.append(more);
    }
    s.append(g);
  }
  // pieces: one shape under their cells, outlined, named once in their middle
  for (const [ref, card] of pieces) {
    const at = card.covers.map((k) => pos.get(k)).filter((p) => p);
    if (!at.length) continue;
    const grp = svg("g", { class: "piece" + (isPicked("card:" + ref) ? " chosen" : "") + (targets.has("card:" + ref) ? " target" : ""), "data-ref": ref });
    const fill = card.hidden ? "var(--back)" : card.colour;
    const parts = [];
    if (board.kind === "grid" || board.kind === "hex") {
      for (const [x, y] of at)
        parts.push(board.kind === "hex" ? hexPolygon(x, y, HR - 3) : svg("rect", { x: x - SQ / 2 + 3, y: y - SQ / 2 + 3, width: SQ - 6, height: SQ - 6 }));
      // bridges over the gaps between its cells side by side, so that it is one shape
      for (let i = 0; i < at.length; i++) for (let j = i + 1; j < at.length; j++) {
        const [ax, ay] = at[i], [bx, by] = at[j];
        const apart = Math.hypot(bx - ax, by - ay);
        if (apart > (board.kind === "hex" ? Math.sqrt(3) * HR + 1 : SQ + 1)) continue;
        const w = board.kind === "hex" ? HR * 0.9 : SQ - 6;
        const bridge = svg("line", { x1: ax, y1: ay, x2: bx, y2: by, class: "bridge" });
        bridge.style.strokeWidth = w;
        parts.push(bridge);
      }
      // where three hex cells (or four squares) of it meet, the gap between them is filled too
      const near = (a, b) => Math.hypot(b[0] - a[0], b[1] - a[1]) <= (board.kind === "hex" ? Math.sqrt(3) * HR + 1 : SQ * Math.SQRT2 + 1);
      for (let i = 0; i < at.length; i++) for (let j = i + 1; j < at.length; j++) for (let k = j + 1; k < at.length; k++) {
        if (near(at[i], at[j]) && near(at[j], at[k]) && near(at[i], at[k]))
          parts.push(svg("polygon", { points: [at[i], at[j], at[k]].map((p) => p.join(",")).join(" ") }));
      }
    } else {
      for (let i = 1; i < at.length; i++) parts.push(svg("line", { x1: at[i - 1][0], y1: at[i - 1][1], x2: at[i][0], y2: at[i][1] }));
      for (const [x, y] of at) parts.push(svg("circle", { cx: x, cy: y, r: SQ * 0.42 }));
    }
    // the outline: the same shapes drawn wide and dark under the filled ones, so only the edge of
    // their union shows
    for (const p of parts) {
      const o = p.cloneNode();
      o.classList.add("piece-edge");
      if (p.style.strokeWidth) o.style.strokeWidth = parseFloat(p.style.strokeWidth) + 5;
      grp.append(o);
    }
    for (const p of parts) { p.classList.add("piece-fill"); p.style.fill = fill; if (p.tagName === "line") p.style.stroke = fill; grp.append(p); }
    const cx = at.reduce((n, p) => n + p[0], 0) / at.length, cy = at.reduce((n, p) => n + p[1], 0) / at.length;
    const words = wrap(card.hidden ? (card.back || "face down") : pretty(card.label), 14);
    words.forEach((w, i) => {
      const t = svg("text", { x: cx, y: cy + (i - (words.length - 1) / 2) * 14, class: "piece-name" + (card.hidden ? " onback" : "") });
      t.textContent = w;
      grp.append(t);
    });
    const tip = svg("title", {});
    tip.textContent = (card.hidden ? "a hidden piece" : card.label) + `\ncells ${card.covers.join("  ")}`;
    grp.append(tip);
    under.append(grp);
  }
  const pad = board.kind === "hex" ? HR + 6 : SQ / 2 + 6;
  const minX = Math.min(...xs) - pad, maxX = Math.max(...xs) + pad;
  const minY = Math.min(...ys) - pad, maxY = Math.max(...ys) + pad + (board.kind === "track" || board.kind === "graph" ? 14 : 0);
  s.setAttribute("viewBox", `${minX} ${minY} ${maxX - minX} ${maxY - minY}`);
  s.setAttribute("width", Math.round(maxX - minX));
  s.setAttribute("height", Math.round(maxY - minY));
  box.append(s);
  return box;
}

function hexPolygon(x, y, r) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = Math.PI / 180 * (60 * i - 30);
    pts.push(`${(x + r * Math.cos(a)).toFixed(1)},${(y + r * Math.sin(a)).toFixed(1)}`);
  }
  return svg("polygon", { points: pts.join(" ") });
}

// a layer (`board on BASE`) is drawn on its base's cells, not beside it
function layersOf(v, zone) { return v.zones.filter((z) => z.board && z.layer_of === zone.key); }
function isDrawnOnBase(v, zone) { return zone.layer_of && v.zones.some((z) => z.key === zone.layer_of); }

function renderBoards(v, targets, placed) {
  const root = $("boards");
  root.replaceChildren();
  for (const z of v.zones)
    if (z.board && z.owner === undefined && !isDrawnOnBase(v, z)) root.append(boardEl(z, targets, placed, null, layersOf(v, z)));
}

// a place for a piece (a list of cells), chosen from the list: its cells light up on the board
function previewCells(tok, on) {
  for (const k of tok.cells) {
    const g = document.querySelector(`[data-cell="${CSS.escape(tok.zone + ":" + k)}"]`);
    if (g) g.classList.toggle("preview", on);
  }
  const first = document.querySelector(`[data-cell="${CSS.escape(tok.zone + ":" + tok.cells[0])}"]`);
  if (first) first.classList.toggle("preview-first", on);
}

// ---- prompt

// The end of a match: what every player ends with, a row per player field and a column per player,
// the winners starred (the view's `end`: the same rows the terminal draws, as this seat sees them)
function endTable(v) {
  const rows = v.end || [];
  if (!rows.length) return el("div", { class: "waiting", text: "The game is over." });
  const won = new Set(v.winners);
  const head = el("tr", {}, el("th", {}),
                  ...v.players.map((p) => el("th", { class: won.has(p.seat) ? "won" : null },
                                             who(p.seat) + (won.has(p.seat) ? "\u00a0★" : ""))));
  const body = rows.map(([name, values]) => el("tr", {}, el("th", { text: pretty(name) }),
                                               ...values.map((val) => el("td", { text: valueText(val) }))));
  return el("div", { class: "end" },
            el("div", { class: "ask", text: "At the end" }),
            el("div", { class: "scroll" }, el("table", {}, el("thead", {}, head), el("tbody", {}, ...body))),
            won.size ? el("div", { class: "hint", text: "★ won" }) : null);
}

function renderPrompt(v, next, placed) {
  const root = $("prompt");
  root.replaceChildren();
  // At the end the table of what every player ends with leads the main column: as wide as the
  // boards (four players' columns do not fit the side column) and first on a phone, under the banner.
  const home = v.over && !state.error && (v.end || []).length ? $("main") : $("side");  // (no fields: a line in the side)
  if (root.parentElement !== home) home.prepend(root);
  if (state.error) {
    setBanner("The rules stopped with an error (go back in time to play on):\n" + state.error, "offline");
  } else if (v.over) { root.append(endTable(v)); return; }
  if (!state.history.live) { root.append(el("div", { class: "waiting", text: "Looking back: no choice here." })); return; }
  if (!v.choice) {
    if (v.to_move) root.append(el("div", { class: "waiting" }, `Waiting for ${who(v.to_move)}`,
                                    v.waiting_prompt ? `: ${v.waiting_prompt}` : ""));
    return;
  }
  root.append(el("div", { class: "ask", text: v.choice.prompt || "Your choice" }));
  if (picked.length) {
    root.append(el("div", { class: "picked" }, "Chosen: ", ...picked.map((t) => el("span", { class: "chip", text: t.text }))));
  }
  const listed = next.filter((t) => !placed.has(t.key));
  const onBoard = next.filter((t) => placed.has(t.key));
  if (onBoard.length) {
    const kinds = new Set(onBoard.map((t) => t.kind));
    const what = [...kinds].map((k) => ({ card: "a highlighted card", cell: "a highlighted place", player: "a highlighted player" }[k] || "an option")).join(" or ");
    root.append(el("div", { class: "hint", text: `Click ${what}${listed.length ? ", or choose below" : ""}.` }));
  }
  for (const t of listed) {
    const b = el("button", { class: "option" + (t.text.length <= 12 && t.kind !== "name" ? " short" : ""), "data-key": t.key, onclick: () => { if (t.kind === "cells") previewCells(t, false); pick(t); } },
                 t.kind === "name" ? el("b", { text: t.text }) : t.text);
    if (t.kind === "cells") {
      b.addEventListener("mouseenter", () => previewCells(t, true));
      b.addEventListener("mouseleave", () => previewCells(t, false));
      b.addEventListener("focus", () => previewCells(t, true));
      b.addEventListener("blur", () => previewCells(t, false));
    }
    root.append(b);
  }
  const { fitting } = candidates();
  for (const x of fitting) {
    // the parts chosen already make a whole option, yet others go on (or look alike): offer it whole
    if (x.done && (next.length || fitting.length > 1)) root.append(el("button", { class: "option", onclick: () => submit(x.o) }, x.o.label));
  }
  if (picked.length) root.append(el("button", { onclick: () => { picked.pop(); render(); } }, "← Back"),
                                 " ", el("button", { onclick: () => { picked = []; render(); } }, "Start over"));
}

// ---- time travel

function renderTravel() {
  const root = $("travel");
  const h = state.history;
  root.replaceChildren(el("h2", { text: "Time travel" }));
  const go = (to) => send({ type: "travel", to });
  const range = el("input", { type: "range", min: 0, max: h.length, value: h.at, "aria-label": "decision" });
  range.addEventListener("change", () => go(Number(range.value)));
  root.append(el("div", { class: "row" },
    el("button", { title: "the start", disabled: h.at === 0, onclick: () => go(0) }, "|◀"),
    el("button", { title: "one decision back", disabled: h.at === 0, onclick: () => go(h.at - 1) }, "◀"),
    range,
    el("button", { title: "one decision on", disabled: h.live, onclick: () => go(h.at + 1) }, "▶"),
    el("button", { title: "now", disabled: h.live, onclick: () => go(h.length) }, "▶|")));
  root.append(el("div", { class: "where", text: h.live ? `Now: after decision ${h.length}` : `Decision ${h.at} of ${h.length}` }));
  if (!h.live && state.view.you) {
    root.append(el("button", { class: "primary", style: "margin-top:6px",
                               onclick: () => send({ type: "rewind", to: h.at }) }, "Play on from here"));
  }
}

function renderFeed() {
  const root = $("feed");
  root.replaceChildren();
  for (const item of state.feed) {
    if (item.log !== undefined) root.append(el("li", { class: "log", text: item.log }));
    else root.append(el("li", {}, el("span", { class: "seat", text: who(item.seat) }), `: ${pretty(item.text)}`,
                        item.only ? el("span", { class: "asked", text: " (the only option)" }) :
                        item.prompt ? el("span", { class: "asked", text: ` (${item.prompt})` }) : null));
  }
  root.scrollTop = root.scrollHeight;
}

// ---- save and load (files stay on the server: a save holds every hidden card)

let saveList = null;
function renderFiles() {
  const root = $("files");
  if (!state) return;
  root.replaceChildren(el("h2", { text: "Save and load" }));
  if (!state.view.you) { root.append(el("div", { class: "hint", text: "Only players can save and load." })); return; }
  const row = el("div", { class: "row" },
    el("button", { onclick: () => send({ type: "save" }) }, "Save"),
    el("button", { onclick: () => send({ type: "saves" }) }, "Load…"));
  root.append(row);
  if (saveList) {
    if (!saveList.length) root.append(el("div", { class: "hint", text: "No saves of this game yet." }));
    else {
      const sel = el("select", { "aria-label": "saved games" }, ...saveList.map((f) => el("option", { value: f, text: f })));
      root.append(el("div", { class: "row", style: "margin-top:6px" }, sel,
                     el("button", { onclick: () => { send({ type: "load", file: sel.value }); saveList = null; renderFiles(); } }, "Load")));
    }
  }
  if (notice) root.append(el("div", { class: "notice" + (notice.error ? " error" : ""), text: notice.text }));
}
function renderSaves(files) { saveList = files; renderFiles(); }

connect();
