// Streams received on several ports (a replicated or spread stream): each RX port's
// frames, loss and share, from the live readings (one per stream and RX port), so they
// cover the same trial as the Counters panel beside them. As `results.tables
// .receivers_table` reports them: a replicated stream is due every frame on every
// port, so each port has a loss; a spread stream's frame is due once, on any port, so
// a port has a share of what came back and only the stream has a loss.
"use strict";

// info: /api/info (its streams' rx_ports and receive); doc: one live document.
function receiverRows(info, doc) {
  const rows = [], notes = [];
  for (const stream of info.streams.filter((s) => s.receive)) {
    const readings = stream.rx_ports.map((port) =>
      doc.streams.find((r) => r.stream === stream.stream && r.rx_port === port));
    if (readings.some((r) => !r)) continue;
    const tx = readings[0].tx_frames;  // the stream's TX, the same on every port's reading
    const rx = readings.reduce((a, r) => a + r.rx_frames, 0);
    const replicated = stream.receive === "replicate";
    for (const r of readings) {
      const lost = replicated ? Math.max(tx - r.rx_frames, 0) : null;
      rows.push([stream.stream, stream.receive, r.rx_port, count(tx), count(r.rx_frames),
        count(lost), replicated ? pct(tx ? lost / tx : 0) : "–",
        replicated || !rx ? "–" : pct(r.rx_frames / rx)]);
    }
    if (replicated) {
      const due = tx * readings.length;
      const lost = readings.reduce((a, r) => a + Math.max(tx - r.rx_frames, 0), 0);
      notes.push(`stream ${stream.stream}: replicated to ${readings.length} ports, ${due} ` +
        `frames due, ${lost} lost (${pct(due ? lost / due : 0)})`);
    } else {
      const counts = readings.map((r) => r.rx_frames);
      const least = Math.min(...counts);
      const balance = !rx ? "–" : least ? (Math.max(...counts) / least).toFixed(3) : "∞";
      notes.push(`stream ${stream.stream}: spread over ${readings.length} ports, ` +
        `${Math.max(tx - rx, 0)} lost over all ports; balance (most / least loaded port) ` +
        `${balance}`);
    }
  }
  return { rows, notes };
}

function showReceivers(info, doc) {
  const card = $("receivers-card");
  card.hidden = !info.streams.some((s) => s.receive);
  if (card.hidden) return;
  const { rows, notes } = receiverRows(info, doc);
  $("receivers").innerHTML = table(["stream", "receive", "RX port", "TX", "RX frames", "lost",
    "loss", "share"], rows);
  $("receivers-notes").textContent = notes.join("\n");
}
