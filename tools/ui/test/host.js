// host.js: the browser half of the test host. drive.mjs bundles it into the host page, where
// it renders one view in a sandboxed iframe and connects to it with ext-apps' own host-side
// bridge (AppBridge over PostMessageTransport), as a host such as Claude Desktop does.
//
// The MCP client lives in drive.mjs (Node), connected to the server over stdio; this page
// reaches it through one function drive.mjs exposes, window.avenirHost(kind, payload), which
// forwards the view's tools/call and resources/read to the server and records what the view
// tells the host (ui/message, ui/update-model-context, logs).

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const toHost = (kind, payload) => window.avenirHost(kind, JSON.stringify(payload ?? null)).then((s) => JSON.parse(s));

// messages: "accept" (the host takes ui/message and ui/update-model-context), "refuse" (it
// declares ui/message but answers it with an error: the view falls back to model context), or
// "none" (it declares and takes neither: the view must not claim it told anyone).
window.avenirStart = async ({ html, hostContext, width, messages = "accept" }) => {
  const iframe = document.createElement("iframe");
  // The view gets scripts and nothing else: an opaque origin, no top navigation, no popups,
  // no forms. The page's CSP (MCP Apps' restrictive default) is inherited by the srcdoc view.
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("title", "avenir view");
  iframe.style.width = `${width}px`;
  iframe.style.height = "120px";
  document.getElementById("frame").append(iframe);

  const bridge = new AppBridge(
    null,
    { name: "avenir-ui-harness", version: "1.0.0" },
    {
      serverTools: {},
      serverResources: {},
      logging: {},
      ...(messages === "none" ? {} : { message: { text: {} }, updateModelContext: { text: {}, structuredContent: {} } }),
    },
    { hostContext },
  );
  bridge.oncalltool = async (params) => {
    const r = await toHost("callTool", params);
    if (r.error) throw new Error(r.error);
    return r.result;
  };
  bridge.onreadresource = async (params) => {
    const r = await toHost("readResource", params);
    if (r.error) throw new Error(r.error);
    return r.result;
  };
  bridge.onmessage = async (params) => {
    if (messages !== "accept") return { isError: true };
    await toHost("message", params);
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    if (messages === "none") throw new Error("this host takes no model context");
    await toHost("modelContext", params);
    return {};
  };
  bridge.onopenlink = async (params) => {
    await toHost("openLink", params);
    return { isError: true };
  };
  bridge.addEventListener("loggingmessage", (params) => void toHost("log", params));
  bridge.addEventListener("sizechange", ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  });
  const initialized = new Promise((resolve) => bridge.addEventListener("initialized", () => resolve()));

  // The bridge listens before the view exists, so the view's ui/initialize is never missed.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await initialized;
  window.avenirBridge = bridge;
};

window.avenirSend = async (method, params) => {
  const b = window.avenirBridge;
  if (method === "input") await b.sendToolInput(params);
  else if (method === "result") await b.sendToolResult(params);
  else if (method === "context") b.setHostContext(params);
  else throw new Error(`unknown method ${method}`);
};
