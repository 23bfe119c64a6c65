/**
 * The MCP Apps sandbox proxy, served on an origin of its own (another port), as the extension
 * requires of a web host: the page frames `GET /proxy?host=<the page's origin>` (a page with no
 * inline script, its CSP allowing only its own script and frames of its own origin, framed only by
 * the page), which says `ui/notifications/sandbox-proxy-ready`, takes the view's HTML and declared
 * domains in `ui/notifications/sandbox-resource-ready`, and posts them as a form into its inner
 * frame: `POST /view` answers with the HTML under a Content-Security-Policy header built here from
 * the declared domains (never looser than the extension's default, and sandboxed, so the view's
 * origin is opaque). A real navigation, not `srcdoc`: a `srcdoc` or `blob:` document would inherit
 * the proxy's own policy. The proxy then passes every message between the page and the view,
 * except the `ui/notifications/sandbox-…` ones, checking each one's sender: the page's origin and
 * window one way, the inner frame's window the other (messages into the view go to `*`: its origin
 * is opaque, and what the view is sent is what it was given anyway). A small script put first in the view's
 * document reports the violations of its policy (`securitypolicyviolation`) to the proxy, which
 * passes them on to the page.
 */
import type * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { McpApps } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Guard from "./guard.js"

/** The method of a violation report, view → proxy → page (a `sandbox-` method: the proxy's own). */
export const CSP_VIOLATION = "ui/notifications/sandbox-csp-violation"

/**
 * A source a view may declare: a scheme (`http`, `https`, `ws`, `wss`) and a host, a `*.` prefix
 * allowed, a port and a path optional; or a bare host the same way. Keywords (`'unsafe-eval'`),
 * other schemes (`data:`, `blob:`), a lone `*`, spaces and `;` never pass.
 */
const SOURCE =
  /^(?:(?:https?|wss?):\/\/)?(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::(?:\d{1,5}|\*))?(?:\/[\w\-./~%]*)?$/i

/** The declared sources that are sources: what does not read as one is left out (never loosening). */
export const sources = (domains: ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  (domains ?? []).filter((domain) => SOURCE.test(domain))

const or = (list: ReadonlyArray<string>, none: string) => (list.length === 0 ? none : list.join(" "))

/**
 * The view's Content-Security-Policy, from its resource's declared domains: the extension's
 * restrictive default (`default-src 'none'`, inline scripts and styles, `data:` images and media,
 * no connections), each directive widened only by the domains declared for it; no nested frames
 * without `frameDomains`, `base-uri 'self'` without `baseUriDomains`, never plugins or form posts.
 */
export const viewPolicy = (csp: McpApps.ResourceCsp | undefined): string => {
  const resource = sources(csp?.resourceDomains)
  const self = (...first: ReadonlyArray<string>) => [...first, ...resource].join(" ")
  return [
    "default-src 'none'",
    `script-src ${self("'self'", "'unsafe-inline'")}`,
    `style-src ${self("'self'", "'unsafe-inline'")}`,
    `img-src ${self("'self'", "data:")}`,
    `media-src ${self("'self'", "data:")}`,
    `font-src ${or(resource, "'none'")}`,
    `connect-src ${or(sources(csp?.connectDomains), "'none'")}`,
    `frame-src ${or(sources(csp?.frameDomains), "'none'")}`,
    `base-uri ${or(sources(csp?.baseUriDomains), "'self'")}`,
    "object-src 'none'",
    "form-action 'none'"
  ].join("; ")
}

/** The proxy page's own policy: its script, frames of its origin (the view), framed by the page only. */
export const proxyPolicy = (host: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'unsafe-inline'",
    "frame-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    `frame-ancestors ${host}`
  ].join("; ")

const PROXY_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>view sandbox</title>
<style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}iframe{border:0;width:100%;height:100%;display:block}</style>
<script src="/proxy.js"></script></head><body></body></html>
`

/** The proxy's script (plain JavaScript, served as a file: the proxy page allows no inline script). */
const PROXY_SCRIPT = `"use strict";
(function () {
  var host = new URLSearchParams(location.search).get("host");
  var inner = null;
  var FEATURES = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
  function isMessage(data) { return typeof data === "object" && data !== null && data.jsonrpc === "2.0"; }
  function reserved(method) { return typeof method === "string" && method.indexOf("ui/notifications/sandbox-") === 0; }
  function toHost(message) { if (host) window.parent.postMessage(message, host); }
  function text(value, max) { return typeof value === "string" ? value.slice(0, max) : ""; }
  function violation(params) {
    var p = typeof params === "object" && params !== null ? params : {};
    toHost({ jsonrpc: "2.0", method: "${CSP_VIOLATION}", params: {
      directive: text(p.directive, 100), blockedUri: text(p.blockedUri, 2000), sample: text(p.sample, 200) } });
  }
  function load(params) {
    if (inner !== null) inner.remove();
    inner = document.createElement("iframe");
    inner.name = "view-" + Math.random().toString(36).slice(2);
    inner.title = "view";
    inner.setAttribute("sandbox", "allow-scripts allow-forms");
    var permissions = typeof params.permissions === "object" && params.permissions !== null ? params.permissions : {};
    var allow = Object.keys(FEATURES).filter(function (key) { return permissions[key] !== undefined; })
      .map(function (key) { return FEATURES[key]; }).join("; ");
    if (allow !== "") inner.setAttribute("allow", allow);
    document.body.appendChild(inner);
    var form = document.createElement("form");
    form.method = "post";
    form.action = "/view";
    form.target = inner.name;
    var fields = { html: params.html, csp: JSON.stringify(typeof params.csp === "object" && params.csp !== null ? params.csp : {}) };
    Object.keys(fields).forEach(function (name) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = fields[name];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
    form.remove();
  }
  document.addEventListener("securitypolicyviolation", function (event) {
    violation({ directive: event.effectiveDirective, blockedUri: event.blockedURI, sample: event.sample });
  });
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!isMessage(data)) return;
    if (event.source === window.parent && event.origin === host) {
      if (data.method === "ui/notifications/sandbox-resource-ready") {
        if (typeof data.params === "object" && data.params !== null && typeof data.params.html === "string") load(data.params);
        return;
      }
      if (reserved(data.method)) return;
      if (inner !== null && inner.contentWindow !== null) inner.contentWindow.postMessage(data, "*");
      return;
    }
    if (inner !== null && event.source === inner.contentWindow) {
      if (data.method === "${CSP_VIOLATION}") return violation(data.params);
      if (reserved(data.method)) return;
      toHost(data);
    }
  });
  toHost({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} });
})();
`

/** Put first in the view's document: reports each violation of its policy to the proxy. */
const REPORTER = `<script>addEventListener("securitypolicyviolation",function(e){parent.postMessage({jsonrpc:"2.0",method:"${CSP_VIOLATION}",params:{directive:String(e.effectiveDirective),blockedUri:String(e.blockedURI),sample:String(e.sample||"")}},"*")})</script>`

/** The view's HTML with the reporter first (after the doctype, which must stay first). */
export const withReporter = (html: string): string => {
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html)
  return doctype === null ? `${REPORTER}${html}` : `${doctype[0]}${REPORTER}${html.slice(doctype[0].length)}`
}

const ViewForm = Schema.Struct({ html: Schema.String, csp: Schema.String })
const decodeCsp = Schema.decodeUnknownEither(Schema.parseJson(McpApps.ResourceCsp))

const plain = (status: number, text: string) =>
  HttpServerResponse.text(`${text}\n`, { status, contentType: "text/plain; charset=utf-8" })

const common = {
  "x-content-type-options": "nosniff",
  "cache-control": "no-store"
}

/**
 * Serves the proxy on `server` until the scope closes; `pageOrigins` are the origins that may
 * frame it. Answers with the proxy's origin.
 */
export const serve = (
  server: HttpServer.HttpServer,
  pageOrigins: ReadonlySet<string>
): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function* () {
    const address = server.address
    const bound = address._tag === "TcpAddress" ? address : { hostname: "127.0.0.1", port: 0 }
    // The guard's names and origins; no token: nothing here is secret or acts on anything.
    const names = Guard.make("", bound.hostname, bound.port)
    const shown = bound.hostname.includes(":") ? `[${bound.hostname}]` : bound.hostname
    const origin = `http://${shown}:${bound.port}`
    // CSP has no source expression for an IPv6 literal: a page opened as [::1] draws no views.
    const ancestors = [origin, ...pageOrigins].filter((one) => !one.includes("[")).join(" ")

    const app = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const host = request.headers.host
      if (host === undefined || !names.hosts.has(host.toLowerCase()))
        return plain(403, "this host name is not served here")
      const url = new URL(request.url, origin)
      if (request.method === "GET" && url.pathname === "/proxy") {
        const parent = url.searchParams.get("host") ?? ""
        if (!pageOrigins.has(parent) || parent.includes("[")) return plain(403, "only the page may frame the sandbox")
        return HttpServerResponse.text(PROXY_HTML, {
          contentType: "text/html; charset=utf-8",
          // Not no-referrer: the proxy's form post must carry its Origin (no-referrer sends `null`).
          headers: { ...common, "referrer-policy": "same-origin", "content-security-policy": proxyPolicy(parent) }
        })
      }
      if (request.method === "GET" && url.pathname === "/proxy.js")
        return HttpServerResponse.text(PROXY_SCRIPT, {
          contentType: "text/javascript; charset=utf-8",
          headers: common
        })
      if (request.method === "POST" && url.pathname === "/view") {
        // Only the proxy posts views (a form of this origin).
        const from = request.headers.origin
        if (from === undefined || !names.origins.has(from.toLowerCase()))
          return plain(403, "views are posted by the sandbox proxy only")
        const form = yield* Effect.either(HttpServerRequest.schemaBodyUrlParams(ViewForm))
        if (Either.isLeft(form)) return plain(400, "a view is posted as html and csp")
        const csp = Either.getOrUndefined(decodeCsp(form.right.csp))
        return HttpServerResponse.text(withReporter(form.right.html), {
          contentType: "text/html; charset=utf-8",
          headers: {
            ...common,
            "referrer-policy": "no-referrer",
            "content-security-policy": `${viewPolicy(csp)}; frame-ancestors ${ancestors}; sandbox allow-scripts allow-forms`
          }
        })
      }
      if (url.pathname === "/favicon.ico") return HttpServerResponse.empty({ status: 204 })
      return plain(404, "not found")
    })
    yield* server.serve(app)
    return origin
  })
