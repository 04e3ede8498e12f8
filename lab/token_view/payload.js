// The bytes lab/token_view/__init__.py pack() sends the token view, turned back into the data
// object (typed arrays and strings where the header points at blobs), and the check that
// a rerun sent the same bytes as before. It does not look at what the data means or draw
// anything: token_view.js hands the result to the view.

export function samePayload(a, b) {
  if (a === b) return true;
  if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The bytes lab/token_view/__init__.py pack() makes: "TV1\0", uint32 header length, JSON header,
// then blobs the header points at: {"$a": [offset, count, type]} a typed array,
// {"$s": [offset, nbytes]} strings joined by \x03, {"$t": [offset, nbytes]} a string.
const ARRAYS = { B: Uint8Array, H: Uint16Array, i: Int32Array };
export function unpack(data) {
  if (!data || !(data instanceof Uint8Array || data instanceof ArrayBuffer)) return data;
  const u8 = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  const len = dv.getUint32(4, true);
  const utf8 = new TextDecoder();
  const header = JSON.parse(utf8.decode(u8.subarray(8, 8 + len)));
  const base = 8 + len + ((4 - ((8 + len) % 4)) % 4);
  const walk = (v) => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      if (v.$a) {
        const [offset, count, code] = v.$a;
        const Type = ARRAYS[code];
        const start = u8.byteOffset + base + offset;
        // a typed array needs an aligned start: copy when the payload is not aligned
        if (start % Type.BYTES_PER_ELEMENT === 0) return new Type(u8.buffer, start, count);
        return new Type(u8.slice(base + offset, base + offset + count * Type.BYTES_PER_ELEMENT).buffer);
      }
      if (v.$s) return utf8.decode(u8.subarray(base + v.$s[0], base + v.$s[0] + v.$s[1])).split("\x03");
      if (v.$t) return utf8.decode(u8.subarray(base + v.$t[0], base + v.$t[0] + v.$t[1]));
      const out = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(header);
}
