// The dashboard: a form built from /api/experiments, live figures from /api/live
// (Server-Sent Events), the run's progress, past runs. No framework: see pages.py.
"use strict";

const WINDOW_S = 120;
const $ = (id) => document.getElementById(id);
const state = { info: null, experiments: [], history: [], lastState: null, lastRun: null };

function token() { return $("token").value.trim(); }

async function api(method, path, body) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && token()) headers["Authorization"] = "Bearer " + token();
  const res = await fetch(path, { method, headers,
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
    throw new Error(`${res.status}: ${detail}`);
  }
  return data;
}

function asText(text) {
  const cell = document.createElement("span");
  cell.textContent = text;
  return cell.innerHTML;
}

function say(text, bad) {
  $("message").textContent = text;
  $("message").className = bad ? "warn" : "muted";
}

function buildForm() {
  const exp = state.experiments.find((e) => e.name === $("experiment").value);
  $("experiment-summary").textContent = exp ? exp.summary : "";
  const box = $("options");
  box.replaceChildren();
  for (const o of exp ? exp.options : []) {
    const label = document.createElement("label");
    label.textContent = o.name + (o.required ? " *" : "");
    label.title = o.help;
    let input;
    if (o.choices) {
      input = document.createElement("select");
      input.append(new Option("(profile's)", ""));
      for (const c of o.choices) input.append(new Option(c, c));
    } else {
      input = document.createElement("input");
      input.placeholder = o.default !== null ? o.default : (o.help || "");
    }
    input.name = o.name;
    input.dataset.option = o.name;
    if (o.required) input.required = true;
    label.append(input);
    box.append(label);
  }
}

async function start(event) {
  event.preventDefault();
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    if (input.value.trim() !== "") options[input.dataset.option] = input.value.trim();
  }
  sessionStorage.setItem("p4tester-token", token());
  try {
    const data = await api("POST", "/api/runs", { experiment: $("experiment").value, options });
    say(`started ${data.progress.run_id}`);
    $("result-card").hidden = true;
    state.lastState = "running";
  } catch (err) { say(err.message, true); }
}

async function stop() {
  sessionStorage.setItem("p4tester-token", token());
  try {
    await api("POST", "/api/current/stop");
    say("stopping after the current trial");
  } catch (err) { say(err.message, true); }
}

function pct(v) { return v === null || v === undefined ? "–" : (v * 100).toFixed(2) + " %"; }

function showProgress(p) {
  if (!p) { $("progress").textContent = "no run yet"; return; }
  const cur = p.current;
  const rows = [
    ["run", `<a href="/runs/${p.run_id}">${p.run_id}</a>`],
    ["state", `<span class="state ${p.state}" id="run-state">${p.state}</span>`],
    ["trials done", `<span id="trials-done">${p.trials_done}</span>`],
    ["current trial", cur ? `#${cur.trial_index}: ${cur.frame_size} B at ` +
      `${pct(cur.offered_fraction)} (${fmt(cur.offered_pps)} frames/s), ${cur.duration_s} s`
      : "–"],
  ];
  // Messages carry exception text and file names: shown as text, never as markup.
  if (p.message) rows.push(["message", asText(p.message)]);
  for (const warning of p.warnings || []) rows.push(["warning", asText(warning)]);
  let html = "<table class=\"small\">" + rows.map(([k, v]) =>
    `<tr><th>${k}</th><td>${v}</td></tr>`).join("") + "</table>";
  if (p.bounds.length) {
    html += "<table class=\"num small\"><thead><tr><th>frame B</th><th>NDR ≥</th><th>NDR &lt;" +
      "</th><th>PDR ≥</th><th>PDR &lt;</th></tr></thead><tbody>" + p.bounds.map((b) =>
      `<tr><td>${b.frame_size}</td><td>${pct(b.ndr_lower)}</td><td>${pct(b.ndr_upper)}</td>` +
      `<td>${pct(b.pdr_lower)}</td><td>${pct(b.pdr_upper)}</td></tr>`).join("") +
      "</tbody></table>";
  }
  $("progress").innerHTML = html;
}

function streamReading(doc) {
  // The picker's value is "stream:rx port": a stream received on several ports has a
  // reading per port.
  const [id, port] = $("stream").value.split(":").map(Number);
  return doc.streams.find((s) => s.stream === id && s.rx_port === port) || doc.streams[0];
}

function rates() {
  // Frames/s from consecutive readings of the selected stream's counters since the
  // switch started (the other figures start again with each trial).
  const out = { tx: [], rx: [], lost: [] };
  for (let i = 1; i < state.history.length; i++) {
    const a = state.history[i - 1], b = state.history[i];
    const sa = streamReading(a), sb = streamReading(b);
    if (!sa || !sb) continue;
    // The simulated switch runs faster than the wall clock: its own clock gives rates.
    const simulated = b.sim_time_s !== null && a.sim_time_s !== null;
    const dt = simulated ? b.sim_time_s - a.sim_time_s : b.time - a.time;
    const idle = dt <= 0;
    const tx = idle ? 0 : (sb.total_tx_frames - sa.total_tx_frames) / dt;
    const rx = idle ? 0 : (sb.total_rx_frames - sa.total_rx_frames) / dt;
    out.tx.push([b.time, tx]); out.rx.push([b.time, rx]);
    out.lost.push([b.time, Math.max(0, tx - rx)]);
  }
  return out;
}

// A percentile of a live stream: "≥ edge" when its rank lies beyond the histogram's last
// edge, where only that lower bound is known (the document lists such keys).
function percentile(s, key) {
  const bound = (s.latency_lower_bounds || []).includes(key);
  return bound ? "≥ " + fmt(s[key]) : fmt(s[key]);
}

function showCounters(doc) {
  const head = "<thead><tr><th>stream</th><th>TX</th><th>RX</th><th>gaps</th><th>reordered" +
    "</th><th>dup</th><th>lat min µs</th><th>avg</th><th>max</th><th>p50</th><th>p99</th>" +
    "</tr></thead>";
  $("counters").innerHTML = head + "<tbody>" + doc.streams.map((s) =>
    `<tr><td>${s.stream} (${s.tx_port}→${s.rx_port})</td><td>${s.tx_frames}</td>` +
    `<td>${s.rx_frames}</td><td>${s.lost_in_gaps ?? "–"}</td><td>${s.reordered}</td>` +
    `<td>${s.duplicates}</td><td>${fmt(s.latency_min_us)}</td><td>${fmt(s.latency_avg_us)}</td>` +
    `<td>${fmt(s.latency_max_us)}</td><td>${percentile(s, "latency_p50_us")}</td>` +
    `<td>${percentile(s, "latency_p99_us")}</td></tr>`).join("") + "</tbody>";
  $("ports").innerHTML = "<thead><tr><th>port</th><th>RX frames</th><th>RX bytes</th>" +
    "<th>TX frames</th><th>TX bytes</th></tr></thead><tbody>" + doc.ports.map((p) =>
    `<tr><td>${p.port}</td><td>${p.rx_frames}</td><td>${p.rx_bytes}</td>` +
    `<td>${p.tx_frames}</td><td>${p.tx_bytes}</td></tr>`).join("") + "</tbody>";
}

function draw() {
  const doc = state.history[state.history.length - 1];
  if (!doc) return;
  const r = rates();
  lineChart($("chart-rate"), [{ name: "TX", cls: "tx", points: r.tx },
    { name: "RX", cls: "rx", points: r.rx }], WINDOW_S);
  lineChart($("chart-loss"), [{ name: "lost", cls: "lost", points: r.lost }], WINDOW_S);
  const lat = (key) => state.history.map((d) => {
    const s = streamReading(d); return [d.time, s ? s[key] : null]; });
  lineChart($("chart-latency"), [{ name: "min", cls: "min", points: lat("latency_min_us") },
    { name: "avg", cls: "avg", points: lat("latency_avg_us") },
    { name: "max", cls: "max", points: lat("latency_max_us") }], WINDOW_S);
  const s = streamReading(doc);
  if (s) {
    const beyond = (s.latency_lower_bounds || []).length ?
      ` (${s.latency_beyond_histogram} samples at or above the last bin edge)` : "";
    $("percentiles").textContent = `p50 ${percentile(s, "latency_p50_us")} · p99 ` +
      `${percentile(s, "latency_p99_us")} · p99.9 ${percentile(s, "latency_p999_us")} µs` +
      beyond;
    const h = s.latency_histogram_us, q = s.queue_depth_frames;
    barChart($("chart-histogram"), h.edges, h.counts, h.outside);
    barChart($("chart-queue"), q.edges, q.counts, q.outside);
  }
  const p = doc.progress;
  searchChart($("chart-search"), p ? p.points : [], p ? p.bounds : [],
    state.info ? state.info.pdr_loss_ratio : 0);
}

async function showResult(runId) {
  $("result-link").href = `/runs/${runId}`;
  try {
    const res = await fetch(`/api/runs/${runId}/files/result.txt`);
    $("result-text").textContent = res.ok ? await res.text() : "";
    const trials = await api("GET", `/api/runs/${runId}/trials`);
    $("result-table").innerHTML = "<thead><tr><th>trial</th><th>frame B</th><th>load</th>" +
      "<th>s</th><th>TX</th><th>RX</th><th>loss</th><th>valid</th></tr></thead><tbody>" +
      trials.map((t) => `<tr><td>${t.trial_index}</td><td>${t.frame_size}</td>` +
        `<td>${pct(t.offered_fraction)}</td><td>${t.duration_s}</td>` +
        `<td>${t.streams.reduce((a, s) => a + s.tx_frames, 0)}</td>` +
        `<td>${t.streams.reduce((a, s) => a + s.rx_frames, 0)}</td>` +
        `<td>${(t.loss_ratio * 100).toFixed(3)} %</td><td>${t.valid ? "yes" : "no"}</td></tr>`)
        .join("") + "</tbody>";
    $("result-card").hidden = false;
  } catch (err) { say(err.message, true); }
}

async function loadRuns() {
  const runs = await api("GET", "/api/runs");
  $("runs").querySelector("tbody").innerHTML = runs.slice(0, 15).map((r) =>
    `<tr><td><a href="/runs/${r.run_id}">${r.run_id}</a></td>` +
    `<td><span class="state ${r.state}">${r.state}</span></td><td>${r.trials}</td></tr>`).join("");
}

function onLive(event) {
  const doc = JSON.parse(event.data);
  state.history.push(doc);
  while (state.history.length && doc.time - state.history[0].time > WINDOW_S + 5) {
    state.history.shift();
  }
  $("live-state").textContent = doc.error ? doc.error : "live";
  $("live-state").className = doc.error ? "warn" : "muted";
  showCounters(doc);
  // Every panel but the rates says the window its figures cover (the same for all).
  document.querySelectorAll(".scope").forEach((el) => { el.textContent = doc.scope; });
  showProgress(doc.progress);
  draw();
  const p = doc.progress;
  if (p) {
    const ended = !["running", "stopping"].includes(p.state);
    if (ended && state.lastState !== null && ["running", "stopping"].includes(state.lastState)) {
      showResult(p.run_id);
      loadRuns();
    }
    if (p.run_id !== state.lastRun) loadRuns();
    state.lastState = p.state;
    state.lastRun = p.run_id;
  }
}

async function init() {
  $("token").value = sessionStorage.getItem("p4tester-token") || "";
  state.info = await api("GET", "/api/info");
  state.experiments = await api("GET", "/api/experiments");
  for (const e of state.experiments) $("experiment").append(new Option(e.name, e.name));
  for (const s of state.info.streams) {
    for (const port of s.rx_ports) {
      $("stream").append(new Option(`${s.stream} (${s.tx_port}→${port})`, `${s.stream}:${port}`));
    }
  }
  $("experiment").addEventListener("change", buildForm);
  $("start-form").addEventListener("submit", start);
  $("stop").addEventListener("click", stop);
  $("stream").addEventListener("change", draw);
  buildForm();
  loadRuns();
  const source = new EventSource("/api/live?interval=0.5");
  source.onmessage = onLive;
  source.onerror = () => { $("live-state").textContent = "reconnecting…"; };
  window.addEventListener("resize", draw);
}

init().catch((err) => say(err.message, true));
