/** The reference server in its stdio mode (the HTTP modes are in EverythingHttp.test.ts). */

import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect } from "@effect/vitest"
import { StdioTransport } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { everythingSuite } from "./support/everything.js"
import { children, everythingServer } from "./support/processes.js"

everythingSuite(
  "stdio",
  () =>
    StdioTransport.layer({
      command: process.execPath,
      args: [everythingServer, "stdio"],
      name: "everything",
      shutdown: { afterStdin: "500 millis", afterTerm: "1 second" }
    }).pipe(Layer.provide(NodeContext.layer)),
  Effect.sync(() => expect(children().filter((line) => line.includes(everythingServer))).toStrictEqual([]))
)
