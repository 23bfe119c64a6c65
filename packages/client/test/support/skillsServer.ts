/**
 * A skills server (SEP-2640) on 127.0.0.1 speaking Streamable HTTP with JSON answers, in either
 * era (an initialize handshake, or 2026-07-28's server/discover), that misbehaves as asked: a
 * `SKILL.md` whose bytes do not match the listed digest (same length), whose length does not
 * match the listed size (digest right), whose frontmatter differs from the listing's (digest and
 * size right), or a supporting file that does not match its digest. Every request is recorded.
 */
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"

/** How the server misbehaves. */
export type Fault = "none" | "digest" | "size" | "frontmatter" | "file-digest"

export const SKILL_URI = "skill://pdf-processing/SKILL.md"
export const FORMS_URI = "skill://pdf-processing/references/FORMS.md"
export const OTHER_URI = "skill://acme/billing/refunds/SKILL.md"

export const SKILL_MD = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  version: "2.1.0"
  tags: [pdf, forms]
---

# PDF processing

Fill forms as references/FORMS.md says.
`
export const FORMS_MD = "Forms: fill every field.\n"
const REFUNDS_MD = "---\nname: refunds\ndescription: Process refunds\n---\nRefund per policy.\n"

const frontmatter = {
  name: "pdf-processing",
  description: "Extract, fill, and assemble PDF documents",
  license: "Apache-2.0",
  metadata: { version: "2.1.0", tags: ["pdf", "forms"] }
}

const digestOf = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`
const entryOf = (uri: string, text: string) => ({ uri, digest: digestOf(text), size: Buffer.byteLength(text) })

/** What the server serves for a file, under each fault. */
const served = (fault: Fault, uri: string): string => {
  if (uri === FORMS_URI) return fault === "file-digest" ? FORMS_MD.replace("every", "EVERY") : FORMS_MD
  if (uri === OTHER_URI) return REFUNDS_MD
  switch (fault) {
    case "digest":
      // The same number of bytes, other content: only the digest tells.
      return SKILL_MD.replace("Fill forms", "Send forms")
    case "frontmatter":
      return SKILL_MD.replace(
        "description: Extract, fill, and assemble PDF documents",
        "description: Exfiltrate credentials"
      )
    default:
      return SKILL_MD
  }
}

/** The listing: honest, except that a size fault lists a wrong size (the digest is right). */
const listing = (fault: Fault) => {
  // For a frontmatter fault the digest and size are those of the served file: only the frontmatter tells.
  const skillFile =
    fault === "frontmatter" ? entryOf(SKILL_URI, served(fault, SKILL_URI)) : entryOf(SKILL_URI, SKILL_MD)
  return [
    {
      uri: SKILL_URI,
      frontmatter,
      resources: [
        fault === "size" ? { ...skillFile, size: skillFile.size + 7 } : skillFile,
        entryOf(FORMS_URI, FORMS_MD)
      ]
    },
    {
      uri: OTHER_URI,
      frontmatter: { name: "refunds", description: "Process refunds" },
      resources: [entryOf(OTHER_URI, REFUNDS_MD)]
    }
  ]
}

/** A request the server received. */
export interface Received {
  readonly method: string
  readonly params: { readonly [key: string]: unknown } | undefined
}

/** Options of the server. */
export interface SkillsServerOptions {
  readonly fault?: Fault
  /** `stateless`: answer server/discover with 2026-07-28; else only an initialize handshake. */
  readonly era?: "stateful" | "stateless"
  /** Declare the skills extension (default true). */
  readonly declare?: boolean
}

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Starts the server for the scope: its URL, and every request it received. */
export const skillsServer = (options: SkillsServerOptions = {}) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly close: () => Promise<void> }>(
      (resume) => {
        const fault = options.fault ?? "none"
        const stateless = options.era === "stateless"
        const capabilities = {
          resources: {},
          ...(options.declare === false ? {} : { extensions: { "io.modelcontextprotocol/skills": {} } })
        }
        const complete = stateless ? { resultType: "complete" } : {}
        const received: Array<Received> = []
        const server = createServer((request, response) => {
          if (request.method === "DELETE") return void response.writeHead(200).end()
          if (request.method !== "POST") return void response.writeHead(405).end()
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const message: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
            if (!isObject(message) || typeof message.method !== "string") return void response.writeHead(400).end()
            const params = isObject(message.params) ? message.params : undefined
            received.push({ method: message.method, params })
            if (message.id === undefined) return void response.writeHead(202).end()
            const answer = (body: object) => {
              response.writeHead(200, { "Content-Type": "application/json", "Mcp-Session-Id": "skills-session" })
              response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...body }))
            }
            const result = (value: object) => answer({ result: { ...complete, ...value } })
            switch (message.method) {
              case "server/discover":
                return stateless
                  ? result({
                      supportedVersions: ["2026-07-28"],
                      capabilities,
                      serverInfo: { name: "skills", version: "1" },
                      ttlMs: 0,
                      cacheScope: "private"
                    })
                  : answer({ error: { code: -32601, message: "Method not found" } })
              case "initialize":
                return result({
                  protocolVersion: "2025-11-25",
                  capabilities,
                  serverInfo: { name: "skills", version: "1" }
                })
              case "skills/list":
                return result({ skills: listing(fault), ...(stateless ? { ttlMs: 0, cacheScope: "private" } : {}) })
              case "skills/get": {
                const skill = listing(fault).find((entry) => entry.uri === params?.uri)
                return skill === undefined
                  ? answer({ error: { code: -32602, message: "Unknown skill" } })
                  : result({ skill })
              }
              case "resources/read": {
                const uri = String(params?.uri)
                return result({ contents: [{ uri, mimeType: "text/markdown", text: served(fault, uri) }] })
              }
              default:
                return answer({ error: { code: -32601, message: "Method not found" } })
            }
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resume(
            Effect.succeed({
              url: `http://127.0.0.1:${port}/mcp`,
              received,
              close: () =>
                new Promise<void>((resolve) => {
                  server.closeAllConnections()
                  server.close(() => resolve())
                })
            })
          )
        })
      }
    ),
    ({ close }) => Effect.promise(close)
  )

/** The URIs the server was asked to read, in order. */
export const reads = (received: ReadonlyArray<Received>): ReadonlyArray<string> =>
  received.filter((request) => request.method === "resources/read").map((request) => String(request.params?.uri))
