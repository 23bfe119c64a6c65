/** The Resources pane: resources and templates, read, subscribe, and the updates that come. */
import { useId, useState } from "react"
import * as Api from "../api.js"
import { defined, type ResourceInfo, readResourceInfo, readTemplate, type TemplateInfo } from "../mcp.js"
import { clearUpdated, useStore } from "../store.js"
import { CompletingInput } from "./Completion.js"
import { ReadResult } from "./ResultView.js"

type Selection =
  | { readonly t: "resource"; readonly uri: string }
  | { readonly t: "template"; readonly uriTemplate: string }

export function ResourcesPane(props: {
  readonly server: string
  readonly resources: ReadonlyArray<unknown>
  readonly templates: ReadonlyArray<unknown>
  readonly canSubscribe: boolean
}) {
  const resources = props.resources.map(readResourceInfo).filter(defined)
  const templates = props.templates.map(readTemplate).filter(defined)
  const updated = useStore((s) => s.updated[props.server])
  const [selected, setSelected] = useState<Selection | undefined>(undefined)
  const resource = selected?.t === "resource" ? resources.find((r) => r.uri === selected.uri) : undefined
  const template =
    selected?.t === "template" ? templates.find((r) => r.uriTemplate === selected.uriTemplate) : undefined
  return (
    <div className="master-detail">
      <div className="master">
        <h3 className="list-heading">Resources</h3>
        <ul className="item-list" aria-label="Resource list">
          {resources.map((r) => (
            <li key={r.uri} className={selected?.t === "resource" && selected.uri === r.uri ? "item selected" : "item"}>
              <button
                type="button"
                className="item-button stretched"
                onClick={() => setSelected({ t: "resource", uri: r.uri })}
              >
                {r.name}
              </button>
              {updated?.[r.uri] !== undefined ? <span className="badge attention">updated</span> : null}
              <span className="item-desc mono">{r.uri}</span>
            </li>
          ))}
          {resources.length === 0 ? <li className="muted empty">No resources.</li> : null}
        </ul>
        <h3 className="list-heading">Templates</h3>
        <ul className="item-list" aria-label="Template list">
          {templates.map((t) => (
            <li
              key={t.uriTemplate}
              className={
                selected?.t === "template" && selected.uriTemplate === t.uriTemplate ? "item selected" : "item"
              }
            >
              <button
                type="button"
                className="item-button stretched"
                onClick={() => setSelected({ t: "template", uriTemplate: t.uriTemplate })}
              >
                {t.name}
              </button>
              <span className="item-desc mono">{t.uriTemplate}</span>
            </li>
          ))}
          {templates.length === 0 ? <li className="muted empty">No templates.</li> : null}
        </ul>
      </div>
      <div className="detail">
        {resource !== undefined ? (
          <ResourceDetail
            key={resource.uri}
            server={props.server}
            resource={resource}
            canSubscribe={props.canSubscribe}
          />
        ) : template !== undefined ? (
          <TemplateDetail key={template.uriTemplate} server={props.server} template={template} />
        ) : (
          <p className="muted">Choose a resource or a template.</p>
        )}
      </div>
    </div>
  )
}

type ReadState =
  | { readonly s: "idle" }
  | { readonly s: "loading" }
  | { readonly s: "done"; readonly value: unknown }
  | { readonly s: "error"; readonly error: string }

const useRead = (server: string) => {
  const [state, setState] = useState<ReadState>({ s: "idle" })
  const read = (uri: string) => {
    setState({ s: "loading" })
    clearUpdated(server, uri)
    Api.readResource(server, uri).then(
      (value) => setState({ s: "done", value }),
      (e: unknown) => setState({ s: "error", error: Api.errorMessage(e) })
    )
  }
  return [state, read] as const
}

function ReadView(props: { readonly state: ReadState }) {
  const st = props.state
  return (
    <section aria-label="Result" className="call">
      {st.s === "loading" ? <p className="muted">Reading…</p> : null}
      {st.s === "error" ? <p className="error-text">{st.error}</p> : null}
      {st.s === "done" ? <ReadResult result={st.value} /> : null}
    </section>
  )
}

// Subscriptions are the page's to remember (the host keeps them per session).
const subscribed = new Set<string>()

function ResourceDetail(props: {
  readonly server: string
  readonly resource: ResourceInfo
  readonly canSubscribe: boolean
}) {
  const { server, resource } = props
  const [state, read] = useRead(server)
  const key = `${server}\u0000${resource.uri}`
  const [on, setOn] = useState(subscribed.has(key))
  const [subError, setSubError] = useState<string | undefined>(undefined)
  const updatedAt = useStore((s) => s.updated[server]?.[resource.uri])
  return (
    <article className="tool-detail">
      <header className="detail-head">
        <h3>{resource.title ?? resource.name}</h3>
        {resource.mimeType !== undefined ? <span className="badge">{resource.mimeType}</span> : null}
      </header>
      <p className="mono">{resource.uri}</p>
      {resource.description !== undefined ? <p className="description pre-wrap">{resource.description}</p> : null}
      <div className="button-row">
        <button type="button" className="primary" onClick={() => read(resource.uri)}>
          Read
        </button>
        <button
          type="button"
          aria-pressed={on}
          disabled={!props.canSubscribe}
          title={props.canSubscribe ? undefined : "The server does not offer subscriptions"}
          onClick={() => {
            const next = !on
            setSubError(undefined)
            Api.subscribe(server, resource.uri, next).then(
              () => {
                if (next) subscribed.add(key)
                else subscribed.delete(key)
                setOn(next)
              },
              (e: unknown) => setSubError(Api.errorMessage(e))
            )
          }}
        >
          {on ? "Subscribed" : "Subscribe"}
        </button>
        {updatedAt !== undefined ? (
          <span className="badge attention" role="status">
            updated {new Date(updatedAt).toLocaleTimeString()}
          </span>
        ) : null}
      </div>
      {subError !== undefined ? <p className="error-text">{subError}</p> : null}
      <ReadView state={state} />
    </article>
  )
}

/** The variables of an RFC 6570 template: `{a}`, `{+a}`, `{?a,b}`, `{/a}`, `{#a}`. */
export const templateVariables = (template: string): ReadonlyArray<string> => {
  const names: Array<string> = []
  for (const m of template.matchAll(/\{([+#./;?&]?)([^}]+)\}/g))
    for (const v of (m[2] ?? "").split(",")) {
      const name = v.replace(/[*]$|:\d+$/, "").trim()
      if (name !== "" && !names.includes(name)) names.push(name)
    }
  return names
}

export const expandTemplate = (template: string, values: Record<string, string>): string =>
  template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op: string, list: string) => {
    const vars = list.split(",").map((v) => v.replace(/[*]$|:\d+$/, "").trim())
    const present = vars.filter((v) => (values[v] ?? "") !== "")
    const raw = op === "+" || op === "#"
    const enc = (s: string) => (raw ? encodeURI(s) : encodeURIComponent(s))
    if (present.length === 0) return ""
    switch (op) {
      case "?":
      case "&":
        return op + present.map((v) => `${v}=${enc(values[v] ?? "")}`).join("&")
      case "/":
        return `/${present.map((v) => enc(values[v] ?? "")).join("/")}`
      case ".":
        return `.${present.map((v) => enc(values[v] ?? "")).join(".")}`
      case ";":
        return present.map((v) => `;${v}=${enc(values[v] ?? "")}`).join("")
      case "#":
        return `#${present.map((v) => enc(values[v] ?? "")).join(",")}`
      default:
        return present.map((v) => enc(values[v] ?? "")).join(",")
    }
  })

function TemplateDetail(props: { readonly server: string; readonly template: TemplateInfo }) {
  const { server, template } = props
  const vars = templateVariables(template.uriTemplate)
  const [values, setValues] = useState<Record<string, string>>({})
  const [state, read] = useRead(server)
  const id = useId().replace(/:/g, "")
  const uri = expandTemplate(template.uriTemplate, values)
  return (
    <article className="tool-detail">
      <header className="detail-head">
        <h3>{template.title ?? template.name}</h3>
        {template.mimeType !== undefined ? <span className="badge">{template.mimeType}</span> : null}
      </header>
      <p className="mono">{template.uriTemplate}</p>
      {template.description !== undefined ? <p className="description pre-wrap">{template.description}</p> : null}
      <form
        className="tool-form"
        onSubmit={(e) => {
          e.preventDefault()
          read(uri)
        }}
      >
        {vars.map((v) => (
          <div className="field" key={v}>
            <label htmlFor={`${id}-${v}`}>{v}</label>
            <CompletingInput
              id={`${id}-${v}`}
              server={server}
              completeRef={{ type: "ref/resource", uri: template.uriTemplate }}
              argument={v}
              value={values[v] ?? ""}
              context={values}
              onChange={(x) => setValues((prev) => ({ ...prev, [v]: x }))}
            />
          </div>
        ))}
        <p className="muted">
          URI: <code>{uri}</code>
        </p>
        <div className="button-row">
          <button type="submit" className="primary">
            Read
          </button>
        </div>
      </form>
      <ReadView state={state} />
    </article>
  )
}
