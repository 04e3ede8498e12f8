// One token view row drawn as spans: drawRow() draws a row's tokens (coloured boxes with
// data-r/data-i/data-ids/data-bytes, one per line a span covers), in lazy windows of about
// BLOCK spans when the row is long (windows.js), keeping the last drawing's unchanged
// windows; markWrapped() marks tokens and pair runs wider than their line. It does not
// build the row index (token_view.js), draw the lists (lists.js) or the pair (pair.js),
// or handle hover (card.js).

import { el, fillDisplay } from "./dom.js";
import { joiners } from "./joining.js";
import { spanColor } from "./theme.js";
import { windowed } from "./windows.js";

const BLOCK = 400;             // spans per window of the text view

// the elements of one span: one box per line it covers (a newline inside a token ends
// the box, and the rest continues on the next line as a marked continuation)
function drawSpan(view, ix, r, s, out) {
  const row = ix.row;
  const pieces = row.show[s].split("\n");
  const color = spanColor(view, ix, s);
  const t0 = ix.tokStart[s], t1 = ix.tokStart[s + 1];
  const extra = ix.classes.get(s) || "";
  // a word of a joining script cut here: its edge letters keep their joined forms
  const [lead, trail] = joiners(row.show, s);
  for (let p = 0; p < pieces.length; p++) {
    const last = p === pieces.length - 1;
    if (last && pieces[p] === "" && p > 0) break;
    const box = el("span", (p === 0 ? "tok" : "tok cont") + extra);
    box.dataset.r = r;
    box.dataset.i = s;
    if (p === 0) {
      box.dataset.ids = row.ids.slice(t0, t1).join(" ");
      box.dataset.bytes = `${ix.byteStart[t0]}-${ix.byteStart[t1]}`;
    }
    if (t1 - t0 > 1) {
      // one grapheme cluster over several tokens: the glyph keeps one plain background;
      // its cuts are thin ticks in a band under it (never stripes across the glyph)
      const total = ix.byteStart[t1] - ix.byteStart[t0];
      const ticks = [];
      for (let t = t0 + 1; t < t1; t++) {
        const at = (100 * (ix.byteStart[t] - ix.byteStart[t0])) / total;
        ticks.push(`transparent calc(${at}% - 1px)`, `var(--cut) calc(${at}% - 1px)`,
          `var(--cut) calc(${at}% + 1px)`, `transparent calc(${at}% + 1px)`);
      }
      box.classList.add(`c${color}`);
      box.style.backgroundImage = `linear-gradient(90deg, transparent 0%, ${ticks.join(", ")}, transparent 100%)`;
      box.classList.add("multi");
      box.dataset.cuts = t1 - t0;
    } else {
      box.classList.add(`c${color}`);
    }
    if (row.chunk) box.classList.add(row.chunk[s] % 2 ? "ch1" : "ch0");
    fillDisplay(box, (p === 0 ? lead : "") + pieces[p] + (last ? trail : ""));
    if (!last && !pieces[p].endsWith("↵")) box.append(el("span", "nl", "↵"));
    out.append(box);
    if (!last) out.append(el("br"));
  }
}

function blockBounds(ix) {
  // windows end after a span holding a newline when one is near, so a window break
  // falls where the text breaks a line anyway
  const show = ix.row.show, n = show.length, bounds = [0];
  let s = 0;
  while (s < n) {
    let end = Math.min(n, s + BLOCK);
    if (end < n) {
      for (let k = end; k < Math.min(n, s + 2 * BLOCK); k++)
        if (show[k].includes("\n")) { end = k + 1; break; }
    }
    bounds.push(end);
    s = end;
  }
  return bounds;
}

// -> the row's element: the last drawing's, kept in place, when both are windowed with
// the same caption (moved or rebuilt, every token would be laid out and painted again)
export function drawRow(view, ix, r, data) {
  const row = ix.row;
  const bounds = blockBounds(ix);
  const windows = bounds.length - 1;
  const old = view.lastWindows["row" + r];
  const keep = windows > 2 && old && old.caption === (row.caption || "");
  const wrap = keep ? old.wrap : el("div", "tv-row");
  const box = keep ? old.box : el("div", "tokens");
  if (!keep) {
    if (row.caption) wrap.append(el("div", "tv-cap", row.caption));
    box.dataset.row = r;
    box.tabIndex = 0;  // the keyboard's way in: arrows move between tokens (see card.js)
    box.setAttribute("aria-label", "Tokens: arrow keys move between them, Enter pins the card");
    wrap.append(box);
  }
  const draw = (w) => {
    const frag = document.createDocumentFragment();
    for (let s = bounds[w]; s < bounds[w + 1]; s++) drawSpan(view, ix, r, s, frag);
    return frag;
  };
  if (windows <= 2) {
    box.append(draw(0));
    if (windows === 2) box.append(draw(1));
    markWrapped([box]);
    return wrap;
  }
  box.classList.add("scroll");
  const height = (data.box_height || 420) + "px";
  if (box.style.maxHeight !== height) box.style.maxHeight = height;
  // everything a window's spans are drawn from: text, ids, bytes, color, marks, chunk
  const sig = (w) => {
    const parts = [bounds[w], bounds[w + 1], view.ncolors, row.color_by];
    for (let s = bounds[w]; s < bounds[w + 1]; s++) {
      const t0 = ix.tokStart[s], t1 = ix.tokStart[s + 1];
      parts.push(row.show[s], ix.byteStart[t0], spanColor(view, ix, s), ix.classes.get(s) || "",
        row.chunk ? row.chunk[s] % 2 : "");
      for (let t = t0; t < t1; t++) parts.push(row.ids[t], row.nb[t]);
    }
    return parts.join("\x04");
  };
  const v = windowed(box, windows, draw, (w) => 1.9 * 16 * Math.ceil((bounds[w + 1] - bounds[w]) / 12),
    sig, old, markWrapped);
  const ntok = row.ids.length;
  const cap = keep ? old.cap : wrap.appendChild(el("div", "tv-windowed"));
  cap.textContent = `${ntok.toLocaleString()} tokens in ${windows.toLocaleString()} windows of about ${BLOCK} spans: `
    + "only the windows near the visible part of the box are drawn; scroll to see more. "
    + "Counts, ids and table cover the whole text.";
  view.windows["row" + r] = Object.assign(v, { wrap, cap, caption: row.caption || "" });
  view.observers.push(v.observer);
  return wrap;
}

// a token wider than the line wraps inside its box: say so on the box (and a pair's run
// wider than the line may break between its pieces: say so on the run). All sizes are
// read first (one layout), then the classes written: a read after a write would lay the
// page out again, once per token.
export function markWrapped(boxes) {
  const runs = [], toks = [];
  for (const box of boxes) {
    for (const r of box.querySelectorAll(".run")) runs.push(r);
    for (const t of box.querySelectorAll(".tok")) if (t.textContent.length >= 12) toks.push(t);
  }
  if (!runs.length && !toks.length) return;
  // a run marked wrapped lays its pieces out anew: mark the runs before measuring pieces
  for (const r of runs.filter((r) => r.scrollWidth > r.clientWidth + 1)) r.classList.add("wrapped");
  // every .tok has the same line height (token_view.css)
  const lh = toks.length ? parseFloat(getComputedStyle(toks[0]).lineHeight) || 24 : 0;
  for (const t of toks.filter((t) => t.offsetHeight > lh * 1.5)) t.classList.add("wrapped");
}
