/**
 * A tiny Markdown renderer that builds React elements (never HTML): headings, paragraphs, bold,
 * italic, inline code, fenced code, lists, quotes, rules and links (only `http:`/`https:`).
 */
import type { ReactNode } from "react"
import { isWebUrl } from "../mcp.js"

/** Whether a text reads as Markdown (worth rendering) rather than plain text. */
export const looksLikeMarkdown = (text: string): boolean =>
  /^#{1,6}\s|^\s*[-*+]\s+\S|^\s*\d+\.\s+\S|^```|^>\s/m.test(text) ||
  /\*\*[^*\n]+\*\*|\[[^\]\n]+\]\([^)\s]+\)|`[^`\n]+`/.test(text)

type Block =
  | { readonly t: "h"; readonly level: number; readonly text: string }
  | { readonly t: "p"; readonly text: string }
  | { readonly t: "code"; readonly lang: string; readonly text: string }
  | { readonly t: "ul" | "ol"; readonly items: ReadonlyArray<string> }
  | { readonly t: "quote"; readonly text: string }
  | { readonly t: "hr" }

const parseBlocks = (src: string): ReadonlyArray<Block> => {
  const lines = src.replace(/\r\n?/g, "\n").split("\n")
  const blocks: Array<Block> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i] ?? ""
    const fence = /^\s*(```+|~~~+)\s*([\w+-]*)/.exec(line)
    if (fence !== null) {
      const close = fence[1] ?? "```"
      const body: Array<string> = []
      i++
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(close)) body.push(lines[i++] ?? "")
      i++
      blocks.push({ t: "code", lang: fence[2] ?? "", text: body.join("\n") })
      continue
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading !== null) {
      blocks.push({ t: "h", level: heading[1]?.length ?? 1, text: heading[2] ?? "" })
      i++
      continue
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ t: "hr" })
      i++
      continue
    }
    const listKind = /^\s*[-*+]\s+/.test(line) ? "ul" : /^\s*\d+[.)]\s+/.test(line) ? "ol" : undefined
    if (listKind !== undefined) {
      const marker = listKind === "ul" ? /^\s*[-*+]\s+/ : /^\s*\d+[.)]\s+/
      const items: Array<string> = []
      while (i < lines.length && marker.test(lines[i] ?? "")) {
        let item = (lines[i] ?? "").replace(marker, "")
        i++
        // Continuation lines (indented, not a new item) belong to the item.
        while (i < lines.length && /^\s{2,}\S/.test(lines[i] ?? "") && !marker.test(lines[i] ?? ""))
          item += ` ${(lines[i++] ?? "").trim()}`
        items.push(item)
      }
      blocks.push({ t: listKind, items })
      continue
    }
    if (/^\s*>/.test(line)) {
      const body: Array<string> = []
      while (i < lines.length && /^\s*>/.test(lines[i] ?? "")) body.push((lines[i++] ?? "").replace(/^\s*>\s?/, ""))
      blocks.push({ t: "quote", text: body.join("\n") })
      continue
    }
    if (line.trim() === "") {
      i++
      continue
    }
    const body: Array<string> = []
    while (
      i < lines.length &&
      (lines[i] ?? "").trim() !== "" &&
      !/^(#{1,6}\s|\s*```|\s*~~~|\s*[-*+]\s+|\s*\d+[.)]\s+|\s*>)/.test(lines[i] ?? "")
    )
      body.push(lines[i++] ?? "")
    blocks.push({ t: "p", text: body.join("\n") })
  }
  return blocks
}

// Inline: code spans first (nothing inside them is Markdown), then links, bold, italic.
const inlinePattern =
  /(`+)([^`]|[^`][\s\S]*?[^`])\1|\[([^\]\n]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|\b_([^_\s][^_]*)_\b/g

const inline = (text: string, key: string): Array<ReactNode> => {
  const out: Array<ReactNode> = []
  let last = 0
  let n = 0
  for (const m of text.matchAll(inlinePattern)) {
    const at = m.index ?? 0
    if (at > last) out.push(text.slice(last, at))
    const k = `${key}.${n++}`
    if (m[2] !== undefined) out.push(<code key={k}>{m[2]}</code>)
    else if (m[3] !== undefined && m[4] !== undefined) {
      out.push(
        isWebUrl(m[4]) ? (
          <a key={k} href={m[4]} target="_blank" rel="noopener noreferrer">
            {inline(m[3], k)}
          </a>
        ) : (
          <span key={k}>{m[3]}</span>
        )
      )
    } else if (m[5] !== undefined || m[6] !== undefined)
      out.push(<strong key={k}>{inline(m[5] ?? m[6] ?? "", k)}</strong>)
    else if (m[7] !== undefined || m[8] !== undefined) out.push(<em key={k}>{inline(m[7] ?? m[8] ?? "", k)}</em>)
    last = at + m[0].length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

/** Renders the text's blocks; each line break inside a paragraph stays one. */
const withBreaks = (text: string, key: string): Array<ReactNode> =>
  text.split("\n").flatMap((line, i) =>
    i === 0
      ? inline(line, `${key}l${i}`)
      : // biome-ignore lint/suspicious/noArrayIndexKey: lines of a static text
        [<br key={`${key}br${i}`} />, ...inline(line, `${key}l${i}`)]
  )

export function Markdown(props: { readonly text: string }) {
  const blocks = parseBlocks(props.text)
  return (
    <div className="markdown">
      {blocks.map((b, i) => {
        const key = String(i)
        switch (b.t) {
          case "h": {
            // Headings of server text start at h4, under the page's own.
            const level = Math.min(6, b.level + 3)
            const Tag = `h${level}` as "h4" | "h5" | "h6"
            return <Tag key={key}>{inline(b.text, key)}</Tag>
          }
          case "p":
            return <p key={key}>{withBreaks(b.text, key)}</p>
          case "code":
            return (
              <pre key={key} className="code-block" data-lang={b.lang || undefined}>
                <code>{b.text}</code>
              </pre>
            )
          case "ul":
            return (
              <ul key={key}>
                {b.items.map((item, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: list items of a static text
                  <li key={j}>{inline(item, `${key}.${j}`)}</li>
                ))}
              </ul>
            )
          case "ol":
            return (
              <ol key={key}>
                {b.items.map((item, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: list items of a static text
                  <li key={j}>{inline(item, `${key}.${j}`)}</li>
                ))}
              </ol>
            )
          case "quote":
            return <blockquote key={key}>{withBreaks(b.text, key)}</blockquote>
          case "hr":
            return <hr key={key} />
          default:
            return null
        }
      })}
    </div>
  )
}
