/**
 * Tab completion in the shell: command names, then the names the server offers (tools,
 * resource URIs and templates, prompts), then a tool's or prompt's argument names (`name=`),
 * their values (a tool argument's enum, `true`/`false`; a prompt argument's and a template
 * variable's by asking the server, `completion/complete`), and a command's options (`--out`).
 */

/** A tool's or prompt's argument: its name and the values its schema lists (enum, const, boolean). */
export interface Argument {
  readonly name: string
  readonly values: ReadonlyArray<string>
}

/** What can be completed, as the shell knows it now. */
export interface Vocabulary {
  /** Commands and their subcommands (`tools` → `list`, `show`, `call`). */
  readonly commands: { readonly [command: string]: ReadonlyArray<string> }
  readonly tools: ReadonlyArray<{ readonly name: string; readonly args: ReadonlyArray<Argument> }>
  readonly resources: ReadonlyArray<string>
  /** Resource templates (`demo://text/{id}`). */
  readonly templates: ReadonlyArray<string>
  readonly prompts: ReadonlyArray<{ readonly name: string; readonly args: ReadonlyArray<Argument> }>
}

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const scalar = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? [String(value)] : []

/** The values a property's JSON Schema lists: `enum`, `const`, `oneOf`/`anyOf` of consts, a boolean's two. */
const listedValues = (property: unknown): ReadonlyArray<string> => {
  if (!isRecord(property)) return []
  if (Array.isArray(property.enum)) return property.enum.flatMap(scalar)
  if ("const" in property) return scalar(property.const)
  const choices = Array.isArray(property.oneOf) ? property.oneOf : Array.isArray(property.anyOf) ? property.anyOf : []
  if (choices.length > 0) return choices.flatMap(listedValues)
  return property.type === "boolean" ? ["true", "false"] : []
}

/** A tool's arguments, from its input schema's properties. */
export const schemaArguments = (schema: unknown): ReadonlyArray<Argument> =>
  isRecord(schema) && isRecord(schema.properties)
    ? Object.entries(schema.properties).map(([name, property]) => ({ name, values: listedValues(property) }))
    : []

/** A prompt's arguments (their values are the server's to complete). */
export const promptArguments = (args: ReadonlyArray<{ readonly name: string }> | undefined): ReadonlyArray<Argument> =>
  (args ?? []).map((arg) => ({ name: arg.name, values: [] }))

/** A question for the server: the values of a prompt's argument or a template's variable. */
export interface Ask {
  readonly ref:
    | { readonly type: "ref/prompt"; readonly name: string }
    | { readonly type: "ref/resource"; readonly uri: string }
  readonly argument: string
  /** What is typed of the value so far. */
  readonly typed: string
  /** The other arguments already given (`context.arguments`). */
  readonly context: { readonly [name: string]: string }
  /** What goes before each value the server gives to make the completed word. */
  readonly prefix: string
}

/** What completing a line gives: candidates for its last word, or a question for the server. */
export type Completion =
  | { readonly _tag: "Candidates"; readonly word: string; readonly candidates: ReadonlyArray<string> }
  | { readonly _tag: "Ask"; readonly word: string; readonly ask: Ask }

/** The options of a command, by `command sub`. */
const OPTIONS: { readonly [command: string]: ReadonlyArray<string> } = {
  "tools call": ["--task", "--out", "--args"],
  "resources read": ["--out"],
  "prompts get": ["--out"]
}

// What the server offers goes on the command line: none with a control character (it would reach
// the terminal), and each as one word, its blanks and quotes escaped as the shell's words read them.
const CONTROL = new RegExp(
  `[${String.fromCharCode(0)}-${String.fromCharCode(31)}${String.fromCharCode(127)}-${String.fromCharCode(159)}]`
)
const asWord = (text: string) => text.replace(/([\s'"\\$`])/g, "\\$1")
const offerable = (candidates: ReadonlyArray<string>) =>
  candidates.filter((candidate) => !CONTROL.test(candidate)).map(asWord)

// A whole word is completed with the space that ends it; `name=` waits for its value.
const matching = (candidates: ReadonlyArray<string>, word: string) =>
  offerable(candidates)
    .filter((candidate) => candidate.startsWith(word))
    .map((candidate) => (candidate.endsWith("=") ? candidate : `${candidate} `))

const candidates = (word: string, offered: ReadonlyArray<string>): Completion => ({
  _tag: "Candidates",
  word,
  candidates: matching(offered, word)
})

/** `name=value` or `name:=json` given before the word, by name. */
const given = (words: ReadonlyArray<string>): { readonly [name: string]: string } =>
  Object.fromEntries(
    words.flatMap((word) => {
      const match = /^([^=:]+):?=(.*)$/.exec(word)
      return match === null ? [] : [[match[1] ?? "", match[2] ?? ""]]
    })
  )

/**
 * A template's literal start and its first variable (`demo://text/{id}` → `demo://text/`, `id`);
 * none when the template starts with a variable.
 */
export const firstVariable = (template: string): { readonly prefix: string; readonly name: string } | undefined => {
  const match = /^([^{]+)\{[+#./;?&]?([A-Za-z0-9_.%]+)/.exec(template)
  return match === null ? undefined : { prefix: match[1] ?? "", name: match[2] ?? "" }
}

/** A URI being typed: listed URIs and templates' literal starts, or the server's values for a template's variable. */
const uri = (word: string, vocabulary: Vocabulary): Completion => {
  const listed = matching(vocabulary.resources, word)
  const variables = vocabulary.templates.flatMap((template) => {
    const variable = firstVariable(template)
    return variable === undefined ? [] : [{ template, ...variable }]
  })
  // The literal start typed in full (the longest such), and no listed URI goes on: the rest is the variable's value.
  const typed = variables
    .filter((variable) => word.startsWith(variable.prefix))
    .sort((a, b) => b.prefix.length - a.prefix.length)[0]
  if (typed !== undefined && listed.length === 0)
    return {
      _tag: "Ask",
      word,
      ask: {
        ref: { type: "ref/resource", uri: typed.template },
        argument: typed.name,
        typed: word.slice(typed.prefix.length),
        context: {},
        prefix: typed.prefix
      }
    }
  // A template's start waits for its variable, as `name=` does.
  const starts = [...new Set(variables.map((variable) => variable.prefix))].filter(
    (start) => start.startsWith(word) && start !== word
  )
  return { _tag: "Candidates", word, candidates: [...listed, ...starts] }
}

/** The argument names not given yet, an argument's values, or the options. */
const argumentsOf = (
  word: string,
  before: ReadonlyArray<string>,
  args: ReadonlyArray<Argument>,
  options: ReadonlyArray<string>,
  ask: ((argument: string, typed: string) => Completion) | undefined
): Completion => {
  if (word.startsWith("-")) return candidates(word, options)
  const value = /^([^=:]+)(:?=)(.*)$/.exec(word)
  if (value !== null) {
    const [, name = "", sign = "=", typed = ""] = value
    const argument = args.find((arg) => arg.name === name)
    if (argument !== undefined && argument.values.length > 0)
      return candidates(
        word,
        argument.values.map((listed) => `${name}${sign}${listed}`)
      )
    return ask === undefined ? candidates(word, []) : ask(name, typed)
  }
  const used = new Set(Object.keys(given(before)))
  return candidates(
    word,
    args.filter((arg) => !used.has(arg.name)).map((arg) => `${arg.name}=`)
  )
}

/** Completes the last word of `line`. */
export const complete = (line: string, vocabulary: Vocabulary): Completion => {
  const words = line.trimStart().split(/\s+/)
  const word = words.at(-1) ?? ""
  const before = words.slice(0, -1)
  const [command, sub, name] = before
  if (command === undefined) return candidates(word, Object.keys(vocabulary.commands))
  if (sub === undefined)
    return command === "subscribe" || command === "unsubscribe"
      ? uri(word, vocabulary)
      : candidates(word, vocabulary.commands[command] ?? [])
  const options = OPTIONS[`${command} ${sub}`] ?? []
  if (command === "tools" && (sub === "call" || sub === "show")) {
    if (name === undefined)
      return candidates(
        word,
        vocabulary.tools.map((tool) => tool.name)
      )
    if (sub === "call")
      return argumentsOf(
        word,
        before.slice(3),
        vocabulary.tools.find((tool) => tool.name === name)?.args ?? [],
        options,
        undefined
      )
  }
  if (command === "resources" && (sub === "read" || sub === "subscribe" || sub === "unsubscribe"))
    return name === undefined ? uri(word, vocabulary) : candidates(word, word.startsWith("-") ? options : [])
  if (command === "prompts" && sub === "get") {
    if (name === undefined)
      return candidates(
        word,
        vocabulary.prompts.map((prompt) => prompt.name)
      )
    return argumentsOf(
      word,
      before.slice(3),
      vocabulary.prompts.find((prompt) => prompt.name === name)?.args ?? [],
      options,
      (argument, typed) => ({
        _tag: "Ask",
        word,
        ask: {
          ref: { type: "ref/prompt", name },
          argument,
          typed,
          context: given(before.slice(3)),
          prefix: word.slice(0, word.length - typed.length)
        }
      })
    )
  }
  return candidates(word, [])
}

/** The completed words for what the server answered to `ask`. */
export const answered = (ask: Ask, values: ReadonlyArray<string>): ReadonlyArray<string> =>
  offerable(values).map((value) => `${ask.prefix}${value} `)
