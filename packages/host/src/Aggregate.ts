/**
 * The aggregated view of many servers: every ready server's tools, resources, resource
 * templates and prompts in one list, with names made unique by a namespacing rule. Pure:
 * the same servers in the same order always give the same names.
 *
 * Collisions (two servers' entries that the rule maps to one name, or one URI listed by two
 * servers) are resolved by server order: the first keeps the name; a later tool or prompt gets
 * `_2`, `_3`, … appended; a later resource with the same URI is left out. Each is reported.
 *
 * @since 0.1.0
 */
import type { McpClient, Skills } from "@effect-mcp/client"
import type { McpSchema } from "@effect-mcp/protocol"

/**
 * Matches a URI against an RFC 6570 template's literal parts (each expression matches one or more characters).
 *
 * @since 0.1.0
 * @category predicates
 */
export const templateMatches = (template: string, uri: string): boolean => {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".+")
  return new RegExp(`^${pattern}$`).test(uri)
}

/**
 * Maps a server's name and an entry's own name to the name the host shows.
 *
 * @since 0.1.0
 * @category models
 */
export type Namespace = (server: string, name: string) => string

/**
 * The default rule: `<server>__<name>`.
 *
 * @since 0.1.0
 * @category naming
 */
export const defaultNamespace: Namespace = (server, name) => `${server}__${name}`

/**
 * What one ready server lists.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerLists {
  readonly server: string
  readonly tools: ReadonlyArray<McpClient.Tool>
  readonly resources: ReadonlyArray<McpSchema.Resource>
  readonly resourceTemplates: ReadonlyArray<McpSchema.ResourceTemplate>
  readonly prompts: ReadonlyArray<McpSchema.Prompt>
}

/**
 * A tool of one server under its host-wide name.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostTool {
  readonly name: string
  readonly server: string
  readonly tool: McpClient.Tool
}

/**
 * A prompt of one server under its host-wide name.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostPrompt {
  readonly name: string
  readonly server: string
  readonly prompt: McpSchema.Prompt
}

/**
 * A resource and the server that listed it (reads of its URI go there).
 *
 * @since 0.1.0
 * @category models
 */
export interface HostResource {
  readonly server: string
  readonly resource: McpSchema.Resource
}

/**
 * A skill of one server (the skills extension). Like a resource, it keeps its server's identity
 * (the URI of its `SKILL.md`) and is loaded through that server: names are not unique, even on
 * one server.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostSkill {
  readonly server: string
  readonly skill: Skills.Skill
}

/**
 * A resource template and its server.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostResourceTemplate {
  readonly server: string
  readonly template: McpSchema.ResourceTemplate
}

/**
 * Two or more entries that wanted one name; `kept` has it, `renamed` got new names (`dropped` for resources).
 *
 * @since 0.1.0
 * @category models
 */
export interface Collision {
  readonly kind: "tool" | "prompt" | "resource"
  readonly name: string
  readonly kept: string
  readonly others: ReadonlyArray<{ readonly server: string; readonly name: string | undefined }>
}

/**
 * The aggregated view.
 *
 * @since 0.1.0
 * @category models
 */
export interface Aggregate {
  readonly tools: ReadonlyArray<HostTool>
  readonly prompts: ReadonlyArray<HostPrompt>
  readonly resources: ReadonlyArray<HostResource>
  readonly resourceTemplates: ReadonlyArray<HostResourceTemplate>
  readonly collisions: ReadonlyArray<Collision>
}

const uniqueNames = <A>(
  kind: "tool" | "prompt",
  servers: ReadonlyArray<ServerLists>,
  entries: (lists: ServerLists) => ReadonlyArray<A>,
  nameOf: (entry: A) => string,
  namespace: Namespace,
  collisions: Array<Collision>
): Array<{ readonly name: string; readonly server: string; readonly entry: A }> => {
  const taken = new Map<string, string>()
  const out: Array<{ readonly name: string; readonly server: string; readonly entry: A }> = []
  const clashes = new Map<string, { kept: string; others: Array<{ server: string; name: string }> }>()
  for (const lists of servers) {
    for (const entry of entries(lists)) {
      const wanted = namespace(lists.server, nameOf(entry))
      let name = wanted
      for (let n = 2; taken.has(name); n++) name = `${wanted}_${n}`
      if (name !== wanted) {
        const clash = clashes.get(wanted) ?? { kept: taken.get(wanted) ?? "", others: [] }
        clash.others.push({ server: lists.server, name })
        clashes.set(wanted, clash)
      }
      taken.set(name, lists.server)
      out.push({ name, server: lists.server, entry })
    }
  }
  for (const [name, clash] of clashes) collisions.push({ kind, name, ...clash })
  return out
}

/**
 * The aggregated view of these servers, in this order.
 *
 * @since 0.1.0
 * @category constructors
 */
export const aggregate = (servers: ReadonlyArray<ServerLists>, namespace: Namespace = defaultNamespace): Aggregate => {
  const collisions: Array<Collision> = []
  const tools = uniqueNames(
    "tool",
    servers,
    (lists) => lists.tools,
    (tool) => tool.name,
    namespace,
    collisions
  ).map(({ name, server, entry }) => ({ name, server, tool: entry }))
  const prompts = uniqueNames(
    "prompt",
    servers,
    (lists) => lists.prompts,
    (prompt) => prompt.name,
    namespace,
    collisions
  ).map(({ name, server, entry }) => ({ name, server, prompt: entry }))
  const owners = new Map<string, string>()
  const dropped = new Map<string, Array<{ server: string; name: undefined }>>()
  const resources: Array<HostResource> = []
  for (const lists of servers) {
    for (const resource of lists.resources) {
      // A view (MCP Apps, `ui://`) is its server's own: two servers may give the same address, and
      // each is kept (a gateway tells them apart by server).
      if (resource.uri.startsWith("ui://")) {
        resources.push({ server: lists.server, resource })
        continue
      }
      const owner = owners.get(resource.uri)
      if (owner === undefined) {
        owners.set(resource.uri, lists.server)
        resources.push({ server: lists.server, resource })
      } else if (owner !== lists.server) {
        const list = dropped.get(resource.uri) ?? []
        list.push({ server: lists.server, name: undefined })
        dropped.set(resource.uri, list)
      }
    }
  }
  for (const [uri, others] of dropped)
    collisions.push({ kind: "resource", name: uri, kept: owners.get(uri) ?? "", others })
  const resourceTemplates = servers.flatMap((lists) =>
    lists.resourceTemplates.map((template) => ({ server: lists.server, template }))
  )
  return { tools, prompts, resources, resourceTemplates, collisions }
}

/**
 * Does a tool pass a server's allow and deny lists? (No allow list allows everything.)
 *
 * @since 0.1.0
 * @category guards
 */
export const allowed = (
  tool: string,
  policy: { readonly allowTools?: ReadonlyArray<string>; readonly denyTools?: ReadonlyArray<string> }
): boolean =>
  (policy.allowTools === undefined || policy.allowTools.includes(tool)) && !(policy.denyTools ?? []).includes(tool)
