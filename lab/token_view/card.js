// The token view's hover card and keyboard focus: wireCard() listens on the view for the
// mouse (hover shows a span's card, click pins it), the keyboard (arrows move from token to
// token, Enter pins, Escape hides); show() fills and places the card, highlight() lights
// up a span everywhere it appears, hide() takes both away, showPiece() does it for a piece
// of the pair view (A's span and the B spans it overlaps). It draws no tokens.

import { el, escaped, hex } from "./dom.js";

export function wireCard(view) {
  const { root, card } = view;
  root.addEventListener("mouseover", (ev) => {
    const piece = ev.target.closest && ev.target.closest("[data-pa]");
    if (piece && !view.pinned) { showPiece(view, piece); return; }
    const target = ev.target.closest && ev.target.closest("[data-i]");
    if (!target || view.pinned) return;
    show(view, +target.dataset.r, +target.dataset.i, target);
  });
  root.addEventListener("mouseleave", () => { if (!view.pinned) hide(view); });
  root.addEventListener("click", (ev) => {
    const piece = ev.target.closest && ev.target.closest("[data-pa]");
    if (piece) {
      const key = "p" + piece.dataset.pa + ":" + piece.dataset.pb;
      view.pinned = null;
      if (view.pinnedKey === key) { view.pinnedKey = null; card.classList.remove("pinned"); return; }
      showPiece(view, piece);
      view.pinned = view.pinnedKey = key;
      card.classList.add("pinned");
      return;
    }
    const target = ev.target.closest && ev.target.closest("[data-i]");
    if (!target) { if (!card.contains(ev.target)) { view.pinned = null; hide(view); } return; }
    const key = target.dataset.r + ":" + target.dataset.i;
    if (view.pinned === key) { view.pinned = null; card.classList.remove("pinned"); return; }
    view.pinned = null;
    show(view, +target.dataset.r, +target.dataset.i, target);
    view.pinned = key;
    card.classList.add("pinned");
  });
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { view.pinned = null; hide(view); return; }
    // the keyboard reaches every token: a row's box takes the focus (Tab), the arrow keys
    // move from token to token with the card, Enter pins (or unpins) the card
    const box = ev.target.closest && ev.target.closest(".tokens[data-row]");
    if (!box) return;
    const r = +box.dataset.row;
    const ix = view.index[r];
    if (!ix) return;
    const last = ix.row.n.length - 1;
    const cur = view.hovered && view.hovered[0] === r ? view.hovered[1] : -1;
    let next = null;
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown") next = Math.min(last, cur + 1);
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") next = Math.max(0, cur - 1);
    else if (ev.key === "Home") next = 0;
    else if (ev.key === "End") next = last;
    else if (ev.key === "Enter" && cur >= 0) {
      const key = r + ":" + cur;
      if (view.pinned === key) { view.pinned = null; card.classList.remove("pinned"); }
      else { view.pinned = key; card.classList.add("pinned"); }
      ev.preventDefault();
      return;
    }
    if (next === null || next < 0) return;
    ev.preventDefault();
    const target = box.querySelector(`[data-r="${r}"][data-i="${next}"]`);
    view.pinned = null;
    card.classList.remove("pinned");
    if (!target) { view.hovered = [r, next]; return; }  // in a window not drawn yet
    target.scrollIntoView({ block: "nearest" });
    show(view, r, next, target);
  });
}

export function show(view, r, s, target, keepHighlight) {
  if (!keepHighlight) highlight(view, r, s);
  if (!view.index[r]) return;
  const card = view.card;
  card.replaceChildren();
  cardSection(view, card, r, s);
  card.hidden = false;
  const rootRect = view.root.getBoundingClientRect();
  const rect = target.getBoundingClientRect();
  let left = rect.left - rootRect.left;
  const maxLeft = view.root.clientWidth - 320;
  card.style.left = Math.max(0, Math.min(left, maxLeft)) + "px";
  // above the token when there is room: below it sit the next lines and the id list,
  // whose entries light up with the token and must stay in sight
  const above = rect.top - rootRect.top - card.offsetHeight - 6;
  card.style.top = (above >= 0 ? above : rect.bottom - rootRect.top + 4) + "px";
}

// the fields of one span in the hover card: index, ids, escaped text, offsets, hex per token
function cardSection(view, card, r, s) {
  const ix = view.index[r];
  const row = ix.row;
  const t0 = ix.tokStart[s], t1 = ix.tokStart[s + 1];
  const b0 = ix.byteStart[t0], b1 = ix.byteStart[t1];
  const label = (row.caption && view.data.pair ? row.caption + ": " : "")
    + (t1 - t0 > 1 ? `tokens ${t0}–${t1 - 1} (one character cluster)` : `token ${t0}`);
  card.append(el("div", "k-index", label));
  const rawBytes = ix.bytes.subarray(b0, b1);
  let raw;
  try { raw = new TextDecoder("utf-8", { fatal: true }).decode(rawBytes); } catch (e) { raw = null; }
  const lines = [
    ["ids", row.ids.slice(t0, t1).join(" "), "k-ids"],
    ["text", raw === null ? "(not whole UTF-8 characters)" : escaped(raw), "k-text"],
    ["chars", `${ix.charStart[s]}–${ix.charStart[s + 1]}`, "k-chars"],
    ["bytes", `${b0}–${b1}`, "k-bytes"],
  ];
  // the vocabulary's own strings ("##ing", "▁the"), when it writes tokens its own way
  if (row.pieces) lines.splice(2, 0, ["piece", Array.from(row.pieces.slice(t0, t1), escaped).join(" | "), "k-piece"]);
  for (const [k, v, cls] of lines) {
    const line = el("div", "kv " + cls);
    line.append(el("span", "k", k), el("span", "v", v));
    card.append(line);
  }
  const hexes = el("div", "kv k-hex");
  hexes.append(el("span", "k", "hex"));
  const hv = el("span", "v");
  for (let t = t0; t < t1; t++) {
    const part = el("span", "hexpart", hex(ix.bytes.subarray(ix.byteStart[t], ix.byteStart[t + 1])));
    part.title = `id ${row.ids[t]}`;
    hv.append(part);
    if (t + 1 < t1) hv.append(el("span", "cutmark", " | "));
  }
  hexes.append(hv);
  card.append(hexes);
  if (row.notes && row.notes[String(s)]) card.append(el("div", "kv k-note", row.notes[String(s)]));
}

function highlight(view, r, s) {
  for (const e of view.root.querySelectorAll(".hl")) e.classList.remove("hl");
  for (const e of view.root.querySelectorAll(`[data-r="${r}"][data-i="${s}"]`)) e.classList.add("hl");
  view.hovered = [r, s];
}

export function hide(view) {
  for (const e of view.root.querySelectorAll(".hl, .hl-b")) e.classList.remove("hl", "hl-b");
  view.card.hidden = true;
  view.card.classList.remove("pinned");
}

function showPiece(view, piece) {
  const sa = +piece.dataset.pa, sb = +piece.dataset.pb;
  for (const e of view.root.querySelectorAll(".hl, .hl-b")) e.classList.remove("hl", "hl-b");
  // A's span under the mouse, and every B span that overlaps it
  const overlapB = new Set();
  for (const e of view.root.querySelectorAll(`[data-pa="${sa}"]`)) { e.classList.add("hl"); overlapB.add(e.dataset.pb); }
  for (const b of overlapB) for (const e of view.root.querySelectorAll(`[data-pb="${b}"]`)) e.classList.add("hl-b");
  show(view, 0, sa, piece, true);
  const second = el("div", "tv-card-b");
  cardSection(view, second, 1, sb);
  view.card.append(second);
}
