// Encoding in the browser: the split pattern and tiktoken's byte-level BPE merge, over the
// ranks file lab/token_view/browser_vocab.py writes (see there for both files' formats). Exact to
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
    this.work = 0; // pairs looked up and heap pops in encodeChunk (tests check its growth)
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
  // tiktoken's merge: merge the adjacent pair of parts whose joined bytes have the lowest
  // rank (the leftmost of equals) until no joined pair is a token. The parts are a linked
  // list over byte offsets and the candidate pairs a heap ordered by (rank, offset), so a
  // chunk of n bytes costs O(n log n): a scan for the minimum at every merge was quadratic
  // (one letter and 200,000 combining marks is one 400 KB chunk under GPT-4's pattern, and
  // froze the tab). this.work counts pairs looked up and heap pops, for the tests.
  encodeChunk(bin) {
    const ranks = this.ranks;
    const whole = ranks.get(bin);
    if (whole !== undefined) return [whole, bin.length];
    const n = bin.length;
    const next = new Int32Array(n + 1), prev = new Int32Array(n + 1);
    const ver = new Int32Array(n);
    for (let i = 0; i <= n; i++) { next[i] = i + 1; prev[i] = i - 1; }
    const heap = new PairHeap();
    const offer = (i) => { // the pair starting at part i, if its joined bytes are a token
      this.work++;
      const j = next[i];
      if (j >= n) return;
      const r = ranks.get(bin.substring(i, next[j]));
      if (r !== undefined) heap.push(r, i, ++ver[i]);
    };
    for (let i = 0; i < n; i++) offer(i);
    while (heap.size) {
      const [, i, v] = heap.pop();
      this.work++;
      if (v !== ver[i]) continue; // the pair changed since (a neighbour merged)
      const j = next[i];          // merge parts i and j
      next[i] = next[j];
      prev[next[j]] = i;
      ver[j]++;                   // j is gone: its pending pair is stale
      ver[i]++;
      offer(i);
      if (prev[i] >= 0) { ver[prev[i]]++; offer(prev[i]); }
    }
    const out = [];
    for (let i = 0; i < n; i = next[i]) {
      const piece = bin.substring(i, next[i]);
      const idx = ranks.get(piece);
      if (idx === undefined) throw new Error("a byte has no rank: this vocabulary is not byte-level");
      out.push(idx, piece.length);
    }
    return out;
  }
}

// a binary min-heap of (rank, offset, version), ordered by rank then offset
class PairHeap {
  constructor() { this.r = []; this.i = []; this.v = []; }
  get size() { return this.r.length; }
  less(a, b) { return this.r[a] < this.r[b] || (this.r[a] === this.r[b] && this.i[a] < this.i[b]); }
  swap(a, b) {
    for (const k of [this.r, this.i, this.v]) { const t = k[a]; k[a] = k[b]; k[b] = t; }
  }
  push(r, i, v) {
    this.r.push(r); this.i.push(i); this.v.push(v);
    let c = this.r.length - 1;
    while (c > 0) {
      const p = (c - 1) >> 1;
      if (!this.less(c, p)) break;
      this.swap(c, p);
      c = p;
    }
  }
  pop() {
    const top = [this.r[0], this.i[0], this.v[0]];
    const last = this.r.length - 1;
    this.swap(0, last);
    this.r.pop(); this.i.pop(); this.v.pop();
    let p = 0;
    for (;;) {
      const a = 2 * p + 1, b = a + 1;
      let m = p;
      if (a < last && this.less(a, m)) m = a;
      if (b < last && this.less(b, m)) m = b;
      if (m === p) break;
      this.swap(p, m);
      p = m;
    }
    return top;
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
