/**
 * Tab completion in the shell: command names, then the names the server offers (tools,
 * resource URIs, prompts), then a tool's or prompt's argument names (`name=`).
 */

/** What can be completed, as the shell knows it now. */
export interface Vocabulary {
  /** Commands and their subcommands (`tools` → `list`, `show`, `call`). */
  readonly commands: { readonly [command: string]: ReadonlyArray<string> }
  /** Tool names with their argument names. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly args: ReadonlyArray<string> }>
  readonly resources: ReadonlyArray<string>
  readonly prompts: ReadonlyArray<{ readonly name: string; readonly args: ReadonlyArray<string> }>
}

// A whole word is completed with the space that ends it; `name=` waits for its value.
const matching = (candidates: ReadonlyArray<string>, word: string) =>
  candidates
    .filter((candidate) => candidate.startsWith(word))
    .map((candidate) => (candidate.endsWith("=") ? candidate : `${candidate} `))

/** Completions of the last word of `line` and that word, as readline's completer returns them. */
export const complete = (line: string, vocabulary: Vocabulary): [Array<string>, string] => {
  const words = line.trimStart().split(/\s+/)
  const word = words.at(-1) ?? ""
  const before = words.slice(0, -1)
  const [command, sub, name] = before
  if (command === undefined) return [matching(Object.keys(vocabulary.commands), word), word]
  if (sub === undefined)
    return command === "subscribe" || command === "unsubscribe"
      ? [matching(vocabulary.resources, word), word]
      : [matching(vocabulary.commands[command] ?? [], word), word]
  const options = (names: ReadonlyArray<string>) => {
    const used = new Set(before.slice(3).map((given) => given.split(/:?=/)[0]))
    return matching(
      names.filter((arg) => !used.has(arg)).map((arg) => `${arg}=`),
      word
    )
  }
  if (command === "tools" && (sub === "call" || sub === "show")) {
    if (name === undefined)
      return [
        matching(
          vocabulary.tools.map((tool) => tool.name),
          word
        ),
        word
      ]
    if (sub === "call") return [options(vocabulary.tools.find((tool) => tool.name === name)?.args ?? []), word]
  }
  if (command === "resources" && (sub === "read" || sub === "subscribe" || sub === "unsubscribe") && name === undefined)
    return [matching(vocabulary.resources, word), word]
  if (command === "prompts" && sub === "get") {
    if (name === undefined)
      return [
        matching(
          vocabulary.prompts.map((prompt) => prompt.name),
          word
        ),
        word
      ]
    return [options(vocabulary.prompts.find((prompt) => prompt.name === name)?.args ?? []), word]
  }
  return [[], word]
}
