/**
 * The spans of one call through the gateway into a server, exported over OTLP/HTTP (JSON) by
 * `@effect/opentelemetry` to a loopback receiver standing in for a collector: the caller's request
 * span (our client, in the same process and trace), the gateway's span under it, the host's routing
 * under that, and the request to the server (the SDK v1 fault server's `meta`, which answers with the
 * `_meta` it got) under the routing, the server told that span as its parent: one trace.
 */
import * as http from "node:http"
import * as Otlp from "@effect/opentelemetry/Otlp"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Tracer from "effect/Tracer"
import { connect, faultServer, gatewayHost, textOf } from "./support/gateway.js"

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const CALLER = "00f067aa0ba902b7"

const Span = Schema.Struct({
  traceId: Schema.String,
  spanId: Schema.String,
  parentSpanId: Schema.optional(Schema.String),
  name: Schema.String
})
const Export = Schema.Struct({
  resourceSpans: Schema.Array(Schema.Struct({ scopeSpans: Schema.Array(Schema.Struct({ spans: Schema.Array(Span) })) }))
})
const decodeExport = Schema.decodeUnknownSync(Schema.parseJson(Export))

/** A loopback OTLP/HTTP receiver: its base URL, and the spans it received so far. */
const receiver = Effect.acquireRelease(
  Effect.async<{ url: string; spans: Array<typeof Span.Type>; paths: Array<string>; server: http.Server }>((resume) => {
    const spans: Array<typeof Span.Type> = []
    const paths: Array<string> = []
    const server = http.createServer((request, response) => {
      let body = ""
      request.setEncoding("utf8")
      request.on("data", (chunk: string) => {
        body += chunk
      })
      request.on("end", () => {
        paths.push(request.url ?? "")
        if (request.url === "/v1/traces") {
          for (const resource of decodeExport(body).resourceSpans) {
            for (const scope of resource.scopeSpans) spans.push(...scope.spans)
          }
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, spans, paths, server }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

layer(gatewayHost({ servers: [{ name: "fixture", target: faultServer }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("the gateway's spans over OTLP", (it) => {
  it.scoped("one call: the caller's span, the gateway's, the server's request, in one trace", () =>
    Effect.gen(function* () {
      const collector = yield* receiver
      const seen = yield* Effect.gen(function* () {
        const { client } = yield* connect()
        // The caller's request is a span of its own, under the caller's span, told to the gateway.
        const result = yield* client
          .request("tools/call", { name: "fixture__meta", arguments: {} })
          .pipe(Effect.withParentSpan(Tracer.externalSpan({ traceId: TRACE, spanId: CALLER, sampled: true })))
        return JSON.parse(textOf(result)) as { traceparent?: string }
      }).pipe(
        // The exporter's layer flushes what it holds when it closes.
        Effect.provide(
          Otlp.layerJson({ baseUrl: collector.url, resource: { serviceName: "effect-mcp-gateway" } }).pipe(
            Layer.provide(NodeHttpClient.layerUndici)
          )
        ),
        Effect.scoped
      )
      const caller = collector.spans.find(
        (span) => span.name === "mcp.request tools/call" && span.parentSpanId === CALLER
      )
      expect(caller?.traceId).toBe(TRACE)
      const gateway = collector.spans.find((span) => span.name === "mcp.gateway tools/call")
      expect(gateway?.traceId).toBe(TRACE)
      expect(gateway?.parentSpanId).toBe(caller?.spanId)
      // The host's routing of the call, and under it the request to the server.
      const routed = collector.spans.find((span) => span.name === "McpHost.callTool")
      expect(routed?.parentSpanId).toBe(gateway?.spanId)
      const toServer = collector.spans.find(
        (span) => span.name === "mcp.request tools/call" && span.parentSpanId === routed?.spanId
      )
      expect(toServer?.traceId).toBe(TRACE)
      // The server was told that request's span as its parent.
      expect(seen.traceparent).toBe(`00-${TRACE}-${toServer?.spanId}-01`)
      expect(collector.paths).toContain("/v1/traces")
    })
  )
})
