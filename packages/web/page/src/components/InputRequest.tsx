/** What a server asks of the user (elicitation, sampling), answered inline. */
import { useId, useState } from "react"
import type { InputAnswer, InputRequest } from "../../../src/Api.js"
import * as Api from "../api.js"
import { isObject, isWebUrl, type JsonObject, str } from "../mcp.js"
import { useStore } from "../store.js"
import { ContentBlock } from "./ResultView.js"
import { initialValue, SchemaForm } from "./SchemaForm.js"

const kindTitle: Record<InputRequest["kind"], string> = {
  "elicitation-form": "asks for input",
  "elicitation-url": "asks you to open a page",
  sampling: "asks for a model answer (sampling)"
}

export function InputRequestView(props: { readonly request: InputRequest }) {
  const r = props.request
  const [sending, setSending] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const params = isObject(r.params) ? r.params : {}
  const answer = (a: InputAnswer) => {
    setSending(true)
    setError(undefined)
    Api.answerInput(r.id, a).then(
      () => setSending(false),
      (e: unknown) => {
        setSending(false)
        setError(Api.errorMessage(e))
      }
    )
  }
  const headingId = useId()
  return (
    <section className={`input-request kind-${r.kind}`} aria-labelledby={headingId}>
      <h4 id={headingId}>
        <span className="server-name">{r.server}</span> {kindTitle[r.kind]}
      </h4>
      {r.kind === "elicitation-form" ? (
        <ElicitForm params={params} answer={answer} sending={sending} />
      ) : r.kind === "elicitation-url" ? (
        <ElicitUrl params={params} answer={answer} sending={sending} />
      ) : (
        <Sampling params={params} answer={answer} sending={sending} server={r.server} />
      )}
      {error !== undefined ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  )
}

interface KindProps {
  readonly params: JsonObject
  readonly answer: (a: InputAnswer) => void
  readonly sending: boolean
}

const result = (r: unknown): InputAnswer => ({ _tag: "Result", result: r })

function ElicitForm(props: KindProps) {
  const schema = isObject(props.params.requestedSchema) ? props.params.requestedSchema : { type: "object" }
  const [value, setValue] = useState<unknown>(() => initialValue(schema, schema, true) ?? {})
  const id = useId()
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault()
        props.answer(result({ action: "accept", content: isObject(value) ? value : {} }))
      }}
    >
      {typeof props.params.message === "string" ? <p className="request-message">{props.params.message}</p> : null}
      <SchemaForm schema={schema} value={value} onChange={setValue} idPrefix={`el${id.replace(/:/g, "")}`} />
      <div className="button-row">
        <button type="submit" className="primary" disabled={props.sending}>
          Accept
        </button>
        <button type="button" disabled={props.sending} onClick={() => props.answer(result({ action: "decline" }))}>
          Decline
        </button>
        <button type="button" disabled={props.sending} onClick={() => props.answer(result({ action: "cancel" }))}>
          Cancel
        </button>
      </div>
    </form>
  )
}

function ElicitUrl(props: KindProps) {
  const url = str(props.params.url) ?? ""
  const safe = isWebUrl(url)
  const [opened, setOpened] = useState(false)
  return (
    <div>
      {typeof props.params.message === "string" ? <p className="request-message">{props.params.message}</p> : null}
      <p>
        <code className="url">{url}</code>
      </p>
      {safe ? null : <p className="error-text">Only http and https addresses are opened.</p>}
      <div className="button-row">
        <button
          type="button"
          className="primary"
          disabled={!safe || props.sending}
          onClick={() => {
            window.open(url, "_blank", "noopener,noreferrer")
            setOpened(true)
          }}
        >
          Open
        </button>
        <button
          type="button"
          disabled={!opened || props.sending}
          onClick={() => props.answer(result({ action: "accept" }))}
        >
          Done
        </button>
        <button type="button" disabled={props.sending} onClick={() => props.answer(result({ action: "decline" }))}>
          Decline
        </button>
      </div>
    </div>
  )
}

function Sampling(props: KindProps & { readonly server: string }) {
  const messages = Array.isArray(props.params.messages) ? props.params.messages : []
  const [text, setText] = useState("")
  const id = useId()
  // With a chat model configured, it may answer instead of the user.
  const model = useStore((snapshot) => (snapshot.chat.available ? snapshot.chat.model : undefined))
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault()
        props.answer(
          result({ role: "assistant", content: { type: "text", text }, model: "human", stopReason: "endTurn" })
        )
      }}
    >
      {typeof props.params.systemPrompt === "string" ? (
        <p className="muted">
          System prompt: <span className="pre-wrap">{props.params.systemPrompt}</span>
        </p>
      ) : null}
      <ol className="sampling-messages">
        {messages.map((m, i) => {
          const msg = isObject(m) ? m : {}
          const content = Array.isArray(msg.content) ? msg.content : [msg.content]
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: messages have no identity but their place
            <li key={i} className={`sampling-message role-${str(msg.role) ?? "user"}`}>
              <span className="role">{str(msg.role) ?? "?"}</span>
              {content.map((c, j) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: as above
                <ContentBlock key={j} block={c} server={props.server} />
              ))}
            </li>
          )
        })}
      </ol>
      {typeof props.params.maxTokens === "number" ? (
        <p className="muted">Up to {props.params.maxTokens} tokens.</p>
      ) : null}
      <div className="field">
        <label htmlFor={id}>Answer (as the assistant)</label>
        <textarea id={id} rows={4} value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <div className="button-row">
        <button type="submit" className="primary" disabled={props.sending}>
          Send
        </button>
        {model === undefined ? null : (
          <button type="button" disabled={props.sending} onClick={() => props.answer({ _tag: "AskModel" })}>
            Ask {model}
          </button>
        )}
        <button
          type="button"
          disabled={props.sending}
          onClick={() => props.answer({ _tag: "Refuse", message: "The user refused the sampling request." })}
        >
          Refuse
        </button>
      </div>
    </form>
  )
}
