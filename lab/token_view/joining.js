// Joining scripts cut between tokens: each token is a box of its own, and the browser
// shapes text only within a box, so a word cut into tokens would show each piece's edge
// letters in their isolated forms (a small trained tokenizer: every letter isolated). Where
// the text itself joins two letters across a cut, joiners() says to draw a ZERO WIDTH
// JOINER on both sides of the cut, so each letter keeps the form it has in the word. The
// text drawn stays in logical order, the data (ids, bytes, the card) is untouched; it
// covers Arabic (U+0600–06FF, U+0750–077F, U+08A0–08FF) by the Joining_Type of Unicode's
// ArabicShaping.txt, and draws nothing itself.

const ZWJ = "\u200d";

// dual-joining (D) and join-causing (C) code points: they join the letter after them
const DUAL = [
  [0x0620, 0x0620], [0x0626, 0x0626], [0x0628, 0x0628], [0x062a, 0x062e], [0x0633, 0x063f],
  [0x0640, 0x0640], [0x0641, 0x0647], [0x0649, 0x064a], [0x066e, 0x066f], [0x0678, 0x0687],
  [0x069a, 0x06bf], [0x06c1, 0x06c2], [0x06cc, 0x06cc], [0x06ce, 0x06ce], [0x06d0, 0x06d1],
  [0x06fa, 0x06fc], [0x06ff, 0x06ff], [0x0750, 0x0758], [0x075c, 0x076a], [0x076d, 0x0770],
  [0x0772, 0x0772], [0x0775, 0x0777], [0x077a, 0x077f], [0x08a0, 0x08a9], [0x08af, 0x08b0],
  [0x08b3, 0x08b8], [0x08ba, 0x08c8],
];
// right-joining (R): they join the letter before them only
const RIGHT = [
  [0x0622, 0x0625], [0x0627, 0x0627], [0x0629, 0x0629], [0x062f, 0x0632], [0x0648, 0x0648],
  [0x0671, 0x0673], [0x0675, 0x0677], [0x0688, 0x0699], [0x06c0, 0x06c0], [0x06c3, 0x06cb],
  [0x06cd, 0x06cd], [0x06cf, 0x06cf], [0x06d2, 0x06d3], [0x06d5, 0x06d5], [0x06ee, 0x06ef],
  [0x0759, 0x075b], [0x076b, 0x076c], [0x0771, 0x0771], [0x0773, 0x0774], [0x0778, 0x0779],
  [0x08aa, 0x08ac], [0x08ae, 0x08ae], [0x08b1, 0x08b2], [0x08b9, 0x08b9],
];
// transparent (T): combining marks, skipped when looking for the letter at a cut
const TRANSPARENT = [
  [0x0610, 0x061a], [0x064b, 0x065f], [0x0670, 0x0670], [0x06d6, 0x06dc], [0x06df, 0x06e4],
  [0x06e7, 0x06e8], [0x06ea, 0x06ed], [0x08ca, 0x08e1], [0x08e3, 0x08ff],
];

const within = (ranges, cp) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
const transparent = (cp) => within(TRANSPARENT, cp);
const joinsAfter = (cp) => within(DUAL, cp);                      // D, C
const joinsBefore = (cp) => within(DUAL, cp) || within(RIGHT, cp);  // D, C, R

// the first (or last) code point of s that is not a transparent mark, or -1
function edge(s, last) {
  const chars = Array.from(s);
  if (last) chars.reverse();
  for (const ch of chars) {
    const cp = ch.codePointAt(0);
    if (!transparent(cp)) return cp;
  }
  return -1;
}

// a cheap test first: most text holds no joining script at all
const JOINING = /[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff]/;

// does the text join across the cut between before (a span's text) and after (the next's)?
export function joinsAcross(before, after) {
  if (!before || !after || !JOINING.test(before.slice(-8)) || !JOINING.test(after.slice(0, 8))) return false;
  const a = edge(before, true), b = edge(after, false);
  return a >= 0 && b >= 0 && joinsAfter(a) && joinsBefore(b);
}

// [lead, trail]: the joiners to draw at the start and end of span s of a row's show texts
export function joiners(show, s) {
  const lead = s > 0 && joinsAcross(show[s - 1], show[s]) ? ZWJ : "";
  const trail = s + 1 < show.length && joinsAcross(show[s], show[s + 1]) ? ZWJ : "";
  return [lead, trail];
}
