"""Server-rendered HTML: the dashboard shell (its live parts are static/dashboard.js)
and a page per past run.

Why no front-end build: the pages are a handful of cards, tables and SVG charts; a
framework would bring a toolchain, a lock file and a built bundle to keep in step for
what ~400 lines of plain JS do. Everything is served from here: no CDN, no web
fonts (the system font stack), so the dashboard works on an isolated lab network.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from html import escape
from typing import Final

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology

from .precision import format_cell
from .runs import RunInfo

_MAX_TABLE_ROWS: Final = 500


def _head(title: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)}</title><link rel="icon" href="data:,">'
            f'<link rel="stylesheet" href="/static/dashboard.css"></head>')


def _header(topology: Topology, profile: Profile | None, simulated: bool) -> str:
    badge = '<span class="badge sim">simulated switch</span>' if simulated else ""
    if topology.testers:
        # Several testers: which ports each one has.
        what = f"topology <b>{escape(topology.name)}</b>, testers " + ", ".join(
            f"{escape(t.name)} ({escape(t.switch.target)}, ports "
            + ", ".join(str(p.number) for p in topology.ports if p.tester == t.name) + ")"
            for t in topology.testers)
    else:
        what = (f"topology <b>{escape(topology.name)}</b>, target "
                f"{escape(topology.switch.target)} at {escape(topology.switch.grpc)}")
    if profile is not None:
        what += f", profile <b>{escape(profile.name)}</b>"
    return (f'<header><h1><a href="/">p4tester</a></h1><span class="what">{what}</span>'
            f'{badge}<nav><a href="/docs">API docs</a> <a href="/metrics">metrics</a></nav>'
            f'</header>')


def _sim_tag(simulated: bool) -> str:
    """Said on every panel the simulated switch feeds: none of it is a real device."""
    return ' <span class="sim-tag">simulated switch</span>' if simulated else ""


def _dut_card(dut_text: str | None) -> str:
    if dut_text is None:
        return ""
    return (f'<div class="card" id="dut-card"><h2>Simulated DUT</h2>'
            f'<p id="dut-text">{escape(dut_text)}</p></div>')


def dashboard(topology: Topology, profile: Profile, simulated: bool,
              dut_text: str | None = None) -> str:
    """`dut_text`: what the simulated DUT does (simulated.describe_dut), said on the page."""
    sim = _sim_tag(simulated)
    return f"""{_head("p4tester dashboard")}<body>
{_header(topology, profile, simulated)}
<main class="dash">
<section class="side">
  <div class="card" id="run-card"><h2>Run an experiment</h2>
    <form id="start-form">
      <label>experiment <select id="experiment"></select></label>
      <p class="summary" id="experiment-summary"></p>
      <div id="options"></div>
      <label>token <input id="token" type="password" autocomplete="off"
        placeholder="paste the token p4tester serve printed"></label>
      <div class="buttons"><button type="submit" id="start">Start</button>
        <button type="button" id="stop">Stop</button></div>
      <p id="message" role="status"></p>
    </form></div>
  <div class="card"><h2>Progress</h2><div id="progress">no run yet</div></div>
  <div class="card"><h2>Past runs</h2><table id="runs" class="small"><thead><tr>
    <th>run</th><th>state</th><th>trials</th></tr></thead><tbody></tbody></table></div>
  {_dut_card(dut_text)}
</section>
<section class="charts">
  <div class="toolbar">stream <select id="stream"></select>
    <span id="live-state" class="muted">connecting…</span></div>
  <div class="grid">
    <figure><figcaption>TX / RX rate (frames/s){sim}</figcaption><svg id="chart-rate"></svg>
    </figure>
    <figure><figcaption>Loss (frames/s lost: TX - RX){sim}</figcaption>
      <svg id="chart-loss"></svg></figure>
    <figure><figcaption>Latency min / avg / max (µs, <span class="scope"></span>){sim}
      <span id="percentiles" class="muted"></span></figcaption><svg id="chart-latency"></svg>
    </figure>
    <figure><figcaption>Latency histogram (µs, switch bins, <span class="scope"></span>){sim}
      </figcaption>
      <svg id="chart-histogram"></svg></figure>
    <figure><figcaption>DUT queue depth (frames, <span class="scope"></span>){sim}</figcaption>
      <svg id="chart-queue"></svg>
    </figure>
    <figure id="search-panel" data-kinds="throughput rfc2889" hidden><figcaption>Search:
      trial load vs loss{sim}
      <span class="key"><i class="ok"></i>no loss <i class="pdr"></i>≤ PDR ratio
      <i class="bad"></i>above <i class="inv"></i>invalid</span></figcaption>
      <svg id="chart-search"></svg><table id="bounds" class="num small"></table></figure>
  </div>
  <div class="card"><h2>Counters <span class="scope muted"></span>{sim}</h2>
    <table id="counters" class="num"></table>
    <table id="ports" class="num"></table></div>
  <div class="card" id="receivers-card" hidden>
    <h2>Per RX port <span class="scope muted"></span>{sim}</h2>
    <div class="scroll"><table id="receivers" class="num small"></table></div>
    <p id="receivers-notes" class="muted"></p></div>
  <div class="card" id="steps-card" data-kinds="ramp shape" hidden>
    <h2>Steps of <span class="shown-run"></span>{sim}</h2>
    <div class="scroll"><table id="steps" class="num small"></table></div></div>
  <div class="card" id="intervals-card" data-kinds="soak" hidden>
    <h2>Intervals of <span class="shown-run"></span>{sim}</h2>
    <div class="scroll"><table id="intervals" class="num small"></table></div></div>
  <div class="card" id="services-card" data-kinds="y1564" hidden>
    <h2>Services of <span class="shown-run"></span>{sim}</h2>
    <div class="scroll"><table id="services" class="num small"></table></div></div>
  <div class="card" id="result-card" hidden><h2>Result of <span id="result-run"></span>{sim}
    <a id="result-link" href="#">run page</a></h2><p id="result-state" class="muted"></p>
    <pre id="result-text"></pre>
    <div class="scroll"><table id="result-table" class="num small"></table></div></div>
</section>
</main>
<script src="/static/charts.js"></script>
<script src="/static/format.js"></script>
<script src="/static/run_tables.js"></script>
<script src="/static/receivers.js"></script>
<script src="/static/dashboard.js"></script>
</body></html>"""


def _csv_table(text: str) -> str:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return "<p>no trials</p>"
    columns = rows[0]
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(format_cell(column, c))}</td>"
                                    for column, c in zip(columns, row, strict=False))
                   + "</tr>" for row in rows[1:_MAX_TABLE_ROWS + 1])
    more = (f"<p>{len(rows) - 1 - _MAX_TABLE_ROWS} more rows in trials.csv</p>"
            if len(rows) - 1 > _MAX_TABLE_ROWS else "")
    return f'<div class="scroll"><table class="num small"><thead><tr>{head}</tr></thead>' \
           f"<tbody>{body}</tbody></table></div>{more}"


def run_page(info: RunInfo, result_text: str, trials_csv: str) -> str:
    base = f"/api/runs/{escape(info.run_id)}/files/"
    started = datetime.fromtimestamp(info.started_at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    files = "".join(f'<li><a href="{base}{escape(f.name)}">{escape(f.name)}</a> '
                    f'<span class="muted">{f.size_bytes} B</span></li>' for f in info.files)
    plots = "".join(f'<figure><img src="{base}{escape(f.name)}" alt="{escape(f.name)}">'
                    f"<figcaption>{escape(f.name)}</figcaption></figure>"
                    for f in info.files if f.media_type == "image/png")
    stopped = f'<p class="warn">{escape(info.stopped)}</p>' if info.stopped else ""
    return f"""{_head(f"p4tester run {info.run_id}")}<body>
<header><h1><a href="/">p4tester</a></h1><span class="what">run <b>{escape(info.run_id)}</b>
</span></header>
<main class="page">
<div class="card"><h2>{escape(info.experiment)} — {escape(info.state.value)}</h2>
<p>started {started}; profile {escape(info.profile)}, topology {escape(info.topology)};
{info.trials} trials, {info.invalid_trials} invalid</p>{stopped}
<pre id="result-text">{escape(result_text)}</pre></div>
<div class="card plots">{plots or "<p>no plots</p>"}</div>
<div class="card"><h2>Trials</h2>{_csv_table(trials_csv)}</div>
<div class="card"><h2>Files</h2><ul>{files}</ul></div>
</main></body></html>"""
