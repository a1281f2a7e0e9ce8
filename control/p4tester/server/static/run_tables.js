// The tables built from a run's own record (GET /api/runs/{id}/trials, its trials.jsonl):
// the result card's trials, a ramp's or shape's steps, a soak's intervals, Y.1564's
// services. Read from the record, not the live counters, they are the same after a
// reload and for any past run.
"use strict";

function label(trial, key) {
  const found = (trial.labels || []).find(([k]) => k === key);
  return found ? found[1] : null;
}

const sum = (trial, key) => trial.streams.reduce((a, s) => a + s[key], 0);

// min / samples-weighted avg / max over the streams of a trial (as the report merges).
function mergedLatency(streams) {
  const lat = streams.map((s) => s.latency).filter((l) => l && l.samples > 0);
  if (!lat.length) return { min: null, avg: null, max: null };
  const samples = lat.reduce((a, l) => a + l.samples, 0);
  return { min: Math.min(...lat.map((l) => l.min_us)),
    avg: lat.reduce((a, l) => a + l.avg_us * l.samples, 0) / samples,
    max: Math.max(...lat.map((l) => l.max_us)) };
}

function table(head, rows) {
  return "<thead><tr>" + head.map((h) => `<th>${h}</th>`).join("") + "</tr></thead><tbody>" +
    rows.map((r) => "<tr>" + r.map((c) => `<td>${c}</td>`).join("") + "</tr>").join("") +
    "</tbody>";
}

function trialsTable(trials) {
  return table(["trial", "frame B", "load", "s", "TX", "RX", "loss", "lat min µs", "avg",
    "max", "valid"], trials.map((t) => {
    const lat = mergedLatency(t.streams);
    return [t.trial_index, t.frame_size, pct(t.offered_fraction), t.duration_s,
      sum(t, "tx_frames"), sum(t, "rx_frames"), pct(t.loss_ratio), us(lat.min), us(lat.avg),
      us(lat.max), t.valid ? "yes" : "no"];
  }));
}

// A ramp: one trial per step; the rate it was to send and what went out and came back.
function rampSteps(trials) {
  return table(["step", "load", "intended frames/s", "sent frames/s", "received frames/s",
    "loss"], trials.map((t) => [label(t, "ramp_step") ?? t.trial_index, pct(t.offered_fraction),
    fps(t.offered_pps), fps(sum(t, "tx_frames") / t.duration_s),
    fps(sum(t, "rx_frames") / t.duration_s), pct(t.loss_ratio)]));
}

// A shape: one trial, each shaped stream's steps inside it (results.model.RateStep).
function shapeSteps(trials) {
  const rows = [];
  for (const t of trials) {
    for (const s of t.streams) {
      for (const step of s.rate_course || []) {
        const lost = step.sent_pps > 0 && step.received_pps !== null ?
          Math.max(0, 1 - step.received_pps / step.sent_pps) : null;
        rows.push([s.stream_id, step.start_s.toFixed(2), step.duration_s.toFixed(2),
          fps(step.intended_pps), fps(step.sent_pps), fps(step.received_pps), pct(lost)]);
      }
    }
  }
  return table(["stream", "from s", "s", "intended frames/s", "sent frames/s",
    "received frames/s", "lost"], rows);
}

// A soak: one trial per interval, each starting where the one before ended.
function soakIntervals(trials) {
  let from = 0;
  return table(["interval", "from s", "s", "TX", "RX", "lost", "loss", "lat max µs"],
    trials.map((t) => {
      const row = [label(t, "soak_interval") ?? t.trial_index, from.toFixed(1), t.duration_s,
        sum(t, "tx_frames"), sum(t, "rx_frames"), t.lost, pct(t.loss_ratio),
        us(mergedLatency(t.streams).max)];
      from += t.duration_s;
      return row;
    }));
}

// Y.1564: each step of each service (the performance test: every service at once),
// figures of the service's own stream. services: /api/info's [{name, stream}].
function y1564Services(trials, services) {
  const streamOf = Object.fromEntries(services.map((s) => [s.name, s.stream]));
  const rows = [];
  for (const t of trials) {
    const step = label(t, "step") || "?";
    const share = label(t, "cir_share");
    for (const name of (label(t, "service") || "").split(",").filter(Boolean)) {
      const s = t.streams.find((x) => x.stream_id === streamOf[name]);
      if (!s) continue;
      // IR as Y.1564 counts it: frames delivered (never more than sent) at L2 size.
      const ir = Math.min(s.rx_frames, s.tx_frames) * s.frame_size * 8 / t.duration_s;
      rows.push([name, share ? `${step} ${(Number(share) * 100).toFixed(0)} %` : step,
        fps(s.tx_frames / t.duration_s), fps(s.rx_frames / t.duration_s),
        (ir / 1e6).toFixed(4), pct(s.loss_ratio),
        us(s.latency ? s.latency.avg_us : null), us(s.latency ? s.latency.max_us : null)]);
    }
  }
  return table(["service", "step", "sent frames/s", "received frames/s", "IR Mbit/s", "FLR",
    "delay avg µs", "max µs"], rows);
}
