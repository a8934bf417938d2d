// The reports view: the team's counts and median times per day over a period, as charts (SVG
// drawn here, no library) and as a table, from GET /v1/reports/conversations; the same rows
// downloaded as CSV.

import { ApiError, get, withQuery } from "./api.js";
import { alertError, byId, el, fill } from "./dom.js";
import { showView } from "./views.js";

const PATH = "/v1/reports/conversations";
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 400;
const HEIGHT = 170;
const PAD = { left: 44, right: 6, top: 12, bottom: 18 };

/** The agent's last day as the server gave it: periods end there. */
let lastDay = null;

export function init() {
  byId("report-period").addEventListener("change", () => load().catch(alertError));
  byId("report-csv").addEventListener("click", () => downloadCsv().catch(alertError));
}

/** Shows the view in place of the conversation panes, and loads it. */
export async function show() {
  showView("reports");
  byId("reports-heading").focus();
  await load();
}

/** The period chosen: `from` so many days before the agent's last day (`to`). */
function period() {
  const days = Number(byId("report-period").value);
  const to = new Date(`${lastDay}T00:00:00Z`);
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  return { from: from.toISOString().slice(0, 10), to: lastDay };
}

async function load() {
  if (!lastDay) {
    // The agent's today is the server's to say (its time zone): the default report (the last
    // 30 days) tells it.
    const first = await get(PATH);
    lastDay = first.to;
    if (Number(byId("report-period").value) === 30) return render(first);
  }
  render(await get(withQuery(PATH, period())));
}

function render(report) {
  const rows = report.data;
  fill(byId("report-zone"), `${report.from} to ${report.to}, days in ${report.timezone}`);
  const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
  fill(
    byId("report-summary"),
    [
      ["Opened", sum("opened")],
      ["Closed", sum("closed")],
      ["Messages in", sum("messages_in")],
      ["Messages out", sum("messages_out")],
    ].map(([name, value]) => el("div", {}, el("dt", {}, name), el("dd", {}, value.toLocaleString()))),
  );
  chart("chart-conversations", bars(rows, ["opened", "closed"], ["Opened", "Closed"]));
  chart("chart-messages", bars(rows, ["messages_in", "messages_out"], ["In", "Out"]));
  const times = rows.map((r) => ({ day: r.day, first: r.median_first_response_seconds, resolution: r.median_resolution_seconds }));
  chart("chart-times", lines(times, ["first", "resolution"], ["First response", "Resolution"]));
  const body = byId("report-table").tBodies[0];
  fill(
    body,
    rows.map((r) =>
      el(
        "tr",
        {},
        el("th", { scope: "row" }, r.day),
        el("td", {}, r.opened),
        el("td", {}, r.closed),
        el("td", {}, r.messages_in),
        el("td", {}, r.messages_out),
        el("td", {}, duration(r.median_first_response_seconds)),
        el("td", {}, duration(r.median_resolution_seconds)),
      ),
    ),
  );
}

/** "—" for none, else seconds, minutes, or hours and minutes. */
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function chart(id, drawn) {
  fill(byId(id), drawn.svg, drawn.legend);
  drawn.svg.setAttribute("aria-labelledby", `${id}-caption`);
}

function svgEl(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

/** The frame every chart shares: the plot area, the y axis's top value, the first and last day. */
function frame(days, top, unit) {
  const svg = svgEl("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img" });
  const bottom = HEIGHT - PAD.bottom;
  svg.append(
    svgEl("line", { class: "axis", x1: PAD.left, y1: bottom, x2: WIDTH - PAD.right, y2: bottom }),
    svgEl("line", { class: "axis", x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: bottom }),
    svgEl("text", { class: "label", x: PAD.left - 4, y: PAD.top + 8, "text-anchor": "end" }, `${round(top)}${unit}`),
    svgEl("text", { class: "label", x: PAD.left - 4, y: bottom, "text-anchor": "end" }, "0"),
  );
  if (days.length) {
    svg.append(
      svgEl("text", { class: "label", x: PAD.left, y: HEIGHT - 4 }, days[0]),
      svgEl("text", { class: "label", x: WIDTH - PAD.right, y: HEIGHT - 4, "text-anchor": "end" }, days[days.length - 1]),
    );
  }
  return svg;
}

const round = (n) => (n >= 10 ? Math.round(n) : Math.round(n * 10) / 10);
const y = (value, top) => HEIGHT - PAD.bottom - (top ? (value / top) * (HEIGHT - PAD.top - PAD.bottom) : 0);

function legend(names) {
  return el("ul", { class: "legend" }, el("li", { class: "key-a" }, names[0]), el("li", { class: "key-b" }, names[1]));
}

/** Two series of counts per day, side by side. */
function bars(rows, keys, names) {
  const top = Math.max(1, ...rows.flatMap((r) => keys.map((k) => r[k])));
  const svg = frame(rows.map((r) => r.day), top, "");
  const slot = (WIDTH - PAD.left - PAD.right) / Math.max(rows.length, 1);
  const width = Math.max((slot - 2) / 2, 0.5);
  rows.forEach((row, i) => {
    keys.forEach((key, s) => {
      const top_y = y(row[key], top);
      const x = PAD.left + i * slot + s * width + 1;
      svg.append(
        svgEl(
          "rect",
          { class: s ? "series-b" : "series-a", x, y: top_y, width, height: HEIGHT - PAD.bottom - top_y },
          svgEl("title", {}, `${row.day}: ${names[s]} ${row[key]}`),
        ),
      );
    });
  });
  return { svg, legend: legend(names) };
}

/** The unit a duration axis up to `seconds` reads best in: [divisor, suffix]. */
function unitOf(seconds) {
  if (seconds >= 2 * 3600) return [3600, " h"];
  if (seconds >= 120) return [60, " min"];
  return [1, " s"];
}

/** Two series of durations (seconds) per day as lines, broken where a day has none. */
function lines(seconds, keys, names) {
  const [divisor, unit] = unitOf(Math.max(0, ...seconds.flatMap((p) => keys.map((k) => p[k] ?? 0))));
  const points = seconds.map((p) => Object.fromEntries([["day", p.day], ...keys.map((k) => [k, p[k] === null ? null : p[k] / divisor])]));
  const values = points.flatMap((p) => keys.map((k) => p[k])).filter((v) => v !== null);
  const top = Math.max(1, ...values);
  const svg = frame(points.map((p) => p.day), top, unit);
  const step = (WIDTH - PAD.left - PAD.right) / Math.max(points.length - 1, 1);
  keys.forEach((key, s) => {
    let run = [];
    const flush = () => {
      if (run.length) svg.append(svgEl("polyline", { class: s ? "series-b" : "series-a", points: run.join(" ") }));
      run = [];
    };
    points.forEach((p, i) => {
      if (p[key] === null) return flush();
      const x = PAD.left + i * step;
      run.push(`${x},${y(p[key], top)}`);
      svg.append(svgEl("circle", { class: s ? "series-b" : "series-a", cx: x, cy: y(p[key], top), r: 2 }, svgEl("title", {}, `${p.day}: ${names[s]} ${duration(Math.round(p[key] * divisor))}`)));
    });
    flush();
  });
  return { svg, legend: legend(names) };
}

/** The period's rows as CSV, saved under the name the server gives. */
async function downloadCsv() {
  const response = await fetch(withQuery(PATH, lastDay ? period() : {}), { headers: { Accept: "text/csv" }, credentials: "same-origin" });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  const disposition = response.headers.get("Content-Disposition") || "";
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] || "conversations.csv";
  const url = URL.createObjectURL(await response.blob());
  const link = el("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}
