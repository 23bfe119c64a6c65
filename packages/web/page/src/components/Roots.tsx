/** The roots every server is offered (`roots/list`): an editable list of `file://` URIs. */
import { useEffect, useId, useState } from "react"
import * as Api from "../api.js"
import { type Root, useStore } from "../store.js"

interface Row {
  readonly key: number
  readonly uri: string
  readonly name: string
}

const toRows = (roots: ReadonlyArray<Root>): ReadonlyArray<Row> =>
  roots.map((r, i) => ({ key: i, uri: r.uri, name: r.name ?? "" }))

export function RootsEditor() {
  const roots = useStore((s) => s.roots)
  const [rows, setRows] = useState<ReadonlyArray<Row>>(() => toRows(roots))
  const [next, setNext] = useState(1000)
  const [status, setStatus] = useState<string | undefined>(undefined)
  const id = useId()
  // The host's list wins when it changes (another page, or the config).
  useEffect(() => setRows(toRows(roots)), [roots])
  const invalid = rows.some((r) => !r.uri.startsWith("file://"))
  const update = (key: number, patch: Partial<Row>) =>
    setRows(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)))
  return (
    <details className="roots-editor">
      <summary>
        Roots <span className="count">{roots.length}</span>
      </summary>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          setStatus("saving…")
          Api.setRoots(rows.map((r) => (r.name.trim() === "" ? { uri: r.uri } : { uri: r.uri, name: r.name }))).then(
            () => setStatus("saved"),
            (err: unknown) => setStatus(`failed: ${Api.errorMessage(err)}`)
          )
        }}
      >
        <ul className="roots">
          {rows.map((r, i) => (
            <li key={r.key} className="root-row">
              <label htmlFor={`${id}-u${r.key}`} className="visually-hidden">
                Root {i + 1} URI
              </label>
              <input
                id={`${id}-u${r.key}`}
                className="mono"
                value={r.uri}
                aria-invalid={!r.uri.startsWith("file://")}
                onChange={(e) => update(r.key, { uri: e.target.value })}
              />
              <label htmlFor={`${id}-n${r.key}`} className="visually-hidden">
                Root {i + 1} name
              </label>
              <input
                id={`${id}-n${r.key}`}
                placeholder="name"
                value={r.name}
                onChange={(e) => update(r.key, { name: e.target.value })}
              />
              <button
                type="button"
                className="small"
                aria-label={`Remove root ${i + 1}`}
                onClick={() => setRows(rows.filter((x) => x.key !== r.key))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
        {rows.length === 0 ? <p className="muted">No roots offered.</p> : null}
        {invalid ? <p className="error-text">Each root is a file:// URI.</p> : null}
        <div className="button-row">
          <button
            type="button"
            className="small"
            onClick={() => {
              setRows([...rows, { key: next, uri: "file:///", name: "" }])
              setNext(next + 1)
            }}
          >
            Add root
          </button>
          <button type="submit" className="small primary" disabled={invalid}>
            Save roots
          </button>
          <output className="muted" aria-live="polite">
            {status ?? ""}
          </output>
        </div>
      </form>
    </details>
  )
}
