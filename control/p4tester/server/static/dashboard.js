// The dashboard: a form built from /api/experiments, live figures from /api/live
// (Server-Sent Events), the run's progress, past runs. No framework: see pages.py.
//
// Two sources, each for its own figures: the live counters (charts, Counters panel)
// come from the switch over the current trial; everything about a run (its trial
// count, steps, intervals, services, search bounds, result) comes from the run's own
// record through the API, so it reads the same live, after a reload and for a past run.
"use strict";

const WINDOW_S = 120;
const $ = (id) => document.getElementById(id);
const ACTIVE = ["running", "stopping"];
const state = { info: null, experiments: [], history: [], lastRun: null,
  // The run the kind panels and the result card show: the live one, or a past one
  // clicked in "Past runs"; `seen` is what they were last built from.
  shown: null, seen: "", search: null };

function token() { return $("token").value.trim(); }

async function api(method, path, body) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && token()) headers["Authorization"] = "Bearer " + token();
  const res = await fetch(path, { method, headers,
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (res.status === 401) {
    // Said to the person at the page: where the token goes (the API's own detail
    // speaks to API clients).
    $("token").classList.add("needed");
    $("token").focus();
    throw new Error(data.browser || data.detail);
  }
  if (!res.ok) {
    const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
    const err = new Error(`${res.status}: ${detail}`);
    // A bad value of one option: the server names it, the page says it by its field.
    if (data.option) Object.assign(err, { option: data.option, detail });
    throw err;
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

// The CLI's message for a refused option, under its field (cleared on the next try or
// when the field changes).
function clearFieldErrors() {
  for (const e of $("options").querySelectorAll(".field-error")) e.remove();
  for (const e of $("options").querySelectorAll(".refused")) e.classList.remove("refused");
}

function showFieldError(option, detail) {
  const input = $("options").querySelector(`[data-option="${option}"]`);
  if (!input) return false;
  const note = document.createElement("span");
  note.className = "field-error warn";
  note.dataset.errorFor = option;
  note.textContent = detail;
  input.classList.add("refused");
  input.after(note);
  input.addEventListener("input", clearFieldErrors, { once: true });
  return true;
}

async function start(event) {
  event.preventDefault();
  clearFieldErrors();
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    if (input.value.trim() !== "") options[input.dataset.option] = input.value.trim();
  }
  sessionStorage.setItem("p4tester-token", token());
  // Hidden as the run is asked for, not once the answer comes: a short run (a simulated
  // scan of two 0.5-s trials on a busy host) ended and showed its result before that.
  const hadResult = !$("result-card").hidden;
  $("result-card").hidden = true;
  try {
    const data = await api("POST", "/api/runs", { experiment: $("experiment").value, options });
    $("token").classList.remove("needed");
    say(`started ${data.progress.run_id}`);
  } catch (err) {
    if (hadResult) $("result-card").hidden = false;
    if (err.option && showFieldError(err.option, err.detail)) {
      say(`${err.message.split(":")[0]}: --${err.option} refused, see the field`, true);
    } else {
      say(err.message, true);
    }
  }
}

async function stop() {
  sessionStorage.setItem("p4tester-token", token());
  try {
    await api("POST", "/api/current/stop");
    say("stopping after the current trial");
  } catch (err) { say(err.message, true); }
}

function showProgress(p) {
  if (!p) { $("progress").textContent = "no run yet"; return; }
  const cur = p.current;
  const out = p.outlook || {};
  const rows = [
    ["run", `<a href="/runs/${p.run_id}">${p.run_id}</a>`],
    ["state", `<span class="state ${p.state}" id="run-state">${p.state}</span>`],
    ["elapsed", `<span id="elapsed">${duration(p.elapsed_s)}</span>`],
    ["trials done", `<span id="trials-done">${p.trials_done}</span>`],
    ["plan", `<span id="plan">${asText(out.text || "")}</span>`],
    ["left", `<span id="left">${ACTIVE.includes(p.state) && out.left_s !== null ?
      "about " + duration(out.left_s) : "–"}</span>`],
    ["current trial", `<span id="current-trial">${cur ? `#${cur.trial_index}: ` +
      `${cur.frame_size} B at ${pct(cur.offered_fraction)} (${fps(cur.offered_pps)} ` +
      `frames/s), ${cur.duration_s} s` : "–"}</span>`],
  ];
  // Messages carry exception text and file names: shown as text, never as markup.
  if (p.message) rows.push(["message", asText(p.message)]);
  for (const warning of p.warnings || []) rows.push(["warning", asText(warning)]);
  $("progress").innerHTML = "<table class=\"small\">" + rows.map(([k, v]) =>
    `<tr><th>${k}</th><td>${v}</td></tr>`).join("") + "</table>";
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
  return bound ? "≥ " + us(s[key]) : us(s[key]);
}

function showCounters(doc) {
  const head = "<thead><tr><th>stream</th><th>TX</th><th>RX</th><th>gaps</th><th>reordered" +
    "</th><th>dup</th><th>lat min µs</th><th>avg</th><th>max</th><th>p50</th><th>p99</th>" +
    "</tr></thead>";
  $("counters").innerHTML = head + "<tbody>" + doc.streams.map((s) =>
    `<tr><td>${s.stream} (${s.tx_port}→${s.rx_port})</td><td>${s.tx_frames}</td>` +
    `<td>${s.rx_frames}</td><td>${s.lost_in_gaps ?? "–"}</td><td>${s.reordered}</td>` +
    `<td>${s.duplicates}</td><td>${us(s.latency_min_us)}</td><td>${us(s.latency_avg_us)}</td>` +
    `<td>${us(s.latency_max_us)}</td><td>${percentile(s, "latency_p50_us")}</td>` +
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
  // The time axis grows with what the page has seen (at least 10 s, at most the
  // window kept): a short run fills the chart instead of a sliver at its right edge.
  const seen = doc.time - state.history[0].time;
  const span = Math.min(WINDOW_S, Math.max(10, Math.ceil(seen)));
  lineChart($("chart-rate"), [{ name: "TX", cls: "tx", points: r.tx },
    { name: "RX (dashed)", cls: "rx", points: r.rx }], span);
  lineChart($("chart-loss"), [{ name: "lost", cls: "lost", points: r.lost }], span);
  const lat = (key) => state.history.map((d) => {
    const s = streamReading(d); return [d.time, s ? s[key] : null]; });
  lineChart($("chart-latency"), [{ name: "min", cls: "min", points: lat("latency_min_us") },
    { name: "avg", cls: "avg", points: lat("latency_avg_us") },
    { name: "max", cls: "max", points: lat("latency_max_us") }], span);
  const s = streamReading(doc);
  if (s) {
    const beyond = (s.latency_lower_bounds || []).length ?
      ` (${s.latency_beyond_histogram} samples at or above the last bin edge)` : "";
    $("percentiles").textContent = `min ${us(s.latency_min_us)} · p50 ` +
      `${percentile(s, "latency_p50_us")} · p99 ${percentile(s, "latency_p99_us")} · p99.9 ` +
      `${percentile(s, "latency_p999_us")} · max ${us(s.latency_max_us)} µs` + beyond;
    const h = s.latency_histogram_us, q = s.queue_depth_frames;
    barChart($("chart-histogram"), h.edges, h.counts, h.outside);
    barChart($("chart-queue"), q.edges, q.counts, q.outside);
  }
  if (state.search) {
    searchChart($("chart-search"), state.search.points, state.search.bounds,
      state.info ? state.info.pdr_loss_ratio : 0);
  }
}

// ---- the shown run: its kind's panels and result, from its record -------------------
function showPanels(experiment) {
  for (const panel of document.querySelectorAll("[data-kinds]")) {
    panel.hidden = !experiment || !panel.dataset.kinds.split(" ").includes(experiment);
  }
  for (const el of document.querySelectorAll(".shown-run")) {
    el.textContent = state.shown ? state.shown.run_id : "";
  }
}

function showSearch(search) {
  state.search = search;
  searchChart($("chart-search"), search.points, search.bounds,
    state.info ? state.info.pdr_loss_ratio : 0);
  $("bounds").innerHTML = "<thead><tr><th>frame B</th><th>NDR ≥</th><th>NDR &lt;</th>" +
    "<th>PDR ≥</th><th>PDR &lt;</th></tr></thead><tbody>" + search.bounds.map((b) =>
    `<tr><td>${b.frame_size}</td><td>${pct(b.ndr_lower)}</td><td>${pct(b.ndr_upper)}</td>` +
    `<td>${pct(b.pdr_lower)}</td><td>${pct(b.pdr_upper)}</td></tr>`).join("") + "</tbody>";
}

async function showResult(run, trials) {
  $("result-link").href = `/runs/${run.run_id}`;
  $("result-run").textContent = run.run_id;
  const summary = await fetch(`/api/runs/${run.run_id}/files/summary.json`);
  const doc = summary.ok ? await summary.json() : {};
  const confidence = doc.confidence ? doc.confidence.text : "";
  $("result-state").textContent = `${run.experiment}, ${run.state}, ${run.trials} trials` +
    (run.stopped ? ` (${run.stopped})` : "") + (confidence ? `; ${confidence}` : "");
  const text = await fetch(`/api/runs/${run.run_id}/files/result.txt`);
  $("result-text").textContent = text.ok ? await text.text() : "";
  $("result-table").innerHTML = trialsTable(trials);
  $("result-card").hidden = false;
}

// Rebuilds the shown run's panels when its record changed (a trial more, an end).
async function refreshShown() {
  const shown = state.shown;
  if (!shown) { showPanels(null); return; }
  const run = await api("GET", `/api/runs/${shown.run_id}`);
  const key = `${run.run_id}/${run.trials}/${run.state}`;
  if (key === state.seen) return;
  state.seen = key;
  showPanels(run.experiment);
  const trials = await api("GET", `/api/runs/${run.run_id}/trials`);
  if (["throughput", "rfc2889"].includes(run.experiment)) {
    showSearch(await api("GET", `/api/runs/${run.run_id}/search`));
  }
  $("steps").innerHTML = run.experiment === "shape" ? shapeSteps(trials) : rampSteps(trials);
  $("intervals").innerHTML = soakIntervals(trials);
  $("services").innerHTML = y1564Services(trials, state.info.services);
  if (ACTIVE.includes(run.state)) $("result-card").hidden = true;
  else await showResult(run, trials);
}

function show(runId) {
  state.shown = { run_id: runId };
  state.seen = "";
  refreshShown().catch((err) => say(err.message, true));
}

async function loadRuns() {
  const runs = await api("GET", "/api/runs");
  const latest = state.history.length ? state.history[state.history.length - 1].progress : null;
  $("runs").querySelector("tbody").innerHTML = runs.slice(0, 15).map((r) =>
    `<tr><td><a href="/runs/${r.run_id}" class="show-run" data-run="${r.run_id}">` +
    `${r.run_id}</a></td><td><span class="state ${r.state}">${r.state}</span></td>` +
    `<td class="run-trials">${r.trials}</td></tr>`).join("");
  if (latest) showListedCount(latest);
  return runs;
}

// The running run's row in "Past runs" takes its count and state from the same live
// document as "Progress" (the server reads both from the run's trials.jsonl), so the
// two never disagree, not even between two fetches of the list.
function showListedCount(p) {
  const link = $("runs").querySelector(`a.show-run[data-run="${p.run_id}"]`);
  if (!link) return;
  const row = link.closest("tr");
  row.querySelector(".run-trials").textContent = p.trials_done;
  row.querySelector(".state").textContent = p.state;
  row.querySelector(".state").className = `state ${p.state}`;
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
  if (state.info) showReceivers(state.info, doc);
  // Every panel but the rates says the window its figures cover (the same for all).
  document.querySelectorAll(".scope").forEach((el) => { el.textContent = doc.scope; });
  showProgress(doc.progress);
  draw();
  const p = doc.progress;
  if (!p) return;
  showListedCount(p);
  const changed = `${p.run_id}/${p.trials_done}/${p.state}` !== state.lastRun;
  const newRun = !state.lastRun || !state.lastRun.startsWith(`${p.run_id}/`);
  // A run going on takes over the panels, and so does one that started and ended
  // between two live events; once it ends they stay on it until a past run is clicked.
  if ((ACTIVE.includes(p.state) || newRun) &&
      (!state.shown || state.shown.run_id !== p.run_id)) {
    show(p.run_id);
  } else if (changed && state.shown && state.shown.run_id === p.run_id) {
    refreshShown().catch((err) => say(err.message, true));
  }
  if (changed) loadRuns().catch((err) => say(err.message, true));
  state.lastRun = `${p.run_id}/${p.trials_done}/${p.state}`;
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
  $("runs").addEventListener("click", (event) => {
    const link = event.target.closest(".show-run");
    if (!link) return;
    event.preventDefault();  // the card here; its "run page" link opens the page
    show(link.dataset.run);
  });
  buildForm();
  const runs = await loadRuns();
  // After a reload: the newest run's panels and result, from its record.
  if (runs.length && !state.shown) show(runs[0].run_id);
  else showPanels(null);
  const source = new EventSource("/api/live?interval=0.5");
  source.onmessage = onLive;
  source.onerror = () => { $("live-state").textContent = "reconnecting…"; };
  window.addEventListener("resize", draw);
}

init().catch((err) => say(err.message, true));
