// Small SVG charts for the dashboard: lines over time, bars, a scatter.
// Hand-written, no library: the dashboard loads nothing from outside this server.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PAD = { left: 52, right: 10, top: 8, bottom: 22 };

function el(name, attrs, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function fmt(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(1) + "G";
  if (a >= 1e6) return (v / 1e6).toFixed(1) + "M";
  if (a >= 1e4) return (v / 1e3).toFixed(1) + "k";
  if (a >= 100 || Number.isInteger(v)) return v.toFixed(0);
  return v.toPrecision(3);
}

function frame(svg) {
  svg.replaceChildren();
  const w = svg.clientWidth || 400, h = svg.clientHeight || 180;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  return { w, h, x0: PAD.left, x1: w - PAD.right, y0: h - PAD.bottom, y1: PAD.top };
}

function axes(svg, f, ymin, ymax, xlabels) {
  for (let i = 0; i <= 4; i++) {
    const y = f.y0 - (f.y0 - f.y1) * i / 4;
    svg.append(el("line", { x1: f.x0, x2: f.x1, y1: y, y2: y, class: "grid" }));
    svg.append(el("text", { x: f.x0 - 4, y: y + 4, class: "tick", "text-anchor": "end" },
      fmt(ymin + (ymax - ymin) * i / 4)));
  }
  for (const [x, label] of xlabels || []) {
    svg.append(el("text", { x, y: f.y0 + 15, class: "tick", "text-anchor": "middle" }, label));
  }
}

function empty(svg, f, text) {
  svg.append(el("text", { x: (f.x0 + f.x1) / 2, y: (f.y0 + f.y1) / 2, class: "empty",
    "text-anchor": "middle" }, text));
}

// series: [{name, cls, points: [[t, v], ...]}]; t in seconds.
function lineChart(svg, series, windowS) {
  const f = frame(svg);
  const all = series.flatMap((s) => s.points).filter((p) => p[1] !== null);
  if (all.length === 0) { axes(svg, f, 0, 1); empty(svg, f, "waiting for data"); return; }
  const tmax = Math.max(...all.map((p) => p[0])), tmin = tmax - windowS;
  // An all-zero series gets the axis 0..1: a scale from a tiny floor would read 1.10e-9.
  const top = Math.max(...all.map((p) => p[1]));
  const ymax = top > 0 ? top * 1.1 : 1;
  const sx = (t) => f.x0 + (f.x1 - f.x0) * (t - tmin) / windowS;
  const sy = (v) => f.y0 - (f.y0 - f.y1) * v / ymax;
  axes(svg, f, 0, ymax, [[f.x0, `-${windowS}s`], [f.x1 - 10, "now"]]);
  let lx = f.x0 + 6;
  for (const s of series) {
    const pts = s.points.filter((p) => p[1] !== null && p[0] >= tmin);
    if (pts.length) {
      svg.append(el("polyline", { class: "line " + s.cls,
        points: pts.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" ") }));
    }
    svg.append(el("text", { x: lx, y: f.y1 + 10, class: "legend " + s.cls }, s.name));
    lx += 9 * s.name.length + 14;
  }
}

// edges: bin edges (n+1); counts: n; outside: beyond the last edge.
function barChart(svg, edges, counts, outside) {
  const f = frame(svg);
  const total = counts.reduce((a, b) => a + b, 0) + (outside || 0);
  // Show the bins that hold samples, plus one either side: 31 log bins are mostly empty.
  let first = counts.findIndex((c) => c > 0), last = counts.length - 1;
  while (last > 0 && counts[last] === 0) last--;
  if (total === 0 || first < 0) { axes(svg, f, 0, 1); empty(svg, f, "no samples yet"); return; }
  first = Math.max(0, first - 1); last = Math.min(counts.length - 1, last + 1);
  const shown = counts.slice(first, last + 1);
  const cells = shown.length + (outside ? 1 : 0);
  const ymax = Math.max(...shown, outside || 0) * 1.1;
  axes(svg, f, 0, ymax);
  const bw = (f.x1 - f.x0) / cells;
  shown.forEach((c, i) => {
    const h = (f.y0 - f.y1) * c / ymax;
    const bar = el("rect", { x: f.x0 + i * bw + 1, y: f.y0 - h, width: Math.max(1, bw - 2),
      height: h, class: "bar" });
    bar.append(el("title", {}, `[${edges[first + i]}, ${edges[first + i + 1]}): ${c}`));
    svg.append(bar);
    if (cells <= 12 || i % Math.ceil(cells / 8) === 0) {
      svg.append(el("text", { x: f.x0 + i * bw + bw / 2, y: f.y0 + 15, class: "tick",
        "text-anchor": "middle" }, fmt(edges[first + i])));
    }
  });
  if (outside) {
    const h = (f.y0 - f.y1) * outside / ymax;
    svg.append(el("rect", { x: f.x1 - bw + 1, y: f.y0 - h, width: Math.max(1, bw - 2),
      height: h, class: "bar out" }));
    svg.append(el("text", { x: f.x1 - bw / 2, y: f.y0 + 15, class: "tick",
      "text-anchor": "middle" }, "≥" + fmt(edges[edges.length - 1])));
  }
}

// points: [{trial_index, offered_fraction, loss_ratio, valid}], bounds per frame size.
function searchChart(svg, points, bounds, pdrRatio) {
  const f = frame(svg);
  axes(svg, f, 0, 100);
  if (!points.length) { empty(svg, f, "no trials yet"); return; }
  const n = Math.max(...points.map((p) => p.trial_index)) + 1;
  const sx = (i) => f.x0 + (f.x1 - f.x0) * (i + 0.5) / Math.max(n, 1);
  const sy = (v) => f.y0 - (f.y0 - f.y1) * v;
  for (const b of bounds.slice(-1)) {
    for (const [v, cls] of [[b.ndr_lower, "ok"], [b.ndr_upper, "bad"]]) {
      if (v !== null) svg.append(el("line", { x1: f.x0, x2: f.x1, y1: sy(v), y2: sy(v),
        class: "bound " + cls }));
    }
  }
  for (const p of points) {
    const cls = !p.valid ? "inv" : p.loss_ratio === 0 ? "ok"
      : p.loss_ratio <= pdrRatio ? "pdr" : "bad";
    const dot = el("circle", { cx: sx(p.trial_index), cy: sy(p.offered_fraction), r: 4,
      class: "dot " + cls });
    dot.append(el("title", {}, `trial ${p.trial_index}: ${p.frame_size} B at ` +
      `${(p.offered_fraction * 100).toFixed(2)} %, loss ${(p.loss_ratio * 100).toFixed(3)} %`));
    svg.append(dot);
  }
  svg.append(el("text", { x: f.x0 + 4, y: f.y1 + 10, class: "tick" }, "% of line rate"));
  svg.append(el("text", { x: f.x1, y: f.y0 + 15, class: "tick", "text-anchor": "end" },
    `trial ${n - 1}`));
}
