// ui://avenir/spending.html: spending_report's result as a picture. It draws what the tool
// returned (tools/spending_report.go, spendingReportOut): the totals against the period
// before, outflow and inflow by month, and the groups (category, group, payee or account) by
// outflow. Every figure shown is a string the tool formatted in the plan's currency; the
// milliunits only size the bars.

import {
  type Data,
  dataOf,
  el,
  formatDate,
  formatMonth,
  formatTime,
  list,
  num,
  openView,
  plural,
  replace,
  setState,
  str,
  svg,
  textOf,
} from "./common";

const root = document.getElementById("root") as HTMLElement;

/** Each grouping's name, one and many. */
const GROUPING: Record<string, [string, string]> = {
  category: ["category", "categories"],
  category_group: ["category group", "category groups"],
  payee: ["payee", "payees"],
  month: ["month", "months"],
  account: ["account", "accounts"],
};

interface Month {
  month: string;
  out: number;
  in: number;
  outText: string;
  inText: string;
  transactions: number;
}

let report: Data | undefined;
let drawnWidth = 0;

openView("spending", {
  onResult(r) {
    if (r.isError) {
      replace(
        root,
        el("header", {}, el("p", { class: "eyebrow" }, "avenir"), el("h1", {}, "No spending report")),
        el("p", { class: "banner bad", role: "alert" }, textOf(r) || "spending_report returned an error."),
      );
      setState("error");
      return;
    }
    const d = dataOf(r);
    if (report && !Array.isArray(d?.groups)) return; // not a report: keep the one shown
    report = d;
    render();
  },
});

// The month chart is drawn at the width it has, so that its text stays readable at 400 px;
// it is drawn again when the width changes (a height change, the host fitting the frame to
// the view, does not).
new ResizeObserver(() => {
  if (report && Math.abs(width() - drawnWidth) > 8) render();
}).observe(root);

function width(): number {
  return Math.max(260, root.clientWidth - 32);
}

function render(): void {
  const d = report;
  if (!d) return;
  const groupBy = str(d.group_by) || "category";
  const [label, labels] = GROUPING[groupBy] ?? [groupBy, groupBy];
  const prev = (d.previous ?? {}) as Data;
  const months = monthsOf(d, groupBy);
  drawnWidth = width();

  replace(
    root,
    el(
      "header",
      {},
      el("p", { class: "eyebrow" }, "avenir · spending report"),
      el("h1", {}, `Spending by ${label}`),
      el(
        "p",
        { class: "muted small" },
        `${formatDate(str(d.since))} – ${formatDate(str(d.until))}`,
        str(d.as_of) && ` · YNAB data of ${formatTime(str(d.as_of))}`,
      ),
    ),
    totals(d, prev),
    num(d.transactions) === 0 && el("p", { class: "banner info" }, "No transactions in this period."),
    months.length > 0 && monthSection(months),
    groupBy !== "month" && list(d.groups).length > 0 && groupSection(d, label, labels),
  );
  setState("rendered");
}

function totals(d: Data, prev: Data): HTMLElement {
  const before = (key: string) => (str(prev[key]) ? `before: ${str(prev[key])}` : "");
  const box = (name: string, value: string, delta: string) =>
    el(
      "div",
      { class: "total" },
      el("span", { class: "label" }, name),
      el("span", { class: "value" }, value || "—"),
      delta && el("span", { class: "delta" }, delta),
    );
  const period = str(prev.since) ? `${formatDate(str(prev.since))} – ${formatDate(str(prev.until))}` : "";
  return el(
    "section",
    { "aria-label": "Totals" },
    el(
      "div",
      { class: "totals" },
      box("Outflow", str(d.outflow), before("outflow")),
      box("Inflow", str(d.inflow), before("inflow")),
      box("Net", str(d.net), before("net")),
      box("Transactions", String(num(d.transactions)), prev.transactions !== undefined ? `before: ${num(prev.transactions)}` : ""),
    ),
    period && el("p", { class: "small muted" }, `“Before” is the period just before: ${period}.`),
  );
}

/** monthsOf is the report's months: its months, or its groups when it groups by month. */
function monthsOf(d: Data, groupBy: string): Month[] {
  const rows: Data[] = groupBy === "month" ? list(d.groups).map((g) => ({ ...g, month: g.name })) : list(d.months);
  return rows.map((m) => ({
    month: str(m.month),
    out: num(m.outflow_milliunits),
    in: num(m.inflow_milliunits),
    outText: str(m.outflow),
    inText: str(m.inflow),
    transactions: num(m.transactions),
  }));
}

function monthSection(months: Month[]): HTMLElement {
  const first = months[0]?.month ?? "";
  const last = months[months.length - 1]?.month ?? "";
  const rows = months.map((m) =>
    el(
      "tr",
      {},
      el("th", { scope: "row" }, formatMonth(m.month, true)),
      el("td", { class: "num" }, m.outText),
      el("td", { class: "num" }, m.inText),
      el("td", { class: "num" }, String(m.transactions)),
    ),
  );
  return el(
    "section",
    { "aria-labelledby": "by-month" },
    el("h2", { id: "by-month" }, "By month"),
    el(
      "div",
      { class: "legend", "aria-hidden": "true" },
      el("span", {}, el("span", { class: "swatch out" }), "Outflow"),
      el("span", {}, el("span", { class: "swatch in" }), "Inflow"),
    ),
    monthChart(months, `Outflow and inflow by month, ${formatMonth(first, true)} to ${formatMonth(last, true)}`),
    el(
      "details",
      {},
      el("summary", { class: "small muted" }, "The months as a table"),
      el(
        "div",
        { class: "table-wrap" },
        el(
          "table",
          {},
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", { scope: "col" }, "Month"),
              el("th", { scope: "col", class: "num" }, "Outflow"),
              el("th", { scope: "col", class: "num" }, "Inflow"),
              el("th", { scope: "col", class: "num" }, "Transactions"),
            ),
          ),
          el("tbody", {}, ...rows),
        ),
      ),
    ),
  );
}

/** monthChart draws outflow and inflow side by side for each month. */
function monthChart(months: Month[], title: string): SVGElement {
  const W = drawnWidth;
  const H = 210;
  const top = 20;
  const bottom = 34;
  const side = 6;
  const plotH = H - top - bottom;
  const slot = (W - 2 * side) / months.length;
  const barW = Math.max(3, Math.min(30, slot * 0.34));
  const max = Math.max(1, ...months.map((m) => Math.max(m.out, m.in)));
  const every = Math.max(1, Math.ceil(46 / slot)); // a month label needs about 46 px
  const base = top + plotH;
  const h = (v: number) => (v / max) * plotH;
  const r1 = (v: number) => Math.round(v * 10) / 10;

  const parts: SVGElement[] = [
    svg("title", {}, title),
    svg("line", { class: "grid", x1: side, x2: W - side, y1: top, y2: top }),
    svg("line", { class: "axis", x1: side, x2: W - side, y1: base, y2: base }),
  ];
  months.forEach((m, i) => {
    const cx = side + slot * (i + 0.5);
    parts.push(
      svg(
        "rect",
        { class: "out", x: r1(cx - barW - 1), y: r1(base - h(m.out)), width: r1(barW), height: r1(h(m.out)), rx: 2 },
        svg("title", {}, `${formatMonth(m.month, true)}: outflow ${m.outText}`),
      ),
      svg(
        "rect",
        { class: "in", x: r1(cx + 1), y: r1(base - h(m.in)), width: r1(barW), height: r1(h(m.in)), rx: 2 },
        svg("title", {}, `${formatMonth(m.month, true)}: inflow ${m.inText}`),
      ),
    );
    if (slot >= 72 && m.out > 0) {
      // The outflow, over the pair of bars, in the outflow's colour.
      const y = base - Math.max(h(m.out), h(m.in)) - 5;
      parts.push(svg("text", { class: "value-out", x: r1(cx), y: r1(y), "text-anchor": "middle" }, m.outText));
    }
    if (i % every === 0) {
      const year = i === 0 || m.month.endsWith("-01");
      parts.push(
        svg("text", { class: "label-strong", x: r1(cx), y: base + 14, "text-anchor": "middle" }, formatMonth(m.month, false)),
      );
      if (year) parts.push(svg("text", { x: r1(cx), y: base + 27, "text-anchor": "middle" }, m.month.slice(0, 4)));
    }
  });
  return svg(
    "svg",
    { class: "chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": title },
    ...parts,
  );
}

/** groupSection is the groups by outflow, as a table whose rows carry their bar. */
function groupSection(d: Data, label: string, labels: string): HTMLElement {
  const groups = list(d.groups);
  const other = d.other && typeof d.other === "object" ? (d.other as Data) : undefined;
  const rows = other ? [...groups, { ...other, name: `Other (${plural(num(other.groups), label, labels)})` }] : groups;
  // Bars show outflow; where nothing went out (grouping by an income account), inflow.
  const key = rows.some((g) => num(g.outflow_milliunits) > 0) ? "outflow" : "inflow";
  const max = Math.max(1, ...rows.map((g) => num(g[`${key}_milliunits`])));
  const body = rows.map((g) => {
    const share = num(g[`${key}_milliunits`]) / max;
    const change = num(g[`${key}_change_milliunits`]);
    const changeText = str(g[`${key}_change`]);
    return el(
      "tr",
      {},
      el(
        "th",
        { scope: "row" },
        str(g.name) || "—",
        key === "outflow" && num(g.inflow_milliunits) > 0 && el("span", { class: "small muted" }, ` · in ${str(g.inflow)}`),
        svg(
          "svg",
          { class: "bar", viewBox: "0 0 100 6", preserveAspectRatio: "none", "aria-hidden": "true" },
          svg("rect", { class: key === "outflow" ? "out" : "in", x: 0, y: 0, height: 6, width: Math.max(0.5, Math.round(share * 1000) / 10), rx: 1 }),
        ),
      ),
      el("td", { class: "num" }, str(g[key])),
      el(
        "td",
        { class: `num small ${change > 0 ? "up" : change < 0 ? "down" : "muted"}` },
        change > 0 ? `+${changeText}` : change === 0 ? "±0" : changeText,
      ),
      el("td", { class: "num small muted" }, String(num(g.transactions))),
    );
  });
  return el(
    "section",
    { "aria-labelledby": "by-group" },
    el("h2", { id: "by-group" }, `By ${label}`),
    el(
      "div",
      { class: "table-wrap", tabindex: 0, role: "region", "aria-label": `Spending by ${label}` },
      el(
        "table",
        {},
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "col" }, label.charAt(0).toUpperCase() + label.slice(1)),
            el("th", { scope: "col", class: "num" }, key === "outflow" ? "Outflow" : "Inflow"),
            el("th", { scope: "col", class: "num" }, "vs before"),
            el("th", { scope: "col", class: "num" }, "Txns"),
          ),
        ),
        el("tbody", {}, ...body),
        el(
          "tfoot",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "row" }, "Total"),
            el("td", { class: "num" }, str(d[key])),
            el("td", {}),
            el("td", { class: "num small muted" }, String(num(d.transactions))),
          ),
        ),
      ),
    ),
  );
}
