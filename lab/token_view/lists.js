// The Ids and Table tabs under the token view's first row: drawLists() draws the ids as a
// list and the tokens as a table (index, id, text, bytes), each in lazy windows
// (windows.js), and keeps the tabs and unchanged windows across redraws. Every entry
// carries data-r/data-i/data-t so hovering it lights up its span; the hover itself is
// card.js's. It does not draw the rows of tokens.

import { el, fillDisplay, hex } from "./dom.js";
import { windowed } from "./windows.js";

const ID_BLOCK = 2000;         // ids per window of the id list
const TABLE_BLOCK = 200;       // rows per window of the table

// the Ids and Table tabs of the first row; their boxes (and the tab shown) are kept from
// one redraw to the next, with the windows whose ids did not change
export function drawLists(view, data) {
  if (!data.lists || !view.index.length) {
    view.lists.replaceChildren();
    view.listParts = null;
    return;
  }
  if (!view.listParts) {
    view.lists.replaceChildren();
    const tabs = el("div", "tv-tabs");
    const idsBtn = el("button", "tv-tab on", "Ids");
    const tableBtn = el("button", "tv-tab", "Table");
    tabs.append(idsBtn, tableBtn);
    const idsBox = el("div", "tv-ids scroll");
    const tableBox = el("div", "tv-table scroll");
    tableBox.hidden = true;
    const head = el("div", "tr th");
    head.append(el("span", "td n", "#"), el("span", "td id", "id"), el("span", "td tx", "text"), el("span", "td hx", "bytes"));
    const body = el("div", "tbody");
    tableBox.append(head, body);
    const note = el("div", "tv-windowed");
    view.lists.append(tabs, idsBox, tableBox, note);
    idsBtn.onclick = () => { idsBox.hidden = false; tableBox.hidden = true; idsBtn.classList.add("on"); tableBtn.classList.remove("on"); };
    tableBtn.onclick = () => { idsBox.hidden = true; tableBox.hidden = false; tableBtn.classList.add("on"); idsBtn.classList.remove("on"); };
    view.listParts = { idsBox, body, note };
  }
  const { idsBox, body, note } = view.listParts;
  const ix = view.index[0];
  const row = ix.row;

  const ntok = row.ids.length;
  // token -> span, for hover links from the lists
  const spanOf = new Int32Array(ntok);
  for (let s = 0; s < row.n.length; s++) for (let t = ix.tokStart[s]; t < ix.tokStart[s + 1]; t++) spanOf[t] = s;

  const idWindows = Math.ceil(ntok / ID_BLOCK);
  const drawIds = (w) => {
    const frag = document.createDocumentFragment();
    if (w === 0) frag.append("[");
    for (let t = w * ID_BLOCK; t < Math.min(ntok, (w + 1) * ID_BLOCK); t++) {
      const e = el("span", "id", String(row.ids[t]));
      e.dataset.r = 0; e.dataset.i = spanOf[t]; e.dataset.t = t;
      frag.append(e, t + 1 < ntok ? ", " : "]");
    }
    return frag;
  };
  // a window of ids or table rows is drawn from its tokens' ids and spans (and bytes)
  const listSig = (block, withBytes) => (w) => {
    const parts = [(w + 1) * block >= ntok];  // the last window ends with "]"
    for (let t = w * block; t < Math.min(ntok, (w + 1) * block); t++) {
      parts.push(row.ids[t], spanOf[t]);
      if (withBytes) parts.push(ix.byteStart[t], row.nb[t], tokenShow(ix, spanOf[t], t));
    }
    return parts.join(",");
  };
  const v1 = windowed(idsBox, idWindows, drawIds, () => 22 * Math.ceil(ID_BLOCK / 12),
    listSig(ID_BLOCK, false), view.lastWindows.ids);
  view.windows.ids = v1;
  view.observers.push(v1.observer);

  const drawRows = (w) => {
    const frag = document.createDocumentFragment();
    for (let t = w * TABLE_BLOCK; t < Math.min(ntok, (w + 1) * TABLE_BLOCK); t++) {
      const tr = el("div", "tr");
      const s = spanOf[t];
      tr.dataset.r = 0; tr.dataset.i = s; tr.dataset.t = t;
      const tx = el("span", "td tx");
      fillDisplay(tx, tokenShow(ix, s, t).replaceAll("\n", ""));
      tr.append(el("span", "td n", String(t)), el("span", "td id", String(row.ids[t])), tx,
        el("span", "td hx", hex(ix.bytes.subarray(ix.byteStart[t], ix.byteStart[t + 1]))));
      frag.append(tr);
    }
    return frag;
  };
  const v2 = windowed(body, Math.ceil(ntok / TABLE_BLOCK), drawRows, () => 24 * TABLE_BLOCK,
    listSig(TABLE_BLOCK, true), view.lastWindows.table);
  view.windows.table = v2;
  view.observers.push(v2.observer);
  note.hidden = ntok <= ID_BLOCK;
  note.textContent = note.hidden ? "" : `${ntok.toLocaleString()} ids and table rows, drawn in windows as you scroll.`;
}

function tokenShow(ix, s, t) {
  const row = ix.row;
  if (row.n[s] === 1) return row.show[s];
  return (row.parts && row.parts[ix.partStart.get(s) + t - ix.tokStart[s]]) || "";
}
