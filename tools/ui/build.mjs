// build.mjs: bundles each view (src/<view>.ts with the MCP Apps view SDK, and src/style.css)
// into one self-contained HTML file, dist/<view>.html. build.sh runs it after type-checking.
//
// The output is the same bytes on every run from the same sources and lock file: esbuild's
// output is deterministic, and nothing here adds a date or a path. Each file ends with the
// licences of the packages bundled into it.

import * as esbuild from "esbuild";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

const views = [
  { name: "confirm", title: "avenir: confirm a change" },
  { name: "spending", title: "avenir: spending report" },
  { name: "journal", title: "avenir: journal" },
];

// No origin at all: not even 'self', since a view never loads anything; inline script and
// style only, as MCP Apps' restrictive default CSP allows (apps.mdx, "Host Behavior").
const csp = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  "font-src 'none'",
  "connect-src 'none'",
  "media-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const css = (
  await esbuild.transform(await readFile(join(here, "src/style.css"), "utf8"), { loader: "css", minify: true })
).code.trim();

await mkdir(join(here, "dist"), { recursive: true });
for (const v of views) {
  const r = await esbuild.build({
    absWorkingDir: here,
    entryPoints: [`src/${v.name}.ts`],
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  let js = r.outputFiles[0].text.trim();
  // Inline script: "</script" inside it would end the element early.
  js = js.replace(/<\/(script)/gi, "<\\/$1");
  const html = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    `<title>${v.title}</title>`,
    `<style>${css}</style>`,
    "</head>",
    '<body data-state="waiting">',
    '<main id="root"><p class="muted">Waiting for avenir…</p></main>',
    `<script>${js}</script>`,
    "</body>",
    "</html>",
    await licences(r.metafile),
    "",
  ].join("\n");
  await writeFile(join(here, "dist", `${v.name}.html`), html);
  console.error(`dist/${v.name}.html: ${html.length} bytes`);
}

// licences is an HTML comment with the licence of every package whose code is in the bundle,
// identical texts given once.
async function licences(meta) {
  const pkgs = new Map();
  for (const input of Object.keys(meta.inputs)) {
    const m = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) pkgs.set(m[1], join(here, "node_modules", m[1]));
  }
  const byText = new Map();
  for (const name of [...pkgs.keys()].sort()) {
    const dir = pkgs.get(name);
    const { version } = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
    const file = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"].map((f) => join(dir, f)).find((f) => existsSync(f));
    if (!file) throw new Error(`${name}: no licence file to ship with the bundle`);
    const text = (await readFile(file, "utf8")).trim().replaceAll("-->", "- ->");
    byText.set(text, [...(byText.get(text) ?? []), `${name} ${version}`]);
  }
  const parts = [...byText].map(([text, names]) => `${names.join(", ")}:\n\n${text}`);
  return `<!--\nThis file bundles code of these packages, under these licences.\n\n${parts.join("\n\n----\n\n")}\n-->`;
}
