/** The Prompts pane: the list, an argument form with completion, the messages of `prompts/get`. */
import { useId, useState } from "react"
import * as Api from "../api.js"
import { defined, isObject, type PromptInfo, readPrompt, str } from "../mcp.js"
import { CompletingInput } from "./Completion.js"
import { ContentBlock } from "./ResultView.js"

export function PromptsPane(props: { readonly server: string; readonly prompts: ReadonlyArray<unknown> }) {
  const prompts = props.prompts.map(readPrompt).filter(defined)
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const prompt = prompts.find((p) => p.name === selected)
  return (
    <div className="master-detail">
      <div className="master">
        <ul className="item-list" aria-label="Prompt list">
          {prompts.map((p) => (
            <li key={p.name} className={p.name === selected ? "item selected" : "item"}>
              <button
                type="button"
                className="item-button stretched"
                aria-current={p.name === selected ? "true" : undefined}
                onClick={() => setSelected(p.name)}
              >
                {p.name}
              </button>
              {p.title !== undefined ? <span className="item-title">{p.title}</span> : null}
              {p.description !== undefined ? <span className="item-desc">{p.description}</span> : null}
            </li>
          ))}
          {prompts.length === 0 ? <li className="muted empty">No prompts.</li> : null}
        </ul>
      </div>
      <div className="detail">
        {prompt !== undefined ? (
          <PromptDetail key={prompt.name} server={props.server} prompt={prompt} />
        ) : (
          <p className="muted">Choose a prompt.</p>
        )}
      </div>
    </div>
  )
}

function PromptDetail(props: { readonly server: string; readonly prompt: PromptInfo }) {
  const { prompt, server } = props
  const [args, setArgs] = useState<Record<string, string>>({})
  const [result, setResult] = useState<
    | { readonly s: "idle" }
    | { readonly s: "loading" }
    | { readonly s: "done"; readonly value: unknown }
    | { readonly s: "error"; readonly error: string }
  >({ s: "idle" })
  const id = useId().replace(/:/g, "")
  const ref: Api.CompleteRef = { type: "ref/prompt", name: prompt.name }
  return (
    <article className="tool-detail" aria-labelledby={`${id}-h`}>
      <header className="detail-head">
        <h3 id={`${id}-h`}>
          <code>{prompt.name}</code>
        </h3>
      </header>
      {prompt.description !== undefined ? <p className="description pre-wrap">{prompt.description}</p> : null}
      <form
        className="tool-form"
        onSubmit={(e) => {
          e.preventDefault()
          setResult({ s: "loading" })
          const filled = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== ""))
          Api.getPrompt(server, prompt.name, filled).then(
            (value) => setResult({ s: "done", value }),
            (err: unknown) => setResult({ s: "error", error: Api.errorMessage(err) })
          )
        }}
      >
        {prompt.arguments.length === 0 ? <p className="muted">No arguments.</p> : null}
        {prompt.arguments.map((a) => (
          <div className="field" key={a.name}>
            <label htmlFor={`${id}-${a.name}`}>
              {a.name}
              {a.required ? (
                <span className="required">
                  *<span className="visually-hidden"> (required)</span>
                </span>
              ) : null}
            </label>
            <CompletingInput
              id={`${id}-${a.name}`}
              server={server}
              completeRef={ref}
              argument={a.name}
              value={args[a.name] ?? ""}
              context={args}
              required={a.required}
              describedBy={a.description !== undefined ? `${id}-${a.name}-d` : undefined}
              onChange={(v) => setArgs((prev) => ({ ...prev, [a.name]: v }))}
            />
            {a.description !== undefined ? (
              <p className="field-desc" id={`${id}-${a.name}-d`}>
                {a.description}
              </p>
            ) : null}
          </div>
        ))}
        <div className="button-row">
          <button type="submit" className="primary" disabled={result.s === "loading"}>
            Get
          </button>
        </div>
      </form>
      <section aria-label="Result" className="call">
        {result.s === "loading" ? <p className="muted">Getting…</p> : null}
        {result.s === "error" ? <p className="error-text">{result.error}</p> : null}
        {result.s === "done" ? <PromptMessages result={result.value} server={server} /> : null}
      </section>
    </article>
  )
}

export function PromptMessages(props: { readonly result: unknown; readonly server: string }) {
  const r = isObject(props.result) ? props.result : {}
  const messages = Array.isArray(r.messages) ? r.messages : []
  return (
    <div>
      {typeof r.description === "string" ? <p className="muted">{r.description}</p> : null}
      <ol className="prompt-messages">
        {messages.map((m, i) => {
          const msg = isObject(m) ? m : {}
          const role = str(msg.role) ?? "?"
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: messages have no identity but their place
            <li key={i} className={`prompt-message role-${role}`}>
              <span className="role">{role}</span>
              {(Array.isArray(msg.content) ? msg.content : [msg.content]).map((c, j) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: as above
                <ContentBlock key={j} block={c} server={props.server} />
              ))}
            </li>
          )
        })}
      </ol>
    </div>
  )
}
