// The aligned Compare view (data from viz.compare.aligned). Every text goes in through
// textContent, never innerHTML, so nothing in the data can become markup.
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function tokenLine(side, i, tok) {
  return `${side} #${i}  id ${tok.id}  «${tok.text}»\n  bytes ${tok.bytes[0]}–${tok.bytes[1]}` +
         `  hex ${tok.hex}${tok.same ? "  (both cut it so)" : ""}`;
}

function draw(root, data) {
  root.replaceChildren();
  const legend = el("div", "cmp-legend");
  const key = (cls, label) => {
    const item = el("span");
    item.append(el("span", "key " + cls), label);
    legend.append(item);
  };
  key("ka", `A: ${data.label_a} — tokens above the text`);
  key("kb", `B: ${data.label_b} — tokens below`);
  key("kd", "a cut only one side makes");
  key("ks", "a token both make the same");
  legend.querySelector(".ka").style.background = "#4f7fd9";
  legend.querySelector(".kb").style.background = "#d9822b";
  legend.querySelector(".kd").style.cssText += ";background:#e0245e;width:4px;height:14px";
  legend.querySelector(".ks").style.background = "#a3a9b3";
  root.append(legend);

  const text = el("div", "cmp-text");
  const segsOfA = new Map(), segsOfB = new Map();
  let run = null;
  for (const [start, end, shown, a, b, cut, newline] of data.segments) {
    if (run === null || cut === 3) {
      run = el("span", "run");
      text.append(run);
    }
    const seg = el("span", "seg");
    seg.dataset.bytes = `${start}-${end}`;
    seg.dataset.a = a;
    seg.dataset.b = b;
    const ta = data.tokens_a[a], tb = data.tokens_b[b];
    seg.append(el("span", `ba t${a % 2}${ta.same ? " same" : ""}`), el("span", "ch", shown),
               el("span", `bb t${b % 2}${tb.same ? " same" : ""}`));
    if (start > 0) {
      const differ = cut !== 3 ? " differ" : "";
      if (cut & 1) { const m = el("i", "cut cut-a" + differ); m.dataset.byte = start; seg.append(m); }
      if (cut & 2) { const m = el("i", "cut cut-b" + differ); m.dataset.byte = start; seg.append(m); }
    }
    (segsOfA.get(a) || segsOfA.set(a, []).get(a)).push(seg);
    (segsOfB.get(b) || segsOfB.set(b, []).get(b)).push(seg);
    run.append(seg);
    if (newline) { text.append(el("div", "br")); run = null; }
  }
  root.append(text);
  // a run wider than the line may wrap inside: mark it, so a wrap is never taken for a cut
  requestAnimationFrame(() => {
    const width = text.clientWidth;
    for (const r of text.querySelectorAll(".run")) if (r.scrollWidth > width) r.classList.add("long");
  });
  if (data.drawn_bytes < data.total_bytes) {
    root.append(el("div", "cmp-note",
      `Drawing the first ${data.drawn_bytes.toLocaleString()} of ` +
      `${data.total_bytes.toLocaleString()} bytes; the figures above cover the whole text.`));
  }

  const card = el("div", "cmp-card");
  card.hidden = true;
  root.append(card);
  let lit = [];
  const clear = () => { for (const [s, c] of lit) s.classList.remove(c); lit = []; card.hidden = true; };
  const light = (segs, cls) => { for (const s of segs) { s.classList.add(cls); lit.push([s, cls]); } };
  text.addEventListener("mouseover", (event) => {
    const seg = event.target.closest(".seg");
    if (!seg) return;
    clear();
    // the lower band names B's token; the text and upper band name A's
    const sideB = event.target.classList.contains("bb") || event.target.classList.contains("cut-b");
    const [mine, theirs, segsMine, segsTheirs, clsMine, clsTheirs, toksMine, toksTheirs, nm, nt] = sideB
      ? ["b", "a", segsOfB, segsOfA, "hl-b", "hl-a", data.tokens_b, data.tokens_a, "B", "A"]
      : ["a", "b", segsOfA, segsOfB, "hl-a", "hl-b", data.tokens_a, data.tokens_b, "A", "B"];
    const i = Number(seg.dataset[mine]);
    const own = segsMine.get(i) || [];
    light(own, clsMine);
    const over = [...new Set(own.map((s) => Number(s.dataset[theirs])))];
    for (const j of over) light(segsTheirs.get(j) || [], clsTheirs);
    card.textContent = [tokenLine(nm, i, toksMine[i]), `overlaps ${over.length} token` +
      `${over.length === 1 ? "" : "s"} of ${nt}:`, ...over.map((j) => tokenLine(nt, j, toksTheirs[j]))].join("\n");
    card.hidden = false;
    const box = seg.getBoundingClientRect();
    card.style.left = `${Math.min(box.left, window.innerWidth - 430)}px`;
    card.style.top = `${box.bottom + 8}px`;
  });
  text.addEventListener("mouseleave", clear);
}

export default function (component) {
  const { data, parentElement } = component;
  let root = parentElement.querySelector(".cmp");
  if (!root) { root = el("div", "cmp"); parentElement.append(root); }
  draw(root, data);
}
