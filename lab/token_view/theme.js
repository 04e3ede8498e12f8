// The token view's colours: applyTheme() picks light or dark tones from the theme's
// background and writes the palette Python sent as --cN variables on the view, watchTheme()
// recolours when Streamlit's theme or the OS scheme changes without a rerun, and
// spanColor() says which palette entry a span gets. It draws no tokens itself.

function luminance(color) {
  const m = color.match(/\d+(\.\d+)?/g);
  if (!m || m.length < 3) return 1;
  const [r, g, b] = m.slice(0, 3).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

// The palette follows the theme: light pastels or deep tones, by the luminance of the
// theme's background (CCv2 puts the theme's --st-* variables on a wrapper around the view).
// Called on every update, and when the theme changes without a rerun (watchTheme).
export function applyTheme(view) {
  const root = view.root;
  const bg = getComputedStyle(root).getPropertyValue("--st-background-color")
    || getComputedStyle(root).backgroundColor;
  const dark = bg ? luminance(bg.trim().startsWith("#") ? hexColor(bg.trim()) : bg) < 0.5 : false;
  root.classList.toggle("dark", dark);
  const palette = (view.data && view.data.palette) || { light: ["#ddd"], dark: ["#444"] };
  const colors = dark ? palette.dark : palette.light;
  const ink = dark ? palette.ink_dark : palette.ink_light;
  const paletteKey = colors.join() + ink;
  if (view.palette !== paletteKey) {  // the same values again would still restyle the view
    view.palette = paletteKey;
    colors.forEach((c, i) => root.style.setProperty(`--c${i}`, c));
    root.style.setProperty("--ink", ink);
  }
  view.ncolors = colors.length;
}

// A theme picked from Streamlit's menu changes the --st-* variables on the elements around
// the view, with no rerun: watch those elements' style and class (up to the document) and
// the OS's color scheme, and recolour at once.
export function watchTheme(view) {
  const again = () => { if (view.data) applyTheme(view); };
  const observer = new MutationObserver(again);
  let node = view.root;
  for (let k = 0; node && k < 12; k++) {
    if (node.nodeType === 1) observer.observe(node, { attributes: true, attributeFilter: ["style", "class"] });
    node = node.parentNode || (node.host !== undefined ? node.host : null);
  }
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => requestAnimationFrame(again));
}

function hexColor(h) {
  const v = h.replace("#", "");
  const full = v.length === 3 ? v.split("").map((c) => c + c).join("") : v.slice(0, 6);
  const n = parseInt(full, 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

export function spanColor(view, ix, s) {
  const row = ix.row;
  if (row.colors) return row.colors[s] % view.ncolors;
  if (row.color_by === "id") {
    let h = 0;
    for (let t = ix.tokStart[s]; t < ix.tokStart[s + 1]; t++) h = (Math.imul(h, 1000003) + row.ids[t]) >>> 0;
    return (h ^ (h >>> 13)) % view.ncolors;
  }
  return s % view.ncolors;
}
