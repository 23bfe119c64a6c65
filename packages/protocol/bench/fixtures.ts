/** Realistic messages for the decode benchmark: what a client receives most often. */

/** A `tools/list` result with `count` tools, each with a small input schema and annotations. */
export const toolsListResult = (count: number) => ({
  tools: Array.from({ length: count }, (_, index) => ({
    name: `tool_${index}`,
    title: `Tool number ${index}`,
    description: `Does thing ${index} to the workspace. Accepts a path, a mode and an optional limit.`,
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "A file path" },
        mode: { type: "string", enum: ["read", "write", "append"] },
        limit: { type: "integer", minimum: 1, maximum: 1000 }
      },
      required: ["path", "mode"]
    },
    annotations: { readOnlyHint: index % 2 === 0, destructiveHint: false, openWorldHint: false },
    _meta: { "example.com/rank": index }
  })),
  nextCursor: "page-2"
})

/** A `tools/call` result with text, an image, a resource link and structured content. */
export const toolsCallResult = () => ({
  content: [
    { type: "text", text: "The operation completed. 3 files changed, 120 lines added." },
    { type: "text", text: JSON.stringify({ changed: ["a.ts", "b.ts", "c.ts"], added: 120 }) },
    {
      type: "image",
      data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
      mimeType: "image/png"
    },
    { type: "resource_link", uri: "file:///workspace/a.ts", name: "a.ts", mimeType: "text/typescript" }
  ],
  structuredContent: { changed: ["a.ts", "b.ts", "c.ts"], added: 120 },
  isError: false
})
