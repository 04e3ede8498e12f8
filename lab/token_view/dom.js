// Small DOM and text helpers the token view's modules share: el() makes an element whose
// text goes in through textContent (never innerHTML), fillDisplay() draws Python's display
// text with its markers for invisible characters, hex()/hexToBytes() convert bytes, and
// escaped() spells a string out as a literal. They hold no state and know nothing of the
// view's data or layout.

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// display text from Python: \x01NAME\x02 is a marker for an invisible character
export function fillDisplay(target, text) {
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("\x01", i);
    if (open < 0) { target.append(text.slice(i)); break; }
    if (open > i) target.append(text.slice(i, open));
    const close = text.indexOf("\x02", open);
    target.append(el("span", "mk", text.slice(open + 1, close)));
    i = close + 1;
  }
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
export function hex(bytes) { return Array.from(bytes, (b) => HEX[b]).join(" "); }
export function hexToBytes(h) {
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(2 * i, 2), 16);
  return out;
}

// a string as a JSON-ish literal whose every invisible character is spelled out
export function escaped(s) {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === '"') out += '\\"';
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || /[\p{Cf}\p{Zl}\p{Zp}\p{Mn}\p{Co}\p{Cs}]/u.test(ch)
             || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0xfeff)
      out += cp > 0xffff ? "\\u{" + cp.toString(16) + "}" : "\\u" + cp.toString(16).padStart(4, "0");
    else out += ch;
  }
  return '"' + out + '"';
}
