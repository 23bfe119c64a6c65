/** A list of fixed-height rows that renders only the rows in view (the trace holds 10,000+). */
import { type KeyboardEvent, type ReactNode, useEffect, useLayoutEffect, useRef, useState } from "react"

export function VirtualList<A>(props: {
  readonly items: ReadonlyArray<A>
  readonly rowHeight: number
  readonly label: string
  readonly selected: number | undefined
  readonly onSelect: (index: number) => void
  readonly renderRow: (item: A, index: number) => ReactNode
  readonly rowId: (index: number) => string
  /** Keep the newest row in view while the user is at the bottom. */
  readonly follow: boolean
}) {
  const ref = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(400)
  const atBottom = useRef(true)
  const { items, rowHeight } = props

  useLayoutEffect(() => {
    const el = ref.current
    if (el === null) return
    const observer = new ResizeObserver(() => setHeight(el.clientHeight))
    observer.observe(el)
    setHeight(el.clientHeight)
    return () => observer.disconnect()
  }, [])

  // New rows while at the bottom: stay at the bottom.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when rows are added
  useLayoutEffect(() => {
    const el = ref.current
    if (el === null || !props.follow || !atBottom.current) return
    el.scrollTop = el.scrollHeight
    setScrollTop(el.scrollTop)
  }, [items.length, props.follow])

  // The selected row is scrolled into view when the keyboard moves it.
  const scrollTo = (index: number) => {
    const el = ref.current
    if (el === null) return
    const top = index * rowHeight
    if (top < el.scrollTop) el.scrollTop = top
    else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the selection moves
  useEffect(() => {
    if (props.selected !== undefined) scrollTo(props.selected)
  }, [props.selected])

  const overscan = 10
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan)
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan)
  const rows: Array<ReactNode> = []
  for (let i = first; i < last; i++) {
    const item = items[i]
    if (item === undefined) continue
    rows.push(
      // The listbox holds the focus and points at its option (aria-activedescendant).
      // biome-ignore lint/a11y/useFocusableInteractive: focus stays on the listbox
      // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox takes the keys
      <div
        key={i}
        id={props.rowId(i)}
        role="option"
        aria-selected={props.selected === i}
        aria-posinset={i + 1}
        aria-setsize={items.length}
        className={props.selected === i ? "vrow selected" : "vrow"}
        style={{ top: i * rowHeight, height: rowHeight }}
        onClick={() => props.onSelect(i)}
      >
        {props.renderRow(item, i)}
      </div>
    )
  }

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (items.length === 0) return
    const page = Math.max(1, Math.floor(height / rowHeight) - 1)
    const cur = props.selected ?? -1
    const to =
      e.key === "ArrowDown"
        ? cur + 1
        : e.key === "ArrowUp"
          ? cur - 1
          : e.key === "PageDown"
            ? cur + page
            : e.key === "PageUp"
              ? cur - page
              : e.key === "Home"
                ? 0
                : e.key === "End"
                  ? items.length - 1
                  : undefined
    if (to === undefined) return
    e.preventDefault()
    props.onSelect(Math.max(0, Math.min(items.length - 1, to)))
  }

  return (
    <div
      ref={ref}
      className="vlist"
      role="listbox"
      aria-label={props.label}
      tabIndex={0}
      aria-activedescendant={
        props.selected !== undefined && props.selected >= first && props.selected < last
          ? props.rowId(props.selected)
          : undefined
      }
      onKeyDown={onKey}
      onScroll={(e) => {
        const el = e.currentTarget
        atBottom.current = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight
        setScrollTop(el.scrollTop)
      }}
    >
      <div role="none" className="vlist-inner" style={{ height: items.length * rowHeight }}>
        {rows}
      </div>
    </div>
  )
}
