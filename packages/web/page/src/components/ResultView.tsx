/** MCP content rendered by kind: text (Markdown when it reads so), images, audio, links, resources. */
import { useEffect, useState } from "react"
import * as Api from "../api.js"
import { isObject, type JsonObject, pretty, str } from "../mcp.js"
import { looksLikeMarkdown, Markdown } from "./Markdown.js"

export function TextView(props: { readonly text: string }) {
  if (looksLikeMarkdown(props.text)) return <Markdown text={props.text} />
  return <pre className="text-block">{props.text}</pre>
}

const dataUrl = (mimeType: string, base64: string) => `data:${mimeType};base64,${base64}`

/** A safe media type for a `data:` URL (a server could send anything there). */
const mediaType = (u: unknown, fallback: string): string =>
  typeof u === "string" && /^[\w.+-]+\/[\w.+-]+$/.test(u) ? u : fallback

function BlobDownload(props: { readonly blob: string; readonly mimeType: string; readonly name: string }) {
  const [url, setUrl] = useState<string | undefined>(undefined)
  useEffect(() => {
    let objectUrl: string | undefined
    try {
      const bytes = Uint8Array.from(atob(props.blob), (c) => c.charCodeAt(0))
      objectUrl = URL.createObjectURL(new Blob([bytes], { type: props.mimeType }))
      setUrl(objectUrl)
    } catch {
      setUrl(undefined)
    }
    return () => {
      if (objectUrl !== undefined) URL.revokeObjectURL(objectUrl)
    }
  }, [props.blob, props.mimeType])
  const size = Math.floor((props.blob.length * 3) / 4)
  return url === undefined ? (
    <span className="muted">undecodable blob</span>
  ) : (
    <a href={url} download={props.name} className="download">
      Download {props.name} ({props.mimeType}, {size} bytes)
    </a>
  )
}

/** One entry of `resources/read`'s `contents` (or an embedded resource). */
export function ResourceContent(props: { readonly content: JsonObject }) {
  const c = props.content
  const uri = str(c.uri) ?? ""
  const mimeType = mediaType(c.mimeType, "application/octet-stream")
  const name = uri.split("/").pop() || "resource"
  return (
    <div className="resource-content">
      <div className="resource-head">
        <code>{uri}</code>
        {typeof c.mimeType === "string" ? <span className="badge">{c.mimeType}</span> : null}
      </div>
      {typeof c.text === "string" ? (
        mimeType === "application/json" ? (
          <pre className="text-block">{reformatJson(c.text)}</pre>
        ) : mimeType === "text/markdown" ? (
          <Markdown text={c.text} />
        ) : (
          <pre className="text-block">{c.text}</pre>
        )
      ) : typeof c.blob === "string" ? (
        <>
          {mimeType.startsWith("image/") ? (
            <img className="result-image" src={dataUrl(mimeType, c.blob)} alt={uri} />
          ) : mimeType.startsWith("audio/") ? (
            // biome-ignore lint/a11y/useMediaCaption: a server's audio comes without captions
            <audio controls src={dataUrl(mimeType, c.blob)} aria-label={`Audio ${uri}`} />
          ) : null}
          <BlobDownload blob={c.blob} mimeType={mimeType} name={name} />
        </>
      ) : (
        <pre className="text-block">{pretty(c)}</pre>
      )}
    </div>
  )
}

const reformatJson = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** The answer of `resources/read`: its contents, each by kind. */
export function ReadResult(props: { readonly result: unknown }) {
  const contents = isObject(props.result) && Array.isArray(props.result.contents) ? props.result.contents : []
  if (contents.length === 0) return <p className="muted">No contents.</p>
  return (
    <div className="contents">
      {contents.map((c, i) =>
        isObject(c) ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: contents have no identity but their place
          <ResourceContent key={i} content={c} />
        ) : null
      )}
    </div>
  )
}

function ResourceLink(props: { readonly block: JsonObject; readonly server: string | undefined }) {
  const uri = str(props.block.uri) ?? ""
  const [state, setState] = useState<
    | { readonly s: "idle" }
    | { readonly s: "loading" }
    | { readonly s: "done"; readonly result: unknown }
    | { readonly s: "error"; readonly error: string }
  >({ s: "idle" })
  const server = props.server
  return (
    <div className="resource-link">
      <button
        type="button"
        className="link-button"
        disabled={server === undefined || state.s === "loading"}
        onClick={() => {
          if (server === undefined) return
          setState({ s: "loading" })
          Api.readResource(server, uri).then(
            (result) => setState({ s: "done", result }),
            (e: unknown) => setState({ s: "error", error: Api.errorMessage(e) })
          )
        }}
      >
        {str(props.block.name) ?? uri}
      </button>{" "}
      <code className="muted">{uri}</code>
      {typeof props.block.description === "string" ? <p className="muted">{props.block.description}</p> : null}
      {state.s === "loading" ? <p className="muted">Reading…</p> : null}
      {state.s === "error" ? <p className="error-text">{state.error}</p> : null}
      {state.s === "done" ? <ReadResult result={state.result} /> : null}
    </div>
  )
}

/** One content block of a tool result or a prompt message. */
export function ContentBlock(props: { readonly block: unknown; readonly server: string | undefined }) {
  const b = props.block
  if (!isObject(b)) return <pre className="text-block">{pretty(b)}</pre>
  switch (b.type) {
    case "text":
      return <TextView text={str(b.text) ?? ""} />
    case "image":
      return typeof b.data === "string" ? (
        <img className="result-image" src={dataUrl(mediaType(b.mimeType, "image/png"), b.data)} alt="From the server" />
      ) : null
    case "audio":
      return typeof b.data === "string" ? (
        // biome-ignore lint/a11y/useMediaCaption: a server's audio comes without captions
        <audio controls src={dataUrl(mediaType(b.mimeType, "audio/wav"), b.data)} aria-label="Audio from the server" />
      ) : null
    case "resource_link":
      return <ResourceLink block={b} server={props.server} />
    case "resource":
      return isObject(b.resource) ? <ResourceContent content={b.resource} /> : null
    default:
      return <pre className="text-block">{pretty(b)}</pre>
  }
}

export function ContentList(props: { readonly content: unknown; readonly server: string | undefined }) {
  const blocks = Array.isArray(props.content) ? props.content : []
  return (
    <div className="content-list">
      {blocks.map((b, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: blocks have no identity but their place
        <div key={i} className="content-block">
          <ContentBlock block={b} server={props.server} />
        </div>
      ))}
    </div>
  )
}

/** A `tools/call` result: its content, `structuredContent` with the `outputSchema` check, `isError`. */
export function ToolResult(props: {
  readonly result: unknown
  readonly outputCheck: string | undefined
  readonly server: string | undefined
}) {
  const r = isObject(props.result) ? props.result : {}
  const isError = r.isError === true
  const content = Array.isArray(r.content) ? r.content : []
  return (
    <div className={isError ? "tool-result is-error" : "tool-result"}>
      {isError ? <p className="error-title">The tool reported an error</p> : null}
      {content.length > 0 ? <ContentList content={content} server={props.server} /> : null}
      {"structuredContent" in r ? (
        <div className="structured">
          <div className="structured-head">
            <span>structuredContent</span>
            {props.outputCheck !== undefined ? (
              <span className={props.outputCheck === "valid" ? "badge ok" : "badge bad"}>
                {props.outputCheck === "valid" ? "matches outputSchema" : `outputSchema: ${props.outputCheck}`}
              </span>
            ) : null}
          </div>
          <pre className="json">{pretty(r.structuredContent)}</pre>
        </div>
      ) : null}
      {content.length === 0 && !("structuredContent" in r) ? <p className="muted">Empty result.</p> : null}
    </div>
  )
}
