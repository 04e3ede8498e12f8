// Encoding in the browser: the split pattern and tiktoken's byte-level BPE merge, over the
// ranks file lab/browser_vocab.py writes (see there for both files' formats). Exact to
// Python's encoder by construction (same pattern, class by class; the same merge rule:
// the adjacent pair whose joined bytes have the lowest rank, leftmost first), and checked
// on every rerun: the view compares these ids with Python's.

const LOADED = new Map();  // "ranks|split" -> Promise<Encoder>, once per page

async function gunzip(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const stream = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// bytes -> a string of one char per byte (the ranks' keys; cheap to slice and hash)
function binary(u8, start, end) {
  let s = "";
  for (let i = start; i < end; i += 8192)
    s += String.fromCharCode.apply(null, u8.subarray(i, Math.min(end, i + 8192)));
  return s;
}

export function parseRanks(u8) {
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  if (binary(u8, 0, 4) !== "TVV1") throw new Error("not a ranks file");
  const hlen = dv.getUint32(4, true);
  const head = JSON.parse(new TextDecoder().decode(u8.subarray(8, 8 + hlen)));
  let at = 8 + hlen;
  const lens = new Array(head.n);
  for (let i = 0; i < head.n; i++) {
    lens[i] = head.width === 1 ? u8[at + i] : dv.getUint16(at + 2 * i, true);
  }
  at += head.n * head.width;
  const ranks = new Map();
  const tokens = new Array(head.n);
  for (let i = 0; i < head.n; i++) {
    const key = binary(u8, at, at + lens[i]);
    tokens[i] = key;
    ranks.set(key, head.first + i);
    at += lens[i];
  }
  return { ranks, tokens, first: head.first };
}

export function loadEncoder(baseUrl, spec) {
  const key = spec.ranks + "|" + spec.split;
  if (!LOADED.has(key)) {
    LOADED.set(key, (async () => {
      const [ranksBytes, splitBytes] = await Promise.all([
        gunzip(new URL(spec.ranks, baseUrl)), gunzip(new URL(spec.split, baseUrl))]);
      const split = JSON.parse(new TextDecoder().decode(splitBytes));
      return new Encoder(parseRanks(ranksBytes), split);
    })());
    LOADED.get(key).catch(() => LOADED.delete(key));  // a failed fetch may be retried
  }
  return LOADED.get(key);
}

const NON_ASCII = /[^\x00-\x7f]/;
const CACHE_LIMIT = 100_000;

export class Encoder {
  constructor(vocab, split) {
    this.ranks = vocab.ranks;
    this.tokens = vocab.tokens;
    this.first = vocab.first;
    this.pattern = new RegExp(split.source, split.flags);
    this.specials = split.specials || {};
    const names = Object.keys(this.specials).sort((a, b) => b.length - a.length);
    const esc = (s) => s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
    this.specialRe = names.length ? new RegExp(names.map(esc).join("|"), "gu") : null;
    this.cache = new Map();
  }

  // the chunks the split pattern cuts text into (text well formed)
  split(text) {
    return text.match(this.pattern) || [];
  }

  // text -> {ids, nb}: every token id and its byte length. allowSpecial: special-token
  // text becomes the special token (Python's allowed_special="all"), else ordinary text
  encode(text, allowSpecial) {
    text = text.toWellFormed ? text.toWellFormed() : text;
    const ids = [], nb = [];
    if (allowSpecial && this.specialRe) {
      let at = 0;
      for (const m of text.matchAll(this.specialRe)) {
        this.encodeOrdinary(text.slice(at, m.index), ids, nb);
        ids.push(this.specials[m[0]]);
        nb.push(utf8Length(m[0]));
        at = m.index + m[0].length;
      }
      this.encodeOrdinary(text.slice(at), ids, nb);
    } else {
      this.encodeOrdinary(text, ids, nb);
    }
    return { ids, nb };
  }

  encodeOrdinary(text, ids, nb) {
    if (!text) return;
    const cache = this.cache;
    if (cache.size > CACHE_LIMIT) cache.clear();
    this.pattern.lastIndex = 0;
    for (const chunk of this.split(text)) {
      let hit = cache.get(chunk);
      if (hit === undefined) {
        hit = this.encodeChunk(NON_ASCII.test(chunk) ? unescape(encodeURIComponent(chunk)) : chunk);
        cache.set(chunk, hit);
      }
      for (let k = 0; k < hit.length; k += 2) { ids.push(hit[k]); nb.push(hit[k + 1]); }
    }
  }

  // one chunk's bytes (as a binary string) -> [id, nbytes, id, nbytes, ...]
  encodeChunk(bin) {
    const ranks = this.ranks;
    const whole = ranks.get(bin);
    if (whole !== undefined) return [whole, bin.length];
    // tiktoken's merge: parts start at starts[i]; rk[i] is the rank of parts i and i+1
    // joined. Merge the lowest (the leftmost of equals) until no joined pair is a token.
    const starts = [];
    for (let i = 0; i <= bin.length; i++) starts.push(i);
    const rankAt = (i) => (i + 2 < starts.length
      ? (ranks.get(bin.substring(starts[i], starts[i + 2])) ?? Infinity) : Infinity);
    const rk = [];
    for (let i = 0; i < starts.length - 1; i++) rk.push(rankAt(i));
    for (;;) {
      let min = Infinity, at = -1;
      for (let i = 0; i < rk.length - 1; i++) if (rk[i] < min) { min = rk[i]; at = i; }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      rk.splice(at + 1, 1);
      rk[at] = rankAt(at);
      if (at > 0) rk[at - 1] = rankAt(at - 1);
    }
    const out = [];
    for (let i = 0; i + 1 < starts.length; i++) {
      const piece = bin.substring(starts[i], starts[i + 1]);
      const idx = ranks.get(piece);
      if (idx === undefined) throw new Error("a byte has no rank: this vocabulary is not byte-level");
      out.push(idx, piece.length);
    }
    return out;
  }
}

export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
    else n += 3;
  }
  return n;
}
