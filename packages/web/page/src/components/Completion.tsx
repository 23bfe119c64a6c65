/** A text input that asks the server for completions (`completion/complete`) as the user types. */
import { useEffect, useRef, useState } from "react"
import * as Api from "../api.js"

export function CompletingInput(props: {
  readonly id: string
  readonly server: string
  readonly completeRef: Api.CompleteRef | undefined
  readonly argument: string
  readonly value: string
  readonly context: Record<string, string>
  readonly onChange: (value: string) => void
  readonly required?: boolean
  readonly describedBy?: string | undefined
}) {
  const [values, setValues] = useState<ReadonlyArray<string>>([])
  const seq = useRef(0)
  const touched = useRef(false)
  const { server, completeRef, argument, value } = props
  const refJson = JSON.stringify(completeRef)
  const contextRef = useRef(props.context)
  contextRef.current = props.context

  // Debounced: one request 200 ms after the last keystroke; an older answer never wins.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the ref's JSON
  useEffect(() => {
    if (completeRef === undefined || !touched.current) return
    const mine = ++seq.current
    const timer = setTimeout(() => {
      const others = Object.fromEntries(Object.entries(contextRef.current).filter(([k]) => k !== argument))
      Api.complete(
        server,
        completeRef,
        { name: argument, value },
        Object.keys(others).length > 0 ? others : undefined
      ).then(
        (r) => {
          if (mine === seq.current) setValues(r.values)
        },
        () => {
          if (mine === seq.current) setValues([])
        }
      )
    }, 200)
    return () => clearTimeout(timer)
  }, [server, refJson, argument, value])

  const listId = `${props.id}-completions`
  return (
    <>
      <input
        id={props.id}
        list={values.length > 0 ? listId : undefined}
        value={props.value}
        required={props.required}
        aria-describedby={props.describedBy}
        autoComplete="off"
        onFocus={() => {
          // Completion of the empty value on first focus shows what there is to choose.
          if (!touched.current) {
            touched.current = true
            seq.current++
            if (completeRef !== undefined)
              Api.complete(server, completeRef, { name: argument, value: props.value }).then(
                (r) => setValues(r.values),
                () => setValues([])
              )
          }
        }}
        onChange={(e) => {
          touched.current = true
          props.onChange(e.target.value)
        }}
      />
      <datalist id={listId}>
        {values.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
    </>
  )
}
