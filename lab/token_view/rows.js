// A row of tokens made in the browser, for the ids the browser encoded itself: the same
// columns as viz/rows.py view_row (ids, nb, n, nc, show, parts) and the same display
// rules as viz/display.py display_text, so the view draws it as it draws Python's. Python's
// row replaces it when the page answers; only the ids are checked against Python's (the
// grapheme clusters come from the browser's Intl.Segmenter, Python's from regex's \X).

const NAMED = {
  0x00AD: "SHY", 0x034F: "CGJ", 0x061C: "ALM", 0x180E: "MVS", 0x200B: "ZWSP", 0x200C: "ZWNJ",
  0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM", 0x2028: "LSEP", 0x2029: "PSEP", 0x202A: "LRE",
  0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO", 0x2060: "WJ", 0x2061: "FA",
  0x2062: "IT", 0x2063: "IS", 0x2064: "IP", 0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI",
  0x2069: "PDI", 0xFEFF: "BOM", 0xFFF9: "IAA", 0xFFFA: "IAS", 0xFFFB: "IAT", 0x0085: "NEL",
};
const C0 = ("NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK "
  + "SYN ETB CAN EM SUB ESC FS GS RS US").split(" ");
const WHITESPACE = {
  markers: { " ": "·", "\t": "→", "\n": "↵\n", "\r": "␍" },
  oneline: { " ": "·", "\t": "→", "\n": "↵", "\r": "␍" },
  gpt2: { " ": "Ġ", "\n": "Ċ", "\t": "ĉ", "\r": "č" },
};
const hex2 = (cp) => cp.toString(16).toUpperCase().padStart(4, "0");

function invisibleName(cp) {
  if (cp < 0x20) return C0[cp];
  if (cp === 0x7f) return "DEL";
  if (cp >= 0x80 && cp <= 0x9f) return NAMED[cp] || `U+${hex2(cp)}`;
  if (NAMED[cp]) return NAMED[cp];
  if (cp >= 0xfe00 && cp <= 0xfe0f) return `VS${cp - 0xfe00 + 1}`;
  if (cp >= 0xe0100 && cp <= 0xe01ef) return `VS${cp - 0xe0100 + 17}`;
  if (cp >= 0xe0000 && cp <= 0xe007f) {
    const inner = cp - 0xe0000;
    return inner >= 0x21 && inner <= 0x7e ? `TAG ${String.fromCharCode(inner)}` : `TAG U+${hex2(cp)}`;
  }
  return null;
}

const isEmoji = (cp) => (cp >= 0x1f000 && cp < 0x1fb00) || (cp >= 0x2190 && cp <= 0x2bff)
  || cp === 0xa9 || cp === 0xae;

const PLAIN = /^[\x20-\x7e]*$/;

// display_text(s, whitespace, marks=VIEW_MARKS) for a string of whole characters
export function display(s, ws) {
  const map = ws ? WHITESPACE[ws] : null;
  if (PLAIN.test(s) && (!map || !s.includes(" "))) return s;
  const chars = Array.from(s);
  let out = "";
  for (let k = 0; k < chars.length; k++) {
    const ch = chars[k];
    if (map && map[ch] !== undefined) { out += map[ch]; continue; }
    if (ch === "\t" || ch === "\n" || ch === "\r" || ch === " ") { out += ch; continue; }
    const cp = ch.codePointAt(0);
    let name = invisibleName(cp);
    if (name !== null && (cp === 0x200d || cp === 0xfe0e || cp === 0xfe0f) && k > 0
        && isEmoji(chars[k - 1].codePointAt(0))
        && (cp !== 0x200d || (k + 1 < chars.length && isEmoji(chars[k + 1].codePointAt(0)))))
      name = null;  // part of one emoji glyph
    out += name === null ? ch : "\x01" + name + "\x02";
  }
  return out;
}

const STRICT = new TextDecoder("utf-8", { fatal: true });

// display of some bytes that may cut a character: its whole characters as display(), the
// bytes of a cut one as one hex marker
export function displayBytes(u8, ws) {
  try { return display(STRICT.decode(u8), ws); } catch (e) { /* cut characters */ }
  let out = "", raw = [], i = 0;
  while (i < u8.length) {
    const b = u8[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3
      : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = len > 0 && i + len <= u8.length;
    let ch = "";
    if (ok) {
      try { ch = STRICT.decode(u8.subarray(i, i + len)); } catch (e) { ok = false; }
    }
    if (!ok) { raw.push(b.toString(16).padStart(2, "0")); i += 1; continue; }
    if (raw.length) { out += "\x01" + raw.join(" ") + "\x02"; raw = []; }
    out += display(ch, ws);
    i += len;
  }
  if (raw.length) out += "\x01" + raw.join(" ") + "\x02";
  return out;
}

let segmenter = null;
// viz/rows.py CLUSTER_LIMIT: a grapheme cluster is read this many characters at a time,
// so one cluster of 1M combining marks costs linear time (Segments.containing looked back
// over the whole cluster at every cut: quadratic) and is drawn as boxes of about this size
export const CLUSTER_LIMIT = 64;
export const work = { cluster: 0 };

// the end (UTF-16 offset) of the grapheme cluster starting at u, reading at most
// CLUSTER_LIMIT characters; limited: the cluster went on past them
function clusterEnd(text, u) {
  segmenter = segmenter || new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let stop = u;
  for (let k = 0; k < CLUSTER_LIMIT && stop < text.length; k++) {
    const c = text.charCodeAt(stop);
    stop += c >= 0xd800 && c <= 0xdbff && stop + 1 < text.length ? 2 : 1;
  }
  const first = segmenter.segment(text.slice(u, stop))[Symbol.iterator]().next().value;
  const end = u + (first ? first.segment.length : stop - u);
  work.cluster += end - u;
  return { end, limited: end === stop && stop < text.length };
}

// text's tokens (ids, nb: byte lengths, over bytes = text's UTF-8) -> a view row
export function buildRow(text, bytes, ids, nb, ws) {
  const n = [], nc = [], show = [], parts = [];
  const last = ids.length - 1;
  let gpos = 0, limitAt = -1;  // a known cluster boundary; where a cluster hit the limit
  let first = 0, b0 = 0, u0 = 0;  // the open span: first token, byte and UTF-16 start
  let pos = 0, u = 0, spanChars = 0, walked = 0;
  for (let i = 0; i <= last; i++) {
    pos += nb[i];
    // walk the bytes up to pos: UTF-16 offset and characters
    for (; walked < pos; walked++) {
      const c = bytes[walked];
      if (c < 0x80 || c >= 0xc0) { spanChars++; u += c >= 0xf0 ? 2 : 1; }
    }
    if (i < last) {
      const next = bytes[pos];
      if (next >= 0x80 && next <= 0xbf) continue;  // the next token goes on with this character
      const prev = text.charCodeAt(u - 1), after = text.charCodeAt(u);
      if (prev >= 0x80 || after >= 0x80 || (prev === 13 && after === 10)) {
        gpos = Math.max(gpos, u0);
        while (gpos < u) {
          const read = clusterEnd(text, gpos);
          if (read.limited && limitAt < 0) limitAt = read.end;
          gpos = read.end;
        }
        if (gpos !== u) {
          if (limitAt < 0 || u < limitAt) continue;  // a grapheme cluster goes on
          gpos = u;  // a cluster past the limit: this box ends here
        }
      }
    }
    if (i > first) for (let t = first, at = b0; t <= i; at += nb[t], t++)
      parts.push(displayBytes(bytes.subarray(at, at + nb[t]), ws));
    n.push(i + 1 - first);
    nc.push(spanChars);
    show.push(display(text.slice(u0, u), ws));
    first = i + 1; b0 = pos; u0 = u; spanChars = 0; limitAt = -1;
  }
  return { ids, nb, n, nc, show, parts };
}

const fmt = (x) => x.toLocaleString("en-US");

// viz/rows.py counts(text, ids)
export function summaryOf(text, bytes, ids) {
  let chars = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] < 0x80 || bytes[i] >= 0xc0) chars++;
  return [["Tokens", fmt(ids.length)], ["Characters", fmt(chars)],
    ["Bytes", fmt(bytes.length), "UTF-8 bytes: what BPE starts from."],
    ["Bytes per token", ids.length ? (bytes.length / ids.length).toFixed(2) : "–",
      "Higher is better compression."]];
}
