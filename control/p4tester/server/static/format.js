// Numbers as the dashboard shows them, each to its precision (issue 43): latency in µs
// to 0.1, rates in frames/s to 1, shares as percentages to 0.01. Every table and
// caption goes through these, so a figure reads the same wherever it appears.
"use strict";

const missing = (v) => v === null || v === undefined || Number.isNaN(v);

function us(v) { return missing(v) ? "–" : v.toFixed(1); }

function fps(v) { return missing(v) ? "–" : Math.round(v).toString(); }

function pct(ratio) { return missing(ratio) ? "–" : (ratio * 100).toFixed(2) + " %"; }

function count(v) { return missing(v) ? "–" : String(v); }

// Wall time for a person: "42 s", "3 min 05 s", "2 h 07 min".
function duration(s) {
  if (missing(s)) return "–";
  const whole = Math.round(s);
  if (whole < 60) return `${whole} s`;
  const min = Math.floor(whole / 60), sec = whole % 60;
  if (min < 60) return `${min} min ${String(sec).padStart(2, "0")} s`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, "0")} min`;
}
