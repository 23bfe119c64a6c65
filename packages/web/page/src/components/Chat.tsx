/** The chat: the conversation with the model over every server's tools, drawn as it happens. */
import { type KeyboardEvent, useId, useLayoutEffect, useRef, useState } from "react"
import type { ChatMessage, InputRequest } from "../../../src/Api.js"
import * as Api from "../api.js"
import { isObject, pretty } from "../mcp.js"
import { sendChat, useStore } from "../store.js"
import { AppView } from "./AppView.js"
import { InputRequestView } from "./InputRequest.js"
import { Markdown } from "./Markdown.js"
import { ContentList } from "./ResultView.js"

/** Short arguments on one line, longer ones pretty. */
const compactJson = (u: unknown) => {
  const one = JSON.stringify(u) ?? "undefined"
  return one.length <= 100 ? one : pretty(u)
}

type ToolMessage = Extract<ChatMessage, { _tag: "Tool" }>

/** The turn still running: the store's (sent from this page) or the last turn without its end. */
const runningTurn = (conversation: ReadonlyArray<ChatMessage>, turn: string | undefined): string | undefined => {
  const last = conversation[conversation.length - 1]
  const candidate = turn ?? last?.turnId
  if (candidate === undefined) return undefined
  const ended = conversation.some((m) => m.turnId === candidate && (m._tag === "Done" || m._tag === "Error"))
  return ended ? undefined : candidate
}

export function ChatPane(props: { readonly onClose?: () => void }) {
  const conversation = useStore((s) => s.conversation)
  const chat = useStore((s) => s.chat)
  const turn = useStore((s) => s.turn)
  const pending = useStore((s) => s.pending)
  const [text, setText] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const [sending, setSending] = useState(false)
  const id = useId()
  const logRef = useRef<HTMLDivElement>(null)
  const running = runningTurn(conversation, turn)
  const thinking =
    running !== undefined &&
    !conversation.some((m) => m.turnId === running && (m._tag === "Assistant" || m._tag === "Tool"))

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll as the conversation grows
  useLayoutEffect(() => {
    const el = logRef.current
    if (el !== null) el.scrollTop = el.scrollHeight
  }, [conversation, thinking])

  const send = () => {
    const t = text.trim()
    if (t === "" || sending || running !== undefined) return
    setSending(true)
    setError(undefined)
    sendChat(t).then(
      () => {
        setSending(false)
        setText("")
      },
      (e: unknown) => {
        setSending(false)
        setError(Api.errorMessage(e))
      }
    )
  }
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      send()
    }
  }

  return (
    <section className="pane chat" aria-label="Chat">
      <div className="pane-head">
        <h2>Chat</h2>
        <span className="muted ellipsis">
          {chat.available
            ? `${chat.model ?? "model"} · up to ${chat.maxToolCalls} tool calls a turn`
            : "no model configured"}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="small"
          disabled={conversation.length === 0}
          onClick={() => void Api.chatClear().catch((e: unknown) => setError(Api.errorMessage(e)))}
        >
          Clear
        </button>
        {props.onClose !== undefined ? (
          <button type="button" className="small" onClick={props.onClose} aria-label="Close pane">
            Close
          </button>
        ) : null}
      </div>
      {!chat.available ? (
        <div className="hint" role="note">
          <strong>Chat needs a model.</strong>
          <p className="pre-wrap">{chat.hint ?? "Configure an llm in the config file."}</p>
        </div>
      ) : null}
      {/* Scrollable, so focusable: the keyboard can scroll it. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus */}
      <div ref={logRef} className="conversation" role="log" aria-label="Conversation" tabIndex={0}>
        {conversation.length === 0 && chat.available ? (
          <p className="muted pad">Ask something; the model can use every ready server's tools.</p>
        ) : null}
        {conversation.map((m) => (
          <Message key={messageKey(m)} message={m} pending={pending} />
        ))}
        {thinking ? (
          <div className="thinking" role="status">
            <span className="dots" aria-hidden="true" />
            thinking…
          </div>
        ) : null}
      </div>
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault()
          send()
        }}
      >
        <label htmlFor={id} className="visually-hidden">
          Message
        </label>
        <textarea
          id={id}
          rows={3}
          value={text}
          placeholder={chat.available ? "Message (Enter sends, Shift+Enter for a new line)" : "Chat is not configured"}
          disabled={!chat.available}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
        />
        <button
          type="submit"
          className="primary"
          disabled={!chat.available || sending || running !== undefined || text.trim() === ""}
        >
          Send
        </button>
      </form>
      {error !== undefined ? (
        <p className="error-text pad" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  )
}

const messageKey = (m: ChatMessage) =>
  m._tag === "Tool"
    ? `${m.turnId}-tool-${m.callId}`
    : m._tag === "Assistant"
      ? `${m.turnId}-a-${m.part}`
      : `${m.turnId}-${m._tag}`

function Message(props: { readonly message: ChatMessage; readonly pending: ReadonlyArray<InputRequest> }) {
  const m = props.message
  switch (m._tag) {
    case "User":
      return (
        <div className="msg msg-user">
          <span className="role">{m.view !== undefined ? `You, from the view of ${m.view}` : "You"}</span>
          <p className="pre-wrap">{m.text}</p>
        </div>
      )
    case "Assistant":
      return (
        <div className="msg msg-assistant">
          <span className="role">Assistant</span>
          <Markdown text={m.text} />
        </div>
      )
    case "Tool":
      return <ToolCard message={m} pending={props.pending} />
    case "Error":
      return (
        <div className="msg msg-error" role="alert">
          <span className="role">Error</span>
          <p className="pre-wrap">{m.message}</p>
        </div>
      )
    case "Done":
      return (
        <div className="msg-done">
          Done · {m.toolCalls} tool call{m.toolCalls === 1 ? "" : "s"}
          {m.limitReached ? <span className="badge warn">stopped at the limit</span> : null}
        </div>
      )
  }
}

function ToolCard(props: { readonly message: ToolMessage; readonly pending: ReadonlyArray<InputRequest> }) {
  const m = props.message
  const [answered, setAnswered] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const done = m.result !== undefined || m.content !== undefined
  const inputs = props.pending.filter((p) => p.callId === m.callId)
  const approve = (allow: boolean) => {
    setAnswered(true)
    Api.chatApprove(m.callId, allow).catch((e: unknown) => {
      setAnswered(false)
      setError(Api.errorMessage(e))
    })
  }
  return (
    <article className={m.isError === true ? "tool-card is-error" : "tool-card"} aria-label={`Tool call ${m.name}`}>
      <header className="tool-card-head">
        <span className="tool-icon" aria-hidden="true">
          ⚙
        </span>
        <code className="tool-name">{m.name}</code>
        {m.server !== undefined ? <span className="badge">{m.server}</span> : null}
        <span className="spacer" />
        {m.awaitingApproval === true ? (
          <span className="badge attention">awaiting approval</span>
        ) : !done ? (
          <span className="badge running">running</span>
        ) : m.isError === true ? (
          <span className="badge bad">error</span>
        ) : (
          <span className="badge ok">done</span>
        )}
      </header>
      <pre className="json args">{compactJson(m.arguments)}</pre>
      {m.progress !== undefined && !done ? (
        <div className="progress-row">
          {m.progress.total !== undefined ? (
            <progress value={m.progress.progress} max={m.progress.total} aria-label="Progress" />
          ) : (
            <progress aria-label="Progress" />
          )}
          <span className="progress-text">
            {m.progress.progress}
            {m.progress.total !== undefined ? ` / ${m.progress.total}` : ""}
            {m.progress.message !== undefined ? ` — ${m.progress.message}` : ""}
          </span>
        </div>
      ) : null}
      {m.awaitingApproval === true ? (
        <div className="button-row">
          <button type="button" className="primary" disabled={answered} onClick={() => approve(true)}>
            Allow
          </button>
          <button type="button" disabled={answered} onClick={() => approve(false)}>
            Deny
          </button>
        </div>
      ) : null}
      {error !== undefined ? <p className="error-text">{error}</p> : null}
      {inputs.map((r) => (
        <InputRequestView key={r.id} request={r} />
      ))}
      {Array.isArray(m.content) && m.content.length > 0 ? (
        <div className="tool-card-result">
          <ContentList content={m.content} server={m.server} />
        </div>
      ) : m.result !== undefined ? (
        <pre className="text-block tool-card-result">{m.result}</pre>
      ) : null}
      {m.view !== undefined && m.server !== undefined && m.tool !== undefined && m.awaitingApproval !== true ? (
        <AppView
          server={m.server}
          tool={m.tool}
          uri={m.view}
          arguments={isObject(m.arguments) ? m.arguments : {}}
          {...(done
            ? {
                result: {
                  content: Array.isArray(m.content) ? m.content : [{ type: "text", text: m.result ?? "" }],
                  ...(m.isError === true ? { isError: true } : {})
                }
              }
            : {})}
        />
      ) : null}
    </article>
  )
}
