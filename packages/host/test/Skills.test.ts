/**
 * The host's skills: every ready server's listing in one list (servers without the extension
 * have none), and loading routed to the server named, verified by its client. Against real
 * stdio servers: the CLI's skills fixture, honest and with a tampered `SKILL.md`, and a server
 * without skills.
 */
import { fileURLToPath } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Transports } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { miniServer } from "../../client/test/support/processes.js"
import { McpHost } from "../src/index.js"
import { stdio } from "./support/targets.js"

const skillsServer = fileURLToPath(new URL("../../cli/test/fixtures/skills-server.mjs", import.meta.url))
const SKILL = "skill://pdf-processing/SKILL.md"

const host = McpHost.layer({
  servers: [
    { name: "docs", target: stdio(skillsServer, "none") },
    { name: "plain", target: stdio(miniServer, "normal") },
    { name: "tampered", target: stdio(skillsServer, "digest") }
  ]
}).pipe(Layer.provide(Transports.layer), Layer.provide(Layer.merge(NodeContext.layer, keepAliveHttpClient)))

describe("McpHost skills", () => {
  it.live("lists every ready server's skills, and loads one through its server, verified", () =>
    Effect.gen(function* () {
      const mcpHost = yield* McpHost.McpHost
      const skills = yield* mcpHost.skills
      expect(skills.map(({ server, skill }) => [server, skill.name, skill.uri])).toStrictEqual([
        ["docs", "pdf-processing", SKILL],
        ["tampered", "pdf-processing", SKILL]
      ])
      expect(skills[0]?.skill.description).toBe("Extract, fill, and assemble PDF documents")

      const loaded = yield* mcpHost.loadSkill("docs", "pdf-processing")
      expect(loaded.instructions).toBe("# PDF processing\n\nFill forms as references/FORMS.md says.\n")
      expect(loaded.files).toStrictEqual(["references/FORMS.md"])
      expect((yield* loaded.readFile("references/FORMS.md")).text).toBe("Forms: fill every field.\n")

      // The same skill on the other server does not match its listing: refused, naming server and field.
      const tampered = yield* Effect.flip(mcpHost.loadSkill("tampered", SKILL))
      expect(tampered).toMatchObject({ _tag: "SkillVerificationFailed", server: "tampered", field: "digest" })

      const unknown = yield* Effect.flip(mcpHost.loadSkill("docs", "no-such-skill"))
      expect(unknown).toMatchObject({ _tag: "SkillNotFound", server: "docs", name: "no-such-skill" })
      const nowhere = yield* Effect.flip(mcpHost.loadSkill("nowhere", "pdf-processing"))
      expect(nowhere).toMatchObject({ _tag: "ServerUnavailable", server: "nowhere" })
      const offline = yield* Effect.flip(mcpHost.loadSkill("plain", "pdf-processing"))
      expect(offline._tag).toBe("CapabilityNotSupported")

      // A server that stops serving takes its skills with it.
      yield* mcpHost.disable("docs")
      expect((yield* mcpHost.skills).map(({ server }) => server)).toStrictEqual(["tampered"])
      expect((yield* Effect.flip(mcpHost.loadSkill("docs", "pdf-processing")))._tag).toBe("ServerUnavailable")
    }).pipe(Effect.provide(host))
  )
})
