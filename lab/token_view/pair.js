// The token view's pair (Compare) view: drawPair() draws one text tokenized two ways
// (viz/pair.py pair_view), A's spans as a band above the pieces and B's below, with the
// cuts only one of them makes marked, pieces grouped in runs that break only where both
// cut. It does not handle hover (card.js showPiece) or build the row index (token_view.js).

import { el, fillDisplay } from "./dom.js";
import { markWrapped } from "./spans.js";
import { spanColor } from "./theme.js";

// --- two tokenizations of one text, aligned (viz/pair.py pair_view) --------------------
// The text once, in pieces cut at every span boundary of A or B: A's spans are a band
// above the pieces, B's a band below; a cut only one of them makes is marked.
export function drawPair(view, data) {
  const pair = data.pair, pieces = pair.pieces;
  const [ixA, ixB] = view.index;
  const wrap = el("div", "tv-row pair");
  // one item per phrase, spaced by the flex gap: text separators collapsed and ran two
  // phrases together ("makes═ under")
  const legend = el("div", "tv-cap legend");
  legend.append(el("span", "band-a", "▀ " + (pair.a.caption || "A")),
    el("span", "band-b", "▄ " + (pair.b.caption || "B")),
    el("span", "legend-diff", "┃ a cut only one of them makes;"),
    el("span", "legend-diff", "═ under a character: they cut inside it differently"));
  const box = el("div", "tokens aligned");
  wrap.append(legend, box);
  view.rows.append(wrap);
  const n = pieces.nb.length;
  let byteAt = 0;
  const frag = document.createDocumentFragment();
  // pieces between two cuts both sides make form one run that never breaks across lines
  // (class "run"): a line wraps only where A and B both cut (or at a newline)
  let run = null;
  for (let p = 0; p < n; p++) {
    const sa = pieces.sa[p], sb = pieces.sb[p];
    const startA = p === 0 || pieces.sa[p - 1] !== sa, startB = p === 0 || pieces.sb[p - 1] !== sb;
    if (startA && startB) run = null;
    const lines = pieces.show[p].split("\n");
    for (let k = 0; k < lines.length; k++) {
      const last = k === lines.length - 1;
      if (last && lines[k] === "" && k > 0) break;
      const e = el("span", "tok piece");
      e.dataset.pa = sa; e.dataset.pb = sb;
      if (k === 0) {
        e.dataset.bytes = `${byteAt}-${byteAt + pieces.nb[p]}`;
        if (startA) { e.dataset.idsA = spanIds(ixA, sa); e.classList.add("cut-a"); }
        if (startB) { e.dataset.idsB = spanIds(ixB, sb); e.classList.add("cut-b"); }
        if (p > 0 && startA !== startB) e.classList.add("cut-diff");
        const inner = pair.pieces.inner && pair.pieces.inner[String(p)];
        if (inner) {  // A and B cut inside this character (cluster) differently
          e.classList.add("cut-diff-in");
          e.dataset.innerA = inner[0].join(" ");
          e.dataset.innerB = inner[1].join(" ");
        }
      }
      e.style.setProperty("--ca", `var(--c${spanColor(view, ixA, sa)})`);
      e.style.setProperty("--cb", `var(--c${spanColor(view, ixB, sb)})`);
      fillDisplay(e, lines[k]);
      if (!last && !lines[k].endsWith("↵")) e.append(el("span", "nl", "↵"));
      if (!run) { run = el("span", "run"); frag.append(run); }
      run.append(e);
      if (!last) { frag.append(el("br")); run = null; }
    }
    byteAt += pieces.nb[p];
  }
  box.append(frag);
  markWrapped([box]);
}

function spanIds(ix, s) { return ix.row.ids.slice(ix.tokStart[s], ix.tokStart[s + 1]).join(" "); }
