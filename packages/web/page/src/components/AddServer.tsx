/**
 * Adding a server: a command (with its arguments and environment) or a URL (with headers). The
 * first step only shows the command line exactly as it will run; "Start" runs it. Or a recording
 * (the CLI's record file, read here as text) that the host plays back as a server.
 */
import { useEffect, useId, useRef, useState } from "react"
import type { AddServer as AddServerBody } from "../../../src/Api.js"
import * as Api from "../api.js"
import { useStore } from "../store.js"

/** `KEY=VALUE` (env) or `Name: value` (headers), one a line. */
const parsePairs = (text: string, sep: "=" | ":"): { pairs: Record<string, string>; bad: ReadonlyArray<string> } => {
  const pairs: Record<string, string> = {}
  const bad: Array<string> = []
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    const at = line.indexOf(sep)
    if (at <= 0) bad.push(line)
    else pairs[line.slice(0, at).trim()] = line.slice(at + 1).trim()
  }
  return { pairs, bad }
}

export function AddServerDialog(props: {
  readonly open: boolean
  readonly onClose: () => void
  readonly onAdded: (name: string) => void
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const configFiles = useStore((s) => s.configFiles)
  const [kind, setKind] = useState<"Stdio" | "Http" | "Replay">("Stdio")
  const [name, setName] = useState("")
  const [command, setCommand] = useState("")
  const [args, setArgs] = useState("")
  const [env, setEnv] = useState("")
  const [url, setUrl] = useState("")
  const [headers, setHeaders] = useState("")
  const [saveTo, setSaveTo] = useState("")
  const [recording, setRecording] = useState<{ readonly file: string; readonly text: string } | undefined>(undefined)
  const [reading, setReading] = useState(false)
  const [preview, setPreview] = useState<string | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const id = useId()

  useEffect(() => {
    const d = ref.current
    if (d === null) return
    if (props.open && !d.open) d.showModal()
    if (!props.open && d.open) d.close()
  }, [props.open])

  // Anything changed after the preview needs a new preview.
  // biome-ignore lint/correctness/useExhaustiveDependencies: every field invalidates it
  useEffect(() => setPreview(undefined), [kind, name, command, args, env, url, headers, saveTo])

  const body = (confirm: boolean): AddServerBody | string => {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return "The name is 1 to 64 letters, digits, '_', '.' or '-'."
    const base = { name, confirm, ...(saveTo !== "" ? { saveTo } : {}) }
    if (kind === "Stdio") {
      if (command.trim() === "") return "The command is empty."
      const e = parsePairs(env, "=")
      if (e.bad.length > 0) return `Not KEY=VALUE: ${e.bad[0]}`
      return {
        ...base,
        target: { _tag: "Stdio", command: command.trim(), args: args.split("\n").filter((a) => a !== ""), env: e.pairs }
      }
    }
    if (!/^https?:\/\//.test(url.trim())) return "The URL starts with http:// or https://."
    const h = parsePairs(headers, ":")
    if (h.bad.length > 0) return `Not "Name: value": ${h.bad[0]}`
    return { ...base, target: { _tag: "Http", url: url.trim(), headers: h.pairs } }
  }

  const readRecording = (file: File | undefined) => {
    setRecording(undefined)
    setError(undefined)
    if (file === undefined) return
    const reader = new FileReader()
    setReading(true)
    reader.onload = () => {
      setReading(false)
      if (typeof reader.result === "string") setRecording({ file: file.name, text: reader.result })
      else setError(`${file.name} could not be read as text.`)
    }
    reader.onerror = () => {
      setReading(false)
      setError(`${file.name} could not be read: ${reader.error?.message ?? "unknown error"}`)
    }
    reader.readAsText(file)
  }

  const replay = () => {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return setError("The name is 1 to 64 letters, digits, '_', '.' or '-'.")
    if (recording === undefined) return setError("Choose a recording file.")
    setBusy(true)
    setError(undefined)
    Api.replay(name, recording.text).then(
      () => {
        setBusy(false)
        setRecording(undefined)
        props.onAdded(name)
        props.onClose()
      },
      (e: unknown) => {
        setBusy(false)
        setError(`The recording was refused: ${Api.errorMessage(e)}`)
      }
    )
  }

  const submit = (confirm: boolean) => {
    if (kind === "Replay") return replay()
    const b = body(confirm)
    if (typeof b === "string") {
      setError(b)
      return
    }
    setBusy(true)
    setError(undefined)
    Api.addServer(b).then(
      (answer) => {
        setBusy(false)
        if (answer.added) {
          props.onAdded(name)
          setPreview(undefined)
          props.onClose()
        } else setPreview(answer.preview)
      },
      (e: unknown) => {
        setBusy(false)
        setError(Api.errorMessage(e))
      }
    )
  }

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={`${id}-title`} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          submit(preview !== undefined)
        }}
      >
        <h2 id={`${id}-title`}>Add a server</h2>
        <div className="field">
          <label htmlFor={`${id}-name`}>Server name</label>
          <input
            id={`${id}-name`}
            value={name}
            required
            pattern="[A-Za-z0-9_.\-]{1,64}"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <fieldset className="radio-row">
          <legend>Server</legend>
          <label>
            <input type="radio" name={`${id}-kind`} checked={kind === "Stdio"} onChange={() => setKind("Stdio")} />{" "}
            stdio
          </label>
          <label>
            <input type="radio" name={`${id}-kind`} checked={kind === "Http"} onChange={() => setKind("Http")} /> HTTP
          </label>
          <label>
            <input type="radio" name={`${id}-kind`} checked={kind === "Replay"} onChange={() => setKind("Replay")} />{" "}
            Replay a recording
          </label>
        </fieldset>
        {kind === "Replay" ? (
          <div className="field">
            <label htmlFor={`${id}-recording`}>Recording</label>
            <input
              id={`${id}-recording`}
              type="file"
              accept=".jsonl,.ndjson,.json,application/x-ndjson,application/json,text/plain"
              aria-describedby={`${id}-recording-d`}
              onChange={(e) => readRecording(e.target.files?.[0])}
            />
            <p id={`${id}-recording-d`} className="field-desc">
              A record file of <code>--record FILE</code> or the trace&apos;s Save recording: the server answers as
              recorded.
              {recording !== undefined
                ? ` Read ${recording.file}: ${recording.text.split("\n").filter((l) => l.trim() !== "").length} lines.`
                : ""}
            </p>
          </div>
        ) : kind === "Stdio" ? (
          <>
            <div className="field">
              <label htmlFor={`${id}-cmd`}>Command</label>
              <input
                id={`${id}-cmd`}
                className="mono"
                value={command}
                placeholder="npx"
                onChange={(e) => setCommand(e.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-args`}>Arguments (one a line)</label>
              <textarea
                id={`${id}-args`}
                className="mono"
                rows={3}
                value={args}
                onChange={(e) => setArgs(e.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-env`}>Environment (KEY=VALUE, one a line)</label>
              <textarea
                id={`${id}-env`}
                className="mono"
                rows={2}
                value={env}
                onChange={(e) => setEnv(e.target.value)}
              />
            </div>
          </>
        ) : (
          <>
            <div className="field">
              <label htmlFor={`${id}-url`}>URL</label>
              <input
                id={`${id}-url`}
                className="mono"
                type="url"
                value={url}
                placeholder="https://example.com/mcp"
                onChange={(e) => setUrl(e.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-headers`}>Headers (Name: value, one a line)</label>
              <textarea
                id={`${id}-headers`}
                className="mono"
                rows={2}
                value={headers}
                onChange={(e) => setHeaders(e.target.value)}
              />
            </div>
          </>
        )}
        {kind === "Replay" ? null : (
          <div className="field">
            <label htmlFor={`${id}-save`}>Save to</label>
            <select id={`${id}-save`} value={saveTo} onChange={(e) => setSaveTo(e.target.value)}>
              <option value="">Do not save (this session only)</option>
              {configFiles.map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
          </div>
        )}
        {preview !== undefined ? (
          <section className="preview" aria-label="Command preview">
            <p>{kind === "Stdio" ? "This command will run on this machine:" : "The page will connect to:"}</p>
            <pre className="mono">{preview}</pre>
          </section>
        ) : null}
        {error !== undefined ? (
          <p className="error-text" role="alert">
            {error}
          </p>
        ) : null}
        <div className="button-row end">
          <button type="button" onClick={props.onClose}>
            Close
          </button>
          {kind === "Replay" ? (
            <button type="submit" className="primary" disabled={busy || reading}>
              Replay
            </button>
          ) : preview === undefined ? (
            <button type="submit" className="primary" disabled={busy}>
              Preview
            </button>
          ) : (
            <button type="submit" className="primary" disabled={busy}>
              Start
            </button>
          )}
        </div>
      </form>
    </dialog>
  )
}
