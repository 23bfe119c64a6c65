/**
 * Reading `@effect/cli`'s help documents as plain data: sections (a header, paragraphs, and
 * term/description pairs), with the filler its renderer adds to every option ("A
 * user-defined piece of text.", "This setting is optional.") dropped or shortened.
 */
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"

/** One term of a description list (`--timeout float`) and what it means. */
export interface Definition {
  readonly term: string
  readonly text: string
}

/** A section of a help document. */
export interface Section {
  readonly title: string
  readonly paragraphs: ReadonlyArray<string>
  readonly definitions: ReadonlyArray<Definition>
}

/** The text of a span, without styling. */
export const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
    case "URI":
    case "Text":
      return span.value
  }
}

const paragraphsOf = (doc: HelpDoc.HelpDoc): ReadonlyArray<string> => {
  switch (doc._tag) {
    case "Paragraph":
      return [spanText(doc.value)]
    case "Header":
      return [spanText(doc.value)]
    case "Sequence":
      return [...paragraphsOf(doc.left), ...paragraphsOf(doc.right)]
    case "Enumeration":
      return doc.elements.flatMap(paragraphsOf)
    case "DescriptionList":
      return doc.definitions.flatMap(([term, description]) => [spanText(term), ...paragraphsOf(description)])
    case "Empty":
      return []
  }
}

const GENERATED =
  /^(A user-defined piece of text|A true or false value|A floating point number|An integer|A (file|directory|path)|One of the following|A date|A redacted|A user-defined piece of text that is confidential)/

/**
 * The meaning of one option or argument in a few words: `@effect/cli`'s type sentence and
 * optionality filler dropped, defaults and repetition shortened.
 */
export const definitionText = (doc: HelpDoc.HelpDoc): string => {
  const paragraphs = paragraphsOf(doc)
  const kept = paragraphs.filter(
    (paragraph, index) => !(index === 0 && paragraphs.length > 1 && GENERATED.test(paragraph))
  )
  return kept
    .map((paragraph) => {
      const defaulted = /^This setting is optional\. Defaults to: (.*)$/s.exec(paragraph)
      if (defaulted !== null) return `(default: ${defaulted[1]})`
      if (/^This (setting|argument) is optional\.?$/.test(paragraph)) return ""
      if (/may be repeated/.test(paragraph))
        return kept.some((other) => other.includes("(repeatable)")) ? "" : "(repeatable)"
      return paragraph
    })
    .filter((paragraph) => paragraph !== "")
    .join(" ")
}

/** The sections of a help document, in order. */
export const sections = (doc: HelpDoc.HelpDoc): ReadonlyArray<Section> => {
  const result: Array<{ title: string; paragraphs: Array<string>; definitions: Array<Definition> }> = []
  const current = () => {
    const last = result.at(-1)
    if (last !== undefined) return last
    const first = { title: "", paragraphs: [], definitions: [] }
    result.push(first)
    return first
  }
  const visit = (node: HelpDoc.HelpDoc): void => {
    switch (node._tag) {
      case "Header":
        result.push({ title: spanText(node.value), paragraphs: [], definitions: [] })
        return
      case "Sequence":
        visit(node.left)
        visit(node.right)
        return
      case "Paragraph":
        current().paragraphs.push(spanText(node.value))
        return
      case "DescriptionList":
        // An optional argument is shown in brackets (`[<server>]`), as usage lines write it.
        for (const [term, description] of node.definitions)
          current().definitions.push({
            term:
              current().title === "ARGUMENTS" &&
              paragraphsOf(description).some((paragraph) => /^This (setting|argument) is optional\.?$/.test(paragraph))
                ? `[${spanText(term)}]`
                : spanText(term),
            text: definitionText(description)
          })
        return
      case "Enumeration":
        for (const element of node.elements) visit(element)
        return
      case "Empty":
        return
    }
  }
  visit(doc)
  return result
}
