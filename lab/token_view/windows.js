// Lazy windows inside a scroll box, for the token view's rows and its Ids/Table lists:
// windowed() splits a box into windows, draws those near the visible area and empties
// those far from it (an IntersectionObserver decides), and on a redraw moves over the
// windows whose signature did not change. It does not know what a window holds: the
// caller's draw(w), estimate(w) and sig(w) do.

import { el } from "./dom.js";

// Lazy windows inside a scroll box: a window is drawn when it comes near the visible
// area and emptied (keeping its height) when it goes far away, so a 1 MB text keeps only
// a few thousand elements in the DOM.
// A redraw (one per key press) starts from the last drawing, `old` (what windowed
// returned for the same box before): a window that was drawn there is drawn at once,
// not a frame later when the observer reports it, and is moved over as it is when its
// signature (sig(w): a string of everything its drawing depends on) has not changed, so
// typing at the end of a text rebuilds one window, not all the visible ones.
// `done(slots)` gets the windows each pass drew (e.g. to measure them, in one go).
export function windowed(box, count, draw, estimate, sig, old, done) {
  const inPlace = old && old.box === box;  // the same box: its kept windows stay put
  if (!inPlace) box.replaceChildren();
  const slots = [];
  const fill = (slot) => {
    slot.style.minHeight = "";
    slot.replaceChildren(draw(slot.index));
    slot.sig = sig ? sig(slot.index) : null;
    slot.drawn = true;
  };
  const observer = new IntersectionObserver((entries) => {
    // the entries carry their boxes' sizes: read nothing from the layout between writes
    const drawn = [];
    for (const entry of entries) {
      const slot = entry.target;
      if (entry.isIntersecting && !slot.drawn) {
        fill(slot);
        drawn.push(slot);
      } else if (!entry.isIntersecting && slot.drawn) {
        slot.style.minHeight = entry.boundingClientRect.height + "px";
        slot.replaceChildren();
        slot.drawn = false;
      }
    }
    if (drawn.length && done) done(drawn);
  }, { root: box, rootMargin: "600px 0px" });
  const drawn = [];
  for (let w = 0; w < count; w++) {
    const before = old && old.slots[w];
    let slot;
    if (before && before.drawn && sig && before.sig === sig(w)) {
      slot = before;  // unchanged: keep its elements
    } else {
      slot = el("div", "win");
      slot.index = w;
      if (before && before.drawn) { fill(slot); drawn.push(slot); }  // it was in view
      else slot.style.minHeight = estimate(w) + "px";
    }
    slots.push(slot);
  }
  if (inPlace) {
    const kids = box.children;
    for (let w = 0; w < count; w++) {
      const cur = kids[w];
      if (cur === slots[w]) continue;
      if (cur && cur === old.slots[w]) box.replaceChild(slots[w], cur);
      else box.insertBefore(slots[w], cur || null);
    }
    while (kids.length > count) box.lastElementChild.remove();
  } else {
    box.append(...slots);
  }
  for (const slot of slots) observer.observe(slot);
  if (drawn.length && done) done(drawn);
  return { box, slots, observer };
}
